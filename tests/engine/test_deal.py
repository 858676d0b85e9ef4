"""Dealing follows each variant's schemes and refuses counts it cannot serve."""

from __future__ import annotations

import math
from collections import Counter

import pytest

from forumbot.engine import deal
from forumbot.errors import DealError, RulesError


def nicks(n: int) -> list[str]:
    return [f"Игрок {i}" for i in range(n)]


@pytest.mark.parametrize(
    ("count", "mafia", "maniac"),
    [
        (9, 3, 0),
        (11, 3, 0),
        (12, 4, 0),
        (14, 4, 0),
        (15, 5, 1),
        (17, 5, 1),
        (18, 6, 1),
        (20, 6, 1),
        (21, 7, 1),
        (23, 7, 1),
    ],
)
def test_gameru_schemes(count: int, mafia: int, maniac: int) -> None:
    roles = Counter(p.role for p in deal("gameru-3.3", nicks(count), 5).players)
    assert (
        roles
        == Counter({"mafia": mafia, "maniac": maniac, "sheriff": 1, "civilian": count - mafia - maniac - 1}) - Counter()
    )


@pytest.mark.parametrize("count", [2, 8, 24, 40])
def test_gameru_refuses_other_counts_naming_the_possible_ones(count: int) -> None:
    with pytest.raises(DealError, match="possible counts are 9 to 23"):
        deal("gameru-3.3", nicks(count), 1)


def test_an_explicit_role_list_serves_any_count() -> None:
    state = deal("gameru-3.3", nicks(5), 1, {"roles": ["mafia", "mafia", "sheriff", "civilian", "civilian"]})
    assert Counter(p.role for p in state.players)["mafia"] == 2


@pytest.mark.parametrize("count", [4, 5, 8, 12, 13, 20])
def test_salon_quarter_mafia_rounded_up_and_specials_while_numbers_allow(count: int) -> None:
    roles = Counter(p.role for p in deal("salon", nicks(count), 3).players)
    assert roles["mafia"] == math.ceil(count / 4)
    assert roles["commissar"] == 1 and roles["doctor"] == 1
    assert roles["civilian"] >= 1
    if count >= 8:
        assert roles["maniac"] == 1 and roles["hetaera"] == 1


def test_salon_refuses_too_few_players() -> None:
    with pytest.raises(DealError, match="at least 4"):
        deal("salon", nicks(3), 1)


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ({"game_type": "mafia"}, {"mafia": 3, "commissar": 1, "civilian": 8}),
        ({"game_type": "neapol"}, {"mafia": 4, "commissar": 1, "reanimator": 1, "civilian": 6}),
        (
            {"game_type": "kozanostra", "yakuza": 2, "ninja": 1, "lawyer": 1, "maniac": 1},
            {"mafia": 3, "commissar": 1, "yakuza": 2, "ninja": 1, "lawyer": 1, "maniac": 1, "civilian": 3},
        ),
    ],
)
def test_kozanostra_game_types(options: dict[str, object], expected: dict[str, int]) -> None:
    roles = Counter(p.role for p in deal("kozanostra", nicks(12), 9, options).players)
    assert roles == Counter(expected)


def test_kozanostra_refuses_counts_outside_the_server_limits() -> None:
    with pytest.raises(DealError, match="needs 3 to 20 players"):
        deal("kozanostra", nicks(21), 1)


def test_every_deal_has_exactly_one_boss_where_the_variant_has_one_and_is_reproducible() -> None:
    for variant, count, bosses in (("gameru-3.3", 12, 1), ("salon", 10, 1), ("kozanostra", 10, 0)):
        first = deal(variant, nicks(count), 42)
        assert sum(p.boss for p in first.players) == bosses, variant
        assert all(p.role == "mafia" for p in first.players if p.boss)
        assert deal(variant, nicks(count), 42) == first
        assert deal(variant, nicks(count), 43) != first


def test_duplicate_nicks_and_unknown_options_are_refused() -> None:
    with pytest.raises(DealError, match="more than once"):
        deal("salon", ["A", "B", "A", "C", "D"], 1)
    with pytest.raises(RulesError, match="order_changez"):
        deal("gameru-3.3", nicks(9), 1, {"order_changez": 1})
