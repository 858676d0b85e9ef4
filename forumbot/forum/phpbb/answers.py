"""phpBB's answers to a write, read: pure functions, the board's answer in, one typed outcome out
(`forumbot.forum.outcome`). Checked on every answer of the real board (fixtures/phpbb-ru) and on the
English pack's texts as the fake board prints them.

An answer proves what it is by its structure first, then by the board's own message, each matched as the
whole sentence phpBB's language pack prints (English and Russian), never by a loose word:

- stored: a new topic's or reply's 302 to `viewtopic.php` (`t=` / `p=` in its Location), a PM's message
  page refreshing to `mode=view&p=N`, a lock's "The selected topic has been locked.";
- the form served again with `p.error` above it: nothing was stored. Flood control ("You cannot make
  another post so soon after your last.") is for now; "The submitted form was invalid." is an unknown
  (phpBB stored nothing, but a request replayed on the way may have been: it is looked for first); too
  many recipients, no such users and any other error (an empty message, an empty subject) are for good;
- the form served again with the posts made meanwhile for review (`div#ppr<id>` inside it): for now;
- a message page (`div#message`): held for a moderator's approval, the topic locked, the account not
  authorised, the topic or forum gone: for good, in the board's words;
- a login page (`form#login`): logged out;
- anything else is unknown, and so is a refusal read off a page that stopped before its end (`</html>`):
  a cut answer proves nothing.

The texts are phpBB's and live here and nowhere else.
"""

from __future__ import annotations

import re
from typing import Literal

from forumbot.forum.markup import Element, find_form, first_class, parse_html, query_int, text_of
from forumbot.forum.outcome import LoggedOut, Outcome, Refusal, RefusedForGood, RefusedForNow, Stored, Unknown
from forumbot.forum.phpbb.forms import addressed_recipients
from forumbot.forum.phpbb.pages import is_login_wall, parse_topic_page

__all__ = [
    "FLOOD",
    "FORM_INVALID",
    "LOCKED_DONE",
    "NEEDS_APPROVAL",
    "NOT_AUTHORISED",
    "NO_FORUM",
    "NO_TOPIC",
    "NO_USERS",
    "PM_SENT",
    "TOO_MANY",
    "TOPIC_LOCKED",
    "RecipientTrouble",
    "form_error",
    "form_missing",
    "forum_message",
    "has_post_review",
    "is_whole",
    "lock_answer",
    "login_said",
    "pm_answer",
    "post_answer",
    "recipients_trouble",
    "sent_pm_id",
]

_REVIEWED = re.compile(r"ppr\d+")


def _said(*sentences: str) -> re.Pattern[str]:
    """One of phpBB's messages, in each language pack, as a whole sentence (spacing aside)."""
    return re.compile("|".join(r"\s+".join(map(re.escape, s.split())) for s in sentences), re.I)


# phpBB 3.3's own messages (their language key; the English pack, then the Russian as the real board printed it)
FLOOD = _said(  # FLOOD_ERROR
    "You cannot make another post so soon after your last.",
    "Вы не можете отправить следующее сообщение сразу после предыдущего.",
)
FORM_INVALID = _said("The submitted form was invalid.", "Ошибка отправки формы.")  # FORM_INVALID
TOO_MANY = _said(  # TOO_MANY_RECIPIENTS
    "You tried to send a private message to too many recipients.",
    "Вы попытались отправить личное сообщение слишком большому числу получателей.",
)
NO_USERS = _said(  # PM_NO_USERS
    "The requested users to be added do not exist.",
    "Запрашиваемые для добавления пользователи не существуют.",
)
NEEDS_APPROVAL = _said(  # POST_STORED_MOD
    "This message has been submitted successfully, but it will need to be approved by a moderator",
    "Сообщение успешно отправлено, но должно быть одобрено модератором",
)
TOPIC_LOCKED = _said(  # TOPIC_LOCKED
    "This topic is locked, you cannot edit posts or make further replies.",
    "Эта тема закрыта, вы не можете редактировать и оставлять сообщения в ней.",
)
NOT_AUTHORISED = _said(  # NOT_AUTHORISED
    "You are not authorised to access this area.",
    "Вы не авторизованы для доступа к этому разделу.",
)
NO_TOPIC = _said("The requested topic does not exist.", "Запрошенной темы не существует.")  # NO_TOPIC
NO_FORUM = _said("The forum you selected does not exist.", "Выбранный вами форум не существует.")  # NO_FORUM
PM_SENT = _said("This message has been sent successfully.", "Ваше сообщение успешно отправлено.")  # PM_MESSAGE_SENT
LOCKED_DONE = _said("The selected topic has been locked.", "Выбранная тема была закрыта.")  # TOPIC_LOCKED_SUCCESS

