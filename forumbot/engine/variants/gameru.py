"""`gameru-3.3` — the gameru.net rules 3.3, "Правила мафии, версия 3.3" (seed 001, see docs/README.md), with
the project's decisions; the rules in English: docs/rules/gameru-3.3.md.

Votes in the day thread; orders by PM: the boss's kill, the sheriff's deadly check, the maniac's kill.
Everything of a day happens at once: an order stands even if its sender is executed or killed that day.

Decisions where the original rules are silent (docs/rules/gameru-3.3.md, "Decisions where the rules are silent"):
- the mafia may name one of its own (only the boss himself is void, as every self-kill);
- a vote may name the voter himself (nothing forbids it);
- on a double-order day an order or a vote may still name just one player;
- a dead sheriff is replaced only if a living civilian remains; the new sheriff takes office at the
  start of the due day (his appointment is announced in the outcome of the day before);
- `replace_maniac` (default off) lets the host have a dead maniac replaced like the sheriff.

The host's own powers (seed 001), both from the start of the next day:
- a new maniac (`appoint_maniac`): a living civilian, when no maniac lives (a maniac the host removes, or who
  leaves, that day does not count) and either no maniac of the game ever appeared (none was dealt, or he never
  sent a valid order as the maniac: «В случае не появления Маньяка»; activity before holding the role does not
  count) or the game has lasted more than 5 days (the appointment follows day 6 or later); event `new_maniac`;
- a change of scheme (`scheme`, «вносить изменения в схемы партий в процессе игры»): new roles for living
  players (a mafioso may be made boss; a new maniac only by appointment, under its conditions); one event
  `role_changed` per player; a boss who loses his role is followed at once by the next mafioso in the list,
  counting those the same change makes mafia.
Both are judged on the day they are made, against that day's roles (`check_host_changes`: refused then, when
the host records them), and applied first in the morning, after the day's deaths and before any draw (the
sheriff's successor is drawn among those who remain civilians). A change the day made moot (the player died,
already holds the role, the day's deaths ended the game, the maniac appeared that day) is recorded as
`no_effect` («без последствий») with its reason and the day resolves. A change that ends the game (the last
mafioso made a civilian) is applied by the day that ends it, and the outcome says the host's change decided it
(`decided_by_host`).

A removal by the host, or a `Q`, takes effect after the day's execution; the day's orders are carried out with
the execution (everything at once), so the removed player's orders stand and orders naming him hit him (he dies
of that cause and the removal has no effect).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, ClassVar

from pydantic import Field

from forumbot.engine.model import (
    Action,
    CheckResult,
    EventKind,
    Player,
    Reason,
    Role,
    RoleChange,
    Winner,
    copies,
    evolve,
)
from forumbot.engine.variants.base import DayContext, Ruleset, VariantOptions, order_targets
from forumbot.errors import N_, DealError, RulesError

# seed 001: a dead maniac is followed by a new one only "если продолжительность партии затягивается свыше 5 дней".
MANIAC_AFTER_DAYS = 5

# Players -> mafia count, from the "New Схемы партий" list (it wins over the older list in the same text).
SCHEMES: dict[range, int] = {
    range(9, 12): 3,
    range(12, 15): 4,
    range(15, 18): 5,
    range(18, 21): 6,
    range(21, 24): 7,
}


def scheme_double_days(count: int) -> list[int]:
    if 18 <= count <= 20:
        return [1]
    if 21 <= count <= 23:
        return [1, 2]
    return []


class GameruOptions(VariantOptions):
    order_changes: int = Field(default=2, ge=0)
    # Days on which orders and votes may name two players; None = from the scheme (by player count).
    double_days: list[Annotated[int, Field(ge=1)]] | None = None
    sheriff_replacement_delay: int = Field(default=2, ge=1)
    inactivity_days: int = Field(default=2, ge=1)
    replace_maniac: bool = False


class Gameru(Ruleset):
    name = "gameru-3.3"
    options_model = GameruOptions
    roles: ClassVar[frozenset[Role]] = frozenset({"civilian", "mafia", "sheriff", "maniac"})
    role_actions: ClassVar[dict[Role, frozenset[Action]]] = {
        "mafia": frozenset({"kill"}),
        "sheriff": frozenset({"check"}),
        "maniac": frozenset({"kill"}),
    }
    random_ties = False
    boss_orders = True  # the gameru rules: the boss's order is the mafia's
    has_boss = True
    host_recasts = True  # seed 001: a new maniac, a change of scheme
    has_nights = False  # seed 001: the day's orders are carried out at its end; there are no nights
    check_shoots = True  # the sheriff's check kills a mafioso or the maniac
    options: GameruOptions

    def double_days(self, player_count: int) -> list[int]:
        if self.options.double_days is not None:
            return self.options.double_days
        return scheme_double_days(player_count)

    def gets_role_message(self, player: Player) -> bool:
        # the gameru rules: "Жители никаких писем не получают" (the mafia, the sheriff and the maniac do)
        return player.role != "civilian"

    # --- hooks ---------------------------------------------------------------------------------
    def begin_day(self, ctx: DayContext) -> None:
        _ensure_boss(ctx)

    def max_targets(self, day: int, action: Action, player_count: int) -> int:
        return 2 if day in self.double_days(player_count) else 1

    def order_limit(self, action: Action) -> int | None:
        return self.options.order_changes + 1

    def check_order(self, ctx: DayContext, player: Player, action: Action, targets: tuple[str, ...]) -> Reason | None:
        if player.role == "mafia" and not player.boss:
            return Reason(code="boss_orders")
        return None

    def resolve_phases(self, ctx: DayContext) -> None:
        self._execute(ctx)
        # The bosses' kills, then the sheriffs' checks, then the maniacs' kills; each in player-list order.
        actors: dict[Role, list[Player]] = {"mafia": [], "sheriff": [], "maniac": []}
        for p in ctx.started_alive(actors):
            actors[p.role].append(p)
        for p in actors["mafia"]:
            if p.boss:
                for target in order_targets(ctx, p.nick, "kill"):
                    ctx.kill(target, "mafia", by=p.nick)
        for p in actors["sheriff"]:
            self._sheriff_check(ctx, p)
        for p in actors["maniac"]:
            for target in order_targets(ctx, p.nick, "kill"):
                ctx.kill(target, "maniac", by=p.nick)
        self.depart(ctx)  # after the execution, carried out with it

    def _execute(self, ctx: DayContext) -> None:
        ctx.tally = self.tally_votes(ctx)
        order = {nick: i for i, nick in enumerate(ctx.players)}
        first_vote: dict[str, int] = {}
        vote_index = ctx.vote_index
        for voter, targets in ctx.votes.items():
            index = vote_index[voter]
            for t in targets:
                if index < first_vote.get(t, 1 << 30):
                    first_vote[t] = index
        ranked = self.rank(ctx.tally, first_vote, order)
        for nick in ranked[: self.max_targets(ctx.day, "vote", len(ctx.players))]:
            ctx.executed.append(nick)
            ctx.kill(nick, "executed", detail=f"{ctx.tally[nick]} votes")
        if not ranked:
            ctx.event("no_execution", detail="no votes", reason="no_votes")

    def _sheriff_check(self, ctx: DayContext, sheriff: Player) -> None:
        order = ctx.order(sheriff.nick, "check")
        if order is None:
            return
        results: list[CheckResult] = []
        for target in order.targets:
            role = ctx.players[target].role
            result: CheckResult = role if role in ("mafia", "maniac") else "not_mafia"
            results.append(result)
            ctx.event("checked", actor=sheriff.nick, target=target, detail=result)
            if result != "not_mafia":
                ctx.kill(target, "sheriff", by=sheriff.nick)
        double = self.max_targets(ctx.day, "check", len(ctx.players)) > 1
        ctx.checks[sheriff.nick] = results if double else results[0]

    def apply_inactivity(self, ctx: DayContext) -> None:
        silent = ctx.day_input.silent
        streaks = ctx.silent_streak
        for nick in [n for n in ctx.players if n in ctx.alive_at_start]:
            streak = streaks.get(nick, 0) + 1 if nick in silent else 0
            streaks[nick] = streak
            # rule 6 (docs/rules/gameru-3.3.md, Inactivity): a sheriff silent all of day 1 dies and is
            # replaced at the start of day 2, whatever else kills him, the streak rule included
            # (inactivity_days 1).
            silent_sheriff = ctx.day == 1 and nick in silent and ctx.players[nick].role == "sheriff"
            if streak >= self.options.inactivity_days:
                ctx.kill(nick, "inactive", detail=f"silent {streak} days")
            elif silent_sheriff:
                ctx.kill(nick, "inactive", detail="the sheriff did not appear on day 1")
            if silent_sheriff:
                ctx.sheriff_due = 2
        for nick in [n for n in streaks if n not in ctx.alive_at_start or n in ctx.causes]:
            del streaks[nick]

    def succession(self, ctx: DayContext) -> None:
        for nick in ctx.causes:  # the dead of today
            role = ctx.players[nick].role
            if role == "sheriff" and ctx.sheriff_due is None:
                ctx.sheriff_due = ctx.day + self.options.sheriff_replacement_delay
            if role == "maniac" and self.options.replace_maniac and ctx.maniac_due is None:
                ctx.maniac_due = ctx.day + self.options.sheriff_replacement_delay
        _ensure_boss(ctx)
        ctx.sheriff_due = _appoint(ctx, "sheriff", ctx.sheriff_due, "new_sheriff")
        ctx.maniac_due = _appoint(ctx, "maniac", ctx.maniac_due, "new_maniac")

    def check_host_changes(self, ctx: DayContext) -> None:
        day_input = ctx.day_input
        appointee = day_input.appoint_maniac
        if appointee is not None:
            problem = _appointment_problem(ctx, appointee)
            if problem is not None:
                raise RulesError(N_("day {day}: appoint_maniac: {problem}"), day=ctx.day, problem=problem)
        for change in day_input.scheme:
            problem = _change_problem(ctx, change)
            if problem is not None:
                raise RulesError(N_("day {day}: scheme: {problem}"), day=ctx.day, problem=problem)

    def host_changes(self, ctx: DayContext) -> None:
        day_input = ctx.day_input
        appointee = day_input.appoint_maniac
        if appointee is None and not day_input.scheme:
            return
        _ensure_boss(ctx)  # the day's dead boss is followed first: his successor may be named in the scheme
        ended = self.winner(ctx.living())
        since = f"from day {ctx.day + 1}"
        changed = False
        for change in day_input.scheme:
            moot = _moot_change(ctx, change, ended)
            if moot is not None:
                what = f"scheme: {change.nick} -> {_role_text(change.role, change.boss)}"
                ctx.event("no_effect", target=change.nick, reason="scheme", detail=f"{what}: {NO_EFFECT}: {moot}")
                continue
            before = ctx.players[change.nick]
            boss = change.boss or (before.boss and change.role == "mafia")
            ctx.set_role(change.nick, change.role, boss=False)
            if boss:
                ctx.set_boss(change.nick)
            was, now = _role_text(before.role, before.boss), _role_text(change.role, boss)
            ctx.event("role_changed", target=change.nick, role=change.role, detail=f"{was} -> {now}, {since}")
            changed = True
        if appointee is not None:
            moot = _moot_appointment(ctx, appointee, ended)
            if moot is not None:
                detail = f"appoint_maniac {appointee}: {NO_EFFECT}: {moot}"
                ctx.event("no_effect", target=appointee, reason="appoint_maniac", detail=detail)
            else:
                ctx.players[appointee] = evolve(ctx.players[appointee], role="maniac", appeared=False)
                ctx.event("new_maniac", target=appointee, role="maniac", detail=f"appointed by the host, {since}")
                changed = True
        _ensure_boss(ctx)
        problems = self.definition_problems(list(ctx.players.values()), in_progress=True)
        if problems:  # never: a change keeps one boss at most
            raise RulesError(N_("day {day}: scheme: {reason}"), day=ctx.day, reason=problems[0].reason)
        decided = self.winner(ctx.living())
        if changed and decided != "none":
            ctx.event("decided_by_host", detail=f"the host's change of roles decided the game: {decided}")

    def winner(self, players: Sequence[Player]) -> Winner:
        mafia = maniac = 0
        for p in players:
            if p.role == "mafia":
                mafia += 1
            elif p.role == "maniac":
                maniac += 1
        town = len(players) - mafia - maniac
        if not players:
            return "draw"
        if mafia == 0 and maniac == 0:
            return "town"
        if town == 0 and maniac == 0:
            return "mafia"
        if town == 0 and mafia == 0:
            return "maniac"
        if (mafia, town, maniac) in {(1, 1, 0), (1, 0, 1), (0, 1, 1)}:
            return "draw"
        return "none"

    def scheme(self, count: int) -> list[Role]:
        for players, mafia in SCHEMES.items():
            if count in players:
                roles = copies("mafia", mafia) + ["sheriff"] + copies("maniac", 1 if count >= 15 else 0)
                return roles + copies("civilian", count - len(roles))
        raise DealError(
            N_(
                "gameru-3.3 has no scheme for {count} players: possible counts are 9 to 23 "
                "(or give an explicit role list)"
            ),
            count=count,
        )


NO_EFFECT = "no effect (без последствий)"


def _living_player(ctx: DayContext, nick: str) -> str | None:
    """Why `nick` is not a living player of the day (None: he is)."""
    if nick not in ctx.players:
        if nick in ctx.former:
            return f"{nick} was replaced by {ctx.former[nick]}: name the player {ctx.former[nick]}"
        return f"{nick} is not a player"
    if not ctx.players[nick].alive:
        return f"{nick} is dead"
    return None


def _appointment_problem(ctx: DayContext, nick: str) -> str | None:
    """Why the host may not make `nick` the maniac, judged on the day he does it (None: he may). Whether a
    maniac still lives is judged at the day's end (he may die that day: the appointment then takes effect)."""
    problem = _living_player(ctx, nick)
    if problem is not None:
        return problem
    if ctx.players[nick].role != "civilian":
        return f"{nick} is not a civilian: the new maniac is a living civilian"
    if _maniac_appeared(ctx) and ctx.day <= MANIAC_AFTER_DAYS:
        return _too_early(ctx.day)
    return None


