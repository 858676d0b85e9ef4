"""The message catalogues of `forumbot.i18n`: extract the strings from the code, update each `.po`, compile
each `.mo`, and check that all of it is in step (`make test` runs the check).

    python tools/catalogue.py update    extract, merge into every .po (new strings untranslated), compile
    python tools/catalogue.py compile   compile every .po into its .mo
    python tools/catalogue.py check     exit 1, naming each, on a string the code has and a .po lacks (or
                                        the reverse), a fuzzy or untranslated entry, a translation whose
                                        {placeholders} differ from its English, or a .mo behind its .po

What is extracted from `forumbot/` (and from the rehearsal, `fakeboard/rehearse.py`, a host's tool): the first
argument of `_()`, `gettext()`, `N_()` and the two of `ngettext()`, when they are string literals; in the command
line (`forumbot/cli/`) also every `help="..."` given to typer and the docstring of every command and callback
(typer shows them as the help).
The `.mo` files are committed (a wheel and a fresh checkout have them without Babel); Babel, a development
tool, writes them.
"""

from __future__ import annotations

import ast
import io
import string
import sys
from collections.abc import Iterator
from pathlib import Path

from babel.messages.catalog import Catalog, Message
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "forumbot"
LOCALE_DIR = PACKAGE / "locale"
DOMAIN = "forumbot"
LANGUAGES = ("ru",)
# Beside the package, what a host runs from the repository and reads: the rehearsal (`python -m fakeboard rehearse`).
HOST_TOOLS = (ROOT / "fakeboard" / "__main__.py", ROOT / "fakeboard" / "rehearse.py")
CALLS = {"_": 1, "gettext": 1, "N_": 1, "ngettext": 2}
MsgId = str | tuple[str, str]


def extract() -> dict[MsgId, list[str]]:
    """Every translatable string of the package, with the files it comes from (sorted, repeated once)."""
    found: dict[MsgId, list[str]] = {}
    for path in [*sorted(PACKAGE.rglob("*.py")), *HOST_TOOLS]:
        where = path.relative_to(ROOT).as_posix()
        for msgid in strings_of(ast.parse(path.read_text(encoding="utf-8")), cli=where.startswith("forumbot/cli/")):
            files = found.setdefault(msgid, [])
            if where not in files:
                files.append(where)
    return found


def strings_of(tree: ast.AST, *, cli: bool) -> Iterator[MsgId]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            yield from _call_strings(node, cli=cli)
        elif cli and isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and _is_command(node):
            doc = ast.get_docstring(node, clean=True)
            if doc:
                yield doc


def _call_strings(node: ast.Call, *, cli: bool) -> Iterator[MsgId]:
    name = node.func.id if isinstance(node.func, ast.Name) else None
    wanted = CALLS.get(name or "")
    if wanted is not None:
        texts = [a.value for a in node.args[:wanted] if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        if len(texts) == wanted:
            yield texts[0] if wanted == 1 else (texts[0], texts[1])
    if cli:
        for keyword in node.keywords:
            value = keyword.value
            if keyword.arg == "help" and isinstance(value, ast.Constant) and isinstance(value.value, str):
                yield value.value


def _is_command(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """A typer command or callback: decorated with `<app>.command(...)` or `<app>.callback(...)`."""
    for decorator in node.decorator_list:
        call = decorator.func if isinstance(decorator, ast.Call) else decorator
        if isinstance(call, ast.Attribute) and call.attr in ("command", "callback"):
            return True
    return False


def po_path(lang: str) -> Path:
    return LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


def read(lang: str) -> Catalog:
    path = po_path(lang)
    if not path.exists():
        return Catalog(locale=lang, domain=DOMAIN)
    with path.open("rb") as file:
        return read_po(file, locale=lang, domain=DOMAIN)


def update() -> None:
    extracted = extract()
    for lang in LANGUAGES:
        old = read(lang)
        new = Catalog(locale=lang, domain=DOMAIN, project="forumbot", fuzzy=False)
        for msgid, files in extracted.items():
            known = old.get(msgid)
            translation = known.string if known is not None else ("", "", "") if isinstance(msgid, tuple) else ""
            new.add(msgid, translation, locations=[(f, 0) for f in files])
        path = po_path(lang)
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as file:
            write_po(file, new, width=120, include_lineno=False, sort_output=True)
    compile_all()


def compiled(catalog: Catalog) -> bytes:
    buffer = io.BytesIO()
    write_mo(buffer, catalog)
    return buffer.getvalue()


def compile_all() -> None:
    for lang in LANGUAGES:
        po_path(lang).with_suffix(".mo").write_bytes(compiled(read(lang)))


def placeholders(text: str) -> set[str]:
    try:
        return {field for _, field, _, _ in string.Formatter().parse(text) if field is not None}
    except ValueError:
        return {"<unbalanced braces>"}


def check() -> list[str]:
    """What is out of step, one line each (nothing: all is well)."""
    problems: list[str] = []
    extracted = extract()
    for lang in LANGUAGES:
        catalog = read(lang)
        where = po_path(lang).relative_to(ROOT).as_posix()
        known = {m.id: m for m in catalog if m.id}
        problems += [
            f"{where}: lacks {msgid!r} ({', '.join(extracted[msgid])})" for msgid in extracted if msgid not in known
        ]
        problems += [f"{where}: {msgid!r} is no longer in the code" for msgid in known if msgid not in extracted]
        for message in known.values():
            problems += [f"{where}: {message.id!r}: {p}" for p in _entry_problems(message)]
        mo = po_path(lang).with_suffix(".mo")
        if not mo.exists() or mo.read_bytes() != compiled(catalog):
            problems.append(f"{mo.relative_to(ROOT).as_posix()}: not compiled from its .po (make catalogue)")
    return problems


def _entry_problems(message: Message) -> list[str]:
    if message.fuzzy:
        return ["fuzzy"]
    forms = [str(f) for f in (message.string if isinstance(message.string, tuple | list) else [message.string]) if f]
    if not forms or len(forms) < (len(message.string) if isinstance(message.string, tuple | list) else 1):
        return ["untranslated"]
    english = [str(e) for e in (message.id if isinstance(message.id, tuple | list) else [message.id])]
    wanted = set().union(*(placeholders(e) for e in english))
    return [
        f"placeholders {sorted(placeholders(f))} in {f!r}, not {sorted(wanted)}"
        for f in forms
        if placeholders(f) != wanted
    ]


def main(argv: list[str]) -> int:
    command = argv[1] if len(argv) > 1 else ""
    if command == "update":
        update()
    elif command == "compile":
        compile_all()
    elif command == "check":
        problems = check()
        for problem in problems:
            print(problem)
        return 1 if problems else 0
    else:
        print(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
