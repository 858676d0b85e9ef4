"""The faults a test injects, taken alike by every engine's server: before acting (`fail_next`, `fail_path`) and
after acting, picked by method, a substring of the path and query, and a field of the form or the query."""

from __future__ import annotations

import pytest

from fakeboard.faults import Failure, Fault, Faults


def test_the_next_failures_come_before_the_paths_then_the_paths_stay() -> None:
    faults = Faults()
    faults.fail_path("start=10", Failure(500))
    faults.fail_next(1, Failure(503, 7))
    assert faults.before_acting("/viewtopic.php?t=1&start=10") == Failure(503, 7)
    assert faults.before_acting("/viewtopic.php?t=1&start=10") == Failure(500)
    assert faults.before_acting("/viewtopic.php?t=1&start=10") == Failure(500)
    assert faults.before_acting("/viewtopic.php?t=1") is None
    faults.fail_path("start=10", None)
    assert faults.before_acting("/viewtopic.php?t=1&start=10") is None


@pytest.mark.parametrize(
    ("where", "method", "fields", "struck"),
    [
        ("POST ucp.php#post", "POST", {"post": "Отправить"}, True),
        ("POST ucp.php#post", "POST", {"add_to": "Добавить"}, False),  # the recipients' step, not the send
        ("POST ucp.php#post", "GET", {"post": "x"}, False),
        ("POST index.php#act=Msg", "POST", {"act": "Msg"}, True),
        ("POST index.php#act=Msg", "POST", {"act": "Post"}, False),
        ("GET index.php#do=00", "GET", {"do": "00", "t": "5"}, True),  # a field of the query
        ("posting.php", "POST", {}, False),  # another script
    ],
)
def test_a_fault_after_acting_strikes_the_request_it_names_once(
    where: str, method: str, fields: dict[str, str], struck: bool
) -> None:
    faults = Faults()
    faults.fail_after_acting(where, "reset")
    target = "/ucp.php?i=pm&mode=compose" if "ucp" in where else "/index.php?"
    assert (faults.after_acting(method, target, fields) == Fault("reset")) is struck
    if struck:
        assert faults.after_acting(method, target, fields) is None


@pytest.mark.parametrize("fault", ["timeout", "reset:5", "503:soon", "404"])
def test_an_unknown_fault_is_refused(fault: str) -> None:
    with pytest.raises(ValueError, match="unknown fault"):
        Faults().fail_after_acting("POST posting.php", fault)


def test_a_busy_fault_may_say_how_long_and_strikes_before_or_after_acting_apart() -> None:
    faults = Faults()
    faults.fail_after_acting("POST posting.php", "503:30")
    faults.fail_before_acting("POST posting.php", "429")
    assert faults.pending() == 2
    assert faults.instead_of_acting("POST", "/posting.php?mode=reply", {}) == Fault("429")
    assert faults.after_acting("POST", "/posting.php?mode=reply", {}) == Fault("503", 30.0)
    assert Fault("503", 30.0).failure == Failure(503, 30.0)
    assert faults.pending() == 0
