"""IPB 2's forms as a browser submits them: pure functions, a served page in, the fields out. Each form
is submitted as served (hidden fields including the member's `auth_key`, ticked boxes, the one submit
button with its own value), in the board's charset; no word of the board's language is written here."""

from __future__ import annotations

from forumbot.forum.markup import Element, parse_html

__all__ = ["named_form"]


def named_form(html: str | Element, name: str) -> Element | None:
    """The page's `form[name=<name>]` (IPB 2 names its forms: REPLIER, modform, LOGIN)."""
    return next((form for form in parse_html(html).iter("form") if form.get("name") == name), None)
