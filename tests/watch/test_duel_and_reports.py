"""kozanostra through the watch on the fake board: the `duel` schedule ends the day once every living player
has moved; the personal morning reports go out with the publication, once each; `Z` sends the latest again."""

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
from forumbot.forum.phpbb.writer import PhpbbPoster
from forumbot.forum.registry import open_client
from forumbot.host import games
from forumbot.host.publish import publish
from forumbot.host.watch import DUEL_REASON, PassReport, watch_once
from forumbot.store import Store
from tests.watch.watch_support import served_board

pytestmark = pytest.mark.real_sleep(reason="the client logs in on the real clock: phpBB's one-second form rule waits")
START = datetime(2026, 12, 1, 7, 0, tzinfo=UTC)  # the day ends at 23:00 Moscow, 13 hours later
PLAYERS = ["Фредо", "Сонни", "Каттани", "Джо", "Анна", "Том", "Билл", "Лиза"]
NAME = "kozanostra3"


class Duel:
    def __init__(self, tmp_path: Path, board: Board, server: BoardServer, forum: int) -> None:
        self.board, self.path = board, tmp_path / "state.db"
        config = GameConfig.model_validate(
            {
                "game": {
                    "name": NAME,
                    "variant": "kozanostra",
                    "players": PLAYERS,
                    "moderators": ["Модератор"],
                    "morning_reports": True,
                    "options": {"game_type": "kozanostra"},
                },
                "forum": {"engine": "phpbb", "base_url": server.url, "forum_id": forum},
                "watch": {"schedule": "duel", "auto_publish": True, "interim_counts": False},
            }
        )
        store = Store(self.path)
        games.create_game(store, config)
        self.topic = board.add_topic(forum, f"{NAME}. День 1", "host_bot", "День 1", START)
        games.deal_game(store, NAME, START, topic=str(self.topic))
        self.state: GameState = store.game(NAME).state  # type: ignore[assignment]
        store.close()
        self.client: ForumClient = open_client(
            ClientSettings(
                forum=server.url, username="host_bot", password="pw", dialect="phpbb", http=HttpSettings(min_interval=0)
            )
        )
        self.poster = PhpbbPoster(self.client, flood_interval=0)

    def nicks(self, role: str) -> list[str]:
        return [p.nick for p in self.state.players if p.role == role]

    def run(self, minutes: int) -> PassReport:
        store = Store(self.path)
        when = START + timedelta(minutes=minutes)
        try:
            return watch_once(
                store, NAME, self.client, self.poster, when, publish=lambda: publish(store, NAME, self.client, when)
            )
        finally:
            store.close()

    def pm(self, sender: str, body: str, minutes: int) -> None:
        self.board.send_pm(sender, "host_bot", "приказ", body, START + timedelta(minutes=minutes))

    def vote(self, voter: str, target: str, minutes: int) -> None:
        when = START + timedelta(minutes=minutes)
        self.board.add_post(self.topic, voter, f"[color=red][b]{target}[/b][/color]", when)

    def from_bot(self, nick: str) -> list[str]:
        return [pm.body for pm in self.board.pms_to(nick) if pm.sender == "host_bot"]


@pytest.fixture
def duel(tmp_path: Path) -> Iterator[Duel]:
    with served_board(PLAYERS) as (board, server, forum):
        yield Duel(tmp_path, board, server, forum)


def _everyone_moves_but(game: Duel, last: str) -> str:
    """Every living player votes and sends his role's order; `last` votes last, and the civilian victim
    of the mafia is returned."""
    mafia, commissar = game.nicks("mafia"), game.nicks("commissar")[0]
    civilians = game.nicks("civilian")
    jailed, victim = civilians[0], civilians[1]
    for i, nick in enumerate(mafia):
        game.pm(nick, f"Убиваем — {victim}", 5 + i)
    game.pm(commissar, f"Проверяю — {mafia[0]}", 8)
    for i, nick in enumerate(p for p in PLAYERS if p != last):
        game.vote(nick, jailed, 10 + i)
    return victim


def test_the_duel_ends_the_day_once_all_have_moved_and_the_reports_go_with_the_publication(duel: Duel) -> None:
    last = duel.nicks("civilian")[-1]
    _everyone_moves_but(duel, last)
    duel.run(30)
    store = Store(duel.path)
    game_id = store.game(NAME).id
    assert store.draft(game_id, 1) is None  # one player has not voted: the day goes on
    duel.vote(last, duel.nicks("civilian")[0], 40)
    report = duel.run(45)
    found = store.draft(game_id, 1)
    assert found is not None and found.draft.early is not None and found.draft.early.reason == DUEL_REASON
    assert report.drafted is True
    to_moderator = duel.from_bot("Модератор")
    reports_due = len(found.draft.state.living())
    assert len(to_moderator) == 1 and f"утренние газеты: {reports_due} ЛС" in to_moderator[0]
    assert "Пример — газета для" in to_moderator[0]
    commissar = duel.nicks("commissar")[0]
    duel.pm(commissar, f"Проверяю — {last}", 46)  # after the turn was made: not this turn's
    duel.run(47)
    assert any(b.startswith(f"Не принято: Проверяю — {last}: ход уже сделан") for b in duel.from_bot(commissar))
    games.approve(store, NAME, "Модератор")
    duel.run(50)  # approved, before the deadline: the duel's draft is published at once
    state = store.game(NAME).state
    assert state is not None and state.day == 2
    living = [p.nick for p in state.living()]
    for nick in PLAYERS:
        reports = [body for body in duel.from_bot(nick) if "Статус Жителей" in body]
        assert len(reports) == (1 if nick in living else 0), nick
    duel.run(55)  # a second pass sends nothing again
    assert sum("Статус Жителей" in b for nick in PLAYERS for b in duel.from_bot(nick)) == len(living)


def test_a_civilian_s_report_names_no_living_mafioso_and_z_sends_it_again(duel: Duel) -> None:
    _everyone_moves_but(duel, "")
    duel.run(30)
    store = Store(duel.path)
    games.approve(store, NAME, "Модератор")
    duel.run(35)
    state = store.game(NAME).state
    assert state is not None and state.day == 2
    reader = next(p.nick for p in state.living() if p.role == "civilian")
    report = next(body for body in duel.from_bot(reader) if "Статус Жителей" in body)
    for mafioso in duel.nicks("mafia"):
        assert f"\n{mafioso} — в игре\n" in report
    assert "мафиози\n" not in report.split("[b]Статус Жителей[/b]")[1].split("[b]Текущий")[0]
    duel.pm(reader, "Z", 40)
    duel.run(45)
    again = [body for body in duel.from_bot(reader) if "Статус Жителей" in body]
    assert len(again) == 2
    assert _text(again[1]) == _text(report)  # the same report, under another marker


def _text(body: str) -> str:
    return body.split("[size=1]")[0].strip()
