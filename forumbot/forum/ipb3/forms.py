"""IPB 3's forms as a browser submits them: pure functions, a served page in, the fields out. Each form is
submitted as served (hidden fields including the member's form hash `auth_key`, ticked boxes, the one
submit button with its own value); no word of the board's language is written here."""

from __future__ import annotations

from forumbot.forum.markup import Element, browser_fields, find_form, parse_html, submit_buttons
from forumbot.forum.poster import Fields

__all__ = ["served"]


def served(html: str | Element, form_id: str) -> tuple[str | None, Fields] | None:
    """The page's `form#<form_id>` (`postingform`, `msgForm`) as a browser submits it with its first submit
    button: its action (None: the page's own address) and its fields; None when the page has no such form."""
    form = find_form(parse_html(html), form_id)
    if form is None:
        return None
    press = next(iter(submit_buttons(form)), None)
    return form.get("action"), browser_fields(form, press=press)
