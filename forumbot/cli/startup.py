"""What `forumbot --help` and `forumbot COMMAND --help` load: as little as the help needs.

typer's help path costs more than the help: every group coerces its flags that expose no value (its help,
the completion flags) through a pydantic adapter (pydantic's import, a tenth of a second, for a flag that is
absent), and typer's rich help (`typer.rich_utils`) imports `rich.markdown` (with `markdown_it`) for the
"markdown" markup mode forumbot never uses and `rich.traceback` (with pygments) for the pretty exceptions
forumbot turns off. And typer makes every command of a group when it makes the group: each one's parameters
from its function's type hints (every annotation evaluated, twice), a command's help needing only its own
and a group's help only its commands' names and help. forumbot's commands are made when first asked for;
a group's help lists them from stand-ins that carry what the listing reads. None of it changes a word of what
is printed.
"""

from __future__ import annotations

import importlib
import inspect
import sys
import types
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import typer.main
from typer._click import Command
from typer.core import TyperGroup


class QuickHelpGroup(TyperGroup):
    """A typer group whose flags that expose no value (its help, typer's completion flags) are read as the
    flags they are (given or not) instead of through typer's coercion of values, which imports pydantic to
    build an adapter for a bool that is absent; and whose commands are made when first asked for
    (`defer_commands`), its help listing them from their stand-ins."""

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        self.commands = DeferredCommands(self.commands, self.command_made)

    def command_made(self, command: Command) -> None:
        """Called with each command made from its stand-in (a subclass may complete it)."""

    def format_help(self, ctx: Any, formatter: Any) -> None:
        commands = self.commands
        if not isinstance(commands, DeferredCommands):
            return super().format_help(ctx, formatter)
        with commands.listing():  # the listing reads each command's name and help: the stand-ins have them
            return super().format_help(ctx, formatter)

    def get_params(self, ctx: Any) -> list[Any]:
        params: list[Any] = super().get_params(ctx)
        for param in params:
            if "process_value" in vars(param):
                continue
            if getattr(param, "is_flag", False) and not param.expose_value:
                param.process_value = types.MethodType(_flag_value, param)
            elif getattr(param, "count", False):  # `-v`, `-vv`: click counts it, an int already
                param.process_value = types.MethodType(_counted_value, param)
        return params


def _flag_value(option: Any, ctx: Any, value: Any) -> Any:
    """`Parameter.process_value` of a flag that exposes no value: its callback sees whether it was given."""
    return option.callback(ctx, option, bool(value))


def _counted_value(option: Any, ctx: Any, value: Any) -> Any:
    """`Parameter.process_value` of a counted option: click's count is the int it stands for, given as is
    (typer would coerce it through pydantic); anything else takes typer's way."""
    if type(value) is not int:
        return type(option).process_value(option, ctx, value)
    return option.callback(ctx, option, value) if option.callback is not None else value


class Deferrable:
    """A mixin for a command class: typer's commands of such a class are made when first asked for."""


class DeferredCommands(dict[str, Command]):
    """A group's commands by name: a command still a stand-in (`defer_commands`) is made, and kept, when it is
    asked for; while `listing`, the stand-ins are handed out as they are (a group's help lists them)."""

    def __init__(self, commands: Any, made: Callable[[Command], None]) -> None:
        super().__init__(commands)
        self._on_made = made
        self._listing = False

    def __getitem__(self, name: str) -> Command:
        command = super().__getitem__(name)
        make: Callable[[], Command] | None = getattr(command, "_make", None)
        if make is None or self._listing:
            return command
        command = make()
        self._on_made(command)
        super().__setitem__(name, command)
        return command

    def get(self, name: str, default: Any = None) -> Any:
        return self[name] if name in self else default

    def values(self) -> Any:
        return [self[name] for name in self]

    def items(self) -> Any:
        return [(name, self[name]) for name in self]

    def as_they_are(self) -> list[Command]:
        """Each command as it stands now, made or still a stand-in."""
        return list(super().values())

    @contextmanager
    def listing(self) -> Iterator[None]:
        before, self._listing = self._listing, True
        try:
            yield
        finally:
            self._listing = before


def defer_commands() -> None:
    """typer makes a command of a `Deferrable` class, forumbot's commands, as a stand-in: the same class with
    the same name, help and help settings, and no parameters; the real command is made (as typer makes it)
    when its group is first asked for it. Other commands are made as typer makes them."""
    make = typer.main.get_command_from_info
    if getattr(make, "defers", False):
        return

    def get_command_from_info(command_info: Any, **settings: Any) -> Command:
        cls = command_info.cls
        if not (isinstance(cls, type) and issubclass(cls, Deferrable)):
            return make(command_info, **settings)
        return _stand_in(command_info, settings, lambda: make(command_info, **settings))

    get_command_from_info.defers = True  # type: ignore[attr-defined]
    typer.main.get_command_from_info = get_command_from_info


def _stand_in(info: Any, settings: dict[str, Any], make: Callable[[], Command]) -> Command:
    """A command's stand-in: what typer's `get_command_from_info` gives it besides its parameters and callback
    (a test compares the two), and the maker of the real one."""
    assert info.callback is not None, "a command has a callback"
    helped = inspect.getdoc(info.callback) if info.help is None else inspect.cleandoc(info.help)
    command: Command = info.cls(
        name=info.name or typer.main.get_command_name(info.callback.__name__),
        context_settings=info.context_settings,
        callback=_not_made,
        params=[],
        help=helped,
        epilog=info.epilog,
        short_help=info.short_help,
        options_metavar=info.options_metavar,
        add_help_option=info.add_help_option,
        no_args_is_help=info.no_args_is_help,
        hidden=info.hidden,
        deprecated=info.deprecated,
        rich_markup_mode=settings["rich_markup_mode"],
        rich_help_panel=info.rich_help_panel,
    )
    command._make = make  # type: ignore[attr-defined]
    return command


def _not_made(*args: Any, **kwargs: Any) -> None:
    raise RuntimeError("a command's stand-in was run: its group hands out the real command")


# The modules typer's help imports only to name a class of theirs, and those classes.
NAMED_ONLY = {"rich.markdown": ("Markdown",), "rich.traceback": ("Traceback",)}


def defer_named_only() -> None:
    """Put a stand-in for each module of `NAMED_ONLY` in `sys.modules` until something uses it. The stand-in
    gives its classes as stand-ins too; the first real use (any other name of the module, a class made or
    asked for anything) imports the real module in its place."""
    for name, classes in NAMED_ONLY.items():
        if name not in sys.modules:
            parent, _, child = name.rpartition(".")
            sys.modules[name] = stand_in = _OnDemand(name, classes)
            setattr(importlib.import_module(parent), child, stand_in)  # as an import binds it: `rich.markdown`


def _real(module: str) -> types.ModuleType:
    if isinstance(sys.modules.get(module), _OnDemand):
        del sys.modules[module]
    return importlib.import_module(module)


class _ClassOnDemand(type):
    """The metaclass of a class's stand-in: making one, or asking it anything, is done by the real class."""

    _module: str

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        return getattr(_real(cls._module), cls.__name__)(*args, **kwargs)

    def __getattr__(cls, name: str) -> Any:
        return getattr(getattr(_real(cls._module), cls.__name__), name)


class _OnDemand(types.ModuleType):
    def __init__(self, name: str, classes: tuple[str, ...]) -> None:
        super().__init__(name)
        for cls in classes:
            setattr(self, cls, _ClassOnDemand(cls, (), {"_module": name}))

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):  # the import system asking what kind of module this is (`__path__`...)
            raise AttributeError(name)
        return getattr(_real(self.__name__), name)
