"""What the `duel` schedule's check reads of a big day topic (host/watch.py, `_duel`, `DayThread`): its new pages
only while someone has not moved; every page, once, before it ends the day; and the day ends exactly when every
living player has moved, a vote added or withdrawn by an edit on an old page included."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from fakeboard import Board, BoardServer
from forumbot.config import GameConfig
from forumbot.engine.model import GameState
from forumbot.forum.client import ClientSettings, ForumClient
from forumbot.forum.http import HttpSettings
from forumbot.forum.phpbb.reader import PhpbbClient
from forumbot.forum.phpbb.writer import PhpbbPoster
from forumbot.forum.registry import open_client
from forumbot.host import games
from forumbot.host.watch import DUEL_REASON, watch_once
from forumbot.store import Store
from tests.watch.watch_support import served_board

pytestmark = pytest.mark.real_sleep(reason="the client logs in on the real clock: phpBB's one-second form rule waits")
START = datetime(2026, 12, 1, 7, 0, tzinfo=UTC)  # the day ends at 23:00 Moscow, 13 hours later
PLAYERS = ["Фредо", "Сонни", "Каттани", "Джо", "Анна", "Том", "Билл", "Лиза"]
NAME = "kozanostra-big"
PER_PAGE = 25
BIG_DAY = 1000  # posts in the topic before the first pass: 40 full pages
WHOLE = BIG_DAY // PER_PAGE
ENDING = 3 + 2 * (WHOLE + 1)  # the pass that ends the day: its new pages, the confirming read and end-day's own


@pytest.fixture
def served() -> Iterator[tuple[Board, BoardServer, int]]:
    with served_board(PLAYERS, posts_per_page=PER_PAGE) as served:
        yield served


class BigDuel:
    """A kozanostra day under the `duel` schedule whose topic holds `BIG_DAY` posts: each player's greeting
    on page 1 (`hello`), then chatter. An edited vote counts (`edited_votes`), so an edit may add one."""

    def __init__(self, tmp_path: Path, served: tuple[Board, BoardServer, int], *, interim_counts: bool) -> None:
        self.board, self.server, forum = served
        self.path = tmp_path / "state.db"
        config = GameConfig.model_validate(
            {
                "game": {
                    "name": NAME,
                    "variant": "kozanostra",
                    "players": PLAYERS,
                    "moderators": ["Модератор"],
                    "options": {"game_type": "kozanostra", "edited_votes": "count"},
                },
                "forum": {"engine": "phpbb", "base_url": self.server.url, "forum_id": forum},
                "watch": {
                    "schedule": "duel",
                    "interim_counts": interim_counts,
                    "count_every_minutes": 60,
                    "count_every_posts": 1000,
                },
            }
        )
        store = Store(self.path)
        games.create_game(store, config)
        self.topic = self.board.add_topic(forum, f"{NAME}. День 1", "host_bot", "День 1", START)
        games.deal_game(store, NAME, START, topic=str(self.topic))
        self.state: GameState = store.game(NAME).state  # type: ignore[assignment]
        store.close()
        self.hello = {
            nick: self.board.add_post(self.topic, nick, "Всем привет", START + timedelta(seconds=n))
            for n, nick in enumerate(PLAYERS)
        }
        for n in range(BIG_DAY - 1 - len(PLAYERS)):
            when = START + timedelta(seconds=10 + n * 0.4)
            self.board.add_post(self.topic, PLAYERS[n % len(PLAYERS)], f"болтовня {n}", when)
        client = open_client(
            ClientSettings(
                forum=self.server.url,
                username="host_bot",
                password="pw",
                dialect="phpbb",
                http=HttpSettings(min_interval=0),
            )
        )
        assert isinstance(client, PhpbbClient)
        self.client: ForumClient = client
        self.poster = PhpbbPoster(client, flood_interval=0)

    def nicks(self, role: str) -> list[str]:
        return [p.nick for p in self.state.players if p.role == role]

    def pages_read(self, minutes: int) -> int:
        """The pass at `minutes`, and how many pages of the day topic it fetched."""
        self.server.reset_log()
        store = Store(self.path)  # a fresh process every pass: all progress must be in the file
        try:
            watch_once(store, NAME, self.client, self.poster, START + timedelta(minutes=minutes))
        finally:
            store.close()
        return self.server.count("viewtopic.php")

    def last_page(self) -> int:
        return -(-len(self.board.posts_of(self.topic)) // PER_PAGE)

    def ended(self) -> bool:
        """Whether the day was ended early by the duel (its draft made, with the duel's reason)."""
        store = Store(self.path)
        try:
            draft = store.draft(store.game(NAME).id, 1)
        finally:
            store.close()
        if draft is None:
            return False
        assert draft.draft.early is not None and draft.draft.early.reason == DUEL_REASON
        return True

    def orders(self, *, but_commissar: bool = False) -> None:
        """The mafia's kill and (unless `but_commissar`) the commissar's check, sent by PM at minutes 5 to 8."""
        mafia, civilians = self.nicks("mafia"), self.nicks("civilian")
        for i, nick in enumerate(mafia):
            self.pm(nick, f"Убиваем — {civilians[1]}", 5 + i)
        if not but_commissar:
            self.commissar_checks(8)

    def commissar_checks(self, minutes: int) -> None:
        self.pm(self.nicks("commissar")[0], f"Проверяю — {self.nicks('mafia')[0]}", minutes)

    def pm(self, sender: str, body: str, minutes: int) -> None:
        self.board.send_pm(sender, "host_bot", "приказ", body, START + timedelta(minutes=minutes))

    def vote(self, voter: str, minutes: int) -> None:
        """`voter` votes for the first civilian (himself, if he is it: a vote for oneself is a vote)."""
        body = f"[color=red][b]{self.nicks('civilian')[0]}[/b][/color]"
        self.board.add_post(self.topic, voter, body, START + timedelta(minutes=minutes))

    def chatter(self, posts: int, minutes: int) -> None:
        for n in range(posts):
            self.board.add_post(self.topic, PLAYERS[n % len(PLAYERS)], f"ещё {n}", START + timedelta(minutes=minutes))

    def edit_hello(self, nick: str, vote: bool, minutes: int) -> None:
        """`nick` edits his greeting on page 1 into a vote for the first civilian, or back into none."""
        body = f"[color=red][b]{self.nicks('civilian')[0]}[/b][/color]" if vote else "передумал"
        self.board.edit_post(self.hello[nick], body, time=START + timedelta(minutes=minutes))


@pytest.mark.parametrize("interim_counts", [False, True])
def test_a_duel_pass_after_a_few_new_posts_on_a_big_day_fetches_at_most_3_pages(
    served: tuple[Board, BoardServer, int], tmp_path: Path, interim_counts: bool
) -> None:
    day = BigDuel(tmp_path, served, interim_counts=interim_counts)
    day.orders()
    day.vote(PLAYERS[0], 9)
    assert day.pages_read(10) > WHOLE  # the first pass reads the day whole
    for minutes, voter in ((20, PLAYERS[1]), (30, PLAYERS[2]), (40, PLAYERS[3])):
        known = day.last_page()
        day.vote(voter, minutes - 2)
        day.chatter(24, minutes - 1)
        fetched = day.pages_read(minutes)
        assert fetched <= 3
        assert fetched == day.last_page() - known + 1  # one read of the new pages: the duel's and the count's
    assert not day.ended()
    assert day.pages_read(71) > WHOLE  # an hour after the last whole read: whole again
    assert not day.ended()


def test_the_day_ends_exactly_when_every_living_player_has_moved(
    served: tuple[Board, BoardServer, int], tmp_path: Path
) -> None:
    day = BigDuel(tmp_path, served, interim_counts=False)
    last, by_pm = PLAYERS[-1], PLAYERS[0]
    day.orders(but_commissar=True)
    day.pm(by_pm, f"V {day.nicks('civilian')[0]}", 9)  # a vote by PM counts as one in the thread
    for i, nick in enumerate(PLAYERS[1:-1]):
        day.vote(nick, 10 + i)
    assert day.pages_read(20) == 0 and not day.ended()  # an order is owed: the thread is not even read
    day.commissar_checks(21)
    assert day.pages_read(25) > WHOLE and not day.ended()  # every order is in, `last`'s vote is not
    day.vote(last, 26)
    assert day.pages_read(30) <= ENDING  # the new pages say everyone has moved; a whole read agrees
    assert day.ended()


def test_the_last_vote_made_by_an_edit_on_an_old_page_ends_the_day_at_the_next_whole_read(
    served: tuple[Board, BoardServer, int], tmp_path: Path
) -> None:
    day = BigDuel(tmp_path, served, interim_counts=False)
    last = PLAYERS[-1]
    day.orders()
    for i, nick in enumerate(PLAYERS[:-1]):
        day.vote(nick, 10 + i)
    assert day.pages_read(20) > WHOLE and not day.ended()  # the first read is whole: everyone but `last`
    day.edit_hello(last, vote=True, minutes=25)  # on page 1: no new page shows it
    day.chatter(3, 26)
    assert day.pages_read(30) <= 3 and not day.ended()
    assert day.pages_read(79) <= 3 and not day.ended()
    assert day.pages_read(80) > WHOLE  # an hour after the last whole read: the edit is seen
    assert day.ended()


def test_a_vote_withdrawn_by_an_edit_on_an_old_page_never_ends_the_day(
    served: tuple[Board, BoardServer, int], tmp_path: Path
) -> None:
    day = BigDuel(tmp_path, served, interim_counts=False)
    withdrawer, late = PLAYERS[-1], PLAYERS[0]
    day.edit_hello(withdrawer, vote=True, minutes=1)
    day.orders()
    for i, nick in enumerate(PLAYERS[1:-1]):
        day.vote(nick, 10 + i)
    assert day.pages_read(20) > WHOLE and not day.ended()  # everyone has voted but `late`
    day.edit_hello(withdrawer, vote=False, minutes=25)  # withdrawn on page 1: no new page shows it
    day.vote(late, 26)
    assert day.pages_read(30) > WHOLE  # the new pages say everyone has voted: every page is read to confirm
    assert not day.ended()
    assert day.pages_read(40) <= 3 and not day.ended()  # the count reads on from the confirming read
    day.vote(withdrawer, 45)
    assert day.pages_read(50) <= ENDING
    assert day.ended()
