"""The cells of issue 23's fault table that test_write_faults.py leaves out, on each fake board (the Russian
phpBB, IPB 2, IPB 3): a 503 without Retry-After and a 429 with one after the board acted, and a timeout (the
board answers after the client gave up; before acting, it holds the request and drops it) before and after, on
each of the four writes. None doubles, loses or gets stuck."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from boards import BOARDS, PHPBB, BoardKit
from publish_support import GAME, NOW, PLAYERS
from test_write_faults import counts_posted, day2, nothing_set_aside, publish_until_done, watch_until_quiet

from forumbot.forum.registry import poster_for
from forumbot.host.outbox import waiting_and_set_aside
from forumbot.host.watch import watch_once
from forumbot.store import Letter

CASES = [("after", "503"), ("after", "429:5"), ("before", "slow"), ("after", "slow")]
WRITES = ("topic", "reply", "pm", "lock")
SLOW = pytest.mark.real_sleep(reason="a timeout: the board answers after the client's real socket timeout (0.5 s)")


@pytest.mark.parametrize(
    ("kit", "write", "when", "fault"),
    [
        pytest.param(
            kit, write, when, fault, id=f"{kit.name}-{write}-{when}-{fault}", marks=[SLOW] if fault == "slow" else []
        )
        for kit in BOARDS.values()
        for write in WRITES
        for when, fault in CASES
    ],
)
def test_a_fault_left_out_of_the_table_doubles_loses_and_sticks_nothing(
    tmp_path: Path, kit: BoardKit, write: str, when: str, fault: str
) -> None:
    with kit.day(tmp_path) as day:
        day.server.slow_for = 0.8
        topic = day2(day) if write == "reply" else None
        place = day.server.fail_after_acting if when == "after" else day.server.fail_before_acting
        place(kit.places[write], fault)
        if topic is None:
            said = publish_until_done(day)
            assert len(said) <= 2, said
            kit.published_once(day)
        else:
            watch_until_quiet(day)
            assert len(counts_posted(day, topic)) == 1
        assert day.server.faults.pending() == 0, "the fault never struck"
        nothing_set_aside(day)


def test_a_reply_to_a_topic_locked_meanwhile_is_set_aside_in_the_boards_words_and_the_rest_goes_on(
    tmp_path: Path,
) -> None:
    """A refusal for good on a reply: a moderator locked the topic (the bot is no moderator). The watch sets
    the reply aside with the board's own words, sends the PM queued after it, and never tries the reply again."""
    with PHPBB.day(tmp_path, bot_moderator=False) as day:
        topic = day2(day, voters=0)
        day.board.lock_topic(topic)
        game = day.store.game(GAME).id
        marks = [f"fbm{n:024x}" for n in range(2)]
        day.store.queue(
            game,
            [
                Letter(marks[0], "reply", [str(topic)], "", f"1\n{marks[0]}"),
                Letter(marks[1], "pm", [PLAYERS[0]], "s", f"2\n{marks[1]}"),
            ],
        )
        for _ in range(2):  # a second pass leaves it alone
            client = day.client()
            watch_once(day.store, GAME, client, poster_for(client), NOW + timedelta(hours=1))
            assert day.clock is not None
            day.clock.sleep(60)
        [aside] = [x for x in waiting_and_set_aside(day.store, game) if x.kind == "reply"]
        assert aside.status == "refused" and "Эта тема закрыта" in (aside.error or ""), aside.error
        assert [m.body for m in day.pms(PLAYERS[0]) if m.body.startswith("2")] == [f"2\n{marks[1]}"]
        assert day.server.count("posting.php", query="mode=reply") == 1  # its form answered "locked": asked once
        assert not any(p.body.startswith("1") for p in day.board.posts_of(topic))
