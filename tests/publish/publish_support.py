"""A first day played on the fake phpBB board, drafted and approved, ready to publish.

Nine players of gameru-3.3 dealt with a fixed seed (so the roles are known here); on day 1 the town
executes a mafioso, the boss orders a kill and the sheriff checks a civilian. The server and the client
share one fake clock: the one-second form rule and flood control are honoured without real waiting.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

from fakeboard import Board, BoardServer, PrivateMessage, Topic
from fakeboard.clock import FakeClock as SharedFakeClock
from forumbot.config import GameConfig
from forumbot.engine import deal
from forumbot.forum.http import HttpSettings
from forumbot.forum.phpbb.reader import PhpbbClient
from forumbot.forum.phpbb.writer import PhpbbPoster
from forumbot.host import games
from forumbot.store import Store

GAME = "Mafia-1"
FORUM = 4
BOT, BOT_PASSWORD = "host_bot", "secret"
PLAYERS = ["Alice", "Bob Smith", "Пётр", "Кот_Матроскин", "Дядя Фёдор", "Шарик", "Mr. Pink", "Charlie", "Dana_99"]
SEED = 7
START = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)  # day 1 begins; its deadline is 23:00 UTC
T_END = datetime(2026, 11, 29, 23, 5, tzinfo=UTC).timestamp()  # the board's clock: the day is over
NOW = datetime.fromtimestamp(T_END, UTC)

DEALT = deal("gameru-3.3", PLAYERS, SEED, None)
ROLE = {p.nick: p.role for p in DEALT.players}
SHERIFF = next(p.nick for p in DEALT.players if p.role == "sheriff")
BOSS = next(p.nick for p in DEALT.players if p.boss)
MAFIA = [p.nick for p in DEALT.players if p.role == "mafia" and not p.boss]
EXECUTED = MAFIA[-1]  # the town's choice on day 1
VICTIM = next(n for n in PLAYERS if ROLE[n] == "civilian" and n != EXECUTED)  # the boss's order
CHECKED = next(n for n in reversed(PLAYERS) if ROLE[n] == "civilian" and n != VICTIM)  # the sheriff's check

# gameru-3.3 writes to the mafia, the sheriff and the maniac; civilians get no role PM (docs/rules/gameru-3.3.md)
WRITTEN = [nick for nick in PLAYERS if ROLE[nick] != "civilian"]
ROLE_SUBJECT = f"{GAME}: ваша роль"
DAY2_TITLE = f"{GAME}. День 2"
# What a clean publish of day 1 goes through, in order (the checkpoint names): every role PM, the topic,
# the old topic's lock, the sheriff's result, the advance.
PUBLICATIONS = [
    *(f"PM role → {nick}" for nick in WRITTEN),
    f"topic «{DAY2_TITLE}»",
    "lock of topic 1",
    f"PM check → {SHERIFF}",
]
CHECKPOINTS = [f"{when} {label}" for label in PUBLICATIONS for when in ("before", "after")] + ["before advance"]


class FakeClock(SharedFakeClock):
    """The suite's fake clock, starting when day 1 is over (the board's and the clients' time)."""

    def __init__(self, start: float = T_END) -> None:
        super().__init__(start)


class Crash(BaseException):
    """The process dies here (not an error anyone may catch)."""


def crash_at(point: str, seen: list[str] | None = None) -> Callable[[str], None]:
    def checkpoint(step: str) -> None:
        if seen is not None:
            seen.append(step)
        if step == point:
            raise Crash(step)

    return checkpoint


@dataclass
class Played:
    """The board serving a played day 1, and the state file holding its approved draft."""

    board: Board
    server: BoardServer
    clock: FakeClock | None  # None: real time (the command line's clients)
    store: Store
    config: GameConfig
    day1_topic: int
    clients: list[PhpbbClient] = field(default_factory=list)

    def client(self, username: str = BOT, password: str = BOT_PASSWORD, **http: Any) -> PhpbbClient:
        """A fresh client, as a new run of the program would make it; `http`: other `HttpSettings`."""
        settings = {"min_interval": 0.0, "backoff_base": 0.0, "max_attempts": 2} | http
        client = PhpbbClient(
            self.server.url,
            username=username,
            password=password,
            settings=HttpSettings(**settings),
            clock=self.clock,
        )
        self.clients.append(client)
        return client

    def poster(self, client: PhpbbClient | None = None, **options: Any) -> PhpbbPoster:
        return PhpbbPoster(client or self.client(), **options)

    def posts_by_bot(self) -> list[Any]:
        return [p for t in self.board.topics for p in t.posts if p.author == BOT]

    def topics_titled(self, title: str) -> list[Topic]:
        return [t for t in self.board.topics if t.title == title]

    def pms(self, to: str, subject: str | None = None) -> list[PrivateMessage]:
        return [m for m in self.board.pms_to(to) if m.sender == BOT and (subject is None or m.subject == subject)]

    def posts_made(self) -> int:
        """Submissions that reached the forum's posting and PM forms (fetching forms not counted)."""
        return self.server.count("posting.php", method="POST") + self.server.count(
            "ucp.php", method="POST", query="mode=compose"
        )


