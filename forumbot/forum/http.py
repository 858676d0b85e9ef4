"""The HTTP core of the forum clients: every request goes through `ForumHttp._request()`.

That one method owns what a polite, robust scraper needs, so the dialect clients in `client.py` only build
URLs and call the pure parsers:

- one `httpx.Client` with a constant User-Agent (phpBB binds a session to it), a cookie jar and timeouts;
- login state: a lazy first login, and one re-login when a login wall is served where content was
  expected (a read is then asked once more; a second wall is `NotLoggedIn`). A write is never sent again
  here: a login page in answer to it is `LoggedOutAnswer` (the session is marked ended), for the writer
  to log in again and look for what it wrote before anything is sent again;
- a per-host rate limit: a token bucket of request starts (an average per minute, a burst that covers a
  topic read), and optionally a minimum interval between two starts (see `RateLimiter`);
- retries with exponential backoff and jitter on timeouts, connection errors, 5xx and 429 (honouring
  `Retry-After`), a bounded number of attempts, then `ForumUnavailable` naming the URL and the last error;
  a form that posts is never sent twice: once it may have reached the board it is `MaybeSent` (a 429 or
  503 answer `BoardBusy`, with the seconds its `Retry-After` asks for);
- a deadline for each whole request and answer, so a board that trickles its bytes cannot hold a run;
- mapping of httpx exceptions, here and nowhere else;
- bounded concurrency (`map_ordered`) for fetching the pages of a topic once their count is known.

Concurrency uses a small thread pool over the synchronous client, not httpx's async API: the rest of
forumbot (CLI, cron job, the host's wing) is synchronous, the per-host rate limit and the forum's patience bound
the useful parallelism to a handful of requests anyway, and threads keep `sleep` injectable and respx
usable without an event loop leaking into every caller.
"""

from __future__ import annotations

import email.utils
import itertools
import random
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from typing import Any, Protocol, TypeVar
from urllib.parse import urlencode, urljoin, urlsplit

import httpx

from forumbot.errors import N_, ConfigError, ForumUnavailable, MaybeSent, NoPermission, NotLoggedIn, ParseError
from forumbot.forum.markup import codec_name, decode_page, sniff_charset

T = TypeVar("T")
R = TypeVar("R")

# A browser-like, constant User-Agent: phpBB ties the session to it, and some boards refuse bare clients.
DEFAULT_USER_AGENT = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0 forumbot/0.1"

# The request budget's default: 2 a second on average, and a quarter of an hour of it (1,800 requests)
# at once, which covers reading a 35,000-post day of 25-post pages with its 200 PMs without a pause.
DEFAULT_REQUESTS_PER_MINUTE = 120
BURST_MINUTES = 15
READ_AHEAD = 3  # requests in flight or answered ahead of the consumer, per unit of concurrency

_IANA = {"cp1251": "windows-1251"}  # codec names as boards write them


class Clock(Protocol):
    """Time as the client sees it; tests pass a fake one so that nothing really waits."""

    def time(self) -> float: ...

    def monotonic(self) -> float: ...

    def sleep(self, seconds: float) -> None: ...


