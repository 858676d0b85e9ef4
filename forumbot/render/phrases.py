"""The words of the published texts: role titles, win headings, and the narrative phrases of the day post.

Several phrasings per kind of event; a post draws them from the game's RNG (`Phrasebook`), so days don't read
alike and a re-render of the same day is the same post. A nick cannot be declined, so it stands only where
Russian wants the nominative: after a colon or a dash, beside a declined «игрок», or first in its sentence as
the subject, whose words then agree with the player's gender (`O GENDER`; unknown: the masculine, as forums
write).
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from forumbot.engine.variants import Ruleset
from forumbot.render.bbcode import Safe, escape

ROLE_NAMES: dict[str, str] = {
    "civilian": "мирный житель",
    "honest_civilian": "честный житель",  # the kozanostra server's word (seed 000)
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

WINNER_TEXT: dict[str, str] = {
    "town": "победа мирных жителей",
    "mafia": "победа мафии",
    "yakuza": "победа якудзы",
    "maniac": "победа маньяка",
    "draw": "ничья",
}

# Several phrasings per kind of event; `{nick}` is the player (escaped before it is put in).
# A nick takes no Russian case ending, so it stands only where the nominative is right: after a colon or a
# dash, or beside a declined «игрок» («тело игрока {nick}»). Phrases that name the night are left out
# where the game has none (`Phrasebook.nights`); each kind keeps a phrasing without it.
PHRASES: dict[str, tuple[str, ...]] = {
    "executed": (
        "Разъярённая толпа выволокла на площадь и вздёрнула на ближайшем фонаре игрока {nick}.",
        "Горожане вынесли приговор, палач сделал своё дело. На виселице — {nick}.",
        "Под барабанную дробь на эшафот повели игрока {nick}. Город сделал свой выбор.",
        "Верёвка затянулась на шее игрока {nick} под одобрительный гул толпы.",
    ),
    "shot_by_town": (
        "На рассвете у стены прогремел залп: горожане расстреляли игрока {nick}.",
        "Приговор приведён в исполнение — к стенке поставили игрока {nick}.",
        "Город проголосовал, и расстрельная команда увела на задний двор игрока {nick}.",
    ),
    "jailed": (
        "Двери тюрьмы с лязгом захлопнулись. За решёткой — {nick}.",
        "Горожане упекли за решётку игрока {nick}.",
    ),
    "mafia": (
        "Этой ночью мафиози зверски убили игрока {nick}.",
        "Утром в переулке нашли тело игрока {nick} с простреленной головой — почерк мафии не спутать.",
        "В дверь постучали. Больше никто не видел живым игрока {nick}: мафия своё дело знает.",
        "Мафия не знает пощады: из реки выловили тело игрока {nick} с камнем на шее.",
    ),
    "yakuza": (
        "Якудза бесшумно расправилась с игроком {nick}.",
        "На пороге дома игрока {nick} нашли только катану и лужу крови: работа якудзы.",
        "Тень скользнула по крыше — к утру в доме игрока {nick} нашли лишь тишину и кровь. Якудза не оставляет следов.",
    ),
    "maniac": (
        "Маньяк добрался до игрока {nick}: изуродованное тело нашли у старой мельницы.",
        "Город содрогнулся: маньяк снова вышел на охоту, и его жертва — {nick}.",
        "Истошный крик в ночи — и к утру от игрока {nick} осталось то, что не показывают детям. Маньяк на свободе.",
    ),
    "sheriff": (
        "Шериф выследил игрока {nick} и пристрелил без лишних слов.",
        "Пуля шерифа настигла игрока {nick} в тёмной подворотне.",
        "Шериф не стал ждать суда: свинцовая пилюля досталась игроку {nick}.",
    ),
    "inactive": (
        "Эпидемия одиночества унесла игрока {nick}.",
        "В пустом доме нашли тело игрока {nick}: эпидемия одиночества не щадит молчунов.",
        "Молчание убивает: эпидемия одиночества забрала игрока {nick}.",
    ),
    "autokill": (
        "Автокилл забрал уснувшего игрока: {nick}.",
        "Уснувшего игрока {nick} унёс автокилл.",
        "Сон оказался вечным: автокилл забрал игрока {nick}.",
    ),
    "suicide": (
        "Голос так и не пришёл — самоубийство: {nick}.",
        "Утром в петле нашли игрока {nick}: самоубийство — голос так и не был отправлен.",
        "Голос игрока {nick} так и не пришёл — самоубийство.",
    ),
    "quiet_night": (
        "Ночь прошла на удивление тихо: никто не погиб.",
        "Город проснулся, пересчитал себя — и все оказались живы.",
        "Этой ночью смерть обошла город стороной.",
        "Смерть обошла город стороной: все живы.",
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
        "К игроку {nick} приходил маньяк, но доктор успел вовремя: голос на казни учитывается.",
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
    "new_maniac": ("В городе объявился новый маньяк.", "По улицам снова бродит маньяк."),
    "inherited": (
        "Роль покойного ({role}) перешла к одному из живых жителей.",
        "Дело покойного живёт: роль «{role}» досталась одному из горожан.",
    ),
    # The host's powers: told once, naming nobody's role.
    "replaced": ("Замена: {nick} — вместо игрока {old}.", "В игре замена: {nick} играет вместо игрока {old}."),
    "removed_by_host": (
        "Ведущий удалил из игры игрока {nick}.",
        "Решением ведущего игрок {nick} выбывает из игры.",
    ),
    "left_game": (
        "Игру покинул игрок {nick}.",
        "Из игры вышел игрок {nick}.",
    ),
    "decided_by_host": (
        "Ведущий изменил расстановку ролей — и это решило исход игры.",
        "Исход игры решило изменение ролей, внесённое ведущим.",
    ),
    "role_changed": (
        "Ведущий изменил расстановку ролей: с завтрашнего дня роли у некоторых игроков другие.",
        "С завтрашнего дня в городе новая расстановка ролей — так решил ведущий.",
    ),
    "best_player": (
        "Лучший игрок этой партии — {nick}. Следующая игра — за лучшим игроком.",
        "Ведущий назвал лучшего игрока партии: {nick}. Следующую игру ведёт лучший игрок.",
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
    "покинул": ("покинул", "покинула", "покинуло", "покинули"),
    "угас": ("угас", "угасла", "угасло", "угасли"),
    "жив": ("жив", "жива", "живо", "живы"),
    "мёртв": ("мёртв", "мертва", "мертво", "мертвы"),
}
GENDER_INDEX = {"male": 0, "female": 1, "neuter": 2, "plural": 3}


def agree(word: str, gender: str | None) -> str:
    """`word` in the form for `gender` (male, female, neuter, plural; unknown: male); a word that does not
    change with gender («за решёткой») as it is."""
    forms = GENDER_FORMS.get(word)
    return forms[GENDER_INDEX.get(gender or "male", 0)] if forms else word


# Phrases in which the nick is the subject, first in its sentence: the verb agrees with the player's gender.
PHRASES_AGREEING: dict[str, tuple[str, ...]] = {
    "executed": ("{nick} {казнён} по решению горожан.",),
    "mafia": ("{nick} {был} зверски {убит} мафией.",),
    "maniac": ("{nick} {был} {найден} у реки: {убит} маньяком.",),
    "sheriff": ("{nick} {застрелен} шерифом при попытке к бегству.",),
    "jailed": ("{nick} {посажен} за решётку.",),
    "inactive": ("{nick} тихо {угас}, не сказав ни слова: эпидемия одиночества.",),
    "suicide": ("{nick} не {был} на голосовании и {покончил} с собой.",),
    "left_game": ("{nick} {покинул} игру по собственному желанию.",),
}

# A phrase that speaks of the night («ночью», «в ночи», «ночные»): not for a game without nights.
_NIGHT = re.compile(r"(?<![а-яё])ноч", re.IGNORECASE)


def speaks_of_night(text: str) -> bool:
    return _NIGHT.search(text) is not None


@dataclass
class Phrasebook:
    """Phrases drawn from the game's RNG: within one post a kind repeats only after all its phrasings."""

    rng: random.Random
    nights: bool = True  # False: the game has no nights (gameru-3.3), and no phrase may speak of one
    decks: dict[str, list[str]] = field(default_factory=dict)

    def phrasings(self, kind: str) -> list[str]:
        every = [*PHRASES[kind], *PHRASES_AGREEING.get(kind, ())]
        return every if self.nights else [p for p in every if not speaks_of_night(p)]

    def __call__(self, kind: str, gender: str | None = None, **values: object) -> Safe:
        deck = self.decks.get(kind)
        if not deck:
            deck = self.decks[kind] = self.phrasings(kind)
            self.rng.shuffle(deck)
        text = deck.pop()
        forms = {word: agree(word, gender) for word in GENDER_FORMS}
        return Safe(text.format(**forms, **{k: escape(str(v)) for k, v in values.items()}))


