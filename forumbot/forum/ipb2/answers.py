"""IPB 2's answers to a write, read: pure functions, the board's answer in, what it means out. IPB 2's own
messages matched here (lang_error: flood_control, no_to_member / no_such_user), Russian and English, are
written here and nowhere else; a success is a redirect naming what was made."""

from __future__ import annotations

import re

from forumbot.forum.markup import Element, iter_class, parse_html, text_of

__all__ = ["FLOOD", "NO_MEMBER", "error_text", "flood_wait"]

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
