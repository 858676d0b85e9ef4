"""Faults a test injects into a fake board: answers that fail before the board acts (`fail_next`,
`fail_path`) and answers that fail after it acted (`fail_after_acting`: the post is stored, the PM sent, the
page made, and then the answer is lost, late, or cut short). Every engine's server takes them alike."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass

AFTER_ACTING = ("503", "429", "reset", "slow", "cut")


@dataclass(frozen=True)
class Failure:
    """An answer that replaces the board's: `status`, and `Retry-After` seconds when given."""

    status: int
    retry_after: float | None = None


class Faults:
    """The faults waiting to strike, safe to share between the server's threads."""

    def __init__(self) -> None:
        self._next: list[Failure] = []
        self._paths: dict[str, Failure] = {}
        self._after_acting: list[tuple[str, str]] = []
        self._lock = threading.Lock()

    def fail_next(self, n: int, failure: Failure) -> None:
        with self._lock:
            self._next.extend([failure] * n)

    def fail_path(self, substr: str, failure: Failure | None) -> None:
        with self._lock:
            if failure is None:
                self._paths.pop(substr, None)
            else:
                self._paths[substr] = failure

    def fail_after_acting(self, where: str, fault: str) -> None:
        if fault not in AFTER_ACTING:
            raise ValueError(f"unknown fault {fault!r}")
        with self._lock:
            self._after_acting.append((where, fault))

    def clear(self) -> None:
        with self._lock:
            self._next.clear()
            self._paths.clear()
            self._after_acting.clear()

    def before_acting(self, target: str) -> Failure | None:
        """The failure that answers the request for `target` (path and query) instead of the board, if any:
        the next of `fail_next`, else the first `fail_path` whose substring `target` holds."""
        with self._lock:
            if self._next:
                return self._next.pop(0)
            return next((failure for substr, failure in self._paths.items() if substr in target), None)

    def after_acting(self, method: str, target: str, fields: Mapping[str, str]) -> str | None:
        """The fault waiting for this request once the board has acted on it, taken off the list. A fault's
        place is "[METHOD ]substring[#name[=value]]": the method, a substring of the path and query, and a
        field of the form or the query the request must carry (with that value)."""
        with self._lock:
            for i, (where, fault) in enumerate(self._after_acting):
                if _matches(where, method, target, fields):
                    del self._after_acting[i]
                    return fault
        return None


def _matches(where: str, method: str, target: str, fields: Mapping[str, str]) -> bool:
    wanted_method, _, wanted = where.rpartition(" ")
    wanted, _, condition = wanted.partition("#")
    name, _, value = condition.partition("=")
    if condition and (name not in fields or (value and fields[name] != value)):
        return False
    return wanted in target and (not wanted_method or wanted_method == method)