class SystemClock:
    def time(self) -> float:
        return time.time()

    def monotonic(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        if seconds > 0:
            time.sleep(seconds)


@dataclass(frozen=True)
class HttpSettings:
    user_agent: str = DEFAULT_USER_AGENT
    timeout: float = 20.0  # seconds, for connect, read, write and pool alike
    max_attempts: int = 4  # per request, the first one included
    backoff_base: float = 1.0  # first retry waits about this long, then doubles
    backoff_cap: float = 30.0
    max_retry_after: float = 300.0  # a server asking for a longer pause is treated as unavailable
    deadline: float = 60.0  # seconds for one whole request and answer, however slowly the bytes come
    # Politeness, per host (see `RateLimiter`): at most `concurrency` requests in flight, a budget of
    # `requests_per_minute` on average with a burst of `BURST_MINUTES` of it (a topic read at once), and
    # `min_interval` seconds between two starts.
    min_interval: float = 0.0
    requests_per_minute: int = DEFAULT_REQUESTS_PER_MINUTE
    concurrency: int = 4  # pages fetched at once

    @property
    def burst(self) -> int:
        """Requests that may start at once before the average applies: `BURST_MINUTES` of the budget."""
        return self.requests_per_minute * BURST_MINUTES

    def __post_init__(self) -> None:
        if self.max_attempts < 1 or self.concurrency < 1 or self.requests_per_minute < 1:
            raise ConfigError(N_("max_attempts, concurrency and requests_per_minute must be at least 1"))
        if self.timeout <= 0 or self.deadline <= 0 or self.min_interval < 0 or self.backoff_base < 0:
            raise ConfigError(N_("timeout must be positive; min_interval and backoff_base not negative"))


@dataclass(frozen=True)
class Page:
    """One answer of the forum, decoded."""

    url: str  # the final URL, after redirects
    status: int
    content: bytes
    text: str
    charset: str
    # the `Location` of each redirect followed on the way, in order: a write's answer names what it made
    # there (a fragment such as `#entry999` is dropped from `url`)
    locations: tuple[str, ...] = ()
    # The board's clock when it answered (its `Date` header, to the second; None when it sent none): the
    # "now" its relative dates ("5 минут назад") were printed against, whatever our own clock says.
    date: datetime | None = None


class EmptyPage(ParseError):
    """A page asked for its content that came with none: a page cut short before its first byte."""


class RefusedPage(NoPermission):
    """A refusal that came as a page (an error status, or the dialect's no-permission page): `page` is
    what the forum said, for a caller that reads the board's own reason (IPB 3 sends its flood control
    and its other errors with 401 or 403)."""

    def __init__(self, message: str, page: Page, **values: Any) -> None:
        super().__init__(message, **values)
        self.page = page


class LoggedOutAnswer(MaybeSent):
    """A login page in answer to a write: the session had ended. The board may or may not have acted (a
    page replaced on the way proves nothing), so nothing is sent again here: `page` is what came, for the
    writer's own reading; it logs in again and looks for what it wrote first."""

    def __init__(self, message: str, page: Page, **values: Any) -> None:
        super().__init__(message, **values)
        self.page = page


class BoardBusy(MaybeSent):
    """A write answered 429 or 503: refused for now, `wait` seconds as its `Retry-After` asks (None: it
    did not say). A server may act and then answer so, so what it refused is looked for before it is sent
    again."""

    def __init__(self, message: str, status: int, wait: float | None, **values: Any) -> None:
        super().__init__(message, **values)
        self.status = status
        self.wait = wait


class PageRules(Protocol):
    """The dialect's own reading of a page, consulted by `_request()` (pure parser functions)."""

    def is_login_wall(self, html: str) -> bool: ...

    def is_no_permission(self, html: str) -> bool: ...


Authenticate = Callable[["ForumHttp"], None]


class RateLimiter:
    """When the next request to a host may start, shared by all threads: a token bucket and a spacing.

    The bucket bounds the volume: it refills at `per_minute` requests a minute and holds at most `burst`
    of them, full at first. A topic read, a few hundred pages at once, spends the burst and runs at the
    pace the bounded concurrency and the forum's own answers allow; a bot that keeps reading (a loop of
    full re-reads, a long inbox) has spent it and is slowed to the average, `per_minute`. The spacing,
    `min_interval` seconds between two starts, serialises the starts instead: it caps the pace at
    1 / min_interval whatever the forum's speed, so it is off unless a host asks for it.
    """

    def __init__(
        self, min_interval: float, clock: Clock, per_minute: int | None = None, burst: int | None = None
    ) -> None:
        self._interval = min_interval
        self._rate = per_minute / 60.0 if per_minute is not None else None  # tokens a second
        self._burst = float(burst if burst is not None else per_minute or 1)
        self._clock = clock
        self._next_free: dict[str, float] = {}
        self._buckets: dict[str, tuple[float, float]] = {}  # host -> (tokens, when they were counted)
        self._lock = threading.Lock()

    def wait(self, host: str) -> None:
        if self._interval <= 0 and self._rate is None:
            return
        with self._lock:  # reserve a slot, then sleep outside the lock so others can queue behind us
            now = self._clock.monotonic()
            slot = max(now, self._next_free.get(host, now)) if self._interval > 0 else now
            if self._rate is not None:
                slot = max(slot, self._take_token(host, now))
            if self._interval > 0:
                self._next_free[host] = slot + self._interval
        if self._interval > 0 or slot > now:
            self._clock.sleep(slot - now)

    def _take_token(self, host: str, now: float) -> float:
        """Take one token of the host's bucket; when it may be used. A bucket in debt (negative tokens)
        holds the starts already promised: each new one waits for its own token to refill."""
        assert self._rate is not None
        tokens, counted = self._buckets.get(host, (self._burst, now))
        tokens = min(self._burst, tokens + (now - counted) * self._rate) - 1.0
        self._buckets[host] = (tokens, now)
        return now if tokens >= 0 else now - tokens / self._rate


def decode_body(response: httpx.Response) -> tuple[str, str]:
    """The response text and the charset used: the header's, else the page's `<meta>`, else UTF-8; a page
    not in its charset (a windows-1251 board that says UTF-8) is read in the one that decodes it cleanly
    (`markup.decode_page`), so no Cyrillic vote is lost. The charset is named as the board named it."""
    declared = response.charset_encoding or sniff_charset(response.content)
    text, used, _ = decode_page(response.content, declared)
    if declared and codec_name(declared) == used:
        return text, declared
    return text, _IANA.get(used, used)


def retry_after_seconds(value: str | None, now: float) -> float | None:
    """`Retry-After` as seconds to wait: delta-seconds or an HTTP-date (RFC 9110 10.2.3)."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    return max(0.0, when.timestamp() - now)


def encode_multipart(fields: Mapping[str, str] | Sequence[tuple[str, str]], charset: str, boundary: str) -> bytes:
    """A `multipart/form-data` body as a browser sends a form of that `enctype` without files: one part per
    field, in order, each value in the form's charset (characters outside it as `&#N;`)."""
    pairs = list(fields.items()) if isinstance(fields, Mapping) else list(fields)
    parts = [
        f'--{boundary}\r\nContent-Disposition: form-data; name="{_quoted(name)}"\r\n\r\n'.encode(
            charset, "xmlcharrefreplace"
        )
        + value.encode(charset, "xmlcharrefreplace")
        + b"\r\n"
        for name, value in pairs
    ]
    return b"".join(parts) + f"--{boundary}--\r\n".encode("ascii")


def _quoted(name: str) -> str:
    """A field name as browsers write it in a part's header (quotes and line breaks escaped)."""
    return name.replace('"', "%22").replace("\r", "%0D").replace("\n", "%0A")


def answer_date(response: httpx.Response) -> datetime | None:
    """The instant an answer's `Date` header names (RFC 9110 6.6.1: the origin server's clock when it made the
    answer), None when it has none or an unreadable one."""
    value = response.headers.get("Date")
    if not value:
        return None
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


def encode_form(fields: Mapping[str, str] | Sequence[tuple[str, str]], charset: str) -> bytes:
    """A urlencoded body in the form's own charset, as a browser would send it.

    A windows-1251 board expects windows-1251 bytes; characters outside it go as `&#N;`, like browsers do.
    """
    pairs = list(fields.items()) if isinstance(fields, Mapping) else list(fields)
    return urlencode(pairs, encoding=charset, errors="xmlcharrefreplace").encode("ascii")


class ForumHttp:
    """The HTTP session of one forum account. Thread-safe: pages of a topic are fetched in parallel."""

    def __init__(
        self,
        base_url: str,
        rules: PageRules,
        *,
        authenticate: Authenticate | None = None,
        settings: HttpSettings | None = None,
        clock: Clock | None = None,
        transport: httpx.BaseTransport | None = None,
        rng: random.Random | None = None,
    ) -> None:
        self.base_url = normalise_base_url(base_url)
        self.settings = settings or HttpSettings()
        self.clock: Clock = clock or SystemClock()
        self._rules = rules
        self._authenticate = authenticate
        self._rng = rng or random.Random()
        self._limiter = RateLimiter(
            self.settings.min_interval, self.clock, self.settings.requests_per_minute, self.settings.burst
        )
        self._login_lock = threading.RLock()
        self._login_generation = 0  # bumped on every successful login; lets threads share one re-login
        self._logged_in = False
        self._pool: ThreadPoolExecutor | None = None
        self._pool_lock = threading.Lock()
        self._client = httpx.Client(
            headers={"User-Agent": self.settings.user_agent},
            timeout=self.settings.timeout,
            follow_redirects=True,
            transport=transport,
        )

    # -- URLs ---------------------------------------------------------------------------------------

    def url(self, path_and_query: str) -> str:
        """An address on this board from a path relative to the board root (`viewtopic.php?t=2`)."""
        return urljoin(self.base_url, path_and_query.removeprefix("/").removeprefix("./"))

    def rebase(self, link: str) -> str:
        """A link found in a page, moved onto our own base URL.

        Captured or proxied pages carry absolute links to another host (`http://127.0.0.1:8181/...`), and
        relative ones start with `./`; the script name and query are all that identify a board page.
        """
        parts = urlsplit(link)
        script = parts.path.rsplit("/", 1)[-1]
        return self.url(script + (f"?{parts.query}" if parts.query else ""))

    # -- login state --------------------------------------------------------------------------------

    @property
    def logged_in(self) -> bool:
        return self._logged_in

    @property
    def can_login(self) -> bool:
        return self._authenticate is not None

    def cookies(self) -> dict[str, str]:
        return {cookie.name: cookie.value or "" for cookie in self._client.cookies.jar}

    def session_cookies(self) -> list[tuple[str, str, str, str]]:
        """(name, value, domain, path) of every cookie the board set: the session a later run may resume."""
        return [(cookie.name, cookie.value or "", cookie.domain, cookie.path) for cookie in self._client.cookies.jar]

    def restore_cookies(self, cookies: Iterable[Sequence[str]]) -> None:
        """Cookies an earlier run kept (`session_cookies`): the login then finds the board knowing us, or the
        board refuses them and the login is made anew."""
        for name, value, domain, path in cookies:
            self._client.cookies.set(name, value, domain=domain, path=path)

    def login(self) -> None:
        """Log in now (the dialect's form dance); raises `LoginFailed` with the forum's message."""
        if self._authenticate is None:
            raise NotLoggedIn(N_("{base_url}: no credentials configured, cannot log in"), base_url=self.base_url)
        with self._login_lock:
            self._authenticate(self)
            self._logged_in = True
            self._login_generation += 1

    def _ensure_login(self) -> None:
        if self._authenticate is not None and not self._logged_in:
            with self._login_lock:
                if not self._logged_in:  # another thread may have logged in while we waited
                    self.login()

    def _logged_out(self, seen_generation: int) -> None:
        """The session ended (a login page came): the next request logs in first."""
        with self._login_lock:
            if self._login_generation == seen_generation:
                self._logged_in = False

    def _relogin(self, seen_generation: int) -> None:
        with self._login_lock:
            if self._login_generation == seen_generation:  # nobody re-logged in since our request left
                self._logged_in = False
                self.login()

    # -- requests -----------------------------------------------------------------------------------

    def get(self, url: str, *, content: bool = True) -> Page:
        """GET a page. `content=True`: a login wall or a no-permission page there is an error."""
        page = self._request("GET", url, content=content)
        return _not_empty(url, page) if content else page

    def post(
        self,
        url: str,
        fields: Mapping[str, str] | Sequence[tuple[str, str]],
        *,
        charset: str = "utf-8",
        content: bool = False,
        idempotent: bool = True,
        multipart: bool = False,
    ) -> Page:
        """POST a form, urlencoded (or `multipart`, as a form of that `enctype` is sent). `idempotent=False`
        retries only when the request surely never arrived."""
        if multipart:
            boundary = f"----forumbot{secrets.token_hex(12)}"
            body = encode_multipart(fields, charset, boundary)
            headers = {"Content-Type": f"multipart/form-data; boundary={boundary}"}
        else:
            body = encode_form(fields, charset)
            headers = {"Content-Type": f"application/x-www-form-urlencoded; charset={charset}"}
        return self._request("POST", url, body=body, headers=headers, content=content, idempotent=idempotent)

    def _request(
        self,
        method: str,
        url: str,
        *,
        body: bytes | None = None,
        headers: Mapping[str, str] | None = None,
        content: bool = True,
        idempotent: bool = True,
    ) -> Page:
        """The choke point: login state, rate limit, retries, decoding and the mapping of every failure."""
        if content:
            self._ensure_login()
        generation = self._login_generation
        response = self._send(method, url, body, headers, idempotent)
        page = self._accept(url, response, content=content)
        if page is None and not idempotent:  # a write is never sent twice: the writer decides
            self._logged_out(generation)
            text, charset = decode_body(response)
            answer = Page(
                str(response.url), response.status_code, response.content, text, charset, date=answer_date(response)
            )
            raise LoggedOutAnswer(
                N_("{url}: the forum answered with its login page; the session had ended"), answer, url=url
            )
        if page is None:  # a login wall: log in again (once for all threads) and ask once more
            self._relogin(generation)
            page = self._accept(url, self._send(method, url, body, headers, idempotent), content=content)
            if page is None:
                raise NotLoggedIn(N_("{url}: the forum served its login page instead of the content"), url=url)
        return page

    def _accept(self, url: str, response: httpx.Response, *, content: bool) -> Page | None:
        """The answer decoded and checked: None for a login wall where content was expected (and a
        login is possible), an error for a refusal or an error status."""
        text, charset = decode_body(response)
        hops = tuple(hop.headers.get("location", "") for hop in response.history)
        page = Page(
            str(response.url),
            response.status_code,
            response.content,
            text,
            charset,
            locations=hops,
            date=answer_date(response),
        )
        if content and page.status < 400:
            _not_empty(url, page)  # before the rules, which cannot read a page of nothing
        if content and self._rules.is_login_wall(text):
            if self._authenticate is None:
                raise NotLoggedIn(N_("{url}: the forum served its login page instead of the content"), url=url)
            return None
        if content and self._rules.is_no_permission(text):
            raise RefusedPage(N_("{url}: the forum says this account may not see this page"), page, url=url)
        return _check_status(url, page)

    def get_each(self, urls: Iterable[str]) -> Iterator[Callable[[], Page]]:
        """GET pages `concurrency` at a time; for each URL in order, a call that returns its page (or
        raises its error), made in the caller's thread.

        The workers only move bytes (rate limit, retries, the exchange): decoding, the login-wall check
        and the parse that follows run in the consuming thread, so that a fetch never waits for the
        GIL behind another thread's parse, and the parse of one page overlaps the fetch of the next."""
        urls = list(urls)
        self._ensure_login()
        generation = self._login_generation
        if self.settings.concurrency == 1 or len(urls) <= 1:
            yield from (partial(self.get, url) for url in urls)
            return
        # A window of requests ahead of the consumer, not all at once: the answers wait in memory only
        # until their turn, and a page consumed releases its bytes (a 35,000-post day is 1,400 pages).
        pending: deque[tuple[str, Future[httpx.Response]]] = deque()
        ahead = iter(urls)
        try:
            for url in itertools.islice(ahead, READ_AHEAD * self.settings.concurrency):
                pending.append((url, self._executor().submit(self._send, "GET", url, None, None, True)))
            while pending:
                url, future = pending.popleft()
                for more in itertools.islice(ahead, 1):
                    pending.append((more, self._executor().submit(self._send, "GET", more, None, None, True)))
                yield partial(self._received, url, future, generation)
                del future  # the answer goes with the page that was made of it
        finally:
            for _, future in pending:
                future.cancel()

    def _received(self, url: str, future: Future[httpx.Response], generation: int) -> Page:
        page = self._accept(url, future.result(), content=True)
        if page is None:  # the session ended while the pages were on their way: log in again, ask again
            self._relogin(generation)
            page = self._accept(url, self._send("GET", url, None, None, True), content=True)
            if page is None:
                raise NotLoggedIn(N_("{url}: the forum served its login page instead of the content"), url=url)
        return _not_empty(url, page)

    def _send(
        self,
        method: str,
        url: str,
        body: bytes | None,
        headers: Mapping[str, str] | None,
        idempotent: bool,
    ) -> httpx.Response:
        """Send with rate limit and retries; map httpx's exceptions (the only place that sees them).

        A request that is not idempotent (a form that posts, sends or locks) is sent again only when it
        surely never reached the board (the connection was refused). Once it may have arrived — any
        answer, 503 and 429 included, a timeout, a reset — the board may have acted on it, and sending
        it again could post twice: that is `MaybeSent`, for the caller to look for what it wrote."""
        attempts = self.settings.max_attempts
        host = urlsplit(url).netloc
        last_error = "no attempt made"
        for attempt in range(1, attempts + 1):
            self._limiter.wait(host)
            delay: float | None = None
            try:
                response = self._exchange(method, url, body, headers)
            except (httpx.ConnectError, httpx.ConnectTimeout) as exc:  # never reached the server
                last_error = f"{type(exc).__name__}: {exc}"
            except httpx.TransportError as exc:  # timeouts, resets, a body too slow: it may have arrived
                last_error = f"{type(exc).__name__}: {exc or 'timed out'}"
                if not idempotent:
                    raise MaybeSent(
                        N_("{url}: {last_error}; the board may have acted on it"), url=url, last_error=last_error
                    ) from exc
            except httpx.InvalidURL as exc:
                raise ConfigError(N_("{url}: not a usable URL ({error})"), url=url, error=exc) from exc
            except httpx.HTTPError as exc:  # too many redirects, broken encoding: retrying will not help
                raise ForumUnavailable(
                    N_("{url}: {kind}: {error}"), url=url, kind=type(exc).__name__, error=exc
                ) from exc
            else:
                status = response.status_code
                if status != 429 and status < 500:
                    return response
                if not idempotent and response.history:
                    # The form was accepted (the forum redirected): only the page it sent us to failed.
                    # Fetch that page again; sending the form again would post twice. The redirects that
                    # named what the form made stay with the answer.
                    again = self._send("GET", str(response.url), None, None, True)
                    again.history = [*response.history, *again.history]
                    return again
                last_error = f"HTTP {status} {response.reason_phrase}".rstrip()
                delay = retry_after_seconds(response.headers.get("Retry-After"), self.clock.time())
                if not idempotent and status in (429, 503):
                    if delay is None:
                        raise BoardBusy(
                            N_("{url}: {last_error}; the board may have acted on it"),
                            status,
                            delay,
                            url=url,
                            last_error=last_error,
                        )
                    raise BoardBusy(
                        N_("{url}: {last_error}, asks to wait {delay:g} s; the board may have acted on it"),
                        status,
                        delay,
                        url=url,
                        last_error=last_error,
                        delay=delay,
                    )
                if not idempotent:
                    raise MaybeSent(
                        N_("{url}: {last_error}; the board may have acted on it"), url=url, last_error=last_error
                    )
                if delay is not None and delay > self.settings.max_retry_after:
                    last_error += f" (asks to retry after {delay:.0f} s)"
                    break
            if attempt < attempts:
                self.clock.sleep(delay if delay is not None else self._backoff(attempt))
        raise ForumUnavailable(
            N_("{url}: giving up after {attempt} attempt(s); last error: {last_error}"),
            url=url,
            attempt=attempt,
            last_error=last_error,
        )

    def _exchange(self, method: str, url: str, body: bytes | None, headers: Mapping[str, str] | None) -> httpx.Response:
        """One request and its whole answer, within `settings.deadline` seconds from first byte sent to
        last byte read: a board that trickles its answer is as unavailable as one that never answers."""
        started = time.monotonic()
        limit = self.settings.deadline
        with self._client.stream(method, url, content=body, headers=headers) as response:
            chunks: list[bytes] = []
            for chunk in response.iter_bytes():
                chunks.append(chunk)
                if time.monotonic() - started > limit:
                    raise httpx.ReadTimeout(f"the answer took more than {limit:g} s", request=response.request)
            if time.monotonic() - started > limit:
                raise httpx.ReadTimeout(f"the answer took more than {limit:g} s", request=response.request)
        return httpx.Response(
            response.status_code,
            headers=response.headers,
            content=b"".join(chunks),
            request=response.request,
            history=response.history,
            extensions={"reason_phrase": response.reason_phrase.encode()},
        )

    def _backoff(self, attempt: int) -> float:
        """Exponential backoff, "equal jitter": half fixed, half random, so clients do not march in step."""
        ceiling: float = min(self.settings.backoff_cap, self.settings.backoff_base * 2.0 ** (attempt - 1))
        return ceiling / 2 + self._rng.uniform(0, ceiling / 2)

    # -- concurrency --------------------------------------------------------------------------------

    def map_ordered(self, fn: Callable[[T], R], items: Iterable[T]) -> Iterator[R]:
        """`fn` over `items` with at most `concurrency` at once; results in the order of `items`.

        Results are yielded as soon as they are ready in order; on an error the pending calls are cancelled.
        """
        items = list(items)
        if self.settings.concurrency == 1 or len(items) <= 1:
            yield from map(fn, items)
            return
        futures: list[Future[R]] = [self._executor().submit(fn, item) for item in items]
        try:
            for future in futures:
                yield future.result()
        finally:
            for future in futures:
                future.cancel()

    def _executor(self) -> ThreadPoolExecutor:
        with self._pool_lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self.settings.concurrency, thread_name_prefix="forum-fetch")
            return self._pool

    def close(self) -> None:
        with self._pool_lock:
            if self._pool is not None:
                self._pool.shutdown(wait=True, cancel_futures=True)
                self._pool = None
        self._client.close()


