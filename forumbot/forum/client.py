"""Forum clients: the one interface (`ForumClient`) every engine's reader offers, and what the network
readers share (`HttpForumClient`).

Each engine's `reader.py` only names its URL table, fetches through `ForumHttp` (the single request
choke point, see `http.py`) and hands the pages to its pure readers (`pages.py`); the algorithms (all
pages of a topic, all pages of the inbox, one PM) are written once, here. The registry
(`forumbot.forum.registry.open_client`) opens the client of a game's engine.

    client = open_client(ClientSettings(forum="https://forum.example/", username="bot", password="..."))
    with rich.progress.Progress() as bar:             # the caller owns the display
        task = bar.add_task("Reading the day topic", total=None)
        report = lambda done, total: bar.update(task, completed=done, total=total)
        pages = list(client.fetch_topic(1234, progress=report))
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, timezone, tzinfo
from pathlib import Path
from types import TracebackType
from typing import ClassVar, Protocol, runtime_checkable
from urllib.parse import parse_qs, urlsplit
from zoneinfo import ZoneInfo

import httpx

from forumbot.errors import N_, ConfigError, ForumbotError, ForumError, LoginFailed, PageCutShort, ParseError
from forumbot.forum.dialect import Opening, PageKind, UrlTable
from forumbot.forum.http import Clock, EmptyPage, ForumHttp, HttpSettings, Page
from forumbot.forum.markup import BodyReader, Element, has_class, parse_html, text_of
from forumbot.posts import PmSummary, Preferences, PrivateMessage, TopicPage

Progress = Callable[[int, int], None]  # (pages fetched so far, pages in the topic as known now)

MAX_GROWTH = 20  # pages a topic may gain while it is read (new posts spill over); more is a broken board
MAX_INBOX_PAGES = 200  # a guard against pagination that loops; 200 pages of PMs is far beyond a game
# A page that does not prove it came whole is asked for again this many times (after REFETCH_PAUSE, twice
# that...), then the read stops: a board whose pages keep breaking is one to read later, not to half-read.
REFETCHES = 2
REFETCH_PAUSE = 1.0


class ForumClient(Protocol):
    """What the rest of forumbot may ask of a forum, whatever engine runs it."""

    @property
    def forum(self) -> str:
        """A stable name of the board (base URL or folder), the key of its cached pages."""
        ...

    def login(self) -> None: ...

    def topic_id(self, topic: str | int) -> int:
        """The topic's id from an id or a topic URL."""
        ...

    def fetch_topic(
        self,
        topic: str | int,
        *,
        from_page: int = 1,
        page_size: int | None = None,
        progress: Progress | None = None,
        on_body: BodyReader | None = None,
    ) -> Iterator[TopicPage]:
        """Every page of the topic from `from_page` on, in order (`page_size` spares learning it).
        `on_body` sees each post body as its page is parsed (see `BodyReader`; saved pages were parsed
        when their folder was loaded)."""
        ...

    def fetch_inbox(self) -> list[PmSummary]: ...

    def fetch_pm(self, pm: PmSummary | int) -> PrivateMessage: ...

    def fetch_pms(self, pms: Sequence[PmSummary]) -> Iterator[PrivateMessage | ForumbotError]:
        """Each PM in turn (fetched in parallel where the forum is a network one), or the error that
        kept it from being read: one unreadable PM never stops the others."""
        ...

    def exact_pm_time(self, pm_id: int) -> datetime | None:
        """The PM's send time to the second, where the forum can tell it (None where it cannot)."""
        ...

    @property
    def account(self) -> str | None:
        """The name of the account the client reads as (None: no login, saved pages)."""
        ...

    def close(self) -> None: ...


@runtime_checkable
class ResumesSessions(Protocol):
    """A client whose board session outlives the process (`HttpForumClient`): `kept_session` once logged in,
    `resume_session` before the first request of the next run."""

    def kept_session(self) -> str | None: ...

    def resume_session(self, kept: str) -> None: ...


@runtime_checkable
class AccountPreferences(Protocol):
    """A client whose board keeps the account's own language, zone and date format (phpBB's)."""

    def preferences(self) -> Preferences:
        """The account's preferences as the board shows them."""
        ...

    def relative_format(self, dateformat: str) -> bool:
        """Whether the board prints fresh dates in `dateformat` relative ("5 минут назад")."""
        ...


