"""`kill -9` at each step of a publication, for real: `forumbot publish` runs in its own process against the
fake phpBB board on 127.0.0.1, and the board kills it with SIGKILL when it meets a chosen request, before or
after acting on it (the PM sent, the topic posted, the topic locked, and the bot never reads the answer).
`forumbot publish` is then run again, as the host or cron would; every letter is on the board exactly once
and the game has moved on once. The in-process crash checkpoints (test_publish.py) stop at the outbox's own
steps; this stops the process wherever the network leaves it, state file and all."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from publish_support import BOT, BOT_PASSWORD, GAME, Played, board_with_day1, game_config, played_on
from test_publish import assert_published_once

from fakeboard import BoardServer
from fakeboard.server import Request, Response
from forumbot.store import Store

ROOT = Path(__file__).resolve().parents[2]
RUN_TIMEOUT = 120.0  # seconds a run of `forumbot publish` may take before the test gives up on it

Strikes = Callable[[Request], bool]


def pm_send(request: Request) -> bool:
    return request.method == "POST" and request.query.get("mode") == "compose" and "post" in request.form


def topic_post(request: Request) -> bool:
    return request.method == "POST" and request.path.endswith("posting.php") and request.query.get("mode") == "post"


def lock_confirm(request: Request) -> bool:
    return request.method == "POST" and request.path.endswith("mcp.php")


def any_request(request: Request) -> bool:
    return True


@dataclass(frozen=True)
class KillPoint:
    """The `nth` request that `strikes`, and whether the process dies before the board acts on it or after."""

    name: str
    strikes: Strikes
    nth: int
    after: bool


POINTS = [
    KillPoint("after the first role PM went out", pm_send, 1, after=True),
    KillPoint("before the third role PM", pm_send, 3, after=False),
    KillPoint("after the topic was posted", topic_post, 1, after=True),
    KillPoint("after the lock", lock_confirm, 1, after=True),
    KillPoint("after the sheriff's check went out", pm_send, 5, after=True),
    KillPoint("at the 17th request, a page read", any_request, 17, after=True),
]


class KillingBoard(BoardServer):
    """The fake phpBB board that SIGKILLs `victim` at `point`, and answers the dead process nothing."""

    def __init__(self, *args: Any, **options: Any) -> None:
        super().__init__(*args, **options)
        self.point: KillPoint | None = None
        self.victim: subprocess.Popen[str] | None = None
        self.seen = 0
        self.killed = False

    def _dispatch(self, request: Request) -> Response:
        point, victim = self.point, self.victim
        if point is None or victim is None or not point.strikes(request):
            return super()._dispatch(request)
        self.seen += 1
        if self.seen != point.nth:
            return super()._dispatch(request)
        if not point.after:
            self._kill(victim)
            return Response(503)
        response = super()._dispatch(request)
        self._kill(victim)
        return response

    def _kill(self, victim: subprocess.Popen[str]) -> None:
        self.killed = True
        os.kill(victim.pid, signal.SIGKILL)
        victim.wait(timeout=10)  # dead before the board answers: the bot never reads what it did


def publish_process(day: Played, tmp_path: Path) -> subprocess.Popen[str]:
    env = {
        "PATH": os.environ.get("PATH", ""),
        "PYTHONPATH": str(ROOT),
        "LANG": "C.UTF-8",
        "FORUMBOT_STATE": str(tmp_path / "state.db"),
        "FORUMBOT_USERNAME": BOT,
        "FORUMBOT_PASSWORD": BOT_PASSWORD,
        "FORUMBOT_MIN_INTERVAL": "0",
    }
    command = [sys.executable, "-c", "from forumbot.cli import app; app()", "publish", GAME]
    return subprocess.Popen(command, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def run_to_the_end(day: Played, tmp_path: Path) -> tuple[int, str]:
    process = publish_process(day, tmp_path)
    server = day.server
    assert isinstance(server, KillingBoard)
    server.victim = process
    output, _ = process.communicate(timeout=RUN_TIMEOUT)
    return process.returncode, output


@pytest.mark.real_sleep(reason="a real `forumbot publish` process keeps phpBB's one-second rule on the real clock")
@pytest.mark.parametrize("point", POINTS, ids=lambda point: point.name)
def test_a_publish_killed_at_any_step_then_run_again_posts_everything_exactly_once(
    tmp_path: Path, point: KillPoint
) -> None:
    board, topic = board_with_day1()
    server = KillingBoard(board)
    store = Store(tmp_path / "state.db")
    with played_on(server, lambda: Played(board, server, None, store, game_config(server.url), topic)) as day:
        server.point = point
        code, output = run_to_the_end(day, tmp_path)
        assert server.killed and code == -signal.SIGKILL, output
        server.point = None
        code, output = run_to_the_end(day, tmp_path)
        assert code == 0, output
        assert_published_once(day)
