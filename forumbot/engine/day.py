"""`resolve_day`: the one function that resolves a game day, consulting the variant's hooks in order.

Pure: (game state, day input) -> outcome with the new state. No I/O; every random choice comes from the
game's seed and the day number, so a replay gives the same outcome.

The host's powers come with the day's input, and every one is an event of the outcome:
- a replacement (замена) takes effect at the start of the day, before anything else: the new account gets
  the slot (role, boss, history; the earlier nick is kept in `Player.replaced`), the previous night's
  targets follow the slot, and from then on only the new nick's votes and orders count: those sent under
  the earlier nick are void ("replaced by ..."), and so are those naming it (nicks are matched exactly;
  the host may correct such a vote). Decisions: only a living player's slot is taken over; a nick that
  plays or played in the game is refused; the new account starts with no silent days (the silence was
  the earlier account's: gameru-3.3's inactivity counts a participant's own days);
- a removal by the host (модкилл) is a death after the day's execution and before the night, cause
  `inactive`, event `removed_by_host` with the reason: his vote of the day counts; in a variant whose night
  follows the execution (kozanostra) his night orders, and those naming him, are void. One who died first
  (executed, say) dies of that, and the removal is recorded without effect (`no_effect`). A `Q` is the same,
  event `left_game` («покинул игру»);
- the variant's own powers (gameru-3.3: a new maniac, a change of scheme, see `Ruleset.host_changes`) are
  judged on the day they are made, against that day's roles: one invalid then is refused (`check_host_powers`
  refuses it at once, when the host records it); at the end of the day they are applied first in the morning,
  before any random draw; one the day made moot (the appointee died, the game ended...) is recorded as
  `no_effect` with its reason and never stops the day; one that decides the game is applied, and the outcome
  says so (`decided_by_host`);
- kozanostra's best player is named on the day that ends the game; named on a day the game goes on, he is
  recorded without effect (`no_effect`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from forumbot.engine.model import (
    Action,
    Cause,
    DayInput,
    DayOutcome,
    Event,
    GameState,
    Order,
    Reason,
    Replacement,
    Vote,
    Winner,
    evolve,
)
from forumbot.engine.variants import find_variant
from forumbot.engine.variants.base import DayContext, Ruleset, rng_seed
from forumbot.errors import N_, RulesError


def ruleset_for(state: GameState) -> Ruleset:
    variant = find_variant(state.variant)
    return variant(variant.parse_options(state.options))


def resolve_day(state: GameState, day_input: DayInput) -> DayOutcome:
    """Resolve day `state.day` of a game. See variants/base.py for the order of the hooks."""
    rules = ruleset_for(state)
    ctx = _judged_start(rules, state, day_input)
    rules.collect_votes(ctx)
    rules.collect_orders(ctx)
    rules.default_votes(ctx)
    rules.resolve_phases(ctx)
    rules.apply_inactivity(ctx)
    deaths = {nick: ctx.recorded_cause(nick) for nick in ctx.causes}
    _bury(ctx, deaths)
    rules.host_changes(ctx)
    rules.succession(ctx)
    players = tuple(ctx.players.values())  # in player-list order: `players` was built from it
    winner = rules.winner([p for p in players if p.alive])
    _best_player(ctx, winner)
    new_state = evolve(
        ctx.state,
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


def check_host_powers(state: GameState, day_input: DayInput) -> None:
    """Judge the host's powers of a day as they are made, before the day is resolved: RulesError (naming the
    power) for one the game cannot take now. What the day itself may make moot is left to its end."""
    _judged_start(ruleset_for(state), state, day_input)


def _judged_start(rules: Ruleset, state: GameState, day_input: DayInput) -> DayContext:
    """The day's working context once the game's definition, the day's input and the host's powers are
    judged (RulesError naming the field for what cannot be run)."""
    if state.winner != "none":
        raise RulesError(
            N_("the game is over ({winner} won); day {day} cannot be resolved"), winner=state.winner, day=state.day
        )
    rules.check_roles(state.players, in_progress=state.day > 1)
    rules.check_day_input(state.day, day_input)
    state, replaced = apply_replacements(state, day_input.replacements)
    _check_removals(state, day_input)
    _check_best_player(state, day_input)
    ctx = _start_day(rules, state, day_input, replaced)
    rules.check_host_changes(ctx)
    return ctx


@dataclass(frozen=True)
class OrderCheck:
    """What the rules say of one order as it arrives (for the sender's receipt)."""

    action: Action | None  # the action it stands for (kozanostra maps `S` to the role's own)
    reason: Reason | None  # why it is void; None when it stands
    number: int  # the how-many-th valid message for this action it is (1 = the first order)
    limit: int | None  # how many messages count (gameru-3.3: 3 = the order and two changes)


def check_order(
    state: GameState, order: Order, earlier_valid: int = 0, replacements: Sequence[Replacement] = ()
) -> OrderCheck:
    """Judge an order now, as the day's resolution will: validity, and its place among the sender's changes.

    `earlier_valid` is how many valid messages for the same action the sender sent before this one today;
    `replacements`: the day's, which take effect before its orders.
    Pure, like `resolve_day`; nothing of the game's secrets is in the reason beyond what the sender knows
    (his own role and the public list of the living).
    """
    rules = ruleset_for(state)
    rules.check_action(order.action)
    state, _ = apply_replacements(state, tuple(replacements))
    ctx = _start_day(rules, state, DayInput())
    action, reason = rules._order_problem(ctx, order)
    limit = rules.order_limit(action) if action is not None else None
    if reason is None and limit is not None and earlier_valid >= limit:
        reason = Reason(code="too_many_changes", limit=limit)
    return OrderCheck(action, reason, earlier_valid + 1, limit)


def check_vote(state: GameState, vote: Vote, replacements: Sequence[Replacement] = ()) -> Reason | None:
    """Judge a vote now (a vote sent by PM, for its receipt), as the day's resolution will: None when it
    stands. Pure, like `check_order`."""
    rules = ruleset_for(state)
    state, _ = apply_replacements(state, tuple(replacements))
    ctx = _start_day(rules, state, DayInput())
    return rules._vote_problem(ctx, vote)


def apply_replacements(state: GameState, replacements: tuple[Replacement, ...]) -> tuple[GameState, list[Event]]:
    """The state with the day's replacements made, in order, and their `replaced` events (actor: the new
    nick, target: the earlier one). Refuses (RulesError naming `replace`) an earlier nick that does not
    play now or whose player is dead, and a new nick that plays or played in this game."""
    if not replacements:
        return state, []
    players = list(state.players)
    slot = {p.nick: i for i, p in enumerate(players)}
    used = {old: p.nick for p in players for old in p.replaced}
    last_targets = state.last_targets
    streaks = dict(state.silent_streak)
    events: list[Event] = []
    for r in replacements:
        where = {"day": state.day, "old": r.old, "new": r.new}
        if r.old not in slot:
            if r.old in used:
                raise RulesError(
                    N_("day {day}: replace: {old} was already replaced by {now}"), **where, now=used[r.old]
                )
            raise RulesError(N_("day {day}: replace: {old} is not a player"), **where)
        if r.new in slot:
            raise RulesError(N_("day {day}: replace: {new} already plays in this game"), **where)
        if r.new in used:
            raise RulesError(
                N_("day {day}: replace: {new} played in this game before (replaced by {now})"), **where, now=used[r.new]
            )
        i = slot.pop(r.old)
        p = players[i]
        if not p.alive:
            raise RulesError(
                N_("day {day}: replace: {old} is dead: only a living player's slot is taken over"), **where
            )
        players[i] = evolve(p, nick=r.new, replaced=(*p.replaced, r.old))
        slot[r.new] = i
        for old in (*p.replaced, r.old):
            used[old] = r.new
        last_targets = _renamed_targets(last_targets, r.old, r.new)
        streaks.pop(r.old, None)
        events.append(Event(kind="replaced", actor=r.new, target=r.old, detail=r.reason))
    state = evolve(state, players=tuple(players), last_targets=last_targets, silent_streak=streaks)
    return state, events


def _renamed_targets(
    last_targets: dict[str, dict[str, tuple[str, ...]]], old: str, new: str
) -> dict[str, dict[str, tuple[str, ...]]]:
    """The previous night's targets with a slot's nick changed, as actor and as target."""
    return {
        (new if actor == old else actor): {
            action: tuple(new if t == old else t for t in targets) for action, targets in per_action.items()
        }
        for actor, per_action in last_targets.items()
    }


def _check_removals(state: GameState, day_input: DayInput) -> None:
    """Only a living player is removed, named by the nick he plays under now."""
    for removal in day_input.removals:
        where = {"day": state.day, "nick": removal.nick}
        p = state.player(removal.nick)
        if p is None:
            now = next((q.nick for q in state.players if removal.nick in q.replaced), None)
            if now is not None:
                raise RulesError(
                    N_("day {day}: remove: {nick} was replaced by {now}: name the player {now}"), **where, now=now
                )
            raise RulesError(N_("day {day}: remove: {nick} is not a player"), **where)
        if not p.alive:
            raise RulesError(N_("day {day}: remove: {nick} is already dead"), **where)


def _check_best_player(state: GameState, day_input: DayInput) -> None:
    """The best player is a player of the game, named by the nick he plays under now (any player, a dead one too)."""
    nick = day_input.best_player
    if nick is None or state.player(nick) is not None:
        return
    where = {"day": state.day, "nick": nick}
    now = next((p.nick for p in state.players if nick in p.replaced), None)
    if now is not None:
        raise RulesError(
            N_("day {day}: best_player: {nick} was replaced by {now}: name the player {now}"), **where, now=now
        )
    raise RulesError(N_("day {day}: best_player: {nick} is not a player"), **where)


def _best_player(ctx: DayContext, winner: Winner) -> None:
    """kozanostra: the host names the best player, who hosts the next game, on the day that ends the game; named
    on a day the game goes on, he is recorded without effect (the day did not end it: no reason to stop)."""
    nick = ctx.day_input.best_player
    if nick is None:
        return
    if winner == "none":
        detail = f"best_player {nick}: no effect (без последствий): the game does not end on day {ctx.day}"
        ctx.event("no_effect", target=nick, reason="best_player", detail=f"{detail}; he is named at its end")
        return
    ctx.event("best_player", target=nick, detail="hosts the next game")


def _start_day(rules: Ruleset, state: GameState, day_input: DayInput, events: Sequence[Event] = ()) -> DayContext:
    """The working context of day `state.day`, after the variant's start-of-day bookkeeping; `events`: the
    day's replacements, which come first."""
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
        events=list(events),
        former={old: p.nick for p in state.players for old in p.replaced},
    )
    rules.begin_day(ctx)
    return ctx


def _bury(ctx: DayContext, deaths: dict[str, Cause]) -> None:
    """The day's dead are buried; a maniac who sent a valid order of his role today has appeared (seed 001:
    «В случае не появления Маньяка»)."""
    for (actor, _), _order in ctx.orders.items():
        p = ctx.players[actor]
        if p.role == "maniac" and not p.appeared:
            ctx.players[actor] = evolve(p, appeared=True)
    for nick, cause in deaths.items():
        p = ctx.players[nick]
        ctx.players[nick] = evolve(p, alive=False, death_day=ctx.day, death_cause=cause)


def _last_targets(ctx: DayContext) -> dict[str, dict[str, tuple[str, ...]]]:
    """Each actor's valid orders of this night, for tomorrow's "same target two nights running" rule."""
    result: dict[str, dict[str, tuple[str, ...]]] = {}
    for (actor, action), order in ctx.orders.items():
        result.setdefault(actor, {})[action] = order.targets
    return result
