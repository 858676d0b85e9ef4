"""The day's audit as the moderators read it (the preview page and the draft PM): the host's and the
moderators' decisions said in Russian. The rows are as end-day stored them (`host.games`): a vote a later one
replaced is "superseded", a vote or order a decision took out or put in carries it (`decided`).

    decision_text(row, zone)   one decision: what was decided, about whom, the new value (a target, a time)
    row_reason(row)            why a row is as it is: the rules' reason, the decision that made it, or its code
"""

from __future__ import annotations

import json
from datetime import datetime, tzinfo
from typing import Any

from forumbot.draft import OrderRow, OverrideRow, VoteRow
from forumbot.render.phrases import role_name, zone_label
from forumbot.render.wording import action_word, audit_reason

DECISIONS = {
    "ignore_post": "голоса из поста не засчитаны",
    "count_post": "голоса из поста засчитаны",
    "set_vote": "голос назначен",
    "clear_vote": "голос снят",
    "set_order": "приказ назначен",
    "clear_order": "приказ снят",
    "deadline": "срок дня перенесён",
    "next_day_length": "длина следующего дня",
    "rejected": "черновик отклонён",
    "replace": "замена игрока",
    "remove": "игрок выведен из игры",
    "appoint_maniac": "назначен маньяк",
    "scheme": "роль изменена",
    "best_player": "лучший игрок",
}


def decided_by(row: OverrideRow) -> str:
    """Why a row is as it is: the decision, who made it, and his reason."""
    return f"решение {row.by}: {decision_word(row.kind)} — {row.reason}"


def decision_word(kind: str) -> str:
    return DECISIONS.get(kind, kind)


def _when(text: str | None, zone: tzinfo | None) -> str:
    """An ISO moment as the posts tell it (date, time, the zone's one name), or the text as stored."""
    if not text:
        return ""
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return text
    if zone is not None and moment.tzinfo is not None:
        moment = moment.astimezone(zone)
        return f"{moment:%d.%m.%Y %H:%M} {zone_label(zone, moment)}"
    return f"{moment:%d.%m.%Y %H:%M}"


def _targets(value: str | None) -> tuple[list[str], str | None]:
    """set_vote's value: the targets, and the time given with them (stored as JSON, or one nick a line)."""
    if not value:
        return [], None
    if value.startswith("{"):
        given: dict[str, Any] = json.loads(value)
        return [str(t) for t in given.get("targets", [])], given.get("at")
    return value.splitlines(), None


def decision_value(row: OverrideRow, zone: tzinfo | None = None) -> str:
    """What a decision sets, in words: the new target, the new order, the moment a deadline moved to."""
    if row.kind == "set_vote":
        targets, at = _targets(row.value)
        said = "голос за " + ", ".join(targets) if targets else "голос"
        return f"{said} (время голоса: {_when(at, zone)})" if at else said
    if row.kind == "set_order" and row.value:
        action, targets = json.loads(row.value)
        return f"{action_word(action)} — {', '.join(targets)}"
    if row.kind == "clear_order":
        return action_word(row.value)
    if row.kind == "deadline":
        return f"с {_when(row.value, zone)} на {_when(row.subject, zone)}"
    if row.kind == "next_day_length":
        return f"не меньше {row.subject} ч"
    if row.kind == "replace":
        return f"вместо него играет {row.value or ''}"
    if row.kind == "scheme" and row.value:
        role, _, boss = row.value.partition(" ")
        return role_name(role) + (", босс" if boss == "boss" else "")
    return row.value or ""


def decision_subject(row: OverrideRow) -> str:
    """Whom or what a decision is about (none for a moved deadline: its value says it)."""
    if row.kind in ("deadline", "next_day_length"):
        return ""
    if row.kind in ("ignore_post", "count_post"):
        return f"пост {row.subject}"
    if row.kind == "rejected":
        return f"черновик {row.subject}"
    return row.subject


def decision_text(row: OverrideRow, zone: tzinfo | None = None) -> str:
    """One decision in a line: what, about whom, the new value, who decided and why (BBCode-free)."""
    parts = [decision_word(row.kind), decision_subject(row), decision_value(row, zone)]
    return f"{row.by}: " + ", ".join(p for p in parts if p) + (f" — {row.reason}" if row.reason else "")


def row_reason(row: VoteRow | OrderRow) -> str:
    """Why an audit row is as it is, in Russian: the rules' reason when they voided it, else the decision that
    made it so (said with who decided and why), else its code's wording (a draft of an earlier version: the
    text it stored)."""
    if row.why is None and row.decided is not None:
        return decided_by(row.decided)
    return audit_reason(row.reason, row.why, order=isinstance(row, OrderRow))
