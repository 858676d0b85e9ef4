"""The IPB 2.x client against a fake board serving pages rendered by IPB 2.2.2's own code (respx)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from types import ModuleType
from typing import TYPE_CHECKING, Any

import pytest
import respx

from fakeboard.clock import FakeClock
from forumbot.errors import ForumUnavailable, LoginFailed, NoPermission, NotLoggedIn, ParseError
from forumbot.forum.client import offset_between
from forumbot.forum.http import HttpSettings
from forumbot.forum.ipb2.reader import IpbClient
from forumbot.posts import TopicPage

if TYPE_CHECKING:
    from tests.forum.server import FakeIpb  # loaded at run time by path, as the fixture `fake_boards`

BASE = "http://ipb.test/forum/"
PAGE1, PAGE2 = "index.php?showtopic=15821", "index.php?showtopic=15821&st=10"
ALL_POSTS = list(range(301, 316))
# The pages say "Сейчас: 29.11.2026, 21:10" (board offset +3): our clock reads the same instant.
FETCHED = datetime(2026, 11, 29, 18, 10, 25, tzinfo=UTC).timestamp()


@pytest.fixture
def clock(clock: FakeClock) -> FakeClock:
    clock.now = FETCHED
    return clock


@pytest.fixture(params=[("windows-1251", True), ("windows-1251", False), ("utf-8", True)], ids=str)
def board(request: pytest.FixtureRequest, fake_boards: ModuleType, clock: FakeClock) -> FakeIpb:
    charset, in_header = request.param
    board: FakeIpb = fake_boards.FakeIpb(clock, charset=charset, charset_in_header=in_header)
    return board


@pytest.fixture
def cp1251_board(fake_boards: ModuleType, clock: FakeClock) -> FakeIpb:
    board: FakeIpb = fake_boards.FakeIpb(clock)
    return board


def serve_board(board: FakeIpb) -> respx.MockRouter:
    router = respx.mock(assert_all_called=False)
    router.route(host="ipb.test").mock(side_effect=board.respond)
    return router


def make_client(board: FakeIpb, clock: FakeClock, *, password: str | None = None, **http: Any) -> IpbClient:
    http.setdefault("min_interval", 0)
    return IpbClient(
        BASE,
        username=board.username,
        password=password or board.password,
        settings=HttpSettings(**http),
        clock=clock,
    )


def post_ids(pages: Iterable[TopicPage]) -> list[int]:
    return [post.post_id for page in pages for post in page.posts]


def test_login_in_the_boards_charset_keeps_the_cookies(board: FakeIpb, clock: FakeClock) -> None:
    with serve_board(board):
        client = make_client(board, clock)
        client.login()
        cookies = client.http.cookies()
    assert board.logins == 1 and cookies["member_id"] == "2" and cookies["pass_hash"] in board.sessions


def test_wrong_password_is_login_failed_with_the_forums_message(cp1251_board: FakeIpb, clock: FakeClock) -> None:
    with serve_board(cp1251_board):
        client = make_client(cp1251_board, clock, password="не тот")
        with pytest.raises(LoginFailed, match="Вы ввели неверный пароль"):
            client.login()


def test_every_page_once_posts_in_order_names_decoded_dates_in_the_viewers_offset(
    board: FakeIpb, clock: FakeClock
) -> None:
    with serve_board(board):
        pages = list(make_client(board, clock).fetch_topic(15821))
    assert [page.page for page in pages] == [1, 2] and post_ids(pages) == ALL_POSTS
    assert board.count(PAGE1) == 1 and board.count(PAGE2) == 1
    first = pages[0].posts[0]
    assert first.author == "Ведущий"
    assert first.time == datetime(2026, 11, 27, 22, 0, tzinfo=UTC) + timedelta(hours=-3)  # "27.11.2026, 22:00"
    assert first.time.utcoffset() == timedelta(hours=3)  # inferred from the footer, not configured


def test_topic_by_pasted_url(cp1251_board: FakeIpb, clock: FakeClock) -> None:
    with serve_board(cp1251_board):
        client = make_client(cp1251_board, clock)
        pages = list(client.fetch_topic("http://forum.nightcity.example/forum/index.php?showtopic=15821&st=10"))
    assert post_ids(pages) == ALL_POSTS


def test_inbox_and_pm_view(board: FakeIpb, clock: FakeClock) -> None:
    with serve_board(board):
        client = make_client(board, clock)
        summaries = client.fetch_inbox()
        message = client.fetch_pm(summaries[0])
    assert [s.pm_id for s in summaries] == [1207, 1205, 1202, 1201]
    assert message.sender == "Winnie" and message.subject == "приказы"
    assert "Заказ — Галчонок" in message.body_text and "Убиваем — Печкин" not in message.body_text
    assert message.time == datetime(2026, 11, 29, 17, 31, tzinfo=UTC)  # "Сегодня, 20:31" at +3
    assert board.count("index.php?act=Msg&CODE=03&VID=in&MSID=1207") == 1


def test_session_expiring_mid_topic_logs_in_again(cp1251_board: FakeIpb, clock: FakeClock) -> None:
    cp1251_board.expire_after = 1
    with serve_board(cp1251_board):
        pages = list(make_client(cp1251_board, clock).fetch_topic(15821))
    assert post_ids(pages) == ALL_POSTS and cp1251_board.logins == 2 and cp1251_board.count(PAGE2) == 2


def test_503_then_429_with_retry_after_then_the_page(
    cp1251_board: FakeIpb, fake_boards: ModuleType, clock: FakeClock
) -> None:
    cp1251_board.scripted[PAGE2] = [
        fake_boards.Reply(503),
        fake_boards.Reply(429, headers=[("Retry-After", "4")]),
    ]
    with serve_board(cp1251_board):
        assert post_ids(make_client(cp1251_board, clock).fetch_topic(15821)) == ALL_POSTS
    assert 4.0 in clock.sleeps and cp1251_board.count(PAGE2) == 3


def test_503_forever_is_forum_unavailable_after_the_attempts(
    cp1251_board: FakeIpb, fake_boards: ModuleType, clock: FakeClock
) -> None:
    cp1251_board.scripted[PAGE1] = [fake_boards.Reply(503) for _ in range(3)]
    with serve_board(cp1251_board):
        with pytest.raises(ForumUnavailable, match=re.escape(BASE + PAGE1) + ".*HTTP 503"):
            list(make_client(cp1251_board, clock, max_attempts=3).fetch_topic(15821))


def test_login_wall_twice_is_not_logged_in(cp1251_board: FakeIpb, clock: FakeClock) -> None:
    wall = cp1251_board.login_wall()
    cp1251_board.scripted[PAGE1] = [wall, wall]
    with serve_board(cp1251_board):
        with pytest.raises(NotLoggedIn, match=re.escape(PAGE1)):
            list(make_client(cp1251_board, clock).fetch_topic(15821))


def test_no_permission_names_the_url(cp1251_board: FakeIpb, clock: FakeClock) -> None:
    cp1251_board.no_permission.add("77")
    with serve_board(cp1251_board):
        with pytest.raises(NoPermission, match=re.escape(BASE + "index.php?showtopic=77")):
            list(make_client(cp1251_board, clock).fetch_topic(77))


def test_not_a_topic_page_is_a_parse_error_naming_the_url(cp1251_board: FakeIpb, clock: FakeClock) -> None:
    cp1251_board.not_a_topic.add("78")
    with serve_board(cp1251_board):
        with pytest.raises(ParseError, match=re.escape(BASE + "index.php?showtopic=78")):
            list(make_client(cp1251_board, clock).fetch_topic(78))


def test_offset_between_rounds_to_quarter_hours() -> None:
    actual = datetime(2026, 11, 29, 18, 10, 25, tzinfo=UTC)
    shown = datetime(2026, 11, 29, 21, 10, tzinfo=UTC)
    east = offset_between(shown, actual)
    assert east is not None and east.utcoffset(None) == timedelta(hours=3)
    west = offset_between(shown - timedelta(hours=8, minutes=30), actual)
    assert west is not None and west.utcoffset(None) == timedelta(hours=-5, minutes=-30)
    assert offset_between(shown + timedelta(days=2), actual) is None
