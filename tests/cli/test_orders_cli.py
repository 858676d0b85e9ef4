"""`forumbot orders --from DIR`: the PMs of a real Russian phpBB board saved as its bot saw them
(fixtures/phpbb-ru: the inbox and five PMs, received less than a minute, 9 minutes, an hour, a day and
two days before the pages were saved at 09:50:29 UTC). Expected rows are read off the pages."""

from __future__ import annotations

import json
import os
import shutil
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from forumbot.cli import app

PAGES = Path(__file__).resolve().parents[2] / "fixtures" / "phpbb-ru"
SAVED = ("42", "43", "44", "45", "46", "47")
PLAYERS = ["Вера", "Шарик", "Алиса Селезнёва", "Дядя Фёдор", "Bepa", "Незнайка"]
SAVED_AT = "2026-12-01T09:50:29+00:00"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    saved = tmp_path / "pms"
    saved.mkdir()
    saved_at = datetime.fromisoformat(SAVED_AT).timestamp()
    for number in SAVED:
        page = next(PAGES.glob(f"{number}-*.html"))
        shutil.copy(page, saved / page.name)
        os.utime(saved / page.name, (saved_at, saved_at))  # the files' time: when the pages were saved
    (tmp_path / "players.txt").write_text("\n".join(PLAYERS) + "\n", encoding="utf-8")
    return saved


def run(folder: Path, *extra: str) -> dict[str, Any]:
    result = CliRunner().invoke(
        app,
        [
            "orders",
            "--from",
            str(folder),
            "--players",
            str(folder.parent / "players.txt"),
            "--now",
            SAVED_AT,
            "--json",
            *extra,
        ],
    )
    assert result.exit_code == 0, result.output
    payload: dict[str, Any] = json.loads(result.stdout)
    return payload


def test_the_day_window_with_a_pm_that_straddles_the_deadline(folder: Path) -> None:
    found = run(folder, "--start", "2026-12-01T00:00", "--deadline", "2026-12-01T12:50")
    rows = [(r["pm_id"], r["actor"], r["action"], r["targets"], r["valid"], r["reason"]) for r in found["orders"]]
    assert rows == [
        (67, "Вера", "check", ["Шарик"], True, None),
        (82, "Шарик", "kill", ["Вера"], True, None),
        # "менее минуты назад" at 12:50:29 MSK: sent after 12:49:29, maybe after the 12:50 deadline
        (84, "Алиса Селезнёва", "heal", ["Алиса Селезнёва"], False, "uncertain_time"),
    ]
    times = {r["pm_id"]: r["time"] for r in found["orders"]}
    assert times[67] == "2026-12-01T11:49:00+03:00/2026-12-01T11:50:00+03:00"  # "Сегодня, 11:49": one minute
    assert "/" in times[84] and times[84].startswith("2026-12-01T12:49:")
    assert len(found["uncertain"]) == 1 and "PM 84" in found["uncertain"][0]


def test_late_pms_are_listed_as_late(folder: Path) -> None:
    found = run(folder, "--start", "2026-12-01T00:00", "--deadline", "2026-12-01T12:00")
    late = {(r["pm_id"], r["reason"]) for r in found["orders"] if not r["valid"]}
    assert late == {(82, "after_deadline"), (84, "after_deadline")}
    assert [r["pm_id"] for r in found["orders"] if r["valid"]] == [67]


def test_without_a_window_every_saved_pm_is_listed_in_the_forums_order(folder: Path) -> None:
    found = run(folder)
    assert [r["pm_id"] for r in found["orders"]] == [58, 63, 67, 82, 84]
    z = next(r for r in found["orders"] if r["pm_id"] == 58)
    assert z["action"] == "command" and z["reason"] == "command" and not z["valid"]  # "Z" asks for a report


def test_a_dead_sender_and_a_table_for_people(folder: Path) -> None:
    (folder.parent / "dead.txt").write_text("Шарик\n", encoding="utf-8")
    found = run(folder, "--dead", str(folder.parent / "dead.txt"))
    kill = next(r for r in found["orders"] if r["pm_id"] == 82)
    assert (kill["valid"], kill["reason"]) == (False, "dead_sender")
    table = CliRunner().invoke(
        app,
        ["orders", "--from", str(folder), "--players", str(folder.parent / "players.txt"), "--now", SAVED_AT],
        env={"COLUMNS": "200"},
    )
    assert table.exit_code == 0 and "Алиса Селезнёва" in table.stdout
