"""The new day's post: the host's bloody narrative, rendered from a Jinja2 template into BBCode.

Every value a template prints passes through BBCode escaping (the environment's `finalize`), so no nick
or player text can open or close a tag; the BBCode itself is the template's literal text. Narrative
phrases are trusted text with the nicks escaped inside (`Safe`), printed as they are.

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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jinja2
import jinja2.sandbox
from jinja2.exceptions import SecurityError

from forumbot.config import GameConfig
from forumbot.engine.model import DayOutcome, Event, GameState, Role
from forumbot.errors import ConfigError
from forumbot.render.bbcode import escape, unescape

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
# The kozanostra server's words (seed 000): "честный житель".
ROLE_NAMES_KOZANOSTRA: dict[Role, str] = ROLE_NAMES | {"civilian": "честный житель"}

WINNER_TEXT: dict[str, str] = {
    "town": "победа мирных жителей",
    "mafia": "победа мафии",
    "yakuza": "победа якудзы",
    "maniac": "победа маньяка",
    "draw": "ничья",
}

# Several phrasings per kind of event; `{nick}` is the player (escaped before it is put in).
# The nick is always the object or stands after a colon: Russian verbs would otherwise need his gender.
PHRASES: dict[str, tuple[str, ...]] = {
    "executed": (
        "Разъярённая толпа выволокла {nick} на площадь и вздёрнула на ближайшем фонаре.",
        "Горожане вынесли приговор, палач сделал своё дело: на виселице {nick}.",
        "Под барабанную дробь на эшафот повели {nick}. Город сделал свой выбор.",
        "Верёвка затянулась на шее {nick} под одобрительный гул толпы.",
    ),
    "shot_by_town": (
        "На рассвете у стены прогремел залп: горожане расстреляли {nick}.",
        "Приговор приведён в исполнение — к стенке поставили {nick}.",
        "Город проголосовал, и расстрельная команда увела {nick} на задний двор.",
    ),
    "jailed": (
        "{nick} посажен за решётку.",
        "Двери тюрьмы с лязгом захлопнулись: за решёткой теперь {nick}.",
        "Горожане упекли за решётку {nick}.",
    ),
    "mafia": (
        "Этой ночью мафиози зверски убили {nick}.",
        "Утром в переулке нашли {nick} с простреленной головой — почерк мафии не спутать.",
        "Ночью в дверь постучали. Больше никто не видел {nick} живым: мафия своё дело знает.",
        "Мафия не знает пощады: тело {nick} выловили из реки с камнем на шее.",
    ),
    "yakuza": (
        "Якудза бесшумно расправилась с {nick}.",
        "На пороге дома {nick} нашли только катану и лужу крови: работа якудзы.",
        "Тень скользнула по крыше — к утру в доме {nick} нашли лишь тишину и кровь. Якудза не оставляет следов.",
    ),
    "maniac": (
        "Маньяк добрался до {nick}: изуродованное тело нашли у старой мельницы.",
        "Город содрогнулся: маньяк снова вышел на охоту, и его жертва — {nick}.",
        "Истошный крик в ночи — и к утру от {nick} осталось то, что не показывают детям. Маньяк на свободе.",
    ),
    "sheriff": (
        "Шериф выследил {nick} и пристрелил без лишних слов.",
        "Пуля шерифа настигла {nick} в тёмной подворотне.",
        "Шериф не стал ждать суда: свинцовая пилюля для {nick}.",
    ),
    "inactive": (
        "Эпидемия одиночества унесла {nick}.",
        "В пустом доме нашли {nick}: эпидемия одиночества не щадит молчунов.",
        "Молчание убивает: эпидемия одиночества забрала {nick}.",
    ),
    "autokill": (
        "Автокилл забрал уснувшего игрока: {nick}.",
        "Уснувшего {nick} унёс автокилл.",
        "Сон оказался вечным: автокилл забрал {nick}.",
    ),
    "suicide": (
        "Не прислал свой голос и покончил с собой: {nick}.",
        "Утром в петле нашли {nick}: самоубийство — голос так и не был отправлен.",
        "Голос от {nick} так и не пришёл — самоубийство.",
    ),
    "quiet_night": (
        "Ночь прошла на удивление тихо: никто не погиб.",
        "Город проснулся, пересчитал себя — и все оказались живы.",
        "Этой ночью смерть обошла город стороной.",
    ),
    "dawn": (
        "Над городом встаёт кровавый рассвет.",
        "Город просыпается. Не все проснулись.",
        "Петухи пропели, и горожане, озираясь, вышли на улицы.",
        "Утро выдалось серым, как лица выживших.",
    ),
    "no_votes": (
        "Голосов не было, и никого не казнили.",
        "Город так и не решился никого осудить.",
    ),
    "miss_mafia": ("Мафия промахнулась.", "Выстрел мафии ушёл в молоко: мафия промахнулась."),
    "miss_doctor": ("Доктор промахнулся.", "Доктор этой ночью промахнулся."),
    "miss_commissar": ("Комиссар промахнулся.", "Комиссар этой ночью промахнулся."),
    "miss_hetaera": ("Гетера промахнулась.", "Гетера этой ночью промахнулась."),
    "saved_from_maniac": (
        "К игроку {nick} приходил маньяк, но доктор вовремя вылечил: голос на казни учитывается.",
        "Маньяк побывал у игрока {nick}, однако доктор успел раньше беды: голос учитывается.",
    ),
    "silenced": (
        "У игрока {nick} побывал маньяк: голос на казни пуст.",
        "Ночью к игроку {nick} приходил маньяк — голос этого дня не учитывается.",
    ),
    "new_sheriff": (
        "В городе назначен новый шериф.",
        "Звезда шерифа нашла нового хозяина — в городе снова есть шериф.",
    ),
    "new_maniac": ("В городе объявился новый маньяк.", "По ночным улицам снова бродит маньяк."),
    "inherited": (
        "Роль покойного ({role}) перешла к одному из живых жителей.",
        "Дело покойного живёт: роль «{role}» досталась одному из горожан.",
    ),
    # The host's powers: told once, naming nobody's role.
    "replaced": ("Замена: {nick} (заменил {old}).", "В игре замена: {nick} (заменил {old})."),
    "removed_by_host": (
        "Ведущий удалил из игры игрока {nick}.",
        "Решением ведущего игрок {nick} выбывает из игры.",
    ),
    "role_changed": (
        "Ведущий изменил расстановку ролей: с завтрашнего дня роли у некоторых игроков другие.",
        "С завтрашнего дня в городе новая расстановка ролей — так решил ведущий.",
    ),
    "best_player": (
        "Лучший игрок этой партии — {nick}. Следующая игра — за лучшим игроком.",
        "Ведущий назвал лучшего игрока партии: {nick}. Следующая игра — за ним.",
    ),
}

# Words that agree with the player's gender (seed 000's `O GENDER`): a phrase writes `{убит}` and gets
# "убит", "убита", "убито" or "убиты"; a player who never said gets the masculine, as forums write.
GENDER_FORMS: dict[str, tuple[str, str, str, str]] = {
    "был": ("был", "была", "было", "были"),
    "убит": ("убит", "убита", "убито", "убиты"),
    "казнён": ("казнён", "казнена", "казнено", "казнены"),
    "посажен": ("посажен", "посажена", "посажено", "посажены"),
    "найден": ("найден", "найдена", "найдено", "найдены"),
    "застрелен": ("застрелен", "застрелена", "застрелено", "застрелены"),
    "покончил": ("покончил", "покончила", "покончило", "покончили"),
    "угас": ("угас", "угасла", "угасло", "угасли"),
}
GENDER_INDEX = {"male": 0, "female": 1, "neuter": 2, "plural": 3}


def agree(word: str, gender: str | None) -> str:
    """`word` in the form for `gender` (male, female, neuter, plural; unknown: male)."""
    return GENDER_FORMS[word][GENDER_INDEX.get(gender or "male", 0)]


# Phrases in which the nick is the subject: the verb agrees with the player's gender.
PHRASES_AGREEING: dict[str, tuple[str, ...]] = {
    "executed": ("По решению горожан {nick} {казнён}.",),
    "mafia": ("Этой ночью {nick} {был} зверски {убит} мафией.",),
    "maniac": ("{nick} {был} {найден} у реки: {убит} маньяком.",),
    "sheriff": ("{nick} {застрелен} шерифом при попытке к бегству.",),
    "jailed": ("{nick} {посажен} за решётку.",),
    "inactive": ("{nick} тихо {угас}, не сказав ни слова: эпидемия одиночества.",),
    "suicide": ("{nick} не {был} на голосовании и {покончил} с собой.",),
}

DEFAULT_TEMPLATE = "day.bbcode.j2"
VARIANT_TEMPLATES: dict[str, str] = {
    "gameru-3.3": "day/gameru-3.3.bbcode.j2",
    "kozanostra": "day/kozanostra.bbcode.j2",
    "salon": "day/salon.bbcode.j2",
}
_VISITORS: dict[str, str] = {"maniac": "маньяк", "hetaera": "гетера", "doctor": "доктор", "commissar": "комиссар"}


class Safe(str):
    """Text already made inert (phrases with escaped nicks): printed as is."""


class BBCodeContext(jinja2.runtime.Context):
    """What a template's own code renders (`super()`, `self.block()`, a macro, `caller()`) is template text
    whose values were escaped already: it is printed as is, not escaped a second time."""

    def call(__self, __obj: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: N805 (Jinja's signature)
        result = super().call(__obj, *args, **kwargs)
        if isinstance(__obj, jinja2.runtime.BlockReference | jinja2.runtime.Macro) and isinstance(result, str):
            return Safe(result)
        return result


def finalize(value: Any) -> Any:
    """Everything a template prints is escaped, unless it is `Safe` (or not text at all)."""
    if isinstance(value, str) and not isinstance(value, Safe):
        return escape(value)
    return value


# --- templates --------------------------------------------------------------------------------------


def _environment(loader: jinja2.BaseLoader, *, sandboxed: bool = False) -> jinja2.Environment:
    """The templates' environment. A host's template runs `sandboxed`: it may read the values it is given and
    call the filters, never reach Python's internals (`x.__class__`, `cycler.__init__.__globals__`) nor change
    a value in place."""
    kind = jinja2.sandbox.ImmutableSandboxedEnvironment if sandboxed else jinja2.Environment
    env = kind(
        loader=loader,
        finalize=finalize,
        autoescape=False,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.context_class = BBCodeContext
    env.filters["role"] = role_name
    env.filters["plural"] = plural
    env.filters["agree"] = agree
    env.filters["num"] = number
    return env


def _package_loader() -> jinja2.BaseLoader:
    return jinja2.PackageLoader("forumbot.render", "templates")


def load_template(path: Path | None, name: str = DEFAULT_TEMPLATE) -> jinja2.Template:
    """The host's template file if given (it may extend the bundled ones), else the bundled `name`.
    A syntax error raises ConfigError naming the file and the line."""
    try:
        if path is not None:
            if not path.is_file():
                raise ConfigError(f"{path}: no such template file")
            host = jinja2.FileSystemLoader(str(path.parent))
            env = _environment(jinja2.ChoiceLoader([host, _package_loader()]), sandboxed=True)
            return env.get_template(path.name)
        return _environment(_package_loader()).get_template(name)
    except jinja2.TemplateSyntaxError as exc:
        raise ConfigError(f"{exc.filename or path or name}:{exc.lineno}: template error: {exc.message}") from None
    except jinja2.TemplateNotFound as exc:
        raise ConfigError(f"{path or name}: template not found: {exc.name}") from None


@dataclass(frozen=True)
class Rendered:
    body: str
    blocks: dict[str, str]  # the requested blocks, each rendered on its own (absent: no such block)


def render_template(
    template: jinja2.Template, context: dict[str, Any], where: str, blocks: Iterable[str] = ()
) -> Rendered:
    """Render the template and, on their own, the named `blocks` (the most derived definition of each,
    whatever the chain of `extends`). Any error raises ConfigError naming the template file and line."""
    env = template.environment
    try:
        try:
            ctx = template.new_context(context)
            body = env.concat(template.root_render_func(ctx))
            found = {name: env.concat(ctx.blocks[name][0](ctx)) for name in blocks if name in ctx.blocks}
        except Exception:
            env.handle_exception()  # re-raised with the template's file and line in the traceback
    except jinja2.TemplateSyntaxError as exc:  # an extended or included template, compiled late
        raise ConfigError(f"{exc.filename or where}:{exc.lineno}: template error: {exc.message}") from None
    except jinja2.TemplateNotFound as exc:
        raise ConfigError(f"{template_location(exc) or where}: template not found: {exc.name}") from None
    except SecurityError as exc:
        at = template_location(exc) or where
        raise ConfigError(f"{at}: template error: not allowed in a template: {exc}") from None
    except Exception as exc:  # a template may fail in any way a Python expression can
        raise ConfigError(f"{template_location(exc) or where}: template error: {type(exc).__name__}: {exc}") from None
    return Rendered(str(body), {k: str(v) for k, v in found.items()})


def template_location(exc: BaseException) -> str | None:
    """`file:line` of the innermost template frame in the error's traceback (Jinja maps its frames to
    template lines), or None."""
    found: str | None = None
    tb = exc.__traceback__
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename
        if not filename.endswith(".py") and not filename.startswith("<"):
            found = f"{filename}:{tb.tb_lineno}"
        tb = tb.tb_next
    return found


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


@dataclass
class Phrasebook:
    """Phrases drawn from the game's RNG: within one post a kind repeats only after all its phrasings."""

    rng: random.Random
    decks: dict[str, list[str]] = field(default_factory=dict)

    def __call__(self, kind: str, gender: str | None = None, **values: object) -> Safe:
        deck = self.decks.get(kind)
        if not deck:
            deck = self.decks[kind] = list(PHRASES[kind]) + list(PHRASES_AGREEING.get(kind, ()))
            self.rng.shuffle(deck)
        text = deck.pop()
        forms = {word: agree(word, gender) for word in GENDER_FORMS}
        return Safe(text.format(**forms, **{k: escape(str(v)) for k, v in values.items()}))


