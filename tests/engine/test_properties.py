"""Property tests over random legal games of each variant (hypothesis drives the random play), also with the
host's replacements (new accounts taking over slots) and removals."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from forumbot.engine import DayInput, GameState, Order, Vote, deal, resolve_day, ruleset_for
from forumbot.engine.day import apply_replacements
from forumbot.engine.model import Action, DayOutcome, Removal, Replacement
from forumbot.engine.variants.gameru import Gameru

SIZES = {"gameru-3.3": (9, 23), "kozanostra": (4, 20), "salon": (5, 20)}
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def random_host(
    state: GameState, rng: random.Random, share: float
) -> tuple[tuple[Replacement, ...], tuple[Removal, ...]]:
    """Each living player's slot taken over by a new account with probability `share`, and now and then one
    removed by the host."""
    if not share:
        return (), ()
    living = [p.nick for p in state.living()]
    replaced = [n for n in living if rng.random() < share]
    replacements = tuple(
        Replacement(old=n, new=f"Замена {state.day}.{k}", reason="left the forum") for k, n in enumerate(replaced)
    )
    new_nick = {r.old: r.new for r in replacements}
    removals: tuple[Removal, ...] = ()
    if living and rng.random() < share:
        removed = rng.choice(living)
        removals = (Removal(nick=new_nick.get(removed, removed), reason="broke the rules"),)
    return replacements, removals


def random_day(
    state: GameState,
    rng: random.Random,
    silent_share: float = 0.0,
    replacements: tuple[Replacement, ...] = (),
    removals: tuple[Removal, ...] = (),
) -> DayInput:
    """Every living player votes and uses each of his role's actions at a random living player.

    A clan plays as a team, as real players do: its members name one kill target together. With
    `replacements`, the new accounts play, and the earlier ones still send a vote and an order (void).
    """
    original = state
    state, _ = apply_replacements(state, replacements)
    rules = ruleset_for(state)
    living = [p.nick for p in state.living()]
    silent = {n for n in living if rng.random() < silent_share}
    double = 2 if isinstance(rules, Gameru) and state.day in rules.double_days(len(state.players)) else 1
    votes: list[Vote] = []
    orders: list[Order] = []
    team_targets: dict[str, str] = {}
    for p in state.living():
        if p.nick in silent:
            continue
        votes.append(Vote(voter=p.nick, targets=tuple(rng.sample(living, min(double, len(living))))))
        for action in sorted(rules.role_actions.get(p.role, frozenset()) - {"special"}):
            act: Action = action
            target = rng.choice(living)
            if act == "kill" and p.faction in ("mafia", "yakuza"):
                target = team_targets.setdefault(p.faction, target)
            orders.append(Order(actor=p.nick, action=act, targets=(target,)))
    # A few stray messages: a dead player's vote, a second vote.
    dead = [p.nick for p in state.players if not p.alive]
    if dead and living:
        votes.append(Vote(voter=rng.choice(dead), targets=(rng.choice(living),)))
    # The earlier accounts of replaced players still write: their votes and orders are void.
    for r in replacements:
        votes.append(Vote(voter=r.old, targets=(rng.choice(living),)))
        player = original.player(r.old)
        for action in sorted(rules.role_actions.get(player.role, frozenset()) - {"special"} if player else ()):
            orders.append(Order(actor=r.old, action=action, targets=(rng.choice(living),)))
    rng.shuffle(votes)
    return DayInput(
        votes=tuple(votes),
        orders=tuple(orders),
        silent=frozenset(silent),
        replacements=replacements,
        removals=removals,
    )


def play_days(
    variant: str, count: int, seed: int, silent_share: float = 0.0, host_share: float = 0.0
) -> list[tuple[GameState, DayInput, DayOutcome]]:
    """A random game: each day's state before it, its input and its outcome."""
    state = deal(variant, [f"Игрок {i}" for i in range(count)], seed)
    rng = random.Random(seed)
    history: list[tuple[GameState, DayInput, DayOutcome]] = []
    while state.winner == "none" and state.day <= 3 * count:
        replacements, removals = random_host(state, rng, host_share)
        day = random_day(state, rng, silent_share, replacements, removals)
        outcome = resolve_day(state, day)
        history.append((state, day, outcome))
        state = outcome.state
    return history


def play(
    variant: str, count: int, seed: int, silent_share: float = 0.0, host_share: float = 0.0
) -> list[tuple[GameState, DayOutcome]]:
    """A random game: each day's state as its resolution starts (after the day's replacements) and its outcome."""
    return [
        (apply_replacements(state, day.replacements)[0], outcome)
        for state, day, outcome in play_days(variant, count, seed, silent_share, host_share)
    ]


def game_args() -> st.SearchStrategy[tuple[str, int, int]]:
    return st.sampled_from(sorted(SIZES)).flatmap(
        lambda v: st.tuples(st.just(v), st.integers(*SIZES[v]), st.integers(0, 10**9))
    )


