"""The phpBB client against a fake board serving the real captured phpBB 3.3 pages (respx, no sockets),
and once over real sockets on 127.0.0.1."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from types import ModuleType
from typing import TYPE_CHECKING, Any

import httpx
import pytest
import respx

from fakeboard.clock import FakeClock
from forumbot.errors import ForumUnavailable, LoginFailed, NoPermission, NotLoggedIn, ParseError
from forumbot.forum.client import ClientSettings
from forumbot.forum.http import HttpSettings
from forumbot.forum.phpbb.reader import PhpbbClient
from forumbot.forum.registry import open_client
from forumbot.posts import TopicPage

if TYPE_CHECKING:
    from tests.forum.server import FakePhpbb  # loaded at run time by path, as the fixture `fake_boards`

BASE = "http://forum.test/board/"
PAGE1, PAGE2 = "viewtopic.php?t=2", "viewtopic.php?t=2&start=10"
ALL_POSTS = list(range(2, 18))


@pytest.fixture
def board(fake_boards: ModuleType, clock: FakeClock) -> FakePhpbb:
    board: FakePhpbb = fake_boards.FakePhpbb(clock)
    return board


@pytest.fixture
def mocked(board: FakePhpbb) -> Iterator[respx.MockRouter]:
    with respx.mock(assert_all_called=False) as router:
        router.route(host="forum.test").mock(side_effect=board.respond)
        yield router


def make_client(board: FakePhpbb, clock: FakeClock, *, password: str | None = None, **http: Any) -> PhpbbClient:
    http.setdefault("min_interval", 0)
    return PhpbbClient(
        BASE,
        username=board.username,
        password=password or board.password,
        settings=HttpSettings(**http),
        clock=clock,
    )


@pytest.fixture
def client(board: FakePhpbb, clock: FakeClock, mocked: respx.MockRouter) -> Iterator[PhpbbClient]:
    c = make_client(board, clock)
    yield c
    c.close()


def post_ids(pages: Iterable[TopicPage]) -> list[int]:
    return [post.post_id for page in pages for post in page.posts]


# -- login --------------------------------------------------------------------------------------


def test_login_posts_the_form_tokens_after_a_second_and_keeps_the_cookies(
    client: PhpbbClient, board: FakePhpbb, clock: FakeClock
) -> None:
    client.login()
    assert board.logins == 1
    cookies = client.http.cookies()
    assert cookies["phpbb3_fake_u"] == "58" and cookies["phpbb3_fake_sid"] in board.sessions
    (form,) = board.login_posts
    assert form["sid"] == "724297ca5267c833060798d2a0bcc3b9" and form["creation_time"] == "1795973879"
    assert form["form_token"] == board.form_token and form["username"] == "host_bot"
    assert form["login"] and form["autologin"]
    assert sum(clock.sleeps) >= 1.0  # phpBB refuses a form posted within the second it was made
    assert board.count("index.php", "GET") == 1  # the redirect after login was followed, cookies in the jar


@pytest.mark.parametrize(
    "message",
    [
        "You have specified an incorrect password. Please check your password and try again.",
        "Вы ввели неверное имя пользователя. Проверьте его и попробуйте ещё раз.",
    ],
)
def test_wrong_password_is_login_failed_with_the_forums_message(
    board: FakePhpbb, clock: FakeClock, mocked: respx.MockRouter, message: str
) -> None:
    board.login_error = message
    client = make_client(board, clock, password="wrong")
    with pytest.raises(LoginFailed, match=re.escape(message)):
        client.login()
    assert board.logins == 0


def test_first_content_request_logs_in_by_itself(client: PhpbbClient, board: FakePhpbb) -> None:
    list(client.fetch_topic(2))
    assert board.logins == 1


# -- topics ---------------------------------------------------------------------------------------


def test_every_page_of_a_topic_once_posts_in_order_with_progress(client: PhpbbClient, board: FakePhpbb) -> None:
    progress: list[tuple[int, int]] = []
    pages = list(client.fetch_topic(2, progress=lambda done, total: progress.append((done, total))))
    assert [page.page for page in pages] == [1, 2] and post_ids(pages) == ALL_POSTS
    assert board.count(PAGE1) == 1 and board.count(PAGE2) == 1
    assert progress == [(1, 2), (2, 2)]
    assert pages[1].url == BASE + PAGE2  # our own base, not the captured 127.0.0.1:8181


def test_topic_by_url_of_another_host(client: PhpbbClient, board: FakePhpbb) -> None:
    pages = list(client.fetch_topic("http://127.0.0.1:8181/viewtopic.php?f=4&t=2&start=10"))
    assert post_ids(pages) == ALL_POSTS


def test_from_page_with_a_known_page_size_fetches_only_that_page_on(client: PhpbbClient, board: FakePhpbb) -> None:
    pages = list(client.fetch_topic(2, from_page=2, page_size=10))
    assert post_ids(pages) == list(range(12, 18))
    assert board.count(PAGE1) == 0 and board.count(PAGE2) == 1


def test_from_page_without_a_page_size_learns_it_from_page_one(client: PhpbbClient, board: FakePhpbb) -> None:
    pages = list(client.fetch_topic(2, from_page=2))
    assert [page.page for page in pages] == [2] and board.count(PAGE1) == 1


def test_session_expiring_mid_topic_logs_in_again_and_retries_once(client: PhpbbClient, board: FakePhpbb) -> None:
    board.expire_after = 1  # the session dies after page 1
    pages = list(client.fetch_topic(2))
    assert post_ids(pages) == ALL_POSTS
    assert board.logins == 2 and board.count(PAGE2) == 2


def test_503_is_retried_then_the_page_arrives(
    client: PhpbbClient, board: FakePhpbb, fake_boards: ModuleType, clock: FakeClock
) -> None:
    board.scripted[PAGE2] = [fake_boards.Reply(503), fake_boards.Reply(503)]
    assert post_ids(client.fetch_topic(2)) == ALL_POSTS
    assert board.count(PAGE2) == 3 and len([s for s in clock.sleeps if s > 0]) >= 3  # login wait + 2


def test_429_retry_after_is_honoured(
    client: PhpbbClient, board: FakePhpbb, fake_boards: ModuleType, clock: FakeClock
) -> None:
    board.scripted[PAGE2] = [fake_boards.Reply(429, headers=[("Retry-After", "9")])]
    assert post_ids(client.fetch_topic(2)) == ALL_POSTS
    assert 9.0 in clock.sleeps


def test_timeouts_are_retried_then_forum_unavailable_names_the_page(client: PhpbbClient, board: FakePhpbb) -> None:
    board.scripted[PAGE2] = [httpx.ReadTimeout("timed out") for _ in range(4)]
    with pytest.raises(ForumUnavailable, match=re.escape(BASE + PAGE2) + ".*ReadTimeout"):
        list(client.fetch_topic(2))
    assert board.count(PAGE2) == 4  # HttpSettings.max_attempts


def test_a_login_wall_after_logging_in_again_is_not_logged_in(
    client: PhpbbClient, board: FakePhpbb, fake_boards: ModuleType
) -> None:
    wall = board.login_wall()
    board.scripted[PAGE2] = [wall, wall]
    with pytest.raises(NotLoggedIn, match=re.escape(PAGE2)):
        list(client.fetch_topic(2))
    assert board.logins == 2


def test_a_guest_client_meeting_a_login_wall_is_not_logged_in(
    board: FakePhpbb, clock: FakeClock, mocked: respx.MockRouter
) -> None:
    guest = PhpbbClient(BASE, settings=HttpSettings(min_interval=0), clock=clock)
    with pytest.raises(NotLoggedIn):
        list(guest.fetch_topic(2))


def test_no_permission_page_names_the_url(client: PhpbbClient, board: FakePhpbb) -> None:
    board.no_permission.add(7)
    with pytest.raises(NoPermission, match=re.escape(BASE + "viewtopic.php?t=7")):
        list(client.fetch_topic(7))


def test_a_page_that_is_not_a_topic_is_a_parse_error_naming_the_url(client: PhpbbClient, board: FakePhpbb) -> None:
    board.not_a_topic.add(8)
    with pytest.raises(ParseError, match=re.escape(BASE + "viewtopic.php?t=8")):
        list(client.fetch_topic(8))


# -- private messages -----------------------------------------------------------------------------


def two_page_inbox(board: FakePhpbb) -> None:
    """The captured inbox split over two pages: page 1 links on (absolute, to the captured host)."""
    first = board.page("phpbb/pm_inbox.html").decode()
    nav = (
        '<ul><li class="active"><span>1</span></li>'
        '<li><a class="button" href="http://127.0.0.1:8181/ucp.php?i=pm&amp;folder=inbox&amp;start=3">2</a></li>'
        '<li class="arrow next"><a class="button" rel="next" '
        'href="http://127.0.0.1:8181/ucp.php?i=pm&amp;folder=inbox&amp;start=3">Next</a></li></ul>'
    )
    first = first.replace('<div class="pagination">', '<div class="pagination">' + nav, 1)
    second = re.sub(
        r"(&amp;p=)(\d+)", lambda m: m.group(1) + str(int(m.group(2)) + 10), board.page("phpbb/pm_inbox.html").decode()
    )
    board.inbox = {0: first.encode(), 3: second.encode()}


def test_inbox_reads_every_page(client: PhpbbClient, board: FakePhpbb) -> None:
    two_page_inbox(board)
    summaries = client.fetch_inbox()
    assert [s.pm_id for s in summaries] == [3, 2, 1, 13, 12, 11]
    assert [s.sender for s in summaries[:3]] == ["Дядя Фёдор", "Кот_Матроскин", "Alice"]
    assert board.count("ucp.php?i=pm&folder=inbox") == 1 and board.count("ucp.php?i=pm&folder=inbox&start=3") == 1


def test_pm_view_by_summary_or_id(client: PhpbbClient, board: FakePhpbb) -> None:
    (first, *_rest) = client.fetch_inbox()
    message = client.fetch_pm(first)
    assert message.sender == "Alice" and message.body_text == "Убиваем — Пётр"
    assert board.count("ucp.php?i=pm&mode=view&f=0&p=3") == 1
    assert client.fetch_pm(1).subject == "Ночь 1"


# -- over real sockets ----------------------------------------------------------------------------


def test_against_a_local_http_server_over_real_sockets(
    fake_boards: ModuleType, board: FakePhpbb, clock: FakeClock
) -> None:
    with fake_boards.serve(board) as base:
        settings = ClientSettings(
            forum=base,
            username=board.username,
            password=board.password,
            dialect="auto",
            http=HttpSettings(min_interval=0, timeout=5),
        )
        client = open_client(settings, clock=clock)
        try:
            assert isinstance(client, PhpbbClient)  # told apart by the index page's links
            pages = list(client.fetch_topic(2))
            summaries = client.fetch_inbox()
            message = client.fetch_pm(summaries[-1])
        finally:
            client.close()
    assert post_ids(pages) == ALL_POSTS
    assert [s.pm_id for s in summaries] == [3, 2, 1] and message.sender == "Alice"
    assert board.logins == 1 and board.count("ucp.php?mode=login", "POST") == 1
