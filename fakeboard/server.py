"""The server every fake board runs on: a `Board` over HTTP on 127.0.0.1, each engine answering as its real
counterpart does (`fakeboard.phpbb`, `fakeboard.ipb2`, `fakeboard.ipb3`).

The core does what does not depend on the engine: the server's life cycle (`with`, or `start()` and
`stop()`), the request log tests read (`requests`, `count`), injected faults (`fail_next`, `fail_path`,
`fail_after_acting`), the clock (`clock`, a test's `FakeClock` so nothing really waits), the session store,
flood control's memory of each member's last post, the per-member secret forms and cookies are keyed with,
the page templates (`skeletons/` of the engine's folder) and the answer's headers. An engine says how a
request begins its session (`_begin_session`) and what answers it (`_dispatch`).
"""

from __future__ import annotations

import dataclasses
import secrets
import socket
import threading
import time as _time
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, tzinfo
from email.message import Message
from email.parser import BytesParser
from email.policy import HTTP
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any, ClassVar, Self, TypedDict, Unpack
from urllib.parse import parse_qsl, urlsplit
from zoneinfo import ZoneInfo

import jinja2

from fakeboard.faults import STATUSES, Failure, Fault, Faults
from fakeboard.sessions import Session, Sessions, read_cookies
from fakeboard.state import Board, User

__all__ = ["FakeServer", "Request", "RequestRecord", "Response", "ServerOptions", "not_found", "number", "redirect"]


class ServerOptions(TypedDict, total=False):
    """The settings every engine's server takes (see `FakeServer`)."""

    latency: float
    posts_per_page: int
    flood_interval: float | None
    board_tz: str | tzinfo | None
    clock: Callable[[], float] | None
    port: int


@dataclass
class RequestRecord:
    """One request the server received: `time` is its arrival (the server's clock), `status` is filled
    in once the answer is sent (0 until then, -1 when the connection was cut instead)."""

    method: str
    path: str
    query: str
    time: float
    status: int = 0
    user: str | None = None  # the member the request was served as, None for a guest

    @property
    def params(self) -> dict[str, str]:
        return dict(parse_qsl(self.query, keep_blank_values=True))


@dataclass
class Response:
    status: int
    body: bytes = b""
    headers: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class Request:
    """A request as the engine reads it: the query, the POSTed form, the cookies, and the session and the
    member it begins (set by the engine's `_begin_session`); `set_cookies` go out with the answer."""

    method: str
    path: str
    query: dict[str, str]
    form: dict[str, str]
    headers: Mapping[str, str] | Message
    cookies: dict[str, str]
    base_url: str
    time: float  # the server's clock when it came
    session: Session | None = None
    user: User | None = None
    set_cookies: list[str] = field(default_factory=list)
    new_session: bool = False  # the session began with this request


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out in two writes: no 40 ms delayed-ACK stalls
    server_version = "Apache"
    sys_version = ""
    app: FakeServer  # set on the subclass each server makes

    def setup(self) -> None:
        super().setup()
        with self.app._state:
            self.app._connections.add(self.connection)

    def finish(self) -> None:
        with self.app._state:
            self.app._connections.discard(self.connection)
        super().finish()

    def do_GET(self) -> None:  # noqa: N802 (the stdlib's naming)
        self.app._serve(self)

    def do_POST(self) -> None:  # noqa: N802
        self.app._serve(self)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        return

    def date_time_string(self, timestamp: float | None = None) -> str:
        """Every answer's `Date` is the board's own clock (a test's `FakeClock`), as a real board's is."""
        return super().date_time_string(self.app.clock() if timestamp is None else timestamp)


