"""`override --ignore-post` on every engine: a vote carries the id of the post it was written in, so the
post the host names is left out of the count the engine makes, not only marked "not counted" in the audit
(the links of IPB 3's posts, `showtopic=T#entryP`, never named the post the way phpBB's `p=P` do)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from forumbot.cli import app
from forumbot.store import Store

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
# The captured IPB 3 page is page 1 of 2, whose page 2 was not captured: without its pager it is the topic's
# only page (a folder of saved pages that lacks a page of the topic is refused).
ALONE = re.compile(r"<div class='pagination clearfix left '>.*?</div>", re.S)
CONFIG = """\
[game]
name = "Mafia-1"
variant = "gameru-3.3"
players = {players}
moderators = ["admin"]
timezone = "UTC"
deadline = "23:00"

[forum]
engine = "saved"
saved_pages = "pages"
"""


@dataclass(frozen=True)
class Board:
    pages: tuple[str, ...]  # fixture files, saved as a browser saves them
    players: tuple[str, ...]
    topic: int
    dealt: str  # the deal's moment: the day's start
    ignored: int  # a post holding one counted vote
    voter: str
    target: str


BOARDS = {
    "phpbb": Board(
        ("phpbb/viewtopic_page1.html", "phpbb/viewtopic_page2.html"),
        ("Alice", "Bob Smith", "Пётр", "Кот_Матроскин", "Дядя Фёдор", "Шарик", "Mr. Pink", "Charlie", "Dana_99"),
        2,
        "2026-11-29T10:00:00+00:00",
        3,
        "Alice",
        "Пётр",
    ),
    "ipb3": Board(
        ("ipb3/ipb346_topic_rel1.html",),
        ("Лиса", "Кот Матроскин", "Winnie", "Галчонок", "Шарик", "Печкин", "Мурка", "Дядя Фёдор", "Зритель"),
        16002,
        "2026-12-01T06:00:00+00:00",
        1102,
        "Лиса",
        "Мурка",
    ),
}


def ok(*args: str) -> str:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def day_end(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, board: Board, *, ignore: bool) -> dict[str, Any]:
    root = tmp_path / ("ignored" if ignore else "plain")
    (root / "pages").mkdir(parents=True)
    for name in board.pages:
        page = (FIXTURES / name).read_text("utf-8")
        (root / "pages" / Path(name).name).write_text(ALONE.sub("", page), "utf-8")
    players = json.dumps(list(board.players), ensure_ascii=False)
    (root / "game.toml").write_text(CONFIG.format(players=players), "utf-8")
    monkeypatch.chdir(root)
    monkeypatch.setenv("FORUMBOT_STATE", str(root / "state.db"))
    ok("new-game", "game.toml")
    ok("deal", "Mafia-1", "--topic", str(board.topic), "--now", board.dealt)
    if ignore:
        ok("override", "Mafia-1", "--ignore-post", str(board.ignored), "--reason", "вне игры", "--by", "admin")
    draft: dict[str, Any] = json.loads(ok("end-day", "Mafia-1", "--json"))
    store = Store(root / "state.db")
    stored = store.draft(store.game("Mafia-1").id, 1)
    assert stored is not None
    store.close()
    return draft | {"tally": stored.draft.tally}  # the engine's count of the day, as the draft keeps it


@pytest.mark.parametrize("engine", sorted(BOARDS))
def test_an_ignored_post_is_left_out_of_the_count(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, engine: str) -> None:
    board = BOARDS[engine]
    plain = day_end(tmp_path, monkeypatch, board, ignore=False)
    ignored = day_end(tmp_path, monkeypatch, board, ignore=True)
    [row] = [v for v in ignored["votes"] if v.get("post_id") == board.ignored]
    assert (row["voter"], row["target"], row["counted"]) == (board.voter, board.target, False)
    assert [v for v in plain["votes"] if v.get("post_id") == board.ignored][0]["counted"] is True
    # The engine counted one vote fewer for the target: the audit and the count agree.
    assert ignored["tally"].get(board.target, 0) == plain["tally"][board.target] - 1
