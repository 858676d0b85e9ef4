"""Files that hold a game's secrets are readable by their owner only: the state file and the moderators' preview."""

from __future__ import annotations

import json
import os
import sqlite3
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from forumbot.cli import app

DEMO = Path(__file__).resolve().parents[2] / "fixtures" / "demo"
GAME = "Демо-мафия"


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def open_umask() -> Iterator[None]:
    """A umask that hides nothing: whatever is private is so because forumbot made it so."""
    old = os.umask(0)
    try:
        yield
    finally:
        os.umask(old)


def run(*args: str) -> str:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture
def drafted(tmp_path: Path) -> Path:
    state = tmp_path / "state.db"
    run("new-game", str(DEMO / "game.toml"), "--state", str(state))
    run("deal", GAME, "--seed", "20261129", "--topic", "1", "--now", "2026-11-29T10:00:00+03:00", "--state", str(state))
    run("end-day", GAME, "--json", "--state", str(state))
    return state


@pytest.mark.usefixtures("open_umask")
def test_the_preview_is_written_for_its_owner_only(tmp_path: Path, drafted: Path) -> None:
    page = tmp_path / "out" / "preview.html"
    run("draft", "html", GAME, str(page), "--state", str(drafted))
    assert mode(page) == 0o600
    page.chmod(0o644)  # written over: private again
    run("draft", "html", GAME, str(page), "--state", str(drafted))
    assert mode(page) == 0o600 and "<!DOCTYPE html>" in page.read_text(encoding="utf-8")


@pytest.mark.usefixtures("open_umask")
def test_a_new_state_file_and_its_journal_are_private(tmp_path: Path) -> None:
    state = tmp_path / "new" / "state.db"
    run("new-game", str(DEMO / "game.toml"), "--state", str(state))
    files = sorted(state.parent.iterdir())
    assert files and all(mode(f) == 0o600 for f in files), [(f.name, oct(mode(f))) for f in files]


@pytest.mark.usefixtures("open_umask")
def test_a_state_file_another_tool_created_is_made_private(tmp_path: Path) -> None:
    state = tmp_path / "state.db"
    made = sqlite3.connect(state)  # an empty database made by hand before the first new-game (a 0-byte file is
    made.executescript("CREATE TABLE t (x); DROP TABLE t;")  # refused: tests/cli/test_bad_inputs_found.py)
    made.close()
    state.chmod(0o644)
    run("new-game", str(DEMO / "game.toml"), "--state", str(state))
    assert mode(state) == 0o600
    for f in state.parent.iterdir():
        f.chmod(0o644)  # e.g. copied from a backup
    run("status", GAME, "--state", str(state))
    assert {f.name: mode(f) for f in state.parent.iterdir()} == {f.name: 0o600 for f in state.parent.iterdir()}


@pytest.mark.usefixtures("open_umask")
@pytest.mark.real_sleep(reason="the command line's client logs in on the real clock: phpBB's one-second rule waits")
def test_the_tally_of_a_live_topic_makes_its_cache_private(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from datetime import UTC, datetime

    from fakeboard import Board, BoardServer

    board = Board()
    board.add_user("host_bot", "pw", moderator=True)
    forum = board.add_forum("Мафия")
    topic = board.add_topic(forum, "День 1", "host_bot", "Голосуем.", datetime(2026, 11, 29, 7, 0, tzinfo=UTC))
    board.add_post(topic, "Alice", "[color=red][b]Bob[/b][/color]", datetime(2026, 11, 29, 8, 0, tzinfo=UTC))
    players = tmp_path / "players.txt"
    players.write_text("Alice\nBob\n", encoding="utf-8")
    state = tmp_path / "cache" / "state.db"
    monkeypatch.setenv("FORUMBOT_USERNAME", "host_bot")
    monkeypatch.setenv("FORUMBOT_PASSWORD", "pw")
    monkeypatch.setenv("FORUMBOT_MIN_INTERVAL", "0")
    monkeypatch.setenv("FORUMBOT_STATE", str(state))
    with BoardServer(board) as server:
        shown = run("tally", f"{server.url}viewtopic.php?t={topic}", "--players", str(players), "--json")
    assert json.loads(shown)["tally"] == {"Bob": 1}
    assert all(mode(f) == 0o600 for f in state.parent.iterdir())
    assert mode(state.parent) & 0o077 == 0
