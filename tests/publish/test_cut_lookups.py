"""The pages a write that may have been made is looked for on, cut short every time (no Content-Length, the
connection closed halfway): the sent folders for a PM, the forum's topic list for a topic. A list cut short
could hide the marker, and the letter would go out twice; so the run stops naming the page and sends nothing,
and the next run, the pages whole again, finds the letter and moves on.
On the Russian fake phpBB board (2 s of flood control) over real sockets."""

from __future__ import annotations

from pathlib import Path

import pytest
from publish_support import BOT, WRITTEN, played_day
from test_publish import assert_published_once
from test_write_faults import publish_until_done

from forumbot.forum.client import REFETCHES

CASES = {
    # the write, answered by nothing once the board made it; the pages its marker is then looked for on
    "pm": ("POST ucp.php#post", ("GET folder=outbox", "GET folder=sentbox")),
    "topic": ("POST posting.php#mode=post", ("GET viewforum.php",)),
}


@pytest.mark.parametrize("write", sorted(CASES))
def test_a_lookup_page_cut_every_time_stops_the_run_and_nothing_is_sent_twice(tmp_path: Path, write: str) -> None:
    place, lookups = CASES[write]
    with played_day(tmp_path, language="ru", flood_interval=2.0) as day:
        day.server.fail_after_acting(place, "reset")  # made; the bot never hears it
        for lookup in lookups:
            for _ in range(REFETCHES + 1):
                day.server.fail_after_acting(lookup, "cut")
        said = publish_until_done(day)
        assert day.server.faults.pending() == 0, "a fault never struck"
        assert any("cut short" in run and "nothing of it was counted" in run for run in said), said
        assert_published_once(day)
        assert len(day.board.pms_from(BOT)) == len(WRITTEN) + 1  # each PM once
        assert day.server.count("posting.php", method="POST") == 1  # the topic submitted once
