"""A folder of pages saved from a browser, behind the `ForumClient` interface."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import datetime, tzinfo
from pathlib import Path

from forumbot.errors import N_, ConfigError, ForumbotError, ParseError
from forumbot.forum.client import Progress, or_error, report, topic_number, zone_named
from forumbot.forum.dialect import Dialect
from forumbot.forum.markup import BodyReader
from forumbot.forum.saved import NAME, pages
from forumbot.posts import PmSummary, PrivateMessage, TopicPage


class SavedPagesClient:
    """A folder of pages saved from a browser, behind the same interface. No network, no login.

    The folder is read once, on first use, each file by the first of `dialects` (the registry's) that
    recognises it; `skipped` lists the files that gave nothing, and why.
    """

    dialect = NAME

    def __init__(
        self,
        folder: str | Path,
        *,
        dialects: Sequence[Dialect],
        now: datetime | None = None,
        tz: str | tzinfo | None = None,
    ) -> None:
        self.folder = Path(folder).expanduser().resolve()
        if not self.folder.is_dir():
            raise ConfigError(N_("{folder}: no such folder of saved pages"), folder=folder)
        self._now = now
        self._dialects = tuple(dialects)
        self._tz = zone_named(tz) if tz is not None else None
        self._loaded: pages.SavedFolder | None = None

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
    def skipped(self) -> tuple[pages.SkippedFile, ...]:
        return self._folder().skipped

    def _folder(self) -> pages.SavedFolder:
        if self._loaded is None:
            self._loaded = pages.load_saved_folder(self.folder, now=self._now, tz=self._tz, dialects=self._dialects)
        return self._loaded

    def login(self) -> None:
        """Nothing to log in to."""

    def close(self) -> None:
        self._loaded = None

    def topic_id(self, topic: str | int) -> int:
        found = topic_number(topic)
        if found is None:
            raise ConfigError(N_("{topic!r}: not a topic id or a topic URL"), topic=topic)
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
        """The saved pages of the topic from `from_page` on, every one of them to its last; pages whose topic
        the markup does not name are taken only when the folder holds no page that names it (parsed when the
        folder was loaded: `on_body` sees nothing). A page the topic has and the folder lacks is an error
        naming it: a topic read without one of its pages would lose its votes unsaid."""
        tid = self.topic_id(topic)
        held = self._folder().topic_pages
        named = [page for page in held if page.topic_id == tid]
        pages = {page.page: page for page in named or [p for p in held if p.topic_id is None]}
        wanted = [pages[n] for n in sorted(pages) if n >= from_page]
        if not wanted:
            present = sorted({page.topic_id for page in held if page.topic_id is not None})
            raise ParseError(
                N_("{folder}: no saved page of topic {tid} (topics saved: {value})"),
                folder=self.folder,
                tid=tid,
                value=present or "none",
            )
        last = max(page.page_count for page in pages.values())
        lacking = [n for n in range(from_page, last + 1) if n not in pages]
        if lacking:
            shown = ", ".join(map(str, lacking))
            raise ParseError(
                N_("{folder}: topic {tid} has {last} pages, but page(s) {shown} are not saved: save them too"),
                folder=self.folder,
                tid=tid,
                last=last,
                shown=shown,
            )
        for done, page in enumerate(wanted, 1):
            report(progress, done, len(wanted))
            yield page

    def fetch_inbox(self) -> list[PmSummary]:
        return list(self._folder().inbox)

    def fetch_pms(self, pms: Sequence[PmSummary]) -> Iterator[PrivateMessage | ForumbotError]:
        return (or_error(self.fetch_pm, pm) for pm in pms)

    def fetch_pm(self, pm: PmSummary | int) -> PrivateMessage:
        pm_id = pm.pm_id if isinstance(pm, PmSummary) else int(pm)
        for message in self._folder().messages:
            if message.pm_id == pm_id:
                return message
        raise ParseError(N_("{folder}: no saved page of PM {pm_id}"), folder=self.folder, pm_id=pm_id)
