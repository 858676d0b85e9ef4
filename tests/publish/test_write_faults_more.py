"""The cells of issue 23's fault table that test_write_faults.py leaves out, on the Russian fake phpBB board:
a 503 without Retry-After and a 429 with one after the board acted, and a timeout (the board answers after the
client gave up; before acting, it holds the request and drops it) before and after, on each of the four
writes. None doubles, loses or gets stuck."""

from __future__ import annotations

from pathlib import Path

import pytest
from boards import PHPBB
from test_write_faults import counts_posted, day2, nothing_set_aside, publish_until_done, watch_until_quiet

CASES = [("after", "503"), ("after", "429:5"), ("before", "slow"), ("after", "slow")]
WRITES = ("topic", "reply", "pm", "lock")
SLOW = pytest.mark.real_sleep(reason="a timeout: the board answers after the client's real socket timeout (0.5 s)")


@pytest.mark.parametrize(
    ("write", "when", "fault"),
    [
        pytest.param(write, when, fault, id=f"{write}-{when}-{fault}", marks=[SLOW] if fault == "slow" else [])
        for write in WRITES
        for when, fault in CASES
    ],
)
def test_a_fault_left_out_of_the_table_doubles_loses_and_sticks_nothing(
    tmp_path: Path, write: str, when: str, fault: str
) -> None:
    with PHPBB.day(tmp_path) as day:
        day.server.slow_for = 0.8
        topic = day2(day) if write == "reply" else None
        place = day.server.fail_after_acting if when == "after" else day.server.fail_before_acting
        place(PHPBB.places[write], fault)
        if topic is None:
            said = publish_until_done(day)
            assert len(said) <= 2, said
            PHPBB.published_once(day)
        else:
            watch_until_quiet(day)
            assert len(counts_posted(day, topic)) == 1
        assert day.server.faults.pending() == 0, "the fault never struck"
        nothing_set_aside(day)
