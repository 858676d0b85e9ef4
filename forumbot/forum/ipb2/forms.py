"""IPB 2's forms as a browser submits them: pure functions, a served page in, the action and the fields
out (see `forumbot.forum.invision.forms`: the fields in document order, the send button as served). The
forms (IPB 2.2, checked on the pages its own code printed, `fixtures/ipb-real/ipb22/`):

- the login form `form[name=LOGIN]`: `referer`, `UserName`, `PassWord`, the `CookieDate` box ("remember
  me", ticked: the board then sets `member_id` and `pass_hash`), the button `submit`;
- the posting form `form[name=REPLIER]` (a new topic `CODE=01`: `TopicTitle`; a reply `CODE=03`), the
  editor's `Post`, the member's `auth_key`, the button `dosubmit` (its first; `preview` shows the form
  again and stores nothing);
- the PM form `form[name=REPLIER]` of `act=Msg&CODE=04`: `entered_name`, `msg_title`, `Post`, the box
  `add_sent` (a copy in «Отправленные», where the PM is found again by its marker); its send button has
  no name, so a browser sends no button field (the named `preview` and `save` send nothing). A group that
  may send copies (`g_max_mass_pm`) gets the `carbon_copy` textarea, one name per line, whose row says how
  many names it takes;
- the moderators' topic tools `form[name=modform2]` of the topic page (`act=Mod`, `t`, `f`, `st`,
  `auth_key`, `select[name=CODE]`: `00` closes, `01` opens; a nameless button); `form[name=modform]` is
  the posts' moderation form, not this one.

No word of the board's language is written here.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from forumbot.forum.invision.forms import has_field, submitted
from forumbot.forum.markup import Element, browser_fields, iter_class, parse_html, text_of
from forumbot.forum.poster import Fields

__all__ = [
    "CLOSE",
    "close_form",
    "compose_form",
    "copies_allowed",
    "login_form",
    "named_form",
    "posting_form",
]

CLOSE = "00"  # the moderators' tools: close the topic
_NUMBER = re.compile(r"\d+")
Submission = tuple[str | None, Fields]  # the form's action (None: the page's own address) and its fields


def named_form(html: str | Element, name: str) -> Element | None:
    """The page's `form[name=<name>]` (IPB 2 names its forms: REPLIER, modform2, LOGIN)."""
    return next((form for form in parse_html(html).iter("form") if form.get("name") == name), None)


def login_form(html: str | Element, username: str, password: str) -> Submission | None:
    """The login form filled in, "remember me" ticked, its button pressed; None when the page has none."""
    form = named_form(html, "LOGIN")
    if form is None:
        return None
    tick = ["CookieDate"] if has_field(form, "CookieDate") else []
    return form.get("action"), submitted(form, {"UserName": username, "PassWord": password}, tick=tick)


def posting_form(html: str | Element, values: dict[str, str]) -> Submission | None:
    """The posting form (a new topic or a reply) filled with `values` and sent with its send button;
    None when the page has none (an error page instead)."""
    form = named_form(html, "REPLIER")
    if form is None or not has_field(form, "Post"):
        return None
    return form.get("action"), submitted(form, values)


def copies_allowed(html: str | Element) -> int:
    """How many names the PM form's `carbon_copy` takes (its row says it), 0 when the form has no such
    field (the group may not send copies)."""
    form = named_form(html, "REPLIER")
    box = (
        next((el for el in form.iter("textarea") if el.get("name") == "carbon_copy"), None)
        if form is not None
        else None
    )
    if box is None:
        return 0
    row = next(box.iterancestors("tr"), None)
    for desc in iter_class(row, "div", "desc") if row is not None else ():
        found = _NUMBER.search(text_of(desc))
        if found:
            return int(found.group())
    return 0


def compose_form(html: str | Element, names: Sequence[str], subject: str, message: str) -> Submission | None:
    """The PM form addressed to `names` (the first in `entered_name`, the others in `carbon_copy`, one per
    line), titled and written, a copy kept in «Отправленные», sent with its (nameless) send button; None
    when the page has no PM form. The caller keeps to `copies_allowed`."""
    form = named_form(html, "REPLIER")
    if form is None or not has_field(form, "entered_name"):
        return None
    values = {"entered_name": names[0], "msg_title": subject, "Post": message}
    if len(names) > 1:
        values["carbon_copy"] = "\n".join(names[1:])
    tick = ["add_sent"] if has_field(form, "add_sent") else []
    return form.get("action"), submitted(form, values, tick=tick)


def close_form(html: str | Element) -> Submission | None:
    """The moderators' topic tools set to close the topic (`CODE=00`), sent with their button; None when
    the page offers this account no such choice (not a moderator, or the topic closed already)."""
    form = named_form(html, "modform2")
    if form is None:
        return None
    select = next((s for s in form.iter("select") if s.get("name") == "CODE"), None)
    if select is None or not any(o.get("value") == CLOSE for o in select.iter("option")):
        return None
    fields = [(name, CLOSE if name == "CODE" else value) for name, value in browser_fields(form)]
    return form.get("action"), fields
