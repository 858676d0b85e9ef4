"""The personal morning report (seed 000's «утренняя газета»): one PM per living player after each day.

    render_reports(config, outcome, told)         every living player's report of the day just resolved
    render_report(config, outcome, nick, told)    one player's
    told_so_far(outcomes)                         each checker's results so far, from the days' outcomes

What a player may know comes from the engine (`Ruleset.known_roles`): his own role, his clan's, the roles of
the dead and the jailed (published with their deaths), and what his own checks told him; every other player
shows only whether he is alive. The rest is what the day's post publishes anyway (the count of the votes,
the living mafiosi) or his own (his clan, his own checks). A game turns the reports on with `[reports]`.

The template (`templates/report/morning.bbcode.j2`, or the host's `[templates] report`, sandboxed like the
day's) has a `subject` block (plain text) and the body; every value it prints is escaped for BBCode.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from forumbot.config import GameConfig
from forumbot.engine.day import ruleset_for
from forumbot.engine.model import CheckResult, DayOutcome, GameState, Player
from forumbot.engine.variants.base import Ruleset, told_by_checks, told_by_slot
from forumbot.render.bbcode import unescape
from forumbot.render.environment import load_template, render_template, tidy
from forumbot.render.messages import Message
from forumbot.render.phrases import role_name

REPORT_TEMPLATE = "report/morning.bbcode.j2"
Told = Mapping[str, Mapping[str, CheckResult]]


@dataclass(frozen=True)
class Resident:
    """One line of «Статус Жителей»: `role` only where the reader may know it."""

    nick: str
    status: str  # alive | jailed_now | jailed | killed_now | left_now | removed_now | dead
    role: str | None  # in Russian


@dataclass(frozen=True)
class VoteLine:
    target: str
    count: int
    jailed: bool


@dataclass(frozen=True)
class CheckNews:
    target: str | None  # None: the check did not take place
    result: str  # the role learned (in Russian), or "" for a miss


def told_so_far(outcomes: Iterable[DayOutcome]) -> dict[str, dict[str, CheckResult]]:
    """Each checker's results over the given days (earliest first): target -> what he was told last."""
    told: dict[str, dict[str, CheckResult]] = {}
    for outcome in outcomes:
        for checker, seen in told_by_checks(outcome.events).items():
            told.setdefault(checker, {}).update(seen)
    return told


def _status(player: Player, day: int, gone: Mapping[str, str]) -> str:
    if player.alive:
        return "alive"
    jailed = player.death_cause == "executed"
    if player.death_day == day:
        return gone.get(player.nick) or ("jailed_now" if jailed else "killed_now")
    return "jailed" if jailed else "dead"


def _residents(rules: Ruleset, outcome: DayOutcome, nick: str, told: Told) -> list[Resident]:
    """Every player's line; one who left (`Q`) or whom the host removed this turn is shown so."""
    state = outcome.state
    known = rules.known_roles(state, nick, told_by_slot(told, state).get(nick))
    kinds = {"left_game": "left_now", "removed_by_host": "removed_now"}
    gone = {e.target: kinds[e.kind] for e in outcome.events if e.kind in kinds and e.target}
    return [
        Resident(p.nick, _status(p, outcome.day, gone), role_name(known[p.nick], rules) if p.nick in known else None)
        for p in state.players
    ]


def _team(rules: Ruleset, state: GameState, me: Player) -> list[Player]:
    """The living members of the reader's clan, himself included (empty: he is in none)."""
    if not rules.knows_team(me, me):
        return []
    return [me, *(p for p in state.living() if p.nick != me.nick and rules.knows_team(me, p))]


def _team_kills(outcome: DayOutcome, team: list[Player]) -> list[str]:
    """Whom the reader's clan killed last night (each shot names its shooters)."""
    members = {p.nick for p in team}
    return [
        e.target
        for e in outcome.events
        if e.kind == "killed" and e.target and members & set((e.actor or "").split(", "))
    ]


def _checks(rules: Ruleset, outcome: DayOutcome, nick: str) -> list[CheckNews]:
    seen = told_by_checks(outcome.events).get(nick, {})
    news = [CheckNews(target, role_name(result, rules)) for target, result in seen.items()]
    if not news and outcome.checks.get(nick) == "miss":
        news.append(CheckNews(None, ""))
    return news


def report_context(config: GameConfig, outcome: DayOutcome, nick: str, told: Told | None = None) -> dict[str, Any]:
    """Everything the report template may print for `nick` (every string is escaped when printed)."""
    state = outcome.state
    rules = ruleset_for(state)
    me = state.player(nick)
    if me is None:
        raise ValueError(f"{nick!r} is not a player of {config.game.name}")
    team = _team(rules, state, me) if me.alive else []
    jailed = set(outcome.executed)
    return {
        "game": config.game.name,
        "nick": nick,
        "day": outcome.day,
        "next_day": outcome.day + 1,
        "role": me.role,
        "role_title": role_name(me.role, rules),
        "alive": me.alive,
        "players_count": len(state.players),
        "mafia_free": sum(1 for p in state.living() if p.role == "mafia"),
        "residents": _residents(rules, outcome, nick, told or {}),
        "current_votes": [(p.nick, rules.default_vote(p)) for p in state.living()],
        "team": [(p.nick, role_name(p.role, rules)) for p in team],
        "team_kills": _team_kills(outcome, team),
        "checks": _checks(rules, outcome, nick),
        "votes": [
            VoteLine(target, count, target in jailed)
            for target, count in sorted(outcome.tally.items(), key=lambda kv: (-kv[1], kv[0]))
        ],
    }


def render_report(config: GameConfig, outcome: DayOutcome, nick: str, told: Told | None = None) -> Message:
    """One player's morning report after `outcome`'s day (`told`: each checker's results so far)."""
    path = config.templates.report
    template = load_template(path, REPORT_TEMPLATE)
    where = str(path) if path is not None else REPORT_TEMPLATE
    rendered = render_template(template, report_context(config, outcome, nick, told), where, blocks=["subject"])
    subject = " ".join(unescape(rendered.blocks.get("subject", "")).split())
    return Message(to=nick, subject=subject or config.game.name, body=tidy(rendered.body))


def render_reports(config: GameConfig, outcome: DayOutcome, told: Told | None = None) -> list[Message]:
    """The morning report of every player alive after the day, in player-list order."""
    return [render_report(config, outcome, p.nick, told) for p in outcome.state.living()]
