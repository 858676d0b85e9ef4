"""Plain-text forum dates -> aware datetimes.

Forums print most dates as text in the viewer's time zone and language:
phpBB `Sun Nov 29, 2026 5:32 pm` / `Вс ноя 29, 2026 5:38 pm` / `29 ноя 2026, 17:38`,
IPB 2 `27.11.2026, 22:00` / `Nov 29 2026, 11:15 PM`, IPB 3 `29 November 2026 - 08:31 PM`,
and relative forms: `Сегодня, 9:30`, `Вчера, 23:58`, `Today, 11:15 PM`, `5 minutes ago`,
`менее минуты назад`. Relative forms need the page's "now"; without it they give None.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta, tzinfo

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