def normalise_base_url(base_url: str) -> str:
    """The board root with a trailing slash, so that `urljoin` keeps the folder (`/forum/`)."""
    parts = urlsplit(base_url.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ConfigError(N_("{base_url!r}: the forum address must be an http(s) URL"), base_url=base_url)
    path = parts.path
    if path.endswith((".php", ".html")):  # someone pasted a page address: keep its folder
        path = path.rsplit("/", 1)[0] + "/"
    if not path.endswith("/"):
        path += "/"
    return f"{parts.scheme}://{parts.netloc}{path}"


def _not_empty(url: str, page: Page) -> Page:
    """A page asked for its content that came empty: said with its address, not as a bare "empty page"."""
    if not page.text or page.text.isspace():  # not `strip()`: a copy of the whole page, twice a page
        raise EmptyPage(N_("{url}: the forum sent an empty page"), url=url)
    return page


def _check_status(url: str, page: Page) -> Page:
    """An error status the dialect did not already explain, as an error of our tree."""
    if page.status in (401, 403):
        raise RefusedPage(
            N_("{url}: HTTP {status}, the account may not see this page"), page, url=url, status=page.status
        )
    if page.status in (404, 410):
        raise ParseError(N_("{url}: HTTP {status}, no such page on the forum (wrong id?)"), url=url, status=page.status)
    if page.status >= 400:
        raise ForumUnavailable(N_("{url}: HTTP {status}"), url=url, status=page.status)
    return page
