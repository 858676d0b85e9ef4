"""The words of the published texts: role titles, win headings, and the narrative phrases of the day post.

Several phrasings per kind of event; a post draws them from the game's RNG (`Phrasebook`), so days don't read
alike and a re-render of the same day is the same post. A nick is always the object of its phrase or stands
after a colon, where Russian needs no case ending on it; phrases where the nick is the subject agree with the
player's gender (`O GENDER`), else take the masculine, as forums write.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

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


def number(value: float) -> str:
    """A number as a Russian reader writes it: 2,5 and 3."""
    return f"{value:g}".replace(".", ",")


