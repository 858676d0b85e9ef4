"""The new day's post: the host's bloody narrative, rendered from a Jinja2 template into BBCode.

Every value a template prints passes through BBCode escaping (the environment's `finalize`), so no nick
or player text can open or close a tag; the BBCode itself is the template's literal text. Phrasings are
picked by the game's RNG (seeded by game and day), so days don't read alike and a re-render is the same.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2

from forumbot.config import GameConfig
from forumbot.engine.model import DayOutcome, GameState, Role
from forumbot.errors import ConfigError
from forumbot.render.bbcode import escape

ROLE_NAMES: dict[Role, str] = {
    "civilian": "мирный житель",
    "mafia": "мафиози",
    "commissar": "комиссар",
    "sheriff": "шериф",
    "doctor": "доктор",
    "reanimator": "реаниматор",
    "hetaera": "гетера",
    "maniac": "маньяк",
    "lawyer": "адвокат",
    "yakuza": "якудза",
    "ninja": "ниндзя",
}

PHRASES: dict[str, tuple[str, ...]] = {
    "mafia": (
        "Этой ночью мафиози зверски убили {nick}.",
        "Утром горожане нашли {nick} в переулке с простреленной головой — почерк мафии.",
        "Мафия не знает пощады: {nick} больше нет с нами.",
    ),
    "yakuza": ("Якудза бесшумно расправилась с {nick}.", "На пороге дома {nick} нашли катану: работа якудзы."),
    "maniac": (
        "Маньяк добрался до {nick}: изуродованное тело нашли у реки.",
        "{nick} стал очередной жертвой маньяка.",
    ),
    "sheriff": ("Шериф выследил {nick} и прикончил без суда.", "Пуля шерифа настигла {nick}."),
    "inactive": ("{nick} скончался от эпидемии одиночества.", "{nick} тихо угас, не сказав ни слова."),
    "suicide": ("{nick} не проголосовал и покончил с собой.",),
    "executed": ("Горожане казнили {nick}.", "Толпа вздёрнула {nick} на площади."),
    "jailed": ("{nick} посажен за решётку.",),
    "quiet_night": ("Ночь прошла спокойно: никто не погиб.", "Город проснулся, и все были живы."),
}
DEFAULT_TEMPLATE = "day.bbcode.j2"


class Safe(str):
    """Text already made inert (phrases with escaped nicks): printed as is."""


@dataclass(frozen=True)
class Death:
    nick: str
    role: str
    cause: str
    text: Safe


def role_name(role: Role) -> str:
    return ROLE_NAMES[role]


def _environment(loader: jinja2.BaseLoader) -> jinja2.Environment:
    return jinja2.Environment(
        loader=loader,
        finalize=lambda value: escape(value) if isinstance(value, str) and not isinstance(value, Safe) else value,
        autoescape=False,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def load_template(path: Path | None, name: str = DEFAULT_TEMPLATE) -> jinja2.Template:
    """The host's template file if given, else the bundled default. Errors name the file and line."""
    try:
        if path is not None:
            env = _environment(jinja2.FileSystemLoader(str(path.parent)))
            return env.get_template(path.name)
        return _environment(jinja2.PackageLoader("forumbot.render", "templates")).get_template(name)
    except jinja2.TemplateSyntaxError as exc:
        raise ConfigError(f"{exc.filename or path}:{exc.lineno}: template error: {exc.message}") from None
    except jinja2.TemplateNotFound as exc:
        raise ConfigError(f"template not found: {exc.name}") from None


def day_context(config: GameConfig, before: GameState, outcome: DayOutcome) -> dict[str, Any]:
    rng = random.Random(f"{before.seed}:{outcome.day}:render")

    def phrase(kind: str, **values: object) -> Safe:
        # Player text is escaped here, since the phrase itself is trusted template text.
        return Safe(rng.choice(PHRASES[kind]).format(**{k: escape(str(v)) for k, v in values.items()}))

    roles = {p.nick: p.role for p in before.players}
    deaths = [
        Death(nick, role_name(roles[nick]), cause, phrase(_death_kind(before.variant, cause), nick=nick))
        for nick, cause in outcome.deaths.items()
    ]
    voters: dict[str, list[str]] = {}
    for voter, targets in outcome.counted_votes.items():
        for target in targets:
            voters.setdefault(target, []).append(voter)
    votes = sorted(voters.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    misses = [e for e in outcome.events if e.kind == "missed" and e.role in ("doctor", "commissar", "mafia")]
    return {
        "game": config.game.name,
        "variant": before.variant,
        "day": outcome.day,
        "next_day": outcome.day + 1,
        "title": f"{config.game.name}. День {outcome.day + 1}",
        "executed": [d for d in deaths if d.cause == "executed"],
        "night": [d for d in deaths if d.cause != "executed"],
        "votes": votes,
        "executed_nicks": set(outcome.executed),
        "missed_roles": sorted({role_name(e.role) for e in misses if e.role is not None}),
        "commissar_line": _commissar_line(before, outcome),
        "living": [p.nick for p in outcome.state.living()],
        "winner": outcome.winner,
        "phrase": phrase,
    }


def _death_kind(variant: str, cause: str) -> str:
    if cause == "executed":
        return "jailed" if variant == "kozanostra" else "executed"
    if cause == "inactive" and variant == "salon":
        return "suicide"
    return cause


def _commissar_line(before: GameState, outcome: DayOutcome) -> str | None:
    """salon: "Комиссар проверял мафию / НЕ мафию", never naming the target (seed 003)."""
    if before.variant != "salon":
        return None
    for checker, result in outcome.checks.items():
        if before.player(checker) is not None and result == "mafia":
            return "Комиссар проверял мафию."
        if result == "not_mafia":
            return "Комиссар проверял НЕ мафию."
    return None


def render_day_post(config: GameConfig, before: GameState, outcome: DayOutcome) -> str:
    template = load_template(config.templates.day)
    try:
        return template.render(day_context(config, before, outcome))
    except jinja2.TemplateError as exc:
        where = config.templates.day or DEFAULT_TEMPLATE
        raise ConfigError(f"{where}: template error: {exc}") from None
