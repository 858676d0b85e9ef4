"""`resolve_day`: the one function that resolves a game day, consulting the variant's hooks in order.

Pure: (game state, day input) -> outcome with the new state. No I/O; every random choice comes from the
game's seed and the day number, so a replay gives the same outcome.
"""

from __future__ import annotations

from dataclasses import dataclass

from forumbot.engine.model import Action, Cause, DayInput, DayOutcome, GameState, Order, Player, evolve
from forumbot.engine.variants import find_variant
from forumbot.engine.variants.base import DayContext, Ruleset, rng_seed
from forumbot.errors import RulesError


def ruleset_for(state: GameState) -> Ruleset:
    variant = find_variant(state.variant)
    return variant(variant.parse_options(state.options))


def resolve_day(state: GameState, day_input: DayInput) -> DayOutcome:
    """Resolve day `state.day` of a game. See variants/base.py for the order of the hooks."""
    if state.winner != "none":
        raise RulesError(f"the game is over ({state.winner} won); day {state.day} cannot be resolved")
    rules = ruleset_for(state)
    rules.check_roles(state.players, in_progress=state.day > 1)
    rules.check_day_input(state.day, day_input)
    ctx = _start_day(rules, state, day_input)
    rules.collect_votes(ctx)
    rules.collect_orders(ctx)
    rules.default_votes(ctx)
    rules.resolve_phases(ctx)
    rules.apply_inactivity(ctx)
    rules.apply_departures(ctx)
    deaths = {nick: ctx.recorded_cause(nick) for nick in ctx.causes}
    _bury(ctx, deaths)
    rules.succession(ctx)
    players = tuple(ctx.players.values())  # in player-list order: `players` was built from it
    winner = rules.winner([p for p in players if p.alive])
    new_state = evolve(
        state,
        day=state.day + 1,
        players=players,
        last_targets=_last_targets(ctx),
        silent_streak=ctx.silent_streak,
        sheriff_due=ctx.sheriff_due,
        maniac_due=ctx.maniac_due,
        winner=winner,
    )
    return DayOutcome(
        day=state.day,
        deaths=deaths,
        checks=ctx.checks,
        winner=winner,
        executed=tuple(ctx.executed),
        tally=ctx.tally,
        counted_votes=dict(ctx.votes),
        events=tuple(ctx.events),
        void=tuple(ctx.void),
        state=new_state,
    )


@dataclass(frozen=True)
class OrderCheck:
    """What the rules say of one order as it arrives (for the sender's receipt)."""

    action: Action | None  # the action it stands for (kozanostra maps `S` to the role's own)
    reason: str | None  # why it is void; None when it stands
    number: int  # the how-many-th valid message for this action it is (1 = the first order)
    limit: int | None  # how many messages count (gameru-3.3: 3 = the order and two changes)


def check_order(state: GameState, order: Order, earlier_valid: int = 0) -> OrderCheck:
    """Judge an order now, as the day's resolution will: validity, and its place among the sender's changes.

    `earlier_valid` is how many valid messages for the same action the sender sent before this one today.
    Pure, like `resolve_day`; nothing of the game's secrets is in the reason beyond what the sender knows
    (his own role and the public list of the living).
    """
    rules = ruleset_for(state)
    rules.check_action(order.action)
    ctx = _start_day(rules, state, DayInput())
    action, reason = rules._order_problem(ctx, order)
    limit = rules.order_limit(action) if action is not None else None
    if reason is None and limit is not None and earlier_valid >= limit:
        reason = f"too many changes: only the first {limit} messages count"
    return OrderCheck(action, reason, earlier_valid + 1, limit)


def _start_day(rules: Ruleset, state: GameState, day_input: DayInput) -> DayContext:
    """The working context of day `state.day`, after the variant's start-of-day bookkeeping."""
    ctx = DayContext(
        state=state,
        day=state.day,
        rng_seed=rng_seed(state, state.day),
        players={p.nick: p for p in state.players},
        alive_at_start=frozenset([p.nick for p in state.players if p.alive]),
        day_input=day_input,
        sheriff_due=state.sheriff_due,
        maniac_due=state.maniac_due,
        silent_streak=dict(state.silent_streak),
    )
    rules.begin_day(ctx)
    return ctx


def _bury(ctx: DayContext, deaths: dict[str, Cause]) -> None:
    for nick, cause in deaths.items():
        p: Player = ctx.players[nick]
        ctx.players[nick] = evolve(p, alive=False, death_day=ctx.day, death_cause=cause)


def _last_targets(ctx: DayContext) -> dict[str, dict[str, tuple[str, ...]]]:
    """Each actor's valid orders of this night, for tomorrow's "same target two nights running" rule."""
    result: dict[str, dict[str, tuple[str, ...]]] = {}
    for (actor, action), order in ctx.orders.items():
        result.setdefault(actor, {})[action] = order.targets
    return result
