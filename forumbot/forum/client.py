"""Forum clients: one interface (`ForumClient`), four dialects (phpBB 3.x, IPB 2.x, IPB 3.x, saved pages).

The network clients only build URLs (one table per dialect), fetch through `ForumHttp` (the single request
choke point, see `http.py`) and hand the pages to the pure parsers in `phpbb.py` / `ipb/`.
The dialect classes override a few hooks of `HttpForumClient`; the algorithms (all pages of a topic,
all pages of the inbox, one PM) are written once.

    client = open_client(ClientSettings(forum="https://forum.example/", username="bot", password="..."))
    with rich.progress.Progress() as bar:             # the caller owns the display
        task = bar.add_task("Reading the day topic", total=None)
        report = lambda done, total: bar.update(task, completed=done, total=total)
        pages = list(client.fetch_topic(1234, progress=report))
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, timezone, tzinfo
from pathlib import Path
from types import TracebackType
from typing import Any, ClassVar, Literal, Protocol
from urllib.parse import parse_qs, urlsplit
from zoneinfo import ZoneInfo

import httpx

from forumbot.errors import ConfigError, ForumbotError, ForumError, LoginFailed, ParseError
from forumbot.forum import ipb, phpbb, saved
from forumbot.forum.http import DEFAULT_REQUESTS_PER_MINUTE, DEFAULT_USER_AGENT, Clock, ForumHttp, HttpSettings, Page
from forumbot.forum.markup import (
    BodyReader,
    Element,
    browser_fields,
    find_form,
    has_class,
    parse_html,
    submit_buttons,
    text_of,
)
from forumbot.posts import ConversationPage, PmSummary, Preferences, PrivateMessage, TopicPage

Progress = Callable[[int, int], None]  # (pages fetched so far, pages in the topic as known now)
DialectChoice = Literal["auto", "phpbb", "ipb2", "ipb3", "saved"]

PREFERENCES = "ucp.php?i=ucp_prefs&mode=personal"  # phpBB: the account's language, zone and date format
MAX_GROWTH = 20  # pages a topic may gain while it is read (new posts spill over); more is a broken board
MAX_INBOX_PAGES = 200  # a guard against pagination that loops; 200 pages of PMs is far beyond a game
FORM_MIN_AGE = 1.1  # seconds: phpBB rejects a form posted within the second its creation_time names


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


@dataclass(frozen=True)
class ClientSettings:
    """How to reach a forum. `forum` is the board's base URL, or a folder of saved pages."""

    forum: str
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    dialect: DialectChoice = "auto"
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


def client_settings(account: AccountSettings, source: ForumSource | None = None) -> ClientSettings:
    """`ClientSettings` from the machine's settings (`.env`) and the game's `[forum]` section."""
    password = account.password
    secret = getattr(password, "get_secret_value", None)
    plain = secret() if callable(secret) else password
    if source is not None and source.engine == "saved":
        forum: str | None = str(source.saved_pages)
    else:
        forum = (source.base_url if source is not None else None) or account.base_url
    if not forum:
        raise ConfigError("no forum address: set [forum] base_url in the game config or FORUMBOT_BASE_URL")
    dialect = source.engine if source is not None else "auto"
    if dialect not in ("auto", "phpbb", "ipb2", "ipb3", "saved"):
        raise ConfigError(f"{dialect!r}: unknown forum engine")
    http = HttpSettings(
        user_agent=account.user_agent or DEFAULT_USER_AGENT,
        timeout=account.timeout,
        min_interval=account.min_interval,
        concurrency=account.concurrency,
        requests_per_minute=_budget(account, source),
    )
    return ClientSettings(
        forum=forum,
        username=account.username,
        password=plain if isinstance(plain, str) else None,
        dialect=dialect,  # type: ignore[arg-type]  # checked just above
        http=http,
        # The zone the bot account's profile shows plain-text dates in (PM times, edit notices).
        tz=getattr(source, "timezone", None),
    )


def _budget(account: AccountSettings, source: ForumSource | None) -> int:
    """Requests per minute: the game's `[forum] requests_per_minute`, else the machine's setting."""
    chosen = getattr(source, "requests_per_minute", None) or getattr(account, "requests_per_minute", None)
    return int(chosen or DEFAULT_REQUESTS_PER_MINUTE)


