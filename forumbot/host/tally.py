"""The running vote count of a day: posts -> vote records (extract) -> counts, leader, ties, who has not voted.

Pure: it takes parsed posts and returns a `Tally`; fetching is the forum client's job, printing the CLI's.

A count players can trust says when it was made ("на 21:30 МСК", in the game's zone), the deadline, how many
are alive, who has not voted, and a tie as a tie; it writes no nick in red bold (that is how players vote).
It is made from a read that holds every post it could include: `render_tally_bbcode` refuses a read that
came partly from the cache, or one older than the topic's last post (`StaleCount`: read again).
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, tzinfo
from pathlib import Path
from typing import Any, overload

from forumbot.engine.variants import DEFAULT_VARIANT, find_variant
from forumbot.engine.variants.base import Ruleset
from forumbot.errors import N_, ConfigError, ForumbotError, StateError
from forumbot.extract import Roster, ScanState, VoteRecord, VoteScan, VoteSettings, find_fragments
from forumbot.extract.votes import Fragment
from forumbot.forum.cache import ExtractRead, PageExtract, PagePrefix
from forumbot.posts import Post, TopicPage
from forumbot.render.bbcode import to_html
from forumbot.render.environment import load_template, render_template, tidy
from forumbot.render.phrases import zone_label

VOTE_COUNT_TEMPLATE = "vote_count.bbcode.j2"


class StaleCount(ForumbotError):
    """The read behind a count may miss posts it should include: read the topic again before posting it."""


@dataclass(frozen=True)
class Tally:
    records: Sequence[VoteRecord]  # every vote record of the day, in time order (a re-tally makes them when read)
    counts: dict[str, int]  # target -> counted votes, most first
    voters: dict[str, list[str]]  # target -> who votes for him, in the order the votes came
    leader: str | None  # who would go now, ties broken as the variant breaks them
    tied: list[str]  # the players sharing the most votes, when more than one
    not_voting: list[str]
    living: list[str] = field(default_factory=list)
    read_at: datetime | None = None  # when the posts were read (None: as of the newest post read)
    newest_post: datetime | None = None
    deadline: datetime | None = None
    complete: bool = True  # False: earlier pages came from the cache and may miss edits
    posts: int = 0  # how many distinct posts the count read
    kept: CountState | None = None  # where the count stood before the last page, for a re-tally

    @property
    def as_of(self) -> datetime | None:
        """The moment the count stands for: the read, else the newest post it saw."""
        return self.read_at or self.newest_post

    def to_json(self) -> dict[str, Any]:
        return self.json_fields() | {"votes": [vote_json(r) for r in self.records]}

    def json_fields(self) -> dict[str, Any]:
        """`to_json` with the votes as an iterator (`cli.common.print_json_streamed` writes them one by one)."""
        return {
            "votes": (vote_json(r) for r in self.records),
            "tally": dict(self.counts),
            "leader": self.leader,
            "tied": self.tied,
            "not_voting": self.not_voting,
        }


def vote_json(record: VoteRecord) -> dict[str, Any]:
    reason = record.reason  # a spoiler is a spoiler, not a quote (docs/votes-and-orders.md)
    return {
        "post_id": record.post_id,
        "voter": record.voter,
        "target": record.target,
        "time": record.time.isoformat(),
        "counted": record.counted,
        "reason": reason,
        "text": record.text,
        "nearest": record.nearest,
        "edited_by": record.edited_by,
        "link": record.permalink,
    }


def _page_votes(page: TopicPage) -> str:
    """What the tally reads from a page, kept beside the cached page (`PAGE_VOTES`): every post's id, the
    newest post's time, and of each post with a red or bold fragment what a vote record takes (author,
    time, who may see it, its edit, its link) and the fragments."""
    marked = []
    for post in page.posts:
        found = find_fragments(post.content_html)
        if found:
            marked.append(
                [
                    post.post_id,
                    post.author,
                    post.time.isoformat(),
                    post.visibility,
                    post.edited,
                    post.changed_since_read,
                    post.edited_by,
                    post.permalink,
                    [[f.text, f.red, f.bold, f.color, f.quoted, f.spoiler] for f in found],
                ]
            )
    newest = max((post.time for post in page.posts), default=None)
    ids = [post.post_id for post in page.posts]
    return json.dumps({"ids": ids, "newest": newest.isoformat() if newest else None, "marked": marked})


# The version is part of the kind: a change of what is kept (or of how fragments are read) makes every
# page's extract anew.
PAGE_VOTES = PageExtract("tally-votes-1", _page_votes)


@dataclass(frozen=True)
class _PageVotes:
    """One page's extract decoded: its post ids, its newest post's time, its posts with red or bold text
    (without their bodies) and their fragments."""

    ids: list[int]
    newest: datetime | None
    posts: list[Post]
    fragments: dict[int, tuple[Fragment, ...]]


def _decoded(text: str, number: int) -> _PageVotes:
    """Page `number`'s extract decoded; one that does not read (a damaged state file) is a `StateError`: a
    full read makes every page's extract anew."""
    try:
        page = json.loads(text)
        posts = [_light_post(entry) for entry in page["marked"]]
        fragments = {entry[0]: tuple(Fragment(*f) for f in entry[8]) for entry in page["marked"]}
        newest = datetime.fromisoformat(page["newest"]) if page["newest"] else None
        return _PageVotes([int(post_id) for post_id in page["ids"]], newest, posts, fragments)
    except (ValueError, KeyError, TypeError, IndexError) as exc:
        raise StateError(
            N_(
                "the votes kept in the state file for page {number} of the topic do not read ({error}): "
                "count it again with a full read (without --incremental)"
            ),
            number=number,
            error=exc,
        ) from None


