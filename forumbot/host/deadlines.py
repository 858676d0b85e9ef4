"""A day's deadline: told, moved, reminded of, and (if the game wants) held by a lock.

- `next_deadline`: the deadline the day post states for the next day, and `advance` then keeps: the first
  `[game] deadline` o'clock at least the next day's length (six hours, or what `forumbot deadline
  --next-day-length` set) after the next day's start;
- `move_deadline`: the host moves the current day's deadline; the audit keeps who, why, from what to what,
  and the day topic is told, in one transaction (the announcement goes through the outbox);
- `deadline_pass`, called by every watch pass: a reminder in the day topic `[watch] reminder_hours` before
  the deadline, and the day topic locked once the deadline has passed (`[watch] lock_at_deadline`); both
  off by default, each made once per deadline (a moved deadline gets its own reminder).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from forumbot.config import GameConfig
from forumbot.draft import OverrideRow
from forumbot.engine.day import ruleset_for
from forumbot.errors import StateError
from forumbot.forum.registry import topic_number
from forumbot.host.outbox import markers_for, with_marker
from forumbot.i18n import N_
from forumbot.render import announcements as said
from forumbot.render.announcements import told
from forumbot.store import GameRow, Letter, Store

MIN_DAY_LENGTH = timedelta(hours=6)
# The farthest a deadline may be moved, from now, and the longest a next day may last: two weeks.
MAX_AHEAD = timedelta(days=14)
MOVED = "deadline"  # the audit's kind for a moved deadline
NEXT_LENGTH = "next_day_length"  # the audit's kind for the next day's length (hours)
DEADLINE_KINDS = (MOVED, NEXT_LENGTH)


def first_deadline(start: datetime, at: time, zone: ZoneInfo, length: timedelta = MIN_DAY_LENGTH) -> datetime:
    """The first `at` o'clock in the game's zone at least `length` after the day's start."""
    local = start.astimezone(zone)
    day: date = local.date()
    while True:
        candidate = datetime.combine(day, at, tzinfo=zone)
        if candidate >= local + length:
            return candidate
        day += timedelta(days=1)


def next_day_length(overrides: Sequence[OverrideRow]) -> timedelta:
    """The next day's least length, as the host last set it for this day (else six hours)."""
    lengths = [float(o.subject) for o in overrides if o.kind == NEXT_LENGTH]
    return timedelta(hours=lengths[-1]) if lengths else MIN_DAY_LENGTH


def next_deadline(
    config: GameConfig, day: dict[str, Any], overrides: Sequence[OverrideRow], now: datetime | None
) -> datetime:
    """The next day's deadline, reckoned from its earliest start: this day's deadline, or now if later."""
    start = max(day["deadline"], now) if now is not None else day["deadline"]
    return first_deadline(start, config.game.deadline, config.game.zone, next_day_length(overrides))


def parse_when(text: str, current: datetime, zone: ZoneInfo) -> datetime:
    """WHEN as the host writes it: an ISO moment (in the game's zone when it has no offset), or "+12h" /
    "-30m" from the current deadline."""
    text = text.strip()
    if text[:1] in "+-" and text[-1:].lower() in ("h", "m") and text[1:-1].isdigit():
        minutes = int(text[1:-1]) * (60 if text[-1].lower() == "h" else 1)
        if minutes > MAX_AHEAD / timedelta(minutes=1):
            raise StateError(
                N_("WHEN {text!r}: a shift of at most {value}h (two weeks)"),
                text=text,
                value=MAX_AHEAD // timedelta(hours=1),
            )
        step = timedelta(minutes=minutes)
        return current + step if text[0] == "+" else current - step
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise StateError(
            N_("{text!r}: give an ISO date-time (2026-12-02T23:00) or a shift (+12h, -30m)"), text=text
        ) from None
    if abs(moment.year - current.year) > 1:  # a typo of the year, and no arithmetic at the calendar's ends
        raise StateError(N_("WHEN {text!r}: the year {year} is not this game's"), text=text, year=moment.year)
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=zone)


@dataclass(frozen=True)
class Moved:
    day: int
    before: datetime
    after: datetime
    announcement: str | None  # the marker of the reply queued for the day topic (None: no topic yet)


