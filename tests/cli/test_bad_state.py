"""A damaged, read-only or full state file ends a command in one clear line that says what is wrong and where:
never a traceback, never a wrong message (a full disk is no "not a forumbot state file")."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from forumbot.cli import app

DEMO = Path(__file__).resolve().parents[2] / "fixtures" / "demo"
GAME = "Демо-мафия"
REAL_CONNECT = sqlite3.connect


def invoke(*args: str) -> Result:
    return CliRunner().invoke(app, list(args), terminal_width=200)


def one_line_error(result: Result) -> str:
    """The command failed with exit code 2 and said why in one line, without a traceback."""
    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit), result.exception
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output
    assert "Traceback" not in result.output
    return lines[0]


@pytest.fixture
def state(tmp_path: Path) -> Path:
    path = tmp_path / "state.db"
    assert invoke("new-game", str(DEMO / "game.toml"), "--state", str(path)).exit_code == 0
    now = "2026-11-29T10:00:00+03:00"
    dealt = invoke("deal", GAME, "--seed", "1", "--topic", "1", "--now", now, "--state", str(path))
    assert dealt.exit_code == 0, dealt.output
    return path


def damage(path: Path, sql: str) -> None:
    db = REAL_CONNECT(path)
    db.execute("PRAGMA foreign_keys=OFF")
    db.execute(sql)
    db.commit()
    db.close()


DAMAGED = "the state file is damaged"


@pytest.mark.parametrize(
    ("sql", "said"),
    [
        ("DROP TABLE days", "the state file is damaged: table days is missing"),
        ("DROP TABLE games", "the state file is damaged: table games is missing"),
        ("UPDATE games SET state_json = '{\"variant\": '", f"{DAMAGED}: the games table holds a value"),
        ("UPDATE games SET config_json = 'not json'", f"{DAMAGED}: the games table holds a value"),
        ("UPDATE games SET state_json = '{\"variant\": 1}'", f"{DAMAGED}: the games table holds a value"),
        ("UPDATE days SET deadline = 'tomorrow'", f"{DAMAGED}: the days table holds a value"),
    ],
)
def test_a_damaged_state_file_says_what_and_where(state: Path, sql: str, said: str) -> None:
    damage(state, sql)
    line = one_line_error(invoke("status", GAME, "--state", str(state)))
    assert line.startswith(f"error: {state}: {said}")


def test_a_file_that_is_no_database(tmp_path: Path) -> None:
    junk = tmp_path / "notes.db"
    junk.write_bytes(b"these are my notes, not a database\n" * 200)
    line = one_line_error(invoke("status", GAME, "--state", str(junk)))
    assert line.startswith(f"error: {junk}: not a forumbot state file")


def connect_with(pragma: Callable[[sqlite3.Connection], object] | None = None, *, readonly: bool = False) -> Any:
    """sqlite3.connect as forumbot calls it, on a read-only file or a disk with no room left."""

    def connect(path: Any, *args: Any, **kwargs: Any) -> sqlite3.Connection:
        db: sqlite3.Connection
        if readonly:
            db = REAL_CONNECT(f"file:{path}?mode=ro", *args, uri=True, **kwargs)
        else:
            db = REAL_CONNECT(path, *args, **kwargs)
        if pragma is not None:
            pragma(db)
        return db

    return connect


def no_room(db: sqlite3.Connection) -> None:
    pages = db.execute("PRAGMA page_count").fetchone()[0]
    db.execute(f"PRAGMA max_page_count = {pages}")  # the file may not grow by one page


def test_a_read_only_state_file_is_read_and_refuses_writes(state: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sqlite3, "connect", connect_with(readonly=True))
    shown = invoke("status", GAME, "--state", str(state))
    assert shown.exit_code == 0, shown.output  # reading needs no write
    line = one_line_error(invoke("day-topic", GAME, "7", "--state", str(state)))
    assert line == f"error: {state}: the state file is read-only (or on a read-only disk): forumbot cannot write to it"


def test_a_full_disk_during_a_write_changes_nothing_and_says_so(state: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sqlite3, "connect", connect_with(no_room))
    line = one_line_error(invoke("end-day", GAME, "--state", str(state)))
    assert line.startswith(f"error: {state}: the disk is full: nothing of this change was written")
    monkeypatch.setattr(sqlite3, "connect", REAL_CONNECT)
    shown = invoke("draft", "show", GAME, "--state", str(state))
    assert "no draft for the current day" in shown.output  # the old state, whole


def test_a_full_disk_while_the_file_is_made(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sqlite3, "connect", connect_with(lambda db: db.execute("PRAGMA max_page_count = 1")))
    path = tmp_path / "new.db"
    line = one_line_error(invoke("new-game", str(DEMO / "game.toml"), "--state", str(path)))
    assert line.startswith(f"error: {path}: the disk is full")
