"""BBCode as IPB 2.2 stores it (class_bbcode's pre_db_parse): the HTML a post or a message written in
BBCode is kept as, which the pages print as it is."""

from __future__ import annotations

import html
import re

__all__ = ["ipb2_bbcode"]

_SIMPLE = {"b": "b", "i": "i", "u": "u", "s": "strike"}
_SIZES = {"1": "8", "2": "10", "3": "12", "4": "14", "5": "18", "6": "24", "7": "36"}
_TAG = re.compile(r"\[(/?)(\w+)(?:=([^\]]*))?\]")


def _escape(text: str) -> str:
    """The editor's cleaning: HTML escaped, `!`, `'` and `$` as entities, newlines as `<br />`."""
    text = html.escape(text, quote=False).replace('"', "&quot;")
    text = text.replace("!", "&#33;").replace("'", "&#39;").replace("$", "&#036;")
    return text.replace("\n", "<br />")


def _open(tag: str, value: str | None) -> str | None:
    if tag in _SIMPLE:
        return f"<{_SIMPLE[tag]}>"
    if tag == "color" and value:
        clean = re.sub(r"[^\w#\s]", "", value.strip("\"'"))
        return f'<!--coloro:{clean}--><span style="color:{clean}"><!--/coloro-->'
    if tag == "size" and value:
        points = _SIZES.get(value.strip("\"'"), "12")
        return f'<!--sizeo:{value}--><span style="font-size:{points}pt;line-height:100%"><!--/sizeo-->'
    if tag == "quote":
        name = (value or "").strip("\"'")
        top = f"Цитата({_escape(name)})" if name else "Цитата"
        return f"<!--quoteo--><div class='quotetop'>{top}</div><div class='quotemain'><!--quotec-->"
    if tag == "url" and value:
        return f'<a href="{html.escape(value.strip(chr(34) + chr(39)))}" target="_blank">'
    if tag == "list":
        return "<ol type='1'>" if value else "<ul>"
    if tag == "code":
        return "<!--c1--><div class='codetop'>Код</div><div class='codemain'><!--ec1-->"
    return None


_CLOSE = {
    "color": "<!--colorc--></span><!--/colorc-->",
    "size": "<!--sizec--></span><!--/sizec-->",
    "quote": "<!--QuoteEnd--></div><!--QuoteEEnd-->",
    "url": "</a>",
    "code": "<!--c2--></div><!--ec2-->",
}


def ipb2_bbcode(source: str) -> str:
    """The HTML IPB 2.2 stores for a post written in BBCode (the tags forumbot and the tests write)."""
    out: list[str] = []
    stack: list[tuple[str, str | None]] = []
    pos = 0
    for m in _TAG.finditer(source):
        out.append(_escape(source[pos : m.start()]))
        pos = m.end()
        closing, tag, value = m.group(1), m.group(2).lower(), m.group(3)
        if tag == "*" or m.group(0) == "[*]":
            out.append("<li>")
            continue
        if closing and any(t == tag for t, _ in stack):
            while stack:
                open_tag, open_value = stack.pop()
                out.append(_closing(open_tag, open_value))
                if open_tag == tag:
                    break
            continue
        made = None if closing else _open(tag, value)
        if made is None:
            out.append(_escape(m.group(0)))
        else:
            out.append(made)
            stack.append((tag, value))
    out.append(_escape(source[pos:]))
    out.extend(_closing(tag, value) for tag, value in reversed(stack))
    return "".join(out).replace("[*]", "<li>")


def _closing(tag: str, value: str | None) -> str:
    if tag in _SIMPLE:
        return f"</{_SIMPLE[tag]}>"
    if tag == "list":
        return "</ol>" if value else "</ul>"
    return _CLOSE.get(tag, "")