def role_name(role: str, variant: str = "") -> str:
    names = ROLE_NAMES_KOZANOSTRA if variant == "kozanostra" else ROLE_NAMES
    return names.get(role, role)  # type: ignore[call-overload,no-any-return]


def plural(n: int, one: str, few: str, many: str) -> str:
    """Russian plural: 1 голос, 2 голоса, 5 голосов."""
    n = abs(n)
    if n % 10 == 1 and n % 100 != 11:
        return one
    if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14:
        return few
    return many


def number(value: float) -> str:
    """A number as a Russian reader writes it: 2,5 and 3."""
    return f"{value:g}".replace(".", ",")


def phrasebook(before: GameState, day: int) -> Phrasebook:
    return Phrasebook(random.Random(f"{before.seed}:{day}:render"))


def day_context(
    config: GameConfig, before: GameState, outcome: DayOutcome, genders: dict[str, str] | None = None
) -> dict[str, Any]:
    """Everything a day template may print (every string is escaped when printed). `genders`: the players'
    own `O GENDER` settings, for Russian agreement (убит / убита)."""
    genders = genders or {}
    variant = before.variant
    phrase = phrasebook(before, outcome.day)
    roles = {p.nick: p for p in (*outcome.state.players, *before.players)}  # before wins; a new nick too
    events = outcome.events

    def rname(nick: str) -> str:
        return role_name(roles[nick].role, variant)

    deaths: list[Death] = []
    removed = {e.target for e in events if e.kind == "removed_by_host"}  # told as the host's decision
    for nick, cause in outcome.deaths.items():
        count = outcome.tally.get(nick) if cause == "executed" else None
        visitors = _visitors(events, nick) if variant == "salon" and cause == "inactive" else ()
        kind = "removed_by_host" if nick in removed and cause == "inactive" else _death_kind(variant, cause)
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
    silenced = _silenced(variant, events)
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
        "default": VARIANT_TEMPLATES.get(variant, DEFAULT_TEMPLATE),
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
        "saved_from_maniac": _saved_from_maniac(variant, events),
        "misses": _misses(variant, events, phrase),
        "missed_roles": sorted({role_name(e.role) for e in events if e.kind == "missed" and e.role is not None}),
        "commissar_line": _commissar_line(before, outcome),
        "announcements": _announcements(variant, events, phrase),
        "status": _status(before, outcome),
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
        "role_name": lambda role: role_name(role, variant),
    }


