"""The frame of every page the fake phpBB serves, and what every phpBB script shares: phpBB's sessions (the
cookies `<prefix>_u`, `_k`, `_sid`, bound to the User-Agent; "remember me" keys; `sid=` in the links of a
client that has not returned a cookie yet), the form tokens and their one-second rule, flood control, the
viewer (language, time zone, date format) and the page around each script's template: header, menus,
footer, a trigger_error() message, the login box.

The scripts (`reading`, `ucp`, `pm`, `posting`, `mcp`) each add their pages to this frame; `server`
puts them together."""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, tzinfo
from typing import Any, ClassVar, Unpack
from urllib.parse import quote
from zoneinfo import ZoneInfo

from markupsafe import Markup

from fakeboard.phpbb.bbcode import render_bbcode
from fakeboard.phpbb.language import (
    DEFAULT_DATEFORMAT,
    SKELETONS,
    format_date,
    offset_label,
    pack,
    translate,
    zone_key,
    zone_name,
)
from fakeboard.server import FakeServer, Request, Response, ServerOptions
from fakeboard.sessions import Session, user_agent
from fakeboard.state import ANONYMOUS, Board, Forum, Post, User, moderates


@dataclass(frozen=True)
class Viewer:
    """How the request's pages are printed: the member's (or the board's, for a guest) language, time zone
    and date format, and the server's time."""

    lang: str
    tz: tzinfo
    dateformat: str
    now: datetime

    def t(self, english: str, *args: object) -> str:
        return translate(self.lang, english, *args)

    def date(self, moment: datetime, *, absolute: bool = False) -> str:
        return format_date(moment, self.tz, self.dateformat, lang=self.lang, now=self.now, absolute=absolute)


