"""Relative dates are read against the board's clock, as each answer tells it (its `Date` header), never
against ours: the captured pages replayed with the bot's clock minutes and hours off give the times the board
meant. The issue's case: two PMs sent before the deadline, read with a clock 5 minutes ahead, came out late.

Each answer carries the `Date` of the moment it was captured (its `time_utc`); the bot's clock is off by
`skew` seconds."""

from __future__ import annotations

import email.utils
import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import httpx
import pytest
import respx

from fakeboard import Board, BoardServer
from fakeboard.clock import FakeClock
from fakeboard.ipb2 import Ipb2Server
from fakeboard.ipb3 import Ipb3Server
from forumbot.forum.dates import page_clock
from forumbot.forum.http import HttpSettings, Page, answer_date
from forumbot.forum.ipb2.reader import IpbClient
from forumbot.forum.ipb3.reader import Ipb3Client
from forumbot.forum.phpbb import pages as phpbb
from forumbot.forum.phpbb.reader import PhpbbClient
from forumbot.host.daywindow import read_day_pms

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
BASE = "http://127.0.0.1:18080/"
MSK = timezone(timedelta(hours=3))
SKEWS = [5 * 60, -5 * 60, 3 * 3600, -7 * 3600]  # the bot's clock ahead of the board's (behind: negative)


def pair(name: str) -> dict[str, object]:
    found: dict[str, object] = json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))
    return found


def captured_at(name: str) -> datetime:
    return datetime.fromisoformat(str(pair(name)["now"]))


def dated(body: bytes, at: datetime, charset: str = "UTF-8") -> httpx.Response:
    """An answer as the board sent it at `at`: its page and its `Date`."""
    headers = {"Date": email.utils.format_datetime(at.astimezone(UTC), usegmt=True)}
    return httpx.Response(200, content=body, headers={**headers, "Content-Type": f"text/html; charset={charset}"})


@pytest.fixture
def router() -> Iterator[respx.MockRouter]:
    with respx.mock(assert_all_called=False) as mocked:
        yield mocked


def serve(router: respx.MockRouter, host: str, query: str, name: str, charset: str = "UTF-8") -> None:
    """The captured page `name` at its address, dated as it was captured."""
    body = (FIXTURES / f"{name}.html").read_bytes()
    router.route(host=host, params=dict(httpx.QueryParams(query))).mock(
        return_value=dated(body, captured_at(name), charset)
    )


def expected_times(name: str) -> list[tuple[int, datetime, datetime | None]]:
    expect = pair(name)["expect"]
    assert isinstance(expect, dict)
    rows = expect.get("rows") or [expect]
    return [
        (
            row["id"],
            datetime.fromisoformat(row["time"]),
            datetime.fromisoformat(row["time_until"]) if row["time_until"] else None,
        )
        for row in rows
    ]


def test_the_answer_date_is_the_boards_clock_to_the_second() -> None:
    answer = httpx.Response(200, headers={"Date": "Tue, 01 Dec 2026 09:50:29 GMT"})
    assert answer_date(answer) == datetime(2026, 12, 1, 9, 50, 29, tzinfo=UTC)
    assert answer_date(httpx.Response(200)) is None
    assert answer_date(httpx.Response(200, headers={"Date": "not a date"})) is None


# --- phpBB: the real board's relative PM dates («менее минуты назад», «9 минут назад», «Сегодня, 11:49») ----


@pytest.mark.parametrize("skew", SKEWS)
@pytest.mark.parametrize(
    ("name", "query"),
    [
        ("phpbb-ru/30-pm-inbox-lt1min", "i=pm&folder=inbox"),
        ("phpbb-ru/34-pm-inbox-nmin", "i=pm&folder=inbox"),
        ("phpbb-ru/42-pm-inbox-all-ages", "i=pm&folder=inbox"),
        ("phpbb-ru/49-en-pm-inbox-all-ages", "i=pm&folder=inbox"),
    ],
)
def test_phpbb_inbox_dates_are_read_against_the_boards_clock(
    router: respx.MockRouter, name: str, query: str, skew: int
) -> None:
    serve(router, "127.0.0.1", query, name)
    clock = FakeClock(captured_at(name) + timedelta(seconds=skew))
    with PhpbbClient(BASE, clock=clock, settings=HttpSettings(min_interval=0)) as client:
        rows, _ = client._parse_inbox(client.whole(f"{BASE}ucp.php?{query}", "pm_inbox"))  # its first page
    assert [(row.pm_id, row.time, row.time_until) for row in rows] == expected_times(name)


