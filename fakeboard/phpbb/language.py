"""phpBB's language table and its dates: the texts a page prints, keyed by phpBB's English texts
(`skeletons/languages.json`, the official English and Russian packs' words), the plural rules, and
user->format_date() with PHP's date() letters and the relative dates ("менее минуты назад", "Сегодня, 11:49")."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta, tzinfo
from pathlib import Path
from typing import Any

__all__ = [
    "DEFAULT_DATEFORMAT",
    "LANGUAGES",
    "LANGUAGE_PACK",
    "SKELETONS",
    "count_text",
    "format_date",
    "iso",
    "offset_label",
    "pack",
    "plural",
    "translate",
    "zone_key",
    "zone_name",
]

SKELETONS = Path(__file__).with_name("skeletons")

LANGUAGE_PACK: dict[str, Any] = json.loads((SKELETONS / "languages.json").read_text(encoding="utf-8"))
LANGUAGES: tuple[str, ...] = tuple(k for k in LANGUAGE_PACK if k not in ("zones",) and not k.startswith("_"))
DEFAULT_DATEFORMAT: dict[str, str] = {lang: LANGUAGE_PACK[lang]["dateformat"] for lang in LANGUAGES}
ENGLISH_DATEFORMAT = DEFAULT_DATEFORMAT["en"]  # "D M d, Y g:i a"
_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_DAYS_FULL = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_MONTHS_FULL = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)  # fmt: skip


def pack(lang: str) -> dict[str, Any]:
    found = LANGUAGE_PACK.get(lang)
    if not isinstance(found, dict) or lang.startswith("_") or lang == "zones":
        raise ValueError(f"{lang!r}: the board speaks {', '.join(LANGUAGES)}")
    return found


def translate(lang: str, english: str, *args: object) -> str:
    """`english` (a text of phpBB's English pack, as the board's constants and templates hold it) in `lang`,
    with `args` put in its `{}` places. A key may carry a context after `@@` to tell two uses apart."""
    phrases: dict[str, str] = pack(lang)["phrases"]
    text = phrases.get(english)
    if text is None:
        text = english.partition("@@")[0]
    return text.format(*args) if args else text


def _plural_form(lang: str, n: int) -> int:
    """phpBB's plural rules: 1 (English: one, other) and 7 (Russian: one, few, many)."""
    if pack(lang)["plural_rule"] == 7:
        if n % 10 == 1 and n % 100 != 11:
            return 1
        return 2 if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14 else 3
    return 1 if n == 1 else 2


def plural(lang: str, n: int, forms: Sequence[str | None]) -> str:
    """phpBB's lang() with a number: form 0 for zero when there is one, else the language's plural form."""
    if n == 0 and forms and forms[0] is not None:
        chosen = forms[0]
    else:
        index = min(_plural_form(lang, n), len(forms) - 1)
        while forms[index] is None and index > 1:
            index -= 1
        chosen = forms[index] or ""
    return chosen.replace("%d", str(n))


def count_text(lang: str, n: int, what: str) -> str:
    """ "9 сообщений", "1 topic": `what` is one of the pack's plural tables (posts, topics, messages, edited)."""
    return plural(lang, n, pack(lang)["plurals"][what])


def zone_name(lang: str, zone: str) -> str:
    """A time zone's name as the language pack prints it ("Европа/Москва", "America/Los Angeles")."""
    if lang == "en":
        return zone.replace("_", " ")
    names: dict[str, str] = pack(lang)["timezones"]
    return names.get(zone, zone)


def zone_key(tz: tzinfo) -> str:
    return getattr(tz, "key", None) or str(tz)


