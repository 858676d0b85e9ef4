"""IPB 2's answers to a write, read: pure functions, the board's answer in, what it means out. IPB 2's own
messages matched here (lang_error: flood_control, no_to_member / no_such_user), Russian and English, are
written here and nowhere else; a success is a redirect naming what was made."""

from __future__ import annotations

import re

from forumbot.forum.ipb2.forms import named_form
from forumbot.forum.markup import Element, iter_class, parse_html, query_int, text_of
from forumbot.forum.outcome import Outcome, RefusedForGood, RefusedForNow, Stored, Unknown

__all__ = ["FLOOD", "NO_MEMBER", "error_text", "flood_wait", "form_missing", "pm_answer", "post_answer"]

# IPB 2's own messages (lang_error: flood_control, no_to_member / no_such_user), Russian and English.
FLOOD = re.compile(r"(?:подождать|wait)\D{0,20}(\d+)\s*(?:секунд|second)", re.I)
NO_MEMBER = re.compile(r"не обнаружено|не существует|could not find|no such member|not (?:be )?found", re.I)


def error_text(html: str | Element) -> str | None:
    """The error IPB 2 printed: the error box's reason (`div.errorwrap p`) or the form's error line
    (`p.errorwrap`); None if the page shows none."""
    root = parse_html(html)
    for wrap in list(iter_class(root, "div", "errorwrap")) + list(iter_class(root, "p", "errorwrap")):
        paragraphs = [text_of(p) for p in wrap.iter("p")] if wrap.tag == "div" else [text_of(wrap)]
        text = " ".join(t for t in paragraphs if t) or text_of(wrap)
        if text:
            return text
    return None


def flood_wait(html: str | Element) -> int | None:
    """The seconds flood control asks to wait, if the page is its error; None otherwise."""
    error = error_text(html)
    m = FLOOD.search(error or "")
    return int(m.group(1)) if m else None


# --- one typed outcome per answer kind ----------------------------------------------------------------


def post_answer(url: str, html: str, id_param: str) -> Outcome:
    """The board's answer to a new topic or a reply: the redirect naming what was made (`showtopic`, a
    reply's `gopid`) is stored; flood control (the seconds it names) for now; any other error for good;
    anything else names nothing made: a silent drop (a submission too soon after another, maybe of an
    earlier run) or not, unknown."""
    made = query_int(url, id_param)
    if made is not None:
        return Stored(made)
    wait = flood_wait(html)
    if wait is not None:
        return RefusedForNow("flood", error_text(html) or "", float(wait))
    error = error_text(html)
    return RefusedForGood(error) if error else Unknown()


def pm_answer(html: str) -> Outcome:
    """The board's answer to a PM: no such member, or another error or the form served again, for good;
    flood control for now; anything else unknown (IPB 2 never shows the new PM's id: its copy in
    «Отправленные» is found by the marker)."""
    error = error_text(html)
    if error and NO_MEMBER.search(error):
        return RefusedForGood(error, "unknown_recipient")
    wait = flood_wait(html)
    if wait is not None:
        return RefusedForNow("flood", error or "", float(wait))
    if error or named_form(html, "REPLIER") is not None:
        return RefusedForGood(error or "the form came back")
    return Unknown()


def form_missing(html: str) -> RefusedForGood:
    """A page served instead of the form asked for: the board's error (the account may not), else an
    unexpected page."""
    error = error_text(html)
    return RefusedForGood(error, "no_permission") if error else RefusedForGood("unexpected page")
