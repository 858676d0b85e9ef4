"""The templates' environment: Jinja2 set up to write BBCode, bundled templates and a host's own, rendering
with errors that name the template's file and line.

Every value a template prints passes through BBCode escaping (the environment's `finalize`), so no nick
or player text can open or close a tag; the BBCode itself is the template's literal text. Text already made
inert (`Safe`: phrases with escaped nicks, what a block or macro rendered) is printed as it is.

A host's template runs sandboxed and bounded (`render.sandbox`: what it may build, how long it may run). A
variant words its texts in its own templates (`day/<variant>.bbcode.j2`, `messages/<kind>/<variant>.bbcode.j2`),
each extending the common one; `variant_template` finds them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2
from jinja2.exceptions import SecurityError

from forumbot.errors import N_, ConfigError
from forumbot.render.bbcode import Safe, escape
from forumbot.render.phrases import agree, number, plural, role_name, zone_label
from forumbot.render.sandbox import BoundedSandbox, TemplateTooBig, bounded_run


class BBCodeContext(jinja2.runtime.Context):
    """What a template's own code renders (`super()`, `self.block()`, a macro, `caller()`) is template text
    whose values were escaped already: it is printed as is, not escaped a second time."""

    def call(__self, __obj: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: N805 (Jinja's signature)
        result = super().call(__obj, *args, **kwargs)
        if isinstance(__obj, jinja2.runtime.BlockReference | jinja2.runtime.Macro) and isinstance(result, str):
            return Safe(result)
        return result


def finalize(value: Any) -> Any:
    """Everything a template prints is escaped, unless it is `Safe` (or not text at all)."""
    if isinstance(value, str) and not isinstance(value, Safe):
        return escape(value)
    return value


def environment(loader: jinja2.BaseLoader, *, sandboxed: bool = False) -> jinja2.Environment:
    """The templates' environment. A host's template runs `sandboxed`: it may read the values it is given and
    call the filters, never reach Python's internals (`x.__class__`, `cycler.__init__.__globals__`) nor change
    a value in place, nor build or run past the bounds of `render.sandbox`."""
    kind = BoundedSandbox if sandboxed else jinja2.Environment
    env = kind(
        loader=loader,
        finalize=finalize,
        autoescape=False,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.context_class = BBCodeContext
    env.filters["role"] = role_name
    env.filters["plural"] = plural
    env.filters["agree"] = agree
    env.filters["num"] = number
    env.filters["zone"] = zone_label
    if isinstance(env, BoundedSandbox):
        env.bound_filters()
    return env


def _package_loader() -> jinja2.BaseLoader:
    return jinja2.PackageLoader("forumbot.render", "templates")


def load_template(path: Path | None, name: str) -> jinja2.Template:
    """The host's template file if given (it may extend the bundled ones), else the bundled `name`.
    A syntax error raises ConfigError naming the file and the line."""
    try:
        if path is not None:
            if not path.is_file():
                raise ConfigError(N_("{path}: no such template file"), path=path)
            host = jinja2.FileSystemLoader(str(path.parent))
            env = environment(jinja2.ChoiceLoader([host, _package_loader()]), sandboxed=True)
            return env.get_template(path.name)
        return environment(_package_loader()).get_template(name)
    except jinja2.TemplateSyntaxError as exc:
        raise ConfigError(
            N_("{value}:{lineno}: template error: {text}"),
            value=exc.filename or path or name,
            lineno=exc.lineno,
            text=exc.message,
        ) from None
    except jinja2.TemplateNotFound as exc:
        raise ConfigError(N_("{value}: template not found: {name}"), value=path or name, name=exc.name) from None


@dataclass(frozen=True)
class Rendered:
    body: str
    blocks: dict[str, str]  # the requested blocks, each rendered on its own (absent: no such block)


def render_template(
    template: jinja2.Template, context: dict[str, Any], where: str, blocks: Iterable[str] = ()
) -> Rendered:
    """Render the template and, on their own, the named `blocks` (the most derived definition of each,
    whatever the chain of `extends`). Any error raises ConfigError naming the template file and line."""
    env = template.environment
    try:
        try:
            with bounded_run():
                ctx = template.new_context(context)
                body = env.concat(template.root_render_func(ctx))
                found = {name: env.concat(ctx.blocks[name][0](ctx)) for name in blocks if name in ctx.blocks}
        except Exception:
            env.handle_exception()  # re-raised with the template's file and line in the traceback
    except jinja2.TemplateSyntaxError as exc:  # an extended or included template, compiled late
        raise ConfigError(
            N_("{value}:{lineno}: template error: {text}"),
            value=exc.filename or where,
            lineno=exc.lineno,
            text=exc.message,
        ) from None
    except jinja2.TemplateNotFound as exc:
        raise ConfigError(
            N_("{value}: template not found: {name}"), value=template_location(exc) or where, name=exc.name
        ) from None
    except TemplateTooBig as exc:
        raise ConfigError(
            N_("{value}: template error: too big: {error}"), value=template_location(exc) or where, error=exc
        ) from None
    except SecurityError as exc:
        at = template_location(exc) or where
        raise ConfigError(N_("{at}: template error: not allowed in a template: {error}"), at=at, error=exc) from None
    except MemoryError:  # past every bound: still one line, naming the template
        raise ConfigError(N_("{where}: template error: it needs more memory than there is"), where=where) from None
    except Exception as exc:  # a template may fail in any way a Python expression can
        raise ConfigError(
            N_("{value}: template error: {kind}: {error}"),
            value=template_location(exc) or where,
            kind=type(exc).__name__,
            error=exc,
        ) from None
    return Rendered(str(body), {k: str(v) for k, v in found.items()})


def template_location(exc: BaseException) -> str | None:
    """`file:line` of the innermost template frame in the error's traceback (Jinja maps its frames to
    template lines), or None."""
    found: str | None = None
    tb = exc.__traceback__
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename
        if not filename.endswith(".py") and not filename.startswith("<"):
            found = f"{filename}:{tb.tb_lineno}"
        tb = tb.tb_next
    return found


def variant_template(common: str, variant: str) -> str:
    """The variant's own template of a kind (`day.bbcode.j2` -> `day/<variant>.bbcode.j2`), or the common one."""
    stem, _, suffix = common.partition(".")
    own = f"{stem}/{variant}.{suffix}"
    found = resources.files("forumbot.render").joinpath("templates", *own.split("/")).is_file()
    return own if found else common


def tidy(text: str) -> str:
    """At most one blank line in a row, none at the ends: templates can stay readable."""
    lines: list[str] = []
    for line in text.strip().splitlines():
        line = line.rstrip()
        if line or (lines and lines[-1]):
            lines.append(line)
    return "\n".join(lines).strip() + "\n"
