"""IPB 3's forms as a browser submits them: pure functions, a served page in, the action and the fields
out (see `forumbot.forum.invision.forms`: the fields in document order, the send button as served). The
forms (IPB 3.4's compiled Russian skin, `fixtures/ipb-real/ipb34/`):

- the login form `form#login`: `auth_key` (the guests' one), `referer`, `ips_username`, `ips_password`, the
  ticked `rememberMe`, `anonymous` (left unticked), a nameless button;
- the posting form `form#postingform` (`multipart/form-data`): `TopicTitle` for a new topic, the editor's
  `Post`, the hidden `do` (`new_post_do` / `reply_post_do`), `f`, `t`, `attach_post_key`, the member's
  `auth_key`; the button `dosubmit` (its first; `preview` stores nothing);
- the Messenger's form `form#msgForm` (`multipart/form-data`): `entered_name`, and where the group may
  invite others (`g_max_mass_pm`) `inviteUsers`, the further names separated by commas, whose description
  says how many it takes, and `sendType` (`invite`, the first: one conversation all of them take part
  in); `msg_title` (40 characters at most), `Post`, `topicID`, `postKey`, `auth_key`; the button `dosubmit`.

No word of the board's language is written here.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from forumbot.forum.invision.forms import has_field, submitted
from forumbot.forum.markup import Element, find_form, iter_class, parse_html, text_of

__all__ = ["Submission", "compose_form", "invites_allowed", "login_form", "multipart", "posting_form"]

Submission = tuple[str | None, list[tuple[str, str]]]  # the action (None: the page's own address), the fields
_NUMBER = re.compile(r"\d+")


def multipart(html: str | Element, form_id: str) -> bool:
    """Whether the page's `form#<form_id>` is sent as `multipart/form-data` (its `enctype`)."""
    form = find_form(parse_html(html), form_id)
    return form is not None and (form.get("enctype") or "").lower() == "multipart/form-data"


def login_form(html: str | Element, username: str, password: str) -> Submission | None:
    """The login form filled in, "remember me" as served (ticked), sent with its button."""
    form = find_form(parse_html(html), "login")
    if form is None:
        return None
    return form.get("action"), submitted(form, {"ips_username": username, "ips_password": password})


def posting_form(html: str | Element, values: dict[str, str]) -> Submission | None:
    """The posting form (a new topic or a reply) filled with `values`, sent with its send button; None
    when the page has none."""
    form = find_form(parse_html(html), "postingform")
    if form is None:
        return None
    return form.get("action"), submitted(form, values)


def invites_allowed(html: str | Element) -> int:
    """How many further recipients the Messenger's form takes in `inviteUsers` (its description says it),
    0 when it has no such field (the group may not invite)."""
    form = find_form(parse_html(html), "msgForm")
    field = (
        next((el for el in form.iter("input") if el.get("name") == "inviteUsers"), None) if form is not None else None
    )
    if field is None:
        return 0
    holder = field.getparent()
    for desc in iter_class(holder, "span", "desc") if holder is not None else ():
        found = _NUMBER.search(text_of(desc))
        if found:
            return int(found.group())
    return 0


def compose_form(html: str | Element, names: Sequence[str], subject: str, message: str) -> Submission | None:
    """The Messenger's form addressed to `names` (the first in `entered_name`, the others invited, by
    commas), titled and written, sent with its send button; None when the page has none. The caller keeps
    to `invites_allowed`."""
    form = find_form(parse_html(html), "msgForm")
    if form is None or not has_field(form, "entered_name"):
        return None
    values = {"entered_name": names[0], "msg_title": subject, "Post": message}
    if len(names) > 1:
        values["inviteUsers"] = ", ".join(names[1:])
    return form.get("action"), submitted(form, values)
