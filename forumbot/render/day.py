"""The new day's post: the host's bloody narrative, rendered from a Jinja2 template into BBCode.

What the post may tell is worked out here (`day_context`), from the outcome and the ruleset's answers
(how a death is narrated, what of the night is published); the words are in `phrases`, the Jinja2 set-up
(escaping, the sandbox for a host's template) in `environment`.

Templates (package `forumbot.render`, folder `templates/`):
    day.bbcode.j2                 the base: blocks subject, heading, execution, night, announcements,
                                  misses, commissar, votes, living, ending, footer
    day/<variant>.bbcode.j2       each variant's default, extending the base and overriding a few blocks
A host's template (`[templates] day = "my.j2"`) may be a whole post, or `{% extends default %}` and
override only the blocks it wants: `default` names the variant's default template.

Phrasings are drawn from the game's RNG (seeded by the game's seed and the day), so days don't read alike
and a re-render of the same day is the same post. What each variant publishes follows its seed:
- gameru-3.3 (seed 001): who was executed with the count, every killing with the dead player's role, the
  sheriff's kills, the "epidemic of loneliness", a new sheriff's appointment (not his name); the sheriff's
  harmless checks and the mafia's new boss stay private.
- kozanostra (seed 000): the morning newspaper: "Статус Жителей", the votes ("получил N голосов - OK /
  Посажен!!!"), "Люди, кто голосовал за ...", and the night's deaths. Like the server's newspaper it
  says nothing of misses, abstentions or the reanimator's saves; a role passed on by the autokill is
  announced without its heir.
- salon (seed 003): the night in its order, the specials' misses ("Доктор промахнулся") whatever the
  reason, "Комиссар проверял мафию / НЕ мафию" without the target, a maniac's victim whose vote is void
  (or healed by the doctor), and each suicide with who visited him.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import jinja2

from forumbot.config import GameConfig
from forumbot.engine import ruleset_for
from forumbot.engine.model import DayOutcome, Event, GameState, Role
from forumbot.engine.variants import Ruleset
from forumbot.render.bbcode import Safe, unescape
from forumbot.render.environment import load_template, render_template, tidy, variant_template
from forumbot.render.phrases import WINNER_TEXT, Phrasebook, agree, role_name

DAY_TEMPLATE = "day.bbcode.j2"
_VISITORS: dict[str, str] = {"maniac": "маньяк", "hetaera": "гетера", "doctor": "доктор", "commissar": "комиссар"}


# --- the day's context ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Death:
    """A death of the day as the post may tell it: who, the role, the cause; never who killed."""

    nick: str
    role: str  # in Russian
    role_id: Role
    cause: str
    text: Safe  # the narrative line
    votes: int | None = None
    visitors: tuple[str, ...] = ()  # salon suicides: who visited him that night (role names)
    gender: str | None = None  # as the player set it (`O GENDER`); templates use `"убит" | agree(d.gender)`


@dataclass(frozen=True)
class Fallen:
    """A player dead before this day, as earlier posts told it."""

    nick: str
    role: str  # in Russian
    role_id: Role
    cause: str | None
    day: int | None


@dataclass(frozen=True)
class VoteRow:
    """One player who got votes: how many, from whom, and whether he was executed."""

    target: str
    count: int
    voters: tuple[str, ...]
    executed: bool


@dataclass(frozen=True)
class Ballot:
    """One voter's vote as the variant counted it (`counted` False: void, e.g. a maniac's victim)."""

    voter: str
    targets: tuple[str, ...]
    counted: bool = True
    note: str = ""


@dataclass(frozen=True)
class Status:
    """A player's line in kozanostra's "Статус Жителей"."""

    nick: str
    status: str  # жив / убит / посажен за решётку / за решёткой / мёртв
    role: str | None  # shown for the dead and jailed


@dataclass(frozen=True)
class NoExecution:
    reason: str  # no_votes | threshold | leader_dead
    leader: str | None = None
    votes: int | None = None
    needed: float | None = None


def phrasebook(before: GameState, day: int) -> Phrasebook:
    return Phrasebook(random.Random(f"{before.seed}:{day}:render"), nights=ruleset_for(before).has_nights)


def day_context(
    config: GameConfig,
    before: GameState,
    outcome: DayOutcome,
    genders: dict[str, str] | None = None,
    deadline: datetime | None = None,
) -> dict[str, Any]:
    """Everything a day template may print (every string is escaped when printed). `genders`: the players'
    own `O GENDER` settings, for Russian agreement (убит / убита)."""
    genders = genders or {}
    variant = before.variant
    rules = ruleset_for(before)
    phrase = phrasebook(before, outcome.day)
    roles = {p.nick: p for p in (*outcome.state.players, *before.players)}  # before wins; a new nick too
    events = outcome.events

    def rname(nick: str) -> str:
        return role_name(roles[nick].role, rules)

    deaths: list[Death] = []
    # told as the host's decision, or as leaving («покинул игру», the command `Q`)
    departed = {e.target: e.kind for e in events if e.kind in ("removed_by_host", "left_game") and e.target}
    for nick, cause in outcome.deaths.items():
        count = outcome.tally.get(nick) if cause == "executed" else None
        visitors = _visitors(events, nick) if rules.tells_visitors_of_the_silent and cause == "inactive" else ()
        kind = departed[nick] if nick in departed and cause == "inactive" else rules.death_narrative(cause)
        deaths.append(
            Death(
                nick=nick,
                role=rname(nick),
                role_id=roles[nick].role,
                cause=cause,
                text=phrase(kind, genders.get(nick), nick=nick),
                votes=count,
                visitors=visitors,
                gender=genders.get(nick),
            )
        )
    executed = set(outcome.executed)
    voters: dict[str, list[str]] = {}
    silenced = rules.silenced_voter(events)
    for voter, targets in outcome.counted_votes.items():
        if voter == silenced:
            continue
        for target in targets:
            voters.setdefault(target, []).append(voter)
    votes = [
        VoteRow(target, len(who), tuple(who), target in executed)
        for target, who in sorted(voters.items(), key=lambda kv: (-len(kv[1]), _index(before, kv[0])))
    ]
    ballots = [
        Ballot(voter, tuple(targets), voter != silenced, "у него побывал маньяк" if voter == silenced else "")
        for voter, targets in outcome.counted_votes.items()
    ]
    living = [p.nick for p in outcome.state.living()]
    title = f"{config.game.name}. День {outcome.day + 1}"
    return {
        "game": config.game.name,
        "variant": variant,
        "has_nights": rules.has_nights,
        "default": variant_template(DAY_TEMPLATE, variant),
        "day": outcome.day,
        "next_day": outcome.day + 1,
        "title": title,
        "deaths": deaths,
        "executed": [d for d in deaths if d.cause == "executed"],
        "night": [d for d in deaths if d.cause not in ("executed", "inactive")],
        "inactive": [d for d in deaths if d.cause == "inactive"],
        "no_execution": _no_execution(events),
        "votes": votes,
        "voters_of": {v.target: v.voters for v in votes},
        "ballots": ballots,
        "executed_nicks": executed,
        "silenced": silenced,
        "saved_from_maniac": rules.saved_from_silence(events),
        "misses": _misses(rules, events, phrase),
        "missed_roles": sorted({role_name(e.role) for e in events if e.kind == "missed" and e.role is not None}),
        "commissar_line": _commissar_line(rules, outcome),
        "announcements": _announcements(rules, events, phrase, over=outcome.winner != "none"),
        "status": _status(rules, before, outcome),
        "players_count": len(before.players),
        "mafia_free": sum(1 for p in outcome.state.living() if p.role == "mafia"),
        "living": living,
        "dead_before": [
            Fallen(p.nick, rname(p.nick), p.role, p.death_cause, p.death_day) for p in before.players if not p.alive
        ],
        "winner": outcome.winner,
        "winner_text": WINNER_TEXT.get(outcome.winner, ""),
        "phrase": phrase,
        "genders": genders,
        "agree": agree,
        "role_name": lambda role: role_name(role, rules),
        "deadline": deadline.astimezone(config.game.zone) if deadline is not None else None,
    }


def _index(state: GameState, nick: str) -> int:
    nicks = state.nicks()
    return nicks.index(nick) if nick in nicks else len(nicks)


def _visitors(events: Iterable[Event], nick: str) -> tuple[str, ...]:
    """seed 003: "если к этому самоубийце ходил маньяк/гетера/мафия/доктор/комиссар ... ведущий это должен
    огласить": every special whose action named him that night."""
    seen: list[str] = []
    for e in events:
        if e.target != nick or e.kind not in ("attacked", "blocked", "checked", "missed", "saved", "healed"):
            continue
        if e.kind == "saved":
            who = ["доктор"] + (["мафия"] if e.cause == "mafia" else [])
        elif e.kind == "missed" and e.role == "mafia":
            who = ["мафия"]
        else:
            who = [_VISITORS.get(e.role or "", "")]
        seen += [w for w in who if w and w not in seen]
    return tuple(seen)


