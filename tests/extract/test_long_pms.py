"""A PM is read to its first MAX_PM_LINES lines that hold text: orders, quoted orders and commands alike; the
rest is one `too_long` problem at the first line left unread (docs/votes-and-orders.md)."""

from __future__ import annotations

from datetime import UTC, datetime

from forumbot.extract import Roster, orders_from_pm, parse_orders
from forumbot.extract.commands import parse_commands
from forumbot.extract.orders import MAX_PM_LINES, quoted_order_lines, within_limit
from forumbot.posts import PrivateMessage

ROSTER = Roster(["Alice", "Bob"])


def pm(body_text: str, body_html: str = "") -> PrivateMessage:
    return PrivateMessage(
        pm_id=1, sender="Alice", subject="ход", time=datetime(2026, 11, 29, 12, tzinfo=UTC), body_html=body_html,
        body_text=body_text,
    )  # fmt: skip


def test_blank_lines_do_not_count_towards_the_limit() -> None:
    lines = ["", "x"] * MAX_PM_LINES + ["", "last"]
    read, unread = within_limit(lines)
    assert len(read) == 2 * MAX_PM_LINES + 1 and unread == (2 * MAX_PM_LINES + 2, 1)
    assert within_limit(["x"] * MAX_PM_LINES) == (["x"] * MAX_PM_LINES, None)


def test_an_order_past_the_limit_is_not_read_and_the_cut_is_one_problem() -> None:
    body = "\n".join(["привет"] * MAX_PM_LINES + ["Убиваем — Bob"] * 5000)
    orders, problems = orders_from_pm(pm(body), ROSTER)
    assert orders == []
    assert [p.reason for p in problems] == ["unknown_line"] * MAX_PM_LINES + ["too_long"]
    assert (problems[-1].line_no, problems[-1].raw) == (MAX_PM_LINES + 1, "5000 lines not read")


def test_a_short_pm_is_read_whole() -> None:
    orders, problems = orders_from_pm(pm("\n".join(["привет"] * (MAX_PM_LINES - 1) + ["Убиваем — Bob"])), ROSTER)
    assert [o.targets for o in orders] == [("Bob",)] and all(p.reason == "unknown_line" for p in problems)
    assert parse_orders("Убиваем — Bob").unread is None


def test_commands_and_quoted_orders_are_read_to_the_limit_too() -> None:
    assert len(parse_commands("\n".join(["O X"] * 5000)).problems) == MAX_PM_LINES
    quote = "<blockquote><div>" + "<br>".join(["Убиваем — Bob"] * 5000) + "</div></blockquote>"
    assert len(quoted_order_lines(pm("", quote))) == MAX_PM_LINES


def test_a_relayed_letter_is_relayed_whole() -> None:
    letter = parse_commands("#mafia\n" + "\n".join(f"строка {n}" for n in range(500))).relay
    assert letter is not None and letter.body.endswith("строка 499")
