"""Whole games end to end: a fake phpBB board on 127.0.0.1, players posting votes and PMing orders, and the
host running end-day, a moderator approving, the host advancing — day after day until the rules give a winner.

The script plays like real players who know their own roles: the town votes out a mafioso it suspects (the
test knows the roles, as the host does), the mafia kills a townsman, the checkers check.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from fakeboard import Board, BoardServer
from fakeboard.clock import FakeClock
from forumbot.config import GameConfig
from forumbot.engine.model import GameState, Player
from forumbot.engine.variants import find_variant
from forumbot.forum.client import ClientSettings, ForumClient
from forumbot.forum.http import HttpSettings
from forumbot.forum.registry import open_client
from forumbot.host import games
from forumbot.store import Store

START = datetime(2026, 12, 1, 21, 0, tzinfo=UTC)  # 00:00 in Moscow; each day ends at 23:00 Moscow time
GAMERU_12 = [
    "Alice",
    "Bob Smith",
    "Пётр",
    "Кот Матроскин",
    "Дядя Фёдор",
    "Шарик",
    "Mr. Pink",
    "Charlie",
    "Ёжик в тумане",
    "Dana_99",
    "Галчонок",
    "Печкин",
]
SALON_12 = [
    "Моска",
    "Паскуале",
    "Рокко",
    "Анискин",
    "Пилюлькин",
    "Фея",
    "Аля",
    "Белла",
    "Ваня",
    "Гоша",
    "Дуся",
    "Маньяк Петрович",
]


class Table:
    """The host's table: a board, a server, a state file, one bot session for the whole game."""

    def __init__(
        self,
        tmp_path: Path,
        server: BoardServer,
        board: Board,
        forum_id: int,
        name: str,
        variant: str,
        players: list[str],
    ) -> None:
        self.board, self.server, self.forum_id, self.name = board, server, forum_id, name
        assert isinstance(server.clock, FakeClock)
        self.store = Store(tmp_path / "state.db")
        config = GameConfig.model_validate(
            {
                "game": {"name": name, "variant": variant, "players": players, "moderators": ["Модератор"]},
                "forum": {"engine": "phpbb", "base_url": server.url, "forum_id": forum_id},
            }
        )
        games.create_game(self.store, config)
        self.client: ForumClient = open_client(
            ClientSettings(
                forum=server.url,
                username="host_bot",
                password="bot-pw",
                dialect="phpbb",
                http=HttpSettings(min_interval=0.0, timeout=5.0),
            ),
            clock=server.clock,  # the board's: phpBB's one-second rule for forms is kept without waiting
        )
        self.now = START
        self.topic = 0

    def deal(self) -> GameState:
        self.topic = self.board.add_topic(self.forum_id, f"{self.name}. День 1", "host_bot", "День 1.", self.now)
        games.deal_game(self.store, self.name, self.now, topic=str(self.topic))
        return self.state()

    def state(self) -> GameState:
        state = self.store.game(self.name).state
        assert state is not None
        return state

    def post_vote(self, voter: str, target: str, minutes: int, *, markup: str = "[color=red][b]{}[/b][/color]") -> None:
        text = "Голосую: " + markup.format(target)
        self.board.add_post(self.topic, voter, text, self.now + timedelta(minutes=minutes))

    def chat(self, author: str, minutes: int) -> None:
        self.board.add_post(self.topic, author, "Я мирный, честное слово.", self.now + timedelta(minutes=minutes))

    def pm(self, sender: str, body: str, minutes: int) -> None:
        self.board.send_pm(sender, "host_bot", "Игра-мафия", body, self.now + timedelta(minutes=minutes))

    def end_day(self) -> dict[str, Any]:
        draft = games.end_day(self.store, self.name, self.client).to_json()
        games.approve(self.store, self.name, "Модератор")
        day = self.store.day(self.store.game(self.name).id, self.state().day)
        assert day is not None
        self.now = day["deadline"] + timedelta(minutes=30)
        next_topic = self.board.add_topic(
            self.forum_id, f"{self.name}. День {self.state().day + 1}", "host_bot", str(draft["bbcode"]), self.now
        )
        games.advance(self.store, self.name, self.now, topic=str(next_topic))
        self.topic = next_topic
        return draft


@pytest.fixture(params=["en", "ru"])
def board(request: pytest.FixtureRequest) -> Iterator[tuple[Board, BoardServer, int]]:
    """The board in English, and as the real Russian one (its language pack, Moscow time, relative dates,
    confirm boxes in Russian, a limit of 5 PM recipients)."""
    if request.param == "ru":
        board = Board(language="ru", timezone="Europe/Moscow", max_pm_recipients=5)
    else:
        board = Board()
    board.add_user("host_bot", "bot-pw", moderator=True)
    board.add_user("Модератор", "mod-pw", moderator=True)
    for nick in GAMERU_12 + SALON_12:
        board.add_user(nick, "pw")
    forum = board.add_forum("Мафия")
    with BoardServer(board, posts_per_page=10, clock=FakeClock(START)) as server:
        yield board, server, forum


