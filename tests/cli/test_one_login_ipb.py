"""One login a game on IPB 2.2 (UTF-8 and windows-1251) and IPB 3.4 (friendly URLs on and off), through the
command line: the account's cookies are kept in the state file under the board and the account (private, 0600),
the next command resumes them and posts no login form while the board's member bar shows the account; a session the
board forgot is logged in anew, once, and the new one kept. Cookies kept for one board or account are never sent to
another (`cli.common.keeping_session`, every request recorded on its way out)."""

from __future__ import annotations

import json
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

import forumbot.cli as cli
from fakeboard import Board
from fakeboard.clock import FakeClock
from fakeboard.invision import InvisionServer
from fakeboard.ipb2 import Ipb2Server
from fakeboard.ipb3 import Ipb3Server
from forumbot.cli.common import keeping_session
from forumbot.forum.client import ClientSettings
from forumbot.forum.http import HttpSettings
from forumbot.forum.registry import open_client
from forumbot.store import Store
from tests.cli.test_rehearsal import BOT, BOT_PASSWORD, CONFIG, FORUM, GAME, PLAYERS, START, day_topic, ok, vote

MODERATOR, MODERATOR_PASSWORD = "Модератор", "pw"
ENGINES: dict[str, tuple[str, Callable[..., InvisionServer], dict[str, Any]]] = {
    "ipb2-utf8": ("ipb2", Ipb2Server, {"charset": "utf-8"}),
    "ipb2-cp1251": ("ipb2", Ipb2Server, {"charset": "windows-1251"}),
    "ipb3-friendly": ("ipb3", Ipb3Server, {"friendly_urls": True}),
    "ipb3-plain": ("ipb3", Ipb3Server, {"friendly_urls": False}),
}


class Recording(httpx.BaseTransport):
    """The client's transport, every request written down (its address and the cookies it carried)."""

    def __init__(self, sent: list[tuple[str, str]]) -> None:
        self._inner = httpx.HTTPTransport()
        self._sent = sent

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self._sent.append((f"{request.url.host}:{request.url.port}", request.headers.get("Cookie", "")))
        return self._inner.handle_request(request)

    def close(self) -> None:
        self._inner.close()


@dataclass
class Table:
    engine: str
    board: Board
    server: InvisionServer
    clock: FakeClock
    state: Path
    sent: list[tuple[str, str]] = field(default_factory=list)

    def logins(self, server: InvisionServer | None = None) -> int:
        """Login forms posted to the board so far."""
        sign_in = "act=Login" if self.engine == "ipb2" else "do=process"
        posted: int = (server or self.server).count("index.php", method="POST", query=sign_in)
        return posted

    def voters(self) -> list[str]:
        status = ok("status", GAME, "--votes", "--json", "--now", self.clock.iso_at(START + timedelta(hours=2)))
        return sorted(v["voter"] for v in json.loads(status[status.index("{") :])["votes"])

    def kept(self, account: str = BOT, forum: str | None = None) -> dict[str, str]:
        store = Store(self.state, create=False)
        try:
            kept = store.board_session(forum or self.server.url, account)
        finally:
            store.close()
        assert kept is not None
        return {name: value for name, value, *_ in json.loads(kept)}


def made_board(clock: FakeClock) -> Board:
    board = Board(language="ru", timezone="Europe/Moscow", now=lambda: datetime.fromtimestamp(clock.now, UTC))
    board.add_user(BOT, BOT_PASSWORD, moderator=True)
    board.add_user(MODERATOR, MODERATOR_PASSWORD, moderator=True)
    for nick in PLAYERS:
        board.add_user(nick, "pw")
    board.add_forum("Мафия", forum_id=FORUM)
    return board


@pytest.fixture(params=sorted(ENGINES))
def table(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Table]:
    engine, kind, options = ENGINES[str(request.param)]
    clock = FakeClock(START)
    board = made_board(clock)
    with kind(board, clock=clock, **options) as running:
        made = Table(engine, board, running, clock, tmp_path / "state.db")
        monkeypatch.chdir(tmp_path)
        monkeypatch.setenv("FORUMBOT_STATE", str(made.state))
        monkeypatch.setenv("FORUMBOT_USERNAME", BOT)
        monkeypatch.setenv("FORUMBOT_PASSWORD", BOT_PASSWORD)
        monkeypatch.setenv("FORUMBOT_MIN_INTERVAL", "0")
        transport = Recording(made.sent)
        monkeypatch.setattr(cli, "open_client", lambda s: open_client(s, clock=clock, transport=transport))
        config = CONFIG.format(url=running.url).replace('engine = "phpbb"', f'engine = "{engine}"')
        (tmp_path / "game.toml").write_text(config, "utf-8")
        yield made
        assert not running.errors, running.errors[0]


