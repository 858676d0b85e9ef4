"""`ForumHttp.get_each`: the workers only move bytes; checks and parses run in the consuming thread, a
session lost meanwhile is logged in again once, and the answers never run far ahead of the consumer."""

from __future__ import annotations

import threading

import httpx
import respx

from fakeboard.clock import FakeClock
from forumbot.forum.http import READ_AHEAD, ForumHttp, HttpSettings

BASE = "http://board.test/forum/"


class RecordingRules:
    """The dialect's page checks, noting the thread each ran in."""

    def __init__(self) -> None:
        self.threads: set[str] = set()

    def is_login_wall(self, html: str) -> bool:
        self.threads.add(threading.current_thread().name)
        return html == "LOGIN-WALL"

    def is_no_permission(self, html: str) -> bool:
        return False


def make_http(clock: FakeClock, rules: RecordingRules, logins: list[int] | None = None) -> ForumHttp:
    def authenticate(http: ForumHttp) -> None:
        if logins is not None:
            logins.append(1)

    return ForumHttp(BASE, rules, settings=HttpSettings(concurrency=4), clock=clock, authenticate=authenticate)


@respx.mock
def test_pages_are_fetched_by_the_workers_and_checked_in_the_consuming_thread(clock: FakeClock) -> None:
    fetched_in: set[str] = set()

    def answer(request: httpx.Request) -> httpx.Response:
        fetched_in.add(threading.current_thread().name)
        return httpx.Response(200, text=request.url.path)

    respx.get(url__startswith=BASE).mock(side_effect=answer)
    rules = RecordingRules()
    http = make_http(clock, rules)
    urls = [f"{BASE}p{n}" for n in range(20)]
    assert [fetched().text for fetched in http.get_each(urls)] == [f"/forum/p{n}" for n in range(20)]
    assert rules.threads == {threading.current_thread().name}
    assert fetched_in and all(name.startswith("forum-fetch") for name in fetched_in)
    http.close()


@respx.mock
def test_a_login_wall_among_the_pages_logs_in_once_and_asks_again(clock: FakeClock) -> None:
    asked: dict[str, int] = {}
    lock = threading.Lock()

    def answer(request: httpx.Request) -> httpx.Response:
        with lock:
            asked[request.url.path] = asked.get(request.url.path, 0) + 1
            first = asked[request.url.path] == 1
        wall = request.url.path == "/forum/p3" and first
        return httpx.Response(200, text="LOGIN-WALL" if wall else request.url.path)

    respx.get(url__startswith=BASE).mock(side_effect=answer)
    logins: list[int] = []
    http = make_http(clock, RecordingRules(), logins)
    texts = [fetched().text for fetched in http.get_each([f"{BASE}p{n}" for n in range(8)])]
    assert texts == [f"/forum/p{n}" for n in range(8)]
    assert len(logins) == 2 and asked["/forum/p3"] == 2  # the first login, then one for the wall
    http.close()


@respx.mock
def test_the_answers_never_run_more_than_a_window_ahead_of_the_consumer(clock: FakeClock) -> None:
    served = 0
    lock = threading.Lock()

    def answer(request: httpx.Request) -> httpx.Response:
        nonlocal served
        with lock:
            served += 1
        return httpx.Response(200, text="x" * 1000)

    respx.get(url__startswith=BASE).mock(side_effect=answer)
    http = make_http(clock, RecordingRules())
    window = READ_AHEAD * http.settings.concurrency
    for consumed, fetched in enumerate(http.get_each([f"{BASE}p{n}" for n in range(100)])):
        fetched()
        with lock:
            assert served <= window + consumed + 1
    assert served == 100
    http.close()
