"""The HTTP core alone (`forumbot.forum.http`): retries, rate limit, login walls, error mapping, charsets."""

from __future__ import annotations

import random
import threading
import time
from typing import Any

import httpx
import pytest
import respx

from fakeboard.clock import FakeClock
from forumbot.errors import ConfigError, ForumUnavailable, NoPermission, NotLoggedIn, ParseError
from forumbot.forum.http import (
    ForumHttp,
    HttpSettings,
    encode_form,
    normalise_base_url,
    retry_after_seconds,
)

BASE = "http://board.test/forum/"


class MarkerRules:
    """Page rules that look for plain markers, so the core is tested without any forum markup."""

    def is_login_wall(self, html: str) -> bool:
        return "LOGIN-WALL" in html

    def is_no_permission(self, html: str) -> bool:
        return "NO-PERMISSION" in html


def make_http(clock: FakeClock, *, logins: list[int] | None = None, **settings: Any) -> ForumHttp:
    def authenticate(http: ForumHttp) -> None:
        assert logins is not None
        logins.append(1)

    settings.setdefault("min_interval", 0)
    return ForumHttp(
        BASE,
        MarkerRules(),
        authenticate=authenticate if logins is not None else None,
        settings=HttpSettings(**settings),
        clock=clock,
        rng=random.Random(7),
    )


@respx.mock
def test_503_is_retried_with_growing_backoff_then_succeeds(clock: FakeClock) -> None:
    route = respx.get(BASE + "a").mock(
        side_effect=[httpx.Response(503), httpx.Response(502), httpx.Response(200, text="ok")]
    )
    page = make_http(clock, backoff_base=1.0).get(BASE + "a")
    assert page.text == "ok" and route.call_count == 3
    first, second = clock.sleeps
    assert 0.5 <= first <= 1.0 and 1.0 <= second <= 2.0  # equal jitter: half fixed, half random


@respx.mock
def test_429_retry_after_seconds_is_honoured(clock: FakeClock) -> None:
    respx.get(BASE + "a").mock(
        side_effect=[httpx.Response(429, headers={"Retry-After": "7"}), httpx.Response(200, text="ok")]
    )
    assert make_http(clock).get(BASE + "a").text == "ok"
    assert clock.sleeps == [7.0]


@respx.mock
def test_429_retry_after_http_date_is_honoured(clock: FakeClock) -> None:
    stamp = time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime(clock.now + 12))
    when = httpx.Headers({"Retry-After": stamp})
    respx.get(BASE + "a").mock(side_effect=[httpx.Response(429, headers=when), httpx.Response(200, text="ok")])
    make_http(clock).get(BASE + "a")
    assert clock.sleeps == [pytest.approx(12, abs=1)]


@respx.mock
def test_retry_after_beyond_the_limit_gives_up_at_once(clock: FakeClock) -> None:
    route = respx.get(BASE + "a").mock(return_value=httpx.Response(503, headers={"Retry-After": "3600"}))
    with pytest.raises(ForumUnavailable, match="3600"):
        make_http(clock).get(BASE + "a")
    assert route.call_count == 1 and clock.sleeps == []


@respx.mock
def test_timeouts_exhaust_the_attempts_then_forum_unavailable_names_url_and_error(clock: FakeClock) -> None:
    route = respx.get(BASE + "slow").mock(side_effect=httpx.ReadTimeout("read timed out"))
    with pytest.raises(ForumUnavailable) as err:
        make_http(clock, max_attempts=3).get(BASE + "slow")
    assert route.call_count == 3 and len(clock.sleeps) == 2
    assert BASE + "slow" in str(err.value) and "ReadTimeout" in str(err.value)
    assert err.value.__cause__ is None  # mapped once: no httpx exception leaks out


@respx.mock
def test_connection_errors_are_retried(clock: FakeClock) -> None:
    respx.get(BASE + "a").mock(side_effect=[httpx.ConnectError("refused"), httpx.Response(200, text="ok")])
    assert make_http(clock).get(BASE + "a").text == "ok"


@respx.mock
def test_a_non_idempotent_post_is_not_retried_after_a_read_timeout(clock: FakeClock) -> None:
    route = respx.post(BASE + "post").mock(side_effect=httpx.ReadTimeout("late"))
    with pytest.raises(ForumUnavailable):
        make_http(clock).post(BASE + "post", {"a": "b"}, idempotent=False)
    assert route.call_count == 1


@respx.mock
def test_rate_limit_spaces_requests_to_one_host(clock: FakeClock) -> None:
    respx.get(url__startswith=BASE).mock(return_value=httpx.Response(200, text="ok"))
    http = make_http(clock, min_interval=2.0)
    for name in "abc":
        http.get(BASE + name)
    assert clock.sleeps == [0.0, 2.0, 2.0]


