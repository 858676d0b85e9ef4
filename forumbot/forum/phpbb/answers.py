"""phpBB's answers to a write, read: pure functions, the board's answer in, what it means out.

The texts matched (flood control, an invalid form, too many recipients, unknown recipients, a post held
for approval, refusals) are phpBB's own, English and Russian language packs, each pinned by a test on the
real pages; they are written here and nowhere else. Successes are recognised by their structure (a
redirect to the topic, a link to the PM), not their words.
"""

from __future__ import annotations

import re

from forumbot.forum.markup import Element, find_form, first_class, parse_html, query_int, text_of

__all__ = [
    "FLOOD",
    "FORM_INVALID",
    "NEEDS_APPROVAL",
    "NO_USERS",
    "REFUSED",
    "TOO_MANY",
    "form_error",
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
