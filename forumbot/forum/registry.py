"""The registry of forum engines: the one place that lists them. Everything that depends on which engine a
board runs asks here: config validation (`check_engine`), opening a client (`client_settings`,
`open_client`), making a poster (`poster_for`), recognising saved pages (`made_by`, `detect_page`,
`load_saved_folder`), and reading a topic's number from a URL (`topic_number`).

Each engine declares itself in its folder's `dialect.py` (`forumbot.forum.<engine>.dialect.DIALECT`);
adding an engine is adding its folder and one line to `DIALECTS` below (docs/developers.md).

    dialect = registry.dialect("phpbb")        # a Dialect, or ConfigError naming the known ones
    client = registry.open_client(settings)    # the reader of settings.dialect ("auto": the board tells)
    poster = registry.poster_for(client)       # its writer, or ConfigError for an engine only read
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime, tzinfo
from pathlib import Path
from urllib.parse import urlsplit

import httpx

from forumbot.errors import N_, ConfigError
from forumbot.forum import client
from forumbot.forum.client import AccountSettings, ClientSettings, ForumClient, ForumSource
from forumbot.forum.dialect import Dialect, Opening, PageKind
from forumbot.forum.http import DEFAULT_REQUESTS_PER_MINUTE, DEFAULT_USER_AGENT, Clock, ForumHttp, HttpSettings
from forumbot.forum.ipb2.dialect import DIALECT as IPB2
from forumbot.forum.ipb3.dialect import DIALECT as IPB3
from forumbot.forum.ips4.dialect import DIALECT as IPS4
from forumbot.forum.markup import Page
from forumbot.forum.phpbb.dialect import DIALECT as PHPBB
from forumbot.forum.poster import Poster
from forumbot.forum.saved import pages as saved_pages
from forumbot.forum.saved.dialect import DIALECT as SAVED
from forumbot.i18n import gettext

__all__ = [
    "AUTO",
    "DEFAULT",
    "DIALECTS",
    "check_engine",
    "client_settings",
    "detect_page",
    "dialect",
    "guess_dialect",
    "load_saved_folder",
    "made_by",
    "names",
    "open_client",
    "poster_for",
    "topic_number",
]

# In the order pages are recognised: the engines whose markup is unmistakable first, phpBB (known also by
# a link to phpbb.com, which any post may hold) after them; saved pages are no board's markup.
DIALECTS: tuple[Dialect, ...] = (IPB3, IPB2, IPS4, PHPBB, SAVED)
DEFAULT = PHPBB.name  # a game's engine when its config names none
AUTO = "auto"  # not an engine: the board's address, else its markup, tells which it runs
_PUNBB_URL = re.compile(r"view(?:topic|forum)\.php\?(?:[^#]*&)?id=\d", re.IGNORECASE)
_HINT_ORDER: tuple[Dialect, ...] = tuple(sorted((d for d in DIALECTS if d.url_hint), key=lambda d: not d.url_decides))


def names(*, readable: bool = False, writable: bool = False) -> tuple[str, ...]:
    """The engines' names (those a client can be opened for, those a poster can be made for)."""
    return tuple(
        d.name for d in DIALECTS if (not readable or d.reader is not None) and (not writable or d.writer is not None)
    )


def dialect(name: str) -> Dialect:
    """The engine called `name`; a ConfigError naming the known ones for any other."""
    for known in DIALECTS:
        if known.name == name:
            return known
    raise ConfigError(
        N_("{name!r}: unknown forum engine (known: {names})"), name=name, names=", ".join(names(readable=True))
    )


def check_engine(name: str) -> str:
    """`name` if a client can be opened for it (a game's `[forum] engine`), else a ValueError naming the
    engines there are (config validation reports it against the field)."""
    if name not in names(readable=True):
        raise ValueError(f"{name!r}: unknown forum engine (known: {', '.join(names(readable=True))})")
    return name


# --- recognising pages and links -------------------------------------------------------------------


def made_by(html: Page) -> Dialect | None:
    """The engine whose markup the page is (None: no engine forumbot reads)."""
    found, _ = saved_pages.detect_page(html, DIALECTS)
    return found


def detect_page(html: Page) -> tuple[str | None, PageKind]:
    """(engine's name, kind) of a page, from its markup alone."""
    found, kind = saved_pages.detect_page(html, DIALECTS)
    return (found.name if found is not None else None), kind


def load_saved_folder(
    path: str | Path, now: datetime | None = None, *, tz: tzinfo | None = None
) -> saved_pages.SavedPages:
    """Every page saved from a browser in a folder, each read by the engine that made it."""
    return saved_pages.load_saved_folder(path, now, tz=tz, dialects=DIALECTS)


def guess_dialect(text: str) -> Dialect | None:
    """The engine a URL or a page names by its script links (`viewtopic.php`, `showtopic=`), if any.
    PunBB's descendants (mybb.ru, rusff) have `viewtopic.php?id=N` too: such a URL names nothing, the
    board's own markup decides."""
    if _PUNBB_URL.search(text):
        return None
    return next((d for d in _HINT_ORDER if d.url_hint is not None and d.url_hint.search(text)), None)


