"""phpBB's confirm_box(): the page that asks "are you sure?" before a moderator's action (locking a topic,
deleting a post), and the check of its answer. The GET serves `form#confirm` with a single-use 10-character
`confirm_key` in its action; the POST is a yes only when `confirm` is the viewer's own word for "yes" and the
key, `confirm_uid` and `sess` match (a used key, another account's form or another language's word is not)."""

from __future__ import annotations

import secrets
from typing import Any

from fakeboard.phpbb.frame import PhpbbFrame
from fakeboard.server import Request, Response

_KEY_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


class ConfirmBox(PhpbbFrame):
    """The confirm box, for the scripts whose actions ask first."""

    def _ask(
        self,
        request: Request,
        title: str,
        question: str,
        action: str,
        fields: list[tuple[str, str]],
        **values: Any,
    ) -> Response:
        """`form#confirm` titled `title`, asking `question` (English keys), posting to `action` with a new
        confirm key, `fields` and the session's own hidden ones."""
        assert request.user is not None and request.session is not None
        key = "".join(secrets.choice(_KEY_LETTERS) for _ in range(10))
        with self._state:
            self._confirm_keys[request.session.sid] = key
        t = self._v(request).t
        sid = request.session.sid
        own = [("confirm_uid", str(request.user.user_id)), ("sess", sid), ("sid", sid)]
        values.setdefault("delete_box", False)
        values.setdefault("confirm_class", "button2")
        return self._render(
            request,
            "confirm_body.html",
            title=t(title),
            confirm_action=f"{action}&confirm_key={key}",
            message_title=t(title),
            message_text=t(question),
            confirm_fields=[*fields, *own],
            **values,
        )

    def _confirmed(self, request: Request) -> bool:
        """Whether the POST is the viewer's yes to the box it was served (its key is used up either way)."""
        user, session, form = request.user, request.session, request.form
        if user is None or session is None or request.method != "POST" or "confirm" not in form:
            return False
        key = request.query.get("confirm_key", "")
        with self._state:
            expected = self._confirm_keys.pop(session.sid, None)
        return (
            form.get("confirm") == self._v(request).t("Yes")
            and form.get("confirm_uid") == str(user.user_id)
            and form.get("sess") == session.sid
            and bool(key)
            and key == expected
        )
