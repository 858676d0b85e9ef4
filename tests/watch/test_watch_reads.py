"""What a watch pass reads of the day topic: only its new pages between whole reads, every page before a count
is posted, at least once every `count_every_minutes`, and at the deadline (host/watch.py, `_interim_count`)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest

from fakeboard import Board, BoardServer
from forumbot.store import Store
from tests.watch.test_watch import PLAYERS, START, Game
from tests.watch.watch_support import served_board

pytestmark = pytest.mark.real_sleep(reason="the client logs in on the real clock: phpBB's one-second form rule waits")
PER_PAGE = 25
BIG_DAY = 1000  # posts already in the topic: 40 pages


@pytest.fixture
def board() -> Iterator[tuple[Board, BoardServer, int]]:
    with served_board(PLAYERS, posts_per_page=PER_PAGE) as served:
        yield served


class BigDay(Game):
    """A day whose topic holds `BIG_DAY` posts before the first pass: Alice's vote for Пётр is its second."""

    def __init__(self, served: tuple[Board, BoardServer, int], tmp_path: object, **watch: object) -> None:
        board, self.server, forum = served
        super().__init__(tmp_path, self.server, board, forum, **watch)  # type: ignore[arg-type]
        self.alice_vote = board.add_post(self.topic, "Alice", "[color=red][b]Пётр[/b][/color]", START)
        for n in range(BIG_DAY - 2):
            board.add_post(self.topic, PLAYERS[n % len(PLAYERS)], f"болтовня {n}", START + timedelta(seconds=n + 1))

    def pages_read(self, minutes: int) -> int:
        """The pass at `minutes`, and how many pages of the day topic it fetched."""
        self.server.reset_log()
        self.run(minutes)
        return self.server.count("viewtopic.php")

    def chatter(self, posts: int, minutes: int) -> None:
        for n in range(posts):
            self.board.add_post(self.topic, PLAYERS[n % len(PLAYERS)], f"ещё {n}", START + timedelta(minutes=minutes))

    def counts_posted(self) -> list[str]:
        return [body for _, _, body in self.messenger.replies]

    def last_count(self) -> dict[str, int]:
        """The counts of the last count posted, as the state file keeps them."""
        store = Store(self.path)
        try:
            last = store.last_vote_count(store.game("Мафия").id, 1)
            return dict(last["counts"]) if last else {}
        finally:
            store.close()


def test_a_pass_after_25_new_posts_on_a_big_day_fetches_at_most_3_pages(
    board: tuple[Board, BoardServer, int], tmp_path: object
) -> None:
    day = BigDay(board, tmp_path, count_every_minutes=60, count_every_posts=100)
    assert day.pages_read(10) == BIG_DAY // PER_PAGE  # the first pass reads the day whole (and posts a count)
    assert len(day.counts_posted()) == 1
    for minutes in (20, 30, 40):
        day.chatter(25, minutes - 1)
        assert day.pages_read(minutes) <= 3
    assert len(day.counts_posted()) == 1  # nothing changed the count
    assert day.pages_read(70) == -(-(BIG_DAY + 75) // PER_PAGE)  # an hour after the last whole read: whole again


def test_a_count_is_posted_only_from_a_whole_read_that_sees_an_edit_on_an_old_page(
    board: tuple[Board, BoardServer, int], tmp_path: object
) -> None:
    day = BigDay(board, tmp_path, count_every_minutes=60, count_every_posts=5)
    day.run(10)
    assert "Лидер: Пётр — 1 голос." in day.counts_posted()[0]
    day.board.edit_post(day.alice_vote, "[color=red][b]Шарик[/b][/color]", track=False)  # no notice of it
    assert day.pages_read(20) <= 2  # the edit is on page 1: a pass between whole reads does not see it
    for n, voter in enumerate(("Bob Smith", "Charlie", "Ёжик", "Dana_99", "Mr. Pink")):
        day.vote(voter, "Кот Матроскин", 21 + n)
    assert day.pages_read(30) > BIG_DAY // PER_PAGE  # the new pages make a count due: every page read first
    posted = day.counts_posted()
    assert len(posted) == 2 and "Лидер: Кот Матроскин — 5 голосов." in posted[1]
    assert day.last_count() == {"Кот Матроскин": 5}  # Alice's edited vote counts neither for Пётр nor Шарик


def test_an_edit_alone_changes_the_count_posted_within_count_every_minutes(
    board: tuple[Board, BoardServer, int], tmp_path: object
) -> None:
    day = BigDay(board, tmp_path, count_every_minutes=30, count_every_posts=5)
    day.vote("Bob Smith", "Шарик", 5)
    day.run(10)
    assert day.last_count() == {"Пётр": 1, "Шарик": 1}
    day.board.edit_post(day.alice_vote, "передумала", editor="Alice", reason="передумала")
    day.run(20)
    day.run(30)
    assert len(day.counts_posted()) == 1  # read between whole reads: the edit is not seen yet
    day.run(40)  # 30 minutes after the last whole read: read whole, the count changed, posted
    assert len(day.counts_posted()) == 2 and day.last_count() == {"Шарик": 1}


def test_an_edit_on_an_old_page_is_seen_by_the_deadline_count(
    board: tuple[Board, BoardServer, int], tmp_path: object
) -> None:
    day = BigDay(board, tmp_path, count_every_minutes=600, count_every_posts=1000)
    day.vote("Bob Smith", "Пётр", 5)
    day.run(10)
    day.board.edit_post(day.alice_vote, "[color=red][b]Шарик[/b][/color]", track=False)
    assert day.pages_read(20) <= 2
    day.run(13 * 60 + 1)  # past the deadline: end-day
    store = Store(day.path)
    try:
        draft = store.draft(store.game("Мафия").id, 1)
        assert draft is not None
        assert draft.draft.tally == {"Пётр": 1}  # Bob's; Alice's changed vote is void
        alice = [row for row in draft.draft.votes if row.voter == "Alice"]
        assert alice and not any(row.counted for row in alice)
    finally:
        store.close()
