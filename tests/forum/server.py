"""Fake phpBB and IPB 2.x boards for the client tests, serving the real captured pages.

A board is a plain request -> reply function with a little state (sessions bound to cookies and the
User-Agent, hit counts, scripted failures), so one fake serves two ways:
- `board.respond` as a respx side effect (no sockets), and
- `serve(board)`: a tiny threaded HTTP server on 127.0.0.1 (a free port), real sockets end to end.
"""

from __future__ import annotations

import secrets
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import httpx

from fakeboard.clock import FakeClock

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"  # the captured pages, phpbb/ and ipb/


@dataclass
class Reply:
    status: int
    body: bytes = b""
    headers: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class Request:
    method: str
    script: str  # "viewtopic.php"
    query: dict[str, str]
    key: str  # script and query, session ids left out: "viewtopic.php?t=2&start=10"
    cookies: dict[str, str]
    user_agent: str
    form: dict[str, str]


class FakeBoard:
    """What both fakes share: sessions, counting, scripted replies, two ways of being served."""

    charset = "utf-8"
    session_params: tuple[str, ...] = ("sid", "s")

    def __init__(self, clock: FakeClock | None = None) -> None:
        self.clock = clock  # the test's fake clock, shared with the client (phpBB's form timing)
        self.sessions: dict[str, str] = {}  # session id -> the User-Agent it is bound to
        self.hits: Counter[str] = Counter()
        # replies served (and consumed) before the real one; an exception is raised instead (respx only)
        self.scripted: dict[str, list[Reply | Exception]] = {}
        self.expire_after: int | None = None  # forget every session after this many content pages
        self.logins = 0
        self._content_served = 0
        self._lock = threading.Lock()

    # -- to be filled in by a dialect ------------------------------------------------------------

    def route(self, req: Request) -> Reply:
        raise NotImplementedError

    def session_of(self, req: Request) -> str | None:
        raise NotImplementedError

    # -- shared ----------------------------------------------------------------------------------

    def page(self, name: str) -> bytes:
        return (FIXTURES / name).read_bytes()

    def html(self, body: bytes, status: int = 200, headers: list[tuple[str, str]] | None = None) -> Reply:
        return Reply(status, body, [("Content-Type", f"text/html; charset={self.charset}"), *(headers or [])])

    def logged_in(self, req: Request) -> bool:
        sid = self.session_of(req)
        return sid is not None and self.sessions.get(sid) == req.user_agent

    def content(self, req: Request, body: bytes) -> Reply:
        """A page only members see; anyone else gets the login wall."""
        with self._lock:
            if not self.logged_in(req):
                return self.login_wall()
            self._content_served += 1
            if self.expire_after is not None and self._content_served >= self.expire_after:
                self.sessions.clear()  # the session dies after this page (cron-day-long reads do that)
                self.expire_after = None
        return self.html(body)

    def login_wall(self) -> Reply:
        raise NotImplementedError

    def new_session(self, req: Request) -> str:
        sid = secrets.token_hex(16)
        self.sessions[sid] = req.user_agent
        self.logins += 1
        return sid

    def handle(self, method: str, target: str, headers: dict[str, str], body: bytes) -> Reply:
        parts = urlsplit(target)
        query = dict(parse_qsl(parts.query, keep_blank_values=True))
        kept = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k not in self.session_params]
        script = parts.path.rsplit("/", 1)[-1]
        key = script + ("?" + "&".join(f"{k}={v}" for k, v in kept) if kept else "")
        cookie = SimpleCookie()
        cookie.load(headers.get("cookie", ""))
        form = dict(parse_qsl(body.decode("ascii", "replace"), keep_blank_values=True, encoding=self.charset))
        req = Request(
            method,
            script,
            query,
            key,
            {name: morsel.value for name, morsel in cookie.items()},
            headers.get("user-agent", ""),
            form,
        )
        with self._lock:
            self.hits[f"{method} {key}"] += 1
            queued = self.scripted.get(key)
            scripted = queued.pop(0) if queued else None
        if isinstance(scripted, Exception):
            raise scripted
        return scripted if scripted is not None else self.route(req)

    def respond(self, request: httpx.Request) -> httpx.Response:
        """The respx side effect."""
        headers = {name.lower(): value for name, value in request.headers.items()}
        reply = self.handle(request.method, str(request.url.raw_path, "ascii"), headers, request.content)
        return httpx.Response(reply.status, headers=reply.headers, content=reply.body)

    def count(self, key: str, method: str = "GET") -> int:
        return self.hits[f"{method} {key}"]


