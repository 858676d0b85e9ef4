"""The per-host rate limit of the HTTP core: a budget of starts per minute, and the optional spacing."""

from __future__ import annotations

import threading

import httpx
import pytest
import respx

from fakeboard.clock import FakeClock
from forumbot.errors import ConfigError
from forumbot.forum.http import ForumHttp, HttpSettings, RateLimiter

BASE = "http://board.test/forum/"


class NoRules:
    def is_login_wall(self, html: str) -> bool:
        return False

    def is_no_permission(self, html: str) -> bool:
        return False


def test_the_default_burst_covers_reading_the_biggest_day_at_once() -> None:
    settings = HttpSettings()
    assert settings.min_interval == 0 and settings.concurrency == 4
    assert settings.burst >= 1400 + 200 + 3  # 35,000 posts (1,400 pages of 25), 200 PMs and the login
    assert settings.requests_per_minute <= 120  # and then no more than 2 a second on average


def test_within_the_burst_nobody_waits(clock: FakeClock) -> None:
    limiter = RateLimiter(0.0, clock, per_minute=60, burst=5)
    for _ in range(5):
        limiter.wait("board.test")
    assert clock.sleeps == []


def test_past_the_burst_each_start_waits_for_its_own_token(clock: FakeClock) -> None:
    limiter = RateLimiter(0.0, clock, per_minute=60, burst=3)  # one token a second
    for _ in range(3):
        limiter.wait("board.test")
    limiter.wait("board.test")
    assert clock.sleeps == [1.0]
    clock.sleep(0.5)  # half a token refilled meanwhile
    limiter.wait("board.test")
    assert clock.sleeps == [1.0, 0.5, 0.5]


def test_an_idle_bucket_refills_up_to_its_burst_and_no_further(clock: FakeClock) -> None:
    limiter = RateLimiter(0.0, clock, per_minute=60, burst=2)
    limiter.wait("board.test")
    limiter.wait("board.test")
    clock.sleep(3600.0)  # an hour idle: still only two tokens
    for _ in range(3):
        limiter.wait("board.test")
    assert clock.sleeps == [3600.0, 1.0]


def test_the_budget_is_per_host(clock: FakeClock) -> None:
    limiter = RateLimiter(0.0, clock, per_minute=60, burst=2)
    for host in ("a.test", "b.test", "a.test", "b.test"):
        limiter.wait(host)
    assert clock.sleeps == []
    limiter.wait("a.test")
    assert clock.sleeps == [1.0]


def test_spacing_and_budget_together(clock: FakeClock) -> None:
    limiter = RateLimiter(1.0, clock, per_minute=30, burst=2)  # a token every 2 s
    for _ in range(3):
        limiter.wait("board.test")
    assert clock.sleeps == [0.0, 1.0, 1.0]  # the 3rd start: 2 s after the first, by its token


def test_threads_share_the_budget(clock: FakeClock) -> None:
    limiter = RateLimiter(0.0, clock, per_minute=60, burst=4)
    threads = [threading.Thread(target=limiter.wait, args=("board.test",)) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # Four start at once; the 5th waits a second; the 6th two seconds, or one if it came after that sleep.
    assert sorted(clock.sleeps) in ([1.0, 2.0], [1.0, 1.0])


@respx.mock
def test_the_client_goes_through_the_budget(clock: FakeClock) -> None:
    respx.get(url__startswith=BASE).mock(return_value=httpx.Response(200, text="ok"))
    http = ForumHttp(BASE, NoRules(), settings=HttpSettings(requests_per_minute=1), clock=clock)
    assert http.settings.burst == 15
    for name in "abcdefghijklmnopq":  # 17 requests: the 16th and 17th wait a minute each
        http.get(BASE + name)
    assert clock.sleeps == [60.0, 60.0]
    http.close()


def test_a_budget_below_one_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="requests_per_minute"):
        HttpSettings(requests_per_minute=0)
