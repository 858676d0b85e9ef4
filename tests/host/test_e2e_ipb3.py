"""A whole gameru-3.3 game through the command line on the fake IPB 3.4 board, and the same game on the fake
phpBB board: new-game, deal, the opening published, two days or more of votes in the thread, end-day,
approval, publish, and the reveal. On IPB 3 the boss gives his orders as a reply inside the conversation the
bot started (his role PM), as IPB 3's Messenger has it; on phpBB as a PM of their own. Both boards must give
the same outcome, day by day. The boards and the command line's clients share one fake clock."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import forumbot.cli as cli
from fakeboard.board import Board, BoardServer
from fakeboard.clock import FakeClock
from fakeboard.ipb3 import Ipb3Server
from forumbot.forum.client import open_client
from forumbot.store import Store

GAME, BOT, BOT_PASSWORD, FORUM = "Мафия-9", "Ведущий", "секрет", 4
PLAYERS = ["Лиса", "Кот Матроскин", "Шарик", "Печкин", "Дядя Фёдор", "Winnie", "Галчонок", "Мурка", "Ёжик"]
START = datetime(2026, 11, 29, 9, 0, tzinfo=UTC)  # 12:00 in Moscow; each day ends at 23:00 Moscow time
CONFIG = """\
[game]
name = "{name}"
variant = "gameru-3.3"
players = {players}
moderators = ["Модератор"]
timezone = "Europe/Moscow"
deadline = "23:00"

[forum]
engine = "{engine}"
base_url = "{url}"
forum_id = {forum}
"""
runner = CliRunner()
Order = Callable[[str, str, datetime], None]  # (boss, text, when): the boss's order reaches the bot


def ok(*args: str) -> str:
    result = runner.invoke(cli.app, list(args))
    assert result.exit_code == 0, (args, result.output, result.exception)
    return result.output


def by_pm(board: Board) -> Order:
    return lambda boss, text, when: board.send_pm(boss, BOT, "заказ", text, when) and None


def in_the_role_conversation(board: Board, server: Ipb3Server, replies: list[int]) -> Order:
    """The boss answers inside the latest conversation the bot started with him (his role PM)."""

    def order(boss: str, text: str, when: datetime) -> None:
        started = [m for m in board.pms_to(boss) if m.sender == BOT]
        assert started, f"the bot wrote nothing to {boss}"
        conversation = server.conversation_of(started[0].pm_id)
        replies.append(server.reply_in_conversation(conversation, boss, text, when))

    return order


@contextmanager
def table(engine: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Board, FakeClock, Any]]:
    """The board as `engine`, and the command line set up to run the game on it."""
    clock = FakeClock(START)
    board = Board(language="ru", timezone="Europe/Moscow", now=lambda: datetime.fromtimestamp(clock.now, UTC))
    board.add_user(BOT, BOT_PASSWORD, moderator=True)
    board.add_user("Модератор", "pw", moderator=True)
    for nick in PLAYERS:
        board.add_user(nick, "pw")
    board.add_forum("Мафия", forum_id=FORUM)
    made = Ipb3Server(board, clock=clock) if engine == "ipb3" else BoardServer(board, clock=clock)
    with made as running:
        monkeypatch.chdir(tmp_path)
        monkeypatch.setenv("FORUMBOT_STATE", str(tmp_path / "state.db"))
        monkeypatch.setenv("FORUMBOT_USERNAME", BOT)
        monkeypatch.setenv("FORUMBOT_PASSWORD", BOT_PASSWORD)
        monkeypatch.setenv("FORUMBOT_MIN_INTERVAL", "0")
        monkeypatch.setattr(cli, "open_client", lambda settings: open_client(settings, clock=clock))
        text = CONFIG.format(
            name=GAME, players=json.dumps(PLAYERS, ensure_ascii=False), engine=engine, url=running.url, forum=FORUM
        )
        (tmp_path / "game.toml").write_text(text, "utf-8")
        yield board, clock, running
        assert not running.errors, running.errors[0]


def play_days(board: Board, clock: FakeClock, store: Store, order: Order, order_ids: list[int]) -> list[dict[str, Any]]:
    """Every day of the game until a side wins; what each day's draft decided (`order_ids`: the PMs its
    orders were read from)."""
    outcomes: list[dict[str, Any]] = []
    day_start = START
    while len(outcomes) < 6:
        row = store.game(GAME)
        state = row.state
        assert state is not None and state.winner == "none"
        day = store.day(row.id, state.day)
        assert day is not None and day["topic"]
        topic = int(day["topic"])
        mafia = [p.nick for p in state.living() if p.role == "mafia"]
        town = [p.nick for p in state.living() if p.role != "mafia"]
        boss = next(p.nick for p in state.living() if p.boss)
        for k, p in enumerate(state.living()):
            target = town[0] if p.role == "mafia" else mafia[-1]
            board.add_post(
                topic, p.nick, f"Голосую: [color=red][b]{target}[/b][/color]", day_start + timedelta(hours=1, minutes=k)
            )
        board.add_post(
            topic, town[-1], f"[quote][color=red][b]{town[0]}[/b][/color][/quote]", day_start + timedelta(hours=2)
        )
        order(boss, f"Убиваем — {town[-1]}", day_start + timedelta(hours=3))
        end = day["deadline"] + timedelta(minutes=5)
        ok("end-day", GAME, "--now", clock.iso_at(end))
        stored = store.draft(row.id, state.day)
        assert stored is not None
        draft = stored.draft.summary()
        orders = [(o["actor"], o["action"], o["targets"], o["valid"]) for o in draft["orders"]]
        outcomes.append({"deaths": draft["deaths"], "winner": draft["winner"], "orders": orders})
        order_ids.extend(o["pm_id"] for o in draft["orders"])
        ok("draft", "approve", GAME, "--by", "Модератор")
        published = ok("publish", GAME, "--flood-interval", "0", "--now", clock.iso_at(end + timedelta(minutes=1)))
        if draft["winner"] != "none":
            assert "the game is over" in published
            break
        assert re.search(r"day \d+ is open in topic \d+", published)
        assert board.topic(topic).locked
        day_start = datetime.fromtimestamp(clock.now, UTC)
    return outcomes


def play(
    engine: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[list[dict[str, Any]], list[int], list[int]]:
    """The whole game on the board: what each day's draft decided, the ids of the messages its orders were
    read from, and of the orders given as replies."""
    replies: list[int] = []
    order_ids: list[int] = []
    with table(engine, tmp_path, monkeypatch) as (board, clock, server):
        ok("new-game", "game.toml")
        ok("deal", GAME, "--seed", "11", "--now", clock.iso_at(START))
        ok("publish", GAME, "--flood-interval", "0", "--now", clock.iso_at(START + timedelta(minutes=1)))
        order = in_the_role_conversation(board, server, replies) if engine == "ipb3" else by_pm(board)
        store = Store(tmp_path / "state.db")
        try:
            outcomes = play_days(board, clock, store, order, order_ids)
            assert "(verified)" in ok("reveal", GAME)
            for nick in PLAYERS:  # every player learnt his role once
                roles = [m for m in board.pms_to(nick) if m.sender == BOT and "роль" in m.subject]
                assert len(roles) <= 1, (nick, [m.subject for m in roles])
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
