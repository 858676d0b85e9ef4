"""phpBB's answers to a write, read: pure functions, the board's answer in, what it means out.

The texts matched (flood control, an invalid form, too many recipients, unknown recipients, a post held
for approval, refusals) are phpBB's own, English and Russian language packs, each pinned by a test on the
real pages; they are written here and nowhere else. Successes are recognised by their structure (a
redirect to the topic, a link to the PM), not their words.
"""

from __future__ import annotations

import re
from typing import Literal

from forumbot.forum.markup import Element, find_form, first_class, parse_html, query_int, text_of
from forumbot.forum.outcome import Outcome, RefusedForGood, RefusedForNow, Stored, Unknown
from forumbot.forum.phpbb.forms import addressed_recipients
from forumbot.forum.phpbb.pages import parse_topic_page

__all__ = [
    "FLOOD",
    "FORM_INVALID",
    "NEEDS_APPROVAL",
    "NO_USERS",
    "REFUSED",
    "TOO_MANY",
    "RecipientTrouble",
    "form_error",
    "form_missing",
    "message_answer",
    "pm_answer",
    "post_answer",
    "recipients_trouble",
    "forum_message",
    "has_post_review",
    "sent_pm_id",
]

_REVIEWED = re.compile(r"ppr\d+")

# phpBB's own messages, English and Russian language packs (each pinned by a test on the real pages).
FLOOD = re.compile(r"so soon after your last|сразу после предыдущего", re.I)  # FLOOD_ERROR
FORM_INVALID = re.compile(r"submitted form was invalid|ошибка отправки формы", re.I)  # FORM_INVALID
TOO_MANY = re.compile(r"too many recipients|слишком большому числу получателей", re.I)  # TOO_MANY_RECIPIENTS
NO_USERS = re.compile(r"users to be added do not exist|пользователи не существуют", re.I)  # PM_NO_USERS
NEEDS_APPROVAL = re.compile(r"approved by a moderator|одобрено модератором", re.I)  # POST_STORED_MOD
REFUSED = re.compile(  # TOPIC_LOCKED, NOT_AUTHORISED, USER_CANNOT_*, NO_AUTH_*
    r"topic is locked|not authori[sz]ed|not permitted|you cannot|"
    r"тема закрыта|нет (прав|доступа)|не авторизованы|не можете|доступ запрещ",
    re.I,
)


def form_error(html: str | Element) -> str | None:
    """The error phpBB printed above a posting or PM form (`p.error`), if any."""
    error = first_class(parse_html(html), "p", "error")
    text = text_of(error)
    return text or None


def forum_message(html: str | Element) -> str | None:
    """The text of a phpBB message page (`div#message`: information, refusals), if the page is one."""
    root = parse_html(html)
    panel = next((div for div in root.iter("div") if div.get("id") == "message"), None)
    return text_of(panel) if panel is not None else None


def has_post_review(html: str | Element) -> bool:
    """phpBB showed the posts made since the form was fetched, instead of posting the reply: inside the
    form, each new post is a `div.postbody#ppr<id>` (the topic review below the form uses `pr<id>`)."""
    form = find_form(parse_html(html), "postform")
    return form is not None and any(_REVIEWED.fullmatch(div.get("id") or "") for div in form.iter("div"))


def sent_pm_id(html: str | Element) -> int | None:
    """The id of the PM just sent: the success page links (and refreshes) to `mode=view&p=N`."""
    root = parse_html(html)
    panel = next((div for div in root.iter("div") if div.get("id") == "message"), None)
    links = [a.get("href") or "" for a in (panel.iter("a") if panel is not None else ())]
    links += [m.get("content") or "" for m in root.iter("meta") if (m.get("http-equiv") or "").lower() == "refresh"]
    for href in links:
        if "mode=view" in href:
            found = query_int(href.partition("url=")[2] or href, "p")
            if found is not None:
                return found
    return None


# --- one typed outcome per answer kind ----------------------------------------------------------------


def post_answer(url: str, html: str, made: Literal["topic", "reply"]) -> Outcome:
    """The board's answer to a new topic or a reply (`url`: where its redirect ended). Stored: the topic
    page it sends the poster to (the id from its URL, a new topic's else from the page; None if neither
    says); an error above the form: flood control or a form too old for now, anything else for good; the
    form served again with the posts made meanwhile: for now (submit it as served); else the message page."""
    if "viewtopic.php" in url:
        return Stored(query_int(url, "p") if made == "reply" else _topic_id(url, html))
    error = form_error(html)
    if error:
        return _form_error_answer(error, html)
    if has_post_review(html):
        return RefusedForNow("review")
    return message_answer(html)


def pm_answer(html: str) -> Outcome:
    """The board's answer to a PM's sending. Stored: the message page linking to the PM (its id), or a
    message page with no form and no refusal (sent; its id not shown); an error above the form: flood
    control or a form too old for now, too many recipients (the form keeps as many as it takes) or any
    other for good; else the message page."""
    no_form = find_form(parse_html(html), "postform") is None
    pm_id = sent_pm_id(html)
    if pm_id is not None and no_form:
        return Stored(pm_id)
    error = form_error(html)
    if error:
        return _form_error_answer(error, html)
    text = forum_message(html)
    if text is not None and no_form:
        return RefusedForGood(text, "no_permission") if REFUSED.search(text) else Stored(None)
    return message_answer(html)


def message_answer(html: str) -> Outcome:
    """A message page that proves nothing stored: held for a moderator's approval or refused, both for
    good; any other page: unknown (its words, if any)."""
    text = forum_message(html)
    if text is not None and NEEDS_APPROVAL.search(text):
        return RefusedForGood(text, "held_for_approval")
    if text is not None and REFUSED.search(text):
        return RefusedForGood(text, "no_permission")
    return Unknown(text or "")


def form_missing(html: str) -> RefusedForGood:
    """A page served instead of the form asked for: the board's refusal (the account may not), else the
    page's message or nothing."""
    text = forum_message(html)
    if text is not None and REFUSED.search(text):
        return RefusedForGood(text, "no_permission")
    return RefusedForGood(text or "unexpected page")


RecipientTrouble = Literal["too_many_recipients", "unknown_recipient", "rejected"]


def recipients_trouble(error: str | None) -> RecipientTrouble:
    """Why the compose form came back without every recipient asked for: the board's limit, names it
    does not know (it names none of them, and says nothing when some names exist), or another error."""
    if error and TOO_MANY.search(error):
        return "too_many_recipients"
    if error and NO_USERS.search(error) or not error:
        return "unknown_recipient"
    return "rejected"


def _form_error_answer(error: str, html: str) -> Outcome:
    if FLOOD.search(error):
        return RefusedForNow("flood", error)
    if FORM_INVALID.search(error):
        return RefusedForNow("form_invalid", error)
    if TOO_MANY.search(error):
        return RefusedForGood(error, "too_many_recipients", limit=len(addressed_recipients(html)))
    return RefusedForGood(error)


def _topic_id(url: str, html: str) -> int | None:
    found = query_int(url, "t")
    return found if found is not None else parse_topic_page(html, url=url).topic_id
