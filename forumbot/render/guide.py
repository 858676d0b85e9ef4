"""The players' guide in short: what the bot answers a player who asks it for help by PM («помощь», "help"),
and what a host may paste into a game's rules topic (docs/ru/players.md holds it whole, a test keeps the two
alike). BBCode, as the forum shows a PM: the example vote is red bold.

Only what is true of the game: where its votes are cast (its ruleset's `vote_channels`) and whether the watch
relays letters (`[watch] relays`).
"""

from __future__ import annotations

from collections.abc import Iterable

TITLE = "Как играть с ботом — коротко"

THREAD_VOTE = (
    "• В теме дня: ник игрока [color=red][b]красным жирным[/b][/color] шрифтом, точно как он записан, "
    "вне цитат и спойлеров."
)
PM_VOTE = "• В личном сообщении боту: строка «Голосую — Ник» (или «Расстреливаю — Ник», «V Ник»)."
VOTE_RULES = (
    "• Считается последний верный голос. Передумали — напишите новое сообщение: "
    "отредактированное сообщение не считается.",
    "• Не считаются: голоса в цитатах и спойлерах, до начала и после конца дня, голоса выбывших "
    "и сообщения, которые ждут одобрения модератора.",
)
ORDERS = (
    "Приказы — в личном сообщении боту, по одному в строке: действие, тире и точный ник.",
    "Например: «Убиваем — Ник», «Проверяю — Ник», «Лечу — Ник», «Сплю с Ник», «S Ник». "
    "Какие приказы у вашей роли, сказано в письме с ролью.",
    "Считается последний верный приказ. Пересланный или процитированный приказ не считается: "
    "приказ отдаёт тот, кто пишет.",
    "Бот отвечает квитанцией: «Принято: …» или «Не принято: …» с причиной.",
)
COMMANDS = (
    "Z — ещё раз прислать ваш последний отчёт",
    "O GENDER ON | ONA | ONO | ONI — как о вас пишут в постах (убит, убита, убито, убиты)",
    "O AFTERLIFE ON | OFF — получать ли письма бота после выбывания",
    "Q — выйти из игры при следующем подведении итогов (любое новое письмо это отменяет)",
)
RELAYS = (
    "#mail Ник — первой строкой: остальной текст письма уйдёт этому игроку (#mail Ник --- — без подписи)",
    "#mafia, #jakudza, #wall — первой строкой: письмо своему клану или всем живым игрокам",
)
HELP = "помощь (или help) — этот список"


def players_help(vote_channels: Iterable[str], *, relays: bool) -> str:
    """The short guide for a game whose votes go through `vote_channels` ("thread", "pm")."""
    channels = set(vote_channels)
    votes = [*([THREAD_VOTE] if "thread" in channels else []), *([PM_VOTE] if "pm" in channels else [])]
    commands = [*COMMANDS, *(RELAYS if relays else ()), HELP]
    parts = [
        f"[b]{TITLE}[/b]",
        "[b]Голос[/b]\n" + "\n".join([*votes, *VOTE_RULES]),
        "[b]Приказы[/b]\n" + "\n".join(ORDERS),
        "[b]Команды[/b] — отдельной строкой в личном сообщении боту:\n" + "\n".join(commands),
    ]
    return "\n\n".join(parts)
