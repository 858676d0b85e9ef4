"""A whole gameru-3.3 game played through the command line on a fake board of any engine, as the end-to-end
tests of the IPB boards play it against the same game on phpBB: the board, the game's config and the
command line's settings (`table`), and the days scripted alike on every board (`play_days`)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import forumbot.cli as cli
from fakeboard import Board, BoardServer
from fakeboard.clock import FakeClock
from forumbot.forum.registry import open_client
from forumbot.store import Store

GAME, BOT, BOT_PASSWORD, FORUM = "Мафия-5", "Ведущий", "секрет", 4
PLAYERS = ["Лиса", "Кот Матроскин", "Шарик", "Печкин", "Дядя Фёдор", "Winnie", "Галчонок", "Мурка", "Ёжик"]
START = datetime(2026, 11, 29, 9, 0, tzinfo=UTC)  # 12:00 in Moscow; each day ends at 23:00 Moscow time
CONFIG = """\
[game]
name = "{name}"
variant = "gameru-3.3"
players = {players}
moderators = ["Модератор"]
timezone = "Europe/Moscow"
deadline = "23:00"

[forum]
engine = "{engine}"
base_url = "{url}"
forum_id = {forum}
"""
runner = CliRunner()
Order = Callable[[str, str, datetime], None]  # (boss, text, when): the boss's order reaches the bot
MakeServer = Callable[[Board, FakeClock], Any]  # the fake board of an engine, serving `board`


def ok(*args: str) -> str:
    result = runner.invoke(cli.app, list(args))
    assert result.exit_code == 0, (args, result.output, result.exception)
    return result.output


def by_pm(board: Board) -> Order:
    """The boss sends his order as a PM of its own."""

    def order(boss: str, text: str, when: datetime) -> None:
        board.send_pm(boss, BOT, "заказ", text, when)

    return order


@contextmanager
def table(
    engine: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, make_server: MakeServer | None = None
) -> Iterator[tuple[Board, FakeClock, Any]]:
    """The board served as `engine` (`make_server`; phpBB's when None), and the command line set up to run
    the game on it: the board, the clock it shares with the command line's clients, and the server."""
    clock = FakeClock(START)
    board = Board(language="ru", timezone="Europe/Moscow", now=lambda: datetime.fromtimestamp(clock.now, UTC))
    board.add_user(BOT, BOT_PASSWORD, moderator=True)
    board.add_user("Модератор", "pw", moderator=True)
    for nick in PLAYERS:
        board.add_user(nick, "pw")
    board.add_forum("Мафия", forum_id=FORUM)
    made = make_server(board, clock) if make_server is not None else BoardServer(board, clock=clock)
    with made as running:
        monkeypatch.chdir(tmp_path)
        monkeypatch.setenv("FORUMBOT_STATE", str(tmp_path / "state.db"))
        monkeypatch.setenv("FORUMBOT_USERNAME", BOT)
        monkeypatch.setenv("FORUMBOT_PASSWORD", BOT_PASSWORD)
        monkeypatch.setenv("FORUMBOT_MIN_INTERVAL", "0")
        monkeypatch.setattr(cli, "open_client", lambda settings: open_client(settings, clock=clock))
        text = CONFIG.format(
            name=GAME, players=json.dumps(PLAYERS, ensure_ascii=False), engine=engine, url=running.url, forum=FORUM
        )
        (tmp_path / "game.toml").write_text(text, "utf-8")
        yield board, clock, running
        assert not running.errors, running.errors[0]


def open_game(clock: FakeClock) -> None:
    """The game made from game.toml, dealt, and its opening published."""
    ok("new-game", "game.toml")
    ok("deal", GAME, "--seed", "11", "--now", clock.iso_at(START))
    ok("publish", GAME, "--flood-interval", "0", "--now", clock.iso_at(START + timedelta(minutes=1)))


def play_days(board: Board, clock: FakeClock, store: Store, order: Order, order_ids: list[int]) -> list[dict[str, Any]]:
    """Every day of the game until a side wins: the mafia vote for the first townsman, the town for the
    last mafioso, a quoted vote that never counts, the boss's kill order; end-day, approval, publish. What
    each day's draft decided (`order_ids`: the PMs its orders were read from)."""
    outcomes: list[dict[str, Any]] = []
    day_start = START
    while len(outcomes) < 6:
        row = store.game(GAME)
        state = row.state
        assert state is not None and state.winner == "none"
        day = store.day(row.id, state.day)
        assert day is not None and day["topic"]
        topic = int(day["topic"])
        mafia = [p.nick for p in state.living() if p.role == "mafia"]
        town = [p.nick for p in state.living() if p.role != "mafia"]
        boss = next(p.nick for p in state.living() if p.boss)
        for k, p in enumerate(state.living()):
            target = town[0] if p.role == "mafia" else mafia[-1]
            board.add_post(
                topic, p.nick, f"Голосую: [color=red][b]{target}[/b][/color]", day_start + timedelta(hours=1, minutes=k)
            )
        board.add_post(
            topic, town[-1], f"[quote][color=red][b]{town[0]}[/b][/color][/quote]", day_start + timedelta(hours=2)
        )
        order(boss, f"Убиваем — {town[-1]}", day_start + timedelta(hours=3))
        end = day["deadline"] + timedelta(minutes=5)
        ok("end-day", GAME, "--now", clock.iso_at(end))
        stored = store.draft(row.id, state.day)
        assert stored is not None
        draft = stored.draft.summary()
        orders = [(o["actor"], o["action"], o["targets"], o["valid"]) for o in draft["orders"]]
        outcomes.append({"deaths": draft["deaths"], "winner": draft["winner"], "orders": orders})
        order_ids.extend(o["pm_id"] for o in draft["orders"])
        ok("draft", "approve", GAME, "--by", "Модератор")
        published = ok("publish", GAME, "--flood-interval", "0", "--now", clock.iso_at(end + timedelta(minutes=1)))
        if draft["winner"] != "none":
            assert "the game is over" in published
            break
        assert re.search(r"day \d+ is open in topic \d+", published)
        assert board.topic(topic).locked
        day_start = datetime.fromtimestamp(clock.now, UTC)
    return outcomes


def assert_roles_told_once(board: Board) -> None:
    """Every player learnt his role once, by PM."""
    for nick in PLAYERS:
        roles = [m for m in board.pms_to(nick) if m.sender == BOT and "роль" in m.subject]
        assert len(roles) <= 1, (nick, [m.subject for m in roles])
