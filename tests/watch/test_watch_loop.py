"""The watch loop keeps going through the forum's passing faults and stops only on a permanent one."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from forumbot.errors import ForumUnavailable, GameBusy, LoginFailed
from forumbot.host import watch
from forumbot.store import Store


def test_a_transient_fault_is_backed_off_and_the_loop_goes_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(watch, "BACKOFF_START", 0.01)
    stop = threading.Event()
    calls: list[str] = []
    waits: list[float] = []

    def run_pass() -> watch.PassReport:
        calls.append("pass")
        if len(calls) <= 3:
            raise ForumUnavailable("inbox: HTTP 503 (for 8 s)")
        stop.set()
        return watch.PassReport()

    watch.watch_loop(run_pass, timedelta(seconds=0.05), stop=stop, on_error=lambda exc, wait: waits.append(wait))
    assert len(calls) == 4
    assert waits == [0.01, 0.02, 0.04]  # doubling, capped by --every


def test_a_permanent_fault_stops_the_loop() -> None:
    def run_pass() -> watch.PassReport:
        raise LoginFailed("the forum refused the login")

    with pytest.raises(LoginFailed):
        watch.watch_loop(run_pass, timedelta(seconds=0.01), stop=threading.Event())


def test_a_game_held_by_another_forumbot_waits_for_the_next_pass(tmp_path: Path) -> None:
    """A publish holding the game makes a pass fail with GameBusy: the loop waits a whole pass and tries
    again, it never stops for it."""
    store = Store(tmp_path / "state.db")
    game_id = store.create_game("Мафия-1", "gameru-3.3", {}, ["Alice"])
    with store.transaction() as db:
        db.execute(
            "INSERT INTO locks (game_id, pid, host, what, at) VALUES (?, 1, 'elsewhere', 'publish', ?)",
            (game_id, datetime.now(UTC).isoformat()),
        )
    stop = threading.Event()
    calls: list[str] = []
    errors: list[tuple[Exception, float]] = []

    def run_pass() -> watch.PassReport:
        calls.append("pass")
        if len(calls) == 1:
            with store.exclusive(game_id, "watch"):
                pass
        stop.set()
        return watch.PassReport()

    every = timedelta(seconds=0.02)
    watch.watch_loop(run_pass, every, stop=stop, on_error=lambda exc, wait: errors.append((exc, wait)))
    assert len(calls) == 2
    assert [(type(exc), wait) for exc, wait in errors] == [(GameBusy, 0.02)]
    assert "publish" in str(errors[0][0])
