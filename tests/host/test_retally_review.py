"""A re-tally from the kept count (`count_topic`, incremental) against the count a read of posts gives: a
second cache sees the same reads (`read_topic`) and its posts are counted afresh (`tally_posts`). Topics
that change between reads: posts deleted, edited, stamped early or alike, pages resized, several counts
of the same topic, reads of posts in between."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fakeboard.phpbb.synthetic import SyntheticTopic
from forumbot.errors import StateError
from forumbot.forum.cache import PageCache, read_topic
from forumbot.host.recount import count_topic
from forumbot.host.tally import PAGE_VOTES, CountRules, Tally, tally_posts
from forumbot.posts import Post
from forumbot.store import Store

START = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
PLAYERS = [f"player{n}" for n in range(5)]
BOT = "Ведущий"
AUTHORS = [*PLAYERS, BOT, "stranger"]
RULES = (
    CountRules(PLAYERS),
    CountRules(PLAYERS[:4], dead=[PLAYERS[4]], votes_per_post=2, skip_authors=(BOT,)),
    CountRules(
        PLAYERS,
        start=START + timedelta(minutes=5),
        deadline=START + timedelta(minutes=60),
        options={"edited_votes": "count"},
    ),
)


def vote(*targets: str) -> str:
    return " ".join(
        f'Голосую <span style="color:red"><strong class="text-strong">{target}</strong></span>' for target in targets
    )


def post(post_id: int, author: str, body: str, minute: float, *, edited: bool = False) -> Post:
    return Post(
        post_id=post_id,
        topic_id=2,
        author=author,
        author_id=AUTHORS.index(author) if author in AUTHORS else None,
        time=START + timedelta(minutes=minute),
        content_html=f'<div class="content">{body} ({post_id})</div>' if body else "",
        edited=edited,
        permalink=f"http://forum.test/viewtopic.php?p={post_id}#p{post_id}",
    )


def summary(tally: Tally, *, records: bool = True) -> dict[str, Any]:
    return {
        "records": [record.model_dump() for record in tally.records] if records else None,
        "counts": tally.counts,
        "voters": tally.voters,
        "leader": tally.leader,
        "tied": tally.tied,
        "not_voting": tally.not_voting,
        "posts": tally.posts,
        "newest": tally.newest_post,
        "complete": tally.complete,
    }


def fresh_count(posts: list[Post], rules: CountRules, complete: bool) -> Tally:
    return tally_posts(
        posts, rules.living, dead=rules.dead, start=rules.start, deadline=rules.deadline, variant=rules.variant,
        options=rules.options, votes_per_post=rules.votes_per_post, skip_authors=rules.skip_authors,
        complete=complete,
    )  # fmt: skip


@dataclass
class Day:
    """One topic read through two state files: `kept` counts through `count_topic`, `plain` only reads
    posts (`read_topic`); both see the same reads of the same topic."""

    tmp: Path
    topic: SyntheticTopic
    kept: Store = field(init=False)
    plain: Store = field(init=False)

    def __post_init__(self) -> None:
        self.kept, self.plain = Store(self.tmp / "kept.sqlite"), Store(self.tmp / "plain.sqlite")

    def close(self) -> None:
        self.kept.close()
        self.plain.close()

    def count(self, rules: CountRules = RULES[0], *, incremental: bool = True) -> tuple[Tally, dict[str, Any]]:
        """The kept count's tally and what a fresh count of the same read of posts gives."""
        tally, _ = count_topic(self.topic, PageCache(self.kept), self.kept, 2, rules, incremental=incremental)
        read = read_topic(self.topic, PageCache(self.plain), 2, incremental=incremental)
        return tally, summary(fresh_count(read.posts, rules, read.complete))

    def read_posts(self, *, incremental: bool = False, extract: bool = False) -> None:
        """A read of posts (end-day, the watch) through both state files."""
        read_topic(
            self.topic, PageCache(self.kept), 2, incremental=incremental, extract=PAGE_VOTES if extract else None
        )
        read_topic(self.topic, PageCache(self.plain), 2, incremental=incremental)


@pytest.fixture
def day(tmp_path: Path) -> Iterator[Day]:
    made = Day(tmp_path, SyntheticTopic([]))
    yield made
    made.close()


def chatter(first: int, last: int, minute: float | None = None) -> list[Post]:
    """Posts `first`..`last`: every third a vote of its author, the rest chatter."""
    made = []
    for n in range(first, last + 1):
        author = PLAYERS[n % 5]
        body = vote(PLAYERS[(n * 3) % 5]) if n % 3 == 0 else "хм"
        made.append(post(n, author, body, n if minute is None else minute))
    return made


def assert_same(day: Day, rules: CountRules = RULES[0], *, incremental: bool = True) -> Tally:
    tally, expected = day.count(rules, incremental=incremental)
    assert summary(tally) == expected
    return tally


