"""A whole gameru-3.3 game through the command line on the fake IPB 2.2 board (UTF-8 and windows-1251),
and the same game on the fake phpBB board: new-game, deal, the opening published, two days or more of
votes in the thread and orders by PM, end-day, approval, publish, and the reveal. Both boards must give
the same outcome, day by day. The boards and the command line's clients share one fake clock, so the
boards' rules (2 s between IPB submissions, the one-second form rule of phpBB) cost no real time."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from game_support import GAME, assert_roles_told_once, by_pm, ok, open_game, play_days, table

from fakeboard import Board
from fakeboard.clock import FakeClock
from fakeboard.ipb2 import Ipb2Server
from forumbot.store import Store


def play(engine: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, **server: Any) -> list[dict[str, Any]]:
    """The whole game on the board; what each day's draft decided."""

    def ipb2(board: Board, clock: FakeClock) -> Ipb2Server:
        return Ipb2Server(board, clock=clock, **server)

    with table(engine, tmp_path, monkeypatch, ipb2 if engine == "ipb2" else None) as (board, clock, _):
        open_game(clock)
        store = Store(tmp_path / "state.db")
        try:
            outcomes: list[dict[str, Any]] = play_days(board, clock, store, by_pm(board), [])
            assert len(outcomes) <= 6
            assert "(verified)" in ok("reveal", GAME)
            assert_roles_told_once(board)
        finally:
            store.close()
    return outcomes


@pytest.mark.parametrize("charset", ["utf-8", "windows-1251"])
def test_a_whole_game_on_ipb2_has_the_outcome_it_has_on_phpbb(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, charset: str
) -> None:
    (tmp_path / "phpbb").mkdir()
    (tmp_path / "ipb2").mkdir()
    on_phpbb = play("phpbb", tmp_path / "phpbb", monkeypatch)
    on_ipb = play("ipb2", tmp_path / "ipb2", monkeypatch, charset=charset)
    assert len(on_phpbb) >= 2  # the mafia does not all fall on day 1
    assert on_ipb == on_phpbb
    assert on_ipb[-1]["winner"] == "town"
