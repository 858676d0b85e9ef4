"""The suite's guard (tests/conftest.py) run on small test files of its own: what it refuses and what it lets by."""

from __future__ import annotations

from pathlib import Path

import pytest

CONFTEST = Path(__file__).with_name("conftest.py").read_text(encoding="utf-8")


def run(pytester: pytest.Pytester, source: str) -> pytest.RunResult:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_inner=source)
    return pytester.runpytest_inprocess("-q", "-p", "no:cacheprovider")


def test_a_connection_to_another_host_fails_the_test_and_says_why(pytester: pytest.Pytester) -> None:
    result = run(
        pytester,
        """
import socket

def test_outside():
    socket.create_connection(("203.0.113.7", 80), timeout=0.01)

def test_outside_by_name():
    socket.getaddrinfo("example.org", 443)

def test_outside_by_bare_socket():
    with socket.socket() as sock:
        sock.connect(("198.51.100.1", 80))
""",
    )
    result.assert_outcomes(failed=3)
    result.stdout.fnmatch_lines(
        [
            "*socket.create_connection to '203.0.113.7': tests talk only to 127.0.0.1, ::1 or localhost*",
            "*a name lookup (socket.getaddrinfo) to 'example.org'*",
            "*socket.connect to '198.51.100.1'*",
        ]
    )


def test_a_refused_call_swallowed_by_the_code_still_fails_the_test(pytester: pytest.Pytester) -> None:
    result = run(
        pytester,
        """
import socket, threading

def test_in_a_thread():
    thread = threading.Thread(target=lambda: socket.getaddrinfo("example.org", 80))
    thread.start()
    thread.join()
""",
    )
    result.assert_outcomes(passed=1, errors=1)  # the call itself passed; the teardown reports it
    result.stdout.fnmatch_lines(["*a name lookup (socket.getaddrinfo) to 'example.org'*"])


def test_this_machine_is_allowed(pytester: pytest.Pytester) -> None:
    result = run(
        pytester,
        """
import socket

def test_local():
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        for host in ("127.0.0.1", "localhost"):
            socket.create_connection((host, port), timeout=1).close()

def test_the_clock_fixture(clock):
    clock.sleep(3600)
    assert clock.slept == 3600
""",
    )
    result.assert_outcomes(passed=2)


def test_a_real_sleep_longer_than_the_bound_fails_the_test(pytester: pytest.Pytester) -> None:
    result = run(
        pytester,
        """
import time

def test_waits():
    time.sleep(5)

def test_polls():
    time.sleep(0.01)
""",
    )
    result.assert_outcomes(failed=1, passed=1)
    result.stdout.fnmatch_lines(["*time.sleep(5) really waits: tests wait on a fake clock*"])


@pytest.mark.real_sleep(reason="the inner test it runs really sleeps a quarter of a second")
def test_a_test_marked_with_a_reason_may_really_wait_and_one_without_a_reason_may_not(
    pytester: pytest.Pytester,
) -> None:
    result = run(
        pytester,
        """
import time
import pytest

@pytest.mark.real_sleep(reason="it says why")
def test_marked():
    time.sleep(0.25)

@pytest.mark.real_sleep
def test_marked_without_a_reason():
    pass
""",
    )
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*@pytest.mark.real_sleep needs a reason*"])