def topic_number(topic: str | int) -> int | None:
    """A topic's number from its number or a topic URL of any engine (the query parameter that names it:
    phpBB's `t`, IPB's `showtopic`), or None."""
    return client.topic_number(topic, tuple(dict.fromkeys(p for d in DIALECTS for p in d.topic_params)))


# --- clients and posters ---------------------------------------------------------------------------


def client_settings(account: AccountSettings, source: ForumSource | None = None) -> ClientSettings:
    """`ClientSettings` from the machine's settings (`.env`) and the game's `[forum]` section."""
    password = account.password
    secret = getattr(password, "get_secret_value", None)
    plain = secret() if callable(secret) else password
    engine = dialect(source.engine) if source is not None and source.engine != AUTO else None
    if engine is not None and not engine.network:
        forum: str | None = str(source.saved_pages) if source is not None else None
    else:
        forum = (source.base_url if source is not None else None) or account.base_url
    if not forum:
        raise ConfigError(N_("no forum address: set [forum] base_url in the game config or FORUMBOT_BASE_URL"))
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
        dialect=engine.name if engine is not None else AUTO,
        http=http,
        # The zone the bot account's profile shows plain-text dates in (PM times, edit notices).
        tz=getattr(source, "timezone", None),
    )


def _budget(account: AccountSettings, source: ForumSource | None) -> int:
    """Requests per minute: the game's `[forum] requests_per_minute`, else the machine's setting."""
    chosen = getattr(source, "requests_per_minute", None) or getattr(account, "requests_per_minute", None)
    return int(chosen or DEFAULT_REQUESTS_PER_MINUTE)


def open_client(
    settings: ClientSettings,
    *,
    clock: Clock | None = None,
    transport: httpx.BaseTransport | None = None,
) -> ForumClient:
    """The client for `settings.forum`: a folder of saved pages, or a board by URL.

    With `dialect="auto"` a URL that names its engine for sure (phpBB's scripts) decides; otherwise (an IPB
    URL, whose version it does not say, or a bare address) the board's index page is fetched once and its
    markup tells. A folder (no http or https address) is always read as saved pages.
    """
    opening = Opening(clock=clock, transport=transport, dialects=DIALECTS)
    if settings.dialect == AUTO or urlsplit(settings.forum).scheme not in ("http", "https"):
        chosen = _local(settings) or _guessed(settings) or _probed(settings, clock, transport)
    else:
        chosen = dialect(settings.dialect)
    if chosen.reader is None:
        raise ConfigError(
            N_("{forum}: {label} boards are not read by forumbot"), forum=settings.forum, label=chosen.label
        )
    return chosen.reader(settings, opening)


def _local(settings: ClientSettings) -> Dialect | None:
    """The engine that reads a folder rather than a board, for an address that is no web address."""
    if urlsplit(settings.forum).scheme in ("http", "https"):
        return None
    return next(d for d in DIALECTS if not d.network and d.reader is not None)


def _guessed(settings: ClientSettings) -> Dialect | None:
    guessed = guess_dialect(settings.forum)
    return guessed if guessed is not None and guessed.url_decides else None


def _probed(settings: ClientSettings, clock: Clock | None, transport: httpx.BaseTransport | None) -> Dialect:
    """The engine of the board's index page: its markup, else its script links."""
    probe = ForumHttp(settings.forum, _NoRules(), settings=settings.http, clock=clock, transport=transport)
    try:
        page = probe.get(probe.base_url, content=False)
    finally:
        probe.close()
    foreign = saved_pages.unsupported_engine(page.text)
    if foreign is not None:
        raise ConfigError(
            N_("{forum}: a {foreign} board, which forumbot does not support"), forum=settings.forum, foreign=foreign
        )
    marked = made_by(page.text)
    chosen = marked if marked is not None and marked.reader is not None else guess_dialect(page.text)
    if chosen is None:
        known = _listed(sorted(d.label for d in DIALECTS if d.reader is not None and d.network), N_("nor"))
        raise ConfigError(
            N_("{forum}: neither {known}; set the forum engine explicitly"), forum=settings.forum, known=known
        )
    return chosen


def _listed(labels: Sequence[str], last: str = N_("and")) -> str:
    """Labels in a sentence: "A, B and C" (`last`, a word of the catalogue, said in the host's language)."""
    return f"{', '.join(labels[:-1])} {gettext(last)} {labels[-1]}" if len(labels) > 1 else "".join(labels)


class _NoRules:
    def is_login_wall(self, html: str) -> bool:
        return False

    def is_no_permission(self, html: str) -> bool:
        return False


def poster_for(client: ForumClient, *, flood_interval: float | None = None) -> Poster:
    """The poster for a forum client, by its engine (saved pages, and engines only read, are never written);
    `flood_interval`: the board's, when the config says it (None: the writer's own default, or learned)."""
    name = getattr(client, "dialect", "?")
    chosen = next((d for d in DIALECTS if d.name == name), None)
    if chosen is None or chosen.writer is None:
        writable = _listed(sorted(d.label for d in DIALECTS if d.writer is not None))
        raise ConfigError(
            N_("{forum}: forumbot posts on {writable} boards only (this forum is read as {name})"),
            forum=client.forum,
            writable=writable,
            name=name,
        )
    return chosen.writer(client) if flood_interval is None else chosen.writer(client, flood_interval)
