"""The deadline is told and can move: the day post states the next day's deadline in the game's zone, named,
and `advance` keeps it; `forumbot deadline` moves the current one (audited, announced in the day topic) or
sets the next day's length; a config edited after new-game is applied and told, or refused by field."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from forumbot.cli import app
from forumbot.store import Store

DEMO = Path(__file__).resolve().parents[2] / "fixtures" / "demo"
GAME = "Демо-мафия"
DEALT = "2026-11-29T10:00:00+03:00"
AFTER = "2026-11-29T23:30:00+03:00"  # half an hour after day 1's deadline


def invoke(*args: str) -> Result:
    return CliRunner().invoke(app, list(args), terminal_width=200)


def ok(*args: str) -> str:
    result = invoke(*args)
    assert result.exit_code == 0, result.output
    return result.output


def refused(*args: str) -> str:
    result = invoke(*args)
    assert result.exit_code == 2, result.output
    return result.output


@pytest.fixture
def game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The demo game, its config copied so that a test may edit it; dealt, day 1 read from topic 1."""
    shutil.copytree(DEMO, tmp_path / "demo", ignore=shutil.ignore_patterns("*.py"))
    monkeypatch.setenv("FORUMBOT_STATE", str(tmp_path / "state.db"))
    ok("new-game", str(tmp_path / "demo" / "game.toml"))
    ok("deal", GAME, "--seed", "1", "--topic", "1", "--now", DEALT)
    return tmp_path / "demo" / "game.toml"


def store() -> Store:
    import os

    return Store(os.environ["FORUMBOT_STATE"])


def test_the_day_post_tells_the_next_deadline_and_advance_keeps_it(game: Path) -> None:
    ok("end-day", GAME, "--now", AFTER)
    shown = ok("draft", "show", GAME)
    assert "День 2 заканчивается 30.11.2026 в 23:00 (МСК)." in shown
    ok("draft", "approve", GAME, "--by", "Модератор")
    ok("advance", GAME, "--now", "2026-11-30T18:30:00+03:00")  # later than six hours before it: kept anyway
    assert "deadline: 30.11.2026 23:00 (Europe/Moscow)" in ok("status", GAME)


def test_the_next_day_s_length_moves_the_deadline_the_post_tells(game: Path) -> None:
    ok("deadline", GAME, "--next-day-length", "30", "--reason", "выходные", "--by", "Модератор")
    ok("end-day", GAME, "--now", AFTER)
    assert "День 2 заканчивается 01.12.2026 в 23:00 (МСК)." in ok("draft", "show", GAME)


def test_a_moved_deadline_holds_is_audited_and_announced(game: Path) -> None:
    said = ok(
        "deadline", GAME, "2026-11-30T12:00", "--reason", "сбой форума", "--by", "Модератор", "--no-send",
        "--now", "2026-11-29T20:00:00+03:00",
    )  # fmt: skip
    said = " ".join(said.split())  # the host's lines fold at 80 columns
    assert "day 1 now ends 30.11.2026 12:00 (Europe/Moscow), was 29.11.2026 23:00 (Europe/Moscow)" in said
    assert "waits in the outbox" in said
    # end-day at the old deadline's half hour is now early
    assert "ends at 30.11.2026 12:00" in refused("end-day", GAME, "--now", AFTER)
    [moved] = json.loads(ok("override", GAME, "--list", "--json"))
    assert moved["kind"] == "deadline" and moved["reason"] == "сбой форума" and moved["by"] == "Модератор"
    assert moved["subject"] == "2026-11-30T12:00:00+03:00" and moved["value"] == "2026-11-29T23:00:00+03:00"
    assert moved["at"].endswith("+03:00")  # told in the game's zone
    s = store()
    [reply] = s.pending(s.game(GAME).id)
    assert reply.kind == "reply" and reply.recipients == ["1"]
    assert "День заканчивается 30.11.2026 в 12:00 (МСК)" in reply.body and "сбой форума" in reply.body
    ok("end-day", GAME, "--now", "2026-11-30T12:01:00+03:00")


def test_a_deadline_shift_counts_from_the_current_deadline(game: Path) -> None:
    said = " ".join(
        ok("deadline", GAME, "+12h", "--reason", "r", "--by", "Модератор", "--no-send", "--now", DEALT).split()
    )
    assert "now ends 30.11.2026 11:00 (Europe/Moscow)" in said


@pytest.mark.parametrize(
    ("args", "why"),
    [
        (["2026-11-29T09:00", "--reason", "r", "--by", "Модератор"], "has passed"),
        (["2026-11-30T12:00", "--reason", "r", "--by", "Alice"], "not a moderator"),
        (["2026-11-30T12:00", "--by", "Модератор"], "needs --reason"),
        (["tomorrow", "--reason", "r", "--by", "Модератор"], "give an ISO date-time"),
    ],
)
def test_a_bad_deadline_is_refused_and_nothing_moves(game: Path, args: list[str], why: str) -> None:
    assert why in refused("deadline", GAME, *args, "--no-send", "--now", DEALT)
    s = store()
    day = s.day(s.game(GAME).id, 1)
    assert day is not None and day["deadline"].isoformat() == "2026-11-29T23:00:00+03:00"
    assert s.pending(s.game(GAME).id) == []


def test_a_config_edit_is_applied_and_told(game: Path) -> None:
    game.write_text(game.read_text(encoding="utf-8").replace('deadline = "23:00"', 'deadline = "21:00"'), "utf-8")
    shown = ok("status", GAME)
    assert "config changed, applied: game.deadline: '23:00:00' -> '21:00:00'" in shown
    assert "config changed" not in ok("status", GAME)  # told once: it is stored now
    ok("end-day", GAME, "--now", AFTER)
    assert "День 2 заканчивается 30.11.2026 в 21:00 (МСК)." in ok("draft", "show", GAME)


@pytest.mark.parametrize(
    ("old", "new", "field"),
    [
        ('variant = "gameru-3.3"', 'variant = "salon"', "game.variant cannot change after new-game"),
        ('"Alice", ', "", "game.players cannot change once the roles are dealt"),
        ('deadline = "23:00"', 'deadline = "25:00"', "game.deadline"),
    ],
)
def test_a_config_edit_that_cannot_apply_is_refused_by_field(game: Path, old: str, new: str, field: str) -> None:
    game.write_text(game.read_text(encoding="utf-8").replace(old, new, 1), "utf-8")
    assert field in refused("status", GAME)
