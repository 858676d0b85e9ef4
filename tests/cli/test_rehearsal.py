"""A host's rehearsal on the local fake board, through the command line alone, with `--now` everywhere: two
days of gameru-3.3. Day 1 is ended early (refused without a reason, then `--early REASON`), a vote arrives
after that, and the watch's deadline pass replaces the early draft with one read after the deadline, which
counts it. Day 2's topic states its deadline in the game's zone; the deadline is moved once (announced in
the day topic), end-day at the old deadline is refused, and the day ends at the new one. The board and the
command line's clients share one fake clock: no real time passes."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

import forumbot.cli as cli
from fakeboard import Board, BoardServer
from fakeboard.clock import FakeClock
from forumbot.forum.registry import open_client

GAME, BOT, BOT_PASSWORD, FORUM = "Репетиция", "Ведущий", "секрет", 4
PLAYERS = ["Лиса", "Кот Матроскин", "Шарик", "Печкин", "Дядя Фёдор", "Winnie", "Галчонок", "Мурка", "Ёжик"]
START = datetime(2026, 11, 29, 9, 0, tzinfo=UTC)  # 12:00 in Moscow; day 1 ends at 23:00 Moscow time
CONFIG = f"""\
[game]
name = "{GAME}"
variant = "gameru-3.3"
players = {json.dumps(PLAYERS, ensure_ascii=False)}
moderators = ["Модератор"]
timezone = "Europe/Moscow"
deadline = "23:00"