# A message page's refusals for good, and why.
_FOR_GOOD: tuple[tuple[re.Pattern[str], Refusal], ...] = (
    (NEEDS_APPROVAL, "held_for_approval"),
    (TOPIC_LOCKED, "locked"),
    (NOT_AUTHORISED, "no_permission"),
    (NO_TOPIC, "rejected"),
    (NO_FORUM, "rejected"),
)


# --- what a page shows ---------------------------------------------------------------------------------


def is_whole(html: str | bytes) -> bool:
    """Whether the answer reached the end of its page (phpBB's pages end with `</html>`)."""
    end = html[-64:].rstrip().lower()
    return end.endswith(b"</html>") if isinstance(end, bytes) else end.endswith("</html>")


def form_error(html: str | Element) -> str | None:
    """The error phpBB printed above a posting or PM form (`p.error`), if any."""
    error = first_class(parse_html(html), "p", "error")
    text = text_of(error)
    return text or None


def forum_message(html: str | Element) -> str | None:
    """What a phpBB message page (`div#message`: information, refusals) says, without its heading and
    the links after it; None if the page is not one."""
    root = parse_html(html)
    panel = next((div for div in root.iter("div") if div.get("id") == "message"), None)
    if panel is None:
        return None
    said = next((p for p in panel.iter("p")), None)
    lead = " ".join((said.text or "").split()) if said is not None else ""
    return lead or text_of(said) or text_of(panel)


def login_said(html: str | Element) -> str | None:
    """The login page's heading (why it asks), if the page is a login page; None otherwise."""
    root = parse_html(html)
    if not is_login_wall(root):
        return None
    heading = first_class(root, "h2", "login-title")
    return text_of(heading) or "the board asks to log in"


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


# --- one typed outcome per answer kind -----------------------------------------------------------------


def post_answer(url: str, html: str | bytes, made: Literal["topic", "reply"]) -> Outcome:
    """The board's answer to a new topic or a reply (`url`: where its redirect ended). Stored: the topic
    page it sends the poster to (the id from its URL, a new topic's else from the page; None if neither
    says); the form again with an error or with the posts made meanwhile; a message page; a login page;
    else unknown (see the module)."""
    if "viewtopic.php" in url:
        return Stored(query_int(url, "p") if made == "reply" else _topic_id(url, html))
    if _empty(html):
        return Unknown("", "cut")
    root = parse_html(html)
    whole = is_whole(html)
    if find_form(root, "postform") is not None:
        error = form_error(root)
        if error:
            return _form_error_answer(error, root, whole)
        if has_post_review(root):
            return RefusedForNow("review", forum_review_note(root))
        return Unknown("the form came back without a word", "unproven" if whole else "cut")
    return _page_answer(root, whole)


