"""The captured Russian phpBB 3.3.11 board (fixtures/phpbb-ru), rebuilt on the fake board: its members, the game
forum, topic A (edits, a post in the queue, a soft-deleted one), the locked topic, the posting-errors topic and
the bot's PMs, with the times the capture shows, so its pages can be compared with the captured ones."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from functools import cache, partial
from pathlib import Path
from typing import Any

from fakeboard import Board

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "phpbb-ru"
MSK = timedelta(hours=3)

BOT = "Ведущий"
USERS: dict[str, dict[str, Any]] = {  # name -> add_user() arguments, ids as on the captured board
    "Админ": {"user_id": 2, "lang": "en", "tz": "UTC", "colour": "AA0000", "moderator": True},  # the founder
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


# the English account's inbox as 49-en-pm-inbox-all-ages.html lists it, but the bot's PMs (in SENT): id, sender,
# subject, sent (Moscow time)
BEPA_INBOX: list[tuple[int, str, str, str]] = [
    (85, "Алиса Селезнёва", "Test: PM #3 (less than a minute)", "01.12.2026 12:50:25"),
    (83, "Шарик", "Test: PM #2 (will be 'N minutes ago')", "01.12.2026 12:41:13"),
    (68, "Вера", "Test: PM #1 (will be 'Today')", "01.12.2026 11:49:17"),
]
GAME_12 = ["Вера", "Bepa", "Дядя Фёдор", "Кот_Матроскин", "Ёжик в тумане", "Mr. Pink", "Шарик", "Незнайка"]
ROLE_13 = "Мафия-13: ваша роль"
# the bot's sent PMs as 40-pm-sentbox.html (the first page) and 41-pm-outbox.html list them, and the one on the
# second page the English account received: id, recipients, subject, sent (Moscow time), delivered
SENT: list[tuple[int, list[str], str, str, bool]] = [
    (66, ["Модератор"], "Черновик: Мафия-13, день 1", "30.11.2026 18:00:07", True),
    (65, ["Bepa"], "forumbot", "30.11.2026 18:00:05", True),
    (64, ["Дядя Фёдор"], "forumbot", "30.11.2026 18:00:03", True),
    (61, ["Вера"], "forumbot", "29.11.2026 18:24:09", True),
    (60, ["Алиса Селезнёва"], "forumbot", "29.11.2026 18:24:07", True),
    (59, ["Шарик"], "Ваш последний отчёт", "29.11.2026 18:24:05", True),
    *[(pm_id, [to], ROLE_13, "29.11.2026 18:23:05", True) for pm_id, to in ((55, "Алиса Селезнёва"), (53, "Шарик"))],
    *[(pm_id, [to], ROLE_13, "29.11.2026 18:23:05", False) for pm_id, to in ((54, "Незнайка"), (52, "Mr. Pink"))],
    *[(pm_id, [to], ROLE_13, "29.11.2026 18:23:05", False) for pm_id, to in ((51, "Ёжик в тумане"),)],
    *[(pm_id, [to], ROLE_13, "29.11.2026 18:23:05", False) for pm_id, to in ((50, "Кот_Матроскин"),)],
    *[(pm_id, [to], ROLE_13, "29.11.2026 18:23:05", True) for pm_id, to in ((49, "Дядя Фёдор"), (48, "Bepa"))],
    (47, ["Вера"], ROLE_13, "29.11.2026 18:23:05", True),
    (46, [*GAME_12, "Алиса Селезнёва"], "Мафия-12: игра окончена, роли", "29.11.2026 18:19:05", True),
    (45, ["Ёжик в тумане"], "Мафия-12: результат проверки, ночь 2", "29.11.2026 18:18:05", True),
    *[(pm_id, ["Ёжик в тумане"], "forumbot", "28.11.2026 19:16:05", True) for pm_id in (44, 43, 40)],
    *[(pm_id, ["Незнайка"], "forumbot", "28.11.2026 19:14:05", True) for pm_id in (37, 36, 35)],
    (31, ["Незнайка"], "forumbot", "28.11.2026 19:13:05", True),
    (30, ["Ёжик в тумане"], "forumbot", "28.11.2026 19:12:07", True),
    (29, ["Mr. Pink"], "forumbot", "28.11.2026 19:12:05", True),
    (25, ["Ёжик в тумане"], "Мафия-12: результат проверки, ночь 1", "28.11.2026 19:10:05", True),
    (24, ["Модератор"], "Мафия-12: черновик итогов дня 1", "28.11.2026 19:09:07", True),
    (23, ["Ёжик в тумане"], "forumbot", "28.11.2026 19:09:05", True),
    (4, ["Bepa"], "Мафия-12: ваша роль", "28.11.2026 11:00:05", True),
]
READ_BY_BEPA = {65, 4}  # of the bot's PMs to her, the ones she had opened


def capture_board(at: float | None = None, **settings: Any) -> Board:
    """The captured board as it stood for 21-viewtopic-A-all-ages.html and 42-pm-inbox-all-ages.html; with
    `at` (a moment of the capture, `sent_at(n)`), as it stood then (`History`). `settings` are the board's."""
    if at is not None:
        return History(at, **settings).board
    board = _members_and_forums(settings)
    for _, happen in sorted(_events(board, timeline=False), key=lambda event: event[0]):
        happen()
    return board