@dataclass(frozen=True)
class _ExtractedPosts:
    """The posts of a read's pages that can hold a vote, without their bodies, and their fragments; how
    many distinct posts the pages hold, and the newest one's time."""

    posts: list[Post]
    fragments: dict[int, tuple[Fragment, ...]]
    newest: datetime | None
    count: int


def _merged(pages: Sequence[_PageVotes]) -> _ExtractedPosts:
    """Pages' posts, a post seen on two pages taken from the later one (as a read does)."""
    posts: list[Post] = []
    fragments: dict[int, tuple[Fragment, ...]] = {}
    later: set[int] = set()
    for page in reversed(pages):
        for post in reversed(page.posts):
            if post.post_id not in later:
                posts.append(post)
                fragments[post.post_id] = page.fragments[post.post_id]
        later.update(page.ids)
    posts.reverse()
    newest = max((page.newest for page in pages if page.newest is not None), default=None)
    return _ExtractedPosts(posts, fragments, newest, len(later))


def _light_post(entry: list[Any]) -> Post:
    post_id, author, time, visibility, edited, changed, edited_by, permalink, _ = entry
    post = Post(
        post_id=post_id,
        topic_id=None,
        author=author,
        author_id=None,
        time=datetime.fromisoformat(time),
        content_html="",
        edited=edited,
        edited_by=edited_by,
        permalink=permalink,
        visibility=visibility,
        changed_since_read=changed,
    )
    # Given every field: the day's light posts share one set of the names given (728 bytes each otherwise).
    object.__setattr__(post, "__pydantic_fields_set__", _POST_FIELDS)
    return post


_POST_FIELDS = {
    "post_id", "topic_id", "author", "author_id", "time", "content_html", "edited", "edited_by", "permalink",
    "visibility", "changed_since_read",
}  # fmt: skip


# --- what a count keeps for the next one -------------------------------------------------------------

# Part of every count's name: a change of how a count is kept (or made) starts every kept count anew.
COUNT_VERSION = 1


