"""A whole salon game run by the watch on the fake board under the `duel` schedule: each day ends as soon as every
living player has moved (his vote by PM and his role's own order, as the engine says), the moderators approve, the
watch publishes and opens the next day, until the town wins. Nobody waits for a deadline."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from fakeboard import Board, BoardServer
from forumbot.config import GameConfig
from forumbot.engine.model import GameState
from forumbot.forum.client import ClientSettings
from forumbot.forum.http import HttpSettings
from forumbot.forum.phpbb.reader import PhpbbClient
from forumbot.forum.phpbb.writer import PhpbbPoster
from forumbot.forum.registry import open_client
from forumbot.host import games
from forumbot.host.publish import publish
from forumbot.host.watch import DUEL_REASON, PassReport, watch_once
from forumbot.store import Store
from tests.watch.watch_support import served_board

pytestmark = pytest.mark.real_sleep(reason="the client logs in on the real clock: phpBB's one-second form rule waits")
START = datetime(2026, 12, 1, 7, 0, tzinfo=UTC)  # the first deadline is hours away: only the duel ends a day
PLAYERS = ["Вито", "Томмазо", "Каттани", "Айболит", "Чикатило", "Кармен", "Иван", "Пётр"]
NAME = "Салон-дуэль"
SEED = 11


class Salon:
    def __init__(self, tmp_path: Path, board: Board, server: BoardServer, forum: int) -> None:
        self.board, self.path = board, tmp_path / "state.db"
        config = GameConfig.model_validate(
            {
                "game": {"name": NAME, "variant": "salon", "players": PLAYERS, "moderators": ["Модератор"]},
                "forum": {"engine": "phpbb", "base_url": server.url, "forum_id": forum},
                "watch": {"schedule": "duel", "auto_publish": True, "interim_counts": False},
            }
        )
        store = Store(self.path)
        games.create_game(store, config)
        topic = board.add_topic(forum, f"{NAME}. День 1", "host_bot", "День 1", START)
        games.deal_game(store, NAME, START, topic=str(topic), seed=SEED)
        dealt = store.game(NAME).state
        assert dealt is not None
        self.state: GameState = dealt
        store.close()
        client = open_client(
            ClientSettings(
                forum=server.url, username="host_bot", password="pw", dialect="phpbb", http=HttpSettings(min_interval=0)
            )
        )
        assert isinstance(client, PhpbbClient)
        self.client = client
        self.poster = PhpbbPoster(self.client, flood_interval=0)

    def who(self, role: str, boss: bool | None = None) -> list[str]:
        return [p.nick for p in self.state.players if p.role == role and (boss is None or p.boss == boss)]

    def run(self, minutes: int) -> PassReport:
        store = Store(self.path)
        when = START + timedelta(minutes=minutes)
        try:
            return watch_once(
                store, NAME, self.client, self.poster, when, publish=lambda: publish(store, NAME, self.client, when)
            )
        finally:
            store.close()

    def send(self, sender: str, body: str, minutes: int) -> None:
        self.board.send_pm(sender, "host_bot", "Игра-мафия", body, START + timedelta(minutes=minutes))

    def moves(self, minute: int, votes: dict[str, str], orders: dict[str, str]) -> None:
        """Each player's letter: his vote («Расстреливаю — ник») and his role's order, one PM each."""
        for k, (voter, target) in enumerate(votes.items()):
            order = orders.get(voter)
            self.send(voter, f"Расстреливаю — {target}" + (f"\n{order}" if order else ""), minute + k)

    def stored(self) -> Store:
        return Store(self.path)


@pytest.fixture
def salon(tmp_path: Path) -> Iterator[Salon]:
    with served_board(PLAYERS) as (board, server, forum):
        yield Salon(tmp_path, board, server, forum)


def _play_day(salon: Salon, day: int, minute: int, votes: dict[str, str], orders: dict[str, str]) -> None:
    """All but the last player move; the day goes on. The last one moves; the duel makes the turn; the moderator
    approves; the next pass publishes it and opens the next day."""
    *first, last = votes
    salon.moves(minute, {n: votes[n] for n in first}, orders)
    salon.run(minute + 9)
    store = salon.stored()
    game_id = store.game(NAME).id
    assert store.draft(game_id, day) is None, f"day {day}: {last} has not moved yet"
    salon.moves(minute + 10, {last: votes[last]}, orders)
    assert salon.run(minute + 12).drafted
    found = store.draft(game_id, day)
    assert found is not None and found.draft.early is not None and found.draft.early.reason == DUEL_REASON
    games.approve(store, NAME, "Модератор")
    assert salon.run(minute + 14).published
    store.close()


def test_the_duel_runs_a_whole_salon_game_to_the_towns_win(salon: Salon) -> None:
    [boss], [mafioso] = salon.who("mafia", boss=True), salon.who("mafia", boss=False)
    [commissar], [doctor], [maniac], [hetaera] = (salon.who(r) for r in ("commissar", "doctor", "maniac", "hetaera"))
    civ1, civ2 = salon.who("civilian")

    # Night 1: the mafia kills civ1; the maniac's visit voids civ2's vote; the town shoots the ordinary mafioso.
    everyone = {n: mafioso for n in PLAYERS} | {boss: civ1, mafioso: civ1}
    _play_day(
        salon,
        1,
        5,
        everyone,
        {
            maniac: f"Насилую — {civ2}",
            hetaera: f"Сплю — {civ1}",
            boss: f"Убиваем — {civ1}",
            mafioso: f"Убиваем — {civ1}",
            doctor: f"Лечу — {doctor}",
            commissar: f"Проверяю — {boss}",
        },
    )
    store = salon.stored()
    state = store.game(NAME).state
    assert state is not None and state.day == 2 and state.winner == "none"
    assert {p.nick for p in state.players if not p.alive} == {civ1, mafioso}
    store.close()

    # Night 2: the doctor saves civ2 from the mafia; the town shoots the boss.
    living = [n for n in PLAYERS if n not in (civ1, mafioso)]
    _play_day(
        salon,
        2,
        40,
        {n: boss for n in living} | {boss: civ2},
        {
            maniac: f"Насилую — {hetaera}",
            hetaera: f"Сплю — {civ2}",
            boss: f"Убиваем — {civ2}",
            doctor: f"Лечу — {civ2}",
            commissar: f"Проверяю — {maniac}",
        },
    )
    store = salon.stored()
    state = store.game(NAME).state
    assert state is not None and state.day == 3 and not state.player(boss).alive  # type: ignore[union-attr]
    assert state.player(civ2).alive  # type: ignore[union-attr]
    store.close()

    # Day 3: the town shoots the maniac and wins.
    living = [n for n in living if n != boss]
    _play_day(
        salon,
        3,
        80,
        {n: maniac for n in living} | {maniac: civ2},
        {
            maniac: f"Насилую — {civ2}",
            hetaera: f"Сплю — {doctor}",
            doctor: f"Лечу — {commissar}",
            commissar: f"Проверяю — {hetaera}",
        },
    )
    store = salon.stored()
    row = store.game(NAME)
    assert row.state is not None and row.state.winner == "town"
    titles = [t.title for t in salon.board.topics]
    assert titles == [f"{NAME}. День {n}" for n in (1, 2, 3)] + [f"{NAME}. День 3: итоги игры"], titles
    store.close()
