"""The stand-ins `forumbot.cli.startup` puts in place of modules typer's help only names hand every real use
over to the real module, in a fresh interpreter each (they live in `sys.modules`); forumbot's commands are made
when first asked for, and their stand-ins list in a group's help as the commands do."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest
import typer.main
from typer._click import Command

from forumbot.cli import app
from forumbot.cli.startup import DeferredCommands

PROBES = {
    "a class made": "from rich.markdown import Markdown\nprint(type(Markdown('# x')).__module__)",
    "a class asked": "from rich.traceback import Traceback\nprint(Traceback.from_exception.__qualname__)",
    "another name": "import rich.markdown\nprint(rich.markdown.Heading.__module__)",
    "the real module after": "import rich.markdown\nrich.markdown.Heading\nimport sys\n"
    "print(type(sys.modules['rich.markdown']).__name__)",
}
EXPECTED = {
    "a class made": "rich.markdown",
    "a class asked": "Traceback.from_exception",
    "another name": "rich.markdown",
    "the real module after": "module",
}


@pytest.mark.parametrize("case", sorted(PROBES))
def test_a_stand_in_hands_over_to_the_real_module(case: str) -> None:
    code = "import forumbot.cli\nimport sys\nassert type(sys.modules['rich.markdown']).__name__ == '_OnDemand'\n"
    done = subprocess.run(
        [sys.executable, "-c", code + PROBES[case]], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.strip().splitlines()[-1] == EXPECTED[case]


# What a group's help reads of each command it lists (typer's `rich_format_help`), and what else typer gives it.
LISTED = ("name", "help", "short_help", "hidden", "deprecated", "rich_help_panel", "epilog", "options_metavar")
MORE = ("context_settings", "add_help_option", "no_args_is_help", "rich_markup_mode")


def _every_stand_in(group: Any, path: str = "forumbot") -> list[tuple[str, Command, Command]]:
    """(path, stand-in, made command) of every command under `group`, made from its stand-in here."""
    found = []
    assert isinstance(group.commands, DeferredCommands)
    for name, held in zip(list(group.commands), group.commands.as_they_are(), strict=True):
        made = group.commands[name]
        if hasattr(held, "_make"):
            found.append((f"{path} {name}", held, made))
        if hasattr(made, "commands"):
            found += _every_stand_in(made, f"{path} {name}")
    return found


def test_a_command_s_stand_in_lists_as_the_command_typer_makes() -> None:
    found = _every_stand_in(typer.main.get_command(app))
    assert len(found) > 20  # every command of forumbot's, the groups' included
    for path, stand_in, made in found:
        assert type(stand_in) is type(made), path
        for field in (*LISTED, *MORE):
            assert getattr(stand_in, field) == getattr(made, field), (path, field)
        assert made.params and not hasattr(made, "_make"), path  # the real one: its parameters, its callback
    run_stand_in = found[0][1].callback
    assert run_stand_in is not None
    with pytest.raises(RuntimeError):  # never a silent no-op: a group hands out the real command
        run_stand_in()


PROBE = """
import json, sys
import typer.main
groups = []
make = typer.main.get_command
typer.main.get_command = lambda typer_app: groups.append(make(typer_app)) or groups[-1]
sys.argv = ["forumbot", *json.loads(sys.argv[1])]
from forumbot.cli import app
try:
    app()
except SystemExit:
    pass

def made(group, path):  # the commands made, not stand-ins (a group is made with its commands' stand-ins)
    for name, command in zip(list(group.commands), group.commands.as_they_are()):
        if hasattr(command, "commands"):
            yield from made(command, [*path, name])
        elif not hasattr(command, "_make"):
            yield " ".join([*path, name])

print(json.dumps(sorted(made(groups[0], []))))
"""


def made_by(*args: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(list(args))], capture_output=True, text=True, check=True, timeout=60
    )
    made: list[str] = json.loads(done.stdout.splitlines()[-1])
    return made


def test_a_help_makes_only_the_command_it_shows() -> None:
    assert made_by("status", "--help") == ["status"]
    assert made_by("draft", "show", "--help") == ["draft show"]
    assert made_by("--help") == []  # listed from the stand-ins
    assert made_by("draft", "--help") == []
    assert made_by("status", "--bogus") == ["status"]  # a command run is made (and refuses the option)
