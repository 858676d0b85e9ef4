"""A re-tally from the votes kept beside the cached pages (`PAGE_VOTES`, `count_extracts`): the count a full
read gives, made without decoding or reading again a page that did not change."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fakeboard.phpbb.synthetic import SyntheticTopic
from forumbot.errors import StateError
from forumbot.forum import cache as cache_module
from forumbot.forum.cache import CachedPage, PageCache, PageExtract, read_topic, read_topic_extracts
from forumbot.host import tally as tally_module
from forumbot.host.recount import count_topic
from forumbot.host.tally import (
    PAGE_VOTES,
    CountRules,
    Tally,
    count_extracts,
    tally_posts,
)
from forumbot.posts import Post, TopicPage
from forumbot.store import Store

START = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
PLAYERS = [f"player{n}" for n in range(5)]


def vote(target: str) -> str:
    return f'Голосую <span style="color:red"><strong class="text-strong">{target}</strong></span>'


def make_post(post_id: int, body: str | None = None) -> Post:
    """Every third post a red bold vote, every seventh a bold-only nick, the rest chatter."""
    if body is None:
        target = PLAYERS[(post_id * 3) % 5]
        body = vote(target) if post_id % 3 == 0 else f"<strong>{target}</strong>?" if post_id % 7 == 0 else "хм"
    return Post(
        post_id=post_id,
        topic_id=2,
        author=PLAYERS[post_id % 5],
        author_id=post_id % 5,
        time=START + timedelta(minutes=post_id),
        content_html=f'<div class="content">{body} ({post_id})</div>',
        permalink=f"http://forum.test/viewtopic.php?p={post_id}#p{post_id}",
    )


@pytest.fixture
def cache(tmp_path: Path) -> Iterator[PageCache]:
    with PageCache(Store(tmp_path / "state.sqlite")) as c:
        yield c


def summary(tally: Tally) -> dict[str, Any]:
    return {
        "records": [record.model_dump() for record in tally.records],
        "counts": tally.counts,
        "voters": tally.voters,
        "leader": tally.leader,
        "not_voting": tally.not_voting,
        "newest": tally.newest_post,
    }


def counting_extract(made: list[int]) -> PageExtract:
    def make(page: TopicPage) -> str:
        made.append(page.page)
        return PAGE_VOTES.make(page)

    return PageExtract(PAGE_VOTES.kind, make)


def count_decodes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    decoded: list[int] = []
    real = cache_module._cached

    def counting(row: tuple[str, str, str]) -> CachedPage:
        entry = real(row)
        decoded.append(entry.page.page)
        return entry

    monkeypatch.setattr(cache_module, "_cached", counting)
    return decoded


def test_a_retally_counts_what_a_count_of_every_post_counts(cache: PageCache) -> None:
    client = SyntheticTopic([make_post(n) for n in range(1, 96)])
    read_topic(client, cache, 2, extract=PAGE_VOTES)
    client.posts += [make_post(n) for n in range(96, 121)]
    again = read_topic_extracts(client, cache, 2, PAGE_VOTES, incremental=True)
    counted = count_extracts(again, CountRules(PLAYERS))
    assert not again.complete and counted.posts == 120
    expected = tally_posts(client.posts, PLAYERS, complete=False)
    assert expected.records and expected.counts  # the day holds votes, counted and superseded
    assert summary(counted) == summary(expected)


def test_a_retally_neither_decodes_nor_extracts_an_unchanged_page(
    cache: PageCache, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = SyntheticTopic([make_post(n) for n in range(1, 96)])  # 10 pages, the last one of 5 posts
    read_topic(client, cache, 2, extract=PAGE_VOTES)
    client.posts += [make_post(n) for n in range(96, 113)]  # page 10 fills up, pages 11 and 12 are new
    decoded, made = count_decodes(monkeypatch), list[int]()
    client.calls.clear()
    again = read_topic_extracts(client, cache, 2, counting_extract(made), incremental=True)
    assert client.calls == [10, 11, 12]
    assert made == [10, 11, 12]  # only the fetched pages are read for votes
    assert decoded == [10]  # the last known page, for its size and whether earlier pages shifted
    assert len(again.extracts) == 12


def test_pages_cached_without_their_votes_are_read_for_them_once(
    cache: PageCache, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = SyntheticTopic([make_post(n) for n in range(1, 51)])
    read_topic(client, cache, 2)  # a read that kept no votes (an earlier version, another caller)
    decoded, made = count_decodes(monkeypatch), list[int]()
    first = read_topic_extracts(client, cache, 2, counting_extract(made), incremental=True)
    assert sorted(made) == [1, 2, 3, 4, 5] and sorted(decoded) == [1, 2, 3, 4, 5]
    decoded.clear()
    made.clear()
    second = read_topic_extracts(client, cache, 2, counting_extract(made), incremental=True)
    assert made == [5] and decoded == [5]
    rules = CountRules(PLAYERS)
    assert summary(count_extracts(first, rules)) == summary(count_extracts(second, rules))


def test_an_edit_on_the_refetched_page_is_counted_as_a_full_read_counts_it(tmp_path: Path) -> None:
    posts = [make_post(n) for n in range(1, 46)]
    with PageCache(Store(tmp_path / "a.sqlite")) as kept, PageCache(Store(tmp_path / "b.sqlite")) as plain:
        for target in (kept, plain):
            read_topic(SyntheticTopic(list(posts)), target, 2, extract=PAGE_VOTES)
        edited = [*posts[:-3], make_post(43, vote("player4")), *posts[-2:]]  # no notice: seen by the cache
        from_extracts = count_extracts(
            read_topic_extracts(SyntheticTopic(edited), kept, 2, PAGE_VOTES, incremental=True), CountRules(PLAYERS)
        )
        read = read_topic(SyntheticTopic(edited), plain, 2, incremental=True)
    record = next(r for r in from_extracts.records if r.post_id == 43)
    assert (record.target, record.reason) == ("player4", "changed")
    assert summary(from_extracts) == summary(tally_posts(read.posts, PLAYERS, complete=False))


def test_an_extract_is_handed_over_only_for_the_page_it_was_made_from(tmp_path: Path) -> None:
    store = Store(tmp_path / "state.sqlite")
    store.put_pages("f", "2", [(1, "t", "[]", "{}", "{}", "digest-1")])
    store.put_page_extracts("f", "2", "votes", [(1, "digest-1", "made from the first copy")])
    assert store.page_extracts("f", "2", "votes") == [(1, "digest-1", "made from the first copy")]
    assert store.page_extracts("f", "2", "other") == []
    store.put_pages("f", "2", [(1, "t", "[]", "{}", "{}", "digest-2")])  # the page changed since
    assert store.page_extracts("f", "2", "votes") == []
    store.put_page_extracts("f", "2", "votes", [(1, "digest-2", "made again")])
    store.drop_pages_after("f", "2", 0)
    assert store.page_extracts("f", "2", "votes") == []
    store.close()


# --- a count kept between re-tallies (host/recount.py) --------------------------------------------------


def recount(client: SyntheticTopic, cache: PageCache, store: Store, *, incremental: bool = True) -> Tally:
    return count_topic(client, cache, store, 2, CountRules(PLAYERS), incremental=incremental)[0]


def count_decoded_extracts(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many page extracts the count decodes (the pages it counts)."""
    decoded: list[int] = []
    real = tally_module._decoded

    def counting(text: str, number: int) -> Any:
        decoded.append(number)
        return real(text, number)

    monkeypatch.setattr(tally_module, "_decoded", counting)
    return decoded


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    kept = Store(tmp_path / "kept.sqlite")
    yield kept
    kept.close()