[forum]
engine = "phpbb"
base_url = "{{url}}"
forum_id = {FORUM}
"""


def run(*args: str) -> Result:
    return CliRunner().invoke(cli.app, list(args), terminal_width=200)


def ok(*args: str) -> str:
    result = run(*args)
    assert result.exit_code == 0, (args, result.output, result.exception)
    return result.output


def as_json(output: str) -> Any:
    return json.loads(output[output.index("{") :])


@pytest.fixture
def table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Board, FakeClock]]:
    clock = FakeClock(START)
    board = Board(language="ru", timezone="Europe/Moscow", now=lambda: datetime.fromtimestamp(clock.now, UTC))
    board.add_user(BOT, BOT_PASSWORD, moderator=True)
    board.add_user("Модератор", "pw", moderator=True)
    for nick in PLAYERS:
        board.add_user(nick, "pw")
    board.add_forum("Мафия", forum_id=FORUM)
    with BoardServer(board, clock=clock) as running:
        monkeypatch.chdir(tmp_path)
        monkeypatch.setenv("FORUMBOT_STATE", str(tmp_path / "state.db"))
        monkeypatch.setenv("FORUMBOT_USERNAME", BOT)
        monkeypatch.setenv("FORUMBOT_PASSWORD", BOT_PASSWORD)
        monkeypatch.setenv("FORUMBOT_MIN_INTERVAL", "0")
        monkeypatch.setattr(cli, "open_client", lambda settings: open_client(settings, clock=clock))
        (tmp_path / "game.toml").write_text(CONFIG.format(url=running.url), "utf-8")
        yield board, clock
        assert not running.errors, running.errors[0]


def vote(board: Board, topic: int, voter: str, target: str, at: datetime) -> None:
    board.add_post(topic, voter, f"Голосую: [color=red][b]{target}[/b][/color]", at)


def day_topic(output: str) -> int:
    return int(output.rsplit("in topic ", 1)[1].split()[0])


def test_two_days_rehearsed_with_an_early_end_and_a_moved_deadline(table: tuple[Board, FakeClock]) -> None:
    board, clock = table
    ok("new-game", "game.toml")
    dealt = ok("deal", GAME, "--seed", "11", "--now", clock.iso_at(START))
    assert "day 1 deadline: 29.11.2026 23:00 (Europe/Moscow)" in dealt
    topic = day_topic(ok("publish", GAME, "--flood-interval", "0", "--now", clock.iso_at(START + timedelta(minutes=1))))

    # day 1: all but the last player vote for the first; the host ends the day early
    for k, nick in enumerate(PLAYERS[1:-1]):
        vote(board, topic, nick, PLAYERS[0], START + timedelta(hours=1, minutes=k))
    early_at = START + timedelta(hours=4)
    refused = run("end-day", GAME, "--now", clock.iso_at(early_at))
    assert refused.exit_code == 2 and "ends at 29.11.2026 23:00 (Europe/Moscow)" in refused.output
    ok("end-day", GAME, "--early", "все проголосовали", "--now", clock.iso_at(early_at))
    early = as_json(ok("draft", "show", GAME, "--json"))
    assert [v["voter"] for v in early["votes"] if v["counted"]] == PLAYERS[1:-1]
    # the last vote comes after the early end-day, before the deadline
    vote(board, topic, PLAYERS[-1], PLAYERS[1], START + timedelta(hours=6))
    passed = as_json(ok("watch", GAME, "--json", "--now", clock.iso_at(datetime(2026, 11, 29, 20, 5, tzinfo=UTC))))
    assert passed["drafted"] and any("replaced by one made after it" in p for p in passed["problems"])
    redone = as_json(ok("draft", "show", GAME, "--json"))
    assert [v["voter"] for v in redone["votes"] if v["counted"]] == PLAYERS[1:]
    assert redone["next_deadline"] == "2026-11-30T23:00:00+03:00"
    assert all(v["time"].endswith("+03:00") for v in redone["votes"])  # in the game's zone, with the offset
    ok("draft", "approve", GAME, "--by", "Модератор")
    published = ok(
        "publish", GAME, "--flood-interval", "0", "--now", clock.iso_at(datetime(2026, 11, 29, 20, 10, tzinfo=UTC))
    )
    assert "sent now: 1 topic" in published and "day 2 is open" in published
    topic2 = day_topic(published)
    at = clock.iso_at(datetime(2026, 11, 29, 20, 11, tzinfo=UTC))
    again = ok("publish", GAME, "--flood-interval", "0", "--now", at)
    assert "nothing to publish: day 2" in again  # a re-run with nothing to do: exit 0
    revealed = as_json(ok("reveal", GAME, "--force", "--json"))
    assert revealed["verified"] is True
    assert "День 2 заканчивается 30.11.2026 в 23:00 (МСК)." in board.topic(topic2).posts[0].body

    # day 2: the deadline moves two hours later, once, and holds
    moved = ok("deadline", GAME, "+2h", "--reason", "сбой форума", "--by", "Модератор", "--now", clock.iso_at(
        datetime(2026, 11, 30, 12, 0, tzinfo=UTC)))  # fmt: skip
    moved = " ".join(moved.split())  # the host's lines fold at 80 columns
    assert "day 2 now ends 01.12.2026 01:00 (Europe/Moscow)" in moved and "announced in the day topic" in moved
    told = [p.body for p in board.topic(topic2).posts if p.author == BOT and "Срок дня 2 изменён" in p.body]
    assert len(told) == 1 and "01.12.2026 в 01:00 (МСК)" in told[0] and "сбой форума" in told[0]
    status = as_json(ok("status", GAME, "--json", "--now", clock.iso_at(datetime(2026, 11, 30, 12, 1, tzinfo=UTC))))
    assert status["deadline"] == "2026-12-01T01:00:00+03:00" and status["day"] == 2
    living = [p["nick"] for p in status["players"] if p["alive"]]
    for k, nick in enumerate(living):
        vote(board, topic2, nick, living[0], datetime(2026, 11, 30, 13, k, tzinfo=UTC))
    at_old_deadline = clock.iso_at(datetime(2026, 11, 30, 20, 5, tzinfo=UTC))
    assert "ends at 01.12.2026 01:00" in run("end-day", GAME, "--now", at_old_deadline).output
    day2 = as_json(ok("end-day", GAME, "--json", "--now", clock.iso_at(datetime(2026, 11, 30, 22, 5, tzinfo=UTC))))
    assert day2["day"] == 2 and day2["deaths"].get(living[0]) == "executed"
    listed = ok("override", GAME, "--list", "--json")
    assert [o["kind"] for o in json.loads(listed[listed.index("[") :])] == ["deadline"]
