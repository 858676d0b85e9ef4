"""Pages saved from a browser: a folder of `.html` / `.htm` files -> topic pages and PMs.

Each file is read as bytes (its declared charset is honoured, windows-1251 for IPB 2 included;
undeclared bytes are UTF-8 if they decode, else windows-1251), parsed once, and recognised by its
markup: the engine (phpBB, IPB 2.x, IPB 3.x) and the page kind (topic page, PM folder, one PM).
A file that is none of these is reported with the reason, never dropped silently. Relative IPB
dates resolve against the page's own footer, else `now`, else the file's modification time.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, tzinfo
from pathlib import Path
from typing import Literal

from forumbot.errors import ForumbotError, ParseError
from forumbot.forum import ipb, phpbb
from forumbot.forum.markup import Element, Page, first_class, iter_class, parse_html
from forumbot.forum.models import Dialect, Frozen, PmSummary, PrivateMessage, TopicPage

PageKind = Literal["topic", "pm_inbox", "pm", "login", "no_permission", "unknown"]

SUFFIXES = (".html", ".htm")
_SAVED_FROM = re.compile(r"saved from url=\(\d+\)(\S+)", re.I)
_PHPBB_POST = re.compile(r"p\d+")


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


def detect_page(html: Page) -> tuple[Dialect | None, PageKind]:
    """(engine, kind) of a page, from its markup alone."""
    root = parse_html(html)
    ipb_dialect = ipb.dialect_of(root)
    if ipb_dialect == "ipb3":
        return "ipb3", _ipb3_kind(root)
    if ipb_dialect == "ipb2":
        return "ipb2", _ipb2_kind(root)
    if phpbb.detect(root):
        return "phpbb", _phpbb_kind(root)
    return None, "unknown"


def _phpbb_kind(root: Element) -> PageKind:
    for div in iter_class(root, "div", "post"):
        if _PHPBB_POST.fullmatch(div.get("id") or "") and first_class(div, "div", "content") is not None:
            return "topic"
        if "pm" in (div.get("class") or "").split():
            return "pm"
    if first_class(root, "a", "topictitle") is not None and any(
        f.get("id") == "viewfolder" for f in root.iter("form")
    ):
        return "pm_inbox"
    return _wall_kind(phpbb.is_login_wall(root), phpbb.is_no_permission(root))


def _ipb2_kind(root: Element) -> PageKind:
    bodies = list(iter_class(root, "div", "postcolor"))
    if any(re.fullmatch(r"post-\d+", body.get("id") or "") for body in bodies):
        return "topic"
    in_ucp = any(div.get("id") == "ucpcontent" for div in root.iter("div"))
    if in_ucp and bodies:
        return "pm"
    if any("CODE=03" in (a.get("href") or "") and "MSID=" in (a.get("href") or "") for a in root.iter("a")):
        return "pm_inbox"
    return _wall_kind(ipb.is_login_wall(root), ipb.is_no_permission(root))


def _ipb3_kind(root: Element) -> PageKind:
    if any(div.get("id") == "conversation" for div in root.iter("div")):
        return "pm"
    if any(table.get("id") == "message_table" for table in root.iter("table")):
        return "pm_inbox"
    if any(
        re.fullmatch(r"post_id_\d+", div.get("id") or "") for div in iter_class(root, "div", "post_block")
    ):
        return "topic"
    return _wall_kind(ipb.is_login_wall(root), ipb.is_no_permission(root))


def _wall_kind(login: bool, refused: bool) -> PageKind:
    if refused:
        return "no_permission"
    return "login" if login else "unknown"


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
    path: str | Path, now: datetime | None = None, *, tz: tzinfo | None = None
) -> SavedPages:
    """Every saved page of a folder (not its subfolders, where browsers put images and scripts).

    `tz` is the zone the pages' plain-text dates are printed in (default: the zone of `now`,
    else UTC); `now` resolves relative dates on pages without a "now" of their own (default:
    each file's modification time)."""
    folder = Path(path).expanduser()
    if not folder.is_dir():
        raise ParseError(f"{folder}: not a folder of saved pages")
    zone = tz or (now.tzinfo if now is not None and now.tzinfo is not None else UTC)
    found = _Collector(str(folder))
    for file in sorted(p for p in folder.iterdir() if p.is_file() and p.suffix.lower() in SUFFIXES):
        found.add(file, zone, now)
    return found.result()


class _Collector:
    def __init__(self, folder: str) -> None:
        self.folder = folder
        self.pages: dict[tuple[int, int], tuple[TopicPage, str]] = {}
        self.loose_pages: list[TopicPage] = []
        self.inbox: dict[int, PmSummary] = {}
        self.messages: dict[int, PrivateMessage] = {}
        self.skipped: list[SkippedFile] = []

    def add(self, file: Path, tz: tzinfo, now: datetime | None) -> None:
        try:
            data = file.read_bytes()
            moment = now or datetime.fromtimestamp(file.stat().st_mtime, tz)
            root = parse_html(data)
            dialect, kind = detect_page(root)
            self._take(file.name, root, dialect, kind, tz, moment)
        except (OSError, ForumbotError, ValueError) as exc:
            self.skip(file.name, str(exc))

    def skip(self, name: str, reason: str) -> None:
        self.skipped.append(SkippedFile(name=name, reason=reason))

    def _take(
        self, name: str, root: Element, dialect: Dialect | None, kind: PageKind, tz: tzinfo, now: datetime
    ) -> None:
        if dialect is None:
            self.skip(name, "not a phpBB or IPB page")
            return
        module = phpbb if dialect == "phpbb" else ipb
        url = saved_url(root)
        if kind == "topic":
            self._topic_page(name, module.parse_topic_page(root, url, tz=tz, now=now))
        elif kind == "pm_inbox":
            rows, _ = module.parse_pm_inbox(root, url, tz=tz, now=now)
            for row in rows:
                self.inbox.setdefault(row.pm_id, row)
        elif kind == "pm":
            message = module.parse_pm(root, url, tz, now=now)
            self.messages.setdefault(message.pm_id, message)
        else:
            self.skip(name, _KIND_REASONS[kind].format(engine=_ENGINES[dialect]))

    def _topic_page(self, name: str, page: TopicPage) -> None:
        if page.topic_id is None:
            self.loose_pages.append(page)
            return
        key = (page.topic_id, page.page)
        held = self.pages.get(key)
        if held is None or len(page.posts) > len(held[0].posts):
            if held is not None:
                self.skip(
                    held[1], f"page {page.page} of topic {page.topic_id} again, fewer posts than {name}"
                )
            self.pages[key] = (page, name)
        else:
            self.skip(name, f"page {page.page} of topic {page.topic_id} again, already read from {held[1]}")

    def result(self) -> SavedPages:
        pages = [page for _, (page, _) in sorted(self.pages.items())]
        pages += sorted(self.loose_pages, key=lambda p: p.page)
        return SavedPages(
            folder=self.folder,
            topic_pages=tuple(pages),
            inbox=tuple(self.inbox.values()),
            messages=tuple(self.messages.values()),
            skipped=tuple(self.skipped),
        )


_ENGINES = {"phpbb": "phpBB", "ipb2": "IPB 2.x", "ipb3": "IPB 3.x"}
_KIND_REASONS: dict[PageKind, str] = {
    "login": "{engine} login page, not a topic page or PM",
    "no_permission": "{engine} 'no permission' page, not a topic page or PM",
    "unknown": "{engine} page, but not a topic page, PM folder or PM",
}
