"""IPB 2's forms as a browser submits them: pure functions, a served page in, the fields out. Each form
is submitted as served (hidden fields including the member's `auth_key`, ticked boxes, the one submit
button with its own value), in the board's charset; no word of the board's language is written here."""

from __future__ import annotations

from forumbot.forum.markup import Element, browser_fields, parse_html, submit_buttons
from forumbot.forum.poster import Fields

__all__ = ["named_form", "served"]


def named_form(html: str | Element, name: str) -> Element | None:
    """The page's `form[name=<name>]` (IPB 2 names its forms: REPLIER, modform, LOGIN)."""
    return next((form for form in parse_html(html).iter("form") if form.get("name") == name), None)


def served(html: str | Element, name: str) -> tuple[str | None, Fields] | None:
    """The page's form `name` as a browser submits it with its first submit button: its action (None: the
    page's own address) and its fields; None when the page has no such form."""
    form = named_form(html, name)
    if form is None:
        return None
    press = next(iter(submit_buttons(form)), None)
    return form.get("action"), browser_fields(form, press=press)