class FakePhpbb(FakeBoard):
    """phpBB 3.3: `ucp.php?mode=login`, `viewtopic.php?t=2&start=N`, the PM inbox and one PM."""

    username, password = "host_bot", "s3cret"
    form_token = "afc82d1d7a87ddd22bd6cbf3bca8b4dd6b400387"
    cookie_prefix = "phpbb3_fake"
    login_error = (
        "You have specified an incorrect password. Please check your password and try again. "
        "If you continue to have problems please contact the Board Administrator."
    )

    def __init__(self, clock: FakeClock | None = None) -> None:
        super().__init__(clock)
        self.topics = {2: {0: "phpbb/viewtopic_page1.html", 10: "phpbb/viewtopic_page2.html"}}
        self.inbox: dict[int, bytes] = {0: self.page("phpbb/pm_inbox.html")}
        self.no_permission: set[int] = set()
        self.not_a_topic: set[int] = set()
        self.form_served_at: float | None = None
        self.login_posts: list[dict[str, str]] = []

    def session_of(self, req: Request) -> str | None:
        if req.cookies.get(f"{self.cookie_prefix}_u", "1") == "1":
            return None
        return req.cookies.get(f"{self.cookie_prefix}_sid")

    def login_wall(self) -> Reply:
        return self.html(self.page("phpbb/login_page.html"))

    def route(self, req: Request) -> Reply:
        q = req.query
        if req.script == "ucp.php" and q.get("mode") == "login":
            return self._login(req) if req.method == "POST" else self._login_form()
        if req.script in ("", "index.php"):
            return self.html(self.page("phpbb/viewforum_mafia.html"))
        if req.script == "viewtopic.php":
            return self._topic(req)
        if req.script == "ucp.php" and q.get("i") == "pm" and q.get("mode") == "view" and "p" in q:
            return self.content(req, self.page("phpbb/pm_view.html"))
        if req.script == "ucp.php" and q.get("i") == "pm" and q.get("folder") == "inbox":
            start = int(q.get("start", "0"))
            return self.content(req, self.inbox[start]) if start in self.inbox else self._missing()
        return self._missing()

    def _login_form(self) -> Reply:
        self.form_served_at = self.clock.time() if self.clock else None
        return self.login_wall()

    def _login(self, req: Request) -> Reply:
        form = req.form
        self.login_posts.append(form)
        too_soon = self.clock is not None and (
            self.form_served_at is None or self.clock.time() - self.form_served_at < 1
        )
        if form.get("form_token") != self.form_token or not form.get("creation_time") or too_soon:
            return self._form_with_error("The submitted form was invalid. Try submitting again.")
        if form.get("username") != self.username or form.get("password") != self.password:
            return self._form_with_error(self.login_error)
        sid = self.new_session(req)
        cookies = [
            ("Set-Cookie", f"{self.cookie_prefix}_u=58; path=/; HttpOnly"),
            ("Set-Cookie", f"{self.cookie_prefix}_k=; path=/; HttpOnly"),
            ("Set-Cookie", f"{self.cookie_prefix}_sid={sid}; path=/; HttpOnly"),
        ]
        return Reply(302, b"", [("Location", f"./index.php?sid={sid}"), *cookies])

    def _form_with_error(self, message: str) -> Reply:
        page = self.page("phpbb/login_page.html").decode()
        marker = '<fieldset class="fields1">'
        page = page.replace(marker, f'{marker}\n<div class="error">{message}</div>', 1)
        return self.html(page.encode())

    def _topic(self, req: Request) -> Reply:
        topic = int(req.query.get("t", "0"))
        start = int(req.query.get("start", "0"))
        if topic in self.no_permission:
            return self.content(req, _phpbb_message("You are not authorised to read this forum."))
        if topic in self.not_a_topic:
            return self.content(req, self.page("phpbb/viewforum_mafia.html"))
        pages = self.topics.get(topic)
        if pages is None:
            return self._missing()
        last = max(pages)
        return self.content(req, self.page(pages[start if start in pages else min(last, max(0, start))]))

    def _missing(self) -> Reply:
        return self.html(_phpbb_message("The requested topic does not exist."), status=404)


def _phpbb_message(text: str) -> bytes:
    """phpBB's message page (message_body.html in prosilver), trimmed to its frame."""
    return (
        '<!DOCTYPE html><html dir="ltr" lang="en-gb"><head><meta charset="utf-8" />'
        "<title>Mafia Test Board - Information</title></head>"
        '<body id="phpbb" class="nojs notouch section-viewtopic ltr">'
        '<div id="wrap" class="wrap"><div id="page-body" class="page-body" role="main">'
        '<div class="panel" id="message" role="main"><div class="inner">'
        f'<h2 class="message-title">Information</h2><p>{text}</p></div></div></div></div></body></html>'
    ).encode()