def _maniac_appeared(ctx: DayContext) -> bool:
    return any(p.appeared for p in ctx.players.values() if p.role == "maniac")


def _too_early(day: int) -> str:
    return (
        f"the maniac appeared in the game and is dead, and the game has lasted {day} days: a new maniac "
        f"needs more than {MANIAC_AFTER_DAYS} days (seed 001), unless no maniac appeared"
    )


def _change_problem(ctx: DayContext, change: RoleChange) -> str | None:
    """Why the host may not give `change.nick` his new role, judged on the day he does it (None: he may)."""
    problem = _living_player(ctx, change.nick)
    if problem is not None:
        return problem
    return _holds(ctx.players[change.nick], change)


def _holds(p: Player, change: RoleChange) -> str | None:
    if p.role == change.role and (p.boss or not change.boss):
        return f"{change.nick} is already {_role_text(p.role, p.boss)}"
    return None


def _moot(ctx: DayContext, nick: str, ended: Winner) -> str | None:
    """What the day did that leaves no next day, or `nick` dead at its end (None: neither)."""
    if ended != "none":
        return f"the game ended on day {ctx.day} ({ended}): there is no next day"
    p = ctx.players[nick]
    if not p.alive:
        return f"{nick} died on day {ctx.day} ({p.death_cause})"
    return None


