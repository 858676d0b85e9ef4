"""The rules engine: pure, deterministic, no I/O. `resolve_day(state, day_input) -> DayOutcome`."""

from forumbot.engine.day import resolve_day, ruleset_for
from forumbot.engine.deal import deal
from forumbot.engine.model import DayInput, DayOutcome, GameState, Order, Player, Vote
from forumbot.engine.variants import VARIANTS, find_variant

__all__ = [
    "VARIANTS",
    "DayInput",
    "DayOutcome",
    "GameState",
    "Order",
    "Player",
    "Vote",
    "deal",
    "find_variant",
    "resolve_day",
    "ruleset_for",
]
