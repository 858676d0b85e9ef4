"""A PM that falls outside the day's window always has its row in the orders audit, saying so: one dated
before the start however early (opened because the game took it, or because its printed date straddled the
listed range) is listed `before_start`, never dropped without a word."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta

from forumbot.engine import GameState, Player
from forumbot.engine.day import ruleset_for
from forumbot.errors import ForumbotError
from forumbot.host.daywindow import read_day_pms
from forumbot.host.games import audit_pms
from forumbot.posts import PmSummary, PrivateMessage

START = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
DEADLINE = START + timedelta(hours=11)
SINCE = START - timedelta(hours=13, seconds=30)  # the previous day ended early, at 22:59:30
PLAYERS = ("Дон", "Шериф", "Анна", "Борис", "Вера", "Глеб", "Дина")
STATE = GameState(
    variant="gameru-3.3",
    players=tuple(
        Player(nick=n, role=r, boss=n == "Дон")
        for n, r in zip(PLAYERS, ("mafia", "sheriff", *["civilian"] * 5), strict=True)
    ),
)


class Inbox:
    """An inbox whose rows print a date to the minute (an interval) and whose PMs tell it to the second."""

    def __init__(self, *messages: tuple[int, str, str, datetime]) -> None:
        self.messages = {pm_id: (sender, text, at) for pm_id, sender, text, at in messages}

    def fetch_inbox(self) -> list[PmSummary]:
        rows = []
        for pm_id, (sender, _, at) in self.messages.items():
            minute = at.replace(second=0)
            rows.append(
                PmSummary(pm_id=pm_id, subject="x", sender=sender, time=minute,
                          time_until=minute + timedelta(minutes=1), url=f"p={pm_id}")
            )  # fmt: skip
        return rows

    def fetch_pms(self, pms: Sequence[PmSummary]) -> Iterator[PrivateMessage | ForumbotError]:
        for row in pms:
            sender, text, at = self.messages[row.pm_id]
            yield PrivateMessage(
                pm_id=row.pm_id, sender=sender, time=at, subject="x", body_html=text, body_text=text, url=row.url
            )

    def exact_pm_time(self, pm_id: int) -> datetime | None:
        return self.messages[pm_id][2]


def rows_of(inbox: Inbox, keep: set[int] = frozenset()) -> list[tuple[int, str | None]]:  # type: ignore[assignment]
    window = read_day_pms(inbox, START, DEADLINE, since=SINCE, keep=lambda pm_id: pm_id in keep)
    _, audit = audit_pms(window, STATE.nicks(), ruleset_for(STATE))
    return [(int(r.pm_id or 0), r.reason) for r in audit]


def test_a_pm_whose_printed_minute_straddles_the_listed_range_but_lies_before_it_is_listed() -> None:
    """Its row («Сегодня, 22:59») may be after the previous day's end, so it is opened; to the second it lies
    before it. It used to be dropped without a row; now it is `before_start`."""
    inbox = Inbox((7, "Дон", "Убиваем — Анна", SINCE - timedelta(seconds=10)), (8, "Шериф", "Проверяю — Дон", START))
    assert rows_of(inbox) == [(7, "before_start"), (8, None)]


def test_a_pm_the_game_took_is_listed_however_early_its_date() -> None:
    """The board's clock two days behind the bot's: the watch answered the PM, its date is before anything the
    day lists. Kept (the game took it), it is opened and listed `before_start`; one not kept is never opened."""
    early = SINCE - timedelta(days=2)
    inbox = Inbox((3, "Дон", "Убиваем — Анна", early), (4, "Шериф", "Проверяю — Дон", early))
    assert rows_of(inbox, keep={3}) == [(3, "before_start")]
    assert rows_of(inbox) == []
