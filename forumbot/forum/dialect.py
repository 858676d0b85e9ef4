"""What a forum engine's folder declares about itself: its `DIALECT`.

Each engine lives in its own folder (`forumbot/forum/<engine>/`) and declares, in its `dialect.py`, one
`Dialect`: its name (written once, in the folder's `__init__.py`), a label for people, the URL table it
reads and writes by, how it recognises its own pages, its pure page readers, and the factories of its
reader (the `ForumClient`) and writer (the `Poster`, or None for an engine that is only read). The registry
(`forumbot.forum.registry`) lists the dialects; everything else asks it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, tzinfo
from typing import TYPE_CHECKING, Literal, Protocol

import httpx

from forumbot.forum.http import Clock
from forumbot.forum.markup import BodyReader, Page
from forumbot.posts import ConversationPage, PmSummary, PrivateMessage, TopicPage

if TYPE_CHECKING:
    from forumbot.forum.client import ClientSettings, ForumClient
    from forumbot.forum.poster import Poster

PageKind = Literal["topic", "pm_inbox", "pm", "login", "no_permission", "unknown"]


class Pages(Protocol):
    """An engine's pure page readers (its `pages.py`): page in, data out. Every one takes the page as
    text, bytes or an already parsed tree."""

    def parse_topic_page(
        self,
        html: Page,
        url: str | None = None,
        *,
        tz: tzinfo | None = None,
        now: datetime | None = None,
        on_body: BodyReader | None = None,
    ) -> TopicPage: ...

    def parse_pm_inbox(
        self, html: Page, url: str | None = None, *, tz: tzinfo | None = None, now: datetime | None = None
    ) -> tuple[list[PmSummary], str | None]: ...

    def parse_pm(
        self, html: Page, url: str | None = None, tz: tzinfo | None = None, *, now: datetime | None = None
    ) -> PrivateMessage: ...

    def page_kind(self, html: Page) -> PageKind | None:
        """What kind of this engine's page it is; None when another engine made it."""
        ...

    def unproven(
        self, html: Page, kind: PageKind, *, source: str | bytes | None = None, url: str | None = None
    ) -> str | None:
        """What keeps a page read as `kind` (a topic page, a PM folder, a PM) from proving it came whole:
        its text (`source`) reaches `</html>`, it holds the engine's footer, and the posts or rows its
        pagination implies; None when it proves it."""
        ...


ConversationReader = Callable[[Page, "str | None", "tzinfo | None", "datetime | None"], ConversationPage]


@dataclass(frozen=True)
class Opening:
    """What opening a reader may use besides the settings: the clock and transport of tests, and the
    registry's dialects (a folder of saved pages holds pages of any of them)."""

    clock: Clock | None = None
    transport: httpx.BaseTransport | None = None
    dialects: Sequence[Dialect] = ()


ReaderFactory = Callable[["ClientSettings", Opening], "ForumClient"]


class WriterFactory(Protocol):
    """Makes an engine's poster for a client; the flood interval in seconds when the config knows it
    (left out: the writer's own default, or what it learns from the board)."""

    def __call__(self, client: ForumClient, flood_interval: float = ..., /) -> Poster: ...


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


@dataclass(frozen=True)
class Dialect:
    """One forum engine as forumbot knows it.

    `pages` reads its pages; `page_param` is the query parameter its topic pages' own links carry the
    offset (or page) in; `topic_params` name a topic in its URLs; `url_hint` is what in a URL or a page
    names the engine by its scripts (None: nothing does); `conversations` reads a Messenger conversation
    page (IPB 3: a PM page holds many messages); `pms` whether its PM pages are read at all; `reader`
    opens a client (None: not readable on its own, only inside saved pages); `writer` makes a poster
    (None: read only); `network` whether its reader fetches from a board (saved pages do not, and need
    no account)."""

    name: str
    label: str
    pages: Pages | None
    page_param: str
    topic_params: tuple[str, ...] = ()
    urls: UrlTable | None = None
    url_hint: re.Pattern[str] | None = None
    url_decides: bool = False  # the hint alone decides (no other engine's URLs look the same)
    conversations: ConversationReader | None = None
    pms: bool = True
    reader: ReaderFactory | None = None
    writer: WriterFactory | None = None
    network: bool = True


__all__ = [
    "ConversationReader",
    "Dialect",
    "Opening",
    "PageKind",
    "Pages",
    "ReaderFactory",
    "UrlTable",
    "WriterFactory",
]