def _moot_change(ctx: DayContext, change: RoleChange, ended: Winner) -> str | None:
    """Why the day made a change of scheme moot (None: it takes effect)."""
    return _moot(ctx, change.nick, ended) or _holds(ctx.players[change.nick], change)


def _moot_appointment(ctx: DayContext, nick: str, ended: Winner) -> str | None:
    """Why the day made an appointment moot (None: it takes effect)."""
    moot = _moot(ctx, nick, ended)
    if moot is not None:
        return moot
    if ctx.players[nick].role != "civilian":
        return f"{nick} is no longer a civilian"
    living = [p.nick for p in ctx.players.values() if p.role == "maniac" and p.alive]
    if living:
        return f"a maniac still lives ({', '.join(living)}): the game has one maniac at a time"
    if _maniac_appeared(ctx) and ctx.day <= MANIAC_AFTER_DAYS:
        return f"the maniac appeared on day {ctx.day}: a new maniac needs more than {MANIAC_AFTER_DAYS} days"
    return None


def _role_text(role: Role, boss: bool) -> str:
    return f"{role} boss" if boss else role


def _ensure_boss(ctx: DayContext) -> None:
    """If the boss is dead, the first living mafioso in the player list becomes boss at once."""
    first: Player | None = None
    for p in ctx.living(["mafia"]):
        if p.boss:
            return
        if first is None:
            first = p
    if first is not None:
        ctx.set_boss(first.nick)
        ctx.event("new_boss", target=first.nick, role="mafia")


def _appoint(ctx: DayContext, role: Role, due: int | None, kind: EventKind) -> int | None:
    """Appoint a replacement when tomorrow is the due day: a random living civilian takes the role."""
    if due is None or due > ctx.day + 1:
        return due
    if ctx.living([role]):
        return None
    civilians = ctx.living(["civilian"])
    if not civilians:
        return None
    heir = ctx.rng.choice(civilians)
    ctx.set_role(heir.nick, role)
    ctx.event(kind, target=heir.nick, role=role, detail=f"from day {ctx.day + 1}")
    return None