def game_config(base_url: str, **forum: Any) -> GameConfig:
    return GameConfig.model_validate(
        {
            "game": {
                "name": GAME,
                "variant": "gameru-3.3",
                "players": PLAYERS,
                "moderators": ["admin"],
                "timezone": "UTC",
                "deadline": "23:00",
            },
            "forum": {"engine": "phpbb", "base_url": base_url, "forum_id": FORUM} | forum,
        }
    )


def board_with_day1(*, bot_moderator: bool = True, language: str = "en") -> tuple[Board, int]:
    """Day 1's board; `language="ru"`: as the real Russian one (its texts, Moscow time, relative dates)."""
    if language == "ru":
        board = Board(now=lambda: NOW, language="ru", timezone="Europe/Moscow", max_pm_recipients=5)
    else:
        board = Board(now=lambda: NOW)
    board.add_user(BOT, BOT_PASSWORD, moderator=bot_moderator)
    board.add_user("admin", "admin-secret", moderator=True)
    for nick in PLAYERS:
        board.add_user(nick, f"{nick}-secret")
    board.add_forum("Mafia", forum_id=FORUM)
    at = START + timedelta(minutes=1)
    topic = board.add_topic(FORUM, f"{GAME}. День 1", BOT, f"[b]{GAME}. День 1[/b]\nГолосуем.", at)
    return board, topic


def play_day1(board: Board, topic: int) -> None:
    """Votes in the thread, the boss's kill and the sheriff's check by PM, all inside day 1."""
    voters = [n for n in PLAYERS if n not in (EXECUTED, BOSS, *MAFIA)]
    for k, voter in enumerate(voters):
        vote = f"Голосую: [color=red][b]{EXECUTED}[/b][/color]"
        board.add_post(topic, voter, vote, START + timedelta(minutes=10 + k))
    board.send_pm(BOSS, BOT, "заказ", f"Убиваем — {VICTIM}", START + timedelta(hours=1))
    board.send_pm(SHERIFF, BOT, "проверка", f"Проверяю — {CHECKED}", START + timedelta(hours=2))


@contextmanager
def played_day(
    tmp_path: Path,
    *,
    bot_moderator: bool = True,
    flood_interval: float = 0.0,
    approve: bool = True,
    topic_known: bool = True,
    drafted: bool = True,
    real_time: bool = False,
    language: str = "en",
) -> Iterator[Played]:
    """The board on 127.0.0.1 with day 1 played; the game dealt (day 1 in topic 1), drafted, approved.
    `real_time`: the board keeps the real clock, for clients that wait for real (the command line)."""
    board, topic = board_with_day1(bot_moderator=bot_moderator, language=language)
    clock = None if real_time else FakeClock()
    server = BoardServer(board, clock=clock, flood_interval=flood_interval)
    store = Store(tmp_path / "state.db")
    with played_on(
        server,
        lambda: Played(board, server, clock, store, game_config(server.url), topic),
        topic_known=topic_known,
        drafted=drafted,
        approve=approve,
    ) as played:
        yield played


P = TypeVar("P", bound=Played)


@contextmanager
def played_on(
    server: Any, make: Callable[[], P], *, topic_known: bool = True, drafted: bool = True, approve: bool = True
) -> Iterator[P]:
    """`server` (a fake board of any engine) running, and on it the game of `make()` created and dealt (day 1
    in its topic unless not `topic_known`), day 1 played and drafted (`drafted`) and approved (`approve`);
    afterwards every client and the state file closed, and no error on the board."""
    with server:
        played = make()
        store, topic = played.store, played.day1_topic
        try:
            games.create_game(store, played.config)
            games.deal_game(store, GAME, START, topic=str(topic) if topic_known else None, seed=SEED)
            if drafted:
                play_day1(played.board, topic)
                reader = played.client()
                games.end_day(store, GAME, reader)
                reader.close()
                if approve:
                    games.approve(store, GAME, "admin")
            server.reset_log()
            yield played
        finally:
            for client in played.clients:
                client.close()
            store.close()
    assert not server.errors, server.errors[0]
