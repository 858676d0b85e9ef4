"""Whole games on the conformant fake IPB 2.2 (UTF-8 and windows-1251) and IPB 3.4 (friendly URLs on and off),
from the opening to the reveal, under random faults: the board acts and then answers 503 or 429 or drops the
connection, on a topic, a reply, a PM and the close; the process crashes between any two steps of a publication;
each run is tried again as a host (or cron) would. Whatever the faults, every letter the game meant to send is on
the board exactly once, none is left due or set aside, and the game reaches its reveal."""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from ipb_support import BOT_LOGIN, LOGINS
from publish_support import BOT, BOT_PASSWORD, FORUM, GAME, PLAYERS, SEED, Crash, game_config

from fakeboard import Board
from fakeboard.clock import FakeClock
from fakeboard.invision import InvisionServer
from fakeboard.ipb2 import Ipb2Server
from fakeboard.ipb3 import Ipb3Server
from forumbot.errors import ForumError
from forumbot.forum.http import HttpSettings
from forumbot.forum.invision.reader import InvisionClient
from forumbot.forum.ipb2.reader import IpbClient
from forumbot.forum.ipb3.reader import Ipb3Client
from forumbot.forum.registry import poster_for
from forumbot.host import games
from forumbot.host.outbox import MARKER
from forumbot.host.publish import publish
from forumbot.host.watch import watch_once
from forumbot.store import Store

START = datetime(2026, 11, 29, 9, 0, tzinfo=UTC)
WRITES = {
    2: ("POST index.php#act=Post", "POST index.php#act=Msg", "POST index.php#act=Mod"),
    3: ("POST index.php#module=post", "POST index.php#do=send", "GET index.php#do=00"),
}
FAULT_KINDS = ("503", "429", "reset")
BOARDS = [
    pytest.param(2, {"charset": "utf-8"}, id="ipb2-utf8"),
    pytest.param(2, {"charset": "windows-1251"}, id="ipb2-cp1251"),
    pytest.param(3, {"friendly_urls": True}, id="ipb3-friendly-urls"),
    pytest.param(3, {"friendly_urls": False}, id="ipb3-plain-urls"),
]
RUNS = 12  # how many times a host runs a command again before the test calls it stuck


@dataclass
class Table:
    """A game on a fake IPB board: the board, its server, the shared clock, the state file; `crashes` are the
    publication checkpoints (counted across the game) at which the process dies."""

    version: int
    board: Board
    server: InvisionServer
    clock: FakeClock
    store: Store
    crashes: set[int] = field(default_factory=set)
    passed: int = 0  # checkpoints passed so far
    clients: list[InvisionClient] = field(default_factory=list)

    def client(self) -> InvisionClient:
        kind = IpbClient if self.version == 2 else Ipb3Client
        settings = HttpSettings(min_interval=0.0, backoff_base=0.0, max_attempts=2)
        made = kind(self.server.url, username=BOT_LOGIN, password=BOT_PASSWORD, settings=settings, clock=self.clock)
        self.clients.append(made)
        return made

    def checkpoint(self, step: str) -> None:
        self.passed += 1
        if self.passed in self.crashes:
            raise Crash(step)

    def now(self) -> datetime:
        return datetime.fromtimestamp(self.clock.now, UTC)

    def again_and_again(self, run: Callable[[InvisionClient], object]) -> None:
        """`run` with a fresh client (a new process) until it goes through."""
        for _ in range(RUNS):
            try:
                run(self.client())
                return
            except (ForumError, Crash):
                self.clock.advance(60)
        raise AssertionError(f"still failing after {RUNS} runs")

    def publish(self) -> None:
        self.again_and_again(
            lambda client: publish(
                self.store, GAME, client, self.now(), poster=poster_for(client), checkpoint=self.checkpoint
            )
        )

    def watch(self) -> None:
        """Watch passes until nothing is due (a pass that met a fault leaves its letters due)."""

        def one(client: InvisionClient) -> None:
            report = watch_once(self.store, GAME, client, poster_for(client), self.now())
            if self.store.pending(self.store.game(GAME).id):
                raise ForumError(f"still due after a pass: {report.problems}")

        self.again_and_again(one)