class History:
    """The captured board as it stood at `start` (a moment of the capture), moved on by `until`: what came
    later is left out until then, and what the other captures show had been done by then is done too (the
    topics' replies and locks, the moderator's silent edit, the English account's PMs and what was read)."""

    def __init__(self, start: float, **settings: Any) -> None:
        self.board = _members_and_forums(settings)
        self._pending = sorted(_events(self.board, timeline=True), key=lambda event: event[0])
        self.until(start)

    def forget(self, n: int) -> None:
        """What exchange `n` did is left for a test to do through the board's pages."""
        self._pending = [event for event in self._pending if event[0] != done_by(n)]

    def until(self, moment: float) -> None:
        """Everything that happened on the real board up to `moment` happens."""
        while self._pending and self._pending[0][0].timestamp() <= moment:
            self._pending.pop(0)[1]()


def _members_and_forums(settings: dict[str, Any]) -> Board:
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
    return board


def done_by(n: int) -> datetime:
    """Just after exchange `n` was sent: when what it did is done."""
    return datetime.fromtimestamp(sent_at(n), UTC) + timedelta(milliseconds=1)


def _events(board: Board, *, timeline: bool) -> list[tuple[datetime, Callable[[], object]]]:
    """What happened on the board, each with when it happened (in the order the capture did it)."""
    (first, author, when, body), *rest = TOPIC_A_POSTS
    events: list[tuple[datetime, Callable[[], object]]] = [
        (
            done_by(57),  # the bot's new topic
            lambda: board.add_topic(FORUM, TOPIC_A_TITLE, author, body, utc(when), topic_id=TOPIC_A, post_id=first),
        )
    ]
    for post_id, poster, posted, text in rest:  # p69 is the newcomer's reply of 59
        happened = done_by(59) if post_id == 69 else utc(posted)
        events.append((happened, partial(_reply, board, TOPIC_A, poster, text, posted, post_id, post_id != 69)))
    events += [  # the edits made while p66 was the last post, and the last post's own edit
        (utc("01.12.2026 11:48:56"), lambda: board.edit_post_as(64, "Вера", time=utc("01.12.2026 11:48:56"))),
        (
            utc("01.12.2026 11:48:59"),
            lambda: board.edit_post_as(
                65, "Модератор", reason="Исправлена опечатка в нике", time=utc("01.12.2026 11:48:59")
            ),
        ),
        (utc("01.12.2026 11:49:03"), lambda: board.edit_post_as(68, "Кот_Матроскин", time=utc("01.12.2026 11:49:03"))),
        (
            done_by(16),
            lambda: board.soft_delete_post(66, BOT, "Тест: мягкое удаление", utc("01.12.2026 11:49:08")),
        ),
        (
            utc("01.12.2026 11:49:09"),
            lambda: board.add_topic(
                FORUM,
                "Тест захвата: закрытая тема",
                BOT,
                "Эта тема будет закрыта ботом через MCP.",
                utc("01.12.2026 11:49:09"),
                topic_id=TOPIC_LOCKED,
                post_id=70,
            ),
        ),
        (
            utc("01.12.2026 11:49:10"),
            partial(_reply, board, TOPIC_LOCKED, "Вера", "Пост игрока до закрытия темы.", "01.12.2026 11:49:10", 71),
        ),
        (
            utc("01.12.2026 11:58:29"),
            lambda: board.add_topic(
                FORUM,
                "Тест захвата: ошибки отправки",
                BOT,
                "Тема для ошибок отправки: флуд, токен формы, пустое сообщение.",
                utc("01.12.2026 11:58:29"),
                topic_id=TOPIC_ERRORS,
                post_id=73,
            ),
        ),
    ]
    for pm_id, sender, subject, sent in INBOX:
        text = "Проверяю — Шарик" if pm_id == 67 else f"Текст ЛС {pm_id}"
        read = pm_id not in UNREAD and not (timeline and pm_id == 67)
        events.append((utc(sent), partial(_pm, board, pm_id, sender, BOT, subject, text, sent, read)))
    if timeline:
        events += _timeline(board)
    return events


