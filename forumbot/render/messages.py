"""The private messages of a game, and its end-of-game reveal, rendered from Jinja2 templates into BBCode.

    render_role_messages(config, state)             at the deal: each player's role; the mafia (and the
                                                    yakuza) also get their team and their boss
    render_check_messages(config, before, outcome)  each checker's private result of the night
    render_role_change_messages(config, before, outcome)
                                                    a new sheriff or maniac, a role passed on, a new boss
    render_reveal(config, state, salt, commitment)  the end of the game: every role, and the salt that
                                                    opens the SHA-256 commitment published at the start

Templates live in `templates/messages/`; each has a `subject` block (plain text) and the body. A host's
own role template (`[templates] role = "..."`) may extend `messages/role.bbcode.j2` and override one block.
As in the day's post, everything printed is escaped for BBCode (nicks cannot open or close tags).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import time
from pathlib import Path
from typing import Any

from forumbot.config import GameConfig
from forumbot.engine import deal, ruleset_for
from forumbot.engine.commitment import commitment_of, role_list_text
from forumbot.engine.model import CheckResult, DayOutcome, Event, GameState
from forumbot.engine.variants import Ruleset
from forumbot.errors import N_, StateError
from forumbot.render.bbcode import escape, unescape
from forumbot.render.environment import load_template, render_template, tidy, variant_template
from forumbot.render.phrases import WINNER_TEXT, role_name

ROLE_TEMPLATE = "messages/role.bbcode.j2"
CHECK_TEMPLATE = "messages/check.bbcode.j2"
ROLE_CHANGE_TEMPLATE = "messages/role_change.bbcode.j2"
REVEAL_TEMPLATE = "messages/reveal.bbcode.j2"


@dataclass(frozen=True)
class Message:
    """A private message (`to` a player), or a public post when `to` is None."""

    to: str | None
    subject: str  # plain text
    body: str  # BBCode


def _render(path: Path | None, name: str, context: dict[str, Any], to: str | None) -> Message:
    template = load_template(path, name)
    where = str(path) if path is not None else name
    rendered = render_template(template, context, where, blocks=["subject"])
    subject = " ".join(unescape(rendered.blocks.get("subject", "")).split())
    return Message(to=to, subject=subject or context["game"], body=tidy(rendered.body))


def _base_context(config: GameConfig, state: GameState) -> dict[str, Any]:
    deadline: time = config.game.deadline
    rules = ruleset_for(state)
    return {
        "game": config.game.name,
        "variant": state.variant,
        "deadline": f"{deadline:%H:%M}",
        "timezone": config.game.timezone,
        "vote_how": rules.vote_how,
        "has_nights": rules.has_nights,
        "options": dict(state.options),
        "role_name": lambda role: role_name(role, rules),
    }


# --- roles at the deal ------------------------------------------------------------------------------


def role_context(config: GameConfig, state: GameState, nick: str) -> dict[str, Any]:
    player = state.player(nick)
    if player is None:
        raise StateError(N_("{nick!r} is not a player of {name}"), nick=nick, name=config.game.name)
    rules = ruleset_for(state)
    clan = rules.clan_of(player.role)
    team = [p for p in state.players if clan is not None and rules.clan_of(p.role) == clan and p.alive]
    boss = next((p.nick for p in team if p.boss), None)
    return _base_context(config, state) | {
        "nick": nick,
        "role": player.role,
        "default": variant_template(ROLE_TEMPLATE, state.variant),
        "role_title": role_name(player.role, rules),
        "boss": player.boss,
        "clan": clan,
        "team": [{"nick": p.nick, "role": role_name(p.role, rules), "boss": p.boss} for p in team],
        "boss_nick": boss,
        "players": [p.nick for p in state.players if p.alive],
        "day": state.day,
    }


def render_role_message(config: GameConfig, state: GameState, nick: str) -> Message:
    """One player's role PM (the deal): his role, what he may do and how, and the team of a clan."""
    context = role_context(config, state, nick)
    return _render(config.templates.role, variant_template(ROLE_TEMPLATE, state.variant), context, nick)


def render_role_messages(config: GameConfig, state: GameState) -> list[Message]:
    """The role PMs of the living players the variant writes to (gameru-3.3: not the civilians)."""
    rules = ruleset_for(state)
    return [render_role_message(config, state, p.nick) for p in state.players if p.alive and rules.gets_role_message(p)]


# --- checks -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CheckLine:
    target: str | None  # None: the check did not take place (kozanostra: jailed)
    result: CheckResult
    text: str  # what the result means, in Russian
    cause: str | None = None  # how the target died that day, if he did (the checker's bullet: "sheriff")


def _check_text(rules: Ruleset, result: CheckResult) -> str:
    if result == "miss":
        return "промах"
    if result == "not_mafia":
        return "НЕ мафия"
    if rules.check_reveals_role or result in ("mafia", "maniac"):
        return role_name(result, rules)
    return result


def check_lines(before: GameState, outcome: DayOutcome, checker: str) -> list[CheckLine]:
    """A checker's results with their targets, from the outcome's checks and events, in order."""
    raw = outcome.checks.get(checker)
    if raw is None:
        return []
    results = list(raw) if isinstance(raw, list) else [raw]
    targets = [e.target for e in outcome.events if e.actor == checker and _is_check_event(e)]
    targets += [None] * (len(results) - len(targets))
    rules = ruleset_for(before)
    return [
        CheckLine(target, result, _check_text(rules, result), outcome.deaths.get(target) if target else None)
        for target, result in zip(targets, results, strict=False)
    ]


