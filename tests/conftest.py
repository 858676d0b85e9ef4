"""What every test shares: the fake clock, a guard against real waiting and the outside network, and English.

Tests wait on `fakeboard.clock.FakeClock` and talk only to boards served on 127.0.0.1 (or to respx). The guard
makes a slip visible: a `time.sleep` longer than `MAX_REAL_SLEEP` or a connection (or a name lookup) to a host
other than this machine fails the test, with a message saying what was asked. The call raises where it is made
and is also recorded, so a call swallowed in a server's thread still fails the test at teardown.

A test that really must wait says so with ``@pytest.mark.real_sleep(reason="...")``. Every test runs in English
(the source language) unless it asks for Russian.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Callable, Generator, Iterator
from typing import Any

import pytest

from fakeboard.clock import FakeClock

MAX_REAL_SLEEP = 0.2  # seconds: enough for a thread to poll, too little to wait for a deadline
pytest_plugins = ["pytester"]  # the guard is tested on small test files of its own (test_guard.py)

LOCAL_HOSTS = frozenset({"127.0.0.1", "::1", "localhost", "", None})  # "" and None: the local address


@pytest.fixture
def clock() -> FakeClock:
    """A fresh fake clock at the default moment; a folder may override it with its own start."""
    return FakeClock()


class Guard:
    """The calls a test made that it must not make, as messages."""

    def __init__(self) -> None:
        self.violations: list[str] = []

    def refuse(self, message: str) -> None:
        self.violations.append(message)
        pytest.fail(message, pytrace=True)


def _host_of(address: Any) -> str | None:
    """The host of a socket address: a (host, port, ...) tuple; a Unix socket's path is local (None)."""
    if isinstance(address, tuple) and address:
        host = address[0]
        return host.decode() if isinstance(host, bytes) else str(host)
    return None


def _guard_network(monkeypatch: pytest.MonkeyPatch, guard: Guard) -> None:
    real_connect: Callable[..., Any] = socket.socket.connect
    real_connect_ex: Callable[..., Any] = socket.socket.connect_ex
    real_create_connection: Callable[..., Any] = socket.create_connection
    real_getaddrinfo: Callable[..., Any] = socket.getaddrinfo

    def check(host: str | None, what: str) -> None:
        if host not in LOCAL_HOSTS:
            guard.refuse(f"{what} to {host!r}: tests talk only to 127.0.0.1, ::1 or localhost (use respx)")

    def connect(sock: socket.socket, address: Any) -> Any:
        check(_host_of(address), "socket.connect")
        return real_connect(sock, address)

    def connect_ex(sock: socket.socket, address: Any) -> Any:
        check(_host_of(address), "socket.connect_ex")
        return real_connect_ex(sock, address)

    def create_connection(address: Any, *args: Any, **kwargs: Any) -> Any:
        check(_host_of(address), "socket.create_connection")
        return real_create_connection(address, *args, **kwargs)

    def getaddrinfo(host: str | bytes | None, *args: Any, **kwargs: Any) -> Any:
        check(host.decode() if isinstance(host, bytes) else host, "a name lookup (socket.getaddrinfo)")
        return real_getaddrinfo(host, *args, **kwargs)

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket.socket, "connect_ex", connect_ex)
    monkeypatch.setattr(socket, "create_connection", create_connection)
    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)


def _guard_sleep(monkeypatch: pytest.MonkeyPatch, guard: Guard) -> None:
    real_sleep = time.sleep

    def sleep(seconds: float) -> None:
        if seconds > MAX_REAL_SLEEP:
            guard.refuse(
                f"time.sleep({seconds}) really waits: tests wait on a fake clock "
                f"(fakeboard.clock.FakeClock), or are marked real_sleep with a reason"
            )
        real_sleep(seconds)

    monkeypatch.setattr(time, "sleep", sleep)


CALL_FAILED = pytest.StashKey[bool]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """Keep whether the test's body failed: a refusal it already failed on is not reported twice."""
    report = yield
    if report.when == "call":
        item.stash[CALL_FAILED] = report.failed
    return report


@pytest.fixture(autouse=True)
def no_real_sleep_nor_outside_network(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    guard = Guard()
    _guard_network(monkeypatch, guard)
    marker = request.node.get_closest_marker("real_sleep")
    if marker is None:
        _guard_sleep(monkeypatch, guard)
    elif not marker.kwargs.get("reason"):
        pytest.fail("@pytest.mark.real_sleep needs a reason", pytrace=False)
    yield
    if guard.violations and not request.node.stash.get(CALL_FAILED, False):
        pytest.fail("\n".join(guard.violations), pytrace=False)


@pytest.fixture(autouse=True)
def english_unless_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test runs in the source language, whatever the machine's locale; a test of the Russian output
    sets FORUMBOT_LANG or LANG itself (`forumbot.i18n` reads them at each call)."""
    for variable in ("FORUMBOT_LANG", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("LANG", "C.UTF-8")
