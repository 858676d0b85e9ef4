"""Day 1 of `publish_support`, played on the fake IPB 2.2 board: the same players, votes, orders, draft
and approval, with the board's own forms, charset and flood rules, the server and the client on one
fake clock."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from publish_support import (
    BOT,
    BOT_PASSWORD,
    CHECKED,
    DAY2_TITLE,
    FORUM,
    GAME,
    PLAYERS,
    ROLE_SUBJECT,
    SHERIFF,
    WRITTEN,
    FakeClock,
    Played,
    board_with_day1,
    game_config,
    played_on,
)

from fakeboard.ipb2 import Ipb2Server
from forumbot.forum.http import HttpSettings
from forumbot.forum.ipb2.reader import IpbClient
from forumbot.forum.ipb2.writer import Ipb2Poster
from forumbot.host.outbox import MARKER
from forumbot.store import Store


@dataclass
class IpbPlayed(Played):
    """`Played`, whose clients speak IPB 2."""

    def client(self, username: str = BOT, password: str = BOT_PASSWORD, **http: Any) -> IpbClient:  # type: ignore[override]
        settings = {"min_interval": 0.0, "backoff_base": 0.0, "max_attempts": 2} | http
        client = IpbClient(
            self.server.url, username=username, password=password, settings=HttpSettings(**settings), clock=self.clock
        )
        self.clients.append(client)  # type: ignore[arg-type]
        return client

    def poster(self, client: IpbClient | None = None, **options: Any) -> Ipb2Poster:  # type: ignore[override]
        return Ipb2Poster(client or self.client(), **options)

    def posts_made(self) -> int:
        return self.server.count("index.php", method="POST") - self.server.count(
            "index.php", method="POST", query="act=Login"
        )


@contextmanager
def ipb_played_day(
    tmp_path: Path, *, charset: str = "utf-8", flood_interval: float = 0.0, bot_moderator: bool = True
) -> Iterator[IpbPlayed]:
    """The Russian board on IPB 2.2 with day 1 played, dealt, drafted and approved (as `played_day`)."""
    board, topic = board_with_day1(bot_moderator=bot_moderator, language="ru")
    clock = FakeClock()
    server = Ipb2Server(board, clock=clock, charset=charset, flood_interval=flood_interval)
    store = Store(tmp_path / "state.db")

    def make() -> IpbPlayed:  # once the server runs: its url is in the game's config
        return IpbPlayed(board, server, clock, store, game_config(server.url, engine="ipb2"), topic)

    with played_on(server, make) as played:
        yield played


def assert_ipb_published_once(day: Played) -> None:
    """Every post and PM of day 1's publication is on the board exactly once, and the game moved on once."""
    [topic] = day.topics_titled(DAY2_TITLE)
    assert topic.forum_id == FORUM and [p.author for p in topic.posts] == [BOT]
    assert MARKER.search(topic.posts[0].body)
    assert day.board.topic(day.day1_topic).locked
    for nick in PLAYERS:
        assert len(day.pms(nick, ROLE_SUBJECT)) == (1 if nick in WRITTEN else 0), nick
    checks = [m for m in day.pms(SHERIFF) if m.subject != ROLE_SUBJECT]
    assert len(checks) == 1 and CHECKED in checks[0].body
    assert len(day.board.pms_from(BOT)) == len(WRITTEN) + 1
    row = day.store.game(GAME)
    assert row.state is not None and row.state.day == 2
    day2 = day.store.day(row.id, 2)
    assert day2 is not None and day2["topic"] == str(topic.topic_id) and day.store.day(row.id, 3) is None
