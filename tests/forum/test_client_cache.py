"""Incremental topic reading (`forumbot.forum.cache`): what a re-tally fetches, and edits it notices."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import respx

from fakeboard.clock import FakeClock
from fakeboard.phpbb.synthetic import SyntheticTopic
from forumbot.forum import cache as cache_module
from forumbot.forum.cache import CachedPage, PageCache, fetch_topic_incremental, read_topic
from forumbot.forum.http import HttpSettings
from forumbot.forum.phpbb.reader import PhpbbClient
from forumbot.posts import Post, TopicPage
from forumbot.store import Store

START = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


def make_post(post_id: int, text: str | None = None, **extra: Any) -> Post:
    return Post(
        post_id=post_id,
        topic_id=2,
        author=f"player{post_id % 5}",
        author_id=post_id % 5,
        time=START + timedelta(minutes=post_id),
        content_html=f"<div>{text or f'post {post_id}'}</div>",
        permalink=f"http://forum.test/viewtopic.php?p={post_id}#p{post_id}",
        **extra,
    )


@pytest.fixture
def cache(tmp_path: Path) -> Iterator[PageCache]:
    with PageCache(Store(tmp_path / "pages.sqlite")) as c:
        yield c


def ids(posts: list[Post]) -> list[int]:
    return [post.post_id for post in posts]


def test_page_cache_round_trip(cache: PageCache) -> None:
    page = TopicPage(dialect="phpbb", topic_id=2, title="t", page=1, page_count=1, posts=(make_post(1),))
    cache.put("http://forum.test/", 2, page)
    assert cache.last_page("http://forum.test/", 2) == 1 and cache.last_page("http://forum.test/", 3) is None
    entry = cache.get("http://forum.test/", "2", 1)
    assert entry is not None and entry.page == page and set(entry.edit_state) == {1}
    cache.drop_after("http://forum.test/", 2, 0)
    assert cache.get("http://forum.test/", 2, 1) is None


def test_retally_fetches_only_the_last_page_and_new_pages(cache: PageCache) -> None:
    client = SyntheticTopic([make_post(n) for n in range(1, 17)])
    assert ids(fetch_topic_incremental(client, cache, 2)) == list(range(1, 17))
    assert sorted(client.calls) == [1, 2]

    client.calls.clear()
    assert ids(fetch_topic_incremental(client, cache, 2)) == list(range(1, 17))
    assert client.calls == [2]  # no new posts: the last page only

    client.posts += [make_post(n) for n in range(17, 27)]  # spills onto page 3
    client.calls.clear()
    assert ids(fetch_topic_incremental(client, cache, 2)) == list(range(1, 27))
    assert sorted(client.calls) == [2, 3]


def test_an_edited_post_on_a_refetched_page_replaces_the_cached_one_and_stays_marked(cache: PageCache) -> None:
    client = SyntheticTopic([make_post(n) for n in range(1, 17)])
    fetch_topic_incremental(client, cache, 2)
    client.posts[14] = make_post(15, "changed vote")  # no notice: phpBB prints none for a last post
    post = fetch_topic_incremental(client, cache, 2)[14]
    assert post.content_html == "<div>changed vote</div>" and post.edited
    assert fetch_topic_incremental(client, cache, 2)[14].edited  # the mark survives the next read


def test_a_forum_edit_notice_is_kept_as_printed(cache: PageCache) -> None:
    client = SyntheticTopic([make_post(n) for n in range(1, 17)])
    fetch_topic_incremental(client, cache, 2)
    client.posts[12] = make_post(13, "new", edited=True, edited_by="admin", edit_count=1)
    post = fetch_topic_incremental(client, cache, 2)[12]
    assert post.edited_by == "admin" and post.edit_count == 1


def test_a_deletion_on_an_earlier_page_forces_a_full_read(cache: PageCache) -> None:
    client = SyntheticTopic([make_post(n) for n in range(1, 17)])
    fetch_topic_incremental(client, cache, 2)
    del client.posts[3]  # post 4 goes: post 11 moves up to page 1
    client.calls.clear()
    posts = fetch_topic_incremental(client, cache, 2)
    assert ids(posts) == [n for n in range(1, 17) if n != 4]
    assert sorted(client.calls) == [1, 2, 2]  # the last page, then (shift seen) everything


def test_a_topic_that_shrank_drops_its_stale_pages(cache: PageCache) -> None:
    client = SyntheticTopic([make_post(n) for n in range(1, 24)])
    fetch_topic_incremental(client, cache, 2)
    del client.posts[20:]  # page 3 disappears; phpBB clamps start=20 to page 2
    posts = fetch_topic_incremental(client, cache, 2)
    assert ids(posts) == list(range(1, 21))
    assert cache.last_page(client.forum, 2) == 2


def test_retally_over_http_requests_one_page(fake_boards: ModuleType, clock: FakeClock, tmp_path: Path) -> None:
    """The same on the real captured pages, counting HTTP requests to the fake phpBB board."""
    board = fake_boards.FakePhpbb(clock)
    with respx.mock(assert_all_called=False) as router, PageCache(Store(tmp_path / "c.sqlite")) as cache:
        router.route(host="forum.test").mock(side_effect=board.respond)
        client = PhpbbClient(
            "http://forum.test/board/",
            username=board.username,
            password=board.password,
            settings=HttpSettings(min_interval=0),
            clock=clock,
        )
        first = fetch_topic_incremental(client, cache, 2)
        second = fetch_topic_incremental(client, cache, "2")
    assert ids(first) == ids(second) == list(range(2, 18)) and first == second
    assert board.count("viewtopic.php?t=2") == 1 and board.count("viewtopic.php?t=2&start=10") == 2


def test_a_full_read_of_an_unchanged_topic_decodes_no_cached_page(
    cache: PageCache, monkeypatch: pytest.MonkeyPatch
) -> None:
    from forumbot.forum import cache as module

    client = SyntheticTopic([make_post(n) for n in range(1, 27)])
    read_topic(client, cache, 2)
    decoded: list[int] = []
    real = module._cached

    def counting(row: tuple[str, str, str]) -> CachedPage:
        entry = real(row)
        decoded.append(entry.page.page)
        return entry

    monkeypatch.setattr(module, "_cached", counting)
    assert ids(read_topic(client, cache, 2).posts) == list(range(1, 27))
    assert decoded == []  # every fingerprint matched: no cached copy was needed
    client.posts[14] = make_post(15, "changed vote")
    posts = read_topic(client, cache, 2).posts
    assert decoded == [2] and posts[14].edited and posts[14].changed_since_read  # only the edited post's page
    decoded.clear()
    assert read_topic(client, cache, 2).posts[14].edited  # the mark is carried from the cached copy
    assert decoded == [2]


def test_a_read_makes_each_fingerprint_once_and_writes_those_of_the_posts_it_keeps(
    cache: PageCache, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = SyntheticTopic([make_post(n) for n in range(1, 27)])
    read_topic(client, cache, 2)
    client.posts[14] = make_post(15, "changed vote")  # an edit without a notice: the read marks it
    made: list[int] = []
    real = cache_module.fingerprint

    def counting(post: Post) -> str:
        made.append(post.post_id)
        return real(post)

    monkeypatch.setattr(cache_module, "fingerprint", counting)
    posts = read_topic(client, cache, 2).posts
    assert posts[14].edited
    # each post compared once, and that fingerprint written; the marked copy of post 15 is another post
    assert sorted(made) == sorted([*range(1, 27), 15])
    kept = {n: f for entry in cache.pages("http://forum.test/", 2) for n, f in entry.edit_state.items()}
    assert kept == {post.post_id: real(post) for post in posts}


def test_a_read_writes_its_pages_a_batch_at_a_time(cache: PageCache, monkeypatch: pytest.MonkeyPatch) -> None:
    from forumbot.forum.cache import PAGES_PER_WRITE

    client = SyntheticTopic([make_post(n) for n in range(1, 601)])  # 60 pages of 10
    writes: list[list[int]] = []
    real = cache._rows.put_pages

    def counting(forum: str, topic: str, rows: Iterable[tuple[int, str, str, str, str, str]]) -> None:
        rows = list(rows)
        writes.append([row[0] for row in rows])
        real(forum, topic, rows)

    monkeypatch.setattr(cache._rows, "put_pages", counting)
    assert len(read_topic(client, cache, 2).posts) == 600
    assert [len(batch) for batch in writes] == [PAGES_PER_WRITE, PAGES_PER_WRITE, 60 - 2 * PAGES_PER_WRITE]
    assert sorted(n for batch in writes for n in batch) == list(range(1, 61))
    assert [entry.page.page for entry in cache.pages("http://forum.test/", 2)] == list(range(1, 61))


def test_an_edit_on_a_post_that_moved_past_a_written_batch_is_still_seen(cache: PageCache) -> None:
    """Posts merged in at the front move every later post one place on; the read writes its pages 25 at
    a time, so post 50 (cached on page 25, now on page 26) is looked up after page 25 was written anew:
    its copy from before the read is what tells that it was edited without a notice."""
    posts = [make_post(n) for n in range(1, 61)]
    read_topic(SyntheticTopic(posts, page_size=2), cache, 2)
    merged = make_post(0).model_copy(update={"time": START - timedelta(minutes=5)})
    moved = [merged, *(make_post(50, "исправлено") if p.post_id == 50 else p for p in posts)]
    read = read_topic(SyntheticTopic(moved, page_size=2), cache, 2)
    post = next(p for p in read.posts if p.post_id == 50)
    assert post.edited and post.changed_since_read
    assert [p.post_id for p in read.posts if p.edited] == [50]


def test_posts_moved_back_by_a_deletion_decode_only_the_deleted_posts_page(
    cache: PageCache, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A deletion moves every later post back a place: each was read on its fresh page before its old page
    is written anew, so no old copy of them is kept; only the deleted post's page is decoded (its post
    might have moved on: a read cannot tell it from a deleted one until the end)."""
    posts = [make_post(n) for n in range(1, 61)]
    read_topic(SyntheticTopic(posts, page_size=2), cache, 2)
    decoded: list[int] = []
    real = cache_module._cached

    def counting(row: tuple[str, str, str]) -> CachedPage:
        entry = real(row)
        decoded.append(entry.page.page)
        return entry

    monkeypatch.setattr(cache_module, "_cached", counting)
    read = read_topic(SyntheticTopic(posts[1:], page_size=2), cache, 2)
    assert decoded == [1] and [p.post_id for p in read.posts] == list(range(2, 61))