def _timeline(board: Board) -> list[tuple[datetime, Callable[[], object]]]:
    """What the other captures show had happened by their time, beyond the state of the all-ages pages; what
    an exchange did happens just after it was sent."""
    at = done_by
    events: list[tuple[datetime, Callable[[], object]]] = [
        (
            utc("01.12.2026 11:49:12"),
            lambda: board.add_topic(
                FORUM,
                "Тест захвата: закрытие на английском",
                BOT,
                "Тема для закрытия на английском.",
                utc("01.12.2026 11:49:12"),
                topic_id=9,
                post_id=72,
            ),
        ),  # fmt: skip
        (at(61), partial(_reply, board, TOPIC_ERRORS, BOT, "Ответ бота: [b][color=red]Никто[/color][/b]", at(61), 74)),
        (
            utc("01.12.2026 11:58:53"),
            partial(_reply, board, TOPIC_ERRORS, "Вера", "Вера отвечает, пока бот пишет.", "01.12.2026 11:58:53", 75),
        ),
        (at(68), partial(_reply, board, TOPIC_ERRORS, BOT, "Ответ бота, написанный до поста Веры", at(68), 76)),
        (at(75), lambda: board.lock_topic(TOPIC_LOCKED)),
        (at(72), partial(_reply, board, TOPIC_LOCKED, BOT, "Ответ модератора в закрытую тему.", at(72), 77)),
        (at(80), lambda: board.lock_topic(9)),
        (at(82), lambda: board.lock_topic(TOPIC_ERRORS)),
        (at(31), lambda: board.mark_pm_read(67, BOT)),
        (at(33), lambda: board.mark_pm_read(68, "Bepa")),
        (utc("28.11.2026 00:00:00"), lambda: board.set_preferences("Bepa", dateformat="D M d, Y g:i a")),
        (at(92), lambda: board.set_preferences("Bepa", dateformat="|d M Y|, H:i")),
        (at(94), lambda: board.set_preferences(BOT, dateformat="d.m.Y H:i:s")),
        (at(98), lambda: board.set_preferences(BOT, dateformat="|d M Y|, H:i")),
        (
            at(29) - timedelta(minutes=1),
            lambda: board.edit_post_as(
                67,
                "Модератор",
                "Просто комментарий, без голоса. [b][color=red]Вера[/color][/b] "
                "(голос дописан модератором без причины)",
                time=at(29) - timedelta(minutes=1),
            ),
        ),  # fmt: skip
    ]
    for pm_id, sender, subject, sent in BEPA_INBOX:
        events.append(
            (utc(sent), partial(_pm, board, pm_id, sender, "Bepa", subject, f"Текст ЛС {pm_id}", sent, False))
        )
    for pm_id, to, subject, sent, delivered in SENT:
        text = f"Текст ЛС {pm_id}"
        events.append((utc(sent), partial(_pm, board, pm_id, BOT, to, subject, text, sent, False, delivered)))
        for name in to if delivered else ():
            if name != "Bepa" or pm_id in READ_BY_BEPA:
                events.append((utc(sent) + timedelta(seconds=1), partial(board.mark_pm_read, pm_id, name)))
    pm_sent = partial(
        _pm, board, 69, BOT, "Вера", "Тест: ЛС от бота", "Проверка отправки ЛС ботом.", done_by(85), False
    )
    events.append((done_by(85), pm_sent))
    return events


def _reply(
    board: Board, topic: int, author: str, body: str, when: str | datetime, post_id: int, approved: bool = True
) -> int:
    moment = utc(when) if isinstance(when, str) else when
    return board.add_post(topic, author, body, moment, post_id=post_id, approved=approved)


def _pm(
    board: Board,
    pm_id: int,
    sender: str,
    to: str | list[str],
    subject: str,
    body: str,
    sent: str | datetime,
    read: bool,
    delivered: bool | None = None,
) -> int:
    """A PM sent, `read` by its recipients or `delivered` to them (default: when read)."""
    moment = utc(sent) if isinstance(sent, str) else sent
    return board.send_pm(sender, to, subject, body, moment, pm_id=pm_id, read=read, delivered=delivered)
