"""The base ruleset: what every variant shares, and the hooks a variant overrides.

`resolve_day` (engine/day.py) drives a day through these hooks, always in this order:

0. the day's replacements (engine/day.py) - new accounts take over their slots, before anything else; then the
   host's powers are judged as made (`check_host_changes`): a change invalid when made is refused
1. `begin_day(ctx)`        - start-of-day bookkeeping (gameru-3.3: a dead boss is replaced at once)
2. `collect_votes(ctx)`    - common: each living voter's latest valid vote; void ones go to the audit
3. `collect_orders(ctx)`   - common: each actor's latest valid order per action; uses `check_order`
4. `default_votes(ctx)`    - what a silent voter counts as (kozanostra: himself); base: nothing
5. `resolve_phases(ctx)`   - the variant's own sequence: execution, checks, night kills...; right after its
                             execution it calls `depart(ctx)`: the players the host removes, and those who
                             leave (`Q`), die then ("after the day's execution and before the night")
6. `apply_inactivity(ctx)` - deaths for silence; base: nothing
7. the deaths are recorded; `host_changes(ctx)` - the host's changes, first in the morning, before any draw
   (gameru-3.3: a new maniac, a new scheme; a change the day made moot is recorded as `no_effect`)
8. `succession(ctx)`       - roles passed on, new boss, new sheriff (the draws); base: nothing
9. `winner(players)`       - who has won, from the living; then the best player (kozanostra), if named

Common rules implemented here (docs/rules/common.md, "The rules every variant shares"): only living
players act; a vote or order naming a dead or unknown player is void; an order from a role that lacks the
action is void; self-targets are void unless the variant lists them in `self_target_ok`; actions in
`no_repeat` may not name the actor's own valid target of the previous night; the latest valid vote/order
stands.

Checks on a game's own definition, refused (a RulesError naming the field) before anything is resolved:
`check_roles` - roles the variant lacks; where the variant has a boss (`has_boss`) exactly one boss among
the mafia (a game without mafia has none to lead), else no player marked boss; `check_day_input` - a player
listed silent who votes or sends an order that day, and a use of the host's powers the variant lacks or that
contradicts itself (`host_power_problems`); `check_host_changes` - a change of the host's own invalid when he
makes it, judged against the day's roles (what the day itself makes moot is recorded `no_effect` at its end).
Option values outside their sense are refused by the variant's options model (`parse_options`).
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from forumbot.engine.model import (
    CAUSE_PRIORITY,
    Action,
    Cause,
    CheckResult,
    DayInput,
    Event,
    EventKind,
    GameState,
    Order,
    Player,
    Reason,
    Role,
    VoidEntry,
    Vote,
    Winner,
    evolve,
)
from forumbot.errors import N_, DealError, RulesError


class VariantOptions(BaseModel):
    """Options every variant has; each variant's model adds its own (docs/rules/common.md, Options)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    nick_matching: Literal["strict", "lenient"] = "strict"
    edited_votes: Literal["ignore", "count"] = "ignore"
    # An explicit role list for the dealer, for counts the schemes do not cover (host's decision).
    roles: tuple[Role, ...] | None = None


@dataclass(frozen=True, slots=True)
class Problem:
    """Why a game's own definition (its players, a day's input) cannot be run: the field, the reason, and the
    player it concerns (if one), so a caller can point at the line that defines him."""

    field: str
    reason: str
    nick: str | None = None

    def __str__(self) -> str:
        return f"{self.field}: {self.reason}"


@dataclass(slots=True)
class ValidOrder:
    actor: str
    action: Action
    targets: tuple[str, ...]
    index: int  # position in the day's input: later is later


