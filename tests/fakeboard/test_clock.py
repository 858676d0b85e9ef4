"""The shared fake clock: time moves only by sleeps and by hand, never back, and nothing really waits."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

from fakeboard.clock import DEFAULT_START, FakeClock

START = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


def test_it_starts_where_it_is_told_and_reads_the_same_every_way() -> None:
    clock = FakeClock(START)
    assert clock() == clock.time() == START.timestamp() and clock.monotonic() == 1000.0
    assert FakeClock(1_000.5).time() == 1_000.5 and FakeClock().time() == DEFAULT_START


def test_a_sleep_moves_both_times_and_is_recorded() -> None:
    clock = FakeClock(START)
    clock.sleep(2.5)
    clock.sleep(0.0)
    clock.sleep(-1.0)  # a deadline already past: asked for, moves nothing
    clock.advance()
    assert clock.sleeps == [2.5, 0.0, -1.0, 2.0] and clock.slept == 4.5
    assert clock.time() == START.timestamp() + 4.5 and clock.monotonic() == 1004.5


def test_the_hook_runs_on_each_sleep_that_moves_the_clock() -> None:
    clock = FakeClock(START)
    seen: list[tuple[float, float]] = []
    clock.on_sleep = lambda seconds: seen.append((seconds, clock.time()))
    clock.sleep(3.0)
    clock.sleep(0.0)
    assert seen == [(3.0, START.timestamp() + 3.0)]


def test_at_moves_forward_only_and_keeps_the_monotonic_time() -> None:
    clock = FakeClock(START)
    later = START + timedelta(hours=2)
    assert clock.at(later) == later and clock.time() == later.timestamp()
    assert clock.at(START) == later  # never back
    assert clock.monotonic() == 1000.0


def test_sleeps_from_many_threads_all_count() -> None:
    clock = FakeClock(START)

    def sleeper() -> None:
        for _ in range(100):
            clock.sleep(0.5)

    threads = [threading.Thread(target=sleeper) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(clock.sleeps) == 800 and clock.slept == 400.0 and clock.time() == START.timestamp() + 400.0
