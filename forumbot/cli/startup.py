"""What `forumbot --help` and `forumbot COMMAND --help` load: as little as the help needs.

typer's help path costs more than the help: every group coerces its flags that expose no value (its help,
the completion flags) through a pydantic adapter (pydantic's import, a tenth of a second, for a flag that is
absent), and typer's rich help (`typer.rich_utils`) imports `rich.markdown` (with `markdown_it`) for the
"markdown" markup mode forumbot never uses and `rich.traceback` (with pygments) for the pretty exceptions
forumbot turns off. Neither changes a word of what is printed.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import Any

from typer.core import TyperGroup


class QuickHelpGroup(TyperGroup):
    """A typer group whose flags that expose no value (its help, typer's completion flags) are read as the
    flags they are (given or not) instead of through typer's coercion of values, which imports pydantic to
    build an adapter for a bool that is absent."""

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
