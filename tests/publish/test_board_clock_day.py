"""Issue 23, item 6: a day ended on the live Russian board (relative dates: «8 минут назад») by a bot whose own
clock is minutes or hours off, with `--now` (end-day's `now`) the moment the board's clock shows. The orders
sent just before the deadline are read by the board's clock for that answer, so they count; `--now` moves only
the bot's own moment, never the instant a page's relative dates count from."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from publish_support import (
    BOSS,
    CHECKED,
    EXECUTED,
    GAME,
    MAFIA,
    NOW,
    PLAYERS,
    SHERIFF,
    START,
    VICTIM,
    Played,
    played_day,
)

from fakeboard.clock import FakeClock
from forumbot.forum.http import HttpSettings
from forumbot.forum.phpbb.reader import PhpbbClient
from forumbot.host import games

DEADLINE = datetime(2026, 11, 29, 23, 0, tzinfo=UTC)


class SkewedClock:
    """The bot machine's clock: `skew` seconds off the board's, and moving with it (a wait is real time for both)."""

    def __init__(self, board: FakeClock, skew: float) -> None:
        self.board, self.skew = board, skew

    def time(self) -> float:
        return self.board.time() + self.skew

    def monotonic(self) -> float:
        return self.board.monotonic()

    def sleep(self, seconds: float) -> None:
        self.board.sleep(seconds)


def play_to_the_last_minutes(day: Played) -> None:
    """The votes early in the day; the boss's kill and the sheriff's check 3 and 2 minutes before the deadline
    (the board prints them «8 минут назад» and «7 минут назад» at 23:05, its now)."""
    voters = [n for n in PLAYERS if n not in (EXECUTED, BOSS, *MAFIA)]
    for k, voter in enumerate(voters):
        day.board.add_post(
            day.day1_topic, voter, f"Голосую: [color=red][b]{EXECUTED}[/b][/color]", START + timedelta(minutes=10 + k)
        )
    day.board.send_pm(BOSS, "host_bot", "заказ", f"Убиваем — {VICTIM}", DEADLINE - timedelta(minutes=3))
    day.board.send_pm(SHERIFF, "host_bot", "проверка", f"Проверяю — {CHECKED}", DEADLINE - timedelta(minutes=2))


@pytest.mark.parametrize("skew", [10 * 60, 3 * 3600, -20 * 60], ids=["10-min-ahead", "3-h-ahead", "20-min-behind"])
def test_orders_sent_before_the_deadline_count_whatever_the_bots_clock_and_now(tmp_path: Path, skew: int) -> None:
    with played_day(tmp_path, language="ru", drafted=False) as day:
        play_to_the_last_minutes(day)
        assert day.clock is not None
        with PhpbbClient(
            day.server.url,
            username="host_bot",
            password="secret",
            settings=HttpSettings(min_interval=0.0, backoff_base=0.0),
            clock=SkewedClock(day.clock, skew),
        ) as client:
            draft = games.end_day(day.store, GAME, client, now=NOW)  # `--now`: the board's moment
        outcome = draft.outcome()
        assert VICTIM in outcome.deaths and outcome.deaths[VICTIM] != "inactive", outcome.deaths
        assert SHERIFF in outcome.checks, outcome.checks  # his check counted: sent two minutes before the deadline
        assert BOSS not in outcome.deaths and SHERIFF not in outcome.deaths  # nobody "inactive"
