"""What the fake Invision Power Boards (2.2 and 3.4) share, on the common server core: IPB's sessions and
its remembered members (the cookies `session_id`, `member_id` and `pass_hash`; `s=` in the query), the form
hash every form and moderators' link carries (`auth_key`), the board's charset for pages and the forms
posted back, one `index.php` for every page, the sign-in and sign-out, flood control in whole seconds,
closing and opening a topic, storing a post and the redirect to it, and the page frame around each
version's skeletons. Each version (`fakeboard.ipb2`, `fakeboard.ipb3`) says what its pages are.
"""

from __future__ import annotations

import dataclasses
import hashlib
import secrets
from datetime import datetime, timedelta
from enum import Enum
from typing import Any, Unpack
from urllib.parse import parse_qsl

from fakeboard.server import FakeServer, Request, Response, ServerOptions, number, redirect
from fakeboard.sessions import Session, user_agent
from fakeboard.state import ANONYMOUS, Board, Forum, Topic, User, moderates

__all__ = ["InvisionServer", "LockRefusal", "day_word", "whole_seconds"]


class LockRefusal(Enum):
    """Why closing or opening a topic was refused (each version words it its own way)."""

    NO_TOPIC = "no topic"
    NOT_MODERATOR = "not a moderator of the forum"
    BAD_ACTION = "neither close nor open"