@dataclass(slots=True)
class DayContext:
    """The working state of one day's resolution. Built and consumed inside `resolve_day` only."""

    state: GameState
    day: int
    # The seed of the day's RNG (see `make_rng`); the RNG itself is made when a rule first draws.
    rng_seed: str
    players: dict[str, Player]
    alive_at_start: frozenset[str]
    day_input: DayInput
    votes: dict[str, tuple[str, ...]] = field(default_factory=dict)
    vote_index: dict[str, int] = field(default_factory=dict)
    orders: dict[tuple[str, Action], ValidOrder] = field(default_factory=dict)
    void: list[VoidEntry] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    causes: dict[str, list[Cause]] = field(default_factory=dict)
    checks: dict[str, CheckResult | list[CheckResult]] = field(default_factory=dict)
    executed: list[str] = field(default_factory=list)
    tally: dict[str, int] = field(default_factory=dict)
    sheriff_due: int | None = None
    maniac_due: int | None = None
    silent_streak: dict[str, int] = field(default_factory=dict)
    # Earlier nicks of replaced players -> the nick that plays the slot now (for the audit's reasons).
    former: dict[str, str] = field(default_factory=dict)
    # Players dead before the night (removed by the host, or leaving: "removed" / "left"), in a variant whose
    # night follows its execution: their orders, and the orders naming them, are void.
    night_gone: dict[str, str] = field(default_factory=dict)
    _rng: random.Random | None = field(default=None, init=False, repr=False)

    @property
    def rng(self) -> random.Random:
        """The day's RNG: the same draws for the same game and day, however often the day is replayed."""
        if self._rng is None:
            self._rng = random.Random(self.rng_seed)
        return self._rng

    # --- queries -------------------------------------------------------------------------------
    def is_alive(self, nick: str) -> bool:
        """Alive right now in the resolution (not yet killed by an earlier step)."""
        return self.players[nick].alive and nick not in self.causes

    def living(self, roles: Iterable[Role] | None = None) -> list[Player]:
        """Players alive right now, in player-list order, optionally of some roles."""
        causes = self.causes
        if roles is None:
            return [p for p in self.players.values() if p.alive and p.nick not in causes]
        wanted = set(roles)
        return [p for p in self.players.values() if p.alive and p.role in wanted and p.nick not in causes]

    def started_alive(self, roles: Iterable[Role]) -> list[Player]:
        wanted = set(roles)
        alive = self.alive_at_start
        return [p for p in self.players.values() if p.role in wanted and p.nick in alive]

    def order(self, actor: str, action: Action) -> ValidOrder | None:
        return self.orders.get((actor, action))

    def boss(self) -> Player | None:
        for p in self.players.values():
            if p.boss and p.role == "mafia" and p.nick in self.alive_at_start:
                return p
        return None

    # --- effects -------------------------------------------------------------------------------
    def event(
        self,
        kind: EventKind,
        actor: str | None = None,
        target: str | None = None,
        *,
        role: Role | None = None,
        cause: Cause | None = None,
        detail: str = "",
        reason: str | None = None,
        votes: int | None = None,
        needed: float | None = None,
    ) -> None:
        event = Event(
            kind=kind,
            actor=actor,
            target=target,
            role=role,
            cause=cause,
            detail=detail,
            reason=reason,
            votes=votes,
            needed=needed,
        )
        self.events.append(event)

    def kill(
        self, nick: str, cause: Cause, by: str | None = None, detail: str = "", kind: EventKind | None = None
    ) -> None:
        """Record a death cause. Several causes may hit one player; the recorded one is by priority. `kind`:
        the event's kind when not the cause's own (a removal by the host)."""
        self.causes.setdefault(nick, []).append(cause)
        if kind is None:
            kind = "executed" if cause == "executed" else ("inactive" if cause == "inactive" else "killed")
        self.event(kind, actor=by, target=nick, role=self.players[nick].role, cause=cause, detail=detail)

    def set_role(self, nick: str, role: Role, boss: bool | None = None) -> None:
        p = self.players[nick]
        self.players[nick] = evolve(p, role=role) if boss is None else evolve(p, role=role, boss=boss)

    def set_boss(self, nick: str) -> None:
        for n, p in self.players.items():
            if p.boss and n != nick:
                self.players[n] = evolve(p, boss=False)
        self.players[nick] = evolve(self.players[nick], boss=True)

    def recorded_cause(self, nick: str) -> Cause:
        causes = self.causes[nick]
        return causes[0] if len(causes) == 1 else min(causes, key=CAUSE_PRIORITY.index)


