"""The rules engine: pure, deterministic, no I/O. `resolve_day(state, day_input) -> DayOutcome`."""

from forumbot.engine.day import apply_replacements, check_host_powers, resolve_day, ruleset_for
from forumbot.engine.deal import deal
from forumbot.engine.model import (
    DayInput,
    DayOutcome,
    GameState,
    Order,
    Player,
    Removal,
    Replacement,
    RoleChange,
    Vote,
)
from forumbot.engine.variants import VARIANTS, find_variant

__all__ = [
    "VARIANTS",
    "DayInput",
    "DayOutcome",
    "GameState",
    "Order",
    "Player",
    "Removal",
    "Replacement",
    "RoleChange",
    "Vote",
    "apply_replacements",
    "check_host_powers",
    "deal",
    "find_variant",
    "resolve_day",
    "ruleset_for",
]
