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

from ipb_support import assert_ipb_published_once, ipb_played_day
from publish_support import Played, played_day
from test_ipb3_publish import assert_published_once as ipb3_published_once
from test_ipb3_publish import ipb3_played_day
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

# The IPB fakes answer a dead session as a guest's request (its error page with the log-in form) and a spoiled
# form with their bad-`auth_key` error (fakeboard.invision.server).
IPB_BEFORE = ("503", "429", "reset", "login", "invalid", "cut")
IPB_AFTER = ("503", "503:5", "429", "reset", "login", "invalid", "cut")

IPB2 = BoardKit(
    name="ipb2",
    played=ipb_played_day,
    places={
        "topic": "POST index.php#CODE=01",
        "reply": "POST index.php#CODE=03",
        "pm": "POST index.php#act=Msg",
        "lock": "POST index.php#act=Mod",
    },
    faults_before=IPB_BEFORE,
    faults_after=IPB_AFTER,
    published_once=assert_ipb_published_once,
)

IPB3 = BoardKit(
    name="ipb3",
    played=ipb3_played_day,
    places={
        "topic": "POST index.php#do=new_post_do",
        "reply": "POST index.php#do=reply_post_do",
        "pm": "POST index.php#do=send",
        "lock": "GET index.php#do=00",  # the moderators' link: IPB 3 closes a topic by a GET
    },
    faults_before=IPB_BEFORE,
    faults_after=IPB_AFTER,
    published_once=ipb3_published_once,
)

BOARDS: dict[str, BoardKit] = {kit.name: kit for kit in (PHPBB, IPB2, IPB3)}
