"""A fake clock for the boards and the bot's clients in tests: nothing ever really waits.

It is the client's `Clock` (``time``, ``monotonic``, ``sleep``) and, called, the fake board's clock, so a
board and the clients talking to it share one time that moves only when someone sleeps on it or a test moves
it by hand (`at`). A sleep is recorded (`sleeps`, every call; `slept`, the total) and may run a hook
(`on_sleep`), so a test can act at the moment the code under test waits.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import UTC, datetime

DEFAULT_START = 1_795_973_879.0  # 2026-11-29 17:37:59 UTC, a moment of the captured day
DEFAULT_MONOTONIC = 1000.0


class FakeClock:
    """Wall and monotonic time that move together, only when slept on or set forward."""

    def __init__(self, start: float | datetime = DEFAULT_START) -> None:
        self.now = start.timestamp() if isinstance(start, datetime) else float(start)
        self.mono = DEFAULT_MONOTONIC
        self.sleeps: list[float] = []  # every sleep asked for, zero and negative ones included
        self.slept = 0.0  # the time all the sleeps moved the clock by
        self.on_sleep: Callable[[float], None] | None = None  # called after each sleep that moved the clock
        self._lock = threading.Lock()  # the board's threads and the client sleep on one clock

    def __call__(self) -> float:
        return self.now

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
                self.slept += seconds
        hook = self.on_sleep
        if hook is not None and seconds > 0:
            hook(seconds)

    def advance(self, seconds: float = 2.0) -> None:
        """Move the clock on as a sleep would; by default past phpBB's rule that a form must be a second old."""
        self.sleep(seconds)

    def at(self, moment: datetime) -> datetime:
        """Move the clock forward to `moment` (never back) and return the time it now shows."""
        with self._lock:
            self.now = max(self.now, moment.timestamp())
        return datetime.fromtimestamp(self.now, UTC)

    def iso_at(self, moment: datetime) -> str:
        """`at`, as ISO text: the `--now` of a command run at that moment."""
        return self.at(moment).isoformat()
