"""What players and moderators read is made in `render/`: the host's wing decides and calls it, and holds no
Russian of its own (docstrings and comments may quote the words they speak of)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HOST = ROOT / "forumbot" / "host"
CYRILLIC = re.compile("[\u0400-\u04ff]")


def docstrings(tree: ast.AST) -> set[int]:
    """The ids of the string constants that are docstrings (a module's, a class's, a function's)."""
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def cyrillic_literals(source: str) -> list[tuple[int, str]]:
    tree = ast.parse(source)
    skip = docstrings(tree)
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in skip
        and CYRILLIC.search(node.value)
    ]


def test_the_check_finds_a_literal_and_spares_docstrings_and_comments() -> None:
    source = '"""Модуль."""\n\ndef f(n: int) -> str:\n    """Ответ."""\n    # комментарий\n    return f"Ход {n}"\n'
    assert cyrillic_literals(source) == [(6, "Ход ")]


def test_the_host_wing_holds_no_russian_literal() -> None:
    found = {
        f"{path.relative_to(ROOT).as_posix()}:{line}": text
        for path in sorted(HOST.rglob("*.py"))
        for line, text in cyrillic_literals(path.read_text(encoding="utf-8"))
    }
    assert found == {}
