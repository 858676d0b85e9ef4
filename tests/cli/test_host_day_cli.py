"""The host's day through the command line: times in the game's zone, named; overrides that keep their word
(--set-vote keeps the replaced vote's time, --list, --remove N, a post that holds no vote is told); the
state file found from the home; output that fits 80 columns."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from forumbot.cli import app
from forumbot.draft import OverrideRow
from forumbot.engine import Vote
from forumbot.host import games

DEMO = Path(__file__).resolve().parents[2] / "fixtures" / "demo"
GAME = "Демо-мафия"
AFTER = "2026-11-29T23:30:00+03:00"


def invoke(*args: str) -> Result:
    return CliRunner().invoke(app, list(args))


def ok(*args: str) -> str:
    result = invoke(*args)
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shutil.copytree(DEMO, tmp_path / "demo", ignore=shutil.ignore_patterns("*.py"))
    monkeypatch.setenv("FORUMBOT_STATE", str(tmp_path / "state.db"))
    ok("new-game", str(tmp_path / "demo" / "game.toml"))
    ok("deal", GAME, "--seed", "1", "--topic", "1", "--now", "2026-11-29T10:00:00+03:00")
    return tmp_path / "state.db"


def test_the_draft_s_times_are_in_the_game_s_zone_and_named(state: Path) -> None:
    summary = json.loads(ok("end-day", GAME, "--json", "--now", AFTER))
    times = [v["time"] for v in summary["votes"] if v.get("time")]
    assert times and all(t.endswith("+03:00") for t in times)
    shown = ok("draft", "show", GAME)
    assert "votes (times Europe/Moscow)" in shown
    first = datetime.fromisoformat(times[0])
    assert f"{first:%d.%m %H:%M}" in shown  # as the host's clock reads it, not UTC


def test_the_host_s_output_fits_80_columns(state: Path) -> None:
    """(The BBCode that `draft show` prints after the audit is left as it is, for copying.)"""
    ok(
        "override",
        GAME,
        "--clear-vote",
        "Alice",
        "--reason",
        "a reason long enough to need a fold " * 3,
        "--by",
        "Модератор",
    )
    for command in (["end-day", GAME, "--now", AFTER], ["status", GAME], ["override", GAME, "--list"]):
        assert max(len(line) for line in ok(*command).splitlines()) <= 80, command


def test_set_vote_keeps_the_time_of_the_vote_it_replaces_unless_one_is_given() -> None:
    at = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
    votes = [Vote(voter="Alice", targets=("Пётр",), time=at)]
    kept = OverrideRow(kind="set_vote", subject="Alice", value="Маша", reason="r", by="m")
    moved = kept.model_copy(update={"value": json.dumps({"targets": ["Маша"], "at": "2026-11-29T20:00:00+00:00"})})
    [vote], *_ = games._apply_overrides([kept], list(votes), [], [], [])
    assert vote.targets == ("Маша",) and vote.time == at
    [vote], *_ = games._apply_overrides([moved], list(votes), [], [], [])
    assert vote.time == datetime(2026, 11, 29, 20, 0, tzinfo=UTC)


def test_set_vote_at_is_recorded_in_the_game_s_zone(state: Path) -> None:
    ok("override", GAME, "--set-vote", "Alice=Маша", "--at", "2026-11-29T15:00", "--reason", "r", "--by", "Модератор")
    [row] = json.loads(ok("override", GAME, "--list", "--json"))
    assert json.loads(row["value"]) == {"targets": ["Маша"], "at": "2026-11-29T15:00:00+03:00"}


def test_overrides_are_listed_numbered_and_taken_back(state: Path) -> None:
    ok("override", GAME, "--clear-vote", "Alice", "--reason", "один", "--by", "Модератор")
    ok("override", GAME, "--clear-vote", "Маша", "--reason", "два", "--by", "Модератор")
    listed = json.loads(ok("override", GAME, "--list", "--json"))
    assert [(o["number"], o["subject"]) for o in listed] == [(1, "Alice"), (2, "Маша")]
    assert "taken back" in ok("override", GAME, "--remove", "1", "--by", "Модератор")
    assert [o["subject"] for o in json.loads(ok("override", GAME, "--list", "--json"))] == ["Маша"]
    refused = invoke("override", GAME, "--remove", "5", "--by", "Модератор")
    assert refused.exit_code == 2 and "there is no number 5" in refused.output
    assert invoke("override", GAME, "--remove", "1", "--by", "Alice").exit_code == 2  # not a moderator


def test_an_override_of_a_post_without_a_vote_is_told_at_end_day(state: Path) -> None:
    ok("override", GAME, "--ignore-post", "987654", "--reason", "x", "--by", "Модератор")
    ok("end-day", GAME, "--now", AFTER)
    assert "no vote of the day is in post 987654" in " ".join(ok("draft", "show", GAME).split())


def test_a_mistyped_state_file_is_not_made(tmp_path: Path) -> None:
    wrong = tmp_path / "stat.db"
    result = invoke("status", GAME, "--state", str(wrong))
    assert result.exit_code == 2 and "does not exist" in result.output
    assert not wrong.exists()


def test_commands_run_from_anywhere_find_the_home_s_state_and_env(
    state: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home, elsewhere = tmp_path / "home", tmp_path / "elsewhere"
    home.mkdir()
    elsewhere.mkdir()
    monkeypatch.delenv("FORUMBOT_STATE")
    monkeypatch.setenv("FORUMBOT_HOME", str(home))
    monkeypatch.chdir(elsewhere)
    assert invoke("status", GAME).exit_code == 2  # no state file here nor at home
    for suffix in ("", "-wal", "-shm"):  # the state file with its write-ahead log: what is not checkpointed yet
        if Path(f"{state}{suffix}").exists():
            shutil.copy(f"{state}{suffix}", f"{home / 'forumbot.db'}{suffix}")
    assert "day 1" in ok("status", GAME)  # the home's state file
    for suffix in ("", "-wal", "-shm"):
        Path(f"{home / 'forumbot.db'}{suffix}").unlink(missing_ok=True)
    (home / ".env").write_text(f"FORUMBOT_STATE={state}\n", "utf-8")
    assert "day 1" in ok("status", GAME)  # the home's .env names it
    assert not (elsewhere / "forumbot.db").exists()
