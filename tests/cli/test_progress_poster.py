"""The command line's ticking poster: it counts what it writes and passes the outbox's request to address
the next PMs ahead to a poster that can, and to no other."""

from __future__ import annotations

from collections.abc import Sequence

from forumbot.cli.progress import TickingPoster
from forumbot.host.outbox import Preparing


class Plain:
    username = "host_bot"

    def send_pm(self, recipients: Sequence[str], subject: str, message: str, *, marker: str | None = None) -> int:
        return 7


class Addressing(Plain):
    def __init__(self) -> None:
        self.asked: list[list[list[str]]] = []

    def prepare_pms(self, upcoming: Sequence[Sequence[str]]) -> None:
        self.asked.append([list(names) for names in upcoming])


def test_the_request_to_address_ahead_reaches_a_poster_that_can() -> None:
    inner = Addressing()
    ticking = TickingPoster(inner)  # type: ignore[arg-type]
    assert isinstance(ticking, Preparing)
    ticking.prepare_pms([["Alice"], ["Bob Smith", "Пётр"]])
    assert inner.asked == [[["Alice"], ["Bob Smith", "Пётр"]]]
    assert ticking.send_pm(["Alice"], "s", "m") == 7 and ticking.counts == {"PM": 1}


def test_a_poster_that_cannot_address_ahead_is_left_alone() -> None:
    ticking = TickingPoster(Plain())  # type: ignore[arg-type]
    ticking.prepare_pms([["Alice"]])  # nothing to do, nothing sent, nothing counted
    assert ticking.counts == {}
