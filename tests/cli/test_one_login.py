"""One login a game, not a command: the board's session (phpBB's cookies, its "remember me" key among them) is
kept in the state file and resumed by the next command, used until the board refuses it (`cli.common.
keeping_session`). Commands run through the command line against the fake phpBB on a fake clock."""

from __future__ import annotations

import json
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

import forumbot.cli as cli
from fakeboard import Board, BoardServer
from fakeboard.clock import FakeClock
from forumbot.forum.registry import open_client
from forumbot.store import Store
from tests.cli.test_rehearsal import BOT, BOT_PASSWORD, CONFIG, FORUM, GAME, PLAYERS, START, day_topic, ok, vote


@dataclass
class Table:
    board: Board
    server: BoardServer
    clock: FakeClock
    state: Path

    def logins(self) -> int:
        """Login forms posted to the board so far."""
        return self.server.count("ucp.php", method="POST", query="mode=login")

    def voters(self) -> list[str]:
        status = ok("status", GAME, "--votes", "--json", "--now", self.clock.iso_at(START + timedelta(hours=2)))
        return sorted(v["voter"] for v in json.loads(status[status.index("{") :])["votes"])


@pytest.fixture
def table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Table]:
    clock = FakeClock(START)
    board = Board(language="ru", timezone="Europe/Moscow", now=lambda: datetime.fromtimestamp(clock.now, UTC))
    board.add_user(BOT, BOT_PASSWORD, moderator=True)
    board.add_user("Модератор", "pw", moderator=True)
    for nick in PLAYERS:
        board.add_user(nick, "pw")
    board.add_forum("Мафия", forum_id=FORUM)
    with BoardServer(board, clock=clock) as running:
        monkeypatch.chdir(tmp_path)
        monkeypatch.setenv("FORUMBOT_STATE", str(tmp_path / "state.db"))
        monkeypatch.setenv("FORUMBOT_USERNAME", BOT)
        monkeypatch.setenv("FORUMBOT_PASSWORD", BOT_PASSWORD)
        monkeypatch.setenv("FORUMBOT_MIN_INTERVAL", "0")
        monkeypatch.setattr(cli, "open_client", lambda settings: open_client(settings, clock=clock))
        (tmp_path / "game.toml").write_text(CONFIG.format(url=running.url), "utf-8")
        yield Table(board, running, clock, tmp_path / "state.db")
        assert not running.errors, running.errors[0]


def test_the_next_commands_resume_the_session_until_the_board_refuses_it(table: Table) -> None:
    ok("new-game", "game.toml")
    ok("deal", GAME, "--seed", "11", "--now", table.clock.iso_at(START))
    topic = day_topic(ok("publish", GAME, "--flood-interval", "0", "--now", table.clock.iso_at(START)))
    assert table.logins() == 1
    vote(table.board, topic, PLAYERS[1], PLAYERS[0], START + timedelta(hours=1))
    assert table.voters() == [PLAYERS[1]]
    assert table.logins() == 1  # the publish's session, resumed
    table.server.expire_sessions(keep_autologin=True)  # the session is gone, the "remember me" key is not
    vote(table.board, topic, PLAYERS[2], PLAYERS[0], START + timedelta(hours=1, minutes=1))
    assert table.voters() == [PLAYERS[1], PLAYERS[2]]
    assert table.logins() == 1  # phpBB logged the account in again from its key
    table.server.expire_sessions()  # the board refuses the kept session altogether
    assert table.voters() == [PLAYERS[1], PLAYERS[2]]
    assert table.logins() == 2  # logged in anew, once
    assert table.voters() == [PLAYERS[1], PLAYERS[2]] and table.logins() == 2  # and the new session is kept


def test_the_session_is_kept_in_the_private_state_file_under_the_account(table: Table) -> None:
    ok("new-game", "game.toml")
    ok("deal", GAME, "--seed", "11", "--now", table.clock.iso_at(START))
    ok("publish", GAME, "--flood-interval", "0", "--now", table.clock.iso_at(START))
    store = Store(table.state)
    try:
        kept = store.board_session(table.server.url, BOT)
        assert store.board_session(table.server.url, "Модератор") is None
    finally:
        store.close()
    assert kept is not None and {name.rsplit("_", 1)[-1] for name, *_ in json.loads(kept)} >= {"u", "k", "sid"}
    assert stat.S_IMODE(table.state.stat().st_mode) == 0o600
