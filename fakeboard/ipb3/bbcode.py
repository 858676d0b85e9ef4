"""BBCode as the IPB 3.4 editor stores it: the HTML a post or a message written in BBCode is kept as, which
the pages print as it is."""

from __future__ import annotations

import html
import re

__all__ = ["ipb3_bbcode"]

_TAG = re.compile(r"\[(/?)(\w+|\*)(?:=([^\]]*))?\]")
_SIZES = {"1": "8", "2": "10", "3": "12", "4": "14", "5": "18", "6": "24", "7": "36"}
_PLAIN = {"b": ("<strong class='bbc'>", "</strong>"), "i": ("<em class='bbc'>", "</em>"),
          "u": ("<span class='bbc_underline'>", "</span>"), "s": ("<del class='bbc'>", "</del>"),
          "list": ("<ul class='bbc'>", "</ul>")}  # fmt: skip
_SPOILER = (
    "<div class='bbc_spoiler'>\n\t<span class='spoiler_title'>Скрытый текст</span> "
    "<input type='button' class='bbc_spoiler_show' value='Показать' />\n\t<div class='bbc_spoiler_wrapper'>"
    "<div class='bbc_spoiler_content' style=\"display:none;\">"
)


def _attr(value: str | None) -> str:
    return html.escape((value or "").strip("\"'"), quote=True)


def _open(tag: str, value: str | None) -> tuple[str, str] | None:
    """The HTML a tag opens with and closes with, or None for a tag the editor keeps as text."""
    if tag in _PLAIN:
        return _PLAIN[tag]
    if tag == "color" and value:
        return f"<span style='color: {_attr(value)}'>", "</span>"
    if tag == "size" and value:
        return f"<span style='font-size: {_SIZES.get(value.strip(chr(34) + chr(39)), '12')}px;'>", "</span>"
    if tag == "quote":
        author = f' data-author="{_attr(value)}"' if value else ""
        return f"<blockquote class='ipsBlockquote'{author}><p>", "</p></blockquote>"
    if tag == "url" and value:
        return f"<a href='{_attr(value)}' class='bbc_url' title='' rel='nofollow external'>", "</a>"
    if tag == "spoiler":
        return _SPOILER, "</div></div>\n</div>"
    return None


def ipb3_bbcode(source: str) -> str:
    """The HTML IPB 3.4 stores for a post or message written in BBCode (the tags forumbot and tests write)."""
    out: list[str] = []
    stack: list[tuple[str, str]] = []

    def text(chunk: str) -> None:
        out.append(html.escape(chunk, quote=False).replace("\n", "<br />\n"))

    pos = 0
    for m in _TAG.finditer(source):
        text(source[pos : m.start()])
        pos = m.end()
        closing, tag, value = m.group(1), m.group(2).lower(), m.group(3)
        if tag == "*" and not closing:
            out.append("<li>")
        elif closing and any(t == tag for t, _ in stack):
            while stack:
                open_tag, close_html = stack.pop()
                out.append(close_html)
                if open_tag == tag:
                    break
        elif not closing and (made := _open(tag, value)) is not None:
            out.append(made[0])
            stack.append((tag, made[1]))
        else:
            text(m.group(0))
    text(source[pos:])
    out.extend(close_html for _, close_html in reversed(stack))
    return "".join(out)
