"""IPB 3's answers to a write, read: pure functions, the board's answer in, one outcome of
`forumbot.forum.outcome` out. What IPB 3.4 answers (`fixtures/ipb-real/ipb34/`: its templates, and its
handlers' redirects):

- a success is a silent 302: a new topic to `showtopic=T`, a reply to `showtopic=T&p=P`, with friendly
  URLs (the install's default) to `index.php?/topic/T-slug/` and `index.php?/topic/T-slug/?p=P`; a new
  conversation to `…do=findMessage&topicID=C&msgID=M`; the moderators' close to the forum. A new topic's id
  is believed once its first post shows the marker (the double-post guard answers with the forum's newest
  topic); a reply sent to the topic's last post (`view=getlastpost`) names nothing made: unknown;
- a refusal is an error page (`p.ipsType_sectiontitle`), sent with 403 for the form's request and its
  submission alike: flood control («Стоит делать передышку в N секунд…», N the seconds left: for now), a
  stale form hash (for now: the form is fetched again), a locked topic or no permission (for good); a
  guest's error page (no member bar, the login form) is a dead session: logged out;
- the Messenger's form served again with its error box (`div.message.error`): no such member, too many
  invited, any other error: for good.

IPB 3's own messages matched here (public_error flood_control, the form hash's, TOPIC_LOCKED; messaging
err_no_chosen_member), Russian and English, are written here and nowhere else.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from forumbot.forum.invision.pages import logged_in, refusal
from forumbot.forum.ipb3.forms import invites_allowed
from forumbot.forum.markup import Element, find_form, first_class, has_class, iter_class, parse_html, query_int, text_of
from forumbot.forum.outcome import LoggedOut, Outcome, RefusedForGood, RefusedForNow, Stored, Unknown

__all__ = [
    "BAD_KEY",
    "FLOOD",
    "LOCKED",
    "NO_MEMBER",
    "close_answer",
    "error_text",
    "flood_wait",
    "form_missing",
    "pm_answer",
    "post_answer",
    "topic_of",
]

FLOOD = re.compile(r"(?:передышку в|подожд\w*|wait)\D{0,40}?(\d+)\s*(?:секунд|second)", re.I)
BAD_KEY = re.compile(r"ключ безопасности|security key|form hash", re.I)
LOCKED = re.compile(r"закрыт\w* тем|тема закрыта|topic is (?:closed|locked)|locked topic", re.I)
NO_MEMBER = re.compile(
    r"полное имя пользователя|не существует|не найден|does not exist|could not find|no such member|not found", re.I
)
_FRIENDLY_TOPIC = re.compile(r"/topic/(\d+)-")


def error_text(html: str | Element) -> str | None:
    """What IPB 3 said went wrong: the error page's reason (`p.ipsType_sectiontitle`), else the error
    box above a form (`p.message.error`, or `div.message.error` with its lines, not the `noscript` notice
    every page carries); None if neither."""
    root = parse_html(html)
    title = first_class(root, "p", "ipsType_sectiontitle")
    if title is not None and text_of(title):
        return text_of(title)
    for box in list(iter_class(root, "p", "message")) + list(iter_class(root, "div", "message")):
        in_noscript = any(el.tag == "noscript" for el in box.iterancestors())  # every page's JavaScript notice
        if has_class(box, "error") and text_of(box) and not in_noscript:
            lines = [text_of(p) for p in box.iter("p") if text_of(p)] if box.tag == "div" else []
            return " ".join(lines) or text_of(box)
    return None


def flood_wait(html: str | Element) -> int | None:
    """The seconds flood control asks to wait (IPB 3: the seconds left), if the page is its error."""
    m = FLOOD.search(error_text(html) or "")
    return int(m.group(1)) if m else None


def topic_of(link: str) -> int | None:
    """The topic a link names, plain (`showtopic=T`) or friendly (`index.php?/topic/T-slug/`)."""
    found = query_int(link, "showtopic")
    if found is None:
        m = _FRIENDLY_TOPIC.search(link)
        found = int(m.group(1)) if m else None
    return found


def _refused(root: Element, said: str) -> Outcome:
    flood = FLOOD.search(said)
    if flood:
        return RefusedForNow("flood", said, float(flood.group(1)))
    if BAD_KEY.search(said):
        return RefusedForNow("form_invalid", said)
    if not logged_in(root):
        return LoggedOut(said)
    if LOCKED.search(said) or refusal(root) is not None:
        return RefusedForGood(said, "no_permission")
    return RefusedForGood(said)


def _other(root: Element) -> Outcome:
    said = error_text(root)
    if said:
        return _refused(root, said)
    if not logged_in(root):
        return LoggedOut("the board answered with a guest's page")
    return Unknown(" ".join(text_of(root.find(".//title")).split()))


# --- one outcome per kind of write ---------------------------------------------------------------------


def post_answer(locations: Sequence[str], html: str, made: Literal["topic", "reply"]) -> Outcome:
    """The board's answer to a new topic or a reply: `locations` are the redirects it answered with (the
    Location headers, in order), `html` the page they led to, or the page it answered with (an error page
    sent with 403 included)."""
    if locations:
        target = locations[0]
        if made == "reply":
            found = query_int(target, "p")
            return Stored(found) if found is not None else Unknown(f"redirected to {target}, which names no post")
        topic = topic_of(target)
        return Stored(topic) if topic is not None else Unknown(f"redirected to {target}, which names no topic")
    root = parse_html(html)
    if find_form(root, "postingform") is not None:
        return RefusedForGood(error_text(root) or "the posting form came back (a preview): nothing was posted")
    return _other(root)


def pm_answer(locations: Sequence[str], html: str, invited: int = 0) -> Outcome:
    """The board's answer to a new conversation (`invited`: how many names went in `inviteUsers`): the
    redirect to it is stored, with its first message's id (`msgID`); the form again with no such member,
    more invited than the form takes, or another error, for good; an error page as every write's."""
    if locations:
        return Stored(query_int(locations[0], "msgID"))
    root = parse_html(html)
    if find_form(root, "msgForm") is not None:
        said = error_text(root) or "the form came back (a preview): nothing was sent"
        if NO_MEMBER.search(said):
            return RefusedForGood(said, "unknown_recipient")
        allowed = invites_allowed(root)
        if invited > allowed:
            return RefusedForGood(said, "too_many_recipients", allowed + 1)
        return RefusedForGood(said)
    return _other(root)


def close_answer(locations: Sequence[str], html: str) -> Outcome:
    """The board's answer to the moderators' close link: a redirect (to the forum), else an error page."""
    if locations:
        return Stored(None)
    return _other(parse_html(html))


def form_missing(html: str) -> Outcome:
    """A page served where a form was asked for: flood control (the seconds left, for now), a dead session,
    a locked topic or no permission, or an unexpected page (unknown: the form is asked for again later)."""
    return _other(parse_html(html))
