"""The bot's answers to the PMs it reads between day ends (`forumbot watch`): receipts for orders and
commands, signups, relays, answers to the moderators' verdicts, and the question to a player whose PM may be
for several games. Every word a player or a moderator reads there is made here."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from forumbot.engine.model import Action, Reason
from forumbot.extract.orders import MAX_PM_LINES, VERB, OrderProblem
from forumbot.render.bbcode import escape
from forumbot.render.wording import rule_reason

WHICH_GAME_SUBJECT = "Ваше письмо ведущему: для какой игры?"


def which_game_text(games: Sequence[str], subject: str) -> str:
    """The answer to a PM that may be for any of `games`: nothing in it was taken, and how to say which."""
    named = ", ".join(f"«{escape(game)}»" for game in games)
    shown = f" «{escape(subject)}»" if subject.strip() else ""
    example = escape(games[0])
    return (
        f"Ваше письмо{shown} не принято: вы играете в нескольких играх ({named}), и по письму не видно, к какой "
        "из них оно относится.\n"
        f"Пришлите его ещё раз, написав название игры в теме письма (например, «{example}: приказ»), "
        "или ответьте на письмо бота из нужной игры."
    )


# --- subjects ------------------------------------------------------------------------------------------

# What each answer of the bot is about, after the game's name in its subject.
ABOUT = {
    "receipt": "ваше письмо ведущему",
    "signup": "запись в игру",
    "relay": "пересылка письма",
    "help": "команды бота",
    "report": "ваш последний отчёт",
}


def about(game: str, what: str) -> str:
    """An answer's subject: the game, and what the answer is about."""
    return f"{game}: {ABOUT[what]}"


# --- signups of a private game --------------------------------------------------------------------------

NOT_THE_WORD = "Это не волшебное слово этой игры."  # a wrong word is not echoed back: the word stays secret
SIGNUPS_CLOSED = "Набор в игру уже закончен."


def signed_up(game: str, count: int, wanted: int, *, before: bool) -> str:
    """The answer to a signup: `before` when the sender was signed up already."""
    said = "Вы уже записаны" if before else "Вы записаны"
    return f"{said} в игру «{escape(game)}» ({count} из {wanted})."


# --- orders, votes and commands -------------------------------------------------------------------------

# Why an order is not taken, by when it was sent.
Untimely = Literal["late", "before_day_1", "uncertain", "turn_made"]
REFUSALS: dict[Untimely, str] = {
    "late": "день уже закончился",
    "before_day_1": "письмо отправлено до начала дня 1",
    "uncertain": "форум не показывает точное время отправки, о нём решит ведущий",
    "turn_made": "ход уже сделан: все игроки походили, итоги у модераторов",
}
VOTES_IN_THE_THREAD = "в этой игре голосуют в теме дня, красным жирным ником"


def order_said(action: Action, targets: Sequence[str]) -> str:
    """An order as the receipt echoes it: its keyword and its targets."""
    return f"{VERB.get(action, action)} — {', '.join(escape(t) for t in targets)}"


def not_taken(said: str, why: str) -> str:
    """A receipt's line for an order not taken; `why` is already BBCode."""
    return f"Не принято: {said}: {why.rstrip('.')}."


def rule_refusal(said: str, reason: Reason) -> str:
    return not_taken(said, rule_reason(reason, to_sender=True))


def taken(said: str, number: int = 1, limit: int | None = None) -> str:
    """A receipt's line for an order taken: the `number`th valid order of its action today, of `limit`."""
    note = f" (изменение {number - 1} из {limit - 1})" if limit is not None and number > 1 else ""
    return f"Принято: {said}{note}"


def vote_taken(targets: Sequence[str]) -> str:
    return f"Принято: голос — {', '.join(escape(t) for t in targets)}"


def problem_line(problem: OrderProblem) -> str:
    """A line of the PM that is no valid order, said to its sender."""
    if problem.reason == "too_long":
        return f"Не прочитано: письмо длиннее {MAX_PM_LINES} строк, прочитаны первые {MAX_PM_LINES}."
    if problem.reason == "unknown_target":
        hint = f"; возможно, вы имели в виду «{escape(problem.nearest)}»" if problem.nearest else ""
        return f"Не принято: «{escape(problem.raw)}»: нет игрока «{escape(problem.target_text or '')}»{hint}."
    return f"Не принято: «{escape(problem.raw)}»."


def nothing_found(body_text: str) -> str:
    """The answer to a player's PM with no order, vote or command in it: what was read, and how to write."""
    first = next((line.strip() for line in body_text.splitlines() if line.strip()), "")
    shown = escape(first if len(first) <= 60 else first[:59] + "…")
    return (
        f"Не нашёл приказа в вашем письме{f': «{shown}»' if shown else ''}. "
        "Приказ пишется отдельной строкой: действие, тире и точный ник, например «Проверяю — Ник»."
    )


def command_not_understood(problem: str) -> str:
    return f"Не понято: {escape(problem)}"


QUIT_TAKEN = "Принято: Q — вы покинете игру при следующем подведении итогов (любое новое письмо отменит это)."


def setting_taken(key: str, value: str) -> str:
    return f"Принято: O {key.upper()} {value.upper()}"


def check_result_line(day: int, result: object) -> str:
    """`Z` without morning reports: the latest result of the player's own checks, after his role message."""
    return f"\nРезультат вашей проверки в день {day}: {json.dumps(result, ensure_ascii=False)}"


# --- relays -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RelayRefusal:
    """Why a letter is not relayed: `kind`, with the nick it names (and the nearest player's), or the limit."""

    kind: Literal["off", "sender_out", "limit", "empty", "no_player", "target_out", "nobody"]
    nick: str = ""
    nearest: str | None = None
    limit: int = 0


def relay_refusal(refusal: RelayRefusal) -> str:
    if refusal.kind == "no_player":
        hint = f"; возможно, «{escape(refusal.nearest)}»" if refusal.nearest else ""
        return f"нет игрока «{escape(refusal.nick)}»{hint}"
    if refusal.kind == "target_out":
        return f"{escape(refusal.nick)} выбыл из игры"
    if refusal.kind == "limit":
        return f"не больше {refusal.limit} писем в день"
    return {
        "off": "пересылка писем в этой игре выключена",
        "sender_out": "выбывшие игроки не пишут живым",
        "empty": "письмо пустое",
        "nobody": "некому переслать",
    }[refusal.kind]


def relay_not_sent(refusal: RelayRefusal) -> str:
    return f"Письмо не переслано: {relay_refusal(refusal)}."


RELAY_SENT = "Письмо переслано."  # it says nothing of how many got it: that would tell the size of a clan


def relay_heading(sender: str | None, kind: str) -> str:
    """A relayed letter's subject and first line: who it is from (None: anonymous), and which wall."""
    signed = "Анонимное письмо" if sender is None else f"Письмо от {escape(sender)}"
    wall = {"mafia": " (стена мафии)", "yakuza": " (стена якудзы)", "wall": " (всем игрокам)"}.get(kind, "")
    return f"{signed}{wall}"


# --- the interim count --------------------------------------------------------------------------------


def interim_count_title(day: int) -> str:
    return f"Промежуточный подсчёт голосов, день {day}"


def interim_count_subject(day: int) -> str:
    return count_title(day)


def count_title(day: int) -> str:
    """A vote count's name: the heading of the count the host pastes himself (`forumbot tally --bbcode`), and the
    subject of the one the bot posts."""
    return f"Подсчёт голосов, день {day}"