def _no_execution(events: Iterable[Event]) -> NoExecution | None:
    """Why nobody was executed, from the engine's typed event (an event stored by an earlier version
    carries only its English detail: "3 votes, 2.5 needed", "the leader died in the night")."""
    for e in events:
        if e.kind != "no_execution":
            continue
        reason = e.reason or _legacy_reason(e.detail)
        if reason == "threshold":
            votes, needed = e.votes, e.needed
            if votes is None or needed is None:
                got, _, rest = e.detail.partition(" votes, ")
                votes, needed = int(got), float(rest.removesuffix(" needed"))
            return NoExecution("threshold", e.target, votes, needed)
        if reason == "leader_dead":
            return NoExecution("leader_dead", e.target)
        return NoExecution("no_votes")
    return None


def _legacy_reason(detail: str) -> str:
    if detail.endswith("needed"):
        return "threshold"
    return "leader_dead" if "died" in detail else "no_votes"


def _misses(rules: Ruleset, events: Iterable[Event], phrase: Phrasebook) -> list[Safe]:
    """Each special that missed, once, in the night's order, the reason never told (where the variant
    publishes misses: salon, seed 003)."""
    missed = {e.role for e in events if e.kind == "missed" and e.role is not None}
    return [phrase(f"miss_{role}") for role in rules.published_misses if role in missed]


