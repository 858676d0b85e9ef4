"""A nick with a right-to-left override is printed to the host isolated (U+2068 … U+2069): the rest of a table
row, or of a line, is not shown reversed."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from forumbot import cli
from forumbot.cli import app
from forumbot.draft import DayDraft

RLO = "\u202e"
EVIL = f"{RLO}xoB"
FSI, PDI = "\u2068", "\u2069"


def test_a_table_isolates_such_a_nick(tmp_path: Path) -> None:
    players = tmp_path / "players.txt"
    players.write_text("\n".join([EVIL, "Пётр", "Алиса", "Борис", "Глеб"]) + "\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["deal", "--variant", "salon", "--players", str(players), "--seed", "1"])
    assert result.exit_code == 0, result.output
    row = next(line for line in result.output.splitlines() if EVIL in line)
    assert f"{FSI}{EVIL}{PDI}" in row
    assert FSI not in next(line for line in result.output.splitlines() if "Пётр" in line)


def test_the_draft_lines_isolate_it(capsys: pytest.CaptureFixture[str]) -> None:
    payload = {
        "day": 1,
        "deaths": {EVIL: "executed"},
        "winner": "none",
        "checks": {},
        "votes": [{"voter": EVIL, "target": "Пётр", "counted": True}],
        "orders": [],
        "void": [],
        "activity": {EVIL: {"posts": 1, "orders": 0}},
        "inactivity": [f"{EVIL}: no post and no order today"],
        "overrides": [],
        "events": [{"kind": "executed", "target": EVIL}],
        "state": {
            "variant": "gameru-3.3",
            "seed": 1,
            "players": [{"nick": EVIL, "role": "civilian"}, {"nick": "Пётр", "role": "civilian"}],
        },
    }
    cli.show_draft("Игра", DayDraft.model_validate(payload), approved_by=None)
    shown = capsys.readouterr().out
    isolated = f"{FSI}{EVIL}{PDI}"
    assert f"deaths: {isolated} (executed)" in shown
    assert f"note: {isolated}: no post and no order today" in shown
    assert f"event: executed → {isolated}" in shown
    assert f"activity: {isolated}: 1 post" in shown
    assert EVIL not in shown.replace(isolated, "")  # never printed bare