def _is_check_event(event: Event) -> bool:
    return event.kind == "checked" or (event.kind == "missed" and event.role == "commissar")


def render_check_messages(config: GameConfig, before: GameState, outcome: DayOutcome) -> list[Message]:
    """Each checker's private result of the night (sheriff, commissar, lawyer)."""
    rules = ruleset_for(before)
    messages: list[Message] = []
    for checker in outcome.checks:
        player = before.player(checker)
        if player is None:
            continue
        context = _base_context(config, before) | {
            "nick": checker,
            "role": player.role,
            "role_title": role_name(player.role, rules),
            "day": outcome.day,
            "next_day": outcome.day + 1,
            "lines": check_lines(before, outcome, checker),
            "reveals_role": rules.check_reveals_role,
            "shoots": rules.check_shoots,
            "alive": checker not in outcome.deaths,
        }
        messages.append(_render(None, CHECK_TEMPLATE, context, checker))
    return messages


# --- roles that change hands ------------------------------------------------------------------------


def render_role_change_messages(config: GameConfig, before: GameState, outcome: DayOutcome) -> list[Message]:
    """A new sheriff or maniac (gameru-3.3), a role passed on by the autokill (kozanostra), a role the host
    changed (gameru-3.3's change of scheme): the player learns his new role; a new boss: every living
    member of his clan learns it. None once the game is over (a change that decided it included): there is no
    next day to play the role in, and the reveal tells every role."""
    after = outcome.state
    messages: list[Message] = []
    if outcome.winner != "none":
        return messages
    for e in outcome.events:
        if e.kind not in ("new_sheriff", "new_maniac", "inherited", "new_boss", "role_changed") or e.target is None:
            continue
        heir = after.player(e.target)
        if heir is None or not heir.alive:
            continue
        recipients = [heir.nick]
        if e.kind == "new_boss":
            rules = ruleset_for(after)
            clan = rules.clan_of(heir.role)
            recipients = [p.nick for p in after.living() if clan is not None and rules.clan_of(p.role) == clan]
        for nick in recipients:
            context = role_context(config, after, nick) | {
                "change": e.kind,
                "heir": heir.nick,
                "from_player": e.actor,
                "from_day": outcome.day + 1,
            }
            messages.append(_render(None, variant_template(ROLE_CHANGE_TEMPLATE, after.variant), context, nick))
    return messages


# --- the reveal -------------------------------------------------------------------------------------


def dealt_state(state: GameState) -> GameState:
    """The roles as they were dealt (roles change hands during a game; slots change accounts): the deal
    is a pure function of the variant, the player list as dealt, the seed and the options."""
    return deal(state.variant, list(state.dealt_nicks()), state.seed, state.options or None)


def render_reveal(
    config: GameConfig,
    state: GameState,
    salt: str,
    commitment: str,
    dealt: GameState | None = None,
    *,
    heading: bool = True,
) -> Message:
    """The end-of-game post: every player's role (dealt, and at the end), and the salt that opens the
    commitment `SHA-256(salt + "\\n" + role list)` published when the roles were dealt. `dealt` is the
    state as dealt (default: dealt again from the seed). Refuses when the dealt roles do not give that
    commitment (the state does not belong to that deal). `heading=False`: without its "game over" heading,
    below a day post that has its own."""
    dealt = dealt if dealt is not None else dealt_state(state)
    if commitment_of(dealt, salt) != commitment:
        raise StateError(
            N_("{name}: the dealt roles and the salt do not give the published commitment"), name=config.game.name
        )
    role_list = role_list_text(dealt)
    rules = ruleset_for(state)
    context = _base_context(config, state) | {
        "winner": state.winner,
        "winner_text": WINNER_TEXT.get(state.winner, ""),
        "players": [
            {
                # a slot another account took over lists both (the commitment names the first)
                "nick": p.nick + (f" (вместо игрока {', '.join(p.replaced)})" if p.replaced else ""),
                "dealt": role_name(d.role, rules) + (" (босс)" if d.boss else ""),
                "final": role_name(p.role, rules) + (" (босс)" if p.boss else ""),
                "alive": p.alive,
                "death_day": p.death_day,
                "death_cause": p.death_cause,
            }
            for p, d in zip(state.players, dealt.players, strict=True)
        ],
        "role_list": role_list,
        "altered": any(escape(line) != line for line in role_list.splitlines()),
        "salt": salt,
        "commitment": commitment,
        "heading": heading,
    }
    return _render(None, REVEAL_TEMPLATE, context, None)


# --- the best player --------------------------------------------------------------------------------

BEST_PLAYER_TEMPLATE = "report/best_player.bbcode.j2"


def render_best_player_message(config: GameConfig, outcome: DayOutcome) -> Message | None:
    """The PM telling the player the host named best that he hosts the next game (seed 000), on the day
    that ends the game; None when nobody was named."""
    named = next((e.target or e.actor for e in outcome.events if e.kind == "best_player"), None)
    if named is None or outcome.winner == "none":
        return None
    context = {"game": config.game.name, "nick": named, "winner_text": WINNER_TEXT.get(outcome.winner, "")}
    return _render(None, BEST_PLAYER_TEMPLATE, context, named)