@respx.mock
def test_login_wall_triggers_one_relogin_and_a_retry(clock: FakeClock) -> None:
    route = respx.get(BASE + "t").mock(
        side_effect=[httpx.Response(200, text="LOGIN-WALL"), httpx.Response(200, text="posts")]
    )
    logins: list[int] = []
    http = make_http(clock, logins=logins)
    assert http.get(BASE + "t").text == "posts"
    assert len(logins) == 2 and route.call_count == 2  # the lazy first login, then the re-login


@respx.mock
def test_a_second_login_wall_is_not_logged_in(clock: FakeClock) -> None:
    respx.get(BASE + "t").mock(return_value=httpx.Response(200, text="LOGIN-WALL"))
    with pytest.raises(NotLoggedIn, match="board.test"):
        make_http(clock, logins=[]).get(BASE + "t")


@respx.mock
def test_login_wall_without_credentials_is_not_logged_in(clock: FakeClock) -> None:
    respx.get(BASE + "t").mock(return_value=httpx.Response(200, text="LOGIN-WALL"))
    with pytest.raises(NotLoggedIn):
        make_http(clock).get(BASE + "t")


@respx.mock
def test_relogin_is_shared_by_parallel_requests(clock: FakeClock) -> None:
    lock = threading.Lock()
    served: dict[str, int] = {}

    def handler(request: httpx.Request) -> httpx.Response:
        with lock:
            served[request.url.path] = served.get(request.url.path, 0) + 1
            first = served[request.url.path] == 1
        return httpx.Response(200, text="LOGIN-WALL" if first else request.url.path)

    respx.get(url__startswith=BASE).mock(side_effect=handler)
    logins: list[int] = []
    http = make_http(clock, logins=logins)
    paths = [f"p{i}" for i in range(8)]
    texts = [page.text for page in http.map_ordered(lambda p: http.get(BASE + p), paths)]
    assert texts == [f"/forum/{p}" for p in paths]
    assert 2 <= len(logins) <= 1 + len(paths)  # every wall handled; never more than one login per wall


@respx.mock
def test_no_permission_page_and_status_codes_map_to_the_tree(clock: FakeClock) -> None:
    respx.get(BASE + "np").mock(return_value=httpx.Response(200, text="NO-PERMISSION"))
    respx.get(BASE + "403").mock(return_value=httpx.Response(403))
    respx.get(BASE + "404").mock(return_value=httpx.Response(404))
    http = make_http(clock)
    with pytest.raises(NoPermission, match=BASE + "np"):
        http.get(BASE + "np")
    with pytest.raises(NoPermission):
        http.get(BASE + "403")
    with pytest.raises(ParseError, match="404"):
        http.get(BASE + "404")


@respx.mock
def test_charset_from_meta_when_the_header_has_none(clock: FakeClock) -> None:
    body = '<html><head><meta http-equiv="content-type" content="text/html; charset=windows-1251" />Ведущий'
    respx.get(BASE + "cp").mock(
        return_value=httpx.Response(200, content=body.encode("cp1251"), headers={"Content-Type": "text/html"})
    )
    page = make_http(clock).get(BASE + "cp")
    assert page.charset == "windows-1251" and page.text.endswith("Ведущий")


def test_retry_after_parsing() -> None:
    assert retry_after_seconds("5", 0) == 5.0
    assert retry_after_seconds("Thu, 01 Jan 1970 00:01:40 GMT", 40.0) == 60.0
    assert retry_after_seconds("soon", 0) is None and retry_after_seconds(None, 0) is None


def test_forms_are_encoded_in_the_forum_charset() -> None:
    assert encode_form({"UserName": "Ведущий"}, "windows-1251") == b"UserName=%C2%E5%E4%F3%F9%E8%E9"
    assert encode_form([("m", "Ω")], "windows-1251") == b"m=%26%23937%3B"  # as a browser sends it


def test_base_url_and_rebase() -> None:
    assert normalise_base_url("http://h/forum") == "http://h/forum/"
    assert normalise_base_url("http://h/forum/index.php") == "http://h/forum/"
    with pytest.raises(ConfigError):
        normalise_base_url("forum.example")
    http = ForumHttp("http://h/forum", MarkerRules())
    assert http.url("./viewtopic.php?t=2") == "http://h/forum/viewtopic.php?t=2"
    assert http.rebase("http://127.0.0.1:8181/viewtopic.php?t=2&start=10") == (
        "http://h/forum/viewtopic.php?t=2&start=10"
    )
    assert http.rebase("./ucp.php?i=pm&start=50") == "http://h/forum/ucp.php?i=pm&start=50"
    http.close()


def test_map_ordered_keeps_order_and_bounds_concurrency(clock: FakeClock) -> None:
    http = make_http(clock, concurrency=3)
    lock = threading.Lock()
    running = peak = 0

    def work(n: int) -> int:
        nonlocal running, peak
        with lock:
            running += 1
            peak = max(peak, running)
        time.sleep(0.01)
        with lock:
            running -= 1
        return n * n

    assert list(http.map_ordered(work, range(10))) == [n * n for n in range(10)]
    assert 1 < peak <= 3
    http.close()
