"""Scheme simulator: many games of a variant with random legal play, and who wins how often.

Pure: no I/O. `simulate(variant, players, games, seed)` deals `games` games and plays each one with the
engine until somebody wins or the day cap (3 days per player) is reached. Random legal play:

- every living player votes, for random living players (two on gameru-3.3's double days);
- every living player with a special role sends each of his role's orders at random living players,
  leaving out the targets the rules would void for him (himself where the variant forbids it, his own
  target of the previous night where the variant forbids a repeat);
- a clan (the mafia, the yakuza) plays as a team: all its members name the same kill target, never one
  of their own (gameru-3.3: only the boss sends it, the only order of the mafia that counts there);
- nobody is silent, so nobody dies for inactivity.

The result has per-side win counts with Wilson 95% confidence intervals, draws, games that hit the cap
("unfinished", counted in no side), and the mean game length in days. `render_chart` draws the rates
as a bar chart with the intervals as error bars (matplotlib, Agg backend) and returns the file's bytes.
"""

from __future__ import annotations

import io
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from forumbot.engine import DayInput, GameState, Order, Vote, deal, resolve_day, ruleset_for
from forumbot.engine.model import FACTION_OF, Action, Faction, Player, Role
from forumbot.engine.variants.base import Ruleset

# The normal quantile of a two-sided 95% interval.
Z95 = 1.959963984540054
SIDE_ORDER: tuple[str, ...] = ("town", "mafia", "yakuza", "maniac")
CLANS: frozenset[Faction] = frozenset({"mafia", "yakuza"})
ChartFormat = Literal["svg", "png"]
CHART_FORMATS: tuple[ChartFormat, ...] = ("svg", "png")


