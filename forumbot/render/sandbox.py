"""The bounds of a host's template: what it may build and how long it may run (docs/publishing.md, Templates).

Jinja's immutable sandbox keeps a template from Python's internals, but not from `{{ 'a' * 10**9 }}`, a
`range` of a billion or two loops of ten thousand nested: the process swells until it dies, minutes later.
`BoundedSandbox` checks, before each operation that can make something big, the size it would make:

- a text a template builds (`*`, `+`, `~`, `%`, `join`, `replace`, `center`, `indent`, `format`...) and what it
  renders at most `MAX_TEXT` characters; a list or a `range` at most `MAX_ITEMS` items; an integer at most
  `MAX_INT_BITS` bits (`10**9` is fine, `10**10**9` is not);
- a rendering at most `MAX_PRINTED` characters printed, `MAX_STEPS` steps (a loop's turn, a call, a look-up,
  an operator, a print) and `MAX_SECONDS` of processor time.

What passes a bound raises `TemplateTooBig`, which the rendering turns into a ConfigError naming the template's
file and line. The bundled templates are not sandboxed and not bounded: they are the project's own.
"""

from __future__ import annotations

import functools
import itertools
import re
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import jinja2.sandbox
from jinja2 import nodes
from jinja2.compiler import CodeGenerator, Frame
from jinja2.runtime import Context

MAX_TEXT = 100_000  # characters of a text a template builds, and of what it renders
MAX_ITEMS = 10_000  # items of a list, a range, or a sequence joined or summed
MAX_INT_BITS = 4_096  # bits of an integer a template computes (about 1,230 decimal digits)
MAX_PRINTED = 1_000_000  # characters printed by `{{ … }}` in one rendering (a block set or a macro included)
MAX_STEPS = 1_000_000  # loop turns, calls, look-ups and operators in one rendering
MAX_SECONDS = 5.0  # processor time of one rendering

_WIDTH = re.compile(r"[%:][-+ #0<>^=]*(\d+)")  # a width in a %-format or a {:…} format
_NESTED_FIELD = re.compile(r"\{[^{}]*:[^{}]*\{")
_STRING_WIDTH_METHODS = frozenset({"center", "ljust", "rjust", "zfill"})


class TemplateTooBig(Exception):
    """A host's template went past one of its bounds (the message says which, with the figures)."""


@dataclass
class _Budget:
    steps: int
    until: float = 0.0  # thread_time() at which the rendering has run too long
    printed: int = 0

    def print(self, size: int) -> None:
        self.printed += size
        if self.printed > MAX_PRINTED:
            raise TemplateTooBig(f"it prints more than {MAX_PRINTED:,} characters")

    def tick(self) -> None:
        self.steps -= 1
        if self.steps < 0:
            raise TemplateTooBig(f"it runs more than {MAX_STEPS:,} steps (loop turns, calls, look-ups)")
        if self.steps % 64 == 0 and time.thread_time() > self.until:
            raise TemplateTooBig(f"it runs longer than {MAX_SECONDS:g} seconds")


_budget: ContextVar[_Budget | None] = ContextVar("template_budget", default=None)


@contextmanager
def bounded_run() -> Iterator[None]:
    """One rendering's budget of steps and time (processor time: a fake clock or a slow machine aside)."""
    token = _budget.set(_Budget(steps=MAX_STEPS, until=time.thread_time() + MAX_SECONDS))
    try:
        yield
    finally:
        _budget.reset(token)


def _tick() -> None:
    budget = _budget.get()
    if budget is not None:
        budget.tick()