# --- the lazily made records of a resumed count -------------------------------------------------------


def test_a_resumed_counts_records_read_after_a_later_read_are_those_of_its_own_count(day: Day) -> None:
    """A re-tally's records are made when read; a later read that changed a counted page (an edit, posts
    deleted) must not change them, nor leave them silently short of the counts they go with."""
    day.topic.posts = chatter(1, 45)
    day.count(incremental=False)
    day.topic.posts += chatter(46, 52)
    tally, expected = day.count()
    assert summary(tally, records=False) == expected | {"records": None}  # the records are not made yet
    day.topic.posts[2] = post(3, PLAYERS[3], vote(PLAYERS[1]), 3)  # an edit on page 1 (no notice)
    del day.topic.posts[20:30]  # and posts deleted: the topic shrinks
    day.read_posts()
    with pytest.raises(StateError, match="changed after this count was made"):
        list(tally.records)  # the pages they were counted from are gone: no records of other pages


def test_a_resumed_counts_records_read_after_later_reads_of_new_posts_are_its_own(day: Day) -> None:
    day.topic.posts = chatter(1, 45)
    day.count(incremental=False)
    day.topic.posts += chatter(46, 52)
    tally, expected = day.count()
    day.topic.posts += [post(53, PLAYERS[0], vote(PLAYERS[2]), 53), *chatter(54, 70)]
    day.read_posts(incremental=True, extract=True)  # new pages only: the counted ones stay as they were
    day.count(RULES[1])
    assert summary(tally) == expected


# --- random days, changed between reads -----------------------------------------------------------------


@st.composite
def operations(draw: st.DrawFn) -> list[tuple[str, Any]]:
    return draw(
        st.lists(
            st.one_of(
                st.tuples(
                    st.just("grow"),
                    st.lists(
                        st.tuples(
                            st.integers(0, len(AUTHORS) - 1),
                            st.integers(0, 6),
                            st.integers(0, 5),
                            st.sampled_from([1.0] * 8 + [0.0, 0.5, -3.0]),
                        ),
                        min_size=1,
                        max_size=14,
                    ),
                ),
                st.tuples(st.just("delete"), st.integers(0, 200)),
                st.tuples(st.just("insert"), st.tuples(st.integers(0, 200), st.integers(0, 6), st.integers(0, 5))),
                st.tuples(st.just("edit"), st.tuples(st.integers(0, 200), st.integers(0, 6), st.booleans())),
                st.tuples(st.just("resize"), st.integers(3, 8)),
                st.tuples(st.just("count"), st.tuples(st.integers(0, len(RULES) - 1), st.booleans())),
                st.tuples(st.just("count"), st.tuples(st.integers(0, len(RULES) - 1), st.just(True))),
                st.tuples(st.just("count"), st.tuples(st.just(0), st.just(True))),
                st.tuples(st.just("read"), st.tuples(st.booleans(), st.booleans())),
            ),
            min_size=3,
            max_size=20,
        )
    )


def body_of(kind: int, target: int) -> str:
    names = [*PLAYERS, "nobody"]
    first, second = names[target % 6], names[(target + 2) % 6]
    return [
        vote(first),
        vote(first, second),  # two targets: a double day counts both
        f"<strong>{first}</strong>",
        "хм",
        "",  # no body at all
        f"<blockquote>{vote(first)}</blockquote>",
    ][kind % 6]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=operations(), page_size=st.integers(3, 8))
def test_a_recount_after_any_changes_counts_what_a_read_of_posts_counts(
    tmp_path_factory: pytest.TempPathFactory, ops: list[tuple[str, Any]], page_size: int
) -> None:
    day = Day(tmp_path_factory.mktemp("day"), SyntheticTopic([], page_size))
    next_id, minute = 1, 0.0
    try:
        for op, arg in ops:
            posts = day.topic.posts
            if op == "grow":
                for author, target, kind, step in arg:
                    minute = max(0.0, minute + step)
                    posts.append(post(next_id, AUTHORS[author], body_of(kind, target), minute))
                    next_id += 1
            elif op == "insert" and posts:  # a post merged in from another topic, stamped as its neighbour
                where = arg[0] % len(posts)
                stamp = (posts[where].time - START) / timedelta(minutes=1)
                posts.insert(where, post(next_id, PLAYERS[arg[1] % 5], body_of(arg[2], arg[1]), stamp))
                next_id += 1
            elif op == "delete" and posts:
                del posts[arg % len(posts)]
            elif op == "edit" and posts:
                old = posts[arg[0] % len(posts)]
                new = post(old.post_id, old.author, body_of(0, arg[1]), (old.time - START) / timedelta(minutes=1))
                posts[arg[0] % len(posts)] = new.model_copy(update={"edited": arg[2]})
            elif op == "resize":
                day.topic.page_size = arg
            elif op == "count" and posts:
                rules, incremental = RULES[arg[0]], arg[1]
                assert_same(day, rules, incremental=incremental)
            elif op == "read" and posts:
                day.read_posts(incremental=arg[0], extract=arg[1])
            if op in ("grow", "delete", "edit", "insert") and posts:  # and a re-tally after each change
                assert_same(day, RULES[len(posts) % len(RULES)] if len(posts) % 4 == 0 else RULES[0])
        if day.topic.posts:  # each count read on from where it stood
            for rules in RULES:
                assert_same(day, rules)
    finally:
        day.close()


