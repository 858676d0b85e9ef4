"""Reading topics against what was read before: parsed pages kept in SQLite.

An edit can happen on any page at any time, and phpBB leaves no notice for some (the author editing the
topic's last post, a moderator editing without a reason). So the normal read (`read_topic`) fetches
EVERY page, and compares each post with the copy read earlier: a post whose body changed is marked
`edited` (the mark sticks, since an edit cannot be undone), notice or not. A count that decides a day
must read this way.

An incremental read (`incremental=True`) re-fetches only the last known page and newer ones, taking
earlier pages from the cache: cheap, but it cannot see an edit on a page it did not fetch, and says so
(`TopicRead.complete` is False). Only a count that decides nothing (a host's quick look) may use it.

The pages live in the state file (`PageRows`: `forumbot.store.Store` keeps them), whose table is
`page_cache(forum, topic, page, fetched_at, post_ids, edit_state, json, digest)`.

Beside each page the cache can keep what a caller extracts from it (`PageExtract`: text the cache does not
read, such as the votes of its posts), valid while the page stays the one it was made from (its digest). A
read for extracts (`read_topic_extracts`) hands over each page's extract: an unchanged page is then neither
decoded nor read again, so an incremental read costs its new pages, not the day.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from types import TracebackType
from typing import Protocol

from forumbot.errors import N_, StateError
from forumbot.forum import registry
from forumbot.forum.client import ForumClient, Progress, page_size_of
from forumbot.forum.markup import BodyReader
from forumbot.posts import Post, TopicPage

# A topic read writes its pages this many at a time: each write is a commit the disk must confirm, and
# a page lost to a crash before its batch is written is only fetched again.
PAGES_PER_WRITE = 25


class PageRows(Protocol):
    """Where the parsed pages are kept: the state file (`forumbot.store.Store` is the one)."""

    def page_rows(self, forum: str, topic: str) -> list[tuple[int, str, str, str]]:
        """(page, json, fetched_at, edit_state) of every cached page of the topic, by page."""
        ...

    def page_states(self, forum: str, topic: str, from_page: int = 1) -> list[tuple[int, str]]:
        """(page, edit_state) of the cached pages of the topic from `from_page` on, by page."""
        ...

    def page_digests(self, forum: str, topic: str) -> list[tuple[int, str | None]]:
        """(page, digest) of every cached page of the topic, by page."""
        ...

    def page_row(self, forum: str, topic: str, page: int) -> tuple[str, str, str] | None:
        """(json, fetched_at, edit_state) of one cached page."""
        ...

    def put_pages(self, forum: str, topic: str, pages: Iterable[tuple[int, str, str, str, str, str]]) -> None:
        """Several pages, each (page, fetched_at, post_ids, edit_state, json, digest), in one transaction."""
        ...

    def page_extracts(
        self, forum: str, topic: str, kind: str, from_page: int = 1, through: int | None = None
    ) -> list[tuple[int, str, str]]:
        """(page, digest, data) of the extracts `kind` made from the pages as they are cached now, of the
        pages `from_page` to `through` (None: the last), by page."""
        ...

    def put_page_extracts(self, forum: str, topic: str, kind: str, extracts: Iterable[tuple[int, str, str]]) -> None:
        """Extracts `kind`, each (page, digest of the page it was made from, data), in one transaction."""
        ...

    def drop_pages_after(self, forum: str, topic: str, page: int) -> None: ...


@dataclass(frozen=True)
class CachedPage:
    page: TopicPage
    fetched_at: datetime
    edit_state: dict[int, str]  # post id -> fingerprint of its body and edit notice
    digest: str = ""  # of the page as stored: what an extract made from it is kept under


@dataclass(frozen=True)
class PageExtract:
    """What a caller reads from each page, kept by the cache beside the page as text it never reads itself.
    `kind` names it with its version (an extract of another kind is never handed over: a new version makes
    every page's extract anew); `make` makes it from a page."""

    kind: str
    make: Callable[[TopicPage], str]


class PageCache:
    """Parsed topic pages by (forum, topic, page), kept in the state file."""

    def __init__(self, rows: PageRows) -> None:
        self._rows = rows

    def get(self, forum: str, topic: str | int, page: int) -> CachedPage | None:
        row = self._rows.page_row(forum, str(topic), page)
        return _cached(row) if row is not None else None

    def pages(self, forum: str, topic: str | int) -> list[CachedPage]:
        return [_cached(row[1:]) for row in self._rows.page_rows(forum, str(topic))]

    def states(self, forum: str, topic: str | int, from_page: int = 1) -> dict[int, dict[int, str]]:
        """Page -> {post id: fingerprint} of the cached pages from `from_page` on, without reading the pages."""
        return {
            page: {int(k): v for k, v in json.loads(state).items()}
            for page, state in self._rows.page_states(forum, str(topic), from_page)
        }

    def digests(self, forum: str, topic: str | int) -> dict[int, str | None]:
        """Page -> digest of every cached page (None: cached before digests were kept)."""
        return dict(self._rows.page_digests(forum, str(topic)))

    def put(self, forum: str, topic: str | int, page: TopicPage, *, fetched_at: datetime | None = None) -> None:
        self.put_many(forum, topic, [page], fetched_at=fetched_at)

    def put_many(
        self,
        forum: str,
        topic: str | int,
        pages: Iterable[TopicPage],
        *,
        fetched_at: datetime | None = None,
        extract: PageExtract | None = None,
        prints: Fingerprints | None = None,
    ) -> list[tuple[str, str]]:
        """Pages of one topic in one write (one commit, one wait for the disk, however many pages), and
        their extracts (`extract`) in another; (digest, extract) of each page, in page order (none without
        `extract`). `prints`: the fingerprints made of these posts already (the read compared them)."""
        pages = list(pages)
        stamp = (fetched_at or datetime.now(UTC)).isoformat()
        rows = []
        for page in pages:
            text = page.model_dump_json()
            rows.append((page.page, stamp, *_page_state(page, prints), text, _digest(text)))
        if not rows:
            return []
        self._rows.put_pages(forum, str(topic), rows)
        if extract is None:
            return []
        made = [(row[5], extract.make(page)) for row, page in zip(rows, pages, strict=True)]
        self._rows.put_page_extracts(
            forum, str(topic), extract.kind, [(row[0], *entry) for row, entry in zip(rows, made, strict=True)]
        )
        return made

    def write_extracts(
        self, forum: str, topic: str | int, entries: list[CachedPage], extract: PageExtract
    ) -> list[tuple[str, str]]:
        """Make and keep the extracts of pages already cached (each made from, and kept under, its cached
        copy); (digest, extract) of each."""
        made = [(entry.digest, extract.make(entry.page)) for entry in entries]
        rows = [(entry.page.page, *kept) for entry, kept in zip(entries, made, strict=True)]
        self._rows.put_page_extracts(forum, str(topic), extract.kind, rows)
        return made

    def extracts(
        self, forum: str, topic: str | int, kind: str, from_page: int = 1, through: int | None = None
    ) -> dict[int, tuple[str, str]]:
        """Page -> (digest, extract `kind`) of the cached pages `from_page` to `through` that have a valid one."""
        rows = self._rows.page_extracts(forum, str(topic), kind, from_page, through)
        return {page: (digest, data) for page, digest, data in rows}

    def last_page(self, forum: str, topic: str | int) -> int | None:
        return max((row[0] for row in self._rows.page_rows(forum, str(topic))), default=None)

    def drop_after(self, forum: str, topic: str | int, page: int) -> None:
        """Forget pages past `page` (the topic shrank: posts were deleted)."""
        self._rows.drop_pages_after(forum, str(topic), page)

    def close(self) -> None:
        """Nothing to close: the state file belongs to its store."""

    def __enter__(self) -> PageCache:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


@dataclass(frozen=True)
class TopicRead:
    """A whole topic as read: its posts in order, and what could not be read (page: post: why).
    `complete`: every page was fetched now, so every edit made before the read is seen; False when
    earlier pages came from the cache (an incremental read)."""

    posts: list[Post]
    problems: list[str]
    complete: bool = True


def read_topic(
    client: ForumClient,
    cache: PageCache,
    topic: str | int,
    *,
    progress: Progress | None = None,
    on_page: Callable[[TopicPage], object] | None = None,
    incremental: bool = False,
    extract: PageExtract | None = None,
    on_body: BodyReader | None = None,
) -> TopicRead:
    """Every post of the topic, each page fetched now (see the module's doc), with the pages' reports of
    unreadable posts for the audit; `incremental` fetches only the last known page and newer ones.

    `on_page` sees each freshly fetched page as it arrives, while later pages are still on their way:
    work done there (reading the votes of its posts) overlaps with the network. `extract`: what to keep
    beside each fresh page for a later `read_topic_extracts`; `on_body` sees each fresh post's body as its
    page is parsed (`BodyReader`)."""
    pages, complete = _read_pages(
        client, cache, topic, progress, on_page, incremental=incremental, extract=extract, on_body=on_body
    )
    problems = [problem for page in pages for problem in page.problems]
    return TopicRead(_unique_posts(pages), problems, complete)


@dataclass(frozen=True)
class PagePrefix:
    """A topic's pages 1..`through` as cached when a caller read them, named by one digest (`chain`): what
    the caller kept of them (a count) holds while the cache still has those very pages."""

    through: int
    digest: str


def chain(prefix: str, digests: Iterable[str]) -> str:
    """The digest of the pages before, followed by the digests of the next pages: a prefix of a topic
    named by one value, extended a page at a time."""
    for digest in digests:
        prefix = hashlib.blake2b(f"{prefix}/{digest}".encode(), digest_size=16).hexdigest()
    return prefix


@dataclass(frozen=True)
class ExtractRead:
    """A topic read for what `extract` makes of each page: the extracts of the pages `first_page` on, in page
    order, those of unchanged pages as the cache kept them (neither decoded nor read again). The pages
    before `first_page` are the ones the caller said it knows (`PagePrefix`), unchanged since: `earlier`
    gives their extracts when they are needed after all. `complete` as in `TopicRead`. A post seen on two
    pages (it moved across a page boundary) is in both pages' extracts: the later page's copy is the newer."""

    extracts: list[str]
    complete: bool = True
    first_page: int = 1
    digests: tuple[str, ...] = ()  # of the pages `first_page` on, as cached now
    prefix: str = ""  # the `chain` of the pages before `first_page` ("" when there are none)
    problems: tuple[str, ...] = ()  # the fetched pages' reports of unreadable posts
    earlier: Callable[[], list[str]] | None = None

    def through(self, page: int) -> PagePrefix:
        """The pages 1..`page` of this read as one `PagePrefix` (`page` >= first_page - 1)."""
        return PagePrefix(page, chain(self.prefix, self.digests[: page - self.first_page + 1]))

    def earlier_extracts(self) -> list[str]:
        """The extracts of the pages before `first_page`, from the cache."""
        return self.earlier() if self.earlier is not None and self.first_page > 1 else []


def read_topic_extracts(
    client: ForumClient,
    cache: PageCache,
    topic: str | int,
    extract: PageExtract,
    *,
    progress: Progress | None = None,
    incremental: bool = False,
    known: PagePrefix | None = None,
    on_body: BodyReader | None = None,
) -> ExtractRead:
    """`read_topic` for each page's extract instead of its posts: fresh pages are fetched and read as
    `read_topic` does, each earlier page (an incremental read) gives the extract kept beside it, or, when it
    has none yet, is decoded once to make it. `known`: pages the caller has what it needs of: while the
    cache still holds them as they were, their extracts are not read at all (the read starts after them)."""
    forum, key = client.forum, str(client.topic_id(topic))
    before, fresh = _fetch_fresh(
        client, cache, topic, progress, None, incremental=incremental, extract=extract, on_body=on_body
    )
    first = fresh.first_page
    kept_numbers = [n for n in range(1, first) if n in before.pages]
    skip = known.through if known is not None and 0 < known.through < first and before.holds(known) else 0
    kept = _kept_extracts(cache, before, forum, key, extract, [n for n in kept_numbers if n > skip])
    return ExtractRead(
        [*(data for _, data in kept), *(data for _, data in fresh.made)],
        not kept_numbers,
        first_page=skip + 1,
        digests=tuple([*(digest for digest, _ in kept), *(digest for digest, _ in fresh.made)]),
        prefix=known.digest if known is not None and skip else "",
        problems=tuple(fresh.problems),
        earlier=lambda: _known_extracts(cache, before, forum, key, extract, known, skip),
    )


def _known_extracts(
    cache: PageCache, before: _Before, forum: str, key: str, extract: PageExtract, known: PagePrefix | None, skip: int
) -> list[str]:
    """The extracts of the pages 1..`skip` the caller knew (`known`), read when asked, maybe after later
    reads: pages that changed since (an edit a full read saw, posts deleted) no longer give what it knew."""
    kept = _kept_extracts(cache, before, forum, key, extract, range(1, skip + 1))
    if skip and (known is None or len(kept) != skip or chain("", (digest for digest, _ in kept)) != known.digest):
        raise StateError(
            N_("the pages 1-{skip} of the topic changed after this count was made (a later read): count it again"),
            skip=skip,
        )
    return [data for _, data in kept]


def _kept_extracts(
    cache: PageCache, before: _Before, forum: str, key: str, extract: PageExtract, numbers: Iterable[int]
) -> list[tuple[str, str]]:
    """(digest, extract) of the cached pages `numbers`, as kept; a page cached before its extract was kept
    is decoded once to make it."""
    numbers = [n for n in numbers if n in before.pages]
    if not numbers:
        return []
    kept = cache.extracts(forum, key, extract.kind, numbers[0], numbers[-1])
    missing = [n for n in numbers if n not in kept]
    for start in range(0, len(missing), PAGES_PER_WRITE):  # pages cached before their extracts were kept
        batch = before.entries(missing[start : start + PAGES_PER_WRITE])
        pages = [entry.page.page for entry in batch]
        kept.update(zip(pages, cache.write_extracts(forum, key, batch, extract), strict=True))
        before.forget(pages)
    return [kept[n] for n in numbers if n in kept]


def fetch_topic_incremental(
    client: ForumClient,
    cache: PageCache,
    topic: str | int,
    *,
    progress: Progress | None = None,
) -> list[Post]:
    """Every post of the topic in order, fetching only the last known page and newer ones (see `_read_pages`):
    it may miss an edit on an earlier page."""
    return _unique_posts(_read_pages(client, cache, topic, progress, incremental=True)[0])


def _read_pages(
    client: ForumClient,
    cache: PageCache,
    topic: str | int,
    progress: Progress | None,
    on_page: Callable[[TopicPage], object] | None = None,
    *,
    incremental: bool = False,
    extract: PageExtract | None = None,
    on_body: BodyReader | None = None,
) -> tuple[list[TopicPage], bool]:
    """Every page of the topic (`_fetch_fresh`, then the earlier pages from the cache), and whether all
    were fetched now."""
    before, fresh = _fetch_fresh(
        client, cache, topic, progress, on_page, incremental=incremental, extract=extract, on_body=on_body
    )
    kept = [_share_fields_sets(entry.page) for entry in before.entries(range(1, fresh.first_page))]
    return [*kept, *fresh.pages], not kept


@dataclass
class _Fresh:
    """The pages a read fetched now: the first one's number, the pages themselves (a read of posts keeps
    them), and (digest, extract) of each (a read for extracts keeps those instead), their problems."""

    first_page: int
    pages: list[TopicPage]
    made: list[tuple[str, str]]
    problems: list[str]


def _fetch_fresh(
    client: ForumClient,
    cache: PageCache,
    topic: str | int,
    progress: Progress | None,
    on_page: Callable[[TopicPage], object] | None = None,
    *,
    incremental: bool = False,
    extract: PageExtract | None = None,
    on_body: BodyReader | None = None,
) -> tuple[_Before, _Fresh]:
    """The pages fetched now, stored as they come (with their extracts, if asked), and the cache as it was
    before. A read for extracts (`on_page` None, `extract` given) keeps the extracts, not the pages.

    A full read unless `incremental`; an incremental one fetches the last known page and newer ones, and
    falls back to a full read on the first visit, when the cache has a hole, or when earlier pages have
    shifted (the re-fetched page no longer starts with the post it started with: posts were deleted
    before it, or the page size changed).
    """
    forum, key = client.forum, str(client.topic_id(topic))
    before = _Before(cache, forum, key)
    last = max(before.pages, default=None)
    known = incremental and last is not None and all(n in before.pages for n in range(1, last))
    pages: Iterator[TopicPage] | None = None
    first: TopicPage | None = None
    if known and last is not None:
        size = _known_page_size(before.entries([last]))
        pages = client.fetch_topic(key, from_page=last, page_size=size, progress=progress, on_body=on_body)
        first = next(pages)
        # A page the cache never held (fewer posts a page now) is shifted too: its posts were cached on
        # earlier pages, which the read compares only from its first page on (`_Before.compare_from`).
        if first.page not in before.pages or _shifted(next(iter(before.entries([first.page])), None), first):
            pages = first = None
    if pages is None or first is None:
        pages = client.fetch_topic(key, progress=progress, on_body=on_body)
        first = next(pages)
    before.compare_from(first.page)
    keep_pages = extract is None or on_page is not None
    fresh = _Fresh(first.page, [], [], [])
    batch: list[TopicPage] = []
    prints: Fingerprints = {}  # of the batch's posts: compared with the cache's, then written beside them
    # Pages are stored as they come in, a batch at a time, while the later ones are still being fetched.
    for page in itertools.chain([first], pages):
        page = _carry_edits(page, before.changed_posts(page, prints))
        _share_fields_sets(page)
        batch.append(page)
        fresh.problems += page.problems
        if keep_pages:
            fresh.pages.append(page)
        if len(batch) == PAGES_PER_WRITE:
            before.before_writing(batch)
            fresh.made += cache.put_many(forum, key, batch, extract=extract, prints=prints)
            batch, prints = [], {}
        if on_page is not None:
            on_page(page)
    before.before_writing(batch)
    fresh.made += cache.put_many(forum, key, batch, extract=extract, prints=prints)
    cache.drop_after(forum, key, page.page)
    return before, fresh


class _Before:
    """What the cache held before this read, opened only as far as the read needs it.

    A read compares each fresh post with its cached copy by the fingerprint kept beside it (`edit_state`);
    only a post whose fingerprint differs (an edit, or a mark carried from an earlier read) needs its
    cached copy, and only the pages holding such posts are decoded. So a full read of an unchanged day
    decodes none of the cached pages, and holds one copy of the day in memory, not two."""

    def __init__(self, cache: PageCache, forum: str, topic: str) -> None:
        self._cache, self._forum, self._topic = cache, forum, topic
        self._digests = cache.digests(forum, topic)
        self.pages = frozenset(self._digests)
        self._from_page = 1
        self._where_: dict[int, tuple[int, str]] | None = None  # post id -> (cached page, fingerprint)
        self._on_page: dict[int, set[int]] = {}  # cached page -> its post ids
        self._decoded: dict[int, CachedPage] = {}
        self._moved: dict[int, Post] = {}  # copies of posts that left a cached page this read wrote anew
        self._seen: set[int] = set()  # the posts of the fresh pages compared so far

    def compare_from(self, page: int) -> None:
        """The fresh pages start at `page`: their posts were cached on that page or later (an incremental
        read falls back to a full one when earlier pages shifted), so only those pages' fingerprints are read."""
        self._from_page = page

    @property
    def _where(self) -> dict[int, tuple[int, str]]:
        if self._where_ is None:
            states = self._cache.states(self._forum, self._topic, self._from_page)
            self._where_ = {post: (page, print_) for page, state in states.items() for post, print_ in state.items()}
            self._on_page = {page: set(state) for page, state in states.items()}
        return self._where_

    def before_writing(self, pages: Iterable[TopicPage]) -> None:
        """Keep the cached copies of the posts that left these pages (posts merged in earlier push later
        ones onto the next page), before the read writes the pages anew: such a post may come up on a
        later page, and its copy from before the read is what tells whether it was edited meanwhile. Only
        a page that lost posts not read yet is decoded: none on a day whose posts stay where they were or
        move back (posts deleted before them)."""
        where = self._where
        for page in pages:
            gone = self._on_page.get(page.page, set()) - self._seen
            gone = {post_id for post_id in gone if where[post_id][0] == page.page}
            if not gone:
                continue
            for entry in self.entries([page.page]):
                self._moved.update({post.post_id: post for post in entry.page.posts if post.post_id in gone})
            self.forget([page.page])

    def holds(self, prefix: PagePrefix) -> bool:
        """Whether the cache held, before this read, the pages `prefix` names, as they were then."""
        digests = [self._digests.get(n) for n in range(1, prefix.through + 1)]
        return all(digests) and chain("", [d for d in digests if d]) == prefix.digest

    def entries(self, numbers: Iterable[int]) -> list[CachedPage]:
        """The cached pages `numbers` (those the cache holds), read and decoded once each."""
        found = []
        for number in numbers:
            if number not in self._decoded and number in self.pages:
                entry = self._cache.get(self._forum, self._topic, number)
                if entry is not None:
                    self._decoded[number] = entry
            if number in self._decoded:
                found.append(self._decoded[number])
        return found

    def forget(self, numbers: Iterable[int]) -> None:
        """Let decoded pages go (a read for extracts needs each once)."""
        for number in numbers:
            self._decoded.pop(number, None)

    def changed_posts(self, page: TopicPage, prints: Fingerprints | None = None) -> dict[int, Post]:
        """The cached copies of the page's posts whose fingerprint is not the one cached (`prints` keeps
        the fingerprints made, for the write that follows)."""
        self._seen.update(post.post_id for post in page.posts)
        stale = {
            post.post_id: self._where[post.post_id][0]
            for post in page.posts
            if post.post_id in self._where and self._where[post.post_id][1] != _fingerprint(post, prints)
        }
        moved = {post_id: self._moved[post_id] for post_id in stale if post_id in self._moved}
        pages = {number for post_id, number in stale.items() if post_id not in moved}
        copies = {post.post_id: post for entry in self.entries(pages) for post in entry.page.posts}
        copies.update(moved)
        return {post_id: copies[post_id] for post_id in stale if post_id in copies}


# What changes in a body between two reads without an edit: the date of a quote's citation, printed for
# the viewer and often relative ("9 минут назад"), and a session id in a link.
_CITE_DATE = re.compile(r'<span class="responsive-hide">[^<]*</span>(?=\s*</cite>)')
_SESSION = re.compile(r"([?&](?:amp;)?)sid=[0-9a-f]{32}")


def comparable(content_html: str) -> str:
    """A post body as it stays between two reads unless the post is edited."""
    return _SESSION.sub(r"\1", _CITE_DATE.sub("", content_html))


def fingerprint(post: Post) -> str:
    """What changes when a post is edited: its body, and the notice if the forum prints one."""
    notice = (post.edited, post.edited_by, post.edited_at, post.edit_count, post.edit_reason)
    return hashlib.sha256(json.dumps([comparable(post.content_html), *notice]).encode()).hexdigest()[:32]


# Fingerprints made during a read, by the post they were made of (`id` of the very object, kept alive
# beside it): a post that a carried edit replaced is another object, with a fingerprint of its own.
Fingerprints = dict[int, tuple[Post, str]]


def _fingerprint(post: Post, made: Fingerprints | None) -> str:
    """The post's fingerprint, made once for the comparison and the write of a read."""
    if made is None:
        return fingerprint(post)
    known = made.get(id(post))
    if known is not None and known[0] is post:
        return known[1]
    made[id(post)] = (post, print_ := fingerprint(post))
    return print_


def _carry_edits(page: TopicPage, old_posts: dict[int, Post]) -> TopicPage:
    """Mark posts whose body changed since we cached them, and keep earlier edit marks."""
    changed = False
    posts: list[Post] = []
    for post in page.posts:
        old = old_posts.get(post.post_id)
        changed_body = old is not None and comparable(old.content_html) != comparable(post.content_html)
        if old is not None and not post.edited and (old.edited or changed_body):
            post = post.model_copy(
                update={
                    "edited": True,
                    "edited_by": old.edited_by,
                    "edited_at": old.edited_at,
                    "edit_count": old.edit_count,
                    "edit_reason": old.edit_reason,
                    "changed_since_read": old.changed_since_read or (changed_body and not old.edited),
                }
            )
            changed = True
        posts.append(post)
    return page.model_copy(update={"posts": tuple(posts)}) if changed else page


_FIELDS_SETS: dict[frozenset[str], set[str]] = {}


def _share_fields_sets(page: TopicPage) -> TopicPage:
    """Let the page's posts share one set of the field names they were given (pydantic's
    `model_fields_set`, the same for nearly every post) instead of one each: 728 bytes a post, 25 MB of
    a 35,000-post day. The set is only ever read; a copy (`model_copy`) takes its own."""
    for post in page.posts:
        given = post.__pydantic_fields_set__
        shared = _FIELDS_SETS.setdefault(frozenset(given), set(given))
        object.__setattr__(post, "__pydantic_fields_set__", shared)
    return page


def _digest(page_json: str) -> str:
    """Which cached page an extract was made from: a digest of the page as stored."""
    return hashlib.blake2b(page_json.encode(), digest_size=16).hexdigest()


def _page_state(page: TopicPage, prints: Fingerprints | None = None) -> tuple[str, str]:
    """The page's post ids and each post's fingerprint, as the cache's row keeps them."""
    post_ids = json.dumps([post.post_id for post in page.posts])
    edit_state = json.dumps({str(post.post_id): _fingerprint(post, prints) for post in page.posts})
    return post_ids, edit_state


def _shifted(cached: CachedPage | None, fresh: TopicPage) -> bool:
    if cached is None or not cached.page.posts or not fresh.posts:
        return cached is not None and bool(cached.page.posts) != bool(fresh.posts)
    return cached.page.posts[0].post_id != fresh.posts[0].post_id


def _known_page_size(entries: Iterable[CachedPage]) -> int | None:
    for entry in entries:
        size = page_size_of(entry.page, registry.dialect(entry.page.dialect).page_param)
        if size:
            return size
    return None


def _unique_posts(pages: list[TopicPage]) -> list[Post]:
    """Posts in page order; a post seen twice (it moved across a page boundary) keeps its latest copy."""
    by_id: dict[int, Post] = {}
    for page in pages:
        for post in page.posts:
            by_id.pop(post.post_id, None)
            by_id[post.post_id] = post
    return list(by_id.values())


def _cached(row: tuple[str, str, str]) -> CachedPage:
    text, stamp, edit_state = row
    return CachedPage(
        page=TopicPage.model_validate_json(text),
        fetched_at=datetime.fromisoformat(stamp),
        edit_state={int(k): v for k, v in json.loads(edit_state).items()},
        digest=_digest(text),
    )


__all__ = [
    "CachedPage",
    "ExtractRead",
    "PageCache",
    "PageExtract",
    "PagePrefix",
    "PageRows",
    "TopicRead",
    "chain",
    "fetch_topic_incremental",
    "fingerprint",
    "read_topic",
    "read_topic_extracts",
]
