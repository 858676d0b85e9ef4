"""The inbox's pages fetched in parallel once the first tells how many there are (`HttpForumClient.fetch_inbox`),
on every engine's fake board over real sockets: the same rows in the same order as one page at a time, each
page asked for once, a page cut short fetched again and read whole; and the later pages are in flight
together."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from fakeboard import Board
from fakeboard.clock import FakeClock
from fakeboard.server import FakeServer
from forumbot.forum.client import HttpForumClient, later_pages
from forumbot.forum.http import HttpSettings
from tests.forum.test_cut_pages_live import BOT, ENGINES, PASSWORD, PLAYERS, Engine

START = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
PMS = 130  # phpBB and IPB 3: 6 pages of 25; IPB 2: 3 pages of 50
PAGE_SIZE = {"phpbb": 25, "ipb2": 50, "ipb3": 25}
OFFSET = {"phpbb": "folder=inbox&start=", "ipb2": "VID=in&st=", "ipb3": "folderID=myconvo&st="}


def many_pms() -> Board:
    board = Board.russian(bot=BOT, bot_password=PASSWORD, flood_interval=0.0, now=lambda: START)
    for name in PLAYERS:
        board.add_user(name, "пароль")
    for n in range(PMS):
        board.send_pm(PLAYERS[n % 3], BOT, f"Приказ {n}", f"Сплю {n}", time=START + timedelta(minutes=n))
    return board


def read_inbox(engine: Engine, concurrency: int, *, cut: str | None = None) -> tuple[list[int], dict[str, int]]:
    """The inbox's PM ids as read with `concurrency`, and how often each of its pages was asked for (by the
    offset in its address; the first page has none)."""
    clock = FakeClock(START + timedelta(days=1))
    with engine.server(many_pms(), clock=clock) as server:
        settings = HttpSettings(min_interval=0.0, backoff_base=0.0, concurrency=concurrency)
        client = engine.client(server.url, username=BOT, password=PASSWORD, settings=settings, clock=clock)
        try:
            client.login()
            server.reset_log()
            if cut is not None:
                server.fail_after_acting(f"GET {cut}", "cut")
            ids = [row.pm_id for row in client.fetch_inbox()]
        finally:
            client.close()
        asked = {
            record.query.split(OFFSET[engine.name], 1)[1].split("&", 1)[0]: 0
            for record in server.requests
            if OFFSET[engine.name] in record.query
        }
        for record in server.requests:
            if OFFSET[engine.name] in record.query:
                asked[record.query.split(OFFSET[engine.name], 1)[1].split("&", 1)[0]] += 1
    return ids, asked


@pytest.mark.parametrize("engine", ENGINES, ids=lambda engine: engine.name)
def test_the_pages_read_in_parallel_give_the_rows_read_one_at_a_time(engine: Engine) -> None:
    one_by_one, _ = read_inbox(engine, 1)
    parallel, asked = read_inbox(engine, 4)
    assert parallel == one_by_one and len(set(parallel)) == PMS
    size = PAGE_SIZE[engine.name]
    assert asked == {str(n * size): 1 for n in range(1, -(-PMS // size))}  # every later page, once


@pytest.mark.parametrize("engine", ENGINES, ids=lambda engine: engine.name)
def test_a_later_page_cut_short_is_fetched_again_and_read_whole(engine: Engine) -> None:
    whole, _ = read_inbox(engine, 4)
    third = str(2 * PAGE_SIZE[engine.name])
    cut, asked = read_inbox(engine, 4, cut=OFFSET[engine.name] + third)
    assert cut == whole and asked[third] == 2


@pytest.fixture
def slow_phpbb() -> Iterator[tuple[FakeServer, HttpForumClient]]:
    """The fake phpBB answering 0.5 s late, on the real clock (its requests' arrival times are real)."""
    engine = ENGINES[0]
    with engine.server(many_pms(), latency=0.5) as server:
        settings = HttpSettings(min_interval=0.0, backoff_base=0.0, concurrency=4)
        client = engine.client(server.url, username=BOT, password=PASSWORD, settings=settings)
        try:
            client.login()
            server.reset_log()
            yield server, client
        finally:
            client.close()


@pytest.mark.real_sleep(reason="the requests' arrival times are the real clock's: the board answers 0.5 s late")
def test_the_later_pages_are_in_flight_together(slow_phpbb: tuple[FakeServer, HttpForumClient]) -> None:
    server, client = slow_phpbb
    client.fetch_inbox()
    arrivals = sorted(r.time for r in server.requests if "folder=inbox&start=" in r.query)
    assert len(arrivals) == 5
    assert arrivals[3] - arrivals[0] < 0.5  # four asked before the first answer (0.5 s late) came back


def test_later_pages_keep_the_link_as_the_board_wrote_it() -> None:
    assert later_pages("http://f/ucp.php?i=pm&folder=inbox&start=25&sid=ab", 3) == [
        "http://f/ucp.php?i=pm&folder=inbox&start=25&sid=ab",
        "http://f/ucp.php?i=pm&folder=inbox&start=50&sid=ab",
    ]
    assert later_pages("http://f/index.php?act=Msg&CODE=01&VID=in&st=50", 2) == [
        "http://f/index.php?act=Msg&CODE=01&VID=in&st=50"
    ]
    assert later_pages("http://f/messenger/?page=2", 3) == ["http://f/messenger/?page=2", "http://f/messenger/?page=3"]
    assert later_pages("http://f/messenger/page-2", 3) == []  # neither an offset nor a number: link by link
    assert later_pages("http://f/ucp.php?i=pm&folder=inbox&start=25", 1) == []
