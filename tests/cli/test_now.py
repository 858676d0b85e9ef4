"""`--now` on every command whose result depends on the clock: what it decides and the times it records (a
draft, an approval, an override, a power, a moved deadline) are those of `--now`; one command's `--now` ends
with it; `make demo` gives the same result on any date."""

from __future__ import annotations

import json
import re
import shlex
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest
from typer.main import get_command
from typer.testing import CliRunner, Result

import forumbot.cli.common
import forumbot.store
from forumbot.cli import app
from forumbot.store import Store

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "fixtures" / "demo"
GAME = "Демо-мафия"
DEALT = "2026-11-29T10:00:00+03:00"
AFTER = "2026-11-29T23:30:00+03:00"
BY = "Модератор"

# Every command whose result depends on the clock: what it decides (a deadline, a day's end, what is due) or the
# time it records. The others (reveal, relays, day-topic, scenario, simulate) read or write no moment.
CLOCKED = (
    "new-game", "signups", "deal", "status", "advance", "end-day", "draft show", "draft html", "draft approve",
    "draft send", "publish", "watch", "override", "power", "deadline", "account", "tally", "orders",
)  # fmt: skip


def invoke(*args: str) -> Result:
    return CliRunner().invoke(app, list(args), terminal_width=200)


def ok(*args: str) -> str:
    result = invoke(*args)
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shutil.copytree(DEMO, tmp_path / "demo", ignore=shutil.ignore_patterns("*.py"))
    monkeypatch.setenv("FORUMBOT_STATE", str(tmp_path / "state.db"))
    ok("new-game", str(tmp_path / "demo" / "game.toml"), "--now", "2026-11-28T12:00")
    ok("deal", GAME, "--seed", "1", "--topic", "1", "--now", DEALT)
    return tmp_path / "state.db"


def rows(state: Path, sql: str) -> list[tuple[object, ...]]:
    store = Store(state)
    try:
        return list(store.db.execute(sql).fetchall())
    finally:
        store.close()


def test_every_command_that_depends_on_the_clock_takes_now() -> None:
    root = get_command(app)
    for name in CLOCKED:
        command = root
        for word in name.split():
            command = command.commands[word]  # type: ignore[attr-defined]
        assert "--now" in {opt for param in command.params for opt in param.opts}, name


def test_the_times_recorded_are_those_of_now(state: Path) -> None:
    assert rows(state, "SELECT created_at FROM games") == [("2026-11-28T09:00:00+00:00",)]  # the game's zone
    ok("override", GAME, "--clear-vote", "Alice", "--reason", "r", "--by", BY, "--now", "2026-11-29T20:00:00+03:00")
    ok("power", GAME, "remove", "Шарик", "--reason", "r", "--by", BY, "--now", "2026-11-29T21:00:00+03:00")
    ok("deadline", GAME, "--next-day-length", "30", "--reason", "r", "--by", BY, "--now", "2026-11-29T22:00")
    ok("end-day", GAME, "--now", AFTER)
    ok("draft", "approve", GAME, "--by", BY, "--now", "2026-11-29T23:45:00+03:00")
    assert rows(state, "SELECT kind, at FROM overrides ORDER BY rowid") == [
        ("clear_vote", "2026-11-29T17:00:00+00:00"),
        ("remove", "2026-11-29T18:00:00+00:00"),
        ("next_day_length", "2026-11-29T19:00:00+00:00"),
    ]
    assert rows(state, "SELECT created_at, approved_at FROM drafts") == [
        ("2026-11-29T20:30:00+00:00", "2026-11-29T20:45:00+00:00")
    ]
    listed = json.loads(ok("override", GAME, "--list", "--json"))
    assert [o["at"] for o in listed] == [f"2026-11-29T{h}:00:00+03:00" for h in (20, 21, 22)]


def test_one_command_s_now_ends_with_it(state: Path) -> None:
    ok("override", GAME, "--clear-vote", "Alice", "--reason", "r", "--by", BY, "--now", "2020-01-01T00:00:00+00:00")
    before = datetime.now(UTC).replace(microsecond=0)
    ok("override", GAME, "--clear-vote", "Маша", "--reason", "r", "--by", BY)
    [(first,), (second,)] = rows(state, "SELECT at FROM overrides ORDER BY rowid")
    assert first == "2020-01-01T00:00:00+00:00"
    assert datetime.fromisoformat(str(second)) >= before  # the real clock again


def demo_commands(state: str) -> list[list[str]]:
    """The forumbot commands of the Makefile's demo target, its variables filled in, redirections left out."""
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    values = dict(re.findall(r"^(DEMO_\w+)\s*:=\s*(.+?)\s*$", text, re.M)) | {"DEMO_STATE": state}
    recipe = text.split("\ndemo:", 1)[1].split("\n\n", 1)[0]
    commands = []
    for line in recipe.splitlines():
        line = line.strip().removeprefix("COLUMNS=150 ")
        if not line.startswith("$(DEMO_FB)"):
            continue
        line = re.sub(r"\$\((DEMO_\w+)\)", lambda m: values[m.group(1)], line).split(" > ", 1)[0]
        commands.append(shlex.split(line)[1:])
    return commands


def run_demo(today: str, where: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """The demo's commands run in a copy of the demo at `where`, the real clock reading `today`."""

    class Today(datetime):
        @classmethod
        def now(cls, tz: object = None) -> Today:
            return cls.fromisoformat(today)

    shutil.copytree(DEMO, where / "fixtures" / "demo", ignore=shutil.ignore_patterns("*.py"))
    (where / "out").mkdir()
    monkeypatch.chdir(where)
    monkeypatch.setattr(forumbot.cli.common, "datetime", Today)
    monkeypatch.setattr(forumbot.store, "datetime", Today)
    commands = demo_commands("out/demo-state.db")
    assert [c[0] for c in commands] == ["new-game", "deal", "end-day", "draft", "draft"]
    said = "\n".join(ok(*command).replace(str(where), "<here>") for command in commands)
    return re.sub(r"\b[0-9a-f]{64}\b", "<commitment>", said)  # a fresh random salt at every deal


def test_make_demo_gives_the_same_result_on_any_date(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Before the pages' day (the demo's day had not ended yet), on it, and years after: the same output (but
    the commitment, whose salt is new at every deal), its deadlines those of the pages' day."""
    said = {
        today: run_demo(today, tmp_path / str(n), monkeypatch)
        for n, today in enumerate(
            ["2026-01-15T08:00:00+00:00", "2026-11-29T21:00:00+00:00", "2031-06-01T20:00:00+00:00"]
        )
    }
    assert len(set(said.values())) == 1
    [output] = set(said.values())
    assert "day 1 deadline: 29.11.2026 23:00" in output
    assert "День 2 заканчивается 30.11.2026 в 23:00" in output