class Ruleset:
    """One rule variant. Subclasses set the class attributes and override the hooks they need."""

    name: ClassVar[str] = ""
    options_model: ClassVar[type[VariantOptions]] = VariantOptions
    roles: ClassVar[frozenset[Role]] = frozenset()
    # Special actions per role; everyone alive also has `vote`.
    role_actions: ClassVar[dict[Role, frozenset[Action]]] = {}
    # (role, action) pairs that may target the actor himself.
    self_target_ok: ClassVar[frozenset[tuple[Role, Action]]] = frozenset()
    # Actions that may not name the actor's own valid target of the previous night.
    no_repeat: ClassVar[frozenset[Action]] = frozenset()
    # Whether a tie for the execution is drawn at random (else `rank` decides).
    random_ties: ClassVar[bool] = True
    # Where the day's votes are cast: "thread" (a nick in red bold in the day topic) and/or "pm".
    vote_channels: ClassVar[frozenset[str]] = frozenset({"thread"})
    # Only the boss's kill order counts for the mafia (the others need send none).
    boss_orders: ClassVar[bool] = False
    # Whether exactly one mafioso is the boss (gameru-3.3, salon); else no player may be marked boss.
    has_boss: ClassVar[bool] = False
    # Whether the host may appoint a new maniac and change the scheme during the game (gameru-3.3).
    host_recasts: ClassVar[bool] = False

    # --- what the published texts tell (codes and facts; `forumbot.render` words them) ------------
    # Whether the game has nights (the orders of a day are carried out "at night") or only days.
    has_nights: ClassVar[bool] = True
    # The clans whose members know each other (and their boss): clan -> its roles.
    clans: ClassVar[dict[str, frozenset[Role]]] = {
        "mafia": frozenset({"mafia"}),
        "yakuza": frozenset({"yakuza", "ninja"}),
    }
    # A role the variant titles its own way: role -> the title's code (e.g. "honest_civilian").
    role_titles: ClassVar[dict[Role, str]] = {}
    # How a death is narrated: its cause -> the narrative's code (default: the cause itself).
    death_narratives: ClassVar[dict[str, str]] = {}
    # Whether the day post names who visited a player who died for not voting.
    tells_visitors_of_the_silent: ClassVar[bool] = False
    # The specials whose misses the day post tells, in the order of the night (the reason never told).
    published_misses: ClassVar[tuple[Role, ...]] = ()
    # Whether the day post tells whether the commissar checked a mafioso (never whom).
    publishes_check_kind: ClassVar[bool] = False
    # Whether a check's private result is the target's role (else mafia / not mafia / maniac).
    check_reveals_role: ClassVar[bool] = False
    # Whether a check that finds a mafioso or the maniac kills him (the sheriff's bullet).
    check_shoots: ClassVar[bool] = False
    # Whether a living player who sends no vote pays for it that day (salon: he dies).
    silence_punished: ClassVar[bool] = False

    def __init__(self, options: VariantOptions | None = None) -> None:
        self.options = options if options is not None else self.options_model()

    @classmethod
    def parse_options(cls, raw: dict[str, object] | None) -> VariantOptions:
        """The variant's options model from raw values; the same plain values give the same (frozen) model.

        Options are read every day of a game, so models of plain data (JSON/TOML values) are kept.
        """
        key = _options_key(cls, raw)
        found = _PARSED_OPTIONS.get(key) if key is not None else None
        if found is not None:
            return found
        try:
            parsed = cls.options_model.model_validate(raw or {})
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(x) for x in first["loc"]) or "options"
            message = str(first["msg"]).removeprefix("Value error, ")
            raise RulesError(
                N_("{variant} option {where}: {message}"), variant=cls.name, where=where, message=message
            ) from None
        if key is not None:
            if len(_PARSED_OPTIONS) >= _PARSED_OPTIONS_MAX:
                _PARSED_OPTIONS.clear()
            _PARSED_OPTIONS[key] = parsed
        return parsed

    @property
    def actions(self) -> frozenset[Action]:
        """`vote` and every role's actions (worked out once per variant)."""
        cls = type(self)
        found = _ACTIONS.get(cls)
        if found is None or found[0] is not cls.role_actions:
            acts: set[Action] = {"vote"}
            for a in cls.role_actions.values():
                acts |= a
            found = _ACTIONS[cls] = (cls.role_actions, frozenset(acts))
        return found[1]

    # --- what the players are told ----------------------------------------------------------------
    @property
    def vote_how(self) -> str:
        """How the players vote: "thread" (red bold in the day topic), "pm", or "thread_or_pm"."""
        channels = self.vote_channels
        if channels == {"pm"}:
            return "pm"
        return "thread_or_pm" if "pm" in channels else "thread"

    def clan_of(self, role: Role) -> str | None:
        """The clan whose members know each other that `role` belongs to, if any."""
        return next((clan for clan, roles in self.clans.items() if role in roles), None)

    def death_narrative(self, cause: str) -> str:
        """The code of the narrative a death by `cause` is told with."""
        return self.death_narratives.get(cause, cause)

    def silenced_voter(self, events: Sequence[Event]) -> str | None:
        """The player whose vote of this day is void because of the night's events (default: none)."""
        return None

    def saved_from_silence(self, events: Sequence[Event]) -> list[str]:
        """The players whose vote would have been void but a heal kept it (default: none)."""
        return []

    def gets_role_message(self, player: Player) -> bool:
        """Whether `player` is sent his role at the start (and again after a replacement). Default: every
        player is."""
        return True

    # --- validation of the game itself ---------------------------------------------------------
    def check_roles(self, players: Sequence[Player], *, in_progress: bool = False) -> None:
        """Refuse a player list the variant cannot run (RulesError naming the field and the player)."""
        problems = self.definition_problems(players, in_progress=in_progress)
        if problems:
            raise RulesError(str(problems[0]))

    def definition_problems(self, players: Sequence[Player], *, in_progress: bool = False) -> list[Problem]:
        """What is wrong with a game's players: roles the variant lacks; the boss (exactly one among the mafia
        where the variant has one, none where it has not). A game without mafia (an explicit role list) has
        no mafia to lead, so no boss. `in_progress`: the players of a game past day 1, whose definition was
        checked when it began; its boss may have died unflagged (gameru-3.3 names the next one at once, salon
        plays on without one), so only a second boss is refused there."""
        problems: list[Problem] = []
        mafia: list[Player] = []
        bosses: list[Player] = []
        for p in players:
            if p.role not in self.roles:
                known = ", ".join(sorted(self.roles))
                reason = f"role {p.role!r} ({p.nick}) does not exist in {self.name}; known: {known}"
                problems.append(Problem("players", reason, p.nick))
            if p.role == "mafia":
                mafia.append(p)
            if p.boss:
                bosses.append(p)
        if not self.has_boss:
            problems += [
                Problem("players", f"{p.nick} is marked boss, but the mafia of {self.name} has no boss", p.nick)
                for p in bosses
            ]
            return problems
        problems += [
            Problem("players", f"{p.nick} is marked boss, but only a mafioso can be the boss", p.nick)
            for p in bosses
            if p.role != "mafia"
        ]
        boss_mafia = [p for p in bosses if p.role == "mafia"]
        need = f"{self.name} needs exactly one boss among the mafia"
        if mafia and not boss_mafia and not in_progress:
            problems.append(Problem("players", f"{need}, and no mafioso is marked boss", mafia[0].nick))
        elif len(boss_mafia) > 1:
            names = ", ".join(p.nick for p in boss_mafia)
            reason = f"{need}, and more than one is marked boss: {names}"
            problems.append(Problem("players", reason, boss_mafia[1].nick))
        return problems

    def check_day_input(self, day: int, day_input: DayInput) -> None:
        """Refuse a day's input that contradicts itself (RulesError naming the field and the player)."""
        problems = self.day_input_problems(day_input)
        if problems:
            raise RulesError(N_("day {day}: {value}"), day=day, value=problems[0])

    def day_input_problems(self, day_input: DayInput) -> list[Problem]:
        """A player listed silent (no activity at all that day) who also votes or sends an order; a use of
        the host's powers the variant does not give him, or that contradicts itself."""
        silent = day_input.silent
        if not silent:
            return self.host_power_problems(day_input)
        problems = [
            Problem("silent", f"{v.voter} is listed silent but votes", v.voter)
            for v in day_input.votes
            if v.voter in silent
        ]
        problems += [
            Problem("silent", f"{o.actor} is listed silent but sends an order ({o.action})", o.actor)
            for o in day_input.orders
            if o.actor in silent
        ]
        return problems + self.host_power_problems(day_input)

    def host_power_problems(self, day_input: DayInput) -> list[Problem]:
        """What the day's input alone shows wrong in the host's powers (the game's state is checked when the
        day is resolved): a replacement by an empty nick or by the same one, a removal with no reason or given
        twice; a new maniac, a change of scheme or a best player the variant does not know."""
        problems: list[Problem] = []
        for r in day_input.replacements:
            if not r.new.strip():
                problems.append(Problem("replace", f"the new account for {r.old} has an empty nick", r.old))
            elif r.new == r.old:
                problems.append(Problem("replace", f"{r.old} cannot replace himself", r.old))
        removed: set[str] = set()
        for removal in day_input.removals:
            if not removal.reason.strip():
                problems.append(Problem("remove", f"the removal of {removal.nick} gives no reason", removal.nick))
            if removal.nick in removed:
                problems.append(Problem("remove", f"{removal.nick} is removed twice", removal.nick))
            removed.add(removal.nick)
        maniac = day_input.appoint_maniac
        if maniac is not None and not self.host_recasts:
            reason = f"the host of {self.name} cannot appoint a maniac (only gameru-3.3's host can, seed 001)"
            problems.append(Problem("appoint_maniac", reason, maniac))
        if day_input.scheme and not self.host_recasts:
            reason = f"the host of {self.name} cannot change the scheme (only gameru-3.3's host can, seed 001)"
            problems.append(Problem("scheme", reason, day_input.scheme[0].nick))
        elif day_input.scheme:
            problems += self._scheme_problems(day_input)
        if day_input.best_player is not None:
            refusal = self.best_player_refusal()
            if refusal is not None:
                problems.append(Problem("best_player", refusal, day_input.best_player))
        return problems

    def _scheme_problems(self, day_input: DayInput) -> list[Problem]:
        problems: list[Problem] = []
        named: set[str] = set()
        for change in day_input.scheme:
            nick, role = change.nick, change.role
            if nick in named:
                problems.append(Problem("scheme", f"{nick} is named twice", nick))
            named.add(nick)
            if role not in self.roles:
                known = ", ".join(sorted(self.roles))
                reason = f"role {role!r} ({nick}) does not exist in {self.name}; known: {known}"
                problems.append(Problem("scheme", reason, nick))
            elif role == "maniac":
                reason = f"{nick}: a new maniac is appointed with appoint_maniac, under its own conditions"
                problems.append(Problem("scheme", reason, nick))
            elif change.boss and role != "mafia":
                problems.append(Problem("scheme", f"{nick} is made boss, but only a mafioso can be the boss", nick))
            if nick == day_input.appoint_maniac:
                problems.append(Problem("scheme", f"{nick} is both appointed maniac and named in the scheme", nick))
        return problems

    def best_player_refusal(self) -> str | None:
        """Why this game's host may not name a best player (None: he may). Base: only kozanostra's may."""
        return f"the host of {self.name} names no best player (only a kozanostra game's host does, seed 000)"

    # --- what a player may know (the personal report) and when he has moved (the duel) -----------
    def knows_team(self, viewer: Player, other: Player) -> bool:
        """Whether `viewer` knows `other`'s role as a member of his own clan (`clans`: the team his role
        message lists)."""
        clan = self.clan_of(viewer.role)
        return clan is not None and clan == self.clan_of(other.role)

    def known_roles(
        self, state: GameState, viewer: str, told: Mapping[str, CheckResult] | None = None
    ) -> dict[str, CheckResult]:
        """What `viewer` may know of each player's role, in player-list order; a player absent is unknown
        to him. A pure function of the game state: his own role; his clan's (`knows_team`); every dead
        player's, published with his death; and what his own checks told him (`told`: target -> the
        result he was told; a miss tells nothing). Nobody else's role, whatever else the state holds."""
        me = state.player(viewer)
        told = told or {}
        known: dict[str, CheckResult] = {}
        for p in state.players:
            if me is not None and (p.nick == viewer or not p.alive or (me.alive and self.knows_team(me, p))):
                known[p.nick] = p.role
            elif told.get(p.nick, "miss") != "miss":
                known[p.nick] = told[p.nick]
        return known

    def default_vote(self, player: Player) -> tuple[str, ...]:
        """Whom a living player's vote names while he has sent none (kozanostra: himself). Base: nobody."""
        return ()

    def moves_required(self, player: Player) -> frozenset[Action]:
        """What a living player sends for his turn to count as made (the `duel` schedule): his vote and his
        role's own action; where only the boss orders for the mafia, an ordinary mafioso owes no kill."""
        skipped: set[Action] = {"special"}
        if self.boss_orders and player.role == "mafia" and not player.boss:
            skipped.add("kill")
        vote: set[Action] = {"vote"}
        return frozenset(vote | (self.role_actions.get(player.role, frozenset()) - skipped))

    def missing_moves(
        self, state: GameState, voted: Iterable[str], acted: Iterable[tuple[str, Action]]
    ) -> dict[str, frozenset[Action]]:
        """Each living player who has not moved yet, with what he still owes (empty: everyone has moved).
        `voted`: the players with a valid vote so far; `acted`: (player, action as sent) of each valid order
        so far, the action read as the role's own (`effective_action`: kozanostra's `S nick`)."""
        done: dict[str, set[Action]] = {nick: {"vote"} for nick in voted}
        for nick, action in acted:
            player = state.player(nick)
            effective = self.effective_action(player, action) if player is not None else None
            if effective is not None:
                done.setdefault(nick, set()).add(effective)
        missing: dict[str, frozenset[Action]] = {}
        for p in state.living():
            owed = self.moves_required(p) - done.get(p.nick, set())
            if owed:
                missing[p.nick] = frozenset(owed)
        return missing

    def check_action(self, action: str) -> None:
        if action not in self.actions:
            known = ", ".join(sorted(self.actions))
            raise RulesError(
                N_("action {action!r} does not exist in {variant}; known: {known}"),
                action=action,
                variant=self.name,
                known=known,
            )

    # --- hooks ---------------------------------------------------------------------------------
    def begin_day(self, ctx: DayContext) -> None:
        """Start-of-day bookkeeping. Base: nothing."""

    def departures(self, ctx: DayContext) -> list[tuple[str, str, str]]:
        """The day's departures, in order: (nick, "removed" or "left", the detail for the audit): the host's
        removals (with his reason), then the players who sent `Q`, in player-list order."""
        found = [(r.nick, "removed", r.reason) for r in ctx.day_input.removals]
        leaving = ctx.day_input.leaving & ctx.alive_at_start
        found += [(nick, "left", "left the game") for nick in ctx.players if nick in leaving]
        return found

    def depart(self, ctx: DayContext) -> None:
        """The players the host removes (модкилл) and those who leave (`Q`, as if removed) die now: after the
        day's execution and before the night (cause `inactive`, event `removed_by_host` / `left_game`). One
        who died earlier in the resolution (the execution, a kill, salon's suicide) is not killed again: the
        removal is recorded without effect (`no_effect`, «без последствий»), with the host's reason."""
        for nick, how, detail in self.departures(ctx):
            if ctx.is_alive(nick):
                ctx.kill(nick, "inactive", detail=detail, kind="removed_by_host" if how == "removed" else "left_game")
                continue
            what = f"removal ({detail})" if how == "removed" else "leaving (Q)"
            cause = ctx.recorded_cause(nick)
            died = "was executed" if cause == "executed" else f"died ({cause})"
            said = f"{what}: no effect (без последствий): {nick} {died} first"
            ctx.event("no_effect", target=nick, reason="remove" if how == "removed" else "leaving", detail=said)

    def close_the_night(self, ctx: DayContext, gone: Mapping[str, str]) -> None:
        """`gone` (nick -> "removed" / "left") are dead before the night: the day's orders are collected again,
        theirs and those naming them void (as counts as not sent: an earlier valid order of the same sender
        stands)."""
        if not gone:
            return
        ctx.night_gone = dict(gone)
        ctx.orders.clear()
        ctx.void = [v for v in ctx.void if v.kind != "order"]
        self.collect_orders(ctx)

    def check_host_changes(self, ctx: DayContext) -> None:
        """Refuse (RulesError naming the field) a change of the host's own that is invalid when he makes it,
        judged against the day's roles (`ctx`: the start of the day, after its replacements). Base: none (a
        variant without such changes has refused them with the day's input)."""

    def host_changes(self, ctx: DayContext) -> None:
        """The host's changes that take effect at the start of the next day, applied first in the morning
        (after the day's deaths, before any draw). Base: none."""

    def max_targets(self, day: int, action: Action, player_count: int) -> int:
        """How many players one vote or order may name on this day of a game of `player_count` players:
        a pure function of the options and the count (callers outside the engine ask it too)."""
        return 1

    def inactivity_notes(self, day: int, activity: Mapping[str, Mapping[str, int]], voted: Iterable[str]) -> list[str]:
        """What the rules say about silence today, for the host's audit. `activity`: each living player's
        posts and orders today; `voted`: whose votes counted."""
        notes = []
        minimum = getattr(self.options, "min_posts_per_day", None)
        if minimum:
            few = [n for n, a in activity.items() if a["posts"] < minimum]
            if few:
                notes.append(f"fewer than {minimum} posts today: {', '.join(few)}")
        return notes

    def effective_action(self, player: Player, action: Action) -> Action | None:
        """The action an order stands for (kozanostra maps `special`); None when the role lacks it."""
        if action == "vote" or action in self.role_actions.get(player.role, frozenset()):
            return action
        return None

    def check_order(self, ctx: DayContext, player: Player, action: Action, targets: tuple[str, ...]) -> Reason | None:
        """A variant's extra reason to void an order (None = valid). Base: none."""
        return None

    def order_limit(self, action: Action) -> int | None:
        """How many valid messages per action count (None = no limit)."""
        return None

    def collect_votes(self, ctx: DayContext) -> None:
        alive = ctx.alive_at_start
        single_ok = self.max_targets(ctx.day, "vote", len(ctx.players)) >= 1
        for index, vote in enumerate(ctx.day_input.votes):
            targets = vote.targets
            if single_ok and len(targets) == 1 and vote.voter in alive and targets[0] in alive:
                # The common case, valid for certain: a living voter names one living player.
                ctx.votes[vote.voter] = targets
                ctx.vote_index[vote.voter] = index
                continue
            reason = self._vote_problem(ctx, vote)
            if reason is not None:
                ctx.void.append(_void("vote", vote.voter, "vote", vote.targets, reason, vote.ref))
                continue
            ctx.votes[vote.voter] = vote.targets
            ctx.vote_index[vote.voter] = index

    def _vote_problem(self, ctx: DayContext, vote: Vote) -> Reason | None:
        if vote.voter not in ctx.players:
            if vote.voter in ctx.former:
                return Reason(code="replaced", nick=ctx.former[vote.voter])
            return Reason(code="not_a_player")
        if vote.voter not in ctx.alive_at_start:
            return Reason(code="dead")
        return self._targets_problem(ctx, vote.voter, "vote", vote.targets)

    def _targets_problem(self, ctx: DayContext, actor: str, action: Action, targets: tuple[str, ...]) -> Reason | None:
        limit = self.max_targets(ctx.day, action, len(ctx.players))
        if not targets:
            return Reason(code="names_nobody")
        if len(targets) > limit:
            return Reason(code="too_many_targets", count=len(targets), limit=limit, day=ctx.day)
        if len(targets) == 1:
            if targets[0] in ctx.alive_at_start:  # the common case: one living player
                return None
        elif len(set(targets)) != len(targets):
            return Reason(code="same_twice")
        for t in targets:
            if t not in ctx.players:
                if t in ctx.former:
                    return Reason(code="target_replaced", nick=t, other=ctx.former[t])
                return Reason(code="target_not_player", nick=t)
            if t not in ctx.alive_at_start:
                return Reason(code="target_dead", nick=t)
        return None

    def collect_orders(self, ctx: DayContext) -> None:
        counted: dict[tuple[str, Action], int] = {}
        for index, order in enumerate(ctx.day_input.orders):
            self.check_action(order.action)
            action, reason = self._order_problem(ctx, order)
            if reason is None and action is not None:
                limit = self.order_limit(action)
                n = counted.get((order.actor, action), 0)
                if limit is not None and n >= limit:
                    reason = Reason(code="too_many_changes", limit=limit)
                else:
                    counted[(order.actor, action)] = n + 1
            if reason is not None or action is None:
                ctx.void.append(_void("order", order.actor, order.action, order.targets, reason, order.ref))
                continue
            ctx.orders[(order.actor, action)] = ValidOrder(order.actor, action, order.targets, index)

    def _order_problem(self, ctx: DayContext, order: Order) -> tuple[Action | None, Reason | None]:
        player = ctx.players.get(order.actor)
        if player is None:
            if order.actor in ctx.former:
                return None, Reason(code="replaced", nick=ctx.former[order.actor])
            return None, Reason(code="not_a_player")
        if order.actor not in ctx.alive_at_start:
            return None, Reason(code="dead")
        gone = ctx.night_gone
        if order.actor in gone:
            return None, Reason(code="removed" if gone[order.actor] == "removed" else "left")
        action = self.effective_action(player, order.action)
        if action is None or action == "vote":
            return None, Reason(code="not_her_action", role=player.role, action=order.action)
        problem = self._targets_problem(ctx, order.actor, action, order.targets)
        if problem is not None:
            return action, problem
        for t in order.targets if gone else ():
            if t in gone:
                return action, Reason(code="target_removed" if gone[t] == "removed" else "target_left", nick=t)
        if order.actor in order.targets and (player.role, action) not in self.self_target_ok:
            return action, Reason(code="not_himself", role=player.role, action=action)
        if action in self.no_repeat:
            before = ctx.state.last_targets.get(order.actor, {}).get(action, ())
            repeated = [t for t in order.targets if t in before]
            if repeated:
                return action, Reason(code="same_target_again", nick=repeated[0])
        return action, self.check_order(ctx, player, action, order.targets)

    def default_votes(self, ctx: DayContext) -> None:
        """Votes for players who sent none. Base: nothing."""

    def resolve_phases(self, ctx: DayContext) -> None:
        raise NotImplementedError

    def apply_inactivity(self, ctx: DayContext) -> None:
        """Deaths for silence. Base: nothing."""

    def succession(self, ctx: DayContext) -> None:
        """Roles passed on after the day's deaths. Base: nothing."""

    def winner(self, players: Sequence[Player]) -> Winner:
        raise NotImplementedError

    # --- dealing -------------------------------------------------------------------------------
    def scheme(self, count: int) -> list[Role]:
        """The roles for this many players (any order); raises DealError naming the possible counts."""
        raise DealError(N_("{variant} has no dealing scheme"), variant=self.name)

    def deal_roles(self, count: int) -> list[Role]:
        if self.options.roles is not None:
            if len(self.options.roles) != count:
                raise DealError(
                    N_("the role list has {roles} roles for {count} players"),
                    roles=len(self.options.roles),
                    count=count,
                )
            return list(self.options.roles)
        return self.scheme(count)

    # --- shared helpers for variants -------------------------------------------------------------
    def tally_votes(self, ctx: DayContext, voters: Iterable[str] | None = None) -> dict[str, int]:
        chosen = set(voters) if voters is not None else None
        tally: dict[str, int] = {}
        for voter, targets in ctx.votes.items():
            if chosen is not None and voter not in chosen:
                continue
            for t in targets:
                tally[t] = tally.get(t, 0) + 1
        return tally

    def rank(self, tally: dict[str, int], first_vote: dict[str, int], order: dict[str, int]) -> list[str]:
        """Candidates by most votes; then the one voted for earlier; then earlier in the player list."""
        last = 1 << 30
        return sorted(tally, key=lambda n: (-tally[n], first_vote.get(n, last), order.get(n, last)))

    def leader(self, tally: dict[str, int], first_vote: dict[str, int], order: dict[str, int]) -> str | None:
        """Who leads a running count: the variant's choice among the tied; None while a random draw decides."""
        ranked = self.rank(tally, first_vote, order)
        if not ranked:
            return None
        if self.random_ties and len(self.top_candidates(tally)) > 1:
            return None
        return ranked[0]

    def top_candidates(self, tally: dict[str, int]) -> list[str]:
        if not tally:
            return []
        best = max(tally.values())
        return [n for n, c in tally.items() if c == best]


