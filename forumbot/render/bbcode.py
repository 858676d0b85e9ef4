"""BBCode both ways: player text made inert before it is pasted into a post (`escape`), and a post shown
as the forum would show it, for the moderators' preview (`to_html`).

`escape` is what keeps a nick like `[/b][color=red]x` from opening or closing a tag: an invisible word
joiner (U+2060) goes inside every "[" and "]", so the forum's parser sees no tag while the reader sees the
same characters. The same joiner breaks the forum's "magic URLs" (`http://`, `www.`, `a@b.c`), so a nick
cannot turn into a link either. "<" and ">" are left to the forum, which escapes HTML itself.

`to_html` renders the tags forumbot's templates use (b, i, u, s, color, size, quote, list/*, url, code) the
way phpBB's prosilver does, and HTML-escapes everything else; a tag with a value it cannot vouch for (a
`javascript:` link, a colour with a semicolon) stays literal text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from html import escape as html_escape

WORD_JOINER = "\u2060"
_MAGIC = re.compile(r"(?i)(?<=[a-z0-9])(://)|\b(www)(\.)|(@)(?=[\w-])")


def escape(text: str) -> str:
    """Player text made inert in BBCode: no nick can open or close a tag or become a link. Control
    characters (newlines included) are dropped."""
    cleaned = "".join(ch for ch in text if ch >= " " or ch == "\t")
    cleaned = cleaned.replace("[", "[" + WORD_JOINER).replace("]", WORD_JOINER + "]")
    return _MAGIC.sub(_break_magic, cleaned)


def _break_magic(m: re.Match[str]) -> str:
    if m.group(1):
        return ":" + WORD_JOINER + "//"
    if m.group(2):
        return m.group(2) + WORD_JOINER + "."
    return "@" + WORD_JOINER


def unescape(text: str) -> str:
    """The text as typed again (the joiners removed): for plain-text places such as a topic's subject."""
    return text.replace(WORD_JOINER, "")


def bold(text: str) -> str:
    return f"[b]{text}[/b]"


def color(value: str, text: str) -> str:
    return f"[color={value}]{text}[/color]"


# --- BBCode -> HTML (the preview) -----------------------------------------------------------------

_TAG = re.compile(r"\[(/?)(\*|[a-z]+)(?:=([^\]\n]*))?\]", re.I)
_COLOR = re.compile(r"#[0-9a-f]{3}|#[0-9a-f]{6}|[a-z]{3,20}", re.I)
_URL = re.compile(r"(?:https?|ftp)://[^\s\"'<>\\\[\]]+|mailto:[^\s\"'<>\\\[\]]+|\.?/[^\s\"'<>\\\[\]]*", re.I)
_LIST_TYPES = {"1": "decimal", "a": "lower-alpha", "A": "upper-alpha", "i": "lower-roman", "I": "upper-roman"}
_BLOCK = frozenset({"quote", "list", "*", "code"})
_KNOWN = frozenset({"b", "i", "u", "s", "color", "size", "quote", "list", "*", "url", "code"})


@dataclass
class _Open:
    tag: str
    close: str


def to_html(source: str) -> str:
    """A post's BBCode as prosilver shows it; everything that is not a known, valid tag is escaped text."""
    out: list[str] = []
    stack: list[_Open] = []
    pos = 0
    while True:
        m = _TAG.search(source, pos)
        if m is None:
            out.append(_text(source[pos:]))
            break
        closing, tag, value = m.group(1) == "/", m.group(2).lower(), m.group(3)
        before = source[pos : m.start()]
        if tag in _BLOCK and before.endswith("\n"):  # phpBB prints no <br> for the line break before a block
            before = before[:-1]
        out.append(_text(before))
        pos = m.end()
        if tag not in _KNOWN:
            out.append(_text(m.group(0)))
            continue
        if closing:
            if tag == "*" or not any(o.tag == tag for o in stack):
                out.append(_text(m.group(0)))
                continue
            while stack:
                top = stack.pop()
                out.append(top.close)
                if top.tag == tag:
                    break
            pos = _skip_newline(source, pos, tag)
            continue
        if tag == "code":
            end = source.lower().find("[/code]", pos)
            body = source[pos:] if end < 0 else source[pos:end]
            out.append(f'<div class="codebox"><pre><code>{html_escape(body.strip(chr(10)))}</code></pre></div>')
            pos = len(source) if end < 0 else _skip_newline(source, end + len("[/code]"), "code")
            continue
        if tag == "url" and value is None:
            end = source.lower().find("[/url]", pos)
            href = source[pos:end].strip() if end >= 0 else ""
            if end < 0 or not _URL.fullmatch(href):
                out.append(_text(m.group(0)))
                continue
            out.append(f'<a href="{html_escape(href)}" class="postlink" rel="nofollow">{_text(href)}</a>')
            pos = end + len("[/url]")
            continue
        opened = _open(tag, value, stack)
        if opened is None:
            out.append(_text(m.group(0)))
            continue
        html, close = opened
        if tag == "*":
            while stack and stack[-1].tag != "list":
                if stack[-1].tag == "*":
                    out.append(stack.pop().close)
                    break
                out.append(stack.pop().close)
        out.append(html)
        stack.append(_Open(tag, close))
        pos = _skip_newline(source, pos, tag)
    while stack:
        out.append(stack.pop().close)
    return "".join(out)


def _open(tag: str, value: str | None, stack: list[_Open]) -> tuple[str, str] | None:
    """The HTML that opens `tag` and the HTML that closes it, or None when the tag must stay literal."""
    if tag in ("b", "i", "u", "s") and value is None:
        return {
            "b": ('<strong class="text-strong">', "</strong>"),
            "i": ('<em class="text-italics">', "</em>"),
            "u": ('<span style="text-decoration:underline">', "</span>"),
            "s": ('<span style="text-decoration:line-through">', "</span>"),
        }[tag]
    if tag == "color" and value is not None and _COLOR.fullmatch(value.strip()):
        return f'<span style="color:{value.strip()}">', "</span>"
    if tag == "size" and value is not None and value.strip().isdigit() and 1 <= int(value) <= 200:
        return f'<span style="font-size:{int(value)}%;line-height:normal">', "</span>"
    if tag == "url" and value is not None and _URL.fullmatch(value.strip().strip('"')):
        href = html_escape(value.strip().strip('"'))
        return f'<a href="{href}" class="postlink" rel="nofollow">', "</a>"
    if tag == "quote":
        author = (value or "").strip()
        if len(author) >= 2 and author[0] == author[-1] == '"':
            author = author[1:-1]
        cite = f"<cite>{_text(author)} писал(а):</cite>" if author else ""
        return f"<blockquote><div>{cite}", "</div></blockquote>"
    if tag == "list":
        style = _LIST_TYPES.get((value or "").strip()) if value is not None else None
        if value is not None and style is None:
            return None
        if style is None:
            return "<ul>", "</ul>"
        return f'<ol style="list-style-type:{style}">', "</ol>"
    if tag == "*" and value is None and any(o.tag == "list" for o in stack):
        return "<li>", "</li>"
    return None


def _skip_newline(source: str, pos: int, tag: str) -> int:
    """phpBB eats the line break after a block tag instead of printing <br>."""
    if tag in _BLOCK and source.startswith("\n", pos):
        return pos + 1
    return pos


def _text(text: str) -> str:
    return html_escape(text, quote=False).replace("\n", "<br>\n")
