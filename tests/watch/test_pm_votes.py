"""A vote sent by PM gets the receipt of a vote where the game takes PM votes (salon, kozanostra), and is refused
where votes are cast in the thread (gameru-3.3). Whatever the receipt says, the day's end agrees with it."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from fakeboard import Board, BoardServer
from forumbot.config import GameConfig
from forumbot.engine.model import GameState
from forumbot.forum.client import ClientSettings
from forumbot.forum.http import HttpSettings
from forumbot.forum.registry import open_client
from forumbot.host import games
from forumbot.host.watch import vote_channels, watch_once
from forumbot.store import Store
from tests.watch.watch_support import served_board

pytestmark = pytest.mark.real_sleep(reason="the client logs in on the real clock: phpBB's one-second form rule waits")
START = datetime(2026, 12, 1, 7, 0, tzinfo=UTC)  # the day ends at 23:00 Moscow (20:00 UTC)
PLAYERS = ["Alice", "Bob Smith", "Пётр", "Шарик", "Кот Матроскин", "Ёжик", "Charlie", "Dana_99", "Незнайка"]


@dataclass
class Recorder:
    pms: list[tuple[tuple[str, ...], str, str]] = field(default_factory=list)

    def send_pm(self, recipients: Sequence[str], subject: str, message: str, *, marker: str | None = None) -> None:
        self.pms.append((tuple(recipients), subject, message))

    def post_reply(self, topic: str, subject: str, message: str, *, marker: str | None = None) -> int:
        return 1

    def find_marker_in_sent(self, marker: str, *, subject: str | None = None, recipients: Sequence[str] = ()) -> None:
        return None

    def find_marker_in_topic(self, topic_id: int, marker: str) -> int | None:
        return None

    def to(self, nick: str) -> list[str]:
        return [body for recipients, _, body in self.pms if nick in recipients]


@pytest.fixture
def served() -> Iterator[tuple[Board, BoardServer, int]]:
    with served_board(PLAYERS, moderators=()) as served:
        yield served


def play(
    tmp_path: Path, served: tuple[Board, BoardServer, int], variant: str, pms: dict[str, str], dead: str = ""
) -> tuple[Recorder, dict[str, object]]:
    """Deal a game of `variant` (`dead` already dead), send the PMs (sender -> text), run a pass, then the
    day's end."""
    board, server, forum = served
    store = Store(tmp_path / "state.db")
    config = GameConfig.model_validate(
        {
            "game": {"name": "Игра", "variant": variant, "players": PLAYERS},
            "forum": {"engine": "phpbb", "base_url": server.url, "forum_id": forum},
            "watch": {"interim_counts": False},
        }
    )
    games.create_game(store, config)
    topic = board.add_topic(forum, "Игра. День 1", "host_bot", "День 1", START)
    games.deal_game(store, "Игра", START, topic=str(topic), seed=11)
    row = store.game("Игра")
    assert row.state is not None
    if dead:  # the host's records: he died before this day
        players = tuple(p.model_copy(update={"alive": False}) if p.nick == dead else p for p in row.state.players)
        store.advance(row.id, 0, row.state.model_copy(update={"players": players}), {})
    client = open_client(
        ClientSettings(
            forum=server.url, username="host_bot", password="pw", dialect="phpbb", http=HttpSettings(min_interval=0)
        )
    )
    messenger = Recorder()
    for i, (sender, body) in enumerate(pms.items()):
        board.send_pm(sender, "host_bot", "голос", body, START + timedelta(minutes=10 + i))
    watch_once(store, "Игра", client, messenger, START + timedelta(minutes=30))
    games.end_day(store, "Игра", client)
    draft = store.draft(store.game("Игра").id, 1)
    assert draft is not None
    return messenger, draft.draft.to_json()


def counted_pm_votes(payload: dict[str, object]) -> dict[str, str]:
    votes = payload["votes"]
    assert isinstance(votes, list)
    return {v["voter"]: v["target"] for v in votes if v["channel"] == "pm" and v["counted"]}


@pytest.mark.parametrize(("variant", "line"), [("salon", "Расстреливаю — Пётр"), ("kozanostra", "V Пётр")])
def test_a_pm_vote_is_accepted_as_a_vote_where_the_game_takes_them(
    tmp_path: Path, served: tuple[Board, BoardServer, int], variant: str, line: str
) -> None:
    messenger, payload = play(tmp_path, served, variant, {"Alice": line, "Charlie": "Голосую: Никто"})
    assert messenger.to("Alice")[0].startswith("Принято: голос — Пётр\n")
    assert messenger.to("Charlie")[0].startswith("Не принято: «Голосую: Никто»: нет игрока «Никто»")
    assert counted_pm_votes(payload) == {"Alice": "Пётр"}  # the receipt and the day's end agree


def test_a_pm_vote_for_a_dead_player_or_from_one_is_refused_with_why(
    tmp_path: Path, served: tuple[Board, BoardServer, int]
) -> None:
    pms = {"Alice": "Расстреливаю — Шарик", "Шарик": "Расстреливаю — Alice", "Пётр": "Расстреливаю — Пётр, Alice"}
    messenger, payload = play(tmp_path, served, "salon", pms, dead="Шарик")
    assert messenger.to("Alice")[0].startswith("Не принято: Голосую — Шарик: игрок Шарик выбыл из игры.")
    assert messenger.to("Шарик")[0].startswith("Не принято: Голосую — Alice: вы выбыли из игры.")
    refused = "Не принято: Голосую — Пётр, Alice: сегодня можно назвать не больше 1 (названо 2)"
    assert messenger.to("Пётр")[0].startswith(refused)
    void = payload["void"]
    assert isinstance(void, list)
    voided = {v["actor"] for v in void if v["kind"] == "vote"}
    assert set(counted_pm_votes(payload)) - voided == set()  # the day's end agrees: none of them counts


def test_a_pm_vote_is_refused_where_votes_are_cast_in_the_thread(
    tmp_path: Path, served: tuple[Board, BoardServer, int]
) -> None:
    messenger, payload = play(tmp_path, served, "gameru-3.3", {"Alice": "Голосую — Пётр"})
    assert messenger.to("Alice")[0].startswith("Не принято: Голосую — Пётр: в этой игре голосуют в теме дня")
    assert counted_pm_votes(payload) == {}


def test_where_votes_go_is_asked_of_the_ruleset() -> None:
    players = tuple({"nick": n, "role": "civilian"} for n in PLAYERS)
    assert vote_channels(GameState.model_validate({"variant": "salon", "players": players})) == {"pm"}
    assert vote_channels(GameState.model_validate({"variant": "gameru-3.3", "players": players})) == {"thread"}
    assert "pm" in vote_channels(GameState.model_validate({"variant": "kozanostra", "players": players}))
