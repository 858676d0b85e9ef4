"""`forumbot --help` loads no subsystem: the commands import httpx, lxml, jinja2, pydantic and the engine
only when they run, so the help answers at once."""

from __future__ import annotations

import json
import subprocess
import sys

LIBRARIES = ("httpx", "lxml", "jinja2", "pydantic_settings", "sqlite3", "yaml")
SUBSYSTEMS = (*LIBRARIES, "forumbot.engine", "forumbot.forum", "forumbot.host")

PROBE = """
import json, sys
sys.argv = ["forumbot", *json.loads(sys.argv[1])]
from forumbot.cli import app
try:
    app()
except SystemExit:
    pass
print(json.dumps(sorted(sys.modules)))
"""


def loaded_by(*args: str, among: tuple[str, ...] = SUBSYSTEMS) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(list(args))], capture_output=True, text=True, check=True, timeout=60
    )
    modules: list[str] = json.loads(done.stdout.splitlines()[-1])
    return [m for m in modules if m.startswith(among)]


def test_the_help_imports_no_subsystem() -> None:
    assert loaded_by("--help", among=(*SUBSYSTEMS, "pydantic")) == []


def test_a_command_s_help_imports_none_either() -> None:
    assert loaded_by("end-day", "--help", among=(*SUBSYSTEMS, "pydantic")) == []
    assert loaded_by("draft", "show", "--help", among=(*SUBSYSTEMS, "pydantic")) == []


def test_the_help_leaves_out_what_typer_s_help_only_names() -> None:
    """typer's rich help imports rich.markdown (markdown_it) and rich.traceback (pygments) for a markup mode
    and pretty exceptions forumbot does not use: stand-ins take their place until something uses them."""
    for args in (["--help"], ["status", "--help"], ["draft", "--help"]):
        assert loaded_by(*args, among=("markdown_it", "pygments", "pydantic")) == [], args


def test_the_help_leaves_out_what_only_the_commands_use() -> None:
    """The time zones (a command's clock and its output) are loaded when a command runs, not for its help."""
    for args in (["--help"], ["status", "--help"], ["relays", "--help"], ["outbox", "--help"]):
        assert loaded_by(*args, among=("zoneinfo",)) == [], args


def test_running_a_command_does_load_what_it_needs() -> None:
    """The probe sees imports: a command that runs brings its subsystems in (the first test is not vacuous)."""
    assert "forumbot.engine" in loaded_by("scenario", "run", "/nonexistent.yaml")
    assert "zoneinfo" in loaded_by("status", "no-such-game", "--now", "2026-11-29T12:00", among=("zoneinfo",))
