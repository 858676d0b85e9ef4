"""The boards the fault tests run on, one `BoardKit` each: how to play day 1 on it, where each kind of write
strikes (a fault's place, `fakeboard.faults`), which faults its fake board shows, and the check that day 1
was published exactly once. `conftest.py` makes `board_kit` a fixture over `BOARDS`, so a test taking it runs
on every board listed here.

Adding a board: its played day (as `publish_support.played_day`), the places of its four writes, the
faults its fake board answers (the engine's hooks `_login_answer` and `_spoiled` give "login", "invalid"
and, before acting, "cut"; the others need none), and its check; then one line in `BOARDS`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from publish_support import Played, played_day
from test_publish import assert_published_once

Write = str  # "topic" | "reply" | "pm" | "lock"
WRITES: tuple[Write, ...] = ("topic", "reply", "pm", "lock")
# Every fault a fake board may show (fakeboard.faults.KINDS), "slow" apart: it waits for real.
ALL_FAULTS = ("503", "503:5", "429", "429:5", "reset", "login", "invalid", "cut")


@dataclass(frozen=True)
class BoardKit:
    """One board for the fault tests (see the module)."""

    name: str
    played: Callable[..., AbstractContextManager[Played]]  # (tmp_path, **options) -> the played day 1
    places: Mapping[Write, str]  # each write's fault place
    faults_before: tuple[str, ...]  # what its fake board shows before acting
    faults_after: tuple[str, ...]  # ... and after acting
    published_once: Callable[[Played], None]
    options: Mapping[str, Any] | None = None  # for `played`: the board as the real one stood

    def day(self, tmp_path: Path, **options: Any) -> AbstractContextManager[Played]:
        return self.played(tmp_path, **({**(self.options or {}), **options}))

    def faults(self) -> Iterator[tuple[str, str]]:
        """(when, fault) for every fault it shows: "before" or "after" the board acted."""
        yield from (("before", fault) for fault in self.faults_before)
        yield from (("after", fault) for fault in self.faults_after)


PHPBB = BoardKit(
    name="phpbb",
    played=played_day,
    places={
        "topic": "POST posting.php#mode=post",
        "reply": "POST posting.php#mode=reply",
        "pm": "POST ucp.php#post",
        "lock": "POST mcp.php",
    },
    faults_before=ALL_FAULTS,
    faults_after=ALL_FAULTS,
    published_once=assert_published_once,
    options={"language": "ru", "flood_interval": 2.0},  # as the real board of issue 23: Russian, 2 s of flood control
)

BOARDS: dict[str, BoardKit] = {kit.name: kit for kit in (PHPBB,)}
