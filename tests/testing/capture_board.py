"""The captured Russian phpBB 3.3.11 board (fixtures/phpbb-ru), rebuilt on the fake board: its members, the game
forum, topic A (edits, a post in the queue, a soft-deleted one), the locked topic, the posting-errors topic and
the bot's PMs, with the times the capture shows, so its pages can be compared with the captured ones."""

from __future__ import annotations

import json
import threading
from datetime import UTC, datetime, timedelta
from functools import cache
from pathlib import Path
from typing import Any

from fakeboard import Board

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "phpbb-ru"
MSK = timedelta(hours=3)

BOT = "Ведущий"
USERS: dict[str, dict[str, Any]] = {  # name -> add_user() arguments, ids as on the captured board
    "Админ": {"user_id": 2, "lang": "en", "tz": "UTC", "colour": "AA0000"},
    BOT: {"user_id": 58},
    "Модератор": {"user_id": 59},
    "Вера": {"user_id": 60},
    "Bepa": {"user_id": 61, "lang": "en", "dateformat": "|d M Y|, H:i"},
    "Дядя Фёдор": {"user_id": 62},
    "Кот_Матроскин": {"user_id": 63},
    "Ёжик в тумане": {"user_id": 64},
    "Mr. Pink": {"user_id": 65},
    "Шарик": {"user_id": 66},
    "Незнайка": {"user_id": 67},
    "Алиса Селезнёва": {"user_id": 68},
    "Зритель": {"user_id": 69},
    "Новичок": {"user_id": 70, "needs_approval": True, "joined": datetime(2026, 12, 1, 8, 46, tzinfo=UTC)},
    "Капча": {"user_id": 71},
}
FORUM = 3
TOPIC_A, TOPIC_LOCKED, TOPIC_ERRORS = 7, 8, 10


def utc(text: str) -> datetime:
    """A time the capture prints in Moscow time ("01.12.2026 11:48:43"), in UTC."""
    return datetime.strptime(text, "%d.%m.%Y %H:%M:%S").replace(tzinfo=UTC) - MSK


@cache
def index() -> dict[int, dict[str, Any]]:
    return {e["id"]: e for e in json.loads((FIXTURES / "index.json").read_text(encoding="utf-8"))}


def page(n: int) -> str:
    """The captured body of exchange `n`."""
    body_file: str = index()[n]["body_file"]
    return (FIXTURES / body_file).read_text(encoding="utf-8")


def sent_at(n: int) -> float:
    """When exchange `n` was sent (the time its relative dates are read against)."""
    return datetime.fromisoformat(index()[n]["time_utc"].replace("Z", "+00:00")).timestamp()


class Clock:
    """The server's (and the client's) time, moved by hand."""

    def __init__(self, start: float) -> None:
        self.now = start
        self.mono = 1000.0
        self._lock = threading.Lock()

    def __call__(self) -> float:
        return self.now

    def time(self) -> float:
        return self.now

    def monotonic(self) -> float:
        return self.mono

    def sleep(self, seconds: float) -> None:
        with self._lock:
            if seconds > 0:
                self.now += seconds
                self.mono += seconds

    def advance(self, seconds: float = 2.0) -> None:
        self.sleep(seconds)

    def at(self, n: int) -> None:
        """Set the clock to when exchange `n` was sent."""
        self.now = sent_at(n)


# topic A as 21-viewtopic-A-all-ages.html shows it (times from 97-viewtopic-A-dateformat-seconds.html)
TOPIC_A_POSTS: list[tuple[int, str, str, str]] = [
    (
        63,
        BOT,
        "01.12.2026 11:48:43",
        "Тема для снимков страниц: правки автором и модератором, премодерация, мягкое удаление, свежие даты.\n\n"
        "Голосование: [b][color=red]Никто[/color][/b]",
    ),
    (64, "Вера", "01.12.2026 11:48:46", "Мой голос (исправлено автором): [b][color=red]Незнайка[/color][/b]"),
    (65, "Шарик", "01.12.2026 11:48:48", "Голосую за [b][color=red]Незнайка[/color][/b] (ник поправлен модератором)"),
    (66, "Незнайка", "01.12.2026 11:48:51", "Этот пост будет мягко удалён модератором. [b][color=red]Вера[/color][/b]"),
    (67, "Дядя Фёдор", "01.12.2026 11:48:54", "Просто комментарий, без голоса."),
    (
        68,
        "Кот_Матроскин",
        "01.12.2026 11:49:01",
        "Голос (исправлен, пока пост был последним в теме): [b][color=red]Шарик[/color][/b]",
    ),
    (69, "Новичок", "01.12.2026 11:49:06", "Пост новичка, ждёт одобрения: [b][color=red]Шарик[/color][/b]"),
    (119, "Mr. Pink", "01.12.2026 12:41:09", "Mr. Pink votes: [b][color=red]Незнайка[/color][/b]"),
    (
        120,
        "Алиса Селезнёва",
        "01.12.2026 12:50:23",
        '[quote="Mr. Pink" post_id=119 time=1796118069 user_id=65]\n'
        "Mr. Pink votes: [b][color=red]Незнайка[/color][/b]\n[/quote]\n\n"
        "Свежий пост с цитатой: [b][color=red]Шарик[/color][/b]",
    ),
]
TOPIC_A_TITLE = "Тест захвата: правки, премодерация, удаление"

