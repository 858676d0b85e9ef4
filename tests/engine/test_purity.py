"""The engine is pure: importing it must not import any I/O library."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "forumbot" / "engine"
FORBIDDEN = {
    "httpx",
    "lxml",
    "bs4",
    "sqlite3",
    "typer",
    "rich",
    "requests",
    "socket",
    "urllib",
    "jinja2",
    "os",
    "subprocess",
    "pathlib",
    "io",
    "shutil",
    "asyncio",
    "forumbot.forum",
    "forumbot.extract",
    "forumbot.store",
    "forumbot.cli",
}


def test_engine_sources_import_no_io_library() -> None:
    for path in ENGINE.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            for name in names:
                bad = [f for f in FORBIDDEN if name == f or name.startswith(f + ".")]
                assert not bad, f"{path.name} imports {name}"


def test_importing_the_engine_loads_no_io_module() -> None:
    probe = (
        "import sys, forumbot.engine, forumbot.engine.deal;"
        "io_libs = ('httpx', 'lxml', 'bs4', 'sqlite3', 'typer', 'rich', 'jinja2');"
        "print(','.join(m for m in io_libs if m in sys.modules))"
    )
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.strip()
    assert loaded == ""
