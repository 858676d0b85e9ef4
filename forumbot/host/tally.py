"""The running vote count of a day: posts -> vote records (extract) -> counts, leader, ties, who has not voted.

Pure: it takes parsed posts and returns a `Tally`; fetching is the forum client's job, printing the CLI's.

A count players can trust says when it was made ("на 21:30 МСК", in the game's zone), the deadline, how many
are alive, who has not voted, and a tie as a tie; it writes no nick in red bold (that is how players vote).
It is made from a read that holds every post it could include: `render_tally_bbcode` refuses a read that
came partly from the cache, or one older than the topic's last post (`StaleCount`: read again).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, tzinfo
from pathlib import Path
from typing import Any

from forumbot.engine.variants import DEFAULT_VARIANT, find_variant
from forumbot.errors import ConfigError, ForumbotError
from forumbot.extract import Roster, VoteRecord, extract_votes, find_fragments
from forumbot.extract.names import MatchMode
from forumbot.extract.votes import EditedVotes, Fragment
from forumbot.forum.cache import ExtractRead, PageExtract
from forumbot.posts import Post, TopicPage
from forumbot.render.bbcode import to_html
from forumbot.render.environment import load_template, render_template, tidy
from forumbot.render.phrases import zone_label

VOTE_COUNT_TEMPLATE = "vote_count.bbcode.j2"
# The audit reasons of the tally contract; a spoiler is reported as a quote (neither is ever a vote).
PUBLIC_REASON = {"spoiler": "quoted"}


class StaleCount(ForumbotError):
    """The read behind a count may miss posts it should include: read the topic again before posting it."""


@dataclass(frozen=True)
class Tally:
    records: list[VoteRecord]
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

    @property
    def as_of(self) -> datetime | None:
        """The moment the count stands for: the read, else the newest post it saw."""
        return self.read_at or self.newest_post

    def to_json(self) -> dict[str, Any]:
        return {
            "votes": [vote_json(r) for r in self.records],
            "tally": dict(self.counts),
            "leader": self.leader,
            "tied": self.tied,
            "not_voting": self.not_voting,
        }


def vote_json(record: VoteRecord) -> dict[str, Any]:
    reason = PUBLIC_REASON.get(record.reason or "", record.reason)
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


def read_votes_of(page: TopicPage) -> None:
    """Read the red and bold fragments of a page's posts now (they are kept for the tally): called for
    each page as it arrives, this overlaps the reading of votes with the fetching of later pages."""
    for post in page.posts:
        find_fragments(post.content_html)


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
class _ExtractedPosts:
    """The posts of a read for extracts that can hold a vote, without their bodies, and their fragments."""

    posts: list[Post]
    fragments: dict[int, tuple[Fragment, ...]]
    newest: datetime | None


def extracted_post_count(read: ExtractRead) -> int:
    """How many distinct posts a read for the pages' votes saw."""
    return len({post_id for text in read.extracts for post_id in json.loads(text)["ids"]})


def _extracted_posts(read: ExtractRead) -> _ExtractedPosts:
    """The pages' extracts decoded one at a time, a post seen on two pages taken from the later one (as a
    read does). Pages come in post order: a post can only be on two pages when a page holds an id as high as
    a later page's lowest, and only then are the ids of later pages kept."""
    posts: list[Post] = []
    fragments: dict[int, tuple[Fragment, ...]] = {}
    newest: datetime | None = None
    later: set[int] | None = None  # the ids of the later pages, once pages overlap
    lowest_later: int | None = None
    for text in reversed(read.extracts):
        page = json.loads(text)
        ids: list[int] = page["ids"]
        if later is None and ids and lowest_later is not None and max(ids) >= lowest_later:
            return _extracted_posts_overlapping(read)
        for entry in reversed(page["marked"]):
            if entry[0] not in fragments and (later is None or entry[0] not in later):
                posts.append(_light_post(entry))
                fragments[entry[0]] = tuple(Fragment(*f) for f in entry[8])
        lowest_later = min([*ids, lowest_later] if lowest_later is not None else ids, default=None)
        if page["newest"]:
            stamp = datetime.fromisoformat(page["newest"])
            newest = stamp if newest is None else max(newest, stamp)
    posts.reverse()
    return _ExtractedPosts(posts, fragments, newest)