@dataclass(frozen=True)
class CountState:
    """Where a count of a topic stood after its pages 1..`pages.through`, as they were cached then: the vote
    scan's state, how many distinct posts those pages hold, the newest one's time. A re-tally whose read
    starts after those pages (`read_topic_extracts(known=pages)`) reads on from here."""

    pages: PagePrefix
    scan: ScanState
    posts: int
    newest: datetime | None

    def to_json(self) -> str:
        newest = self.newest.isoformat() if self.newest else None
        return json.dumps({"scan": self.scan.to_json(), "posts": self.posts, "newest": newest}, ensure_ascii=False)

    @classmethod
    def from_json(cls, pages: PagePrefix, text: str) -> CountState:
        data = json.loads(text)
        newest = datetime.fromisoformat(data["newest"]) if data["newest"] else None
        scan = ScanState.from_json(data["scan"])
        # What a count keeps always holds: times with their zone (posts' are), votes among the records made.
        times = [newest, scan.last[0] if scan.last else None]
        indices = [index for entries in scan.latest.values() for index, _ in entries]
        if any(t is not None and t.tzinfo is None for t in times) or not all(0 <= i < scan.made for i in indices):
            raise ValueError("a kept count with a time without its zone, or a vote past the records it made")
        return cls(pages, scan, int(data["posts"]), newest)


@dataclass(frozen=True)
class CountRules:
    """What decides a day's count besides its posts: who plays, the day's bounds, the variant and its
    options, how many targets a vote names, whose posts are no votes. `name` tells two counts apart."""

    living: Sequence[str]
    dead: Sequence[str] = ()
    start: datetime | None = None
    deadline: datetime | None = None
    variant: str = DEFAULT_VARIANT
    options: dict[str, Any] | None = None
    votes_per_post: int = 1
    skip_authors: Sequence[str] = ()

    @functools.cached_property
    def ruleset(self) -> Ruleset:
        """The variant with its options, read once for the count."""
        variant = find_variant(self.variant)
        return variant(variant.parse_options(self.options))

    @functools.cached_property
    def vote_settings(self) -> VoteSettings:
        """What extraction reads besides the posts, gathered once for the count."""
        opts = self.ruleset.options
        return VoteSettings(
            Roster([*self.living, *self.dead]),
            dead=frozenset(self.dead),
            start=self.start,
            deadline=self.deadline,
            mode=opts.nick_matching,
            edited_votes=opts.edited_votes,
            votes_per_post=self.votes_per_post,
            skip_authors=tuple(self.skip_authors),
        )

    @property
    def name(self) -> str:
        """A digest of everything a count's records depend on (the living players' order only ranks)."""
        opts = self.ruleset.options
        parts = [
            COUNT_VERSION, PAGE_VOTES.kind, sorted(self.living), sorted(self.dead),
            self.start.isoformat() if self.start else None, self.deadline.isoformat() if self.deadline else None,
            self.variant, opts.model_dump(mode="json"), self.votes_per_post,
            sorted(name.strip().casefold() for name in self.skip_authors),
        ]  # fmt: skip
        return hashlib.blake2b(json.dumps(parts, sort_keys=True).encode(), digest_size=16).hexdigest()


class _RecordsOnDemand(Sequence[VoteRecord]):
    """A re-tally's records: every vote record of the day, made (from the pages' kept votes) only when
    something reads them. The counts need none of them; the audit, when shown, needs them all."""

    def __init__(self, make: Callable[[], list[VoteRecord]]) -> None:
        self._make = make
        self._records: list[VoteRecord] | None = None

    def _all(self) -> list[VoteRecord]:
        if self._records is None:
            self._records = self._make()
        return self._records

    @overload
    def __getitem__(self, index: int) -> VoteRecord: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[VoteRecord]: ...
    def __getitem__(self, index: int | slice) -> VoteRecord | Sequence[VoteRecord]:
        return self._all()[index]

    def __len__(self) -> int:
        return len(self._all())

    def __iter__(self) -> Iterator[VoteRecord]:
        return iter(self._all())

    def __eq__(self, other: object) -> bool:
        return list(self) == list(other) if isinstance(other, Sequence) else NotImplemented

    __hash__ = None  # type: ignore[assignment]  # as a list: compared by its records


# --- counting ----------------------------------------------------------------------------------------