@SETTINGS
@given(game_args(), st.sampled_from([0.0, 0.2]), st.sampled_from([0.0, 0.15]))
def test_the_dead_never_act_and_nobody_dies_twice(
    args: tuple[str, int, int], silent_share: float, host_share: float
) -> None:
    variant, count, seed = args
    buried: set[str] = set()
    for before, outcome in play(variant, count, seed, silent_share, host_share):
        alive = {p.nick for p in before.living()}
        assert set(outcome.counted_votes) <= alive
        assert all(e.actor in alive for e in outcome.events if e.actor in before.nicks())
        assert set(outcome.deaths) <= alive
        assert not buried & set(outcome.deaths)
        buried |= set(outcome.deaths)
        assert {p.nick for p in outcome.state.players if not p.alive} == buried


@SETTINGS
@given(game_args(), st.sampled_from([0.0, 0.15]))
def test_same_seed_and_inputs_give_the_same_outcome(args: tuple[str, int, int], host_share: float) -> None:
    variant, count, seed = args
    first = [o.model_dump() for _, o in play(variant, count, seed, 0.1, host_share)]
    second = [o.model_dump() for _, o in play(variant, count, seed, 0.1, host_share)]
    assert first == second


@SETTINGS
@given(game_args())
def test_random_games_end_within_three_days_per_player(args: tuple[str, int, int]) -> None:
    variant, count, seed = args
    history = play(variant, count, seed)
    final = history[-1][1]
    assert final.winner != "none", f"{variant} with {count} players still running after {len(history)} days"
    assert len(history) <= 3 * count


@SETTINGS
@given(game_args(), st.sampled_from([0.0, 0.15]))
def test_the_winner_agrees_with_who_is_alive(args: tuple[str, int, int], host_share: float) -> None:
    variant, count, seed = args
    for _, outcome in play(variant, count, seed, 0.1, host_share):
        living = outcome.state.living()
        assert outcome.winner == ruleset_for(outcome.state).winner(list(living))
        roles = {p.role for p in living}
        if outcome.winner == "town":
            assert not roles & {"mafia", "maniac", "yakuza", "ninja"}
        if outcome.winner == "draw" and variant != "gameru-3.3":
            assert not living
        if outcome.winner in ("mafia", "yakuza", "maniac"):
            assert living and outcome.winner in {p.faction for p in living}


@SETTINGS
@given(game_args())
def test_a_replaced_slot_keeps_its_role_and_its_history(args: tuple[str, int, int]) -> None:
    """The new account plays the same slot: the role, the boss and the death record stay; the earlier nick
    is on record once; what the earlier account sends that day is void; a removed player is dead."""
    variant, count, seed = args
    for state, day, outcome in play_days(variant, count, seed, 0.1, 0.3):
        started, _ = apply_replacements(state, day.replacements)
        for r in day.replacements:
            i = state.nicks().index(r.old)
            old, new = state.players[i], started.players[i]
            assert (new.nick, new.role, new.boss, new.alive) == (r.new, old.role, old.boss, True)
            assert new.replaced == (*old.replaced, r.old)
            after = outcome.state.players[i]
            changed = {e.target for e in outcome.events if e.kind in ("new_sheriff", "new_maniac", "inherited")}
            assert after.nick == r.new and after.replaced == new.replaced
            assert after.role == old.role or r.new in changed
            assert [e for e in outcome.events if e.kind == "replaced" and e.target == r.old] == [
                e for e in outcome.events if e.kind == "replaced" and e.actor == r.new
            ]
            assert len([e for e in outcome.events if e.kind == "replaced" and e.actor == r.new]) == 1
            assert r.old not in outcome.counted_votes
            assert all(v.reason.startswith("replaced by") for v in outcome.void if v.actor == r.old)
            assert any(v.actor == r.old for v in outcome.void)
        assert [e.target for e in outcome.events[: len(day.replacements)]] == [r.old for r in day.replacements]
        for removal in day.removals:
            assert removal.nick in outcome.deaths
            removed = outcome.state.player(removal.nick)
            assert removed is not None and not removed.alive
            # in effect, or recorded without effect («без последствий») when he died first (executed, killed)
            kinds = ("removed_by_host", "no_effect")
            found = [e.kind for e in outcome.events if e.target == removal.nick and e.kind in kinds]
            assert len(found) == 1
            assert found == ["no_effect"] or outcome.deaths[removal.nick] == "inactive"


@SETTINGS
@given(game_args(), st.integers(0, 10**6))
def test_order_arrival_between_players_does_not_matter(args: tuple[str, int, int], shuffle_seed: int) -> None:
    """Orders of different players are simultaneous: interleave them differently, same outcome."""
    variant, count, seed = args
    for before, outcome in play(variant, count, seed, 0.1):
        day = random_day(before, random.Random(seed + before.day))
        again_a = resolve_day(before, day)
        shuffled = interleave(day.orders, random.Random(shuffle_seed))
        again_b = resolve_day(before, day.model_copy(update={"orders": shuffled}))
        assert again_a.deaths == again_b.deaths
        assert again_a.checks == again_b.checks
        assert again_a.winner == again_b.winner
        del outcome


def interleave(orders: tuple[Order, ...], rng: random.Random) -> tuple[Order, ...]:
    """A random merge of the per-player sequences: each player's own orders keep their order."""
    queues: dict[str, list[Order]] = {}
    for o in orders:
        queues.setdefault(o.actor, []).append(o)
    merged: list[Order] = []
    while queues:
        actor = rng.choice(sorted(queues))
        merged.append(queues[actor].pop(0))
        if not queues[actor]:
            del queues[actor]
    return tuple(merged)
