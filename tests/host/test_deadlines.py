"""The watch's deadline part (`forumbot.host.deadlines.deadline_pass`): the reminder in the day topic N hours
before the deadline and the lock at it, both off by default, each queued once per deadline; and the next
day's deadline the day post tells."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta
from functools import partial
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from forumbot.config import GameConfig
from forumbot.host import deadlines, games
from forumbot.store import Letter, Store, count_valid_orders

DEALT = datetime(2026, 11, 29, 9, 0, tzinfo=UTC)
DEADLINE = datetime(2026, 11, 29, 20, 0, tzinfo=UTC)  # 23:00 in Moscow
PLAYERS = ["Лиса", "Кот", "Шарик", "Печкин", "Фёдор", "Winnie", "Галчонок", "Мурка", "Ёжик"]


def make_game(tmp_path: Path, watch: dict[str, Any], variant: str = "gameru-3.3") -> tuple[Store, GameConfig]:
    config = GameConfig.model_validate(
        {
            "game": {"name": "g", "variant": variant, "players": PLAYERS, "timezone": "Europe/Moscow"},
            "forum": {"forum_id": 4},
            "watch": watch,
        }
    )
    store = Store(tmp_path / "state.db")
    games.create_game(store, config)
    games.deal_game(store, "g", DEALT, topic="https://forum.example/viewtopic.php?t=77", seed=3)
    return store, config


def queued(store: Store) -> list[Letter]:
    return store.pending(store.game("g").id)


def one_pass(store: Store, config: GameConfig, at: datetime) -> None:
    deadlines.deadline_pass(store, store.game("g"), config, at)


def test_nothing_is_queued_by_default(tmp_path: Path) -> None:
    store, config = make_game(tmp_path, {})
    for at in (DEADLINE - timedelta(hours=1), DEADLINE + timedelta(minutes=1)):
        one_pass(store, config, at)
    assert queued(store) == []


def test_the_reminder_comes_once_inside_its_window(tmp_path: Path) -> None:
    store, config = make_game(tmp_path, {"reminder_hours": 3})
    one_pass(store, config, DEADLINE - timedelta(hours=3, minutes=1))
    assert queued(store) == []  # too early
    one_pass(store, config, DEADLINE - timedelta(hours=2))
    one_pass(store, config, DEADLINE - timedelta(hours=1))
    [reminder] = queued(store)
    assert reminder.kind == "reply" and reminder.recipients == ["https://forum.example/viewtopic.php?t=77"]
    assert "день 1 заканчивается 29.11.2026 в 23:00 (МСК). Осталось меньше 3 часов." in reminder.body
    one_pass(store, config, DEADLINE + timedelta(minutes=1))
    assert len(queued(store)) == 1  # none after the deadline


@pytest.mark.parametrize(
    ("hours", "left"),
    [(0.1, "меньше 6 минут"), (1, "меньше 1 часа"), (1.5, "меньше 1 часа 30 минут"), (0.35, "меньше 21 минуты")],
)
def test_the_reminder_tells_the_time_left_in_words(tmp_path: Path, hours: float, left: str) -> None:
    store, config = make_game(tmp_path, {"reminder_hours": hours})
    one_pass(store, config, DEADLINE - timedelta(minutes=1))
    [reminder] = queued(store)
    assert f"Осталось {left}." in reminder.body and " ч." not in reminder.body


def test_a_moved_deadline_gets_its_own_reminder(tmp_path: Path) -> None:
    store, config = make_game(tmp_path, {"reminder_hours": 3})
    one_pass(store, config, DEADLINE - timedelta(hours=1))
    row = store.game("g")
    later = DEADLINE + timedelta(hours=24)
    deadlines.move_deadline(store, row, config, later, DEADLINE - timedelta(minutes=50), reason="сбой", by="host")
    one_pass(store, config, later - timedelta(hours=1))
    bodies = [x.body for x in queued(store) if x.kind == "reply"]
    assert len(bodies) == 3  # the first reminder, the announcement of the move, the second reminder
    assert "30.11.2026 в 23:00 (МСК)" in bodies[-1] and "Напоминание" in bodies[-1]


def test_the_topic_is_locked_once_when_the_deadline_passes(tmp_path: Path) -> None:
    store, config = make_game(tmp_path, {"lock_at_deadline": True})
    one_pass(store, config, DEADLINE - timedelta(seconds=1))
    assert queued(store) == []
    one_pass(store, config, DEADLINE)
    one_pass(store, config, DEADLINE + timedelta(minutes=10))
    [lock] = queued(store)
    assert lock.kind == "lock" and lock.recipients == ["77", "4"]


@pytest.mark.parametrize(
    ("hours", "now", "expected"),
    [
        (None, None, datetime(2026, 11, 30, 23, 0)),  # from the old deadline: six hours at least
        (None, datetime(2026, 11, 30, 1, 0, tzinfo=UTC), datetime(2026, 11, 30, 23, 0)),
        (30, None, datetime(2026, 12, 1, 23, 0)),
        (48, datetime(2026, 11, 30, 1, 0, tzinfo=UTC), datetime(2026, 12, 2, 23, 0)),
    ],
)
def test_the_next_deadline_counts_the_next_day_s_length(
    tmp_path: Path, hours: float | None, now: datetime | None, expected: datetime
) -> None:
    store, config = make_game(tmp_path, {})
    row = store.game("g")
    if hours is not None:
        deadlines.set_next_day_length(store, row, hours, reason="выходные", by="host")
    day = store.day(row.id, 1)
    assert day is not None
    told = deadlines.next_deadline(config, day, store.overrides(row.id, 1), now)
    assert told == expected.replace(tzinfo=ZoneInfo("Europe/Moscow"))


def test_the_first_deadline_keeps_the_length(tmp_path: Path) -> None:
    zone = ZoneInfo("Europe/Moscow")
    start = datetime(2026, 11, 29, 18, 0, tzinfo=zone)
    assert deadlines.first_deadline(start, time(23, 0), zone) == datetime(2026, 11, 30, 23, 0, tzinfo=zone)
    assert deadlines.first_deadline(start, time(23, 0), zone, timedelta(hours=5)) == start.replace(hour=23)


def test_where_silence_kills_each_player_without_a_vote_is_reminded_by_pm_once(tmp_path: Path) -> None:
    store, config = make_game(tmp_path, {"reminder_hours": 2, "remind_missing_votes": True}, variant="salon")
    game_id = store.game("g").id
    store.queue(
        game_id, [], changes=[partial(count_valid_orders, game_id=game_id, day=1, actor="Кот", action="vote", n=1)]
    )
    one_pass(store, config, DEADLINE - timedelta(hours=1))
    one_pass(store, config, DEADLINE - timedelta(minutes=30))
    pms = [letter for letter in queued(store) if letter.kind == "pm"]
    assert sorted(letter.recipients[0] for letter in pms) == sorted(p for p in PLAYERS if p != "Кот")
    assert all(
        "ваш голос на день 1 ещё не пришёл" in letter.body and "23:00 (МСК)" in letter.body for letter in pms
    )
    assert pms[0].subject == "g: ваш голос на день 1"


def test_no_vote_reminders_where_silence_costs_nothing(tmp_path: Path) -> None:
    store, config = make_game(tmp_path, {"reminder_hours": 2, "remind_missing_votes": True})
    one_pass(store, config, DEADLINE - timedelta(hours=1))
    assert [letter.kind for letter in queued(store)] == ["reply"]  # the topic's reminder only