# The names Russian readers know a zone by; any other zone is told by its offset ("UTC+5").
ZONE_NAMES: dict[str, str] = {"Europe/Moscow": "МСК"}


def zone_label(zone: str | tzinfo | None, at: datetime | None = None) -> str:
    """A time zone as a Russian reader names it: "МСК" for Moscow, else its offset at `at` ("UTC+5:30")."""
    if zone is None:
        return ""
    key = zone if isinstance(zone, str) else getattr(zone, "key", None)
    if key in ZONE_NAMES:
        return ZONE_NAMES[key]
    try:
        tz = ZoneInfo(zone) if isinstance(zone, str) else zone
    except (ZoneInfoNotFoundError, ValueError):
        return str(zone)
    offset = (at or datetime.now(UTC)).astimezone(tz).utcoffset() or timedelta(0)
    return "UTC" + _offset_text(offset)


def _offset_text(offset: timedelta) -> str:
    minutes = int(offset.total_seconds() // 60)
    sign = "-" if minutes < 0 else "+"
    hours, rest = divmod(abs(minutes), 60)
    return f"{sign}{hours}" + (f":{rest:02d}" if rest else "")


def role_name(role: str, rules: Ruleset | None = None) -> str:
    """A role's title in Russian, as the variant words it (kozanostra's server: "честный житель")."""
    title = rules.role_titles.get(role, role) if rules is not None else role  # type: ignore[call-overload]
    return ROLE_NAMES.get(title, role)


def plural(n: int, one: str, few: str, many: str) -> str:
    """Russian plural: 1 голос, 2 голоса, 5 голосов."""
    n = abs(n)
    if n % 10 == 1 and n % 100 != 11:
        return one
    if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14:
        return few
    return many


def less_than(hours: float) -> str:
    """A span of time after «меньше», in words, to the minute: «меньше 3 часов», «меньше 6 минут»,
    «меньше 1 часа 30 минут» (never «0.1 ч.»)."""
    whole, minutes = divmod(max(1, round(hours * 60)), 60)
    parts = [f"{whole} {plural(whole, 'часа', 'часов', 'часов')}"] if whole else []
    parts += [f"{minutes} {plural(minutes, 'минуты', 'минут', 'минут')}"] if minutes else []
    return "меньше " + " ".join(parts)


def number(value: float) -> str:
    """A number as a Russian reader writes it: 2,5 and 3."""
    return f"{value:g}".replace(".", ",")
