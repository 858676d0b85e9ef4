"""The per-host rate limit of the HTTP core: a budget of starts per minute, and the optional spacing."""

from __future__ import annotations

import threading

import httpx
import pytest
import respx

from forumbot.errors import ConfigError
from forumbot.forum.http import ForumHttp, HttpSettings, RateLimiter

BASE = "http://board.test/forum/"


class NoRules:
    def is_login_wall(self, html: str) -> bool:
        return False

    def is_no_permission(self, html: str) -> bool:
        return False


def test_defaults_let_a_topic_read_run_at_the_pace_of_the_concurrency() -> None:
    settings = HttpSettings()
    assert settings.min_interval == 0 and settings.concurrency == 4
    assert settings.max_per_minute >= 140 + 3  # a 3,500-post day (140 pages of 25) and the login, at once


def test_within_the_budget_nobody_waits(clock) -> None:
    limiter = RateLimiter(0.0, clock, per_minute=5)
    for _ in range(5):
        limiter.wait("board.test")
    assert clock.sleeps == []


def test_past_the_budget_a_start_waits_for_the_oldest_to_leave_the_minute(clock) -> None:
    limiter = RateLimiter(0.0, clock, per_minute=3)
    for _ in range(3):
        limiter.wait("board.test")
    clock.sleep(10.0)  # 10 s later, the window still holds the three starts
    limiter.wait("board.test")
    assert clock.sleeps == [10.0, 50.0]
    limiter.wait("board.test")  # the 2nd start of the minute left with the 1st one: same instant
    limiter.wait("board.test")
    assert clock.sleeps == [10.0, 50.0]
    limiter.wait("board.test")  # the window now holds 60 s, 60 s, 60 s: the next may start at 120 s
    assert clock.sleeps == [10.0, 50.0, 60.0]


def test_the_budget_is_per_host(clock) -> None:
    limiter = RateLimiter(0.0, clock, per_minute=2)
    for host in ("a.test", "b.test", "a.test", "b.test"):
        limiter.wait(host)
    assert clock.sleeps == []
    limiter.wait("a.test")
    assert clock.sleeps == [60.0]


def test_spacing_and_budget_together(clock) -> None:
    limiter = RateLimiter(1.0, clock, per_minute=2)
    for _ in range(3):
        limiter.wait("board.test")
    assert clock.sleeps == [0.0, 1.0, 59.0]


def test_threads_share_the_budget(clock) -> None:
    limiter = RateLimiter(0.0, clock, per_minute=4)
    threads = [threading.Thread(target=limiter.wait, args=("board.test",)) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # The 5th and 6th starts wait for the minute to pass (the 6th, reserving after the 5th slept, at once).
    assert clock.sleeps in ([60.0], [60.0, 60.0])


@respx.mock
def test_the_client_goes_through_the_budget(clock) -> None:
    respx.get(url__startswith=BASE).mock(return_value=httpx.Response(200, text="ok"))
    http = ForumHttp(BASE, NoRules(), settings=HttpSettings(max_per_minute=2), clock=clock)
    for name in "abc":
        http.get(BASE + name)
    assert clock.sleeps == [60.0]
    http.close()


def test_a_budget_below_one_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="max_per_minute"):
        HttpSettings(max_per_minute=0)