def move_deadline(
    store: Store, row: GameRow, config: GameConfig, when: datetime, now: datetime, *, reason: str, by: str
) -> Moved:
    """Move the current day's deadline to `when`, announced in the day topic. Refused: a deadline in the
    past or before the day's start, a day whose draft is approved or being published, an empty reason."""
    day_no, day = _open_day(store, row)
    if not reason.strip() or not by.strip():
        raise StateError(N_("moving a deadline needs --reason and --by (both go into the audit)"))
    if when <= now or when <= day["starts_at"]:
        shown = told(when, config.game.zone)
        raise StateError(
            N_("{name}: {shown} has passed or is before day {day_no} began; give a later moment"),
            name=row.name,
            shown=shown,
            day_no=day_no,
        )
    if when - now > MAX_AHEAD:
        shown = told(when, config.game.zone)
        raise StateError(
            N_("WHEN: {shown} is more than two weeks away; a deadline moves at most two weeks ahead"), shown=shown
        )
    draft = store.draft(row.id, day_no)
    if draft is not None and draft.approved_by:
        raise StateError(
            N_("{game}: day {day}'s draft is approved already; the day is over"), game=row.name, day=day_no
        )
    news = [_announcement(store, row, config, day_no, day["topic"], when, reason)] if day["topic"] else []
    audit = (MOVED, when.isoformat(), day["deadline"].isoformat(), reason.strip(), by.strip())
    store.move_deadline(row.id, day_no, when, audit, news)
    return Moved(day_no, day["deadline"], when, news[0].marker if news else None)


def set_next_day_length(store: Store, row: GameRow, hours: float, *, reason: str, by: str) -> None:
    """The next day lasts at least `hours` (its deadline then falls at the game's deadline o'clock)."""
    day_no, _ = _open_day(store, row)
    if not 1 <= hours <= MAX_AHEAD / timedelta(hours=1):
        raise StateError(N_("--next-day-length {hours:g}: between 1 and 336 hours"), hours=hours)
    if not reason.strip() or not by.strip():
        raise StateError(N_("setting the next day's length needs --reason and --by (both go into the audit)"))
    store.add_override(row.id, day_no, NEXT_LENGTH, f"{hours:g}", None, reason.strip(), by.strip())


def _open_day(store: Store, row: GameRow) -> tuple[int, dict[str, Any]]:
    if row.state is None:
        raise StateError(N_("{game}: roles are not dealt yet (forumbot deal {game})"), game=row.name)
    if row.state.winner != "none":
        raise StateError(N_("{game}: the game is over"), game=row.name)
    day = store.day(row.id, row.state.day)
    if day is None or day["status"] == "done":
        raise StateError(N_("{game}: day {day} is not open"), game=row.name, day=row.state.day)
    return row.state.day, day


def _announcement(
    store: Store, row: GameRow, config: GameConfig, day: int, topic: str, when: datetime, reason: str
) -> Letter:
    body = said.deadline_moved(day, told(when, config.game.zone), reason.strip())
    mark = markers_for(store.marker_key(row.id))("deadline", day, when.isoformat())
    return Letter(mark, "reply", [str(topic)], said.day_subject(day), with_marker(body, mark), day=day)


# --- the watch's part -----------------------------------------------------------------------------------


def deadline_pass(store: Store, row: GameRow, config: GameConfig, now: datetime) -> None:
    """Queue the reminder and the lock when they are due (the watch pass sends what is queued)."""
    if row.state is None or row.state.winner != "none":
        return
    day = store.day(row.id, row.state.day)
    if day is None or not day["topic"] or day["status"] == "done":
        return
    marks = markers_for(store.marker_key(row.id))
    hours = config.watch.reminder_hours
    if hours and day["deadline"] - timedelta(hours=hours) <= now < day["deadline"]:
        when = told(day["deadline"], config.game.zone)
        body = said.reminder(row.state.day, when, hours)
        mark = marks("reminder", row.state.day, day["deadline"].isoformat())
        subject = said.day_subject(row.state.day)
        store.queue(
            row.id, [Letter(mark, "reply", [str(day["topic"])], subject, with_marker(body, mark), day=row.state.day)]
        )
        if config.watch.remind_missing_votes:
            store.queue(row.id, _vote_reminders(store, row, config, day["deadline"]))
    if config.watch.lock_at_deadline and now >= day["deadline"]:
        forum = str(config.forum.forum_id) if config.forum.forum_id is not None else ""
        number = topic_number(str(day["topic"]))
        topic = str(number) if number is not None else str(day["topic"])
        mark = marks("deadline-lock", row.state.day, topic)
        store.queue(row.id, [Letter(mark, "lock", [topic, forum], "", "", day=row.state.day)])


def _vote_reminders(store: Store, row: GameRow, config: GameConfig, deadline: datetime) -> list[Letter]:
    """One PM to each living player whose vote has not arrived, where the rules punish silence; once per
    deadline (the markers repeat, so a later pass queues nothing new)."""
    state = row.state
    assert state is not None
    if not ruleset_for(state).silence_punished:
        return []
    marks = markers_for(store.marker_key(row.id))
    when = told(deadline, config.game.zone)
    letters = []
    for player in state.living():
        if store.order_count(row.id, state.day, player.nick, "vote"):
            continue
        mark = marks("vote-reminder", state.day, deadline.isoformat(), player.nick)
        body = with_marker(said.vote_reminder(state.day, when), mark)
        subject = said.vote_reminder_subject(config.game.name, state.day)
        letters.append(Letter(mark, "pm", [player.nick], subject, body, day=state.day))
    return letters