def pm_answer(html: str | bytes) -> Outcome:
    """The board's answer to a PM's sending. Stored: the message page that refreshes to the PM (its id),
    or says it was sent (its id cut off); the compose form again with an error: as for posts; a message
    page, a login page; else unknown."""
    if _empty(html):
        return Unknown("", "cut")
    root = parse_html(html)
    whole = is_whole(html)
    if find_form(root, "postform") is not None:
        error = form_error(root)
        if error:
            return _form_error_answer(error, root, whole)
        return Unknown("the form came back without a word", "unproven" if whole else "cut")
    pm_id = sent_pm_id(root)
    if pm_id is not None:
        return Stored(pm_id)
    text = forum_message(root)
    if text is not None and PM_SENT.search(text):
        return Stored(None)
    return _page_answer(root, whole)


def lock_answer(html: str | bytes) -> Outcome:
    """The board's answer to a lock's confirmation. Stored: "The selected topic has been locked."; a
    refusal in the board's words; a login page; anything else (the 302 back without a word, which is how
    phpBB answers a confirmation it did not take) is unknown: the topic itself is read to know."""
    if _empty(html):
        return Unknown("", "cut")
    root = parse_html(html)
    text = forum_message(root)
    if text is not None and LOCKED_DONE.search(text):
        return Stored(None)
    return _page_answer(root, is_whole(html))


def form_missing(html: str | bytes) -> Outcome:
    """A page served instead of the form asked for: logged out, a refusal in the board's words, else
    unknown (an unknown message, or a page cut short). Nothing was sent."""
    if _empty(html):
        return Unknown("", "cut")
    return _page_answer(parse_html(html), is_whole(html))


RecipientTrouble = Literal["too_many_recipients", "unknown_recipient", "rejected"]


def recipients_trouble(error: str | None) -> RecipientTrouble:
    """Why the compose form came back without every recipient asked for: the board's limit, names it
    does not know (it names none of them, and says nothing when some names exist), or another error."""
    if error and TOO_MANY.search(error):
        return "too_many_recipients"
    if error and NO_USERS.search(error) or not error:
        return "unknown_recipient"
    return "rejected"


def forum_review_note(html: str | Element) -> str:
    """The notice above the posts shown for review (phpBB's POST_REVIEW), as the board words it."""
    form = find_form(parse_html(html), "postform")
    notes = [text_of(p) for p in (form.iter("p") if form is not None else ()) if not p.get("class")]
    return next((note for note in notes if note), "")


def _form_error_answer(error: str, root: Element, whole: bool) -> Outcome:
    """The form again with `error` above it: nothing stored. An invalid form (with or without flood
    control beside it) is unknown; flood control alone for now; the rest for good, when the page is whole."""
    if FORM_INVALID.search(error):
        return Unknown(error, "form_invalid")
    if FLOOD.search(error):
        return RefusedForNow("flood", error)
    if not whole:
        return Unknown(error, "cut")
    if TOO_MANY.search(error):
        return RefusedForGood(error, "too_many_recipients", limit=len(addressed_recipients(root)))
    if NO_USERS.search(error):
        return RefusedForGood(error, "unknown_recipient")
    return RefusedForGood(error)


def _page_answer(root: Element, whole: bool) -> Outcome:
    """A page that is not the form: a login page, a message page, or unknown."""
    said = login_said(root)
    if said is not None:
        return LoggedOut(said)
    text = forum_message(root)
    if text is not None and FORM_INVALID.search(text):
        return Unknown(text, "form_invalid")
    if text is not None and FLOOD.search(text):  # the flood sentence is "for now" wherever the board prints it
        return RefusedForNow("flood", text)
    if text is not None and whole:
        why = next((why for pattern, why in _FOR_GOOD if pattern.search(text)), None)
        if why is not None:
            return RefusedForGood(text, why)
    return Unknown(text or "", "unproven" if whole else "cut")


def _empty(html: str | bytes) -> bool:
    """No page at all (a 302's body, or an answer that stopped before its first byte)."""
    return not html or html.isspace()


def _topic_id(url: str, html: str | bytes) -> int | None:
    found = query_int(url, "t")
    return found if found is not None else parse_topic_page(html, url=url).topic_id