class InvisionServer(FakeServer):
    """`board` served as an IPB would serve it (see the module). `charset` is the board's `gb_char_set`
    (pages are encoded in it, and the forms posted back are read in it); `logins` gives members a name to
    log in with other than the one the board prints (their display name, a member of `board`): login name
    -> display name, as IPB allows by default; the rest are the server's."""

    def __init__(
        self,
        board: Board,
        *,
        charset: str = "utf-8",
        logins: dict[str, str] | None = None,
        **options: Unpack[ServerOptions],
    ) -> None:
        super().__init__(board, **options)
        self.charset = charset
        self.logins = {login.casefold(): shown for login, shown in (logins or {}).items()}

    # -- requests and sessions ----------------------------------------------------------------------

    def _request(self, handler: Any, path: str, query: str, raw: bytes) -> Request:
        request = super()._request(handler, path, query, raw)
        if handler.command == "POST" and self.charset.lower() != "utf-8":
            # PHP takes the bytes as they come: the form's percent-escapes are in the board's charset
            pairs = parse_qsl(raw.decode("latin-1"), keep_blank_values=True, encoding=self.charset, errors="replace")
            request.form = dict(pairs)
        return request

    def _begin_session(self, request: Request) -> None:
        """IPB's sessions: the `session_id` cookie (else `s=`), else the remembered member from
        `member_id` + `pass_hash`, else a new guest session."""
        sid = request.cookies.get("session_id") or request.query.get("s", "")
        session = self.sessions.find(sid, user_agent(request.headers))
        if session is None:
            member = self._remembered(request)
            session = self._open_session(request, member.user_id if member is not None else ANONYMOUS)
        request.session = session
        request.user = self._member(session.user_id)

    def expire_sessions(self, *, keep_autologin: bool = False) -> None:
        """Forget every session, and the members' remembered logins unless `keep_autologin`: the next request
        of a client is then a guest's, or logs its member in again from his `member_id` and `pass_hash`
        cookies (IPB's session class does so for a visitor whose session it does not know). Forgetting them is
        what a new member login key does (an expired one, `login_key_expire`, or one changed elsewhere): his
        form hash (`auth_key`), made from the same key, changes with it."""
        super().expire_sessions()
        if not keep_autologin:
            with self._state:
                self._salts.clear()

    def _remembered(self, request: Request) -> User | None:
        member_id = number(request.cookies.get("member_id"))
        user = self._member(member_id) if member_id is not None else None
        if user is not None and request.cookies.get("pass_hash") == self._pass_hash(user):
            return user
        return None

    def _open_session(self, request: Request, user_id: int) -> Session:
        session = self.sessions.open(user_id, user_agent(request.headers))
        request.set_cookies.append(f"session_id={session.sid}; path=/; HttpOnly")
        request.new_session = True
        return session

    def _pass_hash(self, user: User) -> str:
        return hashlib.md5(f"{user.user_id}:{self._salt(user.user_id)}".encode()).hexdigest()

    def auth_key(self, user: User | None) -> str:
        """The member's form hash (IPB's md5 check); guests share one."""
        if user is None:
            return hashlib.md5(b"this is only here to prevent it breaking on guests").hexdigest()
        return hashlib.md5(f"{user.user_id}:{self._salt(user.user_id)}:key".encode()).hexdigest()

    def _sign_in(self, request: Request, name: str, password: str, remember: bool) -> User | None:
        """The member whose name and password the sign-in form holds, signed in on a new session
        (remembered in cookies when asked); None when the name or the password is wrong."""
        shown = self.logins.get(name.casefold())
        if shown is None and name.casefold() in {other.casefold() for other in self.logins.values()}:
            return None  # a member with a login name of his own does not log in with the name the board prints
        with self.board.lock:
            found = self.board._users.get((shown or name).lower())
            user = self._member(found.user_id) if found is not None else None
        if user is None or not _same_password(user, password):
            return None
        request.session = self._open_session(request, user.user_id)
        request.user = user
        if remember:
            request.set_cookies.append(f"member_id={user.user_id}; path=/; HttpOnly")
            request.set_cookies.append(f"pass_hash={self._pass_hash(user)}; path=/; HttpOnly")
        return user

    def _sign_out(self, request: Request, key: str | None) -> None:
        """The sign-out link: it ends the session only with the member's own form hash."""
        if request.user is not None and request.session is not None and key == self.auth_key(request.user):
            self.sessions.close(request.session.sid)

    def _send(self, handler: Any, response: Response, *, cut: bool = False) -> None:
        """A silent redirect goes without a body and without a content type, as IPB's header redirect does."""
        if response.status in (301, 302) and not response.body and not cut:
            handler.send_response(response.status)
            for name, value in (*response.headers, *self.page_headers):
                handler.send_header(name, value)
            handler.send_header("Content-Length", "0")
            handler.end_headers()
            return
        super()._send(handler, response, cut=cut)

    # -- the faults' answers (fakeboard.faults) ------------------------------------------------------

    def _login_answer(self, request: Request) -> Response:
        """A dead session is a guest's: the board answers the same request as a guest's, its error page
        carrying the log-in form (IPB 2.2's own answer to a reply after the session died)."""
        return self._dispatch(request)

    def _spoiled(self, request: Request) -> Request:
        """The request with a form hash the board will not take (a stale or replayed form): IPB's error page
        for a bad `auth_key`."""
        stale = "0" * 32
        form = request.form | {key: stale for key in ("auth_key", "authKey") if key in request.form}
        query = request.query | ({"auth_key": stale} if "auth_key" in request.query else {})
        return dataclasses.replace(request, form=form, query=query)

    def _dispatch(self, request: Request) -> Response:
        script = request.path.rsplit("/", 1)[-1] or "index.php"
        if script != "index.php" or request.path.count("/") > 1:
            return Response(404, b"<h1>Not Found</h1>")
        return self._answer(request, request.query | (request.form if request.method == "POST" else {}))

    def _answer(self, request: Request, q: dict[str, str]) -> Response:
        """The version's answer to a request of `index.php`; `q` holds the query's and a POST's fields."""
        raise NotImplementedError

    # -- the frame ------------------------------------------------------------------------------------

    def _page_values(self, request: Request) -> dict[str, Any]:
        """What the version's skeletons print on every page besides the frame's own values."""
        return {}

    def _page(self, request: Request, template: str, title: str, **values: Any) -> Response:
        return self._page_as(200, request, template, title, values)

    def _page_as(self, status: int, request: Request, template: str, title: str, values: dict[str, Any]) -> Response:
        """A page of the version's skeletons, answered with `status`."""
        user = request.user
        with self.board.lock:
            unread = [m for m in self.board._pms.values() if user is not None and not m.is_read_by(user.name)]
            new_pms = sum(1 for m in unread if user is not None and user.name in m.recipients)
        context: dict[str, Any] = {
            "title": title,
            "root": request.base_url,
            "base": f"{request.base_url}index.php?",
            "member": {"id": user.user_id, "name": user.name} if user is not None else None,
            "new_pms": new_pms,
            "board_name": self.board.name,
            "nav": [],
            "refresh": None,
            "error": "",
            "text": "",
            **self._page_values(request),
        }
        context.update(values)
        body = self._template(template, context).encode(self.charset, errors="xmlcharrefreplace")
        return Response(status, body, [("Content-Type", self._content_type())])

    def _content_type(self) -> str:
        return f"text/html; charset={self.charset}"

    def _to(self, request: Request, target: str) -> Response:
        """The 302 to a page of the board (`target` is its query)."""
        return redirect(f"{request.base_url}index.php?{target}")

    def _date_text(self, moment: datetime) -> str:
        """A date as the version prints it in lists and posts."""
        raise NotImplementedError

    def _named(self, name: str) -> tuple[str, int]:
        """A name as the pages link it: the name and its member id (0: nobody's)."""
        user = self.board._users.get(name.lower())
        return name, user.user_id if user is not None else 0

    def _topic_row(self, topic: Topic) -> dict[str, Any]:
        """A topic's row in its forum's list (the caller holds the board's lock)."""
        first, last = topic.posts[0], topic.posts[-1]
        return {
            "topic_id": topic.topic_id,
            "title": topic.title,
            "locked": topic.locked,
            "replies": len(topic.posts) - 1,
            "views": topic.views,
            "started": self._date_text(first.time),
            "starter": first.author,
            "starter_id": self._named(first.author)[1],
            "last_date": self._date_text(last.time),
            "last_name": last.author,
            "last_id": self._named(last.author)[1],
        }

    def _forum_topics(self, forum: Forum) -> list[Topic]:
        """The forum's topics, the one with the newest post first (the caller holds the board's lock)."""
        topics = [t for t in self.board._topics.values() if t.forum_id == forum.forum_id and t.posts]
        return sorted(topics, key=lambda t: (t.posts[-1].time, t.topic_id), reverse=True)

    # -- writing --------------------------------------------------------------------------------------

    def _flood_wait(self, user: User) -> int:
        """Whole seconds the member must still wait under flood control, as the error page names them
        (0: may post)."""
        return whole_seconds(self._flood_left(user))

    def _store(
        self, request: Request, user: User, forum: Forum, topic: Topic | None, title: str, text: str
    ) -> Response:
        """A new topic (`topic` None, titled `title`) or a reply stored (a member whose posts wait for
        approval has the reply queued), and the version's 302 to it (`_made`). Line breaks are stored as
        the board keeps them (a browser sends CR LF)."""
        now = self._now()
        text = text.replace("\r\n", "\n")
        if topic is None:
            made = self.board.add_topic(forum.forum_id, title, user.name, text, now)
            self._posted(user)
            return self._made(request, made, None)
        post_id = self.board.add_post(topic.topic_id, user.name, text, now, approved=not user.needs_approval)
        self._posted(user)
        return self._made(request, topic.topic_id, post_id)

    def _made(self, request: Request, topic_id: int, post_id: int | None) -> Response:
        """The 302 to a new topic (`post_id` None) or to a new reply."""
        raise NotImplementedError

    def _close_or_open(self, user: User, topic_id: int, close: bool | None) -> Topic | LockRefusal:
        """A moderator of the topic's forum closes it (`close`) or opens it; `close` None is an action that
        is neither. Returns the topic as it now is, or why nothing changed."""
        with self.board.lock:
            topic = self.board._topics.get(topic_id)
            forum = self.board._forums.get(topic.forum_id) if topic is not None else None
            if topic is None or forum is None:
                return LockRefusal.NO_TOPIC
            if not moderates(user, forum):
                return LockRefusal.NOT_MODERATOR
            if close is None:
                return LockRefusal.BAD_ACTION
            topic.locked = close
            return Topic(topic.topic_id, topic.forum_id, topic.title, topic.locked, topic.views)


def whole_seconds(left: float) -> int:
    """A wait as IPB names it: whole seconds, at least one while there is any (0: none)."""
    return max(1, round(left)) if left > 0 else 0


def _same_password(user: User, given: str) -> bool:
    return user.password is not None and secrets.compare_digest(user.password.encode(), given.encode())


def day_word(local: datetime, now: datetime) -> str | None:
    """«Сегодня» or «Вчера», as both versions print a date of today or yesterday (both in the board's zone)."""
    if local.date() == now.date():
        return "Сегодня"
    if local.date() == now.date() - timedelta(days=1):
        return "Вчера"
    return None