@dataclass(frozen=True)
class ClientSettings:
    """How to reach a forum. `forum` is the board's base URL, or a folder of saved pages."""

    forum: str
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    dialect: str = "auto"  # an engine's name (see the registry), or "auto": the board's address and markup tell
    http: HttpSettings = field(default_factory=HttpSettings)
    # The bot account's time zone on the board, in which plain-text dates are printed. None: phpBB UTC
    # (its post times are machine-readable anyway); IPB 2.x: inferred from the page footer's "now".
    tz: str | None = None
    now: datetime | None = None  # saved pages: the instant relative dates are resolved against


class AccountSettings(Protocol):
    """The shape of `forumbot.config.Settings` that a client needs (not imported: forum/ stays low)."""

    username: str | None
    base_url: str | None
    user_agent: str | None
    concurrency: int
    min_interval: float
    timeout: float

    @property
    def password(self) -> object: ...  # a pydantic SecretStr, or a plain string


class ForumSource(Protocol):
    """The shape of `forumbot.config.ForumConfig`: which engine, and where."""

    @property
    def engine(self) -> str: ...

    @property
    def base_url(self) -> str | None: ...

    @property
    def saved_pages(self) -> Path | None: ...


def topic_number(topic: str | int, params: Sequence[str] = ("t", "showtopic")) -> int | None:
    """A topic's number from its number or a topic URL (the query parameter that names it: phpBB's `t`,
    IPB's `showtopic`), or None."""
    if isinstance(topic, int):
        return topic
    text = topic.strip()
    if text.isdigit():
        return int(text)
    query = parse_qs(urlsplit(text).query)
    for name in params:
        value = query.get(name, [""])[0]
        if value.isdigit():
            return int(value)
    return None


