"""The typer apps: the root `forumbot` command and its groups. The commands register themselves on them from
their own modules (`forumbot.cli` imports them all)."""

from __future__ import annotations

from typing import Annotated

import typer

from forumbot.cli.language import TranslatedGroup
from forumbot.cli.startup import defer_commands, defer_named_only

# typer's help names modules it never uses here: stand-ins until something does; forumbot's commands are made
# when first asked for (`startup.py`).
defer_named_only()
defer_commands()
# Every help text is translated when the command line runs (`language.py`), by a group that also reads its
# help flags without typer's coercion (`startup.QuickHelpGroup`); the commands get their class where
# `forumbot.cli` gathers them.
app = typer.Typer(
    help="forumbot: hosts forum Mafia games on phpBB and IPB forums.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    cls=TranslatedGroup,
)
scenario_app = typer.Typer(
    help="Scenario files: the rules engine's acceptance tests.", no_args_is_help=True, cls=TranslatedGroup
)
draft_app = typer.Typer(
    help="The day's draft: show it, write it as HTML, approve it.", no_args_is_help=True, cls=TranslatedGroup
)
app.add_typer(scenario_app, name="scenario")
app.add_typer(draft_app, name="draft")


def _print_version(value: bool) -> None:
    if value:
        from forumbot import __version__

        typer.echo(f"forumbot {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_print_version, is_eager=True, help="Print the version and exit.")
    ] = False,
    verbose: Annotated[
        int, typer.Option("--verbose", "-v", count=True, help="Log each request to the forum on stderr (-vv: more).")
    ] = 0,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print only warnings, errors and --json.")] = False,
) -> None:
    """forumbot: hosts forum Mafia games on phpBB and IPB forums."""
    from forumbot.cli.common import set_verbosity

    set_verbosity(verbose, quiet)
