"""The day's audit as the moderators read it (the preview page and the draft PM): the host's and the
moderators' decisions said in Russian, and the rows as the day really stands once they and the later votes are
taken into account.

    decision_text(row, zone)   one decision: what was decided, about whom, the new value (a target, a time)
    settled(draft)             the draft with each PM vote a later one replaced marked "superseded", and each
                               order the host cleared or replaced marked not valid, with the host's reason
"""

from __future__ import annotations

import json
from datetime import datetime, tzinfo
from typing import Any

from forumbot.draft import DayDraft, OrderRow, OverrideRow, VoteRow
from forumbot.render.phrases import role_name, zone_label
from forumbot.render.wording import action_word

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


def settled(draft: DayDraft) -> DayDraft:
    """The audit as the day stands: a PM vote a later counted vote of the same voter replaced is not counted
    ("superseded"), and an order the host cleared or set anew is not valid, with the host's decision."""
    return draft.model_copy(update={"votes": _settled_votes(draft.votes), "orders": _settled_orders(draft)})


def _settled_votes(votes: list[VoteRow]) -> list[VoteRow]:
    latest: dict[str, str] = {}
    for v in votes:
        if v.counted and v.time:
            latest[v.voter] = max(latest.get(v.voter, v.time), v.time, key=_instant)
    return [
        v.model_copy(update={"counted": False, "reason": "superseded", "why": None})
        if v.channel == "pm" and v.counted and v.time and _instant(v.time) < _instant(latest[v.voter])
        else v
        for v in votes
    ]


def _instant(text: str) -> datetime:
    return datetime.fromisoformat(text)


def _settled_orders(draft: DayDraft) -> list[OrderRow]:
    decided: dict[tuple[str, str], OverrideRow] = {}
    for o in draft.overrides:
        if o.kind == "clear_order" and o.value:
            decided[(o.subject, o.value)] = o
        elif o.kind == "set_order" and o.value:
            decided[(o.subject, str(json.loads(o.value)[0]))] = o
    return [
        row.model_copy(update={"valid": False, "reason": decided_by(decided[(row.actor, row.action)]), "why": None})
        if row.valid and row.action is not None and (row.actor, row.action) in decided
        else row
        for row in draft.orders
    ]
