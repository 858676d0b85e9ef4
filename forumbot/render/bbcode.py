"""BBCode both ways: player text made inert before it is pasted into a post (`escape`), and a post shown
as the forum would show it, for the moderators' preview (`to_html`).

`escape` is what keeps a nick like `[/b][color=red]x` from opening or closing a tag: an invisible word
joiner (U+2060) goes inside every "[" and "]", so the forum's parser sees no tag while the reader sees the
same characters. The same joiner breaks the forum's "magic URLs" (`http://`, `www.`, `a@b.c`), so a nick
cannot turn into a link either. "<" and ">" are left to the forum, which escapes HTML itself.

Text that could turn the rest of its line around (a right-to-left override U+202E, right-to-left letters) is
isolated (`bidi.isolate`: U+2068 … U+2069), so a nick reads as typed and the line around it as written.

`to_html` renders a post the way phpBB 3.3 does (`phpbb_html`, the one BBCode renderer of the project):
known tags as prosilver prints them, everything else HTML-escaped; a tag with a value phpBB would not
accept (a `javascript:` link, a colour with a semicolon) stays literal text.
"""

from __future__ import annotations

import re

from forumbot.render.bidi import isolate
from forumbot.render.phpbb_html import render_bbcode

WORD_JOINER = "\u2060"


class Safe(str):
    """Text already made inert (phrases with escaped nicks): printed as is."""


_MAGIC = re.compile(r"(?i)(?<=[a-z0-9])(://)|\b(www)(\.)|(@)(?=[\w-])")


def escape(text: str) -> str:
    """Player text made inert in BBCode: no nick can open or close a tag or become a link, nor turn the rest
    of its line around. Control characters (newlines included) are dropped."""
    cleaned = "".join(ch for ch in text if ch >= " " or ch == "\t")
    cleaned = cleaned.replace("[", "[" + WORD_JOINER).replace("]", WORD_JOINER + "]")
    return isolate(_MAGIC.sub(_break_magic, cleaned))


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


def to_html(source: str) -> str:
    """A post's BBCode as phpBB 3.3 shows it to a Russian reader (one renderer, `phpbb_html`, for the
    moderators' preview, the vote-count check and the test board): unknown or invalid tags stay text."""
    return render_bbcode(source, wrote="писал(а):")