class PhpbbFrame(FakeServer):
    """`board` as phpBB 3.3.11 (prosilver) serves it: the frame every script's pages share (see the module).
    `topics_per_page` (topics of a forum, PMs of a folder) and `form_lifetime` (a form token's) are phpBB's
    settings; the rest are the server's (`fakeboard.server.FakeServer`)."""

    skeletons = SKELETONS
    thread_name: ClassVar[str] = "phpbb-fake"

    def __init__(
        self, board: Board, *, topics_per_page: int = 25, form_lifetime: int = 7200, **options: Unpack[ServerOptions]
    ) -> None:
        if topics_per_page < 1:
            raise ValueError("pages hold at least one item")
        super().__init__(board, **options)
        self.topics_per_page = topics_per_page
        self.form_lifetime = form_lifetime
        self.cookie_prefix = "phpbb3_" + "".join(
            secrets.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(5)
        )
        self._autologin: dict[str, int] = {}  # autologin key -> user id
        self._login_attempts: dict[int, int] = {}  # user id -> failed logins since the last success
        self._confirm_keys: dict[str, str] = {}  # session id -> its confirm box's single-use key
        self._captchas: dict[str, str] = {}  # session id -> the login CAPTCHA shown to it
        self._last_seen: dict[int, float] = {}  # member id -> when it last asked for a page
        self._html_cache: dict[tuple[Any, ...], str] = {}

    # -- what tests look at and control -------------------------------------------------------------

    def expire_sessions(self, *, keep_autologin: bool = False) -> None:
        """Forget every session, and the "remember me" keys unless `keep_autologin`: the next request of
        a client is then a guest's (the login wall), or logs it in again from its `_k` cookie."""
        super().expire_sessions()
        if not keep_autologin:
            with self._state:
                self._autologin.clear()

    def login_attempts(self, name: str) -> int:
        """The member's failed logins since its last successful one (phpBB's user_login_attempts)."""
        user = self.board.user(name)
        if user is None:
            raise KeyError(f"{name!r}: no such user")
        with self._state:
            return self._login_attempts.get(user.user_id, 0)

    def reset_login_attempts(self, name: str | None = None) -> None:
        """Forget the failed logins of `name` (default everybody's): no more CAPTCHA."""
        with self._state:
            if name is None:
                self._login_attempts.clear()
                return
            user = self.board.user(name)
            if user is not None:
                self._login_attempts.pop(user.user_id, None)

    # -- sessions, viewers and form tokens ------------------------------------------------------------

    def _begin_session(self, request: Request) -> None:
        """phpBB's session_begin: the session named by the cookie (else `sid=`), bound to the User-Agent;
        else a "remember me" login from the `_k` cookie; else a new guest session (a dead or expired
        session's cookies included: phpBB silently starts a guest session and sets new cookies)."""
        sid = request.cookies.get(f"{self.cookie_prefix}_sid") or request.query.get("sid", "")
        session = self.sessions.find(sid, user_agent(request.headers))
        if session is None:
            key = request.cookies.get(f"{self.cookie_prefix}_k", "")
            with self._state:
                uid = self._autologin.get(key) if key else None
            if uid is not None and str(uid) == request.cookies.get(f"{self.cookie_prefix}_u"):
                session = self._new_session(request, uid, key)
            else:
                session = self._new_session(request, ANONYMOUS, "")
        request.session = session
        request.user = self._member(session.user_id)
        if request.user is not None:
            with self._state:
                self._last_seen[request.user.user_id] = request.time

    def _viewer(self, user: User | None, at: float) -> Viewer:
        """How pages are printed for `user` (None: a guest) at the server's time `at`."""
        board = self.board
        lang = user.lang if user is not None else board.language
        zone = ZoneInfo(user.tz) if user is not None and user.tz else self.tz
        fmt = (user.dateformat if user is not None else None) or board.dateformat or DEFAULT_DATEFORMAT[lang]
        return Viewer(lang, zone, fmt, datetime.fromtimestamp(at, UTC))

    def _new_session(self, request: Request, user_id: int, autologin_key: str) -> Session:
        session = self.sessions.open(user_id, user_agent(request.headers))
        expires = "Fri, 01-Jan-2100 00:00:00 GMT"
        for name, value in (("u", str(user_id)), ("k", autologin_key), ("sid", session.sid)):
            request.set_cookies.append(f"{self.cookie_prefix}_{name}={value}; expires={expires}; path=/; HttpOnly")
        request.new_session = True
        return session

    def _tokens(self, request: Request, form_name: str) -> list[tuple[str, str]]:
        """`creation_time` and `form_token` as phpBB's add_form_key() makes them."""
        now = int(self.clock())
        return [("creation_time", str(now)), ("form_token", self._token(request, form_name, now))]

    def _token(self, request: Request, form_name: str, creation_time: int) -> str:
        uid = request.user.user_id if request.user else ANONYMOUS
        token_sid = request.session.sid if request.user is None and request.session else ""
        text = f"{creation_time}{self._salt(uid)}{form_name}{token_sid}"
        return hashlib.sha1(text.encode()).hexdigest()

    def _check_form(self, request: Request, form_name: str) -> bool:
        """phpBB's check_form_key(): the token must match and the form must be between 1 second and
        `form_lifetime` seconds old (a form posted in the second it was made is refused)."""
        created = request.form.get("creation_time", "")
        token = request.form.get("form_token", "")
        if not created.isdigit() or not token:
            return False
        diff = int(self.clock()) - int(created)
        if diff == 0 or diff > self.form_lifetime:  # check_form_key(): `$diff && $diff <= $timespan`
            return False
        return secrets.compare_digest(token, self._token(request, form_name, int(created)))

    def _link_hash(self, request: Request) -> str:
        uid = request.user.user_id if request.user else ANONYMOUS
        return hashlib.sha1(self._salt(uid).encode()).hexdigest()[:8]

    def _flooding(self, user: User) -> bool:
        return self._flood_left(user) > 0

    def _absolute(self, request: Request, link: str) -> str:
        """A board link as phpBB's redirect() and meta_refresh() write it: absolute."""
        return request.base_url + link.removeprefix("./").lstrip("/")

    # -- page frame -------------------------------------------------------------------------------

    def _v(self, request: Request) -> Viewer:
        """The request's viewer: its member's (or a guest's) way of printing, at the time it arrived."""
        return self._viewer(request.user, request.time)

    def _date(self, request: Request, moment: datetime, *, absolute: bool = False) -> str:
        return self._v(request).date(moment, absolute=absolute)

    def _tz_label(self, viewer: Viewer) -> tuple[str, str]:
        name = zone_name(viewer.lang, zone_key(viewer.tz))
        offset = viewer.now.astimezone(viewer.tz).utcoffset() or timedelta(0)
        if offset == timedelta(0):
            return name, "UTC"
        return name, offset_label(offset)

    def _userref(self, name: str, guest: bool = False) -> dict[str, Any]:
        """What the templates need to print a member: name, id (None: a guest), group colour."""
        found = None if guest else self.board._users.get(name.lower())
        if found is None:
            return {"name": name, "user_id": None, "colour": None}
        return {"name": found.name, "user_id": found.user_id, "colour": found.colour}

    def _username_html(self, name: str, guest: bool = False) -> Markup:
        """The `username` macro of macros.html, for texts built here."""
        who = self._userref(name, guest)
        if who["user_id"] is None:
            return Markup('<span class="username">{}</span>').format(who["name"])
        if who["colour"]:
            return Markup(
                '<a href="./memberlist.php?mode=viewprofile&amp;u={}" style="color: #{};" class="username-coloured">'
                "{}</a>"
            ).format(who["user_id"], who["colour"], who["name"])
        return Markup('<a href="./memberlist.php?mode=viewprofile&amp;u={}" class="username">{}</a>').format(
            who["user_id"], who["name"]
        )

    def _online(self) -> list[dict[str, Any]]:
        ids = self.sessions.user_ids() - {ANONYMOUS}
        users = [self.board._users_by_id[i] for i in ids if i in self.board._users_by_id]
        return [self._userref(u.name) for u in sorted(users, key=lambda u: u.name.lower())]

    def _online_ids(self) -> set[int]:
        return self.sessions.user_ids()

    def _unread(self, user: User | None) -> int:
        if user is None:
            return 0
        return sum(1 for m in self.board._pms.values() if user.name in m.recipients and user.name not in m.read_by)

    def _moderates_any(self, user: User | None) -> bool:
        return user is not None and (
            user.moderator or any(user.name in f.moderators for f in self.board._forums.values())
        )

    def _render(
        self,
        request: Request,
        template: str,
        *,
        title: str,
        kind: str | None = None,
        section: str = "index",
        status: int = 200,
        **values: Any,
    ) -> Response:
        """A whole page: the captured header and footer around `template`, with the viewer's menus, in the
        viewer's language (`title` is already in it)."""
        user = request.user
        viewer = self._v(request)
        t = viewer.t
        with self.board.lock:
            unread = self._unread(user)
            notifications = []
            if user is not None:
                mine = sorted(
                    (m for m in self.board._pms.values() if user.name in m.recipients),
                    key=lambda m: (m.time, m.pm_id),
                    reverse=True,
                )
                notifications = [
                    {
                        "pm_id": m.pm_id,
                        "sender": m.sender,
                        "subject": m.subject,
                        "time_text": viewer.date(m.time),
                        "unread": user.name not in m.read_by,
                    }
                    for m in mine[:5]
                ]
            me = self._userref(user.name) if user is not None else None
            mcp_link = self._moderates_any(user)
        if kind in ("topic", "forum"):
            html_title = f"{title} - {self.board.name}"
        elif kind == "ucp":
            html_title = f"{self.board.name} - {t('User Control Panel')} - {title}"
        elif kind == "mcp":
            html_title = f"{self.board.name} - {t('Moderator Control Panel')} - {title}"
        else:
            html_title = f"{self.board.name} - {title}"
        if unread:
            html_title = f"({unread}) {html_title}"
        sid_in_links = (
            user is None
            and request.session is not None
            and (request.new_session or f"{self.cookie_prefix}_sid" not in request.cookies)
        )
        guest_sid = request.session.sid if sid_in_links and request.session is not None else None
        tz_name, tz_label = self._tz_label(viewer)

        def u(link: str) -> str:
            if guest_sid is None:
                return link
            return f"{link}{'&' if '?' in link else '?'}sid={guest_sid}"

        context: dict[str, Any] = {
            "t": t,
            "lang": viewer.lang,
            "html_lang": pack(viewer.lang)["html_lang"],
            "sitename": self.board.name,
            "site_desc": self.board.description,
            "html_title": html_title,
            "section": section,
            "user": me,
            "mcp_link": mcp_link,
            "session_id": request.session.sid if request.session else "",
            "unread_pms": unread,
            "notifications": notifications,
            "link_hash": self._link_hash(request),
            "u": u,
            "guest_sid": guest_sid,
            "crumbs": [],
            "canonical": None,
            "feed_forum": None,
            "feed_topic": None,
            "posting_page": False,
            "editor_js": False,
            "plupload_url": "",
            "meta_refresh": None,
            "tz_name": tz_name,
            "tz_label": tz_label,
            "login_redirect": None,
        }
        context.update(values)
        return Response(status, self._template(template, context).encode("utf-8"))

    def _print_page(
        self, request: Request, template: str, title: str, heading: str, values: dict[str, Any]
    ) -> Response:
        """A print view (`view=print`): the board's name and description, `heading` (English keys, `title` and
        `heading`, are printed in the viewer's language), the view's own part, the time zone line."""
        viewer = self._v(request)
        tz_name, tz_label = self._tz_label(viewer)
        context: dict[str, Any] = {
            "t": viewer.t,
            "lang": viewer.lang,
            "html_lang": pack(viewer.lang)["html_lang"],
            "sitename": self.board.name,
            "site_desc": self.board.description,
            "board_url": request.base_url,
            "print_title": viewer.t(title),
            "print_heading": viewer.t(heading),
            "topic_print": False,
            "tz_name": tz_name,
            "tz_label": tz_label,
            **values,
        }
        return Response(200, self._template(template, context).encode("utf-8"))

    def _message(
        self,
        request: Request,
        text: str,
        *,
        title: str = "Information",
        status: int = 200,
        refresh: tuple[int, str] | None = None,
        links: Sequence[tuple[str, str]] = (),
        kind: str | None = None,
    ) -> Response:
        """A trigger_error() page: `div#message` with a title and a text (English keys, printed in the
        viewer's language), `links` (English label, href) after it, `refresh` (seconds, board link) as a meta
        refresh to the absolute URL."""
        t = self._v(request).t
        body = Markup("{}").format(t(text))
        for label, href in links:
            body += Markup('<br /><br /><a href="{}">{}</a>').format(href, t(label))
        meta = (refresh[0], self._absolute(request, refresh[1])) if refresh else None
        return self._render(
            request,
            "message_body.html",
            title=t(title),
            kind=kind,
            status=status,
            message_title=t(title),
            message_text=body,
            meta_refresh=meta,
        )

    def _login_wall(
        self,
        request: Request,
        explain: str | None,
        *,
        redirect: str | None = None,
        error: str | Markup | None = None,
        kind: str | None = None,
        captcha: bool = False,
    ) -> Response:
        """login_body.html: the login page (`explain` None), and what phpBB serves instead of a page a
        guest may not see (`explain` says why, and the form sends the guest back to that page)."""
        t = self._v(request).t
        here = page_link(request, sort=request.path.endswith("mcp.php"))
        first, second = (redirect or here, None) if explain else (here, redirect or "index.php")
        if request.session is not None and (request.new_session or f"{self.cookie_prefix}_sid" not in request.cookies):
            first += f"{'&' if '?' in first else '?'}sid={request.session.sid}"  # links carry the sid
        captcha_id = None
        if captcha and request.session is not None:
            captcha_id = secrets.token_hex(16)
            with self._state:
                self._captchas[request.session.sid] = captcha_id
        return self._render(
            request,
            "login_body.html",
            title=t("Login"),
            kind=kind,
            section=request.path.strip("/").removesuffix(".php") or "index",
            login_explain=t(explain) if explain else None,
            login_error=error,
            login_username="",
            login_redirect_first=first,
            login_redirect=second,
            captcha_id=captcha_id,
            tokens=self._tokens(request, "login"),
        )

    def _jump_forums(self) -> list[dict[str, Any]]:
        """The jumpbox: every forum in tree order, categories as such, the others with their depth."""
        forums = self.board._forums
        children: dict[int | None, list[Forum]] = {}
        for forum in sorted(forums.values(), key=lambda f: f.forum_id):
            parent = forum.parent_id if forum.parent_id in forums else None
            children.setdefault(parent, []).append(forum)
        out: list[dict[str, Any]] = []

        def walk(parent: int | None, level: int) -> None:
            for forum in children.get(parent, []):
                out.append({"forum_id": forum.forum_id, "name": forum.name, "category": forum.category, "level": level})
                walk(forum.forum_id, level + 1)

        walk(None, 0)
        return out

    def _crumbs(self, forum: Forum) -> list[dict[str, Any]]:
        chain: list[Forum] = []
        at: Forum | None = forum
        while at is not None and at not in chain:
            chain.insert(0, at)
            at = self.board._forums.get(at.parent_id) if at.parent_id is not None else None
        return [{"forum_id": f.forum_id, "href": f"./viewforum.php?f={f.forum_id}", "name": f.name} for f in chain]

    def _render_bbcode(self, request: Request, source: str) -> str:
        viewer = self._v(request)
        return render_bbcode(
            source, lambda stamp: viewer.date(datetime.fromtimestamp(stamp, UTC)), wrote=viewer.t("wrote:")
        )

    def _post_html(self, request: Request, post: Post) -> str:
        if post.html:
            return post.body
        viewer = self._v(request)
        relative = "|" in viewer.dateformat and "time=" in post.body.lower()
        key = (post.post_id, post.version, viewer.lang, zone_key(viewer.tz), viewer.dateformat)
        cached = None if relative else self._html_cache.get(key)
        if cached is None:
            cached = self._render_bbcode(request, post.body)
            if not relative:
                self._html_cache[key] = cached
        return cached

    def _sees(self, user: User | None, forum: Forum) -> Callable[[Post], bool]:
        """Which posts of the forum the viewer sees: its moderators all, everybody else the approved and
        not deleted ones."""
        if moderates(user, forum):
            return lambda post: True
        return lambda post: post.visible

    def _can_read(self, request: Request, forum: Forum) -> bool:
        return forum.public or request.user is not None


def page_link(request: Request, *, sort: bool = False) -> str:
    """The page asked for, as phpBB writes it in a login form's `redirect` (no `sid`; mcp.php sorts its
    parameters, as its build_url() does)."""
    items = [(k, v) for k, v in request.query.items() if k != "sid"]
    if sort:
        items.sort()
    query = "&".join(f"{k}={quote(v, safe='')}" for k, v in items)
    script = request.path.rsplit("/", 1)[-1] or "index.php"
    return f"./{script}" + (f"?{query}" if query else "")


def local_target(target: str) -> str:
    """A redirect target on this board (phpBB refuses to send a user elsewhere)."""
    target = target.strip()
    if "://" in target or target.startswith("//") or not target:
        return "./index.php"
    return target if target.startswith("./") else "./" + target.lstrip("/")