def _commissar_line(rules: Ruleset, outcome: DayOutcome) -> str | None:
    """ "Комиссар проверял мафию / НЕ мафию", never naming the target (where the variant tells it: salon)."""
    if not rules.publishes_check_kind:
        return None
    for result in outcome.checks.values():
        if result == "mafia":
            return "Комиссар проверял мафию."
        if result == "not_mafia":
            return "Комиссар проверял НЕ мафию."
    return None


def _announcements(rules: Ruleset, events: Iterable[Event], phrase: Phrasebook, *, over: bool = False) -> list[Safe]:
    """Public news: a new sheriff or maniac (gameru-3.3), a role passed on (kozanostra), naming nobody; the
    host's powers (a replacement "X (заменил Y)", a removal, a change of roles, the best player). Once the game
    is over no role passes on: there is no next day to play it (its phrase is drawn all the same, so that
    the rest of the post reads as it would)."""
    lines: list[Safe] = []
    for e in events:
        if e.kind in ("new_sheriff", "new_maniac"):
            told = phrase(e.kind)
            lines += [] if over else [told]
        elif e.kind == "inherited" and e.role is not None:
            told = phrase("inherited", role=role_name(e.role, rules))
            lines += [] if over else [told]
        elif e.kind == "replaced" and e.actor and e.target:
            lines.append(phrase("replaced", nick=e.actor, old=e.target))
        elif e.kind == "best_player" and (e.target or e.actor):
            lines.append(phrase("best_player", nick=e.target or e.actor))
    if any(e.kind == "decided_by_host" for e in events):  # the change ends the game: there is no tomorrow
        lines.append(phrase("decided_by_host"))
    elif any(e.kind == "role_changed" for e in events):
        told = phrase("role_changed")
        lines += [] if over else [told]
    return lines


def _status(rules: Ruleset, before: GameState, outcome: DayOutcome) -> list[Status]:
    """kozanostra's "Статус Жителей": every player, with the role of the dead and the jailed."""
    lines: list[Status] = []
    gone = {e.target: e.kind for e in outcome.events if e.kind in ("removed_by_host", "left_game")}
    for p in before.players:
        cause = outcome.deaths.get(p.nick)
        if cause is not None and p.nick in gone:
            status = "покинул игру" if gone[p.nick] == "left_game" else "удалён ведущим"
        elif cause is not None:
            status = "посажен за решётку" if cause == "executed" else "убит"
        elif not p.alive:
            status = "за решёткой" if p.death_cause == "executed" else "мёртв"
        else:
            status = "жив"
        lines.append(Status(p.nick, status, None if status == "жив" else role_name(p.role, rules)))
    return lines


# --- rendering --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DayPost:
    subject: str  # plain text: a topic's subject is not BBCode
    body: str  # BBCode


def _day_template(config: GameConfig, variant: str) -> tuple[jinja2.Template, str]:
    path = config.templates.day
    name = variant_template(DAY_TEMPLATE, variant)
    return load_template(path, name), str(path) if path is not None else name


def render_day(
    config: GameConfig,
    before: GameState,
    outcome: DayOutcome,
    genders: dict[str, str] | None = None,
    deadline: datetime | None = None,
) -> DayPost:
    """The new day's topic: its subject ("<game>. День N") and its first post.

    Rendered twice: once for the subject (a block a host may override), then the post with that subject
    as its `title`; each pass draws the same phrases, so both see the same day."""
    template, where = _day_template(config, before.variant)
    first = render_template(
        template, day_context(config, before, outcome, genders, deadline), where, blocks=["subject"]
    )
    context = day_context(config, before, outcome, genders, deadline)
    subject = " ".join(unescape(first.blocks.get("subject", "")).split())
    context["title"] = subject or context["title"]
    return DayPost(subject=context["title"], body=tidy(render_template(template, context, where).body))


def render_day_post(
    config: GameConfig, before: GameState, outcome: DayOutcome, genders: dict[str, str] | None = None
) -> str:
    """The new day's first post (BBCode)."""
    return render_day(config, before, outcome, genders).body


def render_day_title(config: GameConfig, before: GameState, outcome: DayOutcome) -> str:
    """The new day's topic subject, plain text."""
    return render_day(config, before, outcome).subject
