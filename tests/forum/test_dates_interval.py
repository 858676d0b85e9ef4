"""`dates.parse_forum_interval`: the half-open interval a printed forum date stands for.

The property test renders a random instant the way phpBB 3.3 does (`phpbb\\datetime::format`: whole
seconds, ages in whole minutes up to one hour, then "today"/"yesterday" from the viewer's midnight,
then the long format), in Russian and English and several date formats, and checks that the
interval read back holds the instant."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone, tzinfo
from zoneinfo import ZoneInfo

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from forumbot.forum.dates import parse_forum_date, parse_forum_interval

MSK = timezone(timedelta(hours=3))
# 2026-12-01 09:50:29.772 UTC = 12:50:29 in Moscow, when 42-pm-inbox-all-ages.html was fetched
NOW = datetime(2026, 12, 1, 9, 50, 29, 772000, tzinfo=UTC)
S = timedelta(seconds=1)
MIN = timedelta(minutes=1)


def _utc(year: int, month: int, day: int, hour: int, minute: int, second: int = 0) -> datetime:
    return datetime(year, month, day, hour, minute, second, tzinfo=UTC)


# --- ages: "N минут назад" --------------------------------------------------------------------

# The board's clock is NOW truncated to the second: 09:50:29. An age of N minutes is 60N..60N+59 s.
AGES = [
    ("менее минуты назад", 0),
    ("less than a minute ago", 0),
    ("1 минуту назад", 1),
    ("1 minute ago", 1),
    ("2 минуты назад", 2),
    ("4 минуты назад", 4),
    ("5 минут назад", 5),
    ("6 минут назад", 6),
    ("6 minutes ago", 6),
    ("11 минут назад", 11),
    ("12 минут назад", 12),
    ("14 минут назад", 14),
    ("21 минуту назад", 21),
    ("22 минуты назад", 22),
    ("25 минут назад", 25),
    ("49 минут назад", 49),
    ("59 минут назад", 59),
    ("59 minutes ago", 59),
]


@pytest.mark.parametrize(("text", "minutes"), AGES)
def test_an_age_in_minutes_is_the_minute_before_it(text: str, minutes: int) -> None:
    earliest, until = parse_forum_interval(text, MSK, NOW) or (None, None)
    board_now = _utc(2026, 12, 1, 9, 50, 29)
    # the instant lies in (now − (N+1) min, now − N min]: whole seconds [now − 60N − 59 s, now − 60N]
    assert earliest == board_now - minutes * MIN - 59 * S
    assert until == board_now - minutes * MIN + S
    assert until - earliest == MIN


def test_less_than_a_minute_ends_at_the_boards_second() -> None:
    earliest, until = parse_forum_interval("менее минуты назад", MSK, NOW) or (None, None)
    assert earliest == _utc(2026, 12, 1, 9, 49, 30)  # 59 s before 09:50:29
    assert until == _utc(2026, 12, 1, 9, 50, 30)  # 09:50:29 itself is inside, 09:50:30 is not
    # on an exact second the same holds
    exact = _utc(2026, 12, 1, 9, 50, 29)
    assert parse_forum_interval("менее минуты назад", MSK, exact) == (earliest, until)


def test_sixty_minutes_is_exactly_one_hour() -> None:
    # phpBB writes an age in minutes while it is at most 3600 s: "60" only for exactly 3600 s
    earliest, until = parse_forum_interval("60 минут назад", MSK, NOW) or (None, None)
    assert (earliest, until) == (_utc(2026, 12, 1, 8, 50, 29), _utc(2026, 12, 1, 8, 50, 30))


def test_other_units_round_down_alike() -> None:
    earliest, until = parse_forum_interval("2 hours ago", UTC, NOW) or (None, None)
    assert earliest == _utc(2026, 12, 1, 6, 50, 30) and until == _utc(2026, 12, 1, 7, 50, 30)


def test_an_age_needs_a_now() -> None:
    assert parse_forum_interval("6 минут назад", MSK) is None
    assert parse_forum_interval("менее минуты назад", MSK, None) is None


# --- clock times ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "start", "length"),
    [
        ("Сегодня, 11:49", datetime(2026, 12, 1, 11, 49, tzinfo=MSK), MIN),
        ("Today, 11:49", datetime(2026, 12, 1, 11, 49, tzinfo=MSK), MIN),
        ("Вчера, 17:59", datetime(2026, 11, 30, 17, 59, tzinfo=MSK), MIN),
        ("Yesterday, 18:00", datetime(2026, 11, 30, 18, 0, tzinfo=MSK), MIN),
        ("29 ноя 2026, 18:24", datetime(2026, 11, 29, 18, 24, tzinfo=MSK), MIN),
        ("29 Nov 2026, 18:23", datetime(2026, 11, 29, 18, 23, tzinfo=MSK), MIN),
        ("01 дек 2026, 11:48", datetime(2026, 12, 1, 11, 48, tzinfo=MSK), MIN),
        ("Tue Dec 01, 2026 11:49 am", datetime(2026, 12, 1, 11, 49, tzinfo=MSK), MIN),
        ("Mon Nov 30, 2026 6:00 pm", datetime(2026, 11, 30, 18, 0, tzinfo=MSK), MIN),
        ("Tue Dec 01, 2026 12:05 am", datetime(2026, 12, 1, 0, 5, tzinfo=MSK), MIN),
        ("01.12.2026 11:49:14", datetime(2026, 12, 1, 11, 49, 14, tzinfo=MSK), S),
        ("30.11.2026 17:59:26", datetime(2026, 11, 30, 17, 59, 26, tzinfo=MSK), S),
        ("29 ноя 2026", datetime(2026, 11, 29, tzinfo=MSK), timedelta(days=1)),
        ("Сегодня", datetime(2026, 12, 1, tzinfo=MSK), timedelta(days=1)),
        ("Yesterday", datetime(2026, 11, 30, tzinfo=MSK), timedelta(days=1)),
    ],
)
def test_a_printed_clock_time_is_its_minute_or_second(text: str, start: datetime, length: timedelta) -> None:
    assert parse_forum_interval(text, MSK, NOW) == (start, start + length)


def test_absolute_texts_start_where_parse_forum_date_puts_them() -> None:
    for text in ("29 ноя 2026, 18:24", "Tue Dec 01, 2026 11:49 am", "01.12.2026 11:49:14", "27.11.2026, 22:00"):
        span = parse_forum_interval(text, MSK)
        assert span is not None and span[0] == parse_forum_date(text, MSK)


def test_today_is_the_viewers_day_not_utcs() -> None:
    late = _utc(2026, 11, 29, 22, 30)  # already the 30th in Moscow
    assert parse_forum_interval("Сегодня, 0:10", MSK, late) == (
        datetime(2026, 11, 30, 0, 10, tzinfo=MSK),
        datetime(2026, 11, 30, 0, 11, tzinfo=MSK),
    )
    assert parse_forum_interval("Вчера", MSK, late) == (
        datetime(2026, 11, 29, tzinfo=MSK),
        datetime(2026, 11, 30, tzinfo=MSK),
    )


@pytest.mark.parametrize("text", ["", "   ", "2026", "not a date", "30 2026", "ноя 2026", "минут"])
def test_what_is_no_date_gives_none(text: str) -> None:
    assert parse_forum_interval(text, MSK, NOW) is None


def test_relative_days_need_a_now() -> None:
    assert parse_forum_interval("Сегодня, 11:49", MSK) is None
    assert parse_forum_interval("Вчера", MSK) is None


# --- phpBB's own rendering, read back --------------------------------------------------------

_MONTHS = {
    "ru": "янв фев мар апр май июн июл авг сен окт ноя дек".split(),
    "en": "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split(),
}
_WEEKDAYS = {"ru": "Пн Вт Ср Чт Пт Сб Вс".split(), "en": "Mon Tue Wed Thu Fri Sat Sun".split()}
_DAYS = {"ru": {"TODAY": "Сегодня", "YESTERDAY": "Вчера"}, "en": {"TODAY": "Today", "YESTERDAY": "Yesterday"}}
FORMATS = ["|d M Y|, H:i", "d.m.Y H:i:s", "D M d, Y g:i a", "|d M Y|", "d M Y, H:i", "|D M d, Y| g:i a"]


def _ago(minutes: int, lang: str) -> str:
    if lang == "en":
        return "less than a minute ago" if minutes == 0 else f"{minutes} minute{'' if minutes == 1 else 's'} ago"
    if minutes == 0:
        return "менее минуты назад"
    if minutes % 10 == 1 and minutes % 100 != 11:
        return f"{minutes} минуту назад"
    if 2 <= minutes % 10 <= 4 and not 12 <= minutes % 100 <= 14:
        return f"{minutes} минуты назад"
    return f"{minutes} минут назад"


def _php_date(fmt: str, local: datetime, lang: str) -> str:
    """PHP's date() for the letters these formats use."""
    out = []
    for ch in fmt:
        if ch == "d":
            out.append(f"{local.day:02d}")
        elif ch == "j":
            out.append(str(local.day))
        elif ch == "m":
            out.append(f"{local.month:02d}")
        elif ch == "M":
            out.append(_MONTHS[lang][local.month - 1])
        elif ch == "Y":
            out.append(str(local.year))
        elif ch == "H":
            out.append(f"{local.hour:02d}")
        elif ch == "g":
            out.append(str(local.hour % 12 or 12))
        elif ch == "a":
            out.append("am" if local.hour < 12 else "pm")
        elif ch == "i":
            out.append(f"{local.minute:02d}")
        elif ch == "s":
            out.append(f"{local.second:02d}")
        elif ch == "D":
            out.append(_WEEKDAYS[lang][local.weekday()])
        else:
            out.append(ch)
    return "".join(out)