def _index(state: GameState, nick: str) -> int:
    nicks = state.nicks()
    return nicks.index(nick) if nick in nicks else len(nicks)


def _death_kind(variant: str, cause: str) -> str:
    if cause == "executed":
        return {"kozanostra": "jailed", "salon": "shot_by_town"}.get(variant, "executed")
    if cause == "inactive":
        return {"kozanostra": "autokill", "salon": "suicide"}.get(variant, "inactive")
    return cause


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


def _silenced(variant: str, events: Iterable[Event]) -> str | None:
    """salon: the maniac's victim (not healed) loses his vote."""
    if variant != "salon":
        return None
    attacked = next((e.target for e in events if e.kind == "attacked"), None)
    healed = any(e.kind == "saved" and e.target == attacked and e.cause is None for e in events)
    return None if healed else attacked


def _saved_from_maniac(variant: str, events: Iterable[Event]) -> list[str]:
    if variant != "salon":
        return []
    return [e.target for e in events if e.kind == "saved" and e.cause is None and e.target]


def _no_execution(events: Iterable[Event]) -> NoExecution | None:
    for e in events:
        if e.kind != "no_execution":
            continue
        if e.detail.endswith("needed"):
            got, _, rest = e.detail.partition(" votes, ")
            needed = rest.removesuffix(" needed")
            return NoExecution("threshold", e.target, int(got), float(needed))
        if "died" in e.detail:
            return NoExecution("leader_dead", e.target)
        return NoExecution("no_votes")
    return None


