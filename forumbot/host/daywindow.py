"""Which private messages belong to a day, and in what order: exact times, or intervals that are known
to be intervals.

A forum often prints a PM's date relative to the moment the page was made ("менее минуты назад",
"6 минут назад", "Сегодня, 11:49"): the true instant is only known to lie in an interval (the parsers
give `time` = its start and `time_until` = its exclusive end). Deciding a deadline on such a time is
deciding it on a guess, so:

- a PM whose interval lies wholly inside [start, deadline) is the day's; wholly before the start it is
  an earlier day's; wholly at or after the deadline it is late;
- a PM whose interval straddles the start or the deadline is asked of the forum once more for its
  exact time (phpBB: the quote form carries the unix time to the second); if the forum cannot say, the
  PM is `uncertain`: it is not counted, and the host is told to decide (an override);
- the order of a day's messages is the forum's own (PM ids grow as messages arrive), never the order
  they were fetched in nor their printed minutes: two orders sent within one minute keep their order;
- a PM sent between `since` (the previous day's deadline) and the start is listed as early, so that no PM
  of the game is dropped without a word; what is older belonged to an earlier day and is not opened, unless
  the caller says it must be (`keep`: the game took it, and no earlier day listed it: the board's clock and
  the bot's disagreed). A PM that is opened and falls outside the day is always listed, never dropped;
- one bot account may host several games: `owner` says whether a PM is this game's (`host/routing.py`),
  another's (left out), or may be for several (`unplaced`: listed, never counted).

    window = read_day_pms(client, start, deadline, since=previous_deadline, owner=...)
    window.inside            # the day's PMs, by id
    window.late, window.uncertain, window.early, window.unplaced, window.unread
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import cached_property
from typing import Literal, Protocol

from forumbot.errors import ForumbotError
from forumbot.extract.pms import ReadPm, read_pm
from forumbot.posts import PmSummary, PrivateMessage

Side = Literal["before", "inside", "after", "uncertain"]
Ownership = Literal["mine", "unplaced", "skip"]  # this game's; maybe several games'; another's, or no order
EXACT = timedelta(seconds=1)  # a time printed to the second covers one second


class ExactTimes(Protocol):
    """A forum that may tell a message's time to the second."""

    def exact_pm_time(self, pm_id: int) -> datetime | None: ...


class PmSource(ExactTimes, Protocol):
    """What this module asks of a forum client."""

    def fetch_inbox(self) -> list[PmSummary]: ...

    def fetch_pms(self, pms: Sequence[PmSummary]) -> Iterator[PrivateMessage | ForumbotError]: ...


def interval_of(time: datetime | None, until: datetime | None) -> tuple[datetime, datetime] | None:
    """The half-open interval [earliest, until) a message's true instant lies in; None when unknown."""
    if time is None:
        return None
    return time, until if until is not None and until > time else time + EXACT


def side_of(interval: tuple[datetime, datetime] | None, start: datetime, deadline: datetime) -> Side:
    """Where an instant known to lie in `interval` falls against the day [start, deadline)."""
    if interval is None:
        return "uncertain"
    earliest, until = interval
    if until <= start:
        return "before"
    if earliest >= deadline:
        return "after"
    if earliest >= start and until <= deadline:
        return "inside"
    return "uncertain"


def narrowest(*intervals: tuple[datetime, datetime] | None) -> tuple[datetime, datetime] | None:
    """The intersection of what several readings say (the inbox row, the PM page); None when none says."""
    known = [i for i in intervals if i is not None]
    if not known:
        return None
    earliest, until = max(i[0] for i in known), min(i[1] for i in known)
    return (earliest, until) if earliest < until else min(known, key=lambda i: i[1] - i[0])


@dataclass(frozen=True)
class TimedPm:
    """A PM with what is known of its time: `exact` when to the second, else the interval it lies in."""

    pm: PrivateMessage
    side: Side
    interval: tuple[datetime, datetime] | None

    @property
    def exact(self) -> bool:
        return self.interval is not None and self.interval[1] - self.interval[0] <= EXACT

    @cached_property
    def read(self) -> ReadPm:
        """What the PM says, parsed the first time it is asked (votes by PM and the audit read the same)."""
        return read_pm(self.pm)

    def when(self) -> str:
        """The time as the audit shows it: an ISO instant, or "from/until" for an interval."""
        if self.interval is None:
            return "?"
        if self.exact:
            return self.interval[0].isoformat()
        return f"{self.interval[0].isoformat()}/{self.interval[1].isoformat()}"


