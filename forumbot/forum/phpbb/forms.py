"""phpBB's forms as a browser submits them: pure functions, a served page in, the fields out. Every form
is submitted as the board served it (hidden fields, checked boxes, selected options, the one submit button
pressed with its own localised value); no word of the board's language is written here."""

from __future__ import annotations

import re
from collections.abc import Sequence

from forumbot.forum.markup import Element, browser_fields, find_form, parse_html, text_of
from forumbot.forum.phpbb.pages import is_username
from forumbot.forum.poster import Fields

__all__ = ["FORM_MIN_AGE", "PREFERENCES", "addressed_recipients", "confirm_form", "pm_key", "pm_names"]

FORM_MIN_AGE = 1.1  # seconds: phpBB rejects a form posted within the second its creation_time names
PREFERENCES = "ucp.php?i=ucp_prefs&mode=personal"  # the account's language, zone and date format


def confirm_form(html: str | Element) -> tuple[str, Fields] | None:
    """A confirmation page (`form#confirm`): its action, and what pressing its `confirm` button sends
    (the hidden fields and the button's own value, the viewer's localised "yes"). None if no such form."""
    form = find_form(parse_html(html), "confirm")
    if form is None:
        return None
    return form.get("action") or "", browser_fields(form, press="confirm")


def addressed_recipients(html: str | Element) -> dict[int, str]:
    """The recipients a PM compose form holds, user id -> name as the board lists them (`ul.recipients`:
    a `remove_u[ID]` button beside the member's name); ids of `address_list[u][ID]` fields the list does
    not show map to ""."""
    root = parse_html(html)
    form = find_form(root, "postform")
    found: dict[int, str] = {}
    if form is None:
        return found
    for name, value in browser_fields(form):
        m = re.fullmatch(r"address_list\[u\]\[(\d+)\]", name)
        if m and value in ("to", "bcc"):
            found[int(m.group(1))] = ""
    for li in form.iter("li"):
        button = next((i for i in li.iter("input") if (i.get("name") or "").startswith("remove_u[")), None)
        user = next((a for a in li.iter("a") if is_username(a)), None)
        m = re.fullmatch(r"remove_u\[(\d+)\]", button.get("name")) if button is not None else None
        if m and user is not None and int(m.group(1)) in found:
            found[int(m.group(1))] = text_of(user)
    return found


def pm_names(recipients: Sequence[str]) -> list[str]:
    """The PM's recipients as the form gets them: stripped, one address per member (phpBB's names ignore
    case), in the order given."""
    names: list[str] = []
    for name in (n.strip() for n in recipients):
        if name and name.casefold() not in {known.casefold() for known in names}:
            names.append(name)
    return names


def pm_key(names: Sequence[str]) -> tuple[str, ...]:
    return tuple(name.casefold() for name in names)
