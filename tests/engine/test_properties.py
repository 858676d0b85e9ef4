"""Property tests over random legal games of each variant (hypothesis drives the random play)."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from forumbot.engine import DayInput, GameState, Order, Vote, deal, resolve_day, ruleset_for
from forumbot.engine.model import Action, DayOutcome
from forumbot.engine.variants.gameru import Gameru

SIZES = {"gameru-3.3": (9, 23), "kozanostra": (4, 20), "salon": (5, 20)}
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def random_day(state: GameState, rng: random.Random, silent_share: float = 0.0) -> DayInput:
    """Every living player votes and uses each of his role's actions at a random living player.

    A clan plays as a team, as real players do: its members name one kill target together.
    """
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
    rng.shuffle(votes)
    return DayInput(votes=tuple(votes), orders=tuple(orders), silent=frozenset(silent))


def play(variant: str, count: int, seed: int, silent_share: float = 0.0) -> list[tuple[GameState, DayOutcome]]:
    state = deal(variant, [f"Игрок {i}" for i in range(count)], seed)
    rng = random.Random(seed)
    history: list[tuple[GameState, DayOutcome]] = []
    while state.winner == "none" and state.day <= 3 * count:
        outcome = resolve_day(state, random_day(state, rng, silent_share))
        history.append((state, outcome))
        state = outcome.state
    return history


def game_args() -> st.SearchStrategy[tuple[str, int, int]]:
    return st.sampled_from(sorted(SIZES)).flatmap(
        lambda v: st.tuples(st.just(v), st.integers(*SIZES[v]), st.integers(0, 10**9))
    )


@SETTINGS
@given(game_args(), st.sampled_from([0.0, 0.2]))
def test_the_dead_never_act_and_nobody_dies_twice(args: tuple[str, int, int], silent_share: float) -> None:
    variant, count, seed = args
    buried: set[str] = set()
    for before, outcome in play(variant, count, seed, silent_share):
        alive = {p.nick for p in before.living()}
        assert set(outcome.counted_votes) <= alive
        assert all(e.actor in alive for e in outcome.events if e.actor in before.nicks())
        assert set(outcome.deaths) <= alive
        assert not buried & set(outcome.deaths)
        buried |= set(outcome.deaths)
        assert {p.nick for p in outcome.state.players if not p.alive} == buried


@SETTINGS
@given(game_args())
def test_same_seed_and_inputs_give_the_same_outcome(args: tuple[str, int, int]) -> None:
    variant, count, seed = args
    first = [o.model_dump() for _, o in play(variant, count, seed, 0.1)]
    second = [o.model_dump() for _, o in play(variant, count, seed, 0.1)]
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
@given(game_args())
def test_the_winner_agrees_with_who_is_alive(args: tuple[str, int, int]) -> None:
    variant, count, seed = args
    for _, outcome in play(variant, count, seed, 0.1):
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
