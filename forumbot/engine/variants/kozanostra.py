"""`kozanostra` — the kozanostra PBeM server's rules (seed 000, see docs/README.md), with the project's
decisions; the rules in English: docs/rules/kozanostra.md.

A turn: (1) jail by votes (a player who sends no vote votes for himself); (2) checks by the commissar
and the lawyer (exact role; a ninja looks like a civilian); (3) night: mafia, yakuza, maniac and sheriff
shoot at once and the reanimator saves one player. On turn 1 the players silent since turn 0 die after
the normal turn and their special roles pass to random living civilians.

Only jail stops an action (and a removal by the host, or a `Q`, which take effect right after it): a jailed
player takes no part in the checks and the night (a jailed checker gets `miss`). Every other player killed
during the turn still has its vote and orders carried out (docs/rules/common.md, common to all variants): one
shot in the night still shoots and still learns his check; one autokilled after the turn still has his vote
counted in the jail (having sent nothing since turn 0, that is his default vote for himself, and he sent no
orders).

Decisions where the original rules are silent (docs/rules/kozanostra.md, "Decisions where the rules are
silent"):
- a mafioso (or yakuza) whose kill order names himself abstains (the server's rules: "мафиози,
  голосующие за себя - в голосовании не участвуют"): that order is valid and, being the latest, replaces an earlier one;
- a clan in which every free member abstains does not shoot (no miss);
- maniac and sheriff shots at a player jailed that turn miss, as the clans' do;
- check results are read at the end of the turn, so a commissar checking a civilian who inherits a role
  in the autokill learns the new role (the server's rules);
- the personal morning report (an option of the game) shows a player his own role, his clan's (the
  mafia's, or the yakuza's with its ninja; the lawyer knows no clan and no clan knows him), the roles of
  the dead and jailed (published), and what his own checks told him (a ninja as a civilian); nothing else;
- the `duel` schedule: a player has moved when his vote and his role's own order (`S nick`) have arrived;
- a removal by the host, or a `Q` (as if removed), takes effect after the jail and before the checks and the
  night: his vote counts, his orders of the turn and those naming him are void (collected again without them:
  an earlier valid order stands); a special so removed passes his role on like the autokill's, to a random
  civilian alive after every death of the turn (one removed that turn inherits nothing); a jailed one is jailed
  and the removal has no effect;
- dealing: `mafia` games have a quarter of the players as mafia (at least one) and a commissar; `neapol`
  a third as mafia, a commissar and a reanimator; `kozanostra` as `mafia`; the optional roles are added
  by the options' counts.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import ClassVar, Literal

from pydantic import Field

from forumbot.engine.model import Action, Cause, CheckResult, Player, Role, Winner, copies
from forumbot.engine.variants.base import DayContext, Ruleset, VariantOptions
from forumbot.errors import N_, DealError

CLANS: dict[Cause, frozenset[Role]] = {
    "mafia": frozenset({"mafia"}),
    "yakuza": frozenset({"yakuza", "ninja"}),
}
MAX_PLAYERS = 20


class KozanostraOptions(VariantOptions):
    game_type: Literal["mafia", "neapol", "kozanostra"] = "mafia"
    self_vote_default: bool = True
    autokill_turn: int = 1
    # Optional roles the dealer adds to the game type's base scheme.
    maniac: int = Field(default=0, ge=0)
    sheriff: int = Field(default=0, ge=0)
    lawyer: int = Field(default=0, ge=0)
    yakuza: int = Field(default=0, ge=0)
    ninja: int = Field(default=0, ge=0)
    reanimator: int = Field(default=0, ge=0)


class Kozanostra(Ruleset):
    name = "kozanostra"
    options_model = KozanostraOptions
    vote_channels: ClassVar[frozenset[str]] = frozenset({"thread", "pm"})  # the server's rules: "V ник" by PM too
    roles: ClassVar[frozenset[Role]] = frozenset(
        {"civilian", "mafia", "commissar", "sheriff", "reanimator", "maniac", "lawyer", "yakuza", "ninja"}
    )
    role_actions: ClassVar[dict[Role, frozenset[Action]]] = {
        "mafia": frozenset({"kill", "special"}),
        "yakuza": frozenset({"kill", "special"}),
        "ninja": frozenset({"kill", "special"}),
        "maniac": frozenset({"kill", "special"}),
        "sheriff": frozenset({"kill", "special"}),
        "commissar": frozenset({"check", "special"}),
        "lawyer": frozenset({"check", "special"}),
        "reanimator": frozenset({"heal", "special"}),
    }
    self_target_ok: ClassVar[frozenset[tuple[Role, Action]]] = frozenset(
        {("mafia", "kill"), ("yakuza", "kill"), ("ninja", "kill")}
    )
    # The server's newspaper (seed 000): "честный житель", the jail, the autokill.
    role_titles: ClassVar[dict[Role, str]] = {"civilian": "honest_civilian"}
    death_narratives: ClassVar[dict[str, str]] = {"executed": "jailed", "inactive": "autokill"}
    check_reveals_role = True  # the commissar learns the target's role
    options: KozanostraOptions

    def inactivity_notes(self, day: int, activity: Mapping[str, Mapping[str, int]], voted: Iterable[str]) -> list[str]:
        notes = super().inactivity_notes(day, activity, voted)
        if day == self.options.autokill_turn:
            sleepers = [n for n, a in activity.items() if a["posts"] == 0 and a["orders"] == 0]
            if sleepers:
                notes.append(f"no sign of life between turns 0 and 1 (autokill): {', '.join(sleepers)}")
        return notes

    def best_player_refusal(self) -> str | None:
        # seed 000: in a `kozanostra` game «По окончании игры ведущий определяет лучшего игрока и передает ему
        # статус ведущего на следующую игру»; the other game types have no such custom.
        if self.options.game_type == "kozanostra":
            return None
        return f"the best player is named only in a game of type kozanostra (this one is {self.options.game_type})"

    def default_vote(self, player: Player) -> tuple[str, ...]:
        return (player.nick,) if self.options.self_vote_default else ()

    def effective_action(self, player: Player, action: Action) -> Action | None:
        found = super().effective_action(player, action)
        if found != "special":
            return found
        # `S nick` is the role's own action.
        own = self.role_actions.get(player.role, frozenset()) - {"special"}
        return min(own, default=None)  # each role has one; `min`, as a set's order changes between processes

    def default_votes(self, ctx: DayContext) -> None:
        if not self.options.self_vote_default:
            return
        # In player-list order: the tally and the counted votes keep it, and they reach the published count.
        alive = ctx.alive_at_start
        base = len(ctx.day_input.votes)
        for i, nick in enumerate(ctx.players):
            if nick in alive and nick not in ctx.votes:
                ctx.votes[nick] = (nick,)
                ctx.vote_index[nick] = base + i

    def resolve_phases(self, ctx: DayContext) -> None:
        jailed = self._jail(ctx)
        # A removal (or `Q`) takes effect after the jail and before the night: the departing are dead at night.
        gone = {nick: how for nick, how, _ in self.departures(ctx) if nick not in jailed}
        self.close_the_night(ctx, gone)
        self.depart(ctx)
        free = set(ctx.alive_at_start) - jailed - set(gone)
        checks = self._checks(ctx, free)
        self._night(ctx, jailed, free)
        sleepers = self._autokill(ctx) if ctx.day == self.options.autokill_turn else []
        self._pass_roles(ctx, [*sleepers, *(p for p in ctx.players.values() if p.nick in gone)])
        for checker, target in checks.items():
            ctx.checks[checker] = "miss" if target is None else _seen_role(ctx.players[target].role)
            ctx.event("checked", actor=checker, target=target, detail=str(ctx.checks[checker]))

    def _jail(self, ctx: DayContext) -> set[str]:
        ctx.tally = self.tally_votes(ctx)
        tied = sorted(self.top_candidates(ctx.tally), key=list(ctx.players).index)
        if not tied:
            ctx.event("no_execution", detail="no votes", reason="no_votes")
            return set()
        nick = tied[0] if len(tied) == 1 else ctx.rng.choice(tied)
        ctx.executed.append(nick)
        ctx.kill(nick, "executed", detail=f"{ctx.tally[nick]} votes")
        return {nick}

    def _checks(self, ctx: DayContext, free: set[str]) -> dict[str, str | None]:
        """Checker -> target whose role he will learn (None: a miss: the checker or his target was jailed)."""
        result: dict[str, str | None] = {}
        for p in ctx.started_alive(["commissar", "lawyer"]):
            order = ctx.order(p.nick, "check")
            if order is None:
                continue
            target = order.targets[0]
            result[p.nick] = target if p.nick in free and target in free else None
        return result

    def _night(self, ctx: DayContext, jailed: set[str], free: set[str]) -> None:
        shots: list[tuple[str, Cause, str]] = []  # (target, cause, shooter)
        for cause, members in CLANS.items():
            shots += self._clan_shot(ctx, cause, members, jailed, free)
        lone: tuple[tuple[Role, Cause], ...] = (("maniac", "maniac"), ("sheriff", "sheriff"))
        for role, cause in lone:
            for p in ctx.started_alive([role]):
                order = ctx.order(p.nick, "kill")
                if p.nick not in free or order is None:
                    continue
                target = order.targets[0]
                if target in jailed:
                    ctx.event("missed", actor=p.nick, target=target, role=p.role, detail="target was jailed")
                else:
                    shots.append((target, cause, p.nick))
        saved = self._saved(ctx, free)
        for target, cause, shooter in shots:
            if target in saved:
                ctx.event("saved", actor=saved[target], target=target, cause=cause, detail=f"shot by {shooter}")
            else:
                ctx.kill(target, cause, by=shooter)

    def _clan_shot(
        self, ctx: DayContext, cause: Cause, members: frozenset[Role], jailed: set[str], free: set[str]
    ) -> list[tuple[str, Cause, str]]:
        shooters = [p for p in ctx.started_alive(members) if p.nick in free]
        if not shooters:
            return []
        named: dict[str, str] = {}
        for p in shooters:
            order = ctx.order(p.nick, "kill")
            if order is not None and order.targets[0] != p.nick:
                named[p.nick] = order.targets[0]
        targets = set(named.values())
        if not targets:
            ctx.event("abstained", actor=cause, detail=f"no {cause} kill order")
            return []
        if len(targets) > 1:
            ctx.event("missed", actor=cause, detail=f"the {cause} named different players: {sorted(targets)}")
            return []
        target = targets.pop()
        if target in jailed:
            ctx.event("missed", actor=cause, target=target, detail="target was jailed")
            return []
        return [(target, cause, ", ".join(sorted(named)))]

    def _saved(self, ctx: DayContext, free: set[str]) -> dict[str, str]:
        saved: dict[str, str] = {}
        for p in ctx.started_alive(["reanimator"]):
            order = ctx.order(p.nick, "heal")
            if p.nick in free and order is not None:
                saved[order.targets[0]] = p.nick
        return saved

    def _autokill(self, ctx: DayContext) -> list[Player]:
        """The players silent since turn 0 die after the normal turn; returns them."""
        sleepers = [p for p in ctx.living() if p.nick in ctx.day_input.silent]
        for p in sleepers:
            ctx.kill(p.nick, "inactive", detail="no activity between turns 0 and 1 (autokill)")
        return sleepers

    def _pass_roles(self, ctx: DayContext, dead: list[Player]) -> None:
        """The special role of each player autokilled, removed by the host or leaving this turn passes to a
        random living civilian (after every death of the turn: one removed this turn inherits nothing)."""
        for p in dead:
            if p.role == "civilian":
                continue
            civilians = ctx.living(["civilian"])
            if not civilians:
                break
            heir = ctx.rng.choice(civilians)
            ctx.set_role(heir.nick, p.role)
            ctx.event("inherited", actor=p.nick, target=heir.nick, role=p.role)

    def winner(self, players: Sequence[Player]) -> Winner:
        if not players:
            return "draw"
        roles = [p.role for p in players]
        if not any(r in ("mafia", "yakuza", "ninja", "maniac") for r in roles):
            return "town"
        mafia = sum(r in ("mafia", "lawyer") for r in roles)
        yakuza = sum(r in ("yakuza", "ninja") for r in roles)
        if mafia > len(roles) - mafia:
            return "mafia"
        if yakuza > len(roles) - yakuza:
            return "yakuza"
        if roles == ["maniac"]:
            return "maniac"
        return "none"

    def scheme(self, count: int) -> list[Role]:
        o = self.options
        share = 3 if o.game_type == "neapol" else 4
        counts: dict[Role, int] = {
            "maniac": o.maniac,
            "sheriff": o.sheriff,
            "lawyer": o.lawyer,
            "yakuza": o.yakuza,
            "ninja": o.ninja,
            "reanimator": o.reanimator + (1 if o.game_type == "neapol" else 0),
        }
        extra: list[Role] = [role for role, n in counts.items() for _ in range(n)]
        fixed = 1 + 1 + len(extra)  # at least one mafioso, the commissar, the extras
        smallest = fixed + 1  # and at least one civilian
        if not smallest <= count <= MAX_PLAYERS:
            raise DealError(
                N_("kozanostra ({kind}) with these roles needs {smallest} to {largest} players, not {count}"),
                kind=o.game_type,
                smallest=smallest,
                largest=MAX_PLAYERS,
                count=count,
            )
        mafia = min(max(1, count // share), count - fixed)
        roles = copies("mafia", mafia) + ["commissar"] + extra
        return roles + copies("civilian", count - len(roles))


def _seen_role(role: Role) -> CheckResult:
    return "civilian" if role == "ninja" else role
