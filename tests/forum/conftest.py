"""Shared helpers of the forum client tests: a fake clock and the captured pages."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

HTTP_FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "http"


class FakeClock:
    """Time that moves only when someone sleeps; every sleep is recorded, nothing really waits."""

    def __init__(self, start: float = 1_795_973_879.0) -> None:
        self.now = start
        self.mono = 1000.0
        self.sleeps: list[float] = []
        self._lock = threading.Lock()

    def time(self) -> float:
        return self.now

    def monotonic(self) -> float:
        return self.mono

    def sleep(self, seconds: float) -> None:
        with self._lock:
            self.sleeps.append(seconds)
            if seconds > 0:
                self.now += seconds
                self.mono += seconds


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


def page_bytes(name: str) -> bytes:
    """A captured page (copied from /work/shared): `phpbb/viewtopic_page1.html`, `ipb/pm_view_cp1251.html`."""
    return (HTTP_FIXTURES / name).read_bytes()
