"""Plain-text forum dates -> aware datetimes.

Forums print most dates as text in the viewer's time zone and language:
phpBB `Sun Nov 29, 2026 5:32 pm` / `Вс ноя 29, 2026 5:38 pm` / `29 ноя 2026, 17:38`,
IPB 2 `27.11.2026, 22:00` / `Nov 29 2026, 11:15 PM`, IPB 3 `29 November 2026 - 08:31 PM`,
and relative forms: `Сегодня, 9:30`, `Вчера, 23:58`, `Today, 11:15 PM`, `5 minutes ago`,
`менее минуты назад`. Relative forms need the page's "now"; without it they give None.

A page's "now" is the board's clock when it made the page, never the reader's: the time the page prints of
itself (IPB 2's footer «Сейчас: 29.11.2026, 21:10»), else the time the board's answer carries (its HTTP
`Date` header); `page_clock` puts the two together.

A printed date names a span of time, not an instant: `parse_forum_interval` gives that span,
`parse_forum_date` a single instant (the start of the span for absolute texts).
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, time, timedelta, tzinfo

_MONTH_FORMS = (
    "jan january январь января янв",
    "feb february февраль февраля фев февр",
    "mar march март марта мар",
    "apr april апрель апреля апр",
    "may май мая",
    "jun june июнь июня июн",
    "jul july июль июля июл",
    "aug august август августа авг",
    "sep sept september сентябрь сентября сен сент",
    "oct october октябрь октября окт",
    "nov november ноябрь ноября ноя нояб",
    "dec december декабрь декабря дек",
)
MONTHS: dict[str, int] = {form: i for i, forms in enumerate(_MONTH_FORMS, 1) for form in forms.split()}

_DAY_SHIFT = {"today": 0, "сегодня": 0, "yesterday": -1, "вчера": -1, "tomorrow": 1, "завтра": 1}
_AGO_WORDS = frozenset({"ago", "назад"})
_UNITS = (
    ("sec", timedelta(seconds=1)),
    ("сек", timedelta(seconds=1)),
    ("min", timedelta(minutes=1)),
    ("мин", timedelta(minutes=1)),
    ("hour", timedelta(hours=1)),
    ("час", timedelta(hours=1)),
    ("day", timedelta(days=1)),
    ("дн", timedelta(days=1)),
    ("ден", timedelta(days=1)),
)

_TIME = re.compile(r"(?<!\d)(\d{1,2}):(\d{2})(?::(\d{2}))?(?!\d)(?:\s*([ap])\.?\s?m\b\.?)?", re.I)
_WORD = re.compile(r"[^\W\d_]+")
_NUMBER = re.compile(r"(?<![\d.])'?(\d{1,4})(?:st|nd|rd|th)?(?![\d])", re.I)
_DMY = re.compile(r"(?<!\d)(\d{1,2})[./](\d{1,2})[./](\d{4}|\d{2})(?!\d)")
_YMD = re.compile(r"(?<!\d)(\d{4})-(\d{1,2})-(\d{1,2})(?!\d)")


# the commonest shapes, matched whole before the general reading: "27.11.2026, 22:00" (IPB 2)
# and "Сегодня, 9:30" / "Today, 11:15 PM"
_DMY_TIME = re.compile(r"(\d{1,2})\.(\d{1,2})\.(\d{4}),? (\d{1,2}):(\d{2})")
_DAY_TIME = re.compile(r"([^\W\d_]+), (\d{1,2}):(\d{2})(?: ?([ap])\.?m\.?)?", re.I)


def is_relative(text: str) -> bool:
    """Whether the text is a relative date (today/yesterday/... ago), which needs a "now"."""
    words = {w.lower() for w in _WORD.findall(text)}
    return bool(words & (_DAY_SHIFT.keys() | _AGO_WORDS))


def page_clock(
    printed: datetime | None, told: datetime | None, *, printed_to: timedelta = timedelta(minutes=1)
) -> datetime | None:
    """The board's "now" for one page, against which its relative dates are read.

    `printed` is the time the page prints of itself (to the minute: `printed_to`), `told` the time the board's
    answer carried (its `Date` header, to the second). The page's own time wins: `told` only refines it to
    the second when it falls within the printed minute (a `Date` outside it is another machine's clock: a
    proxy's, a cache's). A page that prints no time of its own is read against `told`."""
    if printed is None:
        return told
    if told is not None and printed <= told < printed + printed_to:
        return told
    return printed


def parse_forum_date(text: str, tz: tzinfo, now: datetime | None = None) -> datetime | None:
    """The moment a forum date stands for, in `tz` (the zone the page was printed in).

    `now` (aware) resolves relative dates; None when the text has no date and time this
    recognises, or is relative and `now` is missing."""
    text = " ".join(text.split())
    if not text:
        return None
    quick = _quick(text, tz, now)
    if quick is not None:
        return quick
    words = [w.lower() for w in _WORD.findall(text)]
    if _AGO_WORDS.intersection(words):
        return _ago(text, words, now)
    m = _TIME.search(text)
    if m is None:
        return None
    rest = text[: m.start()] + " " + text[m.end() :]
    day = _relative_day(words, tz, now) if _DAY_SHIFT.keys() & set(words) else _calendar_day(rest, words)
    if day is None:
        return None
    hour, minute, second = int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)
    hour = _twelve_hour(hour, m.group(4))
    if hour > 23 or minute > 59 or second > 59:
        return None
    return datetime(day.year, day.month, day.day, hour, minute, second, tzinfo=tz)


def parse_forum_interval(text: str, tz: tzinfo, now: datetime | None = None) -> tuple[datetime, datetime] | None:
    """The half-open interval `[earliest, until)` in which the instant a forum date was printed
    for lies, in `tz` (the zone the page was printed in); None when the text is no date this
    reads, or is relative and `now` is missing.

    `now` is the board's clock when it rendered the page (aware). Forum times are whole seconds
    and phpBB compares them with its own whole-second clock, so `now` counts as `now` truncated
    to the second, and both ends below are whole seconds:

    - a time with seconds (`01.12.2026 11:49:14`): that second, `until = earliest + 1 s`;
    - a time to the minute (`29 ноя 2026, 18:24`, `Tue Dec 01, 2026 11:49 am`,
      `Сегодня, 11:49`, `Yesterday, 18:00`): that minute, `[hh:mm:00, hh:mm:00 + 60 s)`;
    - a date without a time (`29 ноя 2026`, `Сегодня`): that whole day in `tz`, from its
      midnight to the next midnight (exclusive);
    - `менее минуты назад` / `less than a minute ago`: the age is 0–59 s, so the instant is in
      `(now − 60 s, now]`, returned as `[now − 59 s, now + 1 s)`;
    - `N минут назад` / `N minutes ago` (phpBB prints the age in whole minutes, rounded down):
      the age is in `[N min, N min + 59 s]`, so the instant is in `(now − (N+1) min, now − N min]`,
      returned as `[now − (N+1) min + 1 s, now − N min + 1 s)`. phpBB writes ages up to 60 min
      exactly ("60 минут назад" is an age of exactly 3600 s: one second). Other units ("2 hours
      ago", "5 секунд назад") are read the same way, rounded down in their unit.

    Relative days follow phpBB 3.3: "today" is `[midnight, midnight + 24 h)` of `now` in `tz`,
    "yesterday" the day before. phpBB shows an age in minutes instead of "today" up to one hour,
    and does so even across midnight."""
    text = " ".join(text.split())
    if not text:
        return None
    words = [w.lower() for w in _WORD.findall(text)]
    if _AGO_WORDS.intersection(words):
        return _ago_interval(text, words, tz, now)
    m = _TIME.search(text)
    if m is None:
        return _day_interval(text, words, tz, now)
    start = parse_forum_date(text, tz, now)
    if start is None:
        return None
    return start, start + (timedelta(seconds=1) if m.group(3) else timedelta(minutes=1))


def _ago_interval(text: str, words: list[str], tz: tzinfo, now: datetime | None) -> tuple[datetime, datetime] | None:
    if now is None:
        return None
    unit = next((delta for w in words for stem, delta in _UNITS if w.startswith(stem)), None)
    if unit is None:
        return None
    if any(w in ("less", "менее", "меньше") for w in words):
        count = 0
    else:
        m = re.search(r"\d+", text)
        count = int(m.group(0)) if m else 1
    clock = now.astimezone(UTC).replace(microsecond=0)
    second = timedelta(seconds=1)
    earliest = clock - (count + 1) * unit + second
    until = clock - count * unit + second
    if unit == timedelta(minutes=1) and count == 60:  # phpBB says "60 minutes" for exactly 3600 s
        earliest = until - second
    return earliest.astimezone(tz), until.astimezone(tz)


def _day_interval(text: str, words: list[str], tz: tzinfo, now: datetime | None) -> tuple[datetime, datetime] | None:
    """A date with no time of day: the whole day, midnight to midnight in `tz`."""
    if words and all(w in _DAY_SHIFT for w in words) and not any(c.isdigit() for c in text):
        day = _relative_day(words, tz, now)
    else:
        day = _calendar_day(text, words)
    if day is None:
        return None
    start = datetime.combine(day, time(), tzinfo=tz)
    return start, datetime.combine(day + timedelta(days=1), time(), tzinfo=tz)


def _quick(text: str, tz: tzinfo, now: datetime | None) -> datetime | None:
    m = _DMY_TIME.fullmatch(text)
    if m:
        day = _safe_date(int(m.group(3)), int(m.group(2)), int(m.group(1)))
        hour, minute = int(m.group(4)), int(m.group(5))
    else:
        m = _DAY_TIME.fullmatch(text)
        shift = _DAY_SHIFT.get(m.group(1).lower()) if m else None
        if m is None or shift is None or now is None:
            return None
        day = now.astimezone(tz).date() + timedelta(days=shift)
        hour, minute = _twelve_hour(int(m.group(2)), m.group(4)), int(m.group(3))
    if day is None or hour > 23 or minute > 59:
        return None
    return datetime(day.year, day.month, day.day, hour, minute, tzinfo=tz)


def _twelve_hour(hour: int, marker: str | None) -> int:
    if not marker:
        return hour
    if marker.lower() == "a":
        return 0 if hour == 12 else hour
    return hour if hour == 12 else hour + 12


def _relative_day(words: list[str], tz: tzinfo, now: datetime | None) -> date | None:
    if now is None:
        return None
    shift = next(_DAY_SHIFT[w] for w in words if w in _DAY_SHIFT)
    return now.astimezone(tz).date() + timedelta(days=shift)


def _calendar_day(rest: str, words: list[str]) -> date | None:
    month = next((MONTHS[w] for w in words if w in MONTHS), None)
    if month is None:
        return _numeric_day(rest)
    year = day = None
    for m in _NUMBER.finditer(rest):
        raw = m.group(0)
        value = int(m.group(1))
        if year is None and (len(m.group(1)) == 4 or raw.startswith("'")):
            year = value if value > 99 else 2000 + value
        elif day is None and 1 <= value <= 31 and len(m.group(1)) <= 2:
            day = value
    return _safe_date(year, month, day)


def _numeric_day(rest: str) -> date | None:
    m = _DMY.search(rest)
    if m:
        year = int(m.group(3))
        return _safe_date(year if year > 99 else 2000 + year, int(m.group(2)), int(m.group(1)))
    m = _YMD.search(rest)
    if m:
        return _safe_date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    return None


def _safe_date(year: int | None, month: int | None, day: int | None) -> date | None:
    if year is None or month is None or day is None:
        return None
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _ago(text: str, words: list[str], now: datetime | None) -> datetime | None:
    if now is None:
        return None
    unit = next((delta for w in words for stem, delta in _UNITS if w.startswith(stem)), None)
    if unit is None:
        return None
    if any(w in ("less", "менее", "меньше") for w in words):
        return now
    m = re.search(r"\d+", text)
    count = int(m.group(0)) if m else 1
    return now - count * unit


# IPB 3's fully relative dates (`class_localization::getDate`, `time_use_relative = 3`): the age, in whole
# seconds, that each form stands for. A form without a number is its own band: "минуту назад" is any age under
# 2 minutes, "час назад" 1 to 2 hours, "вчера" alone 24 to 48 hours (not the calendar day), "неделю назад" 1 to
# 2 weeks; a number counts whole units of the age (weeks of 604,900 s, as IPB divides).
_IPB_BANDS = {"min": (0, 120), "hour": (3600, 7200), "day": (86400, 172800), "week": (604800, 1209600)}
_IPB_UNITS = (
    ("sec", "sec", 1),
    ("сек", "sec", 1),
    ("min", "min", 60),
    ("мин", "min", 60),
    ("hour", "hour", 3600),
    ("час", "hour", 3600),
    ("day", "day", 86400),
    ("дн", "day", 86400),
    ("ден", "day", 86400),
    ("week", "week", 604900),
    ("нед", "week", 604900),
)
_YESTERDAY = frozenset({"yesterday", "вчера"})


def parse_ipb_interval(text: str, tz: tzinfo, now: datetime | None = None) -> tuple[datetime, datetime] | None:
    """`parse_forum_interval` for IPB: its fully relative forms ("3 часов назад", "минуту назад", "вчера"
    with no time) are read by IPB's own bands (above), against `now`, the board's clock when it made the page;
    every other text as `parse_forum_interval` reads it."""
    cleaned = " ".join(text.split())
    words = [w.lower() for w in _WORD.findall(cleaned)]
    if now is not None and words and not any(c.isdigit() for c in cleaned) and set(words) <= _YESTERDAY:
        return _age_interval(_IPB_BANDS["day"], tz, now)
    if now is None or not _AGO_WORDS.intersection(words):
        return parse_forum_interval(text, tz, now)
    unit = next(((name, size) for w in words for stem, name, size in _IPB_UNITS if w.startswith(stem)), None)
    if unit is None:
        return None
    number = re.search(r"\d+", cleaned)
    if number is None:
        band = _IPB_BANDS.get(unit[0])
        return _age_interval(band, tz, now) if band is not None else None
    count = int(number.group(0))
    return _age_interval((count * unit[1], (count + 1) * unit[1]), tz, now)


def _age_interval(age: tuple[int, int], tz: tzinfo, now: datetime) -> tuple[datetime, datetime]:
    """The instants whose whole-second age at `now` is in [age[0], age[1]) seconds, half-open."""
    clock = now.astimezone(UTC).replace(microsecond=0)
    second = timedelta(seconds=1)
    earliest = clock - timedelta(seconds=age[1]) + second
    until = clock - timedelta(seconds=age[0]) + second
    return earliest.astimezone(tz), until.astimezone(tz)