@pytest.mark.parametrize("skew", SKEWS)
@pytest.mark.parametrize(
    ("name", "pm"),
    [
        ("phpbb-ru/31-pm-view-lt1min", 67),
        ("phpbb-ru/35-pm-view-nmin", 67),
        ("phpbb-ru/43-pm-view-lt1min-final", 84),
        ("phpbb-ru/44-pm-view-nmin-final", 82),
        ("phpbb-ru/45-pm-view-today-final", 67),
        ("phpbb-ru/51-en-pm-view-nmin-final", 83),
    ],
)
def test_phpbb_pm_dates_are_read_against_the_boards_clock(
    router: respx.MockRouter, name: str, pm: int, skew: int
) -> None:
    serve(router, "127.0.0.1", f"i=pm&mode=view&f=0&p={pm}", name)
    clock = FakeClock(captured_at(name) + timedelta(seconds=skew))
    with PhpbbClient(BASE, clock=clock, settings=HttpSettings(min_interval=0)) as client:
        message = client.fetch_pm(pm)
    assert [(message.pm_id, message.time, message.time_until)] == expected_times(name)


@pytest.mark.parametrize("skew", [5 * 60, 3 * 3600])
def test_two_pms_sent_before_the_deadline_are_the_days_whatever_the_bots_clock(
    router: respx.MockRouter, skew: int
) -> None:
    """PM 84 («менее минуты назад») and PM 82 («9 минут назад»), read half a minute before the deadline: the
    day's, both. Read against a clock 5 minutes ahead, 84 came out after the deadline: late."""
    serve(router, "127.0.0.1", "i=pm&folder=inbox", "phpbb-ru/42-pm-inbox-all-ages")
    # the folder's second page (its two oldest PMs) was not captured: the first answers for it, the same rows
    serve(router, "127.0.0.1", "start=25", "phpbb-ru/42-pm-inbox-all-ages")
    for name, pm in (("43-pm-view-lt1min-final", 84), ("44-pm-view-nmin-final", 82)):
        serve(router, "127.0.0.1", f"i=pm&mode=view&f=0&p={pm}", f"phpbb-ru/{name}")
    read_at = captured_at("phpbb-ru/42-pm-inbox-all-ages")
    deadline = read_at + timedelta(seconds=30)
    clock = FakeClock(read_at + timedelta(seconds=skew))
    with PhpbbClient(BASE, clock=clock, settings=HttpSettings(min_interval=0)) as client:
        window = read_day_pms(client, deadline - timedelta(minutes=20), deadline)
    assert sorted(t.pm.pm_id for t in window.inside) == [82, 84]
    assert window.late == [] and window.uncertain == [] and window.unread == []


# --- IPB 2: the footer's «Сейчас» against the board's clock gives the viewer's offset --------------------------


@pytest.mark.parametrize("skew", SKEWS)
def test_ipb2_learns_the_viewers_offset_from_the_boards_clock_not_ours(router: respx.MockRouter, skew: int) -> None:
    """The footer prints «Сейчас: 29.11.2026, 21:10» in the viewer's offset; against the board's `Date`
    (18:10 UTC) that is +3 hours. Against our clock, hours off, it was another offset and every date moved."""
    board_time = datetime(2026, 11, 29, 18, 10, 25, tzinfo=UTC)
    body = (FIXTURES / "ipb/pm_inbox.html").read_bytes()
    router.route(host="ipb.test").mock(return_value=dated(body, board_time))
    clock = FakeClock(board_time + timedelta(seconds=skew))
    with IpbClient("http://ipb.test/forum/", clock=clock, settings=HttpSettings(min_interval=0)) as client:
        rows = client.fetch_inbox()
        assert client.tz is not None and client.tz.utcoffset(None) == timedelta(hours=3)
    assert [(row.pm_id, row.time, row.time_until) for row in rows] == expected_times("ipb/pm_inbox")


# --- IPB 3: «Сегодня, 20:31» in a folder row needs the board's day ------------------------------------------


@pytest.mark.parametrize("skew", [6 * 3600, -22 * 3600, 5 * 60])
def test_ipb3_folder_dates_are_read_against_the_boards_clock(router: respx.MockRouter, skew: int) -> None:
    """The board's clock says 21:10 on 1 December (Moscow): «Сегодня, 20:31» is that day, whatever day our
    clock is in."""
    name = "ipb3/ipb346_pm_folder"
    body = (FIXTURES / f"{name}.html").read_bytes()
    router.route(host="ipb3.test").mock(return_value=dated(body, captured_at(name)))
    clock = FakeClock(captured_at(name) + timedelta(seconds=skew))
    with Ipb3Client("http://ipb3.test/forum/", clock=clock, settings=HttpSettings(min_interval=0), tz=MSK) as client:
        rows, _ = client._parse_inbox(client.whole("http://ipb3.test/forum/index.php", "pm_inbox"))
    expect = pair(name)["expect"]
    assert isinstance(expect, dict)
    assert [(row.pm_id, row.time, row.time_until) for row in rows] == [
        (r["id"], datetime.fromisoformat(r["time"]), datetime.fromisoformat(r["time_until"])) for r in expect["rows"]
    ]