def render(stamp: int, now: datetime, tz: tzinfo, fmt: str, lang: str) -> str:
    """phpBB 3.3's `phpbb\\datetime::format` for a post or PM time `stamp` (unix seconds)."""
    now_ts = int(now.timestamp())  # time(): whole seconds
    delta = now_ts - stamp
    local = datetime.fromtimestamp(stamp, tz)
    if "|" in fmt:
        if -60 < delta <= 3600:
            return _ago(max(0, delta // 60), lang)
        midnight = int(datetime.fromtimestamp(now_ts, tz).replace(hour=0, minute=0, second=0).timestamp())
        day = "TODAY" if stamp >= midnight else "YESTERDAY" if stamp >= midnight - 86400 else None
        if day is not None and stamp < midnight + 86400:
            short = fmt[: fmt.index("|")] + "||" + fmt[fmt.rindex("|") + 1 :]
            return _php_date(short, local, lang).replace("||", _DAYS[lang][day])
    return _php_date(fmt.replace("|", ""), local, lang)


def test_the_renderer_matches_the_captured_pages() -> None:
    # 42-pm-inbox-all-ages.html, fetched at NOW: PMs 84, 82, 70, 67, 63, 58 (their times from
    # 96-pm-inbox-dateformat-seconds.html, which prints seconds)
    sent = {84: (12, 50, 25), 82: (12, 41, 13), 70: (12, 0, 41), 67: (11, 49, 14)}
    shown = {84: "менее минуты назад", 82: "9 минут назад", 70: "49 минут назад", 67: "Сегодня, 11:49"}
    for pm, (h, m, s) in sent.items():
        stamp = int(datetime(2026, 12, 1, h, m, s, tzinfo=MSK).timestamp())
        assert render(stamp, NOW, MSK, "|d M Y|, H:i", "ru") == shown[pm]
    yesterday = int(datetime(2026, 11, 30, 17, 59, 26, tzinfo=MSK).timestamp())
    assert render(yesterday, NOW, MSK, "|d M Y|, H:i", "ru") == "Вчера, 17:59"
    older = int(datetime(2026, 11, 29, 18, 24, 23, tzinfo=MSK).timestamp())
    assert render(older, NOW, MSK, "|d M Y|, H:i", "ru") == "29 ноя 2026, 18:24"
    assert render(older, NOW, MSK, "d.m.Y H:i:s", "ru") == "29.11.2026 18:24:23"
    pm68 = int(datetime(2026, 12, 1, 11, 49, 20, tzinfo=MSK).timestamp())  # 32-en-pm-inbox-lt1min.html
    assert render(pm68, _utc(2026, 12, 1, 8, 49, 29), MSK, "D M d, Y g:i a", "en") == "Tue Dec 01, 2026 11:49 am"


ZONES = st.one_of(
    st.integers(-12 * 4, 14 * 4).map(lambda q: timezone(timedelta(minutes=15 * q))),
    st.just(ZoneInfo("Europe/Moscow")),
)
NOWS = st.datetimes(min_value=datetime(2020, 1, 1), max_value=datetime(2035, 1, 1), timezones=st.just(UTC))
AGES_S = st.one_of(st.integers(0, 3700), st.integers(0, 4 * 86400))


@settings(max_examples=2000, deadline=None)
@given(now=NOWS, age=AGES_S, tz=ZONES, fmt=st.sampled_from(FORMATS), lang=st.sampled_from(["ru", "en"]))
@example(now=NOW, age=0, tz=MSK, fmt="|d M Y|, H:i", lang="ru")
@example(now=NOW, age=59, tz=MSK, fmt="|d M Y|, H:i", lang="ru")
@example(now=NOW, age=60, tz=MSK, fmt="|d M Y|, H:i", lang="ru")
@example(now=NOW, age=3599, tz=MSK, fmt="|d M Y|, H:i", lang="ru")
@example(now=NOW, age=3600, tz=MSK, fmt="|d M Y|, H:i", lang="en")
@example(now=NOW, age=3601, tz=MSK, fmt="|d M Y|, H:i", lang="ru")
@example(now=NOW, age=12 * 3600 + 50 * 60 + 29, tz=MSK, fmt="|d M Y|, H:i", lang="ru")  # today's midnight
@example(now=NOW, age=12 * 3600 + 50 * 60 + 30, tz=MSK, fmt="|d M Y|", lang="ru")  # a second before it
@example(now=NOW, age=36 * 3600 + 50 * 60 + 29, tz=MSK, fmt="|d M Y|, H:i", lang="en")  # yesterday's midnight
@example(now=NOW, age=36 * 3600 + 50 * 60 + 30, tz=MSK, fmt="|d M Y|", lang="ru")
def test_the_instant_phpbb_printed_lies_in_the_interval(
    now: datetime, age: int, tz: tzinfo, fmt: str, lang: str
) -> None:
    stamp = int(now.timestamp()) - age
    text = render(stamp, now, tz, fmt, lang)
    span = parse_forum_interval(text, tz, now)
    assert span is not None, text
    earliest, until = span
    instant = datetime.fromtimestamp(stamp, UTC)
    assert earliest <= instant < until, (text, instant, earliest, until)
    # and no wider than the text allows
    precision = until - earliest
    if "s" in fmt and "|" not in fmt:
        assert precision == S
    elif ":" in text or "ago" in text or "назад" in text:
        assert precision <= MIN
    else:
        assert precision == timedelta(days=1)
