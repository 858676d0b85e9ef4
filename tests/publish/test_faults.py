"""Faults injected at the transport, on the fake board over real HTTP: the board acts and then answers
503 or 429, drops the connection, or answers too late; the process crashes between any two steps. A
property test throws random sequences of them at a whole publish and at several watch passes, and every
intended message must end up on the board exactly once."""

from __future__ import annotations

import tempfile
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from publish_support import (
    BOT,
    CHECKPOINTS,
    GAME,
    NOW,
    PLAYERS,
    WRITTEN,
    Crash,
    Played,
    crash_at,
    played_day,
)
from test_publish import assert_published_once

from forumbot.errors import ForumError
from forumbot.forum.phpbb.reader import PhpbbClient
from forumbot.forum.phpbb.writer import PhpbbPoster
from forumbot.host.publish import publish
from forumbot.host.watch import watch_once

WRITES = ("POST posting.php", "POST ucp.php#post", "POST mcp.php")  # a post, a PM's send, the lock
SLOW = pytest.param(
    "slow", marks=pytest.mark.real_sleep(reason="the board answers after the client's real socket timeout (0.5 s)")
)
FAULTS = ("503", "429", "reset", SLOW)


def client_for(day: Played) -> PhpbbClient:
    """A client as a new run makes it, with a timeout short enough for the "slow" fault."""
    client: PhpbbClient = day.client(timeout=0.5, deadline=1.0)
    return client


def publish_until_done(day: Played, crashes: list[str], attempts: int = 12) -> int:
    """Run publish again and again, as a host (or cron) would after each failure; the runs it took."""
    for run in range(1, attempts + 1):
        point = crashes.pop(0) if crashes else ""
        client = client_for(day)
        try:
            publish(day.store, GAME, client, NOW, poster=PhpbbPoster(client), checkpoint=crash_at(point))
            return run
        except (ForumError, Crash):
            continue
    raise AssertionError(f"publish did not finish in {attempts} runs")


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
@given(
    faults=st.lists(st.tuples(st.sampled_from(WRITES), st.sampled_from(("503", "429", "reset"))), max_size=4),
    crashes=st.lists(st.sampled_from(CHECKPOINTS), max_size=3),
    watch_faults=st.lists(st.sampled_from(("503", "429", "reset")), max_size=3),
)
def test_random_faults_and_crashes_never_double_or_lose_a_message(
    faults: list[tuple[str, str]], crashes: list[str], watch_faults: list[str]
) -> None:
    with tempfile.TemporaryDirectory() as tmp, played_day(Path(tmp)) as day:
        for where, fault in faults:
            day.server.fail_after_acting(where, fault)
        publish_until_done(day, list(crashes))
        assert_published_once(day)
        # Day 2: three players send orders; the watch answers each with a receipt, through more faults
        day.server.clear_faults()
        state = day.store.game(GAME).state
        assert state is not None
        senders = [nick for nick in WRITTEN if state.player(nick) and state.player(nick).alive][:3]
        target = next(p.nick for p in state.living() if p.nick not in senders)
        for k, nick in enumerate(senders):
            day.board.send_pm(nick, BOT, "приказ", f"Проверяю — {target}", NOW + timedelta(minutes=10 + k))
        for fault in watch_faults:
            day.server.fail_after_acting("POST ucp.php#post", fault)
        day.clock.sleep(3600)
        errors: list[str] = []
        for _ in range(10):
            client = client_for(day)
            try:
                report = watch_once(day.store, GAME, client, PhpbbPoster(client), NOW + timedelta(hours=1))
            except ForumError as exc:
                errors.append(str(exc))
                continue
            errors.extend(report.problems)
            if not day.store.pending(day.store.game(GAME).id) and not report.problems:
                break
        assert not day.store.pending(day.store.game(GAME).id)
        for nick in senders:
            receipts = [m for m in day.board.pms_to(nick) if m.sender == BOT and "Проверяю — " + target in m.body]
            assert len(receipts) == 1, (nick, [m.body for m in day.board.pms_to(nick)], errors)
        # nobody got anything twice
        bodies = [(m.recipients, m.body) for m in day.board.pms_from(BOT)]
        assert len(bodies) == len(set(bodies))
        assert len({p for p in PLAYERS}) == len(PLAYERS)
