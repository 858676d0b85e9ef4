"""The `forumbot` command. Commands are thin: they parse, call the host's wing and print.

Exit codes (`common.exit_code`, from the exception tree; docs/install.md): 0 ok; 1 a check failed (scenario
expectations) or the host answered no; 2 the host must act (malformed file, bad config, unknown game or nick,
impossible deal, the board refusing for good); 75 (EX_TEMPFAIL) a fault that passes (the board down or refusing
for now, the game held by another forumbot): run it again later. Always a one-line message, no traceback.

    app.py          the typer apps (root, `scenario`, `draft`) and --version
    language.py     help texts, typer's own words and usage errors in the host's language (`forumbot.i18n`)
    common.py       consoles, one-line failures, --now and zones, the state file, the forum client
    display.py      tables, the draft, the publish report, the vote count
    progress.py     progress bars on stderr (only on a terminal)
    game.py         new-game, signups, deal, day-topic, status, reveal, advance
    corrections.py  override (--list, --remove), power
    deadline.py     deadline (move it, the next day's length)
    day.py          end-day, draft show/html/approve/send, publish, watch, relays, account
    outbox.py       outbox (what waits or was set aside; --retry, --drop)
    reading.py      tally, orders (outside a stored game)
    scenarios.py    scenario check/run
    simulate.py     simulate
    startup.py      what --help loads: typer's group flags read as flags, stand-ins for modules it only names,
                    commands made when first asked for (a group's help lists their stand-ins)

Every subsystem (httpx, lxml, jinja2, pydantic, the engine, the forum clients) is imported inside the
command that needs it, so `forumbot --help` loads none of them.
"""

from __future__ import annotations

import contextvars
import functools
from collections.abc import Callable
from typing import Any

from forumbot.cli import corrections, day, deadline, game, outbox, reading, scenarios, simulate
from forumbot.cli.app import app, draft_app, scenario_app
from forumbot.cli.common import fail, host_errors, print_json
from forumbot.cli.display import names, plain, print_publish_report, show_draft
from forumbot.cli.language import TranslatedCommand

__all__ = [
    "app",
    "corrections",
    "day",
    "deadline",
    "fail",
    "game",
    "main",
    "names",
    "outbox",
    "plain",
    "print_json",
    "print_publish_report",
    "reading",
    "scenarios",
    "show_draft",
    "simulate",
]


def _one_line_errors(command: Callable[..., Any]) -> Callable[..., Any]:
    """Whatever part of a command meets an expected failure, it ends in one line and its exit code. Each
    command runs in a context of its own, so a `--now` it was given ends with it."""

    @functools.wraps(command)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        def run() -> Any:
            with host_errors():
                return command(*args, **kwargs)

        return contextvars.copy_context().run(run)

    return guarded


for _typer_app in (app, draft_app, scenario_app):
    for _command in _typer_app.registered_commands:
        _command.cls = TranslatedCommand  # help in the host's language
        if _command.callback is not None:
            _command.callback = _one_line_errors(_command.callback)


def __getattr__(name: str) -> Any:
    """`forumbot.cli.open_client`, loaded on first use (it brings httpx): every command opens its forum
    client through this name, so a rehearsal can put a client on a fake clock in its place."""
    if name == "open_client":
        from forumbot.forum.registry import open_client

        return open_client
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main() -> None:
    app()