# the bot's inbox as 96-pm-inbox-dateformat-seconds.html lists it (Moscow times), newest first
INBOX: list[tuple[int, str, str, str]] = [
    (84, "Алиса Селезнёва", "Тест: ЛС №3 (менее минуты)", "01.12.2026 12:50:25"),
    (82, "Шарик", "Тест: ЛС №2 (будет «N минут назад»)", "01.12.2026 12:41:13"),
    (70, "Вера", "Re: forumbot", "01.12.2026 12:00:41"),
    (67, "Вера", "Тест: ЛС №1 (будет «Сегодня»)", "01.12.2026 11:49:14"),
    (63, "Дядя Фёдор", "проверка", "30.11.2026 17:59:26"),
    (62, "Bepa", "заказ", "30.11.2026 17:59:21"),
    (58, "Шарик", "?", "29.11.2026 18:24:23"),
    (57, "Алиса Селезнёва", "настройки", "29.11.2026 18:24:18"),
    (56, "Вера", "настройки", "29.11.2026 18:24:13"),
    (42, "Ёжик в тумане", "проверка", "28.11.2026 19:16:29"),
    (41, "Ёжик в тумане", "проверка", "28.11.2026 19:16:24"),
    (39, "Ёжик в тумане", "проверка, исправление", "28.11.2026 19:16:05"),
    (38, "Ёжик в тумане", "проверка", "28.11.2026 19:15:59"),
    (34, "Незнайка", "заказ", "28.11.2026 19:14:15"),
    (33, "Незнайка", "заказ", "28.11.2026 19:14:10"),
    (32, "Незнайка", "заказ", "28.11.2026 19:14:04"),
    (28, "Mr. Pink", "заказ", "28.11.2026 19:12:45"),
    (27, "Ёжик в тумане", "проверка", "28.11.2026 19:12:40"),
    (26, "Незнайка", "заказ", "28.11.2026 19:12:36"),
    (22, "Ёжик в тумане", "проверка2", "28.11.2026 19:07:35"),
    (20, "Зритель", "Fwd: проверка", "28.11.2026 11:06:55"),
    (19, "Алиса Селезнёва", "Fwd: заказ", "28.11.2026 11:06:50"),
    (18, "Незнайка", "Re: заказ", "28.11.2026 11:06:45"),
    (13, "Кот_Матроскин", "я тоже хочу проверить", "28.11.2026 11:04:20"),
    (12, "Ёжик в тумане", "проверка", "28.11.2026 11:04:14"),
    (11, "Ёжик в тумане", "проверка", "28.11.2026 11:04:10"),
    (10, "Ёжик в тумане", "проверка", "28.11.2026 11:04:05"),
]
UNREAD = {84, 82}


def capture_board(**settings: Any) -> Board:
    """The captured board as it stood for 21-viewtopic-A-all-ages.html and 42-pm-inbox-all-ages.html."""
    board = Board.russian(**settings)
    joined = datetime(2026, 12, 1, 7, 53, tzinfo=UTC)  # "Зарегистрирован: Сегодня, 10:53"
    for name, args in USERS.items():
        board.add_user(name, "pw-" + name, **({"joined": joined} | args))
    board.add_forum("Your first category", forum_id=1, category=True)
    board.add_forum("Your first forum", forum_id=2, parent=1, description="Description of your first forum.")
    board.add_forum(
        "Мафия",
        forum_id=FORUM,
        parent=1,
        public=True,
        description="Игры в мафию. Ведущий — бот.",
        moderators=[BOT, "Модератор"],
    )
    board.add_forum("Мафия-скрытая", forum_id=4, parent=1)
    (first, author, when, body), *rest = TOPIC_A_POSTS
    board.add_topic(FORUM, TOPIC_A_TITLE, author, body, utc(when), topic_id=TOPIC_A, post_id=first)
    for post_id, author, when, body in rest:
        board.add_post(TOPIC_A, author, body, utc(when), post_id=post_id, approved=post_id != 69)
        if post_id == 66:  # edits made while p66 was the last post
            board.edit_post_as(64, "Вера", time=utc("01.12.2026 11:48:56"))
            board.edit_post_as(65, "Модератор", reason="Исправлена опечатка в нике", time=utc("01.12.2026 11:48:59"))
        if post_id == 68:
            board.edit_post_as(68, "Кот_Матроскин", time=utc("01.12.2026 11:49:03"))  # the last post: no trace
            board.soft_delete_post(66, BOT, "Тест: мягкое удаление", utc("01.12.2026 11:49:08"))
    board.add_topic(
        FORUM,
        "Тест захвата: закрытая тема",
        BOT,
        "Эта тема будет закрыта ботом через MCP.",
        utc("01.12.2026 11:49:09"),
        topic_id=TOPIC_LOCKED,
        post_id=70,
    )
    board.add_post(TOPIC_LOCKED, "Вера", "Пост игрока до закрытия темы.", utc("01.12.2026 11:49:10"), post_id=71)
    board.add_topic(
        FORUM,
        "Тест захвата: ошибки отправки",
        BOT,
        "Тема для ошибок отправки: флуд, токен формы, пустое сообщение.",
        utc("01.12.2026 11:58:29"),
        topic_id=TOPIC_ERRORS,
        post_id=73,
    )
    for pm_id, sender, subject, when in reversed(INBOX):
        body = "Проверяю — Шарик" if pm_id == 67 else f"Текст ЛС {pm_id}"
        board.send_pm(sender, BOT, subject, body, utc(when), pm_id=pm_id, read=pm_id not in UNREAD)
    return board
