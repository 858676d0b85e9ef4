"""The command line in the host's language (`forumbot.i18n`): help texts, typer's own words, usage errors.

The help texts are written in the code in English (typer `help=` strings and the commands' docstrings; the
catalogue's extractor takes both) and translated when the command line runs, in the language of that moment.
typer words a few parts of the help and of a usage error itself, in English only: the panel titles and marks
are its module's constants, set here for each run; its usage errors (missing argument, no such option...) are
said again from what they carry.
"""

from __future__ import annotations

import re
from typing import Any

from typer._click import Command, Context
from typer._click.exceptions import BadOptionUsage, BadParameter, MissingParameter, NoSuchOption, UsageError
from typer.core import TyperArgument, TyperCommand

from forumbot.cli.startup import Deferrable, DeferredCommands, QuickHelpGroup
from forumbot.i18n import N_, _

# typer's own words (its `rich_utils` constants), in English as typer has them.
TYPER_WORDS: dict[str, str] = {
    "ARGUMENTS_PANEL_TITLE": N_("Arguments"),
    "OPTIONS_PANEL_TITLE": N_("Options"),
    "COMMANDS_PANEL_TITLE": N_("Commands"),
    "ERRORS_PANEL_TITLE": N_("Error"),
    "ABORTED_TEXT": N_("Aborted."),
    "DEFAULT_STRING": N_("[default: {}]"),
    "REQUIRED_LONG_STRING": N_("[required]"),
    "DEPRECATED_STRING": N_("(deprecated) "),
    "ENVVAR_STRING": N_("[env var: {}]"),
    "RICH_HELP": N_("Try [blue]'{command_path} {help_option}'[/] for help."),
}
HELP_OPTION = N_("Show this message and exit.")
# The help of typer's own options (shell completion), translated with the rest of the root's options.
COMPLETION_HELP = (
    N_("Install completion for the current shell."),
    N_("Show completion for the current shell, to copy it or customize the installation."),
)
USAGE = N_("Usage: ")


def word_typer() -> None:
    """typer's panel titles and marks in the host's language, for this run."""
    from typer import rich_utils  # here, not at the top: `startup.defer_named_only` comes first

    for name, english in TYPER_WORDS.items():
        setattr(rich_utils, name, _(english))


def translate(command: Command) -> None:
    """A command's help, its parameters' and its subcommands', in the host's language of this run (the English
    kept, so a command made once and run again in another language is said in that one)."""
    for item in [command, *command.params]:
        for field in ("help", "short_help"):
            english = _source(item, field)
            if english:
                setattr(item, field, _(english))
    commands = getattr(command, "commands", {})
    for sub in commands.as_they_are() if isinstance(commands, DeferredCommands) else commands.values():
        translate(sub)  # a stand-in's help too (a group's help lists it); one made later is translated then


def _source(item: object, field: str) -> str | None:
    kept: dict[str, str | None] = item.__dict__.setdefault("_english", {})
    if field not in kept:
        kept[field] = getattr(item, field, None)
    return kept[field]


class _Translated:
    """What the command and the group share: typer's own words and usage errors in the host's language."""

    def get_help_option(self, ctx: Context) -> Any:
        option = super().get_help_option(ctx)  # type: ignore[misc]
        if option is not None and option.help == HELP_OPTION:
            option.help = _(HELP_OPTION)
        return option

    def format_usage(self, ctx: Context, formatter: Any) -> None:
        pieces = self.collect_usage_pieces(ctx)  # type: ignore[attr-defined]
        formatter.write_usage(ctx.command_path, " ".join(pieces), prefix=_(USAGE))

    def parse_args(self, ctx: Context, args: list[str]) -> list[str]:
        try:
            return super().parse_args(ctx, args)  # type: ignore[misc, no-any-return]
        except UsageError as exc:
            raise said_again(exc) from None


class TranslatedCommand(_Translated, Deferrable, TyperCommand):
    """A forumbot command: its help in the host's language; made when first asked for (`startup`)."""


class TranslatedGroup(_Translated, QuickHelpGroup):
    """The one group class: typer's words in the host's language, its help flags read quickly."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        """The root's run: the language is the environment's now (a test's runner sets it just before)."""
        word_typer()
        translate(self)
        return super().main(*args, **kwargs)

    def command_made(self, command: Command) -> None:
        translate(command)  # made after the run began: in the language of the run

    def resolve_command(self, ctx: Context, args: list[str]) -> Any:
        try:
            return super().resolve_command(ctx, args)
        except UsageError as exc:
            raise said_again(exc) from None


_NO_SUCH_COMMAND = re.compile(r"No such command '(?P<name>.*)'\.(?: Did you mean (?P<like>.+)\?)?$", re.S)
_EXTRA = re.compile(r"Got unexpected extra arguments? \((?P<args>.*)\)$", re.S)
_NEEDS_VALUE = re.compile(r"Option '(?P<name>[^']+)' requires (?:an argument|(?P<n>\d+) arguments)\.$")
_TAKES_NO_VALUE = re.compile(r"Option '(?P<name>[^']+)' does not take a value\.$")
_NOT_A = re.compile(r"'(?P<value>.*)' is not a valid (?P<kind>integer|float|boolean)(?: range)?\.$", re.S)
_KINDS = {"integer": N_("an integer"), "float": N_("a number"), "boolean": N_("yes or no")}


def said_again(exc: UsageError) -> UsageError:
    """A usage error of typer's in the host's language (as typer said it when its words are unknown here)."""
    said = _said(exc)
    return exc if said is None else UsageError(said, exc.ctx)


def _said(exc: UsageError) -> str | None:
    if isinstance(exc, MissingParameter):
        hint = _hint(exc)
        if exc.param is not None and isinstance(exc.param, TyperArgument):
            return _("Missing argument {name}.").format(name=hint)
        return _("Missing option {name}.").format(name=hint)
    if isinstance(exc, NoSuchOption):
        said = _("No such option: {name}").format(name=exc.option_name)
        if exc.possibilities:
            said += " " + _("(did you mean {options}?)").format(options=", ".join(sorted(exc.possibilities)))
        return said
    if isinstance(exc, BadOptionUsage):
        if m := _NEEDS_VALUE.match(exc.message):
            return _("Option {name} needs a value.").format(name=m["name"])
        if m := _TAKES_NO_VALUE.match(exc.message):
            return _("Option {name} takes no value.").format(name=m["name"])
        return None
    if isinstance(exc, BadParameter):
        inner = _NOT_A.match(exc.message)
        what = (
            _("{value!r} is not {kind}.").format(value=inner["value"], kind=_(_KINDS[inner["kind"]]))
            if inner
            else exc.message
        )
        return _("Invalid value for {name}: {what}").format(name=_hint(exc), what=what)
    if m := _NO_SUCH_COMMAND.match(exc.message):
        said = _("No such command {name!r}.").format(name=m["name"])
        return said + (" " + _("Did you mean {names}?").format(names=m["like"]) if m["like"] else "")
    if m := _EXTRA.match(exc.message):
        return _("Unexpected extra arguments: {args}").format(args=m["args"])
    if exc.message == "Missing command.":
        return _("Missing command.")
    return None


def _hint(exc: BadParameter) -> str:
    if exc.param_hint is not None:
        hint = exc.param_hint
        return " / ".join(repr(h) for h in hint) if isinstance(hint, list | tuple) else str(hint)
    if exc.param is not None:
        return str(exc.param.get_error_hint())
    return "?"