def _misses(variant: str, events: Iterable[Event], phrase: Phrasebook) -> list[Safe]:
    """salon: each special that missed, once, in the night's order, the reason never told (seed 003)."""
    if variant != "salon":
        return []
    order = ("hetaera", "mafia", "doctor", "commissar")
    missed = {e.role for e in events if e.kind == "missed" and e.role is not None}
    return [phrase(f"miss_{role}") for role in order if role in missed]


def _commissar_line(before: GameState, outcome: DayOutcome) -> str | None:
    """salon: "Комиссар проверял мафию / НЕ мафию", never naming the target (seed 003)."""
    if before.variant != "salon":
        return None
    for result in outcome.checks.values():
        if result == "mafia":
            return "Комиссар проверял мафию."
        if result == "not_mafia":
            return "Комиссар проверял НЕ мафию."
    return None


def _announcements(variant: str, events: Iterable[Event], phrase: Phrasebook) -> list[Safe]:
    """Public news: a new sheriff or maniac (gameru-3.3), a role passed on (kozanostra), naming nobody; the
    host's powers (a replacement "X (заменил Y)", a removal, a change of roles, the best player)."""
    lines: list[Safe] = []
    for e in events:
        if e.kind in ("new_sheriff", "new_maniac"):
            lines.append(phrase(e.kind))
        elif e.kind == "inherited" and e.role is not None:
            lines.append(phrase("inherited", role=role_name(e.role, variant)))
        elif e.kind == "replaced" and e.actor and e.target:
            lines.append(phrase("replaced", nick=e.actor, old=e.target))
        elif e.kind == "best_player" and (e.target or e.actor):
            lines.append(phrase("best_player", nick=e.target or e.actor))
    if any(e.kind == "role_changed" for e in events):
        lines.append(phrase("role_changed"))
    return lines


