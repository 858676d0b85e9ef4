"""A nick that looks like formatting ("[b]x[/b]") can be named in an order: the target is matched as written
first, then without the formatting that wraps it whole, and only then with every tag removed."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from forumbot.extract import Roster, orders_from_pm, parse_orders
from forumbot.posts import PrivateMessage

SENT = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
ROSTER = Roster(["[b]x[/b]", "Пётр", "a[b]c", "**звезда**", "Лиса"])


def targets(text: str, roster: Roster = ROSTER) -> tuple[str, ...] | None:
    pm = PrivateMessage(pm_id=1, sender="Лиса", subject="приказ", time=SENT, body_text=text, body_html="", url="https://f/pm?p=1")
    orders, problems = orders_from_pm(pm, roster)
    return orders[0].targets if orders else None


@pytest.mark.parametrize(
    ("line", "named"),
    [
        ("Убиваем — [b]x[/b]", ("[b]x[/b]",)),
        ("[b]Убиваем[/b] — [b]x[/b]", ("[b]x[/b]",)),
        ("Убиваем — «[b]x[/b]»", ("[b]x[/b]",)),
        ("Проверяю — a[b]c", ("a[b]c",)),
        ("Лечу — **звезда**", ("**звезда**",)),
        ("Убиваем — [b]Пётр[/b]", ("Пётр",)),  # real formatting around a nick is still formatting
        ("Убиваем — [color=red][b]Пётр[/b][/color]", ("Пётр",)),
        ("[b]Убиваем — Пётр[/b]", ("Пётр",)),
        ("Убиваем — [b]Пётр[/b] и [b]x[/b]", ("Пётр", "[b]x[/b]")),
        ("Убиваем — Пётр и [b]x[/b]", ("Пётр", "[b]x[/b]")),
    ],
)
def test_a_nick_that_looks_like_formatting_is_named(line: str, named: tuple[str, ...]) -> None:
    assert targets(line) == named


def test_the_exact_nick_wins_over_the_one_its_formatting_hides() -> None:
    both = Roster(["x", "[b]x[/b]", "Лиса"])
    assert targets("Убиваем — [b]x[/b]", both) == ("[b]x[/b]",)
    assert targets("Убиваем — x", both) == ("x",)


def test_unwrapping_keeps_tags_that_do_not_wrap_the_whole_target() -> None:
    [line] = parse_orders("Убиваем — [b]A[/b] и [b]B[/b]").lines
    assert line.target_text == "A и B" and line.exact == ("[b]A[/b] и [b]B[/b]",)
    [line] = parse_orders("Убиваем — [i][b]Пётр[/b][/i]").lines
    assert line.exact == ("[i][b]Пётр[/b][/i]",)  # the unwrapped form is target_text itself
