"""Every PM of the day window is in the orders audit, each line as what it is: an order, a quoted or
forwarded order (never counted), a player's command (Z, Q, O ...), a line not understood; and of a sender's
valid orders of one kind only the last is carried out, the earlier ones are marked superseded."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from forumbot.engine import GameState, Player
from forumbot.engine.day import ruleset_for
from forumbot.host.daywindow import DayPms, TimedPm
from forumbot.host.games import _mark_superseded, audit_pms
from forumbot.posts import PrivateMessage

AT = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
PLAYERS = ("Дон", "Вито", "Шериф", "Анна", "Борис", "Вера", "Глеб")
STATE = GameState(
    variant="gameru-3.3",
    players=tuple(
        Player(nick=n, role=r, boss=n == "Дон")
        for n, r in zip(PLAYERS, ("mafia", "mafia", "sheriff", *["civilian"] * 4), strict=True)
    ),
)


def pm(pm_id: int, sender: str, text: str, html: str | None = None) -> TimedPm:
    message = PrivateMessage(
        pm_id=pm_id,
        sender=sender,
        time=AT + timedelta(minutes=pm_id),
        subject="приказ",
        body_html=html if html is not None else text.replace("\n", "<br>"),
        body_text=text,
        url=f"./ucp.php?i=pm&p={pm_id}",
    )
    return TimedPm(message, "inside", (message.time, message.time + timedelta(seconds=1)))  # type: ignore[arg-type]


def audit(*pms: TimedPm) -> list[dict[str, Any]]:
    _, rows = audit_pms(DayPms(inside=list(pms)), STATE.nicks(), ruleset_for(STATE))
    return _mark_superseded(rows)


def test_a_quoted_or_forwarded_order_is_listed_and_never_counted() -> None:
    forwarded = (
        '<blockquote><div><cite>Дон писал(а):</cite>Убиваем — Анна</div></blockquote>Передаю приказ босса.'
    )
    orders, rows = audit_pms(
        DayPms(inside=[pm(1, "Вито", "Передаю приказ босса.", forwarded)]), STATE.nicks(), ruleset_for(STATE)
    )
    assert not orders
    assert [(r["action"], r["targets"], r["valid"], r["reason"], r["line"]) for r in rows] == [
        (None, [], False, "unknown_line", "Передаю приказ босса."),
        ("kill", ["Анна"], False, "quoted", "Убиваем — Анна"),
    ]


def test_commands_are_shown_as_commands_not_as_lines_not_understood() -> None:
    rows = audit(pm(1, "Анна", "O GENDER FEMALE\nZ\nчто-то непонятное"))
    assert [(r["action"], r["reason"], r.get("line")) for r in rows] == [
        ("command", "command", "O GENDER FEMALE"),
        ("command", "command", "Z"),
        (None, "unknown_line", "что-то непонятное"),
    ]


def test_of_two_valid_orders_the_earlier_is_superseded() -> None:
    rows = audit(pm(1, "Дон", "Убиваем — Анна"), pm(2, "Дон", "Убиваем — Борис"), pm(3, "Шериф", "Проверяю — Дон"))
    assert [(r["actor"], r["targets"], r["valid"], r["reason"]) for r in rows] == [
        ("Дон", ["Анна"], False, "superseded"),
        ("Дон", ["Борис"], True, None),
        ("Шериф", ["Дон"], True, None),
    ]


def test_a_pm_from_a_non_player_is_listed() -> None:
    rows = audit(pm(1, "Прохожий", "Убиваем — Анна"))
    assert [(r["actor"], r["valid"], r["reason"]) for r in rows] == [("Прохожий", False, "not_player")]