class FakeServer:
    """`board` over HTTP on 127.0.0.1 (the engine's subclass says how it answers).

    `latency` seconds are added to every answer; `posts_per_page` is the board's setting; `flood_interval`
    (default the board's) seconds must pass between two posts of a member; `board_tz` (default the board's
    `timezone`) is the time zone pages are printed in for guests and by default. `clock` (default
    `time.time`) is the server's time: form keys, flood control, dates and the times of posts made over
    HTTP use it, so a test can move it on instead of sleeping.
    """

    skeletons: ClassVar[Path]  # the engine's page templates
    thread_name: ClassVar[str] = "fake-board"
    # what every answer carries (phpBB's: a page that sets cookies is never cached)
    page_headers: ClassVar[tuple[tuple[str, str], ...]] = (
        ("Cache-Control", 'private, no-cache="set-cookie"'),
        ("Expires", "0"),
        ("Pragma", "no-cache"),
    )

    def __init__(self, board: Board, **options: Unpack[ServerOptions]) -> None:
        self.posts_per_page = options.get("posts_per_page", 10)
        if self.posts_per_page < 1:
            raise ValueError("pages hold at least one item")
        self.board = board
        self.latency = options.get("latency", 0.0)
        self._flood_interval = options.get("flood_interval")
        zone = options.get("board_tz") or board.timezone
        self.tz: tzinfo = ZoneInfo(zone) if isinstance(zone, str) else zone
        self.clock: Callable[[], float] = options.get("clock") or _time.time
        self.requests: list[RequestRecord] = []
        self.errors: list[str] = []  # tracebacks of requests the fake board itself failed (answered 500)
        self.sessions = Sessions()
        self.faults = Faults()
        self.slow_for = 2.0  # how late a "slow" fault after acting answers, in real seconds
        self._port = options.get("port", 0)
        self._state = threading.RLock()
        self._salts: dict[int, str] = {}
        self._last_post: dict[int, float] = {}  # member id -> when the member last posted (or sent a PM)
        self._env = jinja2.Environment(
            loader=jinja2.FileSystemLoader(str(self.skeletons)),
            autoescape=True,
            keep_trailing_newline=True,
            undefined=jinja2.StrictUndefined,
        )
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._connections: set[socket.socket] = set()  # open (kept-alive) connections, cut by stop()

    @property
    def flood_interval(self) -> float:
        """Seconds between two posts of a member: the server's own setting, else the board's."""
        return self.board.flood_interval if self._flood_interval is None else self._flood_interval

    @flood_interval.setter
    def flood_interval(self, seconds: float | None) -> None:
        self._flood_interval = seconds

    # -- life cycle -------------------------------------------------------------------------------

    def start(self) -> Self:
        if self._httpd is not None:
            return self
        handler = type("BoardHandler", (_Handler,), {"app": self})
        httpd = ThreadingHTTPServer(("127.0.0.1", self._port), handler)
        httpd.daemon_threads = True
        self._httpd = httpd
        self._thread = threading.Thread(
            target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, name=self.thread_name, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        httpd, self._httpd = self._httpd, None
        if httpd is not None:
            httpd.shutdown()
            httpd.server_close()
        with self._state:
            open_ones, self._connections = list(self._connections), set()
        for connection in open_ones:  # a stopped board answers nobody, kept-alive clients included
            try:
                connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("the board server is not running")
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        """The board's base URL, ending in `/`."""
        return f"http://127.0.0.1:{self.port}/"

    # -- what tests look at and control -------------------------------------------------------------

    @property
    def request_count(self) -> int:
        with self._state:
            return len(self.requests)

    def count(self, path: str | None = None, *, method: str | None = None, query: str | None = None) -> int:
        """Requests received whose path contains `path`, of `method`, whose query contains `query`."""
        with self._state:
            return sum(
                1
                for r in self.requests
                if (path is None or path in r.path)
                and (method is None or r.method == method.upper())
                and (query is None or query in r.query)
            )

    def reset_log(self) -> None:
        with self._state:
            self.requests.clear()

    def session_count(self) -> int:
        return len(self.sessions)

    def expire_sessions(self) -> None:
        """Forget every session: the next request of a client is a guest's, unless the engine remembers it."""
        self.sessions.clear()

    def fail_next(self, n: int = 1, status: int = 503, retry_after: float | None = None) -> None:
        """Answer the next `n` requests with `status` (and `Retry-After`), doing nothing else."""
        self.faults.fail_next(n, Failure(status, retry_after))

    def fail_path(self, substr: str, status: int | None = 503, retry_after: float | None = None) -> None:
        """Answer every request whose path and query contain `substr` with `status`; `status=None` stops."""
        self.faults.fail_path(substr, None if status is None else Failure(status, retry_after))

    def fail_after_acting(self, substr: str, fault: str) -> None:
        """The next request whose path and query contain `substr` (e.g. "POST posting.php"; with "#name",
        only one whose form or query has the field `name`, with "#name=value" that value, e.g.
        "POST ucp.php#post" for the PM's send and not its add-recipients step, or "POST index.php#act=Msg")
        is carried out, and then its answer fails with `fault` (`fakeboard.faults.KINDS`: "503" or "429",
        with ":N" for `Retry-After: N`; "reset", the connection closes with no answer; "slow", the answer
        comes `slow_for` seconds late; "login", the engine's login page; "invalid", its "the form was
        invalid" answer; "cut", the first half of the answer, without a Content-Length, and the connection
        closes: it looks whole to HTTP, as a page cut short by PHP's own server does). A GET's page is
        "acted" on too: "GET viewtopic.php"."""
        self.faults.fail_after_acting(substr, fault)

    def fail_before_acting(self, substr: str, fault: str) -> None:
        """As `fail_after_acting`, but the board does not act on the request: the fault is all it answers."""
        self.faults.fail_before_acting(substr, fault)

    def clear_faults(self) -> None:
        self.faults.clear()

    # -- serving ----------------------------------------------------------------------------------

    def _serve(self, handler: _Handler) -> None:
        arrival = self.clock()
        split = urlsplit(handler.path)
        target = f"{split.path}?{split.query}"
        record = RequestRecord(handler.command, split.path, split.query, arrival)
        with self._state:
            self.requests.append(record)
        length = int(handler.headers.get("Content-Length") or 0)
        raw = handler.rfile.read(length) if length else b""
        failure = self.faults.before_acting(target)
        fault: Fault | None = None
        if failure is not None:
            response = _error_page(failure.status, _retry_after(failure.retry_after))
        else:
            request: Request | None = None
            try:
                request = self._request(handler, split.path, split.query, raw)
                fields = request.query | request.form
                early = self.faults.instead_of_acting(handler.command, target, fields)
                if early is not None:
                    response, fault = self._instead(request, early)
                else:
                    flood = self._flood_memory()
                    response = self._dispatch(request)
                    fault = self.faults.after_acting(handler.command, target, fields)
                    if fault is not None and fault.kind in ("login", "invalid"):
                        response = self._fault_answer(request, fault.kind, flood)
                response.headers.extend(("Set-Cookie", c) for c in request.set_cookies)
                record.user = request.user.name if request.user else None
            except Exception as exc:  # a bug in the fake board: show it, as PHP would print a fatal error
                self.errors.append(traceback.format_exc())
                response = Response(500, f"<h1>Internal error</h1><pre>{type(exc).__name__}: {exc}</pre>".encode())
        if fault is not None and fault.kind in ("reset", "slow"):
            if fault.kind == "slow":
                _time.sleep(self.slow_for)
            if fault.kind == "reset" or response.status == 0:
                record.status = -1
                _drop(handler)
                return
        elif fault is not None and fault.kind in STATUSES:
            response = _error_page(int(fault.kind), _retry_after(fault.retry_after))
        if self.latency > 0:
            _time.sleep(self.latency)
        record.status = response.status
        try:
            self._send(handler, response, cut=fault is not None and fault.kind == "cut")
        except (BrokenPipeError, ConnectionResetError):  # the client gave up waiting ("slow"): a real server moves on
            pass

    def _instead(self, request: Request, fault: Fault) -> tuple[Response, Fault | None]:
        """What answers a request a fault strikes before the board acts on it: the fault's own answer
        (the engine's login page or its "invalid form" answer, a status page), or nothing ("reset", and
        "slow": held, then dropped); "cut" cuts the "invalid form" answer."""
        if fault.kind in ("login", "invalid", "cut"):
            response = self._fault_answer(request, "invalid" if fault.kind == "cut" else fault.kind, None)
            return response, fault if fault.kind == "cut" else None
        if fault.kind in STATUSES:
            return _error_page(int(fault.kind), _retry_after(fault.retry_after)), None
        return Response(0), fault  # reset, slow: no answer at all

    def _fault_answer(self, request: Request, kind: str, flood: dict[int, float] | None) -> Response:
        """The engine's answer for a fault of `kind`: "login", its login page as a guest gets it there;
        "invalid", its answer to the same request with the form token spoiled (`flood`: the flood memory
        before the board acted, so that the request is judged as it was when it came)."""
        if kind == "login":
            return self._login_answer(dataclasses.replace(request, user=None))
        spoiled = self._spoiled(request)
        if flood is None:
            return self._dispatch(spoiled)
        with self._state:  # judged on the flood memory of before it acted; nobody posts meanwhile
            after, self._last_post = self._last_post, flood
            try:
                return self._dispatch(spoiled)
            finally:
                self._last_post = after

    def _login_answer(self, request: Request) -> Response:
        """The engine's login page, as it serves it to a guest at this request's address."""
        raise NotImplementedError(f"{type(self).__name__} serves no login page for a fault")

    def _spoiled(self, request: Request) -> Request:
        """The request with its form token spoiled, as a replay or a stale form would carry it."""
        raise NotImplementedError(f"{type(self).__name__} spoils no form for a fault")

    def _flood_memory(self) -> dict[int, float]:
        with self._state:
            return dict(self._last_post)

    def _send(self, handler: _Handler, response: Response, *, cut: bool = False) -> None:
        """The answer; `cut`: broken off halfway (`_send_cut`)."""
        if cut:
            self._send_cut(handler, response)
            return
        handler.send_response(response.status)
        names = {name.lower() for name, _ in response.headers}
        if "content-type" not in names:
            handler.send_header("Content-Type", "text/html; charset=UTF-8")
        for name, value in (*response.headers, *self.page_headers):
            handler.send_header(name, value)
        handler.send_header("Content-Length", str(len(response.body)))
        handler.end_headers()
        if handler.command != "HEAD":
            handler.wfile.write(response.body)

    def _send_cut(self, handler: _Handler, response: Response) -> None:
        """The answer broken off halfway, with no Content-Length: the first half of its body, then the
        connection closes; a body that is empty (a redirect) breaks off inside its headers."""
        handler.send_response(response.status)
        if not response.body:
            handler.send_header("Content-Type", "text/html; charset=UTF-8")
            handler.flush_headers()
            _drop(handler)
            return
        for name, value in (*response.headers, *self.page_headers):
            handler.send_header(name, value)
        if not any(name.lower() == "content-type" for name, _ in response.headers):
            handler.send_header("Content-Type", "text/html; charset=UTF-8")
        handler.send_header("Connection", "close")
        handler.end_headers()
        handler.wfile.write(response.body[: len(response.body) // 2])
        handler.wfile.flush()
        _drop(handler)

    def _request(self, handler: _Handler, path: str, query: str, raw: bytes) -> Request:
        host = handler.headers.get("Host") or f"127.0.0.1:{self.port}"
        request = Request(
            handler.command,
            path,
            dict(parse_qsl(query, keep_blank_values=True)),
            read_form(handler.headers.get("Content-Type") or "", raw) if handler.command == "POST" else {},
            handler.headers,
            read_cookies(handler.headers.get("Cookie") or ""),
            f"http://{host}/",
            self.clock(),
        )
        self._begin_session(request)
        return request

    def _begin_session(self, request: Request) -> None:
        """Find (or start) the request's session and set `request.session` and `request.user`."""
        raise NotImplementedError

    def _dispatch(self, request: Request) -> Response:
        """The engine's answer to the request."""
        raise NotImplementedError

    # -- what every engine keeps --------------------------------------------------------------------

    def _now(self) -> datetime:
        return datetime.fromtimestamp(self.clock(), UTC)

    def _salt(self, user_id: int) -> str:
        """The member's secret, which its form keys and remembered-login cookies are made from."""
        with self._state:
            return self._salts.setdefault(user_id, secrets.token_hex(8))

    def _member(self, user_id: int) -> User | None:
        """A copy of the member of that id (None for a guest or an unknown id)."""
        with self.board.lock:
            found = self.board._users_by_id.get(user_id)
            return dataclasses.replace(found) if found is not None else None

    def _wait_left(self, last: float | None, interval: float) -> float:
        """Seconds still to wait before acting again, `interval` seconds after `last` (0: now)."""
        if last is None or interval <= 0:
            return 0.0
        return max(0.0, interval - (self.clock() - last))

    def _flood_left(self, user: User) -> float:
        """Seconds before the member may post again under flood control (0: now)."""
        with self._state:
            last = self._last_post.get(user.user_id)
        return self._wait_left(last, self.flood_interval)

    def _posted(self, user: User) -> None:
        with self._state:
            self._last_post[user.user_id] = self.clock()

    def _template(self, template: str, context: Mapping[str, Any]) -> str:
        return self._env.get_template(template).render(**context)


def _retry_after(seconds: float | None) -> list[tuple[str, str]]:
    return [("Retry-After", f"{seconds:g}")] if seconds is not None else []


def _drop(handler: _Handler) -> None:
    """Close the connection now, whatever was sent of the answer."""
    handler.close_connection = True
    try:
        handler.wfile.flush()
    except OSError:
        pass
    try:
        handler.connection.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass


def _error_page(status: int, headers: list[tuple[str, str]] | None = None) -> Response:
    return Response(status, f"<html><body><h1>{status} Error</h1></body></html>".encode(), headers or [])


def redirect(location: str) -> Response:
    return Response(302, b"", [("Location", location)])


def not_found() -> Response:
    body = b"<!DOCTYPE html><html><head><title>404 Not Found</title></head><body><h1>Not Found</h1></body></html>"
    return Response(404, body)


def number(value: str | None) -> int | None:
    """A query's or form's whole number, None when it is missing or not one."""
    if value is None:
        return None
    value = value.strip()
    return int(value) if value.isdigit() else None


def read_form(content_type: str, raw: bytes) -> dict[str, str]:
    """A POSTed form, urlencoded or multipart; a repeated name keeps its last value, as PHP reads it."""
    if content_type.lower().startswith("multipart/form-data"):
        message = BytesParser(policy=HTTP).parsebytes(
            b"Content-Type: " + content_type.encode("latin-1") + b"\r\n\r\n" + raw
        )
        fields: dict[str, str] = {}
        for part in message.iter_parts():
            name = part.get_param("name", header="content-disposition")
            if not isinstance(name, str) or part.get_filename():
                continue
            payload = part.get_payload(decode=True)
            data = payload if isinstance(payload, bytes) else b""
            fields[name] = data.decode(part.get_content_charset() or "utf-8", errors="replace")
        return fields
    charset = "utf-8"
    for piece in content_type.split(";")[1:]:
        key, _, value = piece.strip().partition("=")
        if key.lower() == "charset" and value:
            charset = value.strip('"')
    return dict(parse_qsl(raw.decode(charset, errors="replace"), keep_blank_values=True))