def _void(
    kind: Literal["vote", "order"],
    actor: str,
    action: Action,
    targets: tuple[str, ...],
    reason: Reason | None,
    ref: str | None,
) -> VoidEntry:
    text = reason.text if reason is not None else ""
    return VoidEntry(kind=kind, actor=actor, action=action, targets=targets, reason=text, ref=ref, why=reason)


def order_targets(ctx: DayContext, actor: str, action: Action) -> tuple[str, ...]:
    found = ctx.order(actor, action)
    return found.targets if found is not None else ()


def plain_check(role: Role) -> CheckResult:
    """gameru-3.3 / salon style: only mafia (and the maniac, for gameru's sheriff) are named."""
    return "mafia" if role == "mafia" else "not_mafia"


def rng_seed(state: GameState, day: int) -> str:
    return f"{state.variant}:{state.seed}:{day}"


def make_rng(state: GameState, day: int) -> random.Random:
    """One RNG per game and day: replaying a day gives the same random choices."""
    return random.Random(rng_seed(state, day))


# Parsed options by variant and plain raw values; bounded, as a host process may see many option sets.
_PARSED_OPTIONS: dict[Hashable, VariantOptions] = {}
_PARSED_OPTIONS_MAX = 256
_ACTIONS: dict[type[Ruleset], tuple[dict[Role, frozenset[Action]], frozenset[Action]]] = {}