class FakeIpb(FakeBoard):
    """IPB 2.2 (Russian build): `act=Login`, `showtopic=T&st=N`, `act=Msg`; pages in windows-1251."""

    username, password = "Ведущий", "пароль-1"
    session_params = ("s",)

    def __init__(
        self, clock: FakeClock | None = None, *, charset: str = "windows-1251", charset_in_header: bool = True
    ) -> None:
        super().__init__(clock)
        self.charset = charset
        self.charset_in_header = charset_in_header
        self.suffix = "_cp1251" if charset == "windows-1251" else ""
        self.login_error = "Вы ввели неверный пароль. Проверьте правильность ввода и попробуйте снова."
        self.no_permission: set[str] = set()
        self.not_a_topic: set[str] = set()

    def html(self, body: bytes, status: int = 200, headers: list[tuple[str, str]] | None = None) -> Reply:
        kind = f"text/html; charset={self.charset}" if self.charset_in_header else "text/html"
        return Reply(status, body, [("Content-Type", kind), *(headers or [])])

    def ipb_page(self, name: str) -> bytes:
        return self.page(f"ipb/{name}{self.suffix}.html")

    def session_of(self, req: Request) -> str | None:
        if req.cookies.get("member_id", "0") in ("0", "-1"):
            return None
        return req.cookies.get("pass_hash")

    def login_wall(self) -> Reply:
        return self.html(self.ipb_page("login"))

    def route(self, req: Request) -> Reply:
        q = req.query
        if req.script != "index.php":
            return self.html(b"<html><body>404</body></html>", status=404)
        if q.get("act") == "Login":
            if q.get("CODE") == "01" and req.method == "POST":
                return self._login(req)
            return self.login_wall()
        if "showtopic" in q:
            if q["showtopic"] in self.no_permission:
                return self.content(req, self._error_page("У вас нет прав для просмотра этой темы."))
            if q["showtopic"] in self.not_a_topic:
                return self.content(req, self.ipb_page("pm_inbox"))
            if q["showtopic"] != "15821":
                return self.html(b"<html><body>no such topic</body></html>", status=404)
            return self.content(req, self.ipb_page("topic_page2" if q.get("st") == "10" else "topic_page1"))
        if q.get("act") == "Msg" and q.get("CODE") == "01":
            return self.content(req, self.ipb_page("pm_inbox"))
        if q.get("act") == "Msg" and q.get("CODE") == "03":
            return self.content(req, self.ipb_page("pm_view"))
        return self.html(self.ipb_page("login"))

    def _error_page(self, message: str) -> bytes:
        """IPB 2.x's error page for a member (a logout link, no login form), trimmed to its frame."""
        page = (
            f'<html><head><meta http-equiv="content-type" content="text/html; charset={self.charset}" />'
            '<script type="text/javascript">var ipb_var_base_url = "index.php?";</script></head><body>'
            '<div id="userlinks"><a href="index.php?act=Login&amp;CODE=03&amp;k=ace70557">Выход</a></div>'
            f'<div class="errorwrap"><h4>Ошибка</h4><p>{message}</p></div></body></html>'
        )
        return page.encode(self.charset)

    def _login(self, req: Request) -> Reply:
        if req.form.get("UserName") != self.username or req.form.get("PassWord") != self.password:
            page = self.ipb_page("login").decode(self.charset)
            box = f'<div class="errorwrap"><h4>Ошибка</h4><p>{self.login_error}</p></div>\n'
            at = page.rfind("<form", 0, page.index('name="LOGIN"'))
            page = page[:at] + box + page[at:]
            return self.html(page.encode(self.charset))
        sid = self.new_session(req)
        cookies = [
            ("Set-Cookie", "member_id=2; path=/"),
            ("Set-Cookie", f"pass_hash={sid}; path=/"),
            ("Set-Cookie", f"session_id={secrets.token_hex(16)}; path=/"),
        ]
        thanks = (
            f'<html><head><meta http-equiv="content-type" content="text/html; charset={self.charset}" />'
            '<meta http-equiv="refresh" content="2; url=index.php?" /></head>'
            "<body><div id='redirectwrap'><h4>Спасибо</h4><p>Спасибо, Ведущий</p></div></body></html>"
        )
        return self.html(thanks.encode(self.charset), headers=cookies)


# -- real sockets ---------------------------------------------------------------------------------


@contextmanager
def serve(board: FakeBoard) -> Iterator[str]:
    """Serve `board` on 127.0.0.1 (a free port) in a thread; yields the base URL."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            headers = {name.lower(): value for name, value in self.headers.items()}
            reply = board.handle(self.command, self.path, headers, body)
            self.send_response(reply.status)
            for name, value in reply.headers:
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(reply.body)))
            self.end_headers()
            self.wfile.write(reply.body)

        do_GET = _answer
        do_POST = _answer

        def log_message(self, format: str, *args: object) -> None:  # keep test output quiet
            pass

        def date_time_string(self, timestamp: float | None = None) -> str:
            """The answer's `Date`: the board's clock (the test's), as a real board's is its own."""
            if timestamp is None and board.clock is not None:
                timestamp = board.clock.time()
            return super().date_time_string(timestamp)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        host, port = server.server_address[:2]
        assert isinstance(host, str)
        yield f"http://{host}:{port}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
