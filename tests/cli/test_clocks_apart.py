"""The board's clock two days behind the bot's `--now` (the rehearsal as it was before it had one clock): a
PM the watch answered is dated before anything the day lists, and end-day still lists it in the orders
audit, saying it came before the day's start; nothing the bot answered is missing from the audit."""

from __future__ import annotations

import json
from datetime import timedelta

from fakeboard import Board
from fakeboard.clock import FakeClock
from tests.cli.test_rehearsal import GAME, PLAYERS, START, as_json, ok, table

__all__ = ["table"]


def test_a_pm_the_watch_answered_is_in_the_audit_when_the_clocks_disagree(table: tuple[Board, FakeClock]) -> None:
    board, clock = table
    bot_time = START + timedelta(days=2)  # the bot's --now; the board stays at START
    ok("new-game", "game.toml")
    ok("deal", GAME, "--seed", "11", "--now", bot_time.isoformat())
    ok("publish", GAME, "--flood-interval", "0", "--now", (bot_time + timedelta(minutes=1)).isoformat())
    status = as_json(ok("status", GAME, "--json", "--secret", "--now", (bot_time + timedelta(minutes=2)).isoformat()))
    boss = next(p["nick"] for p in status["players"] if p.get("boss"))
    victim = next(n for n in PLAYERS if n != boss)
    clock.advance(60)
    pm = board.send_pm(boss, "Ведущий", GAME, f"Убиваем — {victim}")
    watched = as_json(ok("watch", GAME, "--json", "--now", (bot_time + timedelta(hours=1)).isoformat()))
    assert pm in watched["handled"], watched
    ok("end-day", GAME, "--early", "проверка", "--now", (bot_time + timedelta(hours=2)).isoformat())
    orders = as_json(ok("draft", "show", GAME, "--json"))["orders"]
    assert [(o["actor"], o["reason"]) for o in orders if o.get("pm_id") == pm] == [(boss, "before_start")], json.dumps(
        orders, ensure_ascii=False
    )
