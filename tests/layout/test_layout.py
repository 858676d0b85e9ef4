"""The layout holds: the state file has one user, the engine does no I/O, the lower layers import only
downwards, and users get no test support in their installation."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "forumbot"


def imports_of(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def modules(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*.py"))


def test_only_the_store_uses_sqlite() -> None:
    users = [p.relative_to(ROOT).as_posix() for p in modules(PACKAGE) if "sqlite3" in imports_of(p)]
    assert users == ["forumbot/store.py"]


def test_the_renderer_reads_no_forum_and_no_wiring() -> None:
    for path in modules(PACKAGE / "render"):
        for name in imports_of(path):
            assert not name.startswith(("forumbot.forum", "forumbot.host", "forumbot.cli", "forumbot.store")), (
                f"render/{path.name} imports {name}"
            )


def test_the_engine_imports_only_itself_and_the_errors() -> None:
    for path in modules(PACKAGE / "engine"):
        for name in imports_of(path):
            if name.startswith("forumbot"):
                assert name.startswith(("forumbot.engine", "forumbot.errors")), f"{path.name} imports {name}"


def test_forum_and_extract_never_import_the_wiring() -> None:
    """The forum makes posts and PMs (`forumbot.posts`), the extraction reads them: neither imports the
    other, nor anything above them."""
    wiring = ("forumbot.host", "forumbot.cli")
    for folder, barred in (
        ("forum", (*wiring, "forumbot.extract", "forumbot.render")),
        ("extract", (*wiring, "forumbot.forum", "forumbot.render")),  # the posts it reads: forumbot.posts
    ):
        for path in modules(PACKAGE / folder):
            for name in imports_of(path):
                assert not name.startswith(barred), f"{folder}/{path.name} imports {name}"


def test_the_installed_package_holds_no_test_support() -> None:
    assert not (PACKAGE / "testing").exists()
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert 'include = ["forumbot*"]' in pyproject and "skeletons" not in pyproject
    for path in modules(PACKAGE):
        assert "fakeboard" not in imports_of(path), path


VARIANT_NAMES = ('"gameru-3.3"', '"kozanostra"', '"salon"', "Gameru", "Kozanostra(", "Salon(")
VARIANT_STEMS = ("gameru-3.3", "kozanostra", "salon")


def test_no_variant_is_named_outside_the_engine() -> None:
    """The ruleset answers every rule question: the wiring, the CLI, the forum, the extraction and the
    renderer ask it; only the engine (and each variant's own templates) name a variant."""
    for path in modules(PACKAGE):
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith("forumbot/engine/"):
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if any(name in line for name in VARIANT_NAMES):
                raise AssertionError(f"{rel}:{number} names a variant: {line.strip()}")


def test_the_common_templates_never_branch_on_a_variant() -> None:
    """A variant words its texts in its own template (`day/<variant>...`, `messages/<kind>/<variant>...`),
    which extends the common one; the common ones ask the values the ruleset gave, never the variant's name."""
    templates = PACKAGE / "render" / "templates"
    own = {path for path in templates.rglob("*.j2") if path.stem.removesuffix(".bbcode") in VARIANT_STEMS}
    assert own, "each variant has its own templates"
    for path in sorted(set(templates.rglob("*.j2")) - own):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            assert "variant ==" not in line and "variant !=" not in line, f"{path.name}:{number}: {line.strip()}"
