"""The bot's words about a day's deadline, in the day topic and by PM: a moved deadline, the reminder before
it, and the reminder to a player whose vote has not arrived. The host's wing decides when; the words are here."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from forumbot.render.bbcode import escape
from forumbot.render.phrases import less_than, zone_label


def told(moment: datetime, zone: ZoneInfo) -> str:
    """A deadline as the posts tell it: the date and time in the game's zone, the zone by its one name («МСК»)."""
    local = moment.astimezone(zone)
    return f"{local:%d.%m.%Y в %H:%M} ({zone_label(zone, local)})"


def day_subject(day: int) -> str:
    return f"День {day}"


def deadline_moved(day: int, when: str, reason: str) -> str:
    return f"[b]Срок дня {day} изменён.[/b] День заканчивается {when}.\nПричина: {escape(reason)}"


def reminder(day: int, when: str, hours_left: float) -> str:
    return f"[b]Напоминание:[/b] день {day} заканчивается {when}. Осталось {less_than(hours_left)}."


def vote_reminder(day: int, when: str) -> str:
    return (
        f"Напоминание: ваш голос на день {day} ещё не пришёл. День заканчивается {when}; "
        "кто не проголосует, выбывает. Голос — личным сообщением ведущему."
    )


def vote_reminder_subject(game: str, day: int) -> str:
    return f"{game}: ваш голос на день {day}"


def commitment_line(commitment: str) -> str:
    """The line of day 1's post that commits to the roles."""
    return (
        f"SHA-256 списка ролей с солью: [b]{commitment}[/b]\n"
        "Соль и список будут опубликованы в конце игры: каждый сможет проверить, что роли не менялись."
    )