@dataclass
class DayPms:
    """A day's PMs as the forum shows them, each list in the forum's order (by id)."""

    inside: list[TimedPm] = field(default_factory=list)
    late: list[TimedPm] = field(default_factory=list)
    uncertain: list[TimedPm] = field(default_factory=list)
    early: list[TimedPm] = field(default_factory=list)  # sent before the start (after `since`, or kept)
    unplaced: list[TimedPm] = field(default_factory=list)  # may be for another game too: never counted
    unread: list[dict[str, object]] = field(default_factory=list)  # PMs that could not be opened, and why
    asked: int = 0  # exact times asked of the forum

    @property
    def messages(self) -> list[PrivateMessage]:
        return [t.pm for t in self.inside]

    def all_listed(self) -> list[TimedPm]:
        """Every PM of the window the audit reads: the day's, the late, uncertain and early ones."""
        return sorted([*self.inside, *self.late, *self.uncertain, *self.early], key=lambda t: t.pm.pm_id)

    def add(self, timed: TimedPm) -> None:
        """File a placed PM by its side of the day (one from before the start only where the reader asked
        for the early ones: `read_day_pms`'s `since`)."""
        shelf = {"inside": self.inside, "after": self.late, "uncertain": self.uncertain}.get(timed.side)
        if shelf is not None:
            shelf.append(timed)


def read_day_pms(
    client: PmSource,
    start: datetime,
    deadline: datetime,
    *,
    since: datetime | None = None,
    owner: Callable[[PrivateMessage], Ownership] = lambda pm: "mine",
    skip: Callable[[int], bool] = lambda pm_id: False,
    keep: Callable[[int], bool] = lambda pm_id: False,
) -> DayPms:
    """The inbox's PMs that may belong to [start, deadline), and those sent in [since, start), opened and
    placed (see the module's doc). `owner(pm)` says whose a PM is; `skip(pm_id)` leaves out what the
    caller has handled already; `keep(pm_id)` opens a PM dated before `since` all the same. Every PM
    opened and owned is listed: one dated before the start is `early`, however early. One PM that cannot
    be opened is reported in `unread`, never a reason to drop the others."""
    window = DayPms()
    since = min(since, start) if since is not None else None  # a day ended early: the next began before its deadline
    rows: list[tuple[PmSummary, tuple[datetime, datetime] | None]] = []
    for summary in sorted(client.fetch_inbox(), key=lambda s: s.pm_id):
        row = interval_of(summary.time, summary.time_until)
        if skip(summary.pm_id):
            continue
        if side_of(row, since or start, deadline) != "before" or keep(summary.pm_id):
            rows.append((summary, row))
    for (summary, row), pm in zip(rows, client.fetch_pms([summary for summary, _ in rows]), strict=True):
        if isinstance(pm, ForumbotError):
            window.unread.append(
                {
                    "pm_id": summary.pm_id,
                    "sender": summary.sender,
                    "subject": summary.subject,
                    "link": summary.url,
                    "reason": str(pm),
                }
            )
            continue
        whose = owner(pm)
        if whose == "skip":
            continue
        timed = place(client, pm, row, start, deadline, window)
        if whose == "unplaced":
            window.unplaced.append(timed)
        elif timed.side == "before":  # opened, so not an earlier day's as far as anyone knows: listed, never lost
            window.early.append(timed)
        else:
            window.add(timed)
    return window


def place(
    client: ExactTimes,
    pm: PrivateMessage,
    row: tuple[datetime, datetime] | None,
    start: datetime,
    deadline: datetime,
    window: DayPms | None = None,
) -> TimedPm:
    """The PM placed against the day, its exact time asked of the forum when what is printed straddles
    the start or the deadline. The PM's `time` becomes the start of what is known."""
    interval = narrowest(row, interval_of(pm.time, pm.time_until))
    side = side_of(interval, start, deadline)
    if side == "uncertain":
        exact = client.exact_pm_time(pm.pm_id)
        if window is not None:
            window.asked += 1
        if exact is not None:
            interval = (exact, exact + EXACT)
            side = side_of(interval, start, deadline)
    return TimedPm(timed_as(pm, interval), side, interval)


def timed_as(pm: PrivateMessage, interval: tuple[datetime, datetime] | None) -> PrivateMessage:
    """The PM with what is known of its time: `time` the start of `interval`, `time_until` its end
    unless the interval is exact to the second."""
    if interval is None:
        return pm
    until = None if interval[1] - interval[0] <= EXACT else interval[1]
    return pm.model_copy(update={"time": interval[0], "time_until": until})


def shown_time(pm: PrivateMessage, row: PmSummary) -> PrivateMessage:
    """The PM with the narrowest time its inbox row and its own page print together."""
    return timed_as(pm, narrowest(interval_of(row.time, row.time_until), interval_of(pm.time, pm.time_until)))


__all__ = [
    "DayPms",
    "Ownership",
    "PmSource",
    "Side",
    "TimedPm",
    "shown_time",
    "timed_as",
    "interval_of",
    "narrowest",
    "place",
    "read_day_pms",
    "side_of",
]
