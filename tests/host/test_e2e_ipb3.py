"""A whole gameru-3.3 game through the command line on the fake IPB 3.4 board, and the same game on the fake
phpBB board: new-game, deal, the opening published, two days or more of votes in the thread, end-day,
approval, publish, and the reveal. On IPB 3 the boss gives his orders as a reply inside the conversation the
bot started (his role PM), as IPB 3's Messenger has it; on phpBB as a PM of their own. Both boards must give
the same outcome, day by day. The boards and the command line's clients share one fake clock."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from game_support import BOT, GAME, Order, assert_roles_told_once, by_pm, ok, open_game, play_days, table

from fakeboard import Board
from fakeboard.clock import FakeClock
from fakeboard.ipb3 import Ipb3Server
from forumbot.store import Store


def in_the_role_conversation(board: Board, server: Ipb3Server, replies: list[int]) -> Order:
    """The boss answers inside the latest conversation the bot started with him (his role PM)."""

    def order(boss: str, text: str, when: datetime) -> None:
        started = [m for m in board.pms_to(boss) if m.sender == BOT]
        assert started, f"the bot wrote nothing to {boss}"
        conversation = server.conversation_of(started[0].pm_id)
        replies.append(server.reply_in_conversation(conversation, boss, text, when))

    return order


def ipb3(board: Board, clock: FakeClock) -> Ipb3Server:
    return Ipb3Server(board, clock=clock)


def play(
    engine: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[list[dict[str, Any]], list[int], list[int]]:
    """The whole game on the board: what each day's draft decided, the ids of the messages its orders were
    read from, and of the orders given as replies."""
    replies: list[int] = []
    order_ids: list[int] = []
    with table(engine, tmp_path, monkeypatch, ipb3 if engine == "ipb3" else None) as (board, clock, server):
        open_game(clock)
        order = in_the_role_conversation(board, server, replies) if engine == "ipb3" else by_pm(board)
        store = Store(tmp_path / "state.db")
        try:
            outcomes: list[dict[str, Any]] = play_days(board, clock, store, order, order_ids)
            assert "(verified)" in ok("reveal", GAME)
            assert_roles_told_once(board)
            if engine == "ipb3":  # every PM of the bot began a conversation of its own
                sent = board.pms_from(BOT)
                assert len({server.conversation_of(m.pm_id) for m in sent}) == len(sent)
        finally:
            store.close()
    return outcomes, order_ids, replies


def test_a_whole_game_on_ipb3_has_the_outcome_it_has_on_phpbb(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "phpbb").mkdir()
    (tmp_path / "ipb3").mkdir()
    on_phpbb, _, _ = play("phpbb", tmp_path / "phpbb", monkeypatch)
    on_ipb3, read, replies = play("ipb3", tmp_path / "ipb3", monkeypatch)
    assert len(on_phpbb) >= 2  # the mafia does not all fall on day 1
    assert on_ipb3 == on_phpbb
    assert on_ipb3[-1]["winner"] == "town"
    # each day's order is the boss's reply inside his role conversation, read and counted
    assert read == replies and len(replies) == len(on_ipb3)
    assert all(valid for day in on_ipb3 for *_, valid in day["orders"])