class HttpForumClient:
    """The shared algorithms of the network clients; dialects fill in the URL table and the hooks."""

    dialect: ClassVar[str]
    urls: ClassVar[UrlTable]
    offset_param: ClassVar[str]  # the query parameter the topic pages' own links carry their offset in
    # Whether a kept session is worth resuming: the dialect's login first asks the board whether it knows us.
    resumes_sessions: ClassVar[bool] = False

    def __init__(
        self,
        base_url: str,
        *,
        username: str | None = None,
        password: str | None = None,
        settings: HttpSettings | None = None,
        clock: Clock | None = None,
        transport: httpx.BaseTransport | None = None,
        tz: str | tzinfo | None = None,
    ) -> None:
        if bool(username) != bool(password):
            raise ConfigError(N_("forum username and password go together: give both or neither"))
        self._credentials: tuple[str, str] | None = (username, password) if username and password else None
        self.tz: tzinfo | None = zone_named(tz) if tz is not None else None
        self._parsed = threading.local()  # per fetching thread: the latest page's text and tree
        self._zone_lock = threading.Lock()
        self._account_zone: tzinfo | None = None
        self._board_ahead: float | None = None  # seconds the board's clock is ahead of ours, as last seen
        self.http = ForumHttp(
            base_url,
            self,
            authenticate=self._authenticate if self._credentials else None,
            settings=settings,
            clock=clock,
            transport=transport,
        )

    @classmethod
    def opened(cls, settings: ClientSettings, opening: Opening) -> HttpForumClient:
        """The client of `settings` (a dialect's reader factory: see `forumbot.forum.dialect`)."""
        return cls(
            settings.forum,
            username=settings.username,
            password=settings.password,
            settings=settings.http,
            clock=opening.clock,
            transport=opening.transport,
            tz=settings.tz,
        )

    # -- hooks of a dialect ---------------------------------------------------------------------

    def is_login_wall(self, html: str) -> bool:
        raise NotImplementedError

    def is_no_permission(self, html: str) -> bool:
        raise NotImplementedError

    def _authenticate(self, http: ForumHttp) -> None:
        raise NotImplementedError

    def _parse_topic(self, page: Page, on_body: BodyReader | None = None) -> TopicPage:
        raise NotImplementedError

    def _parse_inbox(self, page: Page) -> tuple[list[PmSummary], str | None]:
        raise NotImplementedError

    def _inbox_page_count(self, page: Page) -> int:
        """How many pages the inbox has, as the pagination of `page` (its first) tells; 1 when it cannot tell
        (the pages are then followed one link at a time)."""
        return 1

    def _parse_pm(self, page: Page) -> PrivateMessage:
        raise NotImplementedError

    def _parse_login_form(self, page: Page) -> dict[str, str]:
        raise NotImplementedError

    def _unproven(self, page: Page, kind: PageKind) -> str | None:
        """What keeps `page`, read as `kind`, from proving it came whole (the engine's `pages.unproven`)."""
        raise NotImplementedError

    # -- the interface --------------------------------------------------------------------------

    @property
    def forum(self) -> str:
        return self.http.base_url

    @property
    def account(self) -> str | None:
        return self._credentials[0] if self._credentials else None

    def exact_pm_time(self, pm_id: int) -> datetime | None:
        return None

    def login(self) -> None:
        self.http.login()

    def kept_session(self) -> str | None:
        """The board's session (its cookies, as JSON) once logged in, for the next run to resume; None where
        resuming saves nothing (the dialect's login cannot tell a session the board still knows)."""
        if not self.resumes_sessions or not self.http.logged_in:
            return None
        return json.dumps(self.http.session_cookies())

    def resume_session(self, kept: str) -> None:
        """A session an earlier run kept (`kept_session`), used until the board refuses it: the login finds
        the board knowing us and posts nothing, else it logs in anew (and the new session is kept)."""
        if self.resumes_sessions:
            try:
                self.http.restore_cookies(json.loads(kept))
            except (ValueError, TypeError):  # a kept session that does not read is no session: log in
                pass

    def close(self) -> None:
        self.http.close()

    def __enter__(self) -> HttpForumClient:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def topic_id(self, topic: str | int) -> int:
        found = topic_number(topic, self.urls.topic_params)
        if found is None:
            raise ConfigError(
                N_("{topic!r}: not a topic id or a {dialect} topic URL"), topic=topic, dialect=self.dialect
            )
        return found

    def fetch_topic(
        self,
        topic: str | int,
        *,
        from_page: int = 1,
        page_size: int | None = None,
        progress: Progress | None = None,
        on_body: BodyReader | None = None,
    ) -> Iterator[TopicPage]:
        """Every page from `from_page` on: the first alone (it tells the page count), the rest in parallel.

        Pages are addressed by offset, so without `page_size` a later `from_page` costs one extra request
        (page 1, whose link to page 2 gives the size). Pages that appear while we read are read too.
        """
        tid = self.topic_id(topic)
        if from_page < 1:
            raise ValueError(f"from_page must be 1 or more, not {from_page}")
        first: TopicPage | None = None
        if from_page > 1 and page_size is None:
            probe = self._topic_page(tid, 1, 0, on_body)
            page_size = page_size_of(probe, self.offset_param)
            if page_size is None:  # a single page: the forum would clamp any later page to it
                first = probe
        if first is None:
            first = self._topic_page(tid, from_page, page_size or 0, on_body)
        size = page_size or page_size_of(first, self.offset_param)
        seen, count = {first.page}, first.page_count
        report(progress, 1, count - first.page + 1)
        yield first
        next_page = first.page + 1
        while next_page <= count:
            if count > first.page_count + MAX_GROWTH:
                raise ParseError(
                    N_(
                        "{url}: the topic's pages keep claiming more pages ({page_count} at first, {count} now); "
                        "stopped reading"
                    ),
                    url=first.url,
                    page_count=first.page_count,
                    count=count,
                )
            if size is None:
                raise ParseError(
                    N_("{url}: page {page} of {count}, but no link to the next page"),
                    url=first.url,
                    page=first.page,
                    count=count,
                )
            wanted, grown = range(next_page, count + 1), count
            for page in self._topic_pages(tid, wanted, size, on_body):
                grown = max(grown, page.page_count)  # posts may spill onto new pages while we read
                if page.page in seen:  # the topic shrank and the forum clamped us to its last page
                    continue
                seen.add(page.page)
                report(progress, len(seen), grown - first.page + 1)
                yield page
            next_page, count = count + 1, grown

    def fetch_inbox(self) -> list[PmSummary]:
        """Every PM listed in the inbox, all pages, in the forum's order: the first page alone (its pagination
        tells how many there are), the others `concurrency` at a time, each proving it came whole and read in
        page order; a page that appeared meanwhile is followed by the last one's link to it."""
        visited: set[str] = set()
        found: dict[int, PmSummary] = {}

        def read(page_url: str, fetched: Callable[[], Page] | None = None, *, first: bool = False) -> str | None:
            visited.add(page_url)
            page = self.whole(page_url, "pm_inbox", fetched)
            count = self._inbox_page_count(page) if first else 1
            summaries, next_link = self._parse_inbox(page)
            for summary in summaries:
                found.setdefault(summary.pm_id, summary)
            following = self.http.rebase(next_link) if next_link else None
            if first and following is not None:
                later.extend(later_pages(following, min(count, MAX_INBOX_PAGES)))
            return following

        later: list[str] = []
        url = read(self.http.url(self.urls.inbox), first=True)
        if later and url == later[0]:
            for page_url, fetched in zip(later, self.http.get_each(later), strict=True):
                url = read(page_url, fetched)
        while url is not None and url not in visited and len(visited) < MAX_INBOX_PAGES:
            url = read(url)
        return list(found.values())

    def fetch_pm(self, pm: PmSummary | int) -> PrivateMessage:
        """One PM, by id or inbox row (the URL is built from the id: captured links may name another host)."""
        pm_id = pm.pm_id if isinstance(pm, PmSummary) else int(pm)
        return self._parse_pm(self.whole(self.http.url(self.urls.pm.format(pm=pm_id)), "pm"))

    def fetch_pms(self, pms: Sequence[PmSummary]) -> Iterator[PrivateMessage | ForumbotError]:
        """The PMs fetched `concurrency` at a time, in the given order, each parsed in this thread. One that
        cannot be read is handed over as its error; one that keeps coming cut short stops the read."""
        urls = [self.http.url(self.urls.pm.format(pm=pm.pm_id)) for pm in pms]
        for url, fetched in zip(urls, self.http.get_each(urls), strict=True):
            try:
                yield self._parse_pm(self.whole(url, "pm", fetched))
            except PageCutShort:
                raise
            except (ParseError, ForumError) as exc:  # one unreadable PM never stops the others
                yield exc

    def whole(self, url: str, kind: PageKind, fetched: Callable[[], Page] | None = None) -> Page:
        """The page at `url` (the answer `fetched` gives, if given), read as `kind`, once it proves it came
        whole: it reaches its end and holds its footer and what its pagination promises (the engine's
        `pages.unproven`). HTTP alone cannot tell: a board that sends no Content-Length (PHP's own server,
        many others) hands over a page cut halfway as if it were all. A page that does not prove it is asked
        for again, `REFETCHES` times; then the read stops with `PageCutShort`, naming the page and what it
        lacks, and nothing of it is counted."""
        missing = ""
        for attempt in range(REFETCHES + 1):
            if attempt:
                self.http.clock.sleep(REFETCH_PAUSE * attempt)
            try:
                page = fetched() if fetched is not None and not attempt else self.http.get(url)
            except EmptyPage:  # cut before its first byte
                missing = "it is empty"
                continue
            lacking = self._unproven(page, kind)
            if lacking is None:
                return page
            missing = lacking
        raise PageCutShort(
            f"{url}: the page came cut short {REFETCHES + 1} times ({missing}); stopped reading, "
            "nothing of it was counted"
        )

    # -- helpers --------------------------------------------------------------------------------

    def _topic_page(self, topic: int, number: int, size: int, on_body: BodyReader | None = None) -> TopicPage:
        return self._parse_topic(self.whole(self._topic_url(topic, number, size), "topic"), on_body)

    def _topic_pages(
        self, topic: int, numbers: Sequence[int], size: int, on_body: BodyReader | None = None
    ) -> Iterator[TopicPage]:
        """The pages `numbers`, fetched `concurrency` at a time, each parsed in this thread as it arrives
        (never in a fetching thread: see `ForumHttp.get_each`)."""
        urls = [self._topic_url(topic, n, size) for n in numbers]
        return (
            self._parse_topic(self.whole(url, "topic", fetched), on_body)
            for url, fetched in zip(urls, self.http.get_each(urls), strict=True)
        )

    def _topic_url(self, topic: int, number: int, size: int) -> str:
        return self.http.url(self.urls.topic_url(topic, (number - 1) * size))

    def _credentials_or_fail(self) -> tuple[str, str]:
        if self._credentials is None:
            raise LoginFailed(N_("{forum}: no username and password configured"), forum=self.forum)
        return self._credentials

    def _now(self) -> datetime:
        return datetime.fromtimestamp(self.http.clock.time(), tz=self.tz or UTC)

    def _board_now(self, page: Page) -> datetime:
        """The board's clock when it made `page`, the "now" of its relative dates: the `Date` its answer
        carried; for an answer without one, our clock moved by what the board's last dated answer showed
        (our own clock alone only while the board never said its time). Never simply our clock: the bot's
        machine and the board's may disagree by minutes, and a PM read against the wrong one is late."""
        ours = self.http.clock.time()
        with self._zone_lock:
            if page.date is not None:
                self._board_ahead = page.date.timestamp() - ours
                return page.date.astimezone(self.tz or UTC)
            ahead = self._board_ahead or 0.0
        return datetime.fromtimestamp(ours + ahead, tz=self.tz or UTC)

    def _tree(self, html: str, *, last_use: bool = False) -> Element:
        """The page parsed once for all its readers in the thread that fetched it: `_request()` asks the
        rules whether it is a login wall or a refusal, then the dialect's parser reads it. A page of 25
        posts takes longer to parse than a nearby forum takes to send it, so it is parsed once, not three
        times. `last_use` (the parser's call) forgets the tree."""
        memo: tuple[str, Element] | None = getattr(self._parsed, "page", None)
        if memo is not None and memo[0] is html:
            root = memo[1]
        else:
            root = parse_html(html)
            self._parsed.page = (html, root)
        if last_use:
            self._parsed.page = None
        return root