def test_the_next_commands_resume_the_session_until_the_board_forgets_it(table: Table) -> None:
    ok("new-game", "game.toml")
    ok("deal", GAME, "--seed", "11", "--now", table.clock.iso_at(START))
    topic = day_topic(ok("publish", GAME, "--flood-interval", "0", "--now", table.clock.iso_at(START)))
    assert table.logins() == 1
    vote(table.board, topic, PLAYERS[1], PLAYERS[0], START + timedelta(hours=1))
    assert table.voters() == [PLAYERS[1]]
    assert table.logins() == 1  # the publish's session, resumed
    table.server.expire_sessions(keep_autologin=True)  # the session is gone, the remembered login is not
    vote(table.board, topic, PLAYERS[2], PLAYERS[0], START + timedelta(hours=1, minutes=1))
    assert table.voters() == [PLAYERS[1], PLAYERS[2]]
    assert table.logins() == 1  # IPB logged the account in again from member_id and pass_hash
    table.server.expire_sessions()  # the board refuses the kept session altogether
    assert table.voters() == [PLAYERS[1], PLAYERS[2]]
    assert table.logins() == 2  # logged in anew, once
    assert table.voters() == [PLAYERS[1], PLAYERS[2]] and table.logins() == 2  # and the new session is kept


def test_the_cookies_are_kept_in_the_private_state_file_under_the_board_and_the_account(table: Table) -> None:
    ok("new-game", "game.toml")
    ok("deal", GAME, "--seed", "11", "--now", table.clock.iso_at(START))
    ok("publish", GAME, "--flood-interval", "0", "--now", table.clock.iso_at(START))
    assert {"member_id", "pass_hash", "session_id"} <= set(table.kept())
    bot = table.board.user(BOT)
    assert bot is not None and table.kept()["member_id"] == str(bot.user_id)
    store = Store(table.state, create=False)
    try:
        assert store.board_session(table.server.url, MODERATOR) is None
    finally:
        store.close()
    assert stat.S_IMODE(table.state.stat().st_mode) == 0o600


def read_as(table: Table, store: Store, forum: str, account: str, password: str) -> list[tuple[str, set[str]]]:
    """One command's reading of the board at `forum` as `account`, its session kept in `store`: where each of its
    requests went, with the values of the cookies it carried."""
    settings = ClientSettings(forum, account, password, table.engine, HttpSettings(min_interval=0.0))
    start = len(table.sent)
    client = cli.open_client(settings)
    try:
        with keeping_session(client, store):
            client.fetch_inbox()
    finally:
        client.close()
    return [(to, {c.partition("=")[2] for c in header.split("; ") if c}) for to, header in table.sent[start:]]


def secrets_of(kept: dict[str, str]) -> set[str]:
    return {kept["session_id"], kept["pass_hash"]}


def test_the_cookies_of_one_board_or_account_are_never_sent_to_another(table: Table) -> None:
    kind, options = next((v[1], v[2]) for v in ENGINES.values() if v[0] == table.engine)
    with kind(made_board(table.clock), clock=table.clock, **options) as other:
        store = Store(table.state)
        try:
            read_as(table, store, table.server.url, BOT, BOT_PASSWORD)
            bots = table.kept()
            moderator_reads = read_as(table, store, table.server.url, MODERATOR, MODERATOR_PASSWORD)
            elsewhere_reads = read_as(table, store, other.url, BOT, BOT_PASSWORD)
            resumed_reads = read_as(table, store, table.server.url, BOT, BOT_PASSWORD)
        finally:
            store.close()
        assert table.logins() == 2 and table.logins(other) == 1  # each account and board its own login, once
        assert not other.errors, other.errors[0]
        moderators, elsewhere = table.kept(MODERATOR), table.kept(BOT, other.url)
        here, there = f"127.0.0.1:{table.server.port}", f"127.0.0.1:{other.port}"
    assert {to for to, _ in moderator_reads + resumed_reads} == {here} and {to for to, _ in elsewhere_reads} == {there}
    assert not any(secrets_of(bots) & carried for _, carried in moderator_reads)
    assert not any((secrets_of(bots) | secrets_of(moderators)) & carried for _, carried in elsewhere_reads)
    assert not any((secrets_of(moderators) | secrets_of(elsewhere)) & carried for _, carried in resumed_reads)
    assert bots["session_id"] in resumed_reads[0][1]  # the bot's own session, resumed from its first request
