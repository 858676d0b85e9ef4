"""Faults injected at the transport, on the fake board over real HTTP: the board acts and then answers
503 or 429, drops the connection, or answers too late; the process crashes between any two steps. A
property test throws random sequences of every fault each board of boards.py shows (its login page, its
"form invalid" answer, a cut answer, 503/429 with and without Retry-After, before and after it acted) at a
whole publish and at several watch passes, and every intended message must end up on the board exactly
once, nothing left due, nothing set aside."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from boards import BoardKit
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from publish_support import (
    BOT,
    CHECKPOINTS,
    DAY2_TITLE,
    GAME,
    NOW,
    WRITTEN,
    Crash,
    Played,
    crash_at,
    played_day,
)
from test_publish import assert_published_once

from forumbot.errors import ForumError, ParseError
from forumbot.forum.client import ForumClient
from forumbot.forum.registry import poster_for
from forumbot.host.outbox import waiting_and_set_aside
from forumbot.host.publish import publish
from forumbot.host.watch import watch_once

WRITES = ("POST posting.php", "POST ucp.php#post", "POST mcp.php")  # a post, a PM's send, the lock
SLOW = pytest.param(
    "slow", marks=pytest.mark.real_sleep(reason="the board answers after the client's real socket timeout (0.5 s)")
)
FAULTS = ("503", "429", "reset", SLOW)


def client_for(day: Played) -> ForumClient:
    """A client as a new run makes it, with a timeout short enough for the "slow" fault."""
    client: ForumClient = day.client(timeout=0.5, deadline=1.0)
    return client


def publish_until_done(day: Played, crashes: list[str], attempts: int = 12) -> int:
    """Run publish again and again, a minute apart, as a host, cron or the watch would after each failure,
    until the game moved on and nothing of the publication is due; the runs it took."""
    game = day.store.game(GAME).id
    for run in range(1, attempts + 1):
        state = day.store.game(GAME).state
        if state is not None and state.day == 2 and not day.store.pending(game, "publish"):
            return run - 1
        point = crashes.pop(0) if crashes else ""
        client = client_for(day)
        try:
            publish(day.store, GAME, client, NOW, poster=poster_for(client), checkpoint=crash_at(point), clock=at(day))
        except (ForumError, ParseError, Crash):
            pass
        if day.clock is not None:
            day.clock.sleep(60)
    raise AssertionError(f"publish did not finish in {attempts} runs")


def at(day: Played) -> Callable[[], datetime] | None:
    """The board's clock as a publication's pauses count on it (None: the machine's, for real time)."""
    clock = day.clock
    return (lambda: datetime.fromtimestamp(clock.now, UTC)) if clock is not None else None


@pytest.mark.parametrize("where", WRITES)
@pytest.mark.parametrize("fault", FAULTS)
def test_a_write_the_board_made_before_its_answer_failed_is_not_made_twice(
    tmp_path: Path, where: str, fault: str
) -> None:
    with played_day(tmp_path) as day:
        day.server.slow_for = 1.5
        day.server.fail_after_acting(where, fault)
        publish_until_done(day, [])
        assert_published_once(day)


@settings(
    max_examples=15, deadline=None, phases=[Phase.generate], suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_random_faults_and_crashes_never_double_lose_or_stick_a_message(
    board_kit: BoardKit, data: st.DataObject
) -> None:
    """On each board of boards.py: a publication under faults drawn from what its fake board shows (before
    and after acting, on its topic, PMs and lock) and crashes at any step; then day 2's watch under more
    faults, answering orders with receipts and posting an interim count. Every message is on the board
    exactly once, nothing is left due, nothing is set aside."""
    kit = board_kit
    shown = [(when, fault) for when, fault in kit.faults()]
    fault = st.tuples(st.sampled_from(shown), st.sampled_from(("topic", "pm", "lock")))
    faults = data.draw(st.lists(fault, max_size=4), label="publication faults")
    crashes = data.draw(st.lists(st.sampled_from(CHECKPOINTS), max_size=3), label="crashes")
    later = st.tuples(st.sampled_from(shown), st.sampled_from(("pm", "reply")))
    watch_faults = data.draw(st.lists(later, max_size=3), label="watch faults")
    with tempfile.TemporaryDirectory() as tmp, kit.day(Path(tmp)) as day:
        for (when, what), write in faults:
            place = day.server.fail_after_acting if when == "after" else day.server.fail_before_acting
            place(kit.places[write], what)
        publish_until_done(day, list(crashes))
        kit.published_once(day)
        day.server.clear_faults()
        senders, target, topic = day_two(day)
        for (when, what), write in watch_faults:
            place = day.server.fail_after_acting if when == "after" else day.server.fail_before_acting
            place(kit.places[write], what)
        errors = watch_until_done(day)
        game = day.store.game(GAME).id
        assert not day.store.pending(game), errors
        assert not waiting_and_set_aside(day.store, game), errors
        for nick in senders:
            receipts = [m for m in day.board.pms_to(nick) if m.sender == BOT and "Проверяю — " + target in m.body]
            assert len(receipts) == 1, (nick, [m.body for m in day.board.pms_to(nick)], errors)
        counts = [p for p in day.board.posts_of(topic) if p.author == BOT and "Промежуточный подсчёт" in p.body]
        assert len(counts) == 1, errors
        bodies = [(m.recipients, m.body) for m in day.board.pms_from(BOT)]
        assert len(bodies) == len(set(bodies))  # nobody got anything twice


def day_two(day: Played) -> tuple[list[str], str, int]:
    """Day 2: three players send orders by PM and three vote in its topic, at the board's own time. The
    senders, the target of their orders, and the day-2 topic."""
    state = day.store.game(GAME).state
    assert state is not None and day.clock is not None
    senders = [p.nick for p in state.living() if p.nick in WRITTEN][:3]
    target = next(p.nick for p in state.living() if p.nick not in senders)
    [topic] = day.topics_titled(DAY2_TITLE)
    for nick in senders:
        day.clock.sleep(30)
        now = datetime.fromtimestamp(day.clock.now, UTC)
        day.board.send_pm(nick, BOT, "приказ", f"Проверяю — {target}", now)
        day.board.add_post(topic.topic_id, nick, f"Голосую: [color=red][b]{target}[/b][/color]", now)
    return senders, target, topic.topic_id


def watch_until_done(day: Played, passes: int = 10) -> list[str]:
    """Watch passes a minute apart until one leaves nothing due; what went wrong on the way."""
    errors: list[str] = []
    for _ in range(passes):
        client = client_for(day)
        try:
            report = watch_once(day.store, GAME, client, poster_for(client), NOW + timedelta(hours=1))
        except (ForumError, ParseError) as exc:
            errors.append(str(exc))
        else:
            errors.extend(report.problems)
            if not day.store.pending(day.store.game(GAME).id) and not report.problems:
                return errors
        assert day.clock is not None
        day.clock.sleep(60)
    return errors