def wilson_interval(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion; (0, 1) when there are no trials."""
    if trials <= 0:
        return 0.0, 1.0
    p = successes / trials
    z2 = z * z
    denom = 1 + z2 / trials
    centre = (p + z2 / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials)) / denom
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == trials else min(1.0, centre + half)
    return low, high


@dataclass(frozen=True)
class Share:
    """How many of the games ended one way, as a rate with its 95% interval."""

    label: str
    count: int
    games: int

    @property
    def rate(self) -> float:
        return self.count / self.games if self.games else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.count, self.games)

    def to_json(self) -> dict[str, Any]:
        low, high = self.interval
        return {"count": self.count, "rate": self.rate, "ci95": [low, high]}


@dataclass(frozen=True)
class Simulation:
    variant: str
    players: int
    games: int
    seed: int
    day_cap: int
    options: dict[str, Any] = field(default_factory=dict)
    wins: dict[str, int] = field(default_factory=dict)  # side -> games won, every side of the scheme
    draws: int = 0
    unfinished: int = 0
    total_days: int = 0  # days played in the finished games

    @property
    def finished(self) -> int:
        return self.games - self.unfinished

    @property
    def mean_days(self) -> float | None:
        """Mean length in days of the games that finished (won or drawn); None if none did."""
        return self.total_days / self.finished if self.finished else None

    def sides(self) -> list[Share]:
        return [Share(side, n, self.games) for side, n in self.wins.items()]

    def draw_share(self) -> Share:
        return Share("draw", self.draws, self.games)

    def unfinished_share(self) -> Share:
        return Share("unfinished", self.unfinished, self.games)

    def to_json(self) -> dict[str, Any]:
        return {
            "variant": self.variant,
            "players": self.players,
            "games": self.games,
            "seed": self.seed,
            "options": self.options,
            "day_cap": self.day_cap,
            "sides": {s.label: s.to_json() for s in self.sides()},
            "draw": self.draw_share().to_json(),
            "unfinished": self.unfinished_share().to_json(),
            "mean_days": self.mean_days,
        }


def simulate(
    variant: str,
    players: int,
    games: int = 1000,
    seed: int = 0,
    options: dict[str, Any] | None = None,
    day_cap: int | None = None,
) -> Simulation:
    """Play `games` games of `variant` with `players` players; the same arguments give the same result.

    Raises RulesError (or DealError) for an unknown variant, a bad option or an impossible count.
    """
    if games < 1:
        raise ValueError("games must be at least 1")
    cap = 3 * players if day_cap is None else day_cap
    opts = dict(options or {})
    nicks = [f"P{i + 1}" for i in range(players)]
    rng = random.Random(seed)
    wins: dict[str, int] = {}
    draws = unfinished = total_days = 0
    plan: _Plan | None = None
    for _ in range(games):
        state = deal(variant, nicks, rng.getrandbits(63), opts)
        if plan is None:
            plan = _Plan(ruleset_for(state))
            wins = {side: 0 for side in scheme_sides(state.players)}
        winner, days = play_game(state, rng, cap, plan)
        if winner == "none":
            unfinished += 1
            continue
        total_days += days
        if winner == "draw":
            draws += 1
        else:
            wins[winner] = wins.get(winner, 0) + 1
    return Simulation(
        variant=variant,
        players=players,
        games=games,
        seed=seed,
        day_cap=cap,
        options=opts,
        wins=wins,
        draws=draws,
        unfinished=unfinished,
        total_days=total_days,
    )


def scheme_sides(players: Sequence[Player]) -> list[str]:
    """The sides that can win a game dealt like this one, in a fixed order."""
    present = {FACTION_OF[p.role] for p in players}
    return [side for side in SIDE_ORDER if side in present]


def play_game(state: GameState, rng: random.Random, day_cap: int, plan: _Plan | None = None) -> tuple[str, int]:
    """Play a dealt game to its end or the cap: (winner, days played); winner `none` = unfinished.

    `plan` may be shared by the games of one variant, options and player list (it caches their votes).
    """
    plan = plan if plan is not None else _Plan(ruleset_for(state))
    days = 0
    while state.winner == "none" and days < day_cap:
        state = resolve_day(state, plan.random_day(state, rng)).state
        days += 1
    return state.winner, days


class _Plan:
    """What a variant lets each role do, looked up once per simulation."""

    def __init__(self, rules: Ruleset) -> None:
        self.rules = rules
        self.actions: dict[Role, tuple[Action, ...]] = {
            role: tuple(sorted(acts - {"special"})) for role, acts in rules.role_actions.items()
        }
        self.self_ok = rules.self_target_ok
        self.no_repeat = rules.no_repeat
        # Where only the boss's kill order counts for the mafia, the others send none.
        self.boss_orders = rules.boss_orders
        # Votes and orders are frozen values: one object per distinct vote or order is enough.
        self.votes: dict[tuple[str, tuple[str, ...]], Vote] = {}
        self.orders: dict[tuple[str, Action, tuple[str, ...]], Order] = {}

    def vote(self, voter: str, targets: tuple[str, ...]) -> Vote:
        key = (voter, targets)
        found = self.votes.get(key)
        if found is None:
            found = self.votes[key] = Vote(voter=voter, targets=targets)
        return found

    def order(self, actor: str, action: Action, targets: tuple[str, ...]) -> Order:
        key = (actor, action, targets)
        found = self.orders.get(key)
        if found is None:
            found = self.orders[key] = Order(actor=actor, action=action, targets=targets)
        return found

    def width(self, state: GameState) -> int:
        """How many players a vote or order names on this day."""
        return self.rules.max_targets(state.day, "vote", len(state.players))

    def random_day(self, state: GameState, rng: random.Random) -> DayInput:
        living = [p for p in state.players if p.alive]
        nicks = [p.nick for p in living]
        count = len(nicks)
        width = min(self.width(state), count)
        draw = rng.random
        votes: list[Vote] = []
        for nick in nicks:
            # A uniform pick, as rng.choice, for a fraction of its cost (this runs for every vote of every game).
            targets = (nicks[int(draw() * count)],) if width == 1 else tuple(rng.sample(nicks, width))
            vote = self.votes.get((nick, targets))
            votes.append(vote if vote is not None else self.vote(nick, targets))
        senders = [(p, a) for p in living for a in self.actions.get(p.role, ()) if self.sends(p, a)]
        orders: list[Order] = []
        clan_targets: dict[Faction, tuple[str, ...]] = {}
        for p, action in senders:
            faction = FACTION_OF[p.role]
            if action == "kill" and faction in CLANS:
                if faction not in clan_targets:
                    clan = [m for m, a in senders if a == "kill" and FACTION_OF[m.role] == faction]
                    own = {m.nick for m in living if FACTION_OF[m.role] == faction}
                    clan_targets[faction] = self._pick(state, clan, action, nicks, width, rng, own)
                targets = clan_targets[faction]
            else:
                targets = self._pick(state, [p], action, nicks, width, rng)
            orders.append(self.order(p.nick, action, targets))
        return DayInput(votes=tuple(votes), orders=tuple(orders))

    def sends(self, player: Player, action: Action) -> bool:
        """Whether a player sends this order at all (gameru-3.3: a mafioso's kill counts only from the boss)."""
        return not (self.boss_orders and action == "kill" and player.role == "mafia" and not player.boss)

    def _pick(
        self,
        state: GameState,
        actors: list[Player],
        action: Action,
        nicks: list[str],
        width: int,
        rng: random.Random,
        avoid: set[str] | None = None,
    ) -> tuple[str, ...]:
        """Random targets that no rule voids for any of `actors`, nor in `avoid` (any living ones if none is left)."""
        banned: set[str] = set(avoid) if avoid else set()
        for a in actors:
            if (a.role, action) not in self.self_ok:
                banned.add(a.nick)
            if action in self.no_repeat:
                banned.update(state.last_targets.get(a.nick, {}).get(action, ()))
        pool = [n for n in nicks if n not in banned] if banned else nicks
        if not pool:
            pool = nicks
        if width == 1 or len(pool) == 1:
            return (pool[int(rng.random() * len(pool))],)
        return tuple(rng.sample(pool, width))


# --- chart ----------------------------------------------------------------------------------------


def render_chart(result: Simulation, fmt: ChartFormat) -> bytes:
    """A bar chart of the win rates (and draws, unfinished games) with 95% intervals as error bars."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    shares = [*result.sides(), result.draw_share()]
    if result.unfinished:
        shares.append(result.unfinished_share())
    labels = [s.label for s in shares]
    rates = [100 * s.rate for s in shares]
    below = [100 * (s.rate - s.interval[0]) for s in shares]
    above = [100 * (s.interval[1] - s.rate) for s in shares]
    fig = Figure(figsize=(6.4, 4.0))
    ax = fig.subplots()
    colours = {"town": "#4c9f50", "mafia": "#c0392b", "yakuza": "#8e44ad", "maniac": "#e67e22"}
    ax.bar(
        labels,
        rates,
        yerr=[below, above],
        capsize=6,
        color=[colours.get(label, "#7f8c8d") for label in labels],
        edgecolor="black",
        linewidth=0.6,
    )
    for x, (rate, high) in enumerate(zip(rates, above, strict=True)):
        ax.annotate(f"{rate:.1f}%", (x, rate + high), textcoords="offset points", xytext=(0, 4), ha="center")
    ax.set_ylim(0, 110)
    ax.set_ylabel("% of games (error bars: 95% CI)")
    mean = f"{result.mean_days:.1f}" if result.mean_days is not None else "-"
    ax.set_title(
        f"{result.variant}, {result.players} players: {result.games} games, seed {result.seed}, mean {mean} days",
        fontsize=10,
    )
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format=fmt, metadata={"Date": None} if fmt == "svg" else None)
    return buffer.getvalue()
