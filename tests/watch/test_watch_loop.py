"""The watch loop keeps going through the forum's passing faults and stops only on a permanent one."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest

from forumbot.errors import ForumUnavailable, LoginFailed
from forumbot.host import watch


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