def test_a_kept_count_reads_on_from_where_it_stood_and_counts_what_a_full_count_counts(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = PageCache(store)
    client = SyntheticTopic([make_post(n) for n in range(1, 96)])
    first = recount(client, cache, store, incremental=False)
    assert first.kept is not None and first.kept.pages.through == 9  # all pages but the last
    client.posts += [make_post(n) for n in range(96, 121)]
    decoded = count_decoded_extracts(monkeypatch)
    again = recount(client, cache, store)
    assert decoded == [10, 11, 12]  # the page fetched again and the new ones: not the nine before
    assert again.posts == 120 and not again.complete
    expected = tally_posts(client.posts, PLAYERS, complete=False)
    assert expected.records and any(r.reason == "superseded" for r in expected.records)
    assert summary(again) == summary(expected)  # the records are made when read: every one of the day


def test_a_change_on_a_counted_page_counts_the_day_again(store: Store, tmp_path: Path) -> None:
    """An edit the decisive read saw on page 1 (no notice) changes that page: what was kept of it is not
    read on from, and the re-tally counts what reads of posts through a cache of their own count."""
    posts = [make_post(n) for n in range(1, 96)]
    edited = [make_post(3, vote("player1")) if p.post_id == 3 else p for p in posts]
    grown = [*edited, *(make_post(n) for n in range(96, 101))]
    cache = PageCache(store)
    recount(SyntheticTopic(posts), cache, store, incremental=False)
    recount(SyntheticTopic(edited), cache, store, incremental=False)
    again = recount(SyntheticTopic(grown), cache, store)
    with PageCache(Store(tmp_path / "plain.sqlite")) as plain:
        read_topic(SyntheticTopic(posts), plain, 2)
        read_topic(SyntheticTopic(edited), plain, 2)
        expected = tally_posts(read_topic(SyntheticTopic(grown), plain, 2, incremental=True).posts, PLAYERS)
    record = next(r for r in again.records if r.post_id == 3)
    assert (record.target, record.reason) == ("player1", "changed")
    assert summary(again) == summary(expected)


def test_a_count_of_other_players_or_bounds_is_not_read_on_from(store: Store) -> None:
    cache = PageCache(store)
    client = SyntheticTopic([make_post(n) for n in range(1, 96)])
    recount(client, cache, store, incremental=False)
    client.posts += [make_post(n) for n in range(96, 106)]
    living = PLAYERS[:4]  # player4 died: his votes are no longer counted
    rules = CountRules(living, dead=[PLAYERS[4]])
    again = count_topic(client, cache, store, 2, rules, incremental=True)[0]
    assert summary(again) == summary(tally_posts(client.posts, living, dead=[PLAYERS[4]], complete=False))


def test_a_kept_count_that_does_not_read_is_made_anew(store: Store) -> None:
    cache = PageCache(store)
    client = SyntheticTopic([make_post(n) for n in range(1, 96)])
    recount(client, cache, store, incremental=False)
    name = CountRules(PLAYERS).name
    through, pages, _ = store.count_state("http://forum.test/", "2", name) or (0, "", "")
    store.put_count_state("http://forum.test/", "2", name, through, pages, '{"scan": {"made": "x"}}')
    client.posts += [make_post(n) for n in range(96, 106)]
    again = recount(client, cache, store)
    assert summary(again) == summary(tally_posts(client.posts, PLAYERS, complete=False))


def test_a_new_post_stamped_before_the_counted_ones_counts_the_day_in_time_order(store: Store) -> None:
    cache = PageCache(store)
    client = SyntheticTopic([make_post(n) for n in range(1, 96)])
    recount(client, cache, store, incremental=False)
    early = make_post(96, vote("player2")).model_copy(update={"time": START + timedelta(minutes=10)})
    client.posts += [early, *(make_post(n) for n in range(97, 106))]
    again = recount(client, cache, store)
    assert summary(again) == summary(tally_posts(client.posts, PLAYERS, complete=False))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    votes=st.lists(st.tuples(st.integers(0, 4), st.integers(0, 5), st.integers(0, 2)), min_size=12, max_size=70),
    steps=st.lists(st.integers(1, 25), min_size=1, max_size=5),
    page_size=st.integers(3, 8),
)
def test_every_retally_counts_what_a_count_of_every_post_counts(
    tmp_path_factory: pytest.TempPathFactory, votes: list[tuple[int, int, int]], steps: list[int], page_size: int
) -> None:
    """Random days (votes for the living, a ghost, nobody; bold-only names; chatter), grown a few posts at a
    time, each growth re-tallied from what the last count kept: the count a count of every post gives."""
    posts = [random_post(n + 1, *choice) for n, choice in enumerate(votes)]
    store = Store(tmp_path_factory.mktemp("day") / "state.sqlite")
    cache, client = PageCache(store), SyntheticTopic([], page_size)
    client.posts = posts[: steps[0]]
    recount(client, cache, store, incremental=False)
    for grow in [*steps[1:], len(posts)]:
        client.posts = posts[: len(client.posts) + grow]
        again = recount(client, cache, store)
        assert summary(again) == summary(tally_posts(client.posts, PLAYERS, complete=False))
    store.close()


def random_post(post_id: int, author: int, target: int, kind: int) -> Post:
    name = PLAYERS[target] if target < 5 else "nobody"
    body = vote(name) if kind == 0 else f"<strong>{name}</strong>" if kind == 1 else "хм"
    return make_post(post_id, body).model_copy(update={"author": PLAYERS[author]})


def test_a_damaged_kept_page_is_one_line_naming_the_page(store: Store) -> None:
    cache = PageCache(store)
    client = SyntheticTopic([make_post(n) for n in range(1, 36)])
    recount(client, cache, store, incremental=False)
    store.db.execute("UPDATE page_extracts SET data = '{\"ids\": [1' WHERE page = 2")
    store.db.execute("DELETE FROM count_states")  # the re-tally must count every page: page 2 included
    with pytest.raises(StateError, match=r"^the votes kept in the state file for page 2 of the topic do not read"):
        recount(client, cache, store)
    assert summary(recount(client, cache, store, incremental=False)) == summary(tally_posts(client.posts, PLAYERS))