# -- the network dialects ---------------------------------------------------------------------------


@dataclass(frozen=True)
class UrlTable:
    """Where a dialect keeps its pages, relative to the board root."""

    login_form: str
    login: str
    topic: str  # with {topic}
    page_param: str  # the offset parameter of a topic page: phpBB `start`, IPB `st`
    inbox: str
    pm: str  # with {pm}
    topic_params: tuple[str, ...]  # query parameters that name a topic in a pasted URL

    def topic_url(self, topic: int, offset: int) -> str:
        base = self.topic.format(topic=topic)
        return f"{base}&{self.page_param}={offset}" if offset else base


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
            raise ConfigError("forum username and password go together: give both or neither")
        self._credentials: tuple[str, str] | None = (username, password) if username and password else None
        self.tz: tzinfo | None = _zone(tz) if tz is not None else None
        self._parsed = threading.local()  # per fetching thread: the latest page's text and tree
        self._zone_lock = threading.Lock()
        self._account_zone: tzinfo | None = None
        self.http = ForumHttp(
            base_url,
            self,
            authenticate=self._authenticate if self._credentials else None,
            settings=settings,
            clock=clock,
            transport=transport,
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

    def _parse_pm(self, page: Page) -> PrivateMessage:
        raise NotImplementedError

    def _parse_login_form(self, page: Page) -> dict[str, str]:
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
            raise ConfigError(f"{topic!r}: not a topic id or a {self.dialect} topic URL")
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
            page_size = page_size_of(probe)
            if page_size is None:  # a single page: the forum would clamp any later page to it
                first = probe
        if first is None:
            first = self._topic_page(tid, from_page, page_size or 0, on_body)
        size = page_size or page_size_of(first)
        seen, count = {first.page}, first.page_count
        _report(progress, 1, count - first.page + 1)
        yield first
        next_page = first.page + 1
        while next_page <= count:
            if count > first.page_count + MAX_GROWTH:
                raise ParseError(
                    f"{first.url}: the topic's pages keep claiming more pages ({first.page_count} at first, "
                    f"{count} now); stopped reading"
                )
            if size is None:
                raise ParseError(f"{first.url}: page {first.page} of {count}, but no link to the next page")
            wanted, grown = range(next_page, count + 1), count
            for page in self._topic_pages(tid, wanted, size, on_body):
                grown = max(grown, page.page_count)  # posts may spill onto new pages while we read
                if page.page in seen:  # the topic shrank and the forum clamped us to its last page
                    continue
                seen.add(page.page)
                _report(progress, len(seen), grown - first.page + 1)
                yield page
            next_page, count = count + 1, grown

    def fetch_inbox(self) -> list[PmSummary]:
        """Every PM listed in the inbox, all pages, in the forum's order."""
        url: str | None = self.http.url(self.urls.inbox)
        visited: set[str] = set()
        found: dict[int, PmSummary] = {}
        while url is not None and url not in visited and len(visited) < MAX_INBOX_PAGES:
            visited.add(url)
            summaries, next_link = self._parse_inbox(self.http.get(url))
            for summary in summaries:
                found.setdefault(summary.pm_id, summary)
            url = self.http.rebase(next_link) if next_link else None
        return list(found.values())

    def fetch_pm(self, pm: PmSummary | int) -> PrivateMessage:
        """One PM, by id or inbox row (the URL is built from the id: captured links may name another host)."""
        pm_id = pm.pm_id if isinstance(pm, PmSummary) else int(pm)
        return self._parse_pm(self.http.get(self.http.url(self.urls.pm.format(pm=pm_id))))

    def fetch_pms(self, pms: Sequence[PmSummary]) -> Iterator[PrivateMessage | ForumbotError]:
        """The PMs fetched `concurrency` at a time, in the given order, each parsed in this thread."""
        urls = [self.http.url(self.urls.pm.format(pm=pm.pm_id)) for pm in pms]
        for fetched in self.http.get_each(urls):
            try:
                yield self._parse_pm(fetched())
            except (ParseError, ForumError) as exc:  # one unreadable PM never stops the others
                yield exc

    # -- helpers --------------------------------------------------------------------------------

    def _topic_page(self, topic: int, number: int, size: int, on_body: BodyReader | None = None) -> TopicPage:
        return self._parse_topic(self.http.get(self._topic_url(topic, number, size)), on_body)

    def _topic_pages(
        self, topic: int, numbers: Sequence[int], size: int, on_body: BodyReader | None = None
    ) -> Iterator[TopicPage]:
        """The pages `numbers`, fetched `concurrency` at a time, each parsed in this thread as it arrives
        (never in a fetching thread: see `ForumHttp.get_each`)."""
        urls = [self._topic_url(topic, n, size) for n in numbers]
        return (self._parse_topic(fetched(), on_body) for fetched in self.http.get_each(urls))

    def _topic_url(self, topic: int, number: int, size: int) -> str:
        return self.http.url(self.urls.topic_url(topic, (number - 1) * size))

    def _credentials_or_fail(self) -> tuple[str, str]:
        if self._credentials is None:
            raise LoginFailed(f"{self.forum}: no username and password configured")
        return self._credentials

    def _now(self) -> datetime:
        return datetime.fromtimestamp(self.http.clock.time(), tz=self.tz or UTC)

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


class PhpbbClient(HttpForumClient):
    """phpBB 3.x (prosilver and its descendants)."""

    dialect = "phpbb"
    urls = UrlTable(
        login_form="ucp.php?mode=login",
        login="ucp.php?mode=login",
        topic="viewtopic.php?t={topic}",
        page_param="start",
        inbox="ucp.php?i=pm&folder=inbox",
        pm="ucp.php?i=pm&mode=view&f=0&p={pm}",
        topic_params=("t",),
    )

    def is_login_wall(self, html: str) -> bool:
        return phpbb.is_login_wall(self._tree(html))

    def is_no_permission(self, html: str) -> bool:
        return phpbb.is_no_permission(self._tree(html))

    def _parse_topic(self, page: Page, on_body: BodyReader | None = None) -> TopicPage:
        root = self._tree(page.text, last_use=True)
        return phpbb.parse_topic_page(root, url=page.url, tz=self.tz or UTC, now=self._now(), on_body=on_body)

    def _parse_inbox(self, page: Page) -> tuple[list[PmSummary], str | None]:
        tz = self.account_zone(page)
        root = self._tree(page.text, last_use=True)
        return phpbb.parse_pm_inbox(root, url=page.url, tz=tz, now=self._now())

    def _parse_pm(self, page: Page) -> PrivateMessage:
        tz = self.account_zone(page)
        return phpbb.parse_pm(self._tree(page.text, last_use=True), url=page.url, tz=tz, now=self._now())

    def exact_pm_time(self, pm_id: int) -> datetime | None:
        """The PM's send time to the second: phpBB's quote form cites it as a unix time
        (`[quote=Вера msg_id=67 time=1796114954 user_id=60]`). The form is only shown, never sent."""
        try:
            page = self.http.get(self.http.url(f"ucp.php?i=pm&mode=compose&action=quote&p={pm_id}"))
            stamp = phpbb.parse_quote_stamp(page.text)
        except (ParseError, ForumError):
            return None
        return stamp.time if stamp is not None else None

    def preferences(self) -> Preferences:
        """The account's board preferences as the board shows them: language, zone, date format."""
        return phpbb.parse_preferences(self.http.get(self.http.url(PREFERENCES)).text)

    def account_zone(self, page: Page | None = None) -> tzinfo:
        """The zone the board prints this account's plain-text dates in (PM dates, edit notices), as the
        board says: the account's preferences, else the footer's offset ("Часовой пояс: UTC+03:00").
        A configured zone (`[forum] timezone`) that disagrees is an error naming both."""
        with self._zone_lock:
            if self._account_zone is None:
                self._account_zone = self._learn_zone(page)
            return self._account_zone

    def _learn_zone(self, page: Page | None) -> tzinfo:
        footer = phpbb.parse_board_zone(self._tree(page.text)) if page is not None else None
        named: tzinfo | None = None
        name = ""
        if self._credentials is not None:
            try:
                name = self.preferences().tz or ""
                named = _zone(name) if name else None
            except (ParseError, ForumError, ConfigError):
                named = None
        board: tzinfo | None = named or (footer.offset if footer is not None else None)
        if board is None:
            return self.tz or UTC
        if self.tz is not None:
            now = self._now()
            if self.tz.utcoffset(now) != board.utcoffset(now):
                told = f"{name} ({_offset_text(board, now)})" if name else _offset_text(board, now)
                raise ConfigError(
                    f"[forum] timezone = {self.tz} ({_offset_text(self.tz, now)}), but the board prints the "
                    f"dates of {self.account or 'this account'} in {told}: set [forum] timezone to the board's "
                    "zone, or change the account's zone on the board"
                )
            return self.tz
        return board

    def _parse_login_form(self, page: Page) -> dict[str, str]:
        return phpbb.parse_login_form(page.text)

    def _authenticate(self, http: ForumHttp) -> None:
        """The login form dance: fetch the form (sid, form_token, creation_time), wait, post it back."""
        username, password = self._credentials_or_fail()
        form_page = http.get(http.url(self.urls.login_form), content=False)
        fetched_at = http.clock.time()
        if not phpbb.is_login_wall(form_page.text):  # the forum already knows us: it sent the index
            return
        form = find_form(self._tree(form_page.text), "login")
        if form is None:
            raise LoginFailed(f"{self.forum}: the login page has no login form (form#login)")
        action = http.rebase(form.get("action") or self.urls.login)
        # As served, with the login button's own (localised) value; the account's name and password filled in.
        served = browser_fields(form, press="login") if "login" in submit_buttons(form) else browser_fields(form)
        given = {"username": username, "password": password, "autologin": "on"}
        fields = [(name, given.pop(name)) if name in given else (name, value) for name, value in served]
        fields += list(given.items())
        # Measured on our own clock since the form arrived, not against creation_time itself: the
        # server's clock and ours need not agree, and a second after arrival is past creation_time + 1.
        http.clock.sleep(max(0.0, fetched_at + FORM_MIN_AGE - http.clock.time()))
        answer = http.post(action, fields, charset=form_page.charset)
        if phpbb.is_login_wall(answer.text):
            raise LoginFailed(f"{self.forum}: {login_error(answer) or 'the forum refused the login'}")


class _InvisionClient(HttpForumClient):
    """What the clients of IPB 2 and IPB 3 share: how their pages say "log in" or "not allowed", and
    their login form."""

    def is_login_wall(self, html: str) -> bool:
        return ipb.is_login_wall(self._tree(html))

    def is_no_permission(self, html: str) -> bool:
        return ipb.is_no_permission(self._tree(html))

    def _parse_login_form(self, page: Page) -> dict[str, str]:
        return ipb.parse_login_form(page.text)


class IpbClient(_InvisionClient):
    """Invision Power Board 2.x (`index.php?act=...` URLs, often windows-1251)."""

    dialect = "ipb2"
    urls = UrlTable(
        login_form="index.php?act=Login&CODE=00",
        login="index.php?act=Login&CODE=01",
        topic="index.php?showtopic={topic}",
        page_param="st",
        inbox="index.php?act=Msg&CODE=01",
        pm="index.php?act=Msg&CODE=03&VID=in&MSID={pm}",
        topic_params=("showtopic", "t"),
    )

    def _parse_topic(self, page: Page, on_body: BodyReader | None = None) -> TopicPage:
        tz = self._zone_of(page)
        root = self._tree(page.text, last_use=True)
        return ipb.parse_topic_page(root, url=page.url, tz=tz, now=self._now(), on_body=on_body)

    def _parse_inbox(self, page: Page) -> tuple[list[PmSummary], str | None]:
        tz = self._zone_of(page)
        return ipb.parse_pm_inbox(self._tree(page.text, last_use=True), url=page.url, tz=tz, now=self._now())

    def _parse_pm(self, page: Page) -> PrivateMessage:
        tz = self._zone_of(page)
        return ipb.parse_pm(self._tree(page.text, last_use=True), url=page.url, tz=tz, now=self._now())

    def _zone_of(self, page: Page) -> tzinfo:
        """The viewer's offset: configured, else the footer's "now" minus the instant we fetched it.

        IPB prints every date in the member's own offset (profile, board default, DST flag), which the
        host rarely knows; the footer ("Сейчас: 29.11.2026, 21:10") shows it against our clock.
        """
        if self.tz is None:
            shown = ipb.page_now(self._tree(page.text), UTC)
            self.tz = offset_between(shown, self._now()) if shown is not None else None
        return self.tz or UTC

    def _authenticate(self, http: ForumHttp) -> None:
        """IPB 2.x: GET the form for its referer, POST `UserName`/`PassWord` in the board's charset."""
        username, password = self._credentials_or_fail()
        form_page = http.get(http.url(self.urls.login_form), content=False)
        if not ipb.is_login_wall(form_page.text):
            return
        fields = self._parse_login_form(form_page)
        action = http.rebase(fields.pop("_action", self.urls.login))
        fields = {name: value for name, value in fields.items() if not name.startswith("_")}
        fields.update(UserName=username, PassWord=password, CookieDate="1")
        answer = http.post(action, fields, charset=form_page.charset)
        if ipb.is_login_wall(answer.text):
            raise LoginFailed(f"{self.forum}: {login_error(answer) or 'the forum refused the login'}")


class Ipb3Client(_InvisionClient):
    """Invision Power Board 3.x (3.3 and 3.4 skins, UTF-8 as a rule).

    Pages are addressed as the board's own links address them: 3.4 by page number (`page=N`), 3.3 by
    offset (`st=N`); until a page has said which, a later page is asked for both ways, which either
    version reads. The Messenger keeps conversations: the inbox is every message of every conversation
    in the folder that the account did not write itself, each under its own id, all pages read; a
    conversation is read again only when its row names a newer last message."""

    dialect = "ipb3"
    urls = UrlTable(
        login_form="index.php?app=core&module=global&section=login",
        login="index.php?app=core&module=global&section=login&do=process",
        topic="index.php?showtopic={topic}",
        page_param="page",
        inbox="index.php?app=members&module=messaging&section=view&do=showFolder&folderID=myconvo",
        pm="index.php?app=members&module=messaging&section=view&do=showConversation&topicID={pm}",
        topic_params=("showtopic", "t"),
    )

    def __init__(self, base_url: str, **options: Any) -> None:
        super().__init__(base_url, **options)
        self._viewer_id: int | None = None  # the account's member id, as the conversation pages say
        self._page_param: str | None = None  # learned from the first topic page's links
        self._conversations: dict[int, tuple[int | None, list[PrivateMessage]]] = {}
        self._messages: dict[int, PrivateMessage] = {}
        self._read_lock = threading.Lock()

    def _parse_topic(self, page: Page, on_body: BodyReader | None = None) -> TopicPage:
        root = self._learn_zone_from(self._tree(page.text, last_use=True))
        parsed = ipb.parse_topic_page(root, url=page.url, tz=self.tz, now=self._now(), on_body=on_body)
        self._page_param = self._page_param or parsed.page_param
        return parsed

    def _learn_zone_from(self, root: Element) -> Element:
        """IPB 3 prints no "now" and no zone: unless one is configured, the viewer's offset is what a page
        prints for a post or message whose exact instant it also gives (see `ipb.printed_offset`)."""
        if self.tz is None:
            offset = ipb.printed_offset(root)
            self.tz = timezone(offset) if offset is not None else None
        return root

    def _topic_url(self, topic: int, number: int, size: int) -> str:
        base = self.urls.topic.format(topic=topic)
        if number > 1:
            offset = f"st={(number - 1) * size}"
            by = {"page": f"page={number}", "st": offset}.get(self._page_param or "", f"page={number}&{offset}")
            base = f"{base}&{by}"
        return self.http.url(base)

    def _parse_inbox(self, page: Page) -> tuple[list[PmSummary], str | None]:
        return ipb.parse_pm_inbox(self._tree(page.text, last_use=True), url=page.url, tz=self.tz, now=self._now())

    def _parse_pm(self, page: Page) -> PrivateMessage:
        return ipb.parse_pm(self._tree(page.text, last_use=True), url=page.url, tz=self.tz, now=self._now())

    def _authenticate(self, http: ForumHttp) -> None:
        """The login form as served (`auth_key`, `referer`, remember me), with the account's name and password."""
        username, password = self._credentials_or_fail()
        form_page = http.get(http.url(self.urls.login_form), content=False)
        if not ipb.is_login_wall(form_page.text):
            return
        form = find_form(self._tree(form_page.text, last_use=True), "login")
        if form is None:
            raise LoginFailed(f"{self.forum}: the login page has no login form (form#login)")
        given = {"ips_username": username, "ips_password": password, "rememberMe": "1"}
        served = browser_fields(form)
        fields = [(name, given.pop(name)) if name in given else (name, value) for name, value in served]
        answer = http.post(http.rebase(form.get("action") or self.urls.login), fields + list(given.items()))
        if ipb.is_login_wall(answer.text):
            raise LoginFailed(f"{self.forum}: {login_error(answer) or 'the forum refused the login'}")

    # -- the Messenger ----------------------------------------------------------------------------

    def fetch_inbox(self) -> list[PmSummary]:
        """Every message written to the account in the folder's conversations, oldest first by id."""
        rows = super().fetch_inbox()
        changed = [row for row in rows if self._stale(row)]
        unread: list[PmSummary] = []  # a conversation that would not open stays a row: its error is reported
        for row, messages in zip(changed, self._read_conversations(changed), strict=True):
            if isinstance(messages, ForumbotError):
                unread.append(row)
            else:
                self._remember(row, messages)
        found = [
            saved.message_row(message)
            for row in rows
            for message in self._conversations.get(_conversation_of(row), (None, []))[1]
            if not self._written_by_us(message)
        ]
        return sorted(found, key=lambda m: m.pm_id) + unread

    def fetch_pm(self, pm: PmSummary | int) -> PrivateMessage:
        """One message, by its id or its inbox row (a conversation's row reads the whole conversation)."""
        pm_id = pm.pm_id if isinstance(pm, PmSummary) else int(pm)
        if pm_id not in self._messages and isinstance(pm, PmSummary) and pm.conversation_id is not None:
            self._remember(pm, self._read_conversation(pm.conversation_id))
        if pm_id not in self._messages:  # an id of no message read so far, or a conversation's that opened late
            raise ParseError(f"{self.forum}: no message {pm_id} in the conversations read: the next inbox reads it")
        return self._messages[pm_id]

    def fetch_pms(self, pms: Sequence[PmSummary]) -> Iterator[PrivateMessage | ForumbotError]:
        return (_or_error(self.fetch_pm, pm) for pm in pms)

    def _written_by_us(self, message: PrivateMessage) -> bool:
        if self._viewer_id is not None and message.sender_id is not None:
            return message.sender_id == self._viewer_id
        return bool(self.account) and message.sender.casefold() == (self.account or "").casefold()

    def _stale(self, row: PmSummary) -> bool:
        held = self._conversations.get(_conversation_of(row))
        return held is None or row.last_message_id is None or held[0] != row.last_message_id

    def _remember(self, row: PmSummary, messages: list[PrivateMessage]) -> None:
        with self._read_lock:
            last = row.last_message_id or max((m.pm_id for m in messages), default=None)
            self._conversations[_conversation_of(row)] = (last, messages)
            self._messages.update((m.pm_id, m) for m in messages)

    def _read_conversations(self, rows: Sequence[PmSummary]) -> Iterator[list[PrivateMessage] | ForumbotError]:
        """The conversations' first pages `concurrency` at a time, then each one's further pages."""
        urls = [self._conversation_url(_conversation_of(row)) for row in rows]
        for fetched in self.http.get_each(urls):
            try:
                yield self._rest_of(self._conversation_page(fetched()))
            except (ParseError, ForumError) as exc:
                yield exc

    def _read_conversation(self, conversation_id: int) -> list[PrivateMessage]:
        return self._rest_of(self._conversation_page(self.http.get(self._conversation_url(conversation_id))))

    def _rest_of(self, first: ConversationPage) -> list[PrivateMessage]:
        """Every message of the conversation: its pages followed by their own next links."""
        messages, page, visited = list(first.messages), first, {first.url}
        while page.next_url and page.next_url not in visited and len(visited) < MAX_INBOX_PAGES:
            visited.add(page.next_url)
            page = self._conversation_page(self.http.get(self.http.rebase(page.next_url)))
            messages += [m for m in page.messages if m.pm_id not in {held.pm_id for held in messages}]
        return messages

    def _conversation_page(self, page: Page) -> ConversationPage:
        root = self._learn_zone_from(self._tree(page.text, last_use=True))
        parsed = ipb.parse_conversation_page(root, page.url, self.tz, now=self._now())
        self._viewer_id = self._viewer_id or parsed.viewer_id
        return parsed

    def _conversation_url(self, conversation_id: int) -> str:
        return self.http.url(self.urls.pm.format(pm=conversation_id))


def _conversation_of(row: PmSummary) -> int:
    return row.conversation_id if row.conversation_id is not None else row.pm_id


# -- saved pages --------------------------------------------------------------------------------------


class SavedPagesClient:
    """A folder of pages saved from a browser, behind the same interface. No network, no login.

    The folder is read once, on first use; `skipped` lists the files that gave nothing, and why.
    """

    dialect = "saved"

    def __init__(self, folder: str | Path, *, now: datetime | None = None, tz: str | tzinfo | None = None) -> None:
        self.folder = Path(folder).expanduser().resolve()
        if not self.folder.is_dir():
            raise ConfigError(f"{folder}: no such folder of saved pages")
        self._now = now
        self._tz = _zone(tz) if tz is not None else None
        self._loaded: saved.SavedFolder | None = None

    @property
    def forum(self) -> str:
        return self.folder.as_uri()

    @property
    def account(self) -> str | None:
        return None

    def exact_pm_time(self, pm_id: int) -> datetime | None:
        """Saved pages show what they show: no exact time beyond it."""
        return None

    @property
    def skipped(self) -> tuple[saved.SkippedFile, ...]:
        return self._folder().skipped

    def _folder(self) -> saved.SavedFolder:
        if self._loaded is None:
            self._loaded = saved.load_saved_folder(self.folder, now=self._now, tz=self._tz)
        return self._loaded

    def login(self) -> None:
        """Nothing to log in to."""

    def close(self) -> None:
        self._loaded = None

    def topic_id(self, topic: str | int) -> int:
        found = topic_number(topic)
        if found is None:
            raise ConfigError(f"{topic!r}: not a topic id or a topic URL")
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
        """The saved pages of the topic from `from_page` on; pages whose topic the markup does not
        name are taken only when the folder holds no page that names it (parsed when the folder was
        loaded: `on_body` sees nothing)."""
        tid = self.topic_id(topic)
        held = self._folder().topic_pages
        named = [page for page in held if page.topic_id == tid]
        pages = {page.page: page for page in named or [p for p in held if p.topic_id is None]}
        wanted = [pages[n] for n in sorted(pages) if n >= from_page]
        if not wanted:
            present = sorted({page.topic_id for page in held if page.topic_id is not None})
            raise ParseError(f"{self.folder}: no saved page of topic {tid} (topics saved: {present or 'none'})")
        for done, page in enumerate(wanted, 1):
            _report(progress, done, len(wanted))
            yield page

    def fetch_inbox(self) -> list[PmSummary]:
        return list(self._folder().inbox)

    def fetch_pms(self, pms: Sequence[PmSummary]) -> Iterator[PrivateMessage | ForumbotError]:
        return (_or_error(self.fetch_pm, pm) for pm in pms)

    def fetch_pm(self, pm: PmSummary | int) -> PrivateMessage:
        pm_id = pm.pm_id if isinstance(pm, PmSummary) else int(pm)
        for message in self._folder().messages:
            if message.pm_id == pm_id:
                return message
        raise ParseError(f"{self.folder}: no saved page of PM {pm_id}")


# -- choosing a client ------------------------------------------------------------------------------

_DIALECTS: dict[str, type[HttpForumClient]] = {"phpbb": PhpbbClient, "ipb2": IpbClient, "ipb3": Ipb3Client}
_PAGE_PARAMS = {"phpbb": PhpbbClient.urls.page_param, "ipb2": IpbClient.urls.page_param, "ipb3": "st", "ips4": "page"}
_PHPBB_HINT = re.compile(r"(viewtopic|viewforum|ucp|posting|memberlist)\.php", re.IGNORECASE)
_PUNBB_URL = re.compile(r"view(?:topic|forum)\.php\?(?:[^#]*&)?id=\d", re.IGNORECASE)
_IPB_HINT = re.compile(r"showtopic=|showforum=|[?&]act=|ipb_var_|Invision Power Board", re.IGNORECASE)


def open_client(
    settings: ClientSettings,
    *,
    clock: Clock | None = None,
    transport: httpx.BaseTransport | None = None,
) -> ForumClient:
    """The client for `settings.forum`: a folder of saved pages, or a phpBB / IPB board by URL.

    With `dialect="auto"` a URL naming a phpBB script decides; otherwise (an IPB URL, whose version it
    does not say, or a bare address) the board's index page is fetched once and its markup tells.
    """
    scheme = urlsplit(settings.forum).scheme
    if settings.dialect == "saved" or scheme not in ("http", "https"):
        return SavedPagesClient(settings.forum, now=settings.now, tz=settings.tz)
    dialect = settings.dialect
    if dialect == "auto":
        guessed = guess_dialect(settings.forum)
        # IPB 3 keeps IPB 2's `showtopic=` links: for them too the board's markup tells
        dialect = guessed if guessed == "phpbb" else _probe_dialect(settings, clock, transport)
    return _DIALECTS[dialect](
        settings.forum,
        username=settings.username,
        password=settings.password,
        settings=settings.http,
        clock=clock,
        transport=transport,
        tz=settings.tz,
    )


def guess_dialect(text: str) -> Literal["phpbb", "ipb2"] | None:
    """The dialect a URL or a page names by its script links (`viewtopic.php`, `showtopic=`), if any.
    PunBB's descendants (mybb.ru, rusff) have `viewtopic.php?id=N` too: such a URL names nothing, the
    board's own markup decides (`_probe_dialect`)."""
    if _PUNBB_URL.search(text):
        return None
    if _PHPBB_HINT.search(text):
        return "phpbb"
    if _IPB_HINT.search(text):
        return "ipb2"
    return None


def _probe_dialect(
    settings: ClientSettings, clock: Clock | None, transport: httpx.BaseTransport | None
) -> Literal["phpbb", "ipb2", "ipb3"]:
    probe = ForumHttp(settings.forum, _NoRules(), settings=settings.http, clock=clock, transport=transport)
    try:
        page = probe.get(probe.base_url, content=False)
    finally:
        probe.close()
    foreign = saved.unsupported_engine(page.text)
    if foreign is not None:
        raise ConfigError(f"{settings.forum}: a {foreign} board, which forumbot does not support")
    if ipb.dialect_of(page.text) == "ipb3":
        return "ipb3"
    dialect = guess_dialect(page.text)
    if dialect is None:
        raise ConfigError(f"{settings.forum}: neither phpBB nor IPB; set the forum dialect explicitly")
    return dialect


class _NoRules:
    def is_login_wall(self, html: str) -> bool:
        return False

    def is_no_permission(self, html: str) -> bool:
        return False


# -- small helpers ----------------------------------------------------------------------------------


def page_size_of(page: TopicPage) -> int | None:
    """Posts per page, from the offsets in the page's own links (`start=10` on page 1 -> 10)."""
    if page.per_page:  # the page said it itself (IPB 3's page-jump script)
        return page.per_page
    param = _PAGE_PARAMS[page.dialect]
    for link, number in ((page.next_url, page.page + 1), (page.url, page.page)):
        if link and number > 1:
            value = parse_qs(urlsplit(link).query).get(param, [""])[0]
            if value.isdigit() and int(value) > 0:
                return int(value) // (number - 1)
    return None


_ERROR_CLASSES = ("error", "errorwrap", "errorbox", "message-error")


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


def _or_error(fetch: Callable[[PmSummary], PrivateMessage], pm: PmSummary) -> PrivateMessage | ForumbotError:
    try:
        return fetch(pm)
    except (ParseError, ForumError) as exc:
        return exc


def _report(progress: Progress | None, done: int, total: int) -> None:
    if progress is not None:
        progress(done, max(done, total))


def _offset_text(zone: tzinfo, at: datetime) -> str:
    offset = zone.utcoffset(at) or timedelta(0)
    minutes = int(offset.total_seconds() // 60)
    sign = "+" if minutes >= 0 else "-"
    return f"UTC{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


def _zone(name: str | tzinfo) -> tzinfo:
    if isinstance(name, tzinfo):
        return name
    try:
        return ZoneInfo(name)
    except (KeyError, ValueError) as exc:
        raise ConfigError(f"{name!r}: not a time zone name") from exc


__all__ = [
    "AccountSettings",
    "ClientSettings",
    "ForumSource",
    "ForumClient",
    "HttpForumClient",
    "Ipb3Client",
    "IpbClient",
    "PhpbbClient",
    "Progress",
    "SavedPagesClient",
    "client_settings",
    "guess_dialect",
    "login_error",
    "open_client",
    "page_size_of",
]