def _extracted_posts_overlapping(read: ExtractRead) -> _ExtractedPosts:
    """`_extracted_posts` when pages share posts: every later page's ids kept."""
    posts: list[Post] = []
    fragments: dict[int, tuple[Fragment, ...]] = {}
    later: set[int] = set()
    stamps = []
    for text in reversed(read.extracts):
        page = json.loads(text)
        for entry in reversed(page["marked"]):
            if entry[0] not in fragments and entry[0] not in later:
                posts.append(_light_post(entry))
                fragments[entry[0]] = tuple(Fragment(*f) for f in entry[8])
        later.update(page["ids"])
        if page["newest"]:
            stamps.append(datetime.fromisoformat(page["newest"]))
    posts.reverse()
    return _ExtractedPosts(posts, fragments, max(stamps, default=None))


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
    posts = list(posts)
    newest = max((p.time for p in posts), default=None)
    return _count(
        posts, living, dead, start, deadline, variant, options, votes_per_post, skip_authors, read_at, complete,
        newest=newest,
    )  # fmt: skip


def tally_extracts(
    read: ExtractRead,
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
) -> Tally:
    """`tally_posts` over a read for the pages' votes (`read_topic_extracts` with `PAGE_VOTES`): the same
    count, made without the posts' bodies, so a re-tally costs what its new pages cost. `complete` is
    the read's."""
    found = _extracted_posts(read)
    return _count(
        found.posts, living, dead, start, deadline, variant, options, votes_per_post, skip_authors, read_at,
        read.complete, newest=found.newest, fragments=found.fragments,
    )  # fmt: skip


def _count(
    posts: list[Post],
    living: Sequence[str],
    dead: Sequence[str],
    start: datetime | None,
    deadline: datetime | None,
    variant: str,
    options: dict[str, Any] | None,
    votes_per_post: int,
    skip_authors: Iterable[str],
    read_at: datetime | None,
    complete: bool,
    *,
    newest: datetime | None,
    fragments: dict[int, tuple[Fragment, ...]] | None = None,
) -> Tally:
    rules_cls = find_variant(variant)
    opts = rules_cls.parse_options(options)
    mode: MatchMode = opts.nick_matching
    edited: EditedVotes = opts.edited_votes
    roster = Roster([*living, *dead])
    records = extract_votes(
        posts,
        roster,
        dead=set(dead),
        start=start,
        deadline=deadline,
        mode=mode,
        edited_votes=edited,
        votes_per_post=votes_per_post,
        skip_authors=skip_authors,
        fragments=fragments,
    )
    counted = [r for r in records if r.counted]
    voters: dict[str, list[str]] = {}
    first_vote: dict[str, int] = {}
    for index, r in enumerate(counted):
        voters.setdefault(r.target, []).append(r.voter)
        first_vote.setdefault(r.target, index)
    order = {nick: i for i, nick in enumerate(living)}
    rules = rules_cls(opts)
    counts = {n: len(v) for n, v in voters.items()}
    ranked = rules.rank(counts, first_vote, order)
    voted = {r.voter for r in counted}
    return Tally(
        records=records,
        counts={n: counts[n] for n in ranked},
        voters={n: voters[n] for n in ranked},
        leader=rules.leader(counts, first_vote, order),
        tied=rules.top_candidates(counts) if len(rules.top_candidates(counts)) > 1 else [],
        not_voting=[n for n in living if n not in voted],
        living=list(living),
        read_at=read_at,
        newest_post=newest,
        deadline=deadline,
        complete=complete,
    )


def ensure_current(tally: Tally, last_post_at: datetime | None = None) -> None:
    """Refuse a count whose read may miss posts: one partly from the cache, or one made before the topic's
    last post (`last_post_at`, as the forum shows it now) when it was read at a known moment."""
    if not tally.complete:
        raise StaleCount("the count was made from pages partly read from the cache: read the topic again")
    if last_post_at is None:
        return
    if tally.as_of is None or last_post_at > tally.as_of:
        made = f"{tally.as_of:%d.%m %H:%M:%S}" if tally.as_of else "an unknown moment"
        raise StaleCount(f"the count was read at {made}, before the last post ({last_post_at:%d.%m %H:%M:%S})")


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
        raise ConfigError(f"{where}: the vote count writes {', '.join(map(repr, votes))} in red bold, as a vote")
    return tidy(body)
