"""Faults a test injects into a fake board, every engine's server alike.

Before the board acts: `fail_next` and `fail_path` answer a status page instead of the board (the board
does nothing), and `fail_before_acting(where, fault)` puts a fault in place of the board's answer to the
next request it names, the board doing nothing. After the board acted: `fail_after_acting(where, fault)`
lets the board carry the request out (the post stored, the PM sent, the topic locked) and then puts the
fault in place of its answer.

The faults (`KINDS`), as a real board or a proxy in front of it shows them:
- "503", "429": that status instead of the answer; "503:N" / "429:N" with `Retry-After: N`;
- "reset": the connection closes with no answer;
- "slow": the answer comes `slow_for` real seconds late (after a client's timeout); before acting, the
  request is held that long and then dropped;
- "login": the engine's login page instead of the answer (a session that ended, or a proxy's page);
- "invalid": the engine's answer to the same request with its form token spoiled ("the submitted form was
  invalid"): after acting, what a request replayed on the way would have been answered;
- "cut": the answer stops halfway, with no Content-Length, and the connection closes (a body that is
  empty, a redirect's, is cut inside its headers); before acting, the "invalid" answer cut so.

A fault's place is "[METHOD ]substring[#name[=value]]": the method, a substring of the path and query, and
a field of the form or the query the request must carry (with that value), e.g. "POST ucp.php#post" for a
PM's sending and not its add-recipients step."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass

KINDS = ("503", "429", "reset", "slow", "login", "invalid", "cut")
AFTER_ACTING = KINDS  # every kind strikes before or after the board acts
STATUSES = ("503", "429")


@dataclass(frozen=True)
class Failure:
    """An answer that replaces the board's: `status`, and `Retry-After` seconds when given."""

    status: int
    retry_after: float | None = None


@dataclass(frozen=True)
class Fault:
    """A fault as a test names it ("503:30", "reset", "cut"...): its kind and, for a status, `Retry-After`."""

    kind: str
    retry_after: float | None = None

    @classmethod
    def parse(cls, fault: str) -> Fault:
        kind, _, wait = fault.partition(":")
        if kind not in KINDS or (wait and (kind not in STATUSES or not wait.replace(".", "", 1).isdigit())):
            raise ValueError(f"unknown fault {fault!r}: one of {', '.join(KINDS)} (503 and 429 may say ':seconds')")
        return cls(kind, float(wait) if wait else None)

    @property
    def failure(self) -> Failure:
        """The status page of a "503" or "429" fault."""
        return Failure(int(self.kind), self.retry_after)


class Faults:
    """The faults waiting to strike, safe to share between the server's threads."""

    def __init__(self) -> None:
        self._next: list[Failure] = []
        self._paths: dict[str, Failure] = {}
        self._before_acting: list[tuple[str, Fault]] = []
        self._after_acting: list[tuple[str, Fault]] = []
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

    def fail_before_acting(self, where: str, fault: str) -> None:
        parsed = Fault.parse(fault)
        with self._lock:
            self._before_acting.append((where, parsed))

    def fail_after_acting(self, where: str, fault: str) -> None:
        parsed = Fault.parse(fault)
        with self._lock:
            self._after_acting.append((where, parsed))

    def clear(self) -> None:
        with self._lock:
            self._next.clear()
            self._paths.clear()
            self._before_acting.clear()
            self._after_acting.clear()

    def pending(self) -> int:
        """How many faults placed by `fail_before_acting` and `fail_after_acting` have not struck yet."""
        with self._lock:
            return len(self._before_acting) + len(self._after_acting)

    def before_acting(self, target: str) -> Failure | None:
        """The failure that answers the request for `target` (path and query) instead of the board, if any:
        the next of `fail_next`, else the first `fail_path` whose substring `target` holds."""
        with self._lock:
            if self._next:
                return self._next.pop(0)
            return next((failure for substr, failure in self._paths.items() if substr in target), None)

    def instead_of_acting(self, method: str, target: str, fields: Mapping[str, str]) -> Fault | None:
        """The fault placed by `fail_before_acting` for this request, taken off the list: the board does
        not act on it."""
        return self._take(self._before_acting, method, target, fields)

    def after_acting(self, method: str, target: str, fields: Mapping[str, str]) -> Fault | None:
        """The fault waiting for this request once the board has acted on it, taken off the list."""
        return self._take(self._after_acting, method, target, fields)

    def _take(
        self, faults: list[tuple[str, Fault]], method: str, target: str, fields: Mapping[str, str]
    ) -> Fault | None:
        with self._lock:
            for i, (where, fault) in enumerate(faults):
                if _matches(where, method, target, fields):
                    del faults[i]
                    return fault
        return None


def _matches(where: str, method: str, target: str, fields: Mapping[str, str]) -> bool:
    wanted_method, _, wanted = where.rpartition(" ")
    wanted, _, condition = wanted.partition("#")
    name, _, value = condition.partition("=")
    if condition and (name not in fields or (value and fields[name] != value)):
        return False
    return wanted in target and (not wanted_method or wanted_method == method)
