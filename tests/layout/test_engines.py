"""One folder per forum engine, behind one registry: an engine's name is written once (its folder's
`__init__.py`, whose dialect the registry lists), an engine folder builds only on the forum core, the Invision
common ground, the parsed values and the errors, and nothing above the forum knows any engine folder."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from forumbot.forum import registry

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "forumbot"
FORUM = PACKAGE / "forum"
ENGINES = sorted(p.name for p in FORUM.iterdir() if (p / "__init__.py").exists())  # the folders, invision too
CORE = sorted(p.stem for p in FORUM.glob("*.py") if p.stem not in ("__init__", "registry"))
# "saved" is also an event of the rules (the doctor saved someone): the engine's vocabulary, not a board's.
SAVED_THE_EVENT = ("forumbot/engine/", "forumbot/render/day.py", "forumbot/cli/words.py")  # the event, not the engine


def imported(path: Path) -> Iterator[str]:
    """Every module a file imports, and for `from M import n` also `M.n` (n may be a module)."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module
            yield from (f"{node.module}.{alias.name}" for alias in node.names)


def engine_folder(name: str) -> str | None:
    parts = name.split(".")
    if parts[:2] == ["forumbot", "forum"] and len(parts) > 2 and parts[2] in ENGINES:
        return parts[2]
    return None


def test_the_folders_are_the_registry_s_engines() -> None:
    names = [d.name for d in registry.DIALECTS]
    assert sorted(names) == sorted(set(ENGINES) - {"invision"}), "each engine folder is in the registry, once"
    assert len(set(names)) == len(names)


def test_an_engine_is_named_only_in_its_own_folder() -> None:
    """No list of engine names, no comparison with one, outside the engine's own folder (its name is its
    `__init__.py`'s NAME): everything else asks the registry (or the dialect a page or a client carries)."""
    names = {d.name for d in registry.DIALECTS}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in names):
                continue
            if rel.startswith(f"forumbot/forum/{node.value}/"):  # its NAME, or its own markup (`body#phpbb`)
                continue
            if node.value == "saved" and rel.startswith(SAVED_THE_EVENT):
                continue
            raise AssertionError(f"{rel}:{node.lineno} names the engine {node.value!r}: ask the registry")


def test_an_engine_folder_builds_on_the_core_and_invision_only() -> None:
    allowed = (
        "forumbot.posts",
        "forumbot.errors",
        "forumbot.forum.invision",
        *(f"forumbot.forum.{module}" for module in CORE),
    )
    for folder in ENGINES:
        for path in sorted((FORUM / folder).rglob("*.py")):
            for name in imported(path):
                if not name.startswith("forumbot") or name == "forumbot.forum":
                    continue
                own = name == f"forumbot.forum.{folder}" or name.startswith(f"forumbot.forum.{folder}.")
                if folder == "invision":
                    assert name.startswith(allowed[:2] + allowed[3:]) or own, f"invision/{path.name} imports {name}"
                else:
                    assert own or name.startswith(allowed), f"{folder}/{path.name} imports {name}"


def test_only_the_registry_knows_the_engine_folders() -> None:
    """The forum core (but the registry), the wiring, the command line and the renderer import no engine
    folder: they ask the registry, or use the core's protocols."""
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel == "forumbot/forum/registry.py" or any(rel.startswith(f"forumbot/forum/{e}/") for e in ENGINES):
            continue
        for name in imported(path):
            assert engine_folder(name) is None, f"{rel} imports {name}: ask forumbot.forum.registry"


def test_the_upper_layers_import_no_engine_folder() -> None:
    for layer in ("host", "cli", "render"):
        for path in sorted((PACKAGE / layer).rglob("*.py")):
            assert not [n for n in imported(path) if engine_folder(n)], f"{layer}/{path.name}"
