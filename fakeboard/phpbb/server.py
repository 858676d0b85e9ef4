"""The fake phpBB 3.3.11 board: `BoardServer` serves a `Board` over HTTP on 127.0.0.1 the way phpBB 3.3.11
(prosilver) does, each member's pages in the member's language, time zone and date format (guests': the
board's).

    board = Board.russian(bot="Ведущий", bot_password="secret")
    with BoardServer(board, clock=clock) as server:
        client = open_client(ClientSettings(forum=server.url, username="Ведущий", password="secret"))

Pages are rendered from skeletons cut out of the captured pages (`skeletons/`, see fixtures/phpbb and
fixtures/phpbb-ru), BBCode as phpBB renders it. What it emulates: sessions bound to the User-Agent with
phpBB's cookies (a dead session is a guest with the login form, headed by why); form tokens with the
one-second rule; the buttons checked by name, not value; login failures, then a CAPTCHA; flood control, one
clock for posts and PMs; posts waiting for approval and soft-deleted posts, seen by the forum's moderators
only (post counts and pages per viewer); locked topics (members refused, moderators not, the form's "Lock
topic" box deciding); the "new posts meanwhile" review; `[quote ... time=...]` from the Quote buttons of
posts and PMs; the two-step PM compose form with phpBB's recipient limit and unknown-name rules; the sent
PMs' folders (outbox, sentbox); the lock confirmation, answering only the viewer's own word for "yes"; the
UCP preferences (language, time zone, date format); and the faults of every fake board.

Each script is a module of this package (`reading`: index, viewforum, viewtopic and their print views;
`ucp`; `pm`; `posting`; `mcp`; `memberlist`: profiles) adding its pages to the frame they share (`frame`);
`confirm` is the "are you sure?" box of the moderators' actions.
"""

from __future__ import annotations

import dataclasses

from fakeboard.phpbb.mcp import McpPages
from fakeboard.phpbb.memberlist import MemberPages
from fakeboard.phpbb.pm import PmPages
from fakeboard.phpbb.posting import PostingPages
from fakeboard.phpbb.reading import ReadingPages
from fakeboard.phpbb.texts import LOGIN_EXPLAIN, LOGIN_MCP, LOGIN_POST, LOGIN_UCP
from fakeboard.server import Request, Response, not_found, number

__all__ = ["BoardServer"]

_FOLDER_NAMES = {  # a PM folder as `folder=` or `f=` names it -> the folder
    "inbox": "inbox",
    "0": "inbox",
    "": "inbox",
    "outbox": "outbox",
    "-2": "outbox",
    "sentbox": "sentbox",
    "-1": "sentbox",
}


class BoardServer(ReadingPages, PmPages, PostingPages, McpPages, MemberPages):
    """`board` over HTTP on 127.0.0.1, as phpBB 3.3.11 (prosilver) would serve it (see the module). Its
    settings are the frame's (`PhpbbFrame`): `latency`, `posts_per_page`, `flood_interval`, `board_tz`,
    `topics_per_page`, `form_lifetime`, `clock`, `port`. Start and stop it with `with` (or `start()` /
    `stop()`)."""

    def _dispatch(self, request: Request) -> Response:
        script = request.path.rsplit("/", 1)[-1] or "index.php"
        route = {
            "index.php": self._index,
            "viewtopic.php": self._viewtopic,
            "viewforum.php": self._viewforum,
            "ucp.php": self._ucp,
            "posting.php": self._posting,
            "mcp.php": self._mcp,
            "memberlist.php": self._memberlist,
        }.get(script)
        if route is None or request.path.count("/") > 1:
            return not_found()
        return route(request)

    def _ucp(self, request: Request) -> Response:
        mode = request.query.get("mode", "")
        if mode == "login":
            return self._login(request)
        if mode == "logout":
            return self._logout(request)
        if request.user is None:
            return self._login_wall(request, LOGIN_UCP, kind="ucp")
        module = request.query.get("i", "")
        if module in ("ucp_prefs", "prefs", "179") and mode in ("personal", ""):
            return self._preferences(request)
        if module in ("pm", "ucp_pm"):
            if mode == "compose":
                return self._compose(request)
            self.board.deliver_pms(request.user.name)  # phpBB places the new PMs in their folders now
            if mode == "view" and number(request.query.get("p")) is not None:
                return self._view_pm(request)
            folder = request.query.get("folder", request.query.get("f", "inbox"))
            if folder in _FOLDER_NAMES:
                return self._folder(request, _FOLDER_NAMES[folder])
        return not_found()

    # -- the faults' answers (fakeboard.faults) ------------------------------------------------------

    def _login_answer(self, request: Request) -> Response:
        """The login page a guest gets at this address: the script's own reason above it (posting.php by
        mode, the UCP's, the MCP's), as a dead session meets it."""
        script = request.path.rsplit("/", 1)[-1]
        if script == "posting.php":
            return self._login_wall(request, LOGIN_EXPLAIN.get(request.query.get("mode", ""), LOGIN_POST))
        if script == "mcp.php":
            return self._login_wall(request, LOGIN_MCP, kind="mcp")
        if script == "ucp.php":
            return self._login_wall(request, LOGIN_UCP, kind="ucp")
        return self._login_wall(request, None)

    def _spoiled(self, request: Request) -> Request:
        """The request with a form token phpBB will not take (a replayed or stale form) and, for a confirm
        box, a used confirm key: phpBB then answers "The submitted form was invalid." above the form, or
        (a confirm box) goes back without doing anything."""
        form = request.form | ({"form_token": "0" * 40} if "form_token" in request.form else {})
        query = request.query | ({"confirm_key": "USEDKEY000"} if "confirm_key" in request.query else {})
        return dataclasses.replace(request, form=form, query=query)