def living(state: GameState, *roles: str) -> list[Player]:
    return [p for p in state.living() if not roles or p.role in roles]


def test_a_whole_12_player_gameru_game(tmp_path: Path, board: tuple[Board, BoardServer, int]) -> None:
    b, server, forum = board
    table = Table(tmp_path, server, b, forum, "Мафия-12", "gameru-3.3", GAMERU_12)
    state = table.deal()
    assert sorted(p.role for p in state.players).count("mafia") == 4  # scheme 12-14: 4 mafia, one sheriff
    days = 0
    while state.winner == "none":
        days += 1
        suspect = living(state, "mafia")[-1].nick
        town = living(state, "civilian", "sheriff")
        boss = next(p for p in living(state, "mafia") if p.boss)
        for i, p in enumerate(state.living()):
            if p.role == "mafia":
                table.post_vote(p.nick, town[0].nick, 10 + i)  # the mafia sticks together
            else:
                table.post_vote(p.nick, suspect, 10 + i)
        # Traps a careful host ignores: a quoted vote, dark red, a look-alike nick.
        table.board.add_post(
            table.topic,
            town[-1].nick,
            f'[quote="x"][color=red][b]{town[-1].nick}[/b][/color][/quote]',
            table.now + timedelta(minutes=50),
        )
        table.post_vote(town[-1].nick, town[0].nick, 51, markup="[color=darkred][b]{}[/b][/color]")
        table.pm(boss.nick, f"Убиваем — {town[-1].nick}", 60)
        sheriff = living(state, "sheriff")
        if sheriff:
            table.pm(sheriff[0].nick, f"Проверяю — {living(state, 'mafia')[0].nick}", 61)
        draft = table.end_day()
        assert suspect in draft["deaths"] and draft["deaths"][suspect] == "executed"
        assert draft["deaths"].get(town[-1].nick) == "mafia" or town[-1].nick == suspect
        reasons = {v["reason"] for v in draft["votes"] if not v["counted"]}
        assert {"quoted", "not_red"} <= reasons
        state = table.state()
        assert days <= 6
    assert state.winner == "town"
    assert not living(state, "mafia")
    assert days >= 2  # four mafiosi cannot all fall on day 1


def test_a_whole_salon_game(tmp_path: Path, board: tuple[Board, BoardServer, int]) -> None:
    b, server, forum = board
    table = Table(tmp_path, server, b, forum, "Салон-1", "salon", SALON_12)
    state = table.deal()
    roles = sorted(p.role for p in state.players)
    assert roles.count("mafia") == 3 and {"commissar", "doctor", "maniac", "hetaera"} <= set(roles)
    assaulted: str | None = None
    silent_once = False
    days = 0
    while state.winner == "none":
        days += 1
        mafia = living(state, "mafia")
        town = [p for p in state.living() if p.role not in ("mafia", "maniac")]
        maniac = living(state, "maniac")
        target = (mafia + maniac)[0].nick
        skipped = None
        if not silent_once and len(town) > 3:
            # forgets to vote: dies (docs/rules/salon.md, the night's suicides)
            skipped = next(p.nick for p in town if p.role == "civilian")
            silent_once = True
        for i, p in enumerate(state.living()):
            if p.nick == skipped:
                continue
            vote = town[0].nick if p.role == "mafia" else target
            table.pm(p.nick, f"Расстреливаю — {vote}", 5 + i)
        boss = next((p for p in mafia if p.boss), None)
        if boss is not None:
            victim = next(p.nick for p in reversed(town) if p.nick != skipped)
            table.pm(boss.nick, f"Убиваем — {victim}", 40)
        if maniac:
            options = [p.nick for p in state.living() if p.nick not in (maniac[0].nick, assaulted)]
            assaulted = options[-1]
            table.pm(maniac[0].nick, f"Насилую — {assaulted}", 41)
        for i, p in enumerate(state.living()):  # everyone chats in the day topic
            table.chat(p.nick, 100 + i)
        draft = table.end_day()
        if skipped is not None:
            assert draft["deaths"][skipped] == "inactive"
            assert any("sent no valid vote" in note for note in draft["inactivity"])
        state = table.state()
        assert days <= 8
    assert days >= 2
    assert state.winner in ("town", "mafia", "maniac")
    expected = find_variant("salon")().winner(list(state.living()))
    assert state.winner == expected