def tally_posts(
    posts: Iterable[Post],
    living: Sequence[str],
    *,
    dead: Sequence[str] = (),
    start: datetime | None = None,
    deadline: datetime | None = None,
    variant: str = DEFAULT_VARIANT,
    options: dict[str, Any] | None = None,
    votes_per_post: int = 1,
    skip_authors: Iterable[str] = (),
    read_at: datetime | None = None,
    complete: bool = True,
) -> Tally:
    """Count a day's votes the way the variant's host would; posts of `skip_authors` (the bot's own
    account) are neither votes nor audit rows. `read_at`: when the posts were read; `complete`: False when
    some pages came from the cache (the count then may not be posted)."""
    rules = CountRules(living, dead, start, deadline, variant, options, votes_per_post, tuple(skip_authors))
    posts = list(posts)
    scan = _scan(rules)
    scan.read(posts)
    newest = max((p.time for p in posts), default=None)
    return _tally(rules, scan, scan.records, read_at, complete, newest, len({p.post_id for p in posts}))


def count_extracts(
    read: ExtractRead, rules: CountRules, *, read_at: datetime | None = None, resume: CountState | None = None
) -> Tally:
    """The count of a read for the pages' votes. With `resume`, where the same count (`rules.name`) stood
    after the pages before the read's first page, it reads on from there: it decodes and counts the read's
    pages only, so a re-tally costs what its new pages cost, and its records are made only when shown.
    Without it, or when the new posts do not all come after the ones counted (posts moved), the whole day
    is counted. The tally's `kept` is where the count stands after all pages but the last (the page a
    re-tally fetches again), for the next re-tally."""
    pages = [_decoded(text, read.first_page + n) for n, text in enumerate(read.extracts)]
    resumed = (
        resume is not None
        and read.first_page > 1
        and resume.pages == read.through(read.first_page - 1)
        and resume.scan.follows(post for page in pages for post in page.posts)
    )
    if resumed and resume is not None:
        scan, kept, posts = _read_on(rules, read, pages, resume)
        records: Sequence[VoteRecord] = _RecordsOnDemand(lambda: list(count_extracts(read, rules).records))
        newest = max(filter(None, [resume.newest, *(page.newest for page in pages)]), default=None)
    else:
        pages = [*(_decoded(text, n + 1) for n, text in enumerate(read.earlier_extracts())), *pages]
        scan, kept, posts = _read_on(rules, read, pages, None)
        records = scan.records
        newest = max(filter(None, [page.newest for page in pages]), default=None)
    return replace(_tally(rules, scan, records, read_at, read.complete, newest, posts), kept=kept)


def _read_on(
    rules: CountRules, read: ExtractRead, pages: list[_PageVotes], resume: CountState | None
) -> tuple[VoteScan, CountState | None, int]:
    """`pages` (a read's last pages) counted on from `resume` (None: from the day's start): the scan, where
    it stood before the last page (None when that page's posts come between earlier ones, or a post is on
    both sides), and how many distinct posts were counted in all."""
    before = resume.posts if resume is not None else 0
    start = resume.scan if resume is not None else None
    body, last = _merged(pages[:-1]), _merged(pages[-1:])
    if pages and not _shared_ids(pages[:-1], pages[-1:]):
        scan = _scan(rules, start)
        scan.read(body.posts, body.fragments)
        if scan.follows(last.posts):
            earlier_newest = resume.newest if resume is not None else None
            newest = max(filter(None, [earlier_newest, body.newest]), default=None)
            through = read.through(read.first_page + len(read.extracts) - 2)
            kept = CountState(through, scan.state, before + body.count, newest)
            scan.read(last.posts, last.fragments)
            return scan, kept, before + body.count + last.count
    everything = _merged(pages)  # one count of all, in time order
    scan = _scan(rules, start)
    scan.read(everything.posts, everything.fragments)
    return scan, None, before + everything.count


def _shared_ids(earlier: Sequence[_PageVotes], later: Sequence[_PageVotes]) -> bool:
    """Whether a post is on both sides (it moved across a page boundary while the pages were fetched)."""
    ids = {post_id for page in later for post_id in page.ids}
    return any(post_id in ids for page in earlier for post_id in page.ids)


