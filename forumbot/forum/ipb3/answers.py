"""IPB 3's answers to a write, read: pure functions, the board's answer in, what it means out. IPB 3's own
messages matched here (public_error flood_control, pm_flood_stop; messaging err_no_chosen_member), Russian
and English, are written here and nowhere else: only these are told apart, anything else is quoted as the
board's refusal."""

from __future__ import annotations

import re
from typing import Literal

from forumbot.forum.markup import Element, find_form, first_class, has_class, iter_class, parse_html, query_int, text_of
from forumbot.forum.outcome import Outcome, RefusedForGood, RefusedForNow, Stored, Unknown

__all__ = [
    "FLOOD",
    "NO_MEMBER",
    "error_text",
    "flood_wait",
    "form_missing",
    "pm_answer",
    "post_answer",
    "refused_page",
]

FLOOD = re.compile(r"(?:подожд\w*|wait)\D{0,40}?(\d+)\s*(?:секунд|second)", re.I)
NO_MEMBER = re.compile(r"не существует|не найден|does not exist|could not find|no such member|not found", re.I)


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
    """The seconds flood control asks to wait, if the page is its error; None otherwise."""
    m = FLOOD.search(error_text(html) or "")
    return int(m.group(1)) if m else None


# --- one typed outcome per answer kind ----------------------------------------------------------------


def post_answer(url: str, html: str, made: Literal["topic", "reply"]) -> Outcome:
    """The board's answer to a new topic or a reply: the redirect to what was made (`showtopic`, a reply's
    `gopid`) is stored, unless a new topic's answer is the forum's newest topic (`view=getlastpost`,
    what the double-post guard answers); an error box that is not flood control, for good; flood control
    for now; anything else names nothing made: unknown. (A new topic's id is believed only once its first
    post shows the marker: the writer looks.)"""
    found = query_int(url, "showtopic" if made == "topic" else "gopid")
    if found is not None and not (made == "topic" and "view=getlastpost" in url):
        return Stored(found)
    error = error_text(html)
    wait = flood_wait(html)
    if error and wait is None:
        return RefusedForGood(error)
    return RefusedForNow("flood", error or "", float(wait)) if wait is not None else Unknown()


def pm_answer(html: str) -> Outcome:
    """The board's answer to a new conversation: no error and no compose form, unknown (sent as far as it
    tells: IPB 3 never shows the new conversation's id, found by its marker); flood control for now; no
    such member, or any other error or the form served again, for good."""
    error = error_text(html)
    if error is None and find_form(parse_html(html), "msgForm") is None:
        return Unknown()
    wait = flood_wait(html)
    if wait is not None:
        return RefusedForNow("flood", error or "", float(wait))
    said = error or "the form came back"
    return RefusedForGood(said, "unknown_recipient") if NO_MEMBER.search(said) else RefusedForGood(said)


def refused_page(html: str) -> RefusedForNow | RefusedForGood:
    """An error page sent with 401 or 403 (for a form or its submission): flood control for now (the
    seconds it names); anything else, the account may not."""
    wait = flood_wait(html)
    if wait is not None:
        return RefusedForNow("flood", error_text(html) or "", float(wait))
    return RefusedForGood(error_text(html) or "", "no_permission")


def form_missing(html: str) -> RefusedForNow | RefusedForGood:
    """A page served without the form asked for: flood control for now; else a refusal in its words."""
    wait = flood_wait(html)
    if wait is not None:
        return RefusedForNow("flood", error_text(html) or "", float(wait))
    return RefusedForGood(error_text(html) or "unexpected page")