# --- an incremental read after the board's page size shrank ----------------------------------------------


def test_an_edit_on_a_post_refetched_after_the_page_size_shrank_is_marked_as_changed(day: Day) -> None:
    """Ten posts a page become five: the re-fetched offset is a page the cache never held, whose posts
    were cached on the old last page. An edit of one of them (no notice) is still seen, as on any page."""
    day.topic.posts = chatter(1, 95)
    day.count(incremental=False)
    day.read_posts()
    day.topic.page_size = 5
    day.topic.posts[92] = post(93, PLAYERS[3], vote(PLAYERS[1]), 93)  # was chatter
    day.topic.posts += chatter(96, 99)
    tally = assert_same(day)
    record = next(r for r in tally.records if r.post_id == 93)
    assert (record.target, record.reason) == (PLAYERS[1], "changed")


# --- a damaged kept count ---------------------------------------------------------------------------------

DAMAGED = [
    "",
    "null",
    "[]",
    '{"scan": {"made": 3, "latest": {}, "last": null}}',
    '{"scan": {"made": 3, "latest": {"player1": 5}, "last": null}, "posts": 1, "newest": null}',
    '{"scan": {"made": 3, "latest": {"player1": [[1]]}, "last": null}, "posts": 1, "newest": null}',
    '{"scan": {"made": 3, "latest": {}, "last": ["2026-11-29T12:30:00", 7]}, "posts": 1, "newest": null}',
    '{"scan": {"made": 3, "latest": {}, "last": null}, "posts": 1, "newest": "2026-11-29T12:30:00"}',
    '{"scan": {"made": 3, "latest": {}, "last": [12, 7]}, "posts": 1, "newest": null}',
    '{"scan": {"made": 3, "latest": {}, "last": "x"}, "posts": 1, "newest": null}',
    '{"scan": {"made": 0, "latest": {"player1": [[4, "player2"]]}, "last": null}, "posts": 1, "newest": null}',
]


@pytest.mark.parametrize("data", DAMAGED)
def test_a_damaged_kept_count_is_counted_anew(day: Day, data: str) -> None:
    """A kept count that does not read, or reads as no count could have kept it (a time without its zone),
    is no count: the re-tally counts the day from its pages."""
    day.topic.posts = chatter(1, 45)
    day.count(incremental=False)
    name = RULES[0].name
    through, pages, _ = day.kept.count_state("http://forum.test/", "2", name) or (0, "", "")
    day.kept.put_count_state("http://forum.test/", "2", name, through, pages, data)
    day.topic.posts += chatter(46, 52)
    assert_same(day)
    assert_same(day)  # and the count kept by that one reads on


# --- pinned cases a re-tally reads on across -------------------------------------------------------------


def test_votes_superseded_across_the_kept_boundary_on_a_double_day(day: Day) -> None:
    """player1 names two on page 1, one of them again later, then two others on the re-fetched page; the
    bot's post and a ghost's stand between; a post stamped as the last counted one follows it."""
    rules = RULES[1]  # two targets a vote, player4 dead, the bot's posts skipped
    day.topic.posts = [
        post(1, PLAYERS[1], vote(PLAYERS[2], PLAYERS[3]), 1),
        *chatter(2, 30),
        post(31, BOT, vote(PLAYERS[0]), 31),
        post(32, PLAYERS[4], vote(PLAYERS[1]), 32),
        post(33, PLAYERS[1], vote(PLAYERS[3]), 33),
    ]
    first, expected = day.count(rules, incremental=False)
    assert summary(first) == expected and first.kept is not None and first.kept.pages.through == 3
    day.topic.posts += [post(34, PLAYERS[2], vote(PLAYERS[0], PLAYERS[1]), 33), post(35, PLAYERS[1], "", 33)]
    day.topic.posts += [post(36, PLAYERS[1], vote(PLAYERS[0], PLAYERS[2]), 40), *chatter(37, 44, 40)]
    assert_same(day, rules)
    day.read_posts(incremental=True)  # a read that keeps no votes: the new pages' extracts are made again
    day.topic.posts += [post(45, PLAYERS[3], vote(PLAYERS[1]), 45)]
    assert_same(day, rules)
    assert_same(day, RULES[0])  # another count of the topic, made anew beside it
    day.topic.posts += [post(46, PLAYERS[2], vote(PLAYERS[3]), 46)]
    assert_same(day, rules)
    assert_same(day, RULES[0])
