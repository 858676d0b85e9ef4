"""mcp.php: the moderators' quick-mod lock and unlock of a topic, with phpBB's confirmation step."""

from __future__ import annotations

from urllib.parse import quote

from fakeboard.phpbb.confirm import ConfirmBox
from fakeboard.phpbb.frame import local_target
from fakeboard.phpbb.texts import (
    LOGIN_MCP,
    NO_TOPIC,
    NOT_AUTHORISED,
    TOPIC_LOCKED_DONE,
    TOPIC_UNLOCKED_DONE,
)
from fakeboard.server import Request, Response, number, redirect
from fakeboard.state import moderates


class McpPages(ConfirmBox):
    """The quick-mod lock and unlock."""

    def _mcp(self, request: Request) -> Response:
        """mcp.php?quickmod=1&action=lock|unlock, asked in a confirm box: the GET serves it; the POST acts on
        a yes, else it redirects (302) to the form's `redirect` and does nothing. Locking a locked topic asks
        and answers the same as locking an open one."""
        user = request.user
        if user is None:
            return self._login_wall(request, LOGIN_MCP, kind="mcp")
        action = request.form.get("action") or request.query.get("action", "")
        topic_id = number(request.query.get("t")) or number(request.form.get("topic_id_list[0]")) or 0
        with self.board.lock:
            topic = self.board._topics.get(topic_id)
            forum = self.board._forums.get(topic.forum_id) if topic is not None else None
            allowed = moderates(user, forum) if forum is not None else self._moderates_any(user)
        if not allowed:
            return self._message(request, NOT_AUTHORISED, status=403, kind="mcp")
        if request.query.get("quickmod") != "1" or action not in ("lock", "unlock"):
            return self._message(request, "No mode specified.", kind="mcp")
        if topic is None or forum is None:
            return self._message(request, NO_TOPIC, status=404, kind="mcp")
        back = local_target(request.query.get("redirect") or f"./mcp.php?f={forum.forum_id}&t={topic_id}")
        if request.method == "POST" and "confirm" in request.form:
            if not self._confirmed(request):
                return redirect(self._absolute(request, back))
            self.board.lock_topic(topic_id, action == "lock")
            return self._message(
                request,
                TOPIC_LOCKED_DONE if action == "lock" else TOPIC_UNLOCKED_DONE,
                refresh=(2, back),
                links=[("Return to the previous page", back)],
                kind="mcp",
            )
        if request.method == "POST" and "cancel" in request.form:
            return redirect(self._absolute(request, back))
        params = sorted((k, v) for k, v in request.query.items() if k not in ("sid", "confirm_key"))
        query = "&".join(f"{k}={quote(v, safe='')}" for k, v in params)
        title = "Lock topic" if action == "lock" else "Unlock topic"
        fields = [("topic_id_list[0]", str(topic_id)), ("action", action), ("redirect", back)]
        question = f"Are you sure you want to {action} this topic?"
        return self._ask(request, title, question, f"./mcp.php?{query}", fields, kind="mcp", section="mcp")
