"""Every reason forumbot gives, in Russian: why a vote or a PM line was not counted, why the rules voided an
order. One place, read by the moderators' preview, the players' receipts and the CLI in Russian (`cli/words.py`).

Reasons arrive as codes: the extraction's (`quoted`, `unknown_line`, ...), the day window's (`after_deadline`),
and the rules' (`forumbot.engine.model.Reason`, a code with its values). Older drafts hold the rules' reasons
as English text only: they are shown as they are.

A receipt tells a player nothing he may not know: his own role, the public list of the living.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from forumbot.engine.model import Reason
from forumbot.extract.orders import MAX_PM_LINES

# Why a vote, or a PM line, was not counted: the extraction's and the day window's codes.
AUDIT_REASONS: dict[str, str] = {
    "quoted": "в цитате или спойлере",
    "spoiler": "в спойлере",
    "not_red": "не красный цвет",
    "not_bold": "не жирный",
    "unknown_nick": "нет такого игрока",
    "dead_target": "цель мертва",
    "unapproved": "сообщение ждёт одобрения модератора: игроки его не видят",
    "deleted": "сообщение удалено модератором: игроки его не видят",
    "not_player": "пишет не игрок",
    "dead_voter": "голос выбывшего игрока",
    "before_start": "до начала дня",
    "after_deadline": "после окончания дня",
    "uncertain_time": "форум не показывает, до или после конца дня: решает ведущий",
    "edited": "сообщение отредактировано",
    "changed": "текст изменился после прошлого чтения (правка без отметки форума)",
    "superseded": "заменён более поздним голосом",
    "ignored": "пост не засчитан решением ведущего",
    "wrong_channel": "голосуют не здесь",
    "unknown_line": "строка не понята",
    "unknown_target": "нет такого игрока",
    "too_long": f"письмо длиннее {MAX_PM_LINES} строк: дальше не прочитано",
    "no_order": "в письме нет приказа",
    "no_such_order": "в этой игре нет такого приказа",
    "command": "команда игрока, не приказ (ответ — в квитанции)",
    "dead_sender": "отправитель выбыл из игры",
    "which_game": "игрок играет в нескольких играх, а по письму не видно, в какой: его спросили, письмо не засчитано",
}

# The same codes where an order line, not a vote, is meant.
ORDER_REASONS: dict[str, str] = {"superseded": "заменён более поздним приказом"}

# The rules' reasons (`Reason.code`), with the values they carry.
RULE_REASONS: dict[str, str] = {
    "replaced": "за этот слот теперь играет {nick}",
    "not_a_player": "пишет не игрок",
    "dead": "отправитель выбыл из игры",
    "names_nobody": "никто не назван",
    "too_many_targets": "названо игроков: {count}, в этот день можно: {limit}",
    "same_twice": "один и тот же игрок назван дважды",
    "target_replaced": "игрока {nick} заменил {other}: называйте нового",
    "target_not_player": "нет игрока «{nick}»",
    "target_dead": "игрок {nick} выбыл из игры",
    "not_her_action": "у этой роли нет такого приказа",
    "not_himself": "себя выбрать нельзя",
    "same_target_again": "{nick} был выбран и в прошлый раз: дважды подряд нельзя",
    "too_many_changes": "{changes}",
    "boss_orders": "приказ мафии отдаёт босс",
    "removed": "ведущий удалил отправителя из игры: ночью его уже нет",
    "left": "отправитель покинул игру: ночью его уже нет",
    "target_removed": "ведущий удалил игрока {nick} из игры: ночью его уже нет",
    "target_left": "игрок {nick} покинул игру: ночью его уже нет",
}

# The same reason said to the player who sent the order (his receipt): "you", not "the sender".
TO_THE_SENDER: dict[str, str] = {
    "dead": "вы выбыли из игры",
    "replaced": "за ваш слот теперь играет {nick}",
    "not_a_player": "вы не игрок этой партии",
    "removed": "ведущий удалил вас из игры",
    "left": "вы покинули игру",
    "not_her_action": "ваша роль не даёт такого приказа",
    "too_many_targets": "сегодня можно назвать не больше {limit} (названо {count})",
}

# How many times an order may change, as a sentence (the first message is the order itself).
CHANGES: dict[int, str] = {
    0: "приказ нельзя изменить",
    1: "приказ можно изменить только один раз",
    2: "приказ можно изменить не более двух раз",
    3: "приказ можно изменить не более трёх раз",
    4: "приказ можно изменить не более четырёх раз",
}

# What each action is, as the audit shows it to the moderators.
ACTIONS: dict[str, str] = {
    "vote": "голос",
    "kill": "убийство",
    "check": "проверка",
    "heal": "лечение",
    "sleep": "ночь с",
    "assault": "визит маньяка",
    "special": "особое действие (S)",
    "command": "команда",
}

# How each player died, as the audit names the cause.
CAUSES: dict[str, str] = {
    "executed": "казнь",
    "mafia": "мафия",
    "yakuza": "якудза",
    "maniac": "маньяк",
    "sheriff": "шериф",
    "inactive": "неактивность",
}

UNKNOWN = "приказ недействителен"


def action_word(action: str | None) -> str:
    """An action code in the moderators' Russian ("kill" -> "убийство"); an unknown one as it is."""
    return ACTIONS.get(action or "", action or "—")


def rule_reason(reason: Reason, *, to_sender: bool = False) -> str:
    """A rules' reason in Russian, for the moderators or (`to_sender`) the player who sent the order."""
    template = (TO_THE_SENDER.get(reason.code) if to_sender else None) or RULE_REASONS[reason.code]
    values: dict[str, Any] = reason.model_dump()
    changes = max((reason.limit or 1) - 1, 0)
    values["changes"] = CHANGES.get(changes, f"приказ можно изменить не более {changes} раз")
    return template.format(**values)


def audit_reason(code: str | None, why: Mapping[str, Any] | Reason | None = None, *, order: bool = False) -> str:
    """An audit row's reason in Russian: the rules' (`why`) when it has one, else the code's wording (`order`:
    the row is an order line), else the text as it was stored (an override's note, an older draft's English)."""
    if isinstance(why, Reason):
        return rule_reason(why)
    if why:
        try:
            return rule_reason(Reason.model_validate(why))
        except ValueError:
            pass
    if not code:
        return ""
    return (ORDER_REASONS.get(code) if order else None) or AUDIT_REASONS.get(code, code)
