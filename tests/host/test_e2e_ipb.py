"""A whole gameru-3.3 game through the command line on the fake IPB 2.2 board (UTF-8 and windows-1251),
and the same game on the fake phpBB board: new-game, deal, the opening published, two days or more of
votes in the thread and orders by PM, end-day, approval, publish, and the reveal. Both boards must give
the same outcome, day by day. The boards and the command line's clients share one fake clock, so the
boards' rules (2 s between IPB submissions, the one-second form rule of phpBB) cost no real time."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import forumbot.cli as cli
from fakeboard.board import Board, BoardServer
from fakeboard.clock import FakeClock
from fakeboard.ipb2 import Ipb2Server
from forumbot.forum.client import open_client
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


def ok(*args: str) -> str:
    result = runner.invoke(cli.app, list(args))
    assert result.exit_code == 0, (args, result.output, result.exception)
    return result.output


@contextmanager
def table(
    engine: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, **server: Any
) -> Iterator[tuple[Board, FakeClock]]:
    """The board as `engine`, and the command line set up to run the game on it."""
    clock = FakeClock(START)
    board = Board(language="ru", timezone="Europe/Moscow", now=lambda: datetime.fromtimestamp(clock.now, UTC))
    board.add_user(BOT, BOT_PASSWORD, moderator=True)
    board.add_user("Модератор", "pw", moderator=True)
    for nick in PLAYERS:
        board.add_user(nick, "pw")
    board.add_forum("Мафия", forum_id=FORUM)
    made = Ipb2Server(board, clock=clock, **server) if engine == "ipb2" else BoardServer(board, clock=clock)
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
        yield board, clock
        assert not running.errors, running.errors[0]


def play(engine: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, **server: Any) -> list[dict[str, Any]]:
    """The whole game on the board; what each day's draft decided."""
    outcomes: list[dict[str, Any]] = []
    with table(engine, tmp_path, monkeypatch, **server) as (board, clock):
        ok("new-game", "game.toml")
        ok("deal", GAME, "--seed", "11", "--now", clock.iso_at(START))
        ok("publish", GAME, "--flood-interval", "0", "--now", clock.iso_at(START + timedelta(minutes=1)))
        store = Store(tmp_path / "state.db")
        day_start = START
        while True:
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
                vote = f"Голосую: [color=red][b]{target}[/b][/color]"
                board.add_post(topic, p.nick, vote, day_start + timedelta(hours=1, minutes=k))
            board.add_post(
                topic, town[-1], f"[quote][color=red][b]{town[0]}[/b][/color][/quote]", day_start + timedelta(hours=2)
            )
            board.send_pm(boss, BOT, "заказ", f"Убиваем — {town[-1]}", day_start + timedelta(hours=3))
            end = day["deadline"] + timedelta(minutes=5)
            out = ok("end-day", GAME, "--json", "--now", clock.iso_at(end))
            draft = json.loads(out[out.index("{") :])
            outcomes.append({"deaths": draft["deaths"], "winner": draft["winner"]})
            ok("draft", "approve", GAME, "--by", "Модератор")
            published = ok("publish", GAME, "--flood-interval", "0", "--now", clock.iso_at(end + timedelta(minutes=1)))
            if draft["winner"] != "none":
                assert "the game is over" in published
                break
            assert re.search(r"day \d+ is open in topic \d+", published)
            assert board.topic(topic).locked
            day_start = datetime.fromtimestamp(clock.now, UTC)
            assert len(outcomes) <= 6
        shown = ok("reveal", GAME)
        assert "(verified)" in shown
        for nick in PLAYERS:  # every player learnt his role once, by PM
            roles = [m for m in board.pms_to(nick) if m.sender == BOT and "роль" in m.subject]
            assert len(roles) <= 1, (nick, [m.subject for m in roles])
        store.close()
    return outcomes


@pytest.mark.parametrize("charset", ["utf-8", "windows-1251"])
def test_a_whole_game_on_ipb2_has_the_outcome_it_has_on_phpbb(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, charset: str
) -> None:
    (tmp_path / "phpbb").mkdir()
    (tmp_path / "ipb2").mkdir()
    on_phpbb = play("phpbb", tmp_path / "phpbb", monkeypatch)
    on_ipb = play("ipb2", tmp_path / "ipb2", monkeypatch, charset=charset)
    assert len(on_phpbb) >= 2  # the mafia does not all fall on day 1
    assert on_ipb == on_phpbb
    assert on_ipb[-1]["winner"] == "town"
