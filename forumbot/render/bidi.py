"""Player text shown beside other text without turning it around: a nick that holds a right-to-left override
(U+202E) or right-to-left letters would otherwise reorder the rest of the line it is printed in.

`isolate(text)` wraps such text in FIRST STRONG ISOLATE … POP DIRECTIONAL ISOLATE (U+2068 … U+2069): inside,
the nick reads as its characters say; outside, the line is untouched (an isolate also ends every embedding or
override left open inside it). Text with no right-to-left letter and no bidi control is returned as it is, so
ordinary output does not change. `isolate_within(text, nicks)` isolates the nicks where they occur in a longer
text (a note, a reason).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

FSI = "\u2068"
PDI = "\u2069"
_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
_RTL = frozenset({"R", "AL", "AN", "RLE", "RLO", "RLI", "LRE", "LRO", "LRI", "FSI", "PDF", "PDI"})


def needs_isolation(text: str) -> bool:
    """Whether the text could reorder what is printed around it."""
    if text.isascii():
        return False
    return any(ch in _CONTROLS or unicodedata.bidirectional(ch) in _RTL for ch in text)


def isolate(text: str) -> str:
    return f"{FSI}{text}{PDI}" if needs_isolation(text) else text


def isolate_within(text: str, nicks: Iterable[str]) -> str:
    """The text with every occurrence of each of these nicks that needs it isolated (the longest first, so a
    nick inside another is not isolated twice)."""
    risky = sorted({n for n in nicks if n and needs_isolation(n)}, key=len, reverse=True)
    if not risky or not needs_isolation(text):
        return text
    out: list[str] = []
    i = 0
    while i < len(text):
        found = next((n for n in risky if text.startswith(n, i)), None)
        if found is None:
            out.append(text[i])
            i += 1
        else:
            out.append(isolate(found))
            i += len(found)
    return "".join(out)
