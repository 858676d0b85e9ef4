"""IPB 3's answers to a write, read: pure functions, the board's answer in, what it means out. IPB 3's own
messages matched here (public_error flood_control, pm_flood_stop; messaging err_no_chosen_member), Russian
and English, are written here and nowhere else: only these are told apart, anything else is quoted as the
board's refusal."""

from __future__ import annotations

import re

from forumbot.forum.markup import Element, first_class, has_class, iter_class, parse_html, text_of

__all__ = ["FLOOD", "NO_MEMBER", "error_text", "flood_wait"]

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