def _counted_finalize(finalize: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """The environment's `finalize`, also counting what is printed: a loop printing a long text into a
    `{% set %}` block holds every copy until the block ends."""

    @functools.wraps(finalize)
    def counted(value: Any) -> Any:
        shown = finalize(value)
        budget = _budget.get()
        if budget is not None:
            budget.tick()
            budget.print(len(shown) if isinstance(shown, str) else 0)
        return shown

    return counted


def _text_too_long(size: int) -> TemplateTooBig:
    return TemplateTooBig(f"it builds a text of {size:,} characters, more than a template may ({MAX_TEXT:,})")


def _too_many(size: int, what: str = "a list") -> TemplateTooBig:
    return TemplateTooBig(f"it builds {what} of {size:,} items, more than a template may ({MAX_ITEMS:,})")


def checked(value: Any) -> Any:
    """The value, if it is within the bounds: what an operation made is refused before it is used again."""
    if isinstance(value, str | bytes) and len(value) > MAX_TEXT:
        raise _text_too_long(len(value))
    if isinstance(value, list | tuple | dict | set | frozenset | range) and len(value) > MAX_ITEMS:
        raise _too_many(len(value))
    if isinstance(value, int) and value.bit_length() > MAX_INT_BITS:
        raise TemplateTooBig(f"it computes a number of {value.bit_length():,} bits (a template may {MAX_INT_BITS:,})")
    return value


def _length(value: Any) -> int:
    return len(value) if isinstance(value, str | bytes | list | tuple | dict | range) else 1


def _bits(value: Any) -> int:
    return value.bit_length() if isinstance(value, int) else 0


def _check_product(left: Any, right: Any) -> None:
    """`left * right`: a sequence repeated, or two numbers multiplied."""
    for seq, times in ((left, right), (right, left)):
        if isinstance(times, int) and isinstance(seq, str | bytes | list | tuple):
            size = len(seq) * max(times, 0)
            if isinstance(seq, str | bytes) and size > MAX_TEXT:
                raise _text_too_long(size)
            if isinstance(seq, list | tuple) and size > MAX_ITEMS:
                raise _too_many(size)
    if isinstance(left, int) and isinstance(right, int) and _bits(left) + _bits(right) > MAX_INT_BITS:
        raise TemplateTooBig(f"it multiplies numbers of {_bits(left) + _bits(right):,} bits (at most {MAX_INT_BITS:,})")


def _check_power(base: Any, exponent: Any) -> None:
    if isinstance(base, int) and isinstance(exponent, int) and exponent > 0 and abs(base) > 1:
        bits = (abs(base).bit_length() - 1) * exponent
        if bits > MAX_INT_BITS:
            raise TemplateTooBig(f"it raises a number to a power of about {bits:,} bits (at most {MAX_INT_BITS:,})")


def _check_format(pattern: Any, values: Iterable[Any]) -> None:
    """A format (`%` or `{}`) whose widths, written or given as `*`, would make a text too long."""
    if not isinstance(pattern, str):
        return
    widths = [int(w) for w in _WIDTH.findall(pattern)]
    if "*" in pattern or _NESTED_FIELD.search(pattern):  # a width may come from the values: "%*s", "{:{}}"
        widths += [abs(v) for v in values if isinstance(v, int) and not isinstance(v, bool)]
    if widths and len(pattern) + max(widths) > MAX_TEXT:
        raise _text_too_long(len(pattern) + max(widths))


def _format_values(args: Sequence[Any], kwargs: dict[str, Any]) -> list[Any]:
    values = list(args) + list(kwargs.values())
    flat: list[Any] = []
    for value in values:
        if isinstance(value, dict):
            flat += list(value.values())
        else:
            flat += list(value) if isinstance(value, tuple) else [value]
    return flat


def _bounded_list(values: Iterable[Any], what: str) -> list[Any]:
    """At most MAX_ITEMS of `values` as a list (a generator is read once, so it is read here and passed on)."""
    items = list(itertools.islice(values, MAX_ITEMS + 1))
    if len(items) > MAX_ITEMS:
        raise _too_many(len(items), what)
    return items


def _check_joined(items: list[Any], separator: str) -> None:
    size = sum(len(str(item)) if isinstance(item, str | int) else _length(item) for item in items)
    size += len(separator) * max(len(items) - 1, 0)
    if size > MAX_TEXT:
        raise _text_too_long(size)


def _check_replace(text: Any, old: Any, new: Any, count: Any = -1) -> None:
    if not (isinstance(text, str) and isinstance(old, str) and isinstance(new, str)):
        return
    found = len(text) + 1 if old == "" else text.count(old)
    if isinstance(count, int) and count >= 0:
        found = min(found, count)
    size = len(text) + found * (len(new) - len(old))
    if size > MAX_TEXT:
        raise _text_too_long(size)


def _check_lines(text: Any, per_line: int) -> None:
    """An operation that adds `per_line` characters to every line of `text` (indent, wordwrap)."""
    if isinstance(text, str):
        size = len(text) + (text.count("\n") + 1) * per_line
        if size > MAX_TEXT:
            raise _text_too_long(size)


def _check_method(method: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[tuple[Any, ...], bool]:
    """A method a template calls on a value: its arguments checked (and a generator to join made a list).
    Returns the arguments to call it with, and whether it was checked here (else the generic check ran)."""
    owner, name = getattr(method, "__self__", None), getattr(method, "__name__", "")
    wrapped = getattr(method, "__wrapped__", None)  # the sandbox's safe str.format / format_map
    if wrapped is not None and isinstance(getattr(wrapped, "__self__", None), str):
        _check_format(wrapped.__self__, _format_values(args, kwargs))
        return args, True
    if isinstance(owner, str):
        if name == "join" and args:
            items = _bounded_list(args[0], "a sequence to join")
            _check_joined(items, owner)
            return (items, *args[1:]), True
        if name == "replace":
            _check_replace(owner, *args[:3])
            return args, True
        if name == "expandtabs":
            width = args[0] if args and isinstance(args[0], int) else 8
            if len(owner) + owner.count("\t") * width > MAX_TEXT:
                raise _text_too_long(len(owner) + owner.count("\t") * width)
            return args, True
        if name == "translate" and args and isinstance(args[0], dict):
            longest = max((len(v) for v in args[0].values() if isinstance(v, str)), default=1)
            if len(owner) * longest > MAX_TEXT:
                raise _text_too_long(len(owner) * longest)
            return args, True
    if name in _STRING_WIDTH_METHODS or owner is not None:
        big = [a for a in (*args, *kwargs.values()) if isinstance(a, int) and not isinstance(a, bool)]
        if any(abs(a) > MAX_TEXT for a in big):  # a width, a count, a length: (1).to_bytes(10**9)
            raise TemplateTooBig(f"{name}() is given {max(big, key=abs):,}, more than a template may ({MAX_TEXT:,})")
    return args, False


def _check_filter(name: str, value: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """The filter's input checked as its kind of filter needs; a generator to join or sum is made a list."""
    if name in ("join", "sum") and isinstance(value, Iterable) and not isinstance(value, str):
        value = _bounded_list(value, f"a sequence to {name}")
        if name == "join" or any(isinstance(item, str | list | tuple) for item in value):
            separator = args[0] if name == "join" and args and isinstance(args[0], str) else ""
            _check_joined(value, str(kwargs.get("d", separator)))
    elif name == "replace":
        _check_replace(value, *args[:3])
    elif name == "format":
        _check_format(value, _format_values(args, kwargs))
    elif name == "indent":
        width = args[0] if args else kwargs.get("width", 4)
        _check_lines(value, len(width) if isinstance(width, str) else width if isinstance(width, int) else 0)
    elif name == "wordwrap":
        wrap = kwargs.get("wrapstring", args[2] if len(args) > 2 else "\n")
        width = args[0] if args else kwargs.get("width", 79)
        if isinstance(value, str) and isinstance(wrap, str) and isinstance(width, int):
            size = len(value) + (len(value) // max(width, 1) + 1) * len(wrap)
            if size > MAX_TEXT:
                raise _text_too_long(size)
    big = [a for a in (*args, *kwargs.values()) if isinstance(a, int) and not isinstance(a, bool) and abs(a) > MAX_TEXT]
    if big and name not in ("format",):  # a width, a count: center(10**9), batch(10**9)
        raise TemplateTooBig(f"the filter {name} is given {big[0]:,}, more than a template may ({MAX_TEXT:,})")
    return value


def _bounded_filter(name: str, func: Callable[..., Any]) -> Callable[..., Any]:
    passes = getattr(func, "jinja_pass_arg", None) is not None  # its first argument is Jinja's, then the value

    @functools.wraps(func)
    def bounded(*args: Any, **kwargs: Any) -> Any:
        _tick()
        first = 1 if passes else 0
        if len(args) > first:
            value = _check_filter(name, args[first], tuple(args[first + 1 :]), kwargs)
            args = (*args[:first], value, *args[first + 1 :])
        return checked(func(*args, **kwargs))

    return bounded


def bounded_range(*args: int) -> range:
    """`range`, at most MAX_ITEMS long."""
    numbers = range(*args)
    if len(numbers) > MAX_ITEMS:
        raise _too_many(len(numbers), "a range")
    return numbers


class _BoundedCodeGenerator(CodeGenerator):
    """Jinja's code generator, with every loop's turns counted and every `~` checked for its length."""

    def visit_For(self, node: nodes.For, frame: Frame) -> None:
        counted = nodes.Call(nodes.EnvironmentAttribute("counted"), [node.iter], [], None, None)
        node.iter = counted.set_lineno(node.iter.lineno)
        super().visit_For(node, frame)

    def visit_Concat(self, node: nodes.Concat, frame: Frame) -> None:
        self.write("environment.joined((")
        for part in node.nodes:
            self.visit(part, frame)
            self.write(", ")
        self.write("))")


class BoundedSandbox(jinja2.sandbox.ImmutableSandboxedEnvironment):
    """The immutable sandbox, bounded (see the module's docstring)."""

    code_generator_class = _BoundedCodeGenerator
    intercepted_binops = frozenset({"+", "*", "**", "%"})

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.finalize is not None:
            self.finalize = _counted_finalize(self.finalize)
        self.globals["range"] = bounded_range
        self.globals.pop("lipsum", None)  # it makes as much text as asked: a template has no use for it

    def bound_filters(self) -> None:
        """Every filter checked and counted (called once the filters are all registered)."""
        self.filters = {name: _bounded_filter(name, func) for name, func in self.filters.items()}

    def call_binop(self, context: Context, operator: str, left: Any, right: Any) -> Any:
        _tick()
        if operator == "*":
            _check_product(left, right)
        elif operator == "**":
            _check_power(left, right)
        elif operator == "+" and isinstance(left, str | list | tuple) and isinstance(right, str | list | tuple):
            size = len(left) + len(right)
            if isinstance(left, str) and size > MAX_TEXT:
                raise _text_too_long(size)
            if isinstance(left, list | tuple) and size > MAX_ITEMS:
                raise _too_many(size)
        elif operator == "%":
            _check_format(left, _format_values((right,), {}))
        return checked(super().call_binop(context, operator, left, right))

    def call(__self, __context: Context, __obj: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: N805 (Jinja's)
        _tick()
        args, _ = _check_method(__obj, args, kwargs)
        return checked(super().call(__context, __obj, *args, **kwargs))

    def getattr(self, obj: Any, attribute: str) -> Any:
        _tick()
        return super().getattr(obj, attribute)

    def getitem(self, obj: Any, argument: Any) -> Any:
        _tick()
        return super().getitem(obj, argument)

    def counted(self, values: Iterable[Any]) -> Iterator[Any]:
        """A loop's values, each turn counted."""
        for value in values:
            _tick()
            yield value

    def joined(self, parts: Iterable[Any]) -> str:
        """`a ~ b`: the parts as text, refused when together too long."""
        _tick()
        texts = [str(part) for part in parts]
        size = sum(map(len, texts))
        if size > MAX_TEXT:
            raise _text_too_long(size)
        return "".join(texts)

    def concat(self, parts: Iterable[str]) -> str:
        """What a template, a block, a macro or `{% set %}…{% endset %}` renders, refused when too long."""
        texts: list[str] = []
        size = 0
        for part in parts:
            size += len(part)
            if size > MAX_TEXT:
                raise TemplateTooBig(f"it renders more than {MAX_TEXT:,} characters")
            texts.append(part)
        return "".join(texts)
