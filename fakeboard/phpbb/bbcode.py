"""BBCode as phpBB 3.3 renders and quotes it. The bot's own renderer (used for its previews) is written to
phpBB's rules and checked against the captured pages, so the fake board renders with it: this is the one place
the fake phpBB borrows from forumbot."""

from __future__ import annotations

from collections.abc import Mapping

from fakeboard.state import Post, User
from forumbot.render.phpbb_html import QUOTE_DEPTH, quote_depth, render_bbcode, source_as_html

__all__ = ["QUOTE_DEPTH", "quote_bbcode", "quote_depth", "quote_text", "render_bbcode", "source_as_html"]


def quote_bbcode(author: str, body: str, attrs: Mapping[str, int], member: User | None) -> str:
    """phpBB's generate_quote(): `[quote=name msg_id|post_id=N time=T user_id=U]text[/quote]`, the name in
    double quotes when it needs them, the attributes sorted, the text on lines of its own when the whole
    is longer than 80 bytes or the text holds a line break."""
    name = author
    if any(c in name for c in ' "]\\'):
        name = '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'
    values = dict(attrs)
    if member is not None:
        values["user_id"] = member.user_id
    head = f"[quote={name}" + "".join(f" {k}={v}" for k, v in sorted(values.items())) + "]"
    text = body.strip()
    newline = "\n" if len((head + text + "[/quote]").encode("utf-8")) > 80 or "\n" in text else ""
    return f"{head}{newline}{text}{newline}[/quote]"


def quote_text(post: Post, member: User | None) -> str:
    """What the Quote button puts in the editor: `[quote=name post_id=N time=T user_id=U]...[/quote]`."""
    return quote_bbcode(post.author, post.body, {"post_id": post.post_id, "time": int(post.time.timestamp())}, member)