@contextmanager
def table(tmp_path: Path, version: int, **server: Any) -> Iterator[Table]:
    clock = FakeClock(START)
    board = Board(language="ru", timezone="Europe/Moscow", now=lambda: datetime.fromtimestamp(clock.now, UTC))
    board.add_user(BOT, BOT_PASSWORD, moderator=True)
    board.add_user("admin", "admin-secret", moderator=True)
    for nick in PLAYERS:
        board.add_user(nick, f"{nick}-secret")
    board.add_forum("Mafia", forum_id=FORUM)
    kind: type[InvisionServer] = Ipb2Server if version == 2 else Ipb3Server
    running = kind(board, clock=clock, logins=LOGINS, **server)
    with running:
        store = Store(tmp_path / "state.db")
        made = Table(version, board, running, clock, store)
        try:
            config = game_config(running.url, engine=f"ipb{version}").model_copy()
            games.create_game(store, config)
            games.deal_game(store, GAME, START, seed=SEED)
            yield made
        finally:
            for client in made.clients:
                client.close()
            store.close()
    assert not running.errors, running.errors[0]


def play_to_the_reveal(game: Table) -> int:
    """The opening published, then each day: votes in the thread, the boss's order by PM (its receipt sent by
    the watch), end-day after the deadline, approval, publish; until a side wins. The days played."""
    game.clock.advance(60)
    game.publish()
    for day_number in range(1, 8):
        row = game.store.game(GAME)
        state = row.state
        assert state is not None
        if state.winner != "none":
            return day_number - 1
        day = game.store.day(row.id, state.day)
        assert day is not None and day["topic"]
        topic = int(day["topic"])
        mafia = [p.nick for p in state.living() if p.role == "mafia"]
        town = [p.nick for p in state.living() if p.role != "mafia"]
        boss = next(p.nick for p in state.living() if p.boss)
        begun = game.now()
        for k, player in enumerate(state.living()):
            target = town[0] if player.role == "mafia" else mafia[-1]
            vote = f"Голосую: [color=red][b]{target}[/b][/color]"
            game.board.add_post(topic, player.nick, vote, begun + timedelta(minutes=10 + k))
        game.board.send_pm(boss, BOT, "заказ", f"Убиваем — {town[-1]}", begun + timedelta(minutes=30))
        game.clock.now = (begun + timedelta(hours=1)).timestamp()
        game.watch()
        game.clock.now = (day["deadline"] + timedelta(minutes=5)).timestamp()
        game.again_and_again(lambda client: games.end_day(game.store, GAME, client, now=game.now()))
        games.approve(game.store, GAME, "admin")
        game.clock.advance(60)
        game.publish()
    raise AssertionError("no side won in seven days")


def assert_every_letter_once(game: Table) -> None:
    """Every letter the game meant to send is on the board exactly once; none is due or set aside."""
    rows = game.store.outbox(game.store.game(GAME).id)
    assert rows and all(row["status"] == "sent" for row in rows), [(r["marker"], r["status"]) for r in rows]
    texts = [p.body for t in game.board.topics for p in t.posts] + [m.body for m in game.board.pms_from(BOT)]
    on_board = [marker for text in texts for marker in MARKER.findall(text)]
    for row in rows:
        if row["kind"] != "lock":
            assert on_board.count(row["marker"]) == 1, (row["kind"], row["recipients"], on_board.count(row["marker"]))
    assert len(on_board) == len(set(on_board))  # nothing written twice, not even a letter of an older run


def assert_revealed(game: Table) -> None:
    """The game is over and every player was sent the reveal."""
    row = game.store.game(GAME)
    assert row.state is not None and row.state.winner != "none"
    reveals = [r["recipients"][0] for r in game.store.outbox(row.id) if r["purpose"] == "reveal"]
    assert sorted(reveals) == sorted(PLAYERS)


@pytest.mark.parametrize(("version", "server"), BOARDS)
def test_a_whole_game_without_faults_writes_every_letter_once(version: int, server: dict[str, Any]) -> None:
    with tempfile.TemporaryDirectory() as tmp, table(Path(tmp), version, **server) as game:
        assert play_to_the_reveal(game) >= 2
        assert_every_letter_once(game)
        assert_revealed(game)


FAULTS = st.lists(st.tuples(st.integers(0, 2), st.sampled_from(FAULT_KINDS)), max_size=5)
CRASHES = st.sets(st.integers(1, 60), max_size=3)


@pytest.mark.parametrize(("version", "server"), BOARDS)
@settings(
    max_examples=4, deadline=None, phases=[Phase.generate], suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(faults=FAULTS, crashes=CRASHES)
def test_random_faults_and_crashes_never_double_or_lose_a_letter_of_a_whole_game(
    version: int, server: dict[str, Any], faults: list[tuple[int, str]], crashes: set[int]
) -> None:
    with tempfile.TemporaryDirectory() as tmp, table(Path(tmp), version, **server) as game:
        for where, fault in faults:
            game.server.fail_after_acting(WRITES[version][where], fault)
        game.crashes = crashes
        play_to_the_reveal(game)
        assert_every_letter_once(game)
        assert_revealed(game)