def _scan(rules: CountRules, state: ScanState | None = None) -> VoteScan:
    return VoteScan(rules.vote_settings, state=state)


def _tally(
    rules: CountRules,
    scan: VoteScan,
    records: Sequence[VoteRecord],
    read_at: datetime | None,
    complete: bool,
    newest: datetime | None,
    posts: int,
) -> Tally:
    living = rules.living
    voters: dict[str, list[str]] = {}
    first_vote: dict[str, int] = {}
    for index, (voter, target) in enumerate(scan.counted()):
        voters.setdefault(target, []).append(voter)
        first_vote.setdefault(target, index)
    order = {nick: i for i, nick in enumerate(living)}
    variant = rules.ruleset
    counts = {n: len(v) for n, v in voters.items()}
    ranked = variant.rank(counts, first_vote, order)
    voted = {voter for who in voters.values() for voter in who}
    top = variant.top_candidates(counts)
    return Tally(
        records=records,
        counts={n: counts[n] for n in ranked},
        voters={n: voters[n] for n in ranked},
        leader=variant.leader(counts, first_vote, order),
        tied=top if len(top) > 1 else [],
        not_voting=[n for n in living if n not in voted],
        living=list(living),
        read_at=read_at,
        newest_post=newest,
        deadline=rules.deadline,
        complete=complete,
        posts=posts,
    )


def ensure_current(tally: Tally, last_post_at: datetime | None = None) -> None:
    """Refuse a count whose read may miss posts: one partly from the cache, or one made before the topic's
    last post (`last_post_at`, as the forum shows it now) when it was read at a known moment."""
    if not tally.complete:
        raise StaleCount(N_("the count was made from pages partly read from the cache: read the topic again"))
    if last_post_at is None:
        return
    if tally.as_of is None or last_post_at > tally.as_of:
        made = f"{tally.as_of:%d.%m %H:%M:%S}" if tally.as_of else "an unknown moment"
        raise StaleCount(
            N_("the count was read at {made}, before the last post ({last_post_at:%d.%m %H:%M:%S})"),
            made=made,
            last_post_at=last_post_at,
        )


def count_context(tally: Tally, title: str, zone: tzinfo | None = None) -> dict[str, Any]:
    """What a vote-count template may print: the counts, and the moments in the game's zone."""
    zone = zone or (tally.deadline.tzinfo if tally.deadline else None) or UTC
    as_of = tally.as_of.astimezone(zone) if tally.as_of else None
    deadline = tally.deadline.astimezone(zone) if tally.deadline else None
    return {
        "title": title,
        "leader": tally.leader,
        "tied": tally.tied,
        "counts": tally.counts,
        "voters": tally.voters,
        "not_voting": tally.not_voting,
        "living": tally.living,
        "voted": len(tally.living) - len(tally.not_voting),
        "as_of": as_of,
        "deadline": deadline,
        "zone": zone_label(zone, as_of or deadline),
    }


def render_tally_bbcode(
    tally: Tally,
    title: str,
    template: Path | None = None,
    *,
    zone: tzinfo | None = None,
    last_post_at: datetime | None = None,
) -> str:
    """A ready-to-paste vote-count post: when it was made and the deadline (in `zone`, the game's), who leads
    or who is tied, the counts, who votes whom, who has not voted, how many are alive. `template`: the host's
    own vote-count template (else the bundled `vote_count.bbcode.j2`). Refuses (`StaleCount`) a count whose
    read may miss posts (see `ensure_current`)."""
    ensure_current(tally, last_post_at)
    where = str(template or VOTE_COUNT_TEMPLATE)
    body = render_template(load_template(template, VOTE_COUNT_TEMPLATE), count_context(tally, title, zone), where).body
    votes = [f.text for f in find_fragments(to_html(body)) if f.red and f.bold and f.text.strip()]
    if votes:  # a player who copies the count would cast these as votes
        raise ConfigError(
            N_("{where}: the vote count writes {names} in red bold, as a vote"),
            where=where,
            names=", ".join(map(repr, votes)),
        )
    return tidy(body)
