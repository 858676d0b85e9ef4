"""Pages saved from a browser: a folder of `.html` / `.htm` files -> topic pages and PMs.

Each file is read as bytes (its declared charset is honoured, windows-1251 for IPB 2 included;
undeclared bytes are UTF-8, else windows-1251 or KOI8-R as their letters tell, else the file is
skipped naming why), parsed once, and recognised by its markup: the engine (phpBB, IPB 2.x, IPB 3.x,
IPS 4) and the page kind (topic page, PM folder, one PM or conversation). A file that is none of
these is reported with the reason, never dropped silently; a board of an engine forumbot does not
read (mybb.ru / rusff, whose links look like phpBB's) is named as such.

A file in place of a page that cannot be read whole is refused, the folder with it, naming the file and
why: an empty file, a login page, a "no permission" page, and a topic page, PM folder or PM that does not
prove it was saved whole (its engine's `pages.unproven`: its end, its footer, the posts its pagination
implies). Relative dates are read against the board's clock when it made the page: the time the page prints
of itself (IPB 2's footer), else the file's modification time (when the browser saved it), else `now`.

An IPB 3 conversation gives every message on its pages, each under its own id, and each message
not written by the viewer (the account the page was saved by) is a row of the inbox; a folder row
stays in the inbox only for a conversation none of whose pages is saved.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, datetime, tzinfo
from pathlib import Path

from forumbot.errors import N_, ForumbotError, ParseError
from forumbot.forum.dialect import Dialect, PageKind
from forumbot.forum.invision.pages import message_row, read_page
from forumbot.forum.markup import Element, Page, parse_html
from forumbot.posts import ConversationPage, Frozen, PmSummary, PrivateMessage, TopicPage

SUFFIXES = (".html", ".htm")
_SAVED_FROM = re.compile(r"saved from url=\(\d+\)(\S+)", re.I)


class SkippedFile(Frozen):
    """A file of the folder that gave nothing, and why."""

    name: str
    reason: str


class SavedPages(Frozen):
    """What a folder of saved pages holds. Topic pages are sorted by (topic, page)."""

    folder: str
    topic_pages: tuple[TopicPage, ...] = ()
    inbox: tuple[PmSummary, ...] = ()
    messages: tuple[PrivateMessage, ...] = ()
    skipped: tuple[SkippedFile, ...] = ()


SavedFolder = SavedPages  # the name the forum client uses


# --- recognising a page ---------------------------------------------------------------------


def detect_page(html: Page, dialects: Sequence[Dialect]) -> tuple[Dialect | None, PageKind]:
    """(engine, kind) of a page, from its markup alone: the first of `dialects` that knows it."""
    root = parse_html(html)
    for dialect in dialects:
        kind = dialect.pages.page_kind(root) if dialect.pages is not None else None
        if kind is not None:
            return dialect, kind
    return None, "unknown"


def unsupported_engine(html: Page) -> str | None:
    """The name of a forum engine forumbot recognises but does not read, from the page's markup:
    mybb.ru / rusff boards (PunBB's descendants: `div#pun.punbb`, `div#pun-viewtopic`), whose
    `viewtopic.php` links look like phpBB's."""
    root = parse_html(html)
    for div in root.iter("div"):
        ident, classes = div.get("id") or "", (div.get("class") or "").split()
        if (ident == "pun" or ident.startswith("pun-")) and ("punbb" in classes or ident == "pun"):
            return "mybb.ru / rusff (PunBB)"
    return None


def saved_url(root: Element) -> str | None:
    """The address a browser noted when saving: `<!-- saved from url=(0071)http://... -->`
    before `<html>` (Chrome, Internet Explorer)."""
    for node in root.itersiblings(preceding=True):
        m = _SAVED_FROM.search(str(node.text or ""))
        if m:
            return m.group(1)
    return None


# --- loading a folder -----------------------------------------------------------------------


def load_saved_folder(
    path: str | Path, now: datetime | None = None, *, tz: tzinfo | None = None, dialects: Sequence[Dialect]
) -> SavedPages:
    """Every saved page of a folder (not its subfolders, where browsers put images and scripts), each read
    by the first of `dialects` (the registry's) that recognises it.

    `tz` is the zone the pages' plain-text dates are printed in (default: the zone of `now`,
    else UTC); `now` resolves relative dates on pages without a "now" of their own (default:
    each file's modification time)."""
    folder = Path(path).expanduser()
    if not folder.is_dir():
        raise ParseError(N_("{folder}: not a folder of saved pages"), folder=folder)
    zone = tz or (now.tzinfo if now is not None and now.tzinfo is not None else UTC)
    found = _Collector(str(folder), dialects)
    for file in sorted(p for p in folder.iterdir() if p.is_file() and p.suffix.lower() in SUFFIXES):
        found.add(file, zone, now)
    if found.refused:
        said = "; ".join(f"{name}: {why}" for name, why in found.refused)
        raise ParseError(f"{folder}: {_count(len(found.refused))} cannot be read whole ({said}); save them again")
    return found.result()


def _count(files: int) -> str:
    return "a saved page" if files == 1 else f"{files} saved pages"


def _file_time(file: Path, tz: tzinfo) -> datetime | None:
    """When the file was last written (the browser saved the page), None when the file system cannot say."""
    try:
        stamp = file.stat().st_mtime
    except OSError:
        return None
    return datetime.fromtimestamp(stamp, tz) if stamp > 0 else None


class _Collector:
    def __init__(self, folder: str, dialects: Sequence[Dialect]) -> None:
        self.folder = folder
        self.dialects = dialects
        self.pages: dict[tuple[int, int], tuple[TopicPage, str]] = {}
        self.loose_pages: list[TopicPage] = []
        self.inbox: dict[int, PmSummary] = {}
        self.messages: dict[int, PrivateMessage] = {}
        self.skipped: list[SkippedFile] = []
        self.refused: list[tuple[str, str]] = []  # files in place of a page that cannot be read whole, and why
        self.conversations: set[int] = set()  # IPB 3 conversations with a saved page
        self.replies: dict[int, PmSummary] = {}  # their messages to the viewer, as inbox rows

    def add(self, file: Path, tz: tzinfo, now: datetime | None) -> None:
        try:
            data = file.read_bytes()
            if not data.strip():
                self.refused.append((file.name, "an empty file"))
                return
            moment = _file_time(file, tz) or now
            try:
                root = read_page(data, file.name)
            except ParseError as exc:  # not even a page: what the browser saved is no use
                self.refused.append((file.name, str(exc)))
                return
            dialect, kind = detect_page(root, self.dialects)
            if dialect is not None and kind in ("login", "no_permission"):
                self.refused.append((file.name, _KIND_REASONS[kind].format(engine=dialect.label)))
                return
            if dialect is not None and dialect.pages is not None:  # a page of a board: is it all there?
                missing = dialect.pages.unproven(root, kind, source=data, url=saved_url(root))
                if missing is not None:
                    self.refused.append((file.name, f"{dialect.label} {_KIND_NAMES[kind]} cut short: {missing}"))
                    return
            self._take(file.name, root, dialect, kind, tz, moment)
        except (OSError, ForumbotError, ValueError) as exc:
            self.skip(file.name, str(exc))

    def skip(self, name: str, reason: str) -> None:
        self.skipped.append(SkippedFile(name=name, reason=reason))

    def _take(
        self, name: str, root: Element, dialect: Dialect | None, kind: PageKind, tz: tzinfo, now: datetime | None
    ) -> None:
        if dialect is None or dialect.pages is None:
            foreign = unsupported_engine(root)
            self.skip(name, f"a {foreign} page: that engine is not supported" if foreign else "not a phpBB or IPB page")
            return
        pages = dialect.pages
        if not dialect.pms and kind != "topic":
            self.skip(name, f"{dialect.label} page, but not a topic page (only topics are read)")
            return
        url = saved_url(root)
        if kind == "topic":
            self._topic_page(name, pages.parse_topic_page(root, url, tz=tz, now=now))
        elif kind == "pm_inbox":
            rows, _ = pages.parse_pm_inbox(root, url, tz=tz, now=now)
            for row in rows:
                self.inbox.setdefault(row.pm_id, row)
        elif kind == "pm" and dialect.conversations is not None:
            self._conversation(dialect.conversations(root, url, tz, now))
        elif kind == "pm":
            message = pages.parse_pm(root, url, tz, now=now)
            self.messages.setdefault(message.pm_id, message)
        else:
            self.skip(name, _KIND_REASONS[kind].format(engine=dialect.label))

    def _conversation(self, page: ConversationPage) -> None:
        self.conversations.add(page.conversation_id)
        for message in page.messages:
            self.messages.setdefault(message.pm_id, message)
            if page.viewer_id is None or message.sender_id != page.viewer_id:
                self.replies.setdefault(message.pm_id, message_row(message))

    def _topic_page(self, name: str, page: TopicPage) -> None:
        if page.topic_id is None:
            self.loose_pages.append(page)
            return
        key = (page.topic_id, page.page)
        held = self.pages.get(key)
        if held is None or len(page.posts) > len(held[0].posts):
            if held is not None:
                self.skip(held[1], f"page {page.page} of topic {page.topic_id} again, fewer posts than {name}")
            self.pages[key] = (page, name)
        else:
            self.skip(name, f"page {page.page} of topic {page.topic_id} again, already read from {held[1]}")

    def result(self) -> SavedPages:
        pages = [page for _, (page, _) in sorted(self.pages.items())]
        pages += sorted(self.loose_pages, key=lambda p: p.page)
        rows = [
            r for r in self.inbox.values() if r.conversation_id not in self.conversations or r.conversation_id is None
        ]
        return SavedPages(
            folder=self.folder,
            topic_pages=tuple(pages),
            inbox=tuple(rows + list(self.replies.values())),
            messages=tuple(self.messages.values()),
            skipped=tuple(self.skipped),
        )


_KIND_NAMES: dict[PageKind, str] = {
    "topic": "topic page",
    "pm_inbox": "PM folder",
    "pm": "PM page",
    "login": "login page",
    "no_permission": "refusal page",
    "unknown": "page",
}
_KIND_REASONS: dict[PageKind, str] = {
    "login": "{engine} login page, not a topic page or PM",
    "no_permission": "{engine} 'no permission' page, not a topic page or PM",
    "unknown": "{engine} page, but not a topic page, PM folder or PM",
}
