"""A page cut short by the board, without a Content-Length (it looks whole to HTTP), on every engine and every
kind of page the readers read: fetched again, it is read whole; cut every time, the read stops with one line
naming the page and what it lacks, and nothing of it is counted. The fake boards over real sockets, the
fault "cut" (the first half of the answer, then the connection closes)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
import respx

from fakeboard import Board, BoardServer
from fakeboard.clock import FakeClock
from fakeboard.ipb2 import Ipb2Server
from fakeboard.ipb3 import Ipb3Server
from fakeboard.server import FakeServer
from forumbot.errors import PageCutShort
from forumbot.forum.client import REFETCHES, HttpForumClient
from forumbot.forum.http import HttpSettings
from forumbot.forum.ipb2.reader import IpbClient
from forumbot.forum.ipb3.reader import Ipb3Client
from forumbot.forum.phpbb.reader import PhpbbClient

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
BOT, PASSWORD = "Ведущий", "секрет"
PLAYERS = ("Алиса", "Борис", "Вера")
PER_PAGE = 3
POSTS = 7  # three pages: 3, 3, 1
START = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


@dataclass(frozen=True)
class Engine:
    """How one engine's fake board is served and read: its server, its client, and where its pages are."""

    name: str
    server: Callable[..., FakeServer]
    client: type[HttpForumClient]
    topic_page: str  # a substring of the second topic page's address
    inbox: str  # a substring of the PM folder's address
    pm: str  # a substring of the first PM's page's address (IPB 3: its conversation's)


ENGINES = [
    Engine("phpbb", BoardServer, PhpbbClient, f"viewtopic.php?t=1&start={PER_PAGE}", "folder=inbox", "f=0&p=1"),
    Engine("ipb2", Ipb2Server, IpbClient, f"showtopic=1&st={PER_PAGE}", "act=Msg&CODE=01", "MSID=1"),
    Engine("ipb3", Ipb3Server, Ipb3Client, "showtopic=1&page=2", "do=showFolder", "topicID=80"),
]


@dataclass
class Live:
    server: FakeServer
    client: HttpForumClient
    clock: FakeClock


def board() -> Board:
    made = Board.russian(bot=BOT, bot_password=PASSWORD, flood_interval=0.0, now=lambda: START)
    for name in PLAYERS:
        made.add_user(name, "пароль")
    topic = made.add_topic(3, "День 1", BOT, "Начинаем.", time=START)
    for n in range(1, POSTS):
        made.add_post(topic, PLAYERS[n % 3], f"Голос {n}", time=START + timedelta(minutes=n))
    made.send_pm("Алиса", BOT, "Приказ", "Проверяю — Борис", time=START + timedelta(minutes=20))
    made.send_pm("Вера", BOT, "Ночь", "Лечу — Алиса", time=START + timedelta(minutes=21))
    return made


@pytest.fixture(params=ENGINES, ids=lambda engine: engine.name)
def live(request: pytest.FixtureRequest) -> Iterator[tuple[Engine, Live]]:
    engine: Engine = request.param
    clock = FakeClock(START + timedelta(hours=1))
    with engine.server(board(), clock=clock, posts_per_page=PER_PAGE) as server:
        settings = HttpSettings(min_interval=0.0, backoff_base=0.0)
        client = engine.client(server.url, username=BOT, password=PASSWORD, settings=settings, clock=clock)
        try:
            yield engine, Live(server, client, clock)
        finally:
            client.close()


def read_everything(client: HttpForumClient) -> tuple[list[int], list[tuple[str, str]]]:
    """Every post of the topic, and (sender, body) of every PM of the inbox."""
    posts = [post.post_id for page in client.fetch_topic(1) for post in page.posts]
    messages = [pm for pm in client.fetch_pms(client.fetch_inbox()) if not isinstance(pm, Exception)]
    return posts, sorted((pm.sender, pm.body_text) for pm in messages)


def test_the_boards_read_whole_without_a_fault(live: tuple[Engine, Live]) -> None:
    _, board_live = live
    posts, messages = read_everything(board_live.client)
    assert len(posts) == POSTS
    assert messages == [("Алиса", "Проверяю — Борис"), ("Вера", "Лечу — Алиса")]


@pytest.mark.parametrize("kind", ["topic_page", "inbox", "pm"])
def test_a_page_cut_once_is_fetched_again_and_read_whole(live: tuple[Engine, Live], kind: str) -> None:
    engine, board_live = live
    board_live.server.fail_after_acting(f"GET {getattr(engine, kind)}", "cut")
    posts, messages = read_everything(board_live.client)
    assert len(posts) == POSTS
    assert messages == [("Алиса", "Проверяю — Борис"), ("Вера", "Лечу — Алиса")]
    assert board_live.server.faults.after_acting("GET", getattr(engine, kind), {}) is None  # the cut was served


@pytest.mark.parametrize("kind", ["topic_page", "inbox", "pm"])
def test_a_page_cut_every_time_stops_the_read_naming_it(live: tuple[Engine, Live], kind: str) -> None:
    engine, board_live = live
    address = getattr(engine, kind)
    for _ in range(REFETCHES + 1):
        board_live.server.fail_after_acting(f"GET {address}", "cut")
    board_live.server.reset_log()
    with pytest.raises(PageCutShort) as stopped:
        read_everything(board_live.client)
    said = str(stopped.value)
    assert "\n" not in said and f"came cut short {REFETCHES + 1} times (it stops before its end" in said
    assert said.startswith(board_live.server.url) and "nothing of it was counted" in said
    assert asked(board_live.server, address) == REFETCHES + 1  # asked again twice, and no more


def asked(server: FakeServer, address: str) -> int:
    """The requests whose path and query hold `address`."""
    return sum(1 for r in server.requests if address in f"{r.path}?{r.query}")


def test_an_empty_answer_is_a_page_cut_before_its_first_byte(clock: FakeClock) -> None:
    """An empty 200 in place of a page: asked for again; empty every time, the read stops naming it."""
    page = (FIXTURES / "phpbb/pm_view.html").read_bytes()
    url = "http://board.test/ucp.php?i=pm&mode=view&f=0&p=1"
    with respx.mock() as router:
        route = router.get(url).mock(side_effect=[httpx.Response(200, content=b""), httpx.Response(200, content=page)])
        with PhpbbClient("http://board.test/", clock=clock, settings=HttpSettings(min_interval=0)) as client:
            assert client.fetch_pm(1).body_text == "Убиваем — Пётр"
            assert route.call_count == 2
            route.side_effect = None
            route.return_value = httpx.Response(200, content=b"")
            with pytest.raises(PageCutShort, match=r"p=1: the page came cut short 3 times \(it is empty\)"):
                client.fetch_pm(1)