def _status(before: GameState, outcome: DayOutcome) -> list[Status]:
    """kozanostra's "Статус Жителей": every player, with the role of the dead and the jailed."""
    variant = before.variant
    lines: list[Status] = []
    for p in before.players:
        cause = outcome.deaths.get(p.nick)
        if cause is not None:
            status = "посажен за решётку" if cause == "executed" else "убит"
        elif not p.alive:
            status = "за решёткой" if p.death_cause == "executed" else "мёртв"
        else:
            status = "жив"
        lines.append(Status(p.nick, status, None if status == "жив" else role_name(p.role, variant)))
    return lines


# --- rendering --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DayPost:
    subject: str  # plain text: a topic's subject is not BBCode
    body: str  # BBCode


def _day_template(config: GameConfig, variant: str) -> tuple[jinja2.Template, str]:
    path = config.templates.day
    name = VARIANT_TEMPLATES.get(variant, DEFAULT_TEMPLATE)
    return load_template(path, name), str(path) if path is not None else name


def render_day(
    config: GameConfig, before: GameState, outcome: DayOutcome, genders: dict[str, str] | None = None
) -> DayPost:
    """The new day's topic: its subject ("<game>. День N") and its first post.

    Rendered twice: once for the subject (a block a host may override), then the post with that subject
    as its `title`; each pass draws the same phrases, so both see the same day."""
    template, where = _day_template(config, before.variant)
    first = render_template(template, day_context(config, before, outcome, genders), where, blocks=["subject"])
    context = day_context(config, before, outcome, genders)
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


def tidy(text: str) -> str:
    """At most one blank line in a row, none at the ends: templates can stay readable."""
    lines: list[str] = []
    for line in text.strip().splitlines():
        line = line.rstrip()
        if line or (lines and lines[-1]):
            lines.append(line)
    return "\n".join(lines).strip() + "\n"
