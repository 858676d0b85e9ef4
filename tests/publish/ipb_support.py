"""Day 1 of `publish_support`, played on the fake IPB 2.2 or IPB 3.4 board: the same players, votes, orders,
draft and approval, with the board's own forms, charset, flood rules and redirects, the server and the client on
one fake clock. The bot logs in as `BOT_LOGIN` while the board prints his display name, `BOT`, on all he writes
(as IPB allows by default): what the bot looks for is what the board prints."""

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

from fakeboard.invision import InvisionServer
from fakeboard.ipb2 import Ipb2Server
from fakeboard.ipb3 import Ipb3Server
from forumbot.forum.http import HttpSettings
from forumbot.forum.invision.reader import InvisionClient
from forumbot.forum.invision.writer import InvisionPoster
from forumbot.forum.ipb2.reader import IpbClient
from forumbot.forum.ipb2.writer import Ipb2Poster
from forumbot.forum.ipb3.reader import Ipb3Client
from forumbot.forum.ipb3.writer import Ipb3Poster
from forumbot.host.outbox import MARKER
from forumbot.store import Store

BOT_LOGIN = "hostbot"  # the name the bot logs in with; the board prints `BOT`
LOGINS = {BOT_LOGIN: BOT}


@dataclass
class IpbPlayed(Played):
    """`Played` on a fake IPB board, whose clients speak its version and log in with the bot's login name."""

    version: int = 2

    def client(self, username: str = BOT_LOGIN, password: str = BOT_PASSWORD, **http: Any) -> InvisionClient:  # type: ignore[override]
        settings = {"min_interval": 0.0, "backoff_base": 0.0, "max_attempts": 2} | http
        kind = IpbClient if self.version == 2 else Ipb3Client
        client = kind(
            self.server.url, username=username, password=password, settings=HttpSettings(**settings), clock=self.clock
        )
        self.clients.append(client)  # type: ignore[arg-type]
        return client

    def poster(self, client: InvisionClient | None = None, **options: Any) -> InvisionPoster[Any]:  # type: ignore[override]
        made = client or self.client()
        if self.version == 2:
            assert isinstance(made, IpbClient)
            return Ipb2Poster(made, **options)
        assert isinstance(made, Ipb3Client)
        return Ipb3Poster(made, **options)

    def writes(self) -> list[Any]:
        """The requests that submitted a form of the board's (posts, PMs, the close), the sign-ins left out."""
        return [
            r
            for r in self.server.requests
            if (r.method == "POST" and not {"act=Login", "do=process"} & set(r.query.split("&")))
            or "module=moderate" in r.query
        ]

    def posts_made(self) -> int:
        return len(self.writes())


@contextmanager
def ipb_played_day(
    tmp_path: Path, *, version: int = 2, bot_moderator: bool = True, **server: Any
) -> Iterator[IpbPlayed]:
    """The Russian board on IPB 2.2 (`version` 2; `charset`, `copies`...) or IPB 3.4 (`friendly_urls`,
    `invites`...) with day 1 played, dealt, drafted and approved (as `played_day`)."""
    board, topic = board_with_day1(bot_moderator=bot_moderator, language="ru")
    clock = FakeClock()
    kind: type[InvisionServer] = Ipb2Server if version == 2 else Ipb3Server
    made = kind(board, clock=clock, logins=LOGINS, **server)
    store = Store(tmp_path / "state.db")

    def make() -> IpbPlayed:  # once the server runs: its url is in the game's config
        engine = "ipb2" if version == 2 else "ipb3"
        return IpbPlayed(board, made, clock, store, game_config(made.url, engine=engine), topic, version=version)  # type: ignore[arg-type]

    with played_on(made, make) as played:
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
    row = day.store.game(GAME).state
    game = day.store.game(GAME)
    assert row is not None and row.day == 2
    day2 = day.store.day(game.id, 2)
    assert day2 is not None and day2["topic"] == str(topic.topic_id) and day.store.day(game.id, 3) is None