# -- small helpers ----------------------------------------------------------------------------------


def page_size_of(page: TopicPage, param: str) -> int | None:
    """Posts per page, from the offsets (query parameter `param`) in the page's own links (`start=10` on
    page 1 -> 10)."""
    if page.per_page:  # the page said it itself (IPB 3's page-jump script)
        return page.per_page
    for link, number in ((page.next_url, page.page + 1), (page.url, page.page)):
        if link and number > 1:
            value = parse_qs(urlsplit(link).query).get(param, [""])[0]
            if value.isdigit() and int(value) > 0:
                return int(value) // (number - 1)
    return None


_ERROR_CLASSES = ("error", "errorwrap", "errorbox", "message-error")


# How a list's later pages are addressed in their links: by their first item's offset, or by their number.
_PAGE_OFFSET = re.compile(r"(?<=[?&])(start|st|page)=(\d+)")


def later_pages(second: str, count: int) -> list[str]:
    """The URLs of the pages 2..`count` of a list whose page 2 is at `second`: its offset (`start`, `st`: page
    2's is the page size) or its number (`page`) set for each page, the rest of the link as the board wrote
    it. Nothing when the link says neither (the pages are then followed one link at a time)."""
    m = _PAGE_OFFSET.search(second)
    if m is None or count < 2:
        return []
    step = int(m[2]) if m[1] != "page" else 1
    first = 0 if m[1] != "page" else 1
    if step < 1 or (m[1] == "page" and int(m[2]) != 2):
        return []
    return [second[: m.start(2)] + str(first + (n - 1) * step) + second[m.end(2) :] for n in range(2, count + 1)]