class _NotPlain(Exception):
    pass


def _options_key(cls: type[Ruleset], raw: dict[str, object] | None) -> Hashable | None:
    """A hashable key of raw options made only of plain values (None when some value is not plain)."""
    if not raw:
        return (cls, cls.options_model)
    try:
        return (cls, cls.options_model, _freeze(raw))
    except _NotPlain:
        return None


def _freeze(value: Any) -> Hashable:
    # The type is part of the key: `1`, `1.0` and `True` are equal in Python but may validate differently.
    if value is None or type(value) in (str, int, float, bool):
        return (type(value), value)
    if type(value) in (list, tuple):
        return (type(value), tuple(_freeze(v) for v in value))
    if type(value) is dict:
        return (dict, tuple(sorted(((_freeze(k), _freeze(v)) for k, v in value.items()), key=repr)))
    raise _NotPlain


def told_by_checks(events: Iterable[Event]) -> dict[str, dict[str, CheckResult]]:
    """Each checker's results of one day, target -> what he was told, from the outcome's `checked` events
    (a miss with no target is left out: it tells nothing about anybody)."""
    told: dict[str, dict[str, CheckResult]] = {}
    for e in events:
        if e.kind == "checked" and e.actor is not None and e.target is not None:
            told.setdefault(e.actor, {})[e.target] = e.detail
    return told


def told_by_slot(told: Mapping[str, Mapping[str, CheckResult]], state: GameState) -> dict[str, dict[str, CheckResult]]:
    """Each checker's results so far (`told`, earliest days first, by the nicks of their days) under the nicks
    the slots play under in `state`: a replacement keeps the slot's history, the checks it was told and the
    checks of it (RULES: "same history" is the slot's role, votes, orders and check results)."""
    now = {old: p.nick for p in state.players for old in p.replaced}
    slots: dict[str, dict[str, CheckResult]] = {}
    for checker, seen in told.items():
        mine = slots.setdefault(now.get(checker, checker), {})
        for target, result in seen.items():
            mine[now.get(target, target)] = result
    return slots