# --- an answer without a Date ----------------------------------------------------------------------------------


def test_an_answer_without_a_date_is_read_by_the_boards_clock_as_last_seen() -> None:
    """The board said its time once (5 minutes behind ours); an answer without a `Date` is read against our
    clock moved by the same 5 minutes, not against ours."""
    clock = FakeClock(datetime(2026, 12, 1, 10, 0, tzinfo=UTC))
    client = PhpbbClient(BASE, clock=clock)
    try:
        told = datetime(2026, 12, 1, 9, 55, tzinfo=UTC)
        assert client._board_now(Page(BASE, 200, b"", "", "utf-8", date=told)) == told
        clock.sleep(60)
        assert client._board_now(Page(BASE, 200, b"", "", "utf-8")) == told + timedelta(seconds=60)
    finally:
        client.close()


# --- the time a page prints of itself ---------------------------------------------------------------------


def test_the_phpbb_index_prints_the_boards_time_in_its_footers_zone() -> None:
    guest = (FIXTURES / "phpbb-ru/13-index-guest.html").read_bytes()
    member = (FIXTURES / "phpbb-ru/06-index-logged-in-cookie-only.html").read_bytes()  # its last visit, earlier
    assert phpbb.page_now(guest) == datetime(2026, 12, 1, 12, 0, tzinfo=MSK)
    assert phpbb.page_now(member) == datetime(2026, 12, 1, 11, 57, tzinfo=MSK)
    assert phpbb.page_now((FIXTURES / "phpbb-ru/17-viewtopic-A-lt1min.html").read_bytes()) is None


def test_the_page_clock_is_the_printed_minute_refined_by_the_date_within_it() -> None:
    printed = datetime(2026, 11, 29, 21, 10, tzinfo=MSK)
    told = datetime(2026, 11, 29, 18, 10, 42, tzinfo=UTC)
    assert page_clock(printed, told) == told  # within the printed minute: to the second
    assert page_clock(printed, told + timedelta(minutes=5)) == printed  # another machine's clock: the page wins
    assert page_clock(printed, None) == printed
    assert page_clock(None, told) == told
    assert page_clock(None, None) is None


# --- live: the fake boards print relative dates by their own clock, ours is off ------------------------------

LIVE_START = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


@pytest.mark.parametrize("skew", [5 * 60, -5 * 60, 3 * 3600])
@pytest.mark.parametrize("engine", ["phpbb", "ipb2", "ipb3"])
def test_live_pm_times_come_out_as_the_board_meant(engine: str, skew: int) -> None:
    """A PM sent 90 seconds before the board's now, another 20 minutes before: read by a bot whose clock is
    `skew` off, each lies in the interval the bot reads, and the first is before a deadline a minute ago."""
    client_clock = FakeClock(LIVE_START + timedelta(minutes=30, seconds=skew))

    def board_time() -> float:
        return client_clock.now - skew  # the board's own clock, moving as the bot's does

    board = Board.russian(bot="Ведущий", bot_password="секрет", flood_interval=0.0, now=lambda: LIVE_START)
    board.add_user("Алиса", "пароль")
    now = datetime.fromtimestamp(board_time(), UTC)
    sent = {
        board.send_pm("Алиса", "Ведущий", "Приказ", "Проверяю — Вера", time=now - timedelta(seconds=90)): now
        - timedelta(seconds=90),
        board.send_pm("Алиса", "Ведущий", "Ночь", "Лечу — Алиса", time=now - timedelta(minutes=20)): now
        - timedelta(minutes=20),
    }
    server_type, client_type = {
        "phpbb": (BoardServer, PhpbbClient),
        "ipb2": (Ipb2Server, IpbClient),
        "ipb3": (Ipb3Server, Ipb3Client),
    }[engine]
    with server_type(board, clock=board_time) as server:
        settings = HttpSettings(min_interval=0.0)
        # IPB 3 shows its viewer's zone only on a page with exact times beside printed ones (a topic's): the
        # game's zone is configured, as the host does
        zone = "Europe/Moscow" if engine == "ipb3" else None
        with client_type(
            server.url, username="Ведущий", password="секрет", settings=settings, clock=client_clock, tz=zone
        ) as client:
            rows = client.fetch_inbox()
            read = [pm for pm in client.fetch_pms(rows) if not isinstance(pm, Exception)]
            window = read_day_pms(client, now - timedelta(hours=1), now - timedelta(seconds=60))
    assert {pm.pm_id for pm in read} == set(sent)
    for pm in read:
        assert pm.time is not None
        until = pm.time_until or pm.time + timedelta(seconds=1)
        assert pm.time <= sent[pm.pm_id] < until, (pm.pm_id, pm.time_text)
    assert len(window.inside) == 2 and window.late == []