def _php_date(fmt: str, local: datetime, lang: str) -> str:
    """PHP's date() of `local` (an aware datetime), the names in `lang` as phpBB's language pack puts them."""
    words: dict[str, Any] = pack(lang)["datetime"]

    def word(english: str) -> str:
        found = words.get(english)
        return found if isinstance(found, str) else english

    short_may = "M" in fmt.replace("\\M", "")
    offset = local.utcoffset() or timedelta(0)
    seconds = int(offset.total_seconds())
    sign = "+" if seconds >= 0 else "-"
    hh, mm = divmod(abs(seconds) // 60, 60)
    iso_year, iso_week, iso_day = local.isocalendar()
    out: list[str] = []
    i = 0
    while i < len(fmt):
        c = fmt[i]
        i += 1
        if c == "\\" and i < len(fmt):
            out.append(fmt[i])
            i += 1
            continue
        month = _MONTHS[local.month - 1]
        if c == "d":
            out.append(f"{local.day:02d}")
        elif c == "D":
            out.append(word(_DAYS[local.weekday()]))
        elif c == "j":
            out.append(str(local.day))
        elif c == "l":
            out.append(word(_DAYS_FULL[local.weekday()]))
        elif c == "N":
            out.append(str(iso_day))
        elif c == "S":
            out.append("th" if 11 <= local.day <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(local.day % 10, "th"))
        elif c == "w":
            out.append(str(iso_day % 7))
        elif c == "z":
            out.append(str(local.timetuple().tm_yday - 1))
        elif c == "W":
            out.append(f"{iso_week:02d}")
        elif c == "F":
            full = _MONTHS_FULL[local.month - 1]
            out.append(word("May_short") if full == "May" and short_may and "May_short" in words else word(full))
        elif c == "m":
            out.append(f"{local.month:02d}")
        elif c == "M":
            out.append(word("May_short") if month == "May" and "May_short" in words else word(month))
        elif c == "n":
            out.append(str(local.month))
        elif c == "t":
            nxt = (local.replace(day=28) + timedelta(days=4)).replace(day=1)
            out.append(str((nxt - timedelta(days=1)).day))
        elif c == "L":
            year = local.year
            out.append("1" if year % 4 == 0 and (year % 100 != 0 or year % 400 == 0) else "0")
        elif c == "o":
            out.append(str(iso_year))
        elif c == "Y":
            out.append(str(local.year))
        elif c == "y":
            out.append(f"{local.year % 100:02d}")
        elif c == "a":
            out.append("am" if local.hour < 12 else "pm")
        elif c == "A":
            out.append("AM" if local.hour < 12 else "PM")
        elif c == "g":
            out.append(str(local.hour % 12 or 12))
        elif c == "G":
            out.append(str(local.hour))
        elif c == "h":
            out.append(f"{local.hour % 12 or 12:02d}")
        elif c == "H":
            out.append(f"{local.hour:02d}")
        elif c == "i":
            out.append(f"{local.minute:02d}")
        elif c == "s":
            out.append(f"{local.second:02d}")
        elif c == "u":
            out.append(f"{local.microsecond:06d}")
        elif c == "v":
            out.append(f"{local.microsecond // 1000:03d}")
        elif c == "e":
            out.append(zone_key(local.tzinfo) if local.tzinfo else "UTC")
        elif c == "I":
            out.append("1" if local.dst() else "0")
        elif c == "O":
            out.append(f"{sign}{hh:02d}{mm:02d}")
        elif c in "Pp":
            out.append("Z" if c == "p" and seconds == 0 else f"{sign}{hh:02d}:{mm:02d}")
        elif c == "T":
            out.append(local.tzname() or "UTC")
        elif c == "Z":
            out.append(str(seconds))
        elif c == "c":
            out.append(_php_date("Y-m-d\\TH:i:sP", local, lang))
        elif c == "r":
            out.append(_php_date("D, d M Y H:i:s O", local, lang))
        elif c == "U":
            out.append(str(int(local.timestamp())))
        else:
            out.append(c)
    return "".join(out)


def format_date(
    moment: datetime,
    tz: tzinfo,
    dateformat: str = ENGLISH_DATEFORMAT,
    *,
    lang: str = "en",
    now: datetime | None = None,
    absolute: bool = False,
) -> str:
    """A date as phpBB's user->format_date() prints it for a viewer of language `lang`, time zone `tz` and
    date format `dateformat` (PHP date() letters; default phpBB's English `D M d, Y g:i a`, "Sun Nov 29, 2026
    5:32 pm"). A `|...|` part makes it relative to `now` (default the wall clock) unless `absolute`: "less
    than a minute ago", "6 minutes ago" (up to an hour, whole minutes), "Today, 11:49", "Yesterday, 18:00",
    else the format without the bars ("29 Nov 2026, 18:23")."""
    local = moment.astimezone(tz)
    if "|" in dateformat and not absolute:
        words: dict[str, Any] = pack(lang)["datetime"]
        current = now if now is not None else datetime.now(UTC)
        stamp, now_stamp = int(moment.timestamp()), int(current.timestamp())
        delta = now_stamp - stamp
        same_minute = (now_stamp // 60) % 60 == (stamp // 60) % 60
        if -60 < delta <= 3600 and (delta >= -5 or same_minute):
            return plural(lang, max(0, delta // 60), words["AGO"])
        midnight = int(current.astimezone(tz).replace(hour=0, minute=0, second=0, microsecond=0).timestamp())
        day = None
        if stamp <= midnight + 2 * 86400:
            if stamp > midnight + 86400:
                day = "TOMORROW"
            elif stamp > midnight:
                day = "TODAY"
            elif stamp > midnight - 86400:
                day = "YESTERDAY"
        if day is not None:
            short = dateformat[: dateformat.index("|")] + "||" + dateformat[dateformat.rindex("|") + 1 :]
            return _php_date(short, local, lang).replace("||", words[day])
    return _php_date(dateformat.replace("|", ""), local, lang)


def iso(moment: datetime) -> str:
    return moment.astimezone(UTC).replace(microsecond=0).isoformat()


def offset_label(offset: timedelta) -> str:
    """A UTC offset as phpBB prints it: "UTC+03:00"."""
    sign = "+" if offset >= timedelta(0) else "-"
    minutes = abs(int(offset.total_seconds())) // 60
    return f"UTC{sign}{minutes // 60:02d}:{minutes % 60:02d}"
