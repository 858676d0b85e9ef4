"""BBCode output that no player text can break: nicks and quotes are made inert before they are pasted."""

from __future__ import annotations

# An invisible word joiner (U+2060) inside "[" and "]" keeps a forum's BBCode parser from seeing a tag,
# while the reader sees the same characters; "<" and ">" are left to the forum, which escapes HTML itself.
_ZWJ = "\u2060"


def escape(text: str) -> str:
    """Player text made inert in BBCode: no nick can open or close a tag. Control characters are dropped."""
    cleaned = "".join(ch for ch in text if ch >= " " or ch in "\t")
    return cleaned.replace("[", "[" + _ZWJ).replace("]", _ZWJ + "]")


def bold(text: str) -> str:
    return f"[b]{text}[/b]"


def color(value: str, text: str) -> str:
    return f"[color={value}]{text}[/color]"
