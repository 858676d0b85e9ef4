"""`salon` — the salon rules, a forum game with doctor and hetaera (seed 003, see docs/README.md), with the
project's decisions; the rules in English: docs/rules/salon.md.

Votes come by PM and are compulsory. The night runs in a fixed order, each step depending on the one
before: maniac -> hetaera -> mafia -> doctor -> commissar -> (the non-voters die) -> execution.

The mafia may name another of its own, but a kill order naming its own sender is void like every
self-kill: a boss who names himself has sent no valid order (the mafia misses), an ordinary mafioso who
names himself has sent nothing (no miss); being void, such an order replaces no earlier one.

Decisions where the original rules are silent (docs/rules/salon.md, "Decisions where the rules are silent"):
- the hetaera does not block the maniac (the salon rules: she blocks only doctor, commissar and the boss's kill);
- with no boss alive every living mafioso must send the same target: one who sends nothing is a miss;
- the non-voters die after the commissar's check and before the execution, so a non-voter cannot be
  executed (the leader died during the night: nobody is executed);
- a tie for the execution is drawn among the tied before the rule "leader died in the night" applies;
- a special who sends no order "missed" (the salon rules: the host writes "Доктор промахнулся" also then).

The host's powers (docs/rules/common.md, "The host's powers"; docs/rules/salon.md): "never the same target two
nights running" follows the slot (a replacement makes no new target: `apply_replacements` renames the last
targets); a removal, or a `Q`, takes effect after the execution, the last step of the night order (after the
day's execution and before the next night): the removed player's vote and night orders of the day stand, and one
who died earlier in the resolution dies of that, the removal without effect.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import ClassVar

from pydantic import Field

from forumbot.engine.model import Action, Event, Player, Role, Winner, copies
from forumbot.engine.variants.base import DayContext, Ruleset, VariantOptions, plain_check
from forumbot.errors import N_, DealError

SPECIALS: tuple[Role, ...] = ("commissar", "doctor", "maniac", "hetaera")


class SalonOptions(VariantOptions):
    # A share of the players alive at the start of the day: in (0, 1].
    execution_threshold: float = Field(default=0.25, gt=0, le=1)
    # the salon rules' "ПРАВИЛО 3 ПОСТОВ": shown in the audit, never a death.
    min_posts_per_day: int = Field(default=3, ge=0)


class Salon(Ruleset):
    name = "salon"
    options_model = SalonOptions
    vote_channels: ClassVar[frozenset[str]] = frozenset({"pm"})  # the salon rules: "Расстреливаю — ник" by PM
    roles: ClassVar[frozenset[Role]] = frozenset({"civilian", "mafia", *SPECIALS})
    role_actions: ClassVar[dict[Role, frozenset[Action]]] = {
        "mafia": frozenset({"kill"}),
        "commissar": frozenset({"check"}),
        "doctor": frozenset({"heal"}),
        "maniac": frozenset({"assault"}),
        "hetaera": frozenset({"sleep"}),
    }
    self_target_ok: ClassVar[frozenset[tuple[Role, Action]]] = frozenset({("doctor", "heal"), ("commissar", "check")})
    no_repeat: ClassVar[frozenset[Action]] = frozenset({"assault", "sleep", "kill", "heal", "check"})
    has_boss = True
    # Seed 003's day post: the town shoots, the silent kill themselves (and who visited them is told),
    # the specials' misses in the night's order, and whether the commissar checked a mafioso.
    death_narratives: ClassVar[dict[str, str]] = {"executed": "shot_by_town", "inactive": "suicide"}
    tells_visitors_of_the_silent = True
    published_misses: ClassVar[tuple[Role, ...]] = ("hetaera", "mafia", "doctor", "commissar")
    publishes_check_kind = True
    silence_punished = True  # seed 003: who sends no vote kills himself
    options: SalonOptions

    def silenced_voter(self, events: Sequence[Event]) -> str | None:
        """The maniac's victim, unless the doctor healed him, loses his vote (seed 003)."""
        attacked = next((e.target for e in events if e.kind == "attacked"), None)
        healed = any(e.kind == "saved" and e.target == attacked and e.cause is None for e in events)
        return None if healed else attacked

    def saved_from_silence(self, events: Sequence[Event]) -> list[str]:
        return [e.target for e in events if e.kind == "saved" and e.cause is None and e.target]

    def inactivity_notes(self, day: int, activity: Mapping[str, Mapping[str, int]], voted: Iterable[str]) -> list[str]:
        notes = super().inactivity_notes(day, activity, voted)
        counted = set(voted)
        no_vote = [n for n in activity if n not in counted]
        if no_vote:
            notes.append(f"sent no valid vote by PM (dies this night): {', '.join(no_vote)}")
        return notes

    def resolve_phases(self, ctx: DayContext) -> None:
        non_voters = [n for n in _in_list_order(ctx, ctx.alive_at_start) if n not in ctx.votes]
        assaulted = self._maniac(ctx)
        slept_with = self._hetaera(ctx)
        heal = self._heal_target(ctx, assaulted, slept_with)
        if assaulted is not None and assaulted == heal:
            ctx.event("saved", target=assaulted, detail="the doctor freed him from the maniac")
        blocked = {n for n in (assaulted,) if n is not None and n != heal} | set(slept_with)
        killed = self._mafia(ctx, blocked, heal, non_voters)
        self._commissar(ctx, slept_with, killed)
        for nick in non_voters:
            if ctx.is_alive(nick):
                ctx.kill(nick, "inactive", detail="sent no vote" + _visitors(ctx, nick))
        for p in ctx.started_alive(["maniac"]):
            if ctx.order(p.nick, "assault") is None and ctx.is_alive(p.nick):
                ctx.kill(p.nick, "inactive", detail="the maniac assaulted nobody")
        self._execution(ctx, silenced=assaulted if assaulted != heal else None)
        self.depart(ctx)  # after the day's execution (salon's comes last, in the morning), before the next night

    def _maniac(self, ctx: DayContext) -> str | None:
        for p in ctx.started_alive(["maniac"]):
            order = ctx.order(p.nick, "assault")
            if order is not None:
                ctx.event("attacked", actor=p.nick, target=order.targets[0], role="maniac")
                return order.targets[0]
        return None

    def _hetaera(self, ctx: DayContext) -> list[str]:
        visited: list[str] = []
        for p in ctx.started_alive(["hetaera"]):
            order = ctx.order(p.nick, "sleep")
            if order is None:
                ctx.event("missed", actor=p.nick, role="hetaera", detail="no order")
                continue
            visited.append(order.targets[0])
            ctx.event("blocked", actor=p.nick, target=order.targets[0], role="hetaera")
        return visited

    def _heal_target(self, ctx: DayContext, assaulted: str | None, slept_with: list[str]) -> str | None:
        """The doctor's effective heal: lost to the hetaera's visit, or the maniac's (unless self-healed)."""
        for p in ctx.started_alive(["doctor"]):
            order = ctx.order(p.nick, "heal")
            if order is None:
                ctx.event("missed", actor=p.nick, role="doctor", detail="no order")
                continue
            target = order.targets[0]
            if p.nick in slept_with:
                ctx.event("missed", actor=p.nick, target=target, role="doctor", detail="blocked by the hetaera")
            elif p.nick == assaulted and target != p.nick:
                ctx.event("missed", actor=p.nick, target=target, role="doctor", detail="assaulted by the maniac")
            else:
                # Recorded even when nobody needed it: the host names every visitor of a suicide (the salon rules).
                ctx.event("healed", actor=p.nick, target=target, role="doctor")
                return target
        return None

    def _mafia(self, ctx: DayContext, blocked: set[str], heal: str | None, non_voters: list[str]) -> str | None:
        """The mafia kill; returns who the mafia killed (None: miss or saved)."""
        target, why = self._mafia_target(ctx, blocked, non_voters)
        if target is None:
            ctx.event("missed", actor="mafia", role="mafia", detail=why)
            return None
        if target == heal:
            ctx.event("saved", target=target, cause="mafia", detail="healed by the doctor")
            ctx.event("missed", actor="mafia", role="mafia", target=target, detail="the doctor healed the target")
            return None
        ctx.kill(target, "mafia", by="mafia")
        return target

    def _mafia_target(self, ctx: DayContext, blocked: set[str], non_voters: list[str]) -> tuple[str | None, str]:
        mafia = ctx.started_alive(["mafia"])
        named = {p.nick: o.targets[0] for p in mafia if (o := ctx.order(p.nick, "kill")) is not None}
        boss = ctx.boss()
        if boss is not None:
            if boss.nick in non_voters:
                return None, "the boss sent no vote"
            if boss.nick in blocked:
                return None, "the boss was visited"
            if boss.nick not in named:
                return None, "the boss sent no order"
            target = named[boss.nick]
        else:
            if not mafia or any(p.nick not in named for p in mafia):
                return None, "without a boss every mafioso must name the target"
            target = named[mafia[0].nick]
        if any(t != target for t in named.values()):
            return None, "mafiosi named different players"
        return target, ""

    def _commissar(self, ctx: DayContext, slept_with: list[str], killed: str | None) -> None:
        for p in ctx.started_alive(["commissar"]):
            order = ctx.order(p.nick, "check")
            if order is None:
                ctx.event("missed", actor=p.nick, role="commissar", detail="no order")
                continue
            target = order.targets[0]
            if p.nick in slept_with:
                result, why = "miss", "blocked by the hetaera"
            elif target == killed:
                result, why = "miss", "the target was killed by the mafia"
            else:
                result, why = plain_check(ctx.players[target].role), ""
            ctx.checks[p.nick] = result
            ctx.event(
                "checked" if result != "miss" else "missed",
                actor=p.nick,
                target=target,
                role="commissar",
                detail=why or result,
            )

    def _execution(self, ctx: DayContext, silenced: str | None) -> None:
        voters = [n for n in ctx.votes if n != silenced]
        ctx.tally = self.tally_votes(ctx, voters)
        tied = sorted(self.top_candidates(ctx.tally), key=list(ctx.players).index)
        needed = self.options.execution_threshold * len(ctx.alive_at_start)
        if not tied:
            ctx.event("no_execution", detail="no votes", reason="no_votes")
            return
        leader = tied[0] if len(tied) == 1 else ctx.rng.choice(tied)
        if ctx.tally[leader] < needed:
            ctx.event(
                "no_execution",
                target=leader,
                detail=f"{ctx.tally[leader]} votes, {needed:g} needed",
                reason="threshold",
                votes=ctx.tally[leader],
                needed=needed,
            )
        elif not ctx.is_alive(leader):
            ctx.event("no_execution", target=leader, detail="the leader died in the night", reason="leader_dead")
        else:
            ctx.executed.append(leader)
            ctx.kill(leader, "executed", detail=f"{ctx.tally[leader]} votes")

    def winner(self, players: Sequence[Player]) -> Winner:
        if not players:
            return "draw"
        mafia = sum(p.role == "mafia" for p in players)
        maniac = sum(p.role == "maniac" for p in players)
        if mafia == 0 and maniac == 0:
            return "town"
        if maniac and len(players) <= 2:
            return "maniac"
        if maniac == 0 and mafia >= len(players) - mafia:
            return "mafia"
        return "none"

    def scheme(self, count: int) -> list[Role]:
        if count < 4:
            raise DealError(
                N_("salon needs at least 4 players (mafia, commissar, doctor, a civilian), not {count}"), count=count
            )
        mafia = math.ceil(count * 0.25)
        roles = copies("mafia", mafia)
        # The specials while the numbers allow: at least one plain civilian stays.
        for special in SPECIALS:
            if count - len(roles) - 1 >= 1:
                roles.append(special)
        return roles + copies("civilian", count - len(roles))


def _in_list_order(ctx: DayContext, nicks: frozenset[str]) -> list[str]:
    return [n for n in ctx.players if n in nicks]


def _visitors(ctx: DayContext, nick: str) -> str:
    """The salon rules: when a player kills himself, the host announces who visited him that night."""
    who = [e.role or e.actor or "" for e in ctx.events if e.target == nick and e.kind in ("attacked", "blocked")]
    return f"; visited by {', '.join(who)}" if who else ""
