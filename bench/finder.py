"""A naive "bold red text finder": the baseline that forumbot's parse + extraction is compared with.

It is what a quick script that counts forum Mafia votes does, shaped like the forum libraries that hand
each post over as a record with its body as an HTML string: parse the page with lxml, take each post's
author and body (serialised), then parse the body again and ask one XPath for text that is both inside a
bold element and inside an element styled with a red colour. It knows nothing of quotes, spoilers, edits
or nick matching, so it does less than forumbot does; it is only a yardstick of cost.
"""

from __future__ import annotations

import lxml.html

_POSTS = "//div[contains(concat(' ', normalize-space(@class), ' '), ' post ')]"
_BODY = ".//div[contains(concat(' ', normalize-space(@class), ' '), ' content ')]"
_RED_BOLD = (
    ".//text()[(ancestor::strong or ancestor::b)"
    " and ancestor::span[contains(translate(@style, 'REDF', 'redf'), 'color:')]]"
)
_REDS = ("red", "#f00", "#ff0000", "#e00", "#c00", "#cc0000", "#d00", "#aa0000", "crimson", "darkred")


def red_bold_texts(page: bytes) -> list[tuple[str, list[str]]]:
    """For each post of a phpBB topic page, its author and the red bold text runs of its body."""
    return [(author, red_bold_of(body)) for author, body in posts_of(page)]


def posts_of(page: bytes) -> list[tuple[str, str]]:
    """(author, body HTML) of each post of the page."""
    records = []
    for post in lxml.html.fromstring(page).xpath(_POSTS):
        author = post.xpath("string(.//*[contains(@class, 'username')][1])")
        bodies = post.xpath(_BODY)
        records.append((author, lxml.html.tostring(bodies[0], encoding="unicode") if bodies else ""))
    return records


def red_bold_of(body: str) -> list[str]:
    if not body:
        return []
    root = lxml.html.fragment_fromstring(body, create_parent="div")
    return [text.strip() for text in root.xpath(_RED_BOLD) if text.strip() and _is_red(text.getparent())]


def _is_red(element: lxml.html.HtmlElement) -> bool:
    """The nearest coloured span around the text names a red."""
    for el in (element, *element.iterancestors()):
        style = (el.get("style") or "").lower() if el.tag == "span" else ""
        if "color" in style:
            return any(red in style for red in _REDS)
    return False