def login_error(page: Page) -> str:
    """The forum's own words when it serves the login form again: phpBB's `div.error` in `form#login`
    ("You have specified an incorrect username..."), IPB's `div.errorwrap`; empty if it gives none."""
    root = parse_html(page.text)
    for el in root.iter("div", "p", "span"):
        if any(has_class(el, name) for name in _ERROR_CLASSES):
            text = text_of(el)
            if text:
                return text
    return ""


def offset_between(shown: datetime, actual: datetime) -> tzinfo | None:
    """The zone a clock showing `shown` (labelled UTC, as printed) is in at the instant `actual`.

    Rounded to 15 minutes: forum clocks print minutes only, and zones are whole quarter hours.
    """
    delta = shown.replace(tzinfo=None) - actual.astimezone(UTC).replace(tzinfo=None)
    minutes = round(delta.total_seconds() / 900) * 15
    return timezone(timedelta(minutes=minutes)) if abs(minutes) <= 14 * 60 else None


def or_error(fetch: Callable[[PmSummary], PrivateMessage], pm: PmSummary) -> PrivateMessage | ForumbotError:
    try:
        return fetch(pm)
    except (ParseError, ForumError) as exc:
        return exc


def report(progress: Progress | None, done: int, total: int) -> None:
    if progress is not None:
        progress(done, max(done, total))


def offset_text(zone: tzinfo, at: datetime) -> str:
    offset = zone.utcoffset(at) or timedelta(0)
    minutes = int(offset.total_seconds() // 60)
    sign = "+" if minutes >= 0 else "-"
    return f"UTC{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


def zone_named(name: str | tzinfo) -> tzinfo:
    if isinstance(name, tzinfo):
        return name
    try:
        return ZoneInfo(name)
    except (KeyError, ValueError) as exc:
        raise ConfigError(N_("{name!r}: not a time zone name"), name=name) from exc


__all__ = [
    "AccountPreferences",
    "AccountSettings",
    "ClientSettings",
    "ForumClient",
    "ForumSource",
    "HttpForumClient",
    "Progress",
    "REFETCHES",
    "login_error",
    "offset_between",
    "page_size_of",
    "topic_number",
]
