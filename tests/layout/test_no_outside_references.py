"""A newcomer who clones the repository can follow every reference: no file points to documents or folders
that are not part of it. The project's documentation is in docs/ (docs/README.md lists the original rule
documents); the captured forum pages are in fixtures/phpbb/, fixtures/ipb/ and fixtures/phpbb-ru/."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Assembled from pieces, so this file does not name them itself. The folder of shared documents beside the
# checkout is outside it however a path reaches it (relative or absolute): a path segment of that name.
OUTSIDE_FOLDER = re.compile(r"/" + "sh" + "ared" + r"(?=/|$|[\s'\")\]])")
OUTSIDE = (
    "RULES" + ".md",
    "FORUM" + ".md",
    "SCENARIOS" + ".md",
    "STYLE" + ".md",
    "shared/" + "phpbb",
    "shared/" + "ipb",
    "shared/" + "seeds",
)

# Without git (an unpacked archive), everything but these is read.
SKIPPED_DIRS = {".git", ".venv", "out", "build", "dist", "__pycache__", ".pytest_cache", ".mypy_cache",
                ".ruff_cache", ".hypothesis"}


def repository_files() -> list[Path]:
    try:
        listed = subprocess.run(
            ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
            cwd=ROOT, capture_output=True, check=True,
        ).stdout.decode("utf-8")
        paths = [ROOT / name for name in listed.split("\0") if name]
    except (OSError, subprocess.CalledProcessError):
        paths = [
            p for p in ROOT.rglob("*")
            if not any(part in SKIPPED_DIRS or part.endswith(".egg-info") for part in p.relative_to(ROOT).parts)
        ]
    return sorted(p for p in set(paths) if p.is_file())


def is_captured_page(path: Path) -> bool:
    """The pages captured from real boards (and built after them) are quoted as served, never edited."""
    relative = path.relative_to(ROOT)
    return relative.parts[0] == "fixtures" and path.suffix in {".html", ".htm"}


def outside_references() -> list[str]:
    found = []
    for path in repository_files():
        if is_captured_page(path):
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue  # binary files and the like
        for number, line in enumerate(text.splitlines(), 1):
            names = [name for name in OUTSIDE if name in line] + OUTSIDE_FOLDER.findall(line)
            found += [f"{path.relative_to(ROOT).as_posix()}:{number}: {name}" for name in names]
    return found


def test_the_check_reads_the_whole_repository_but_the_captured_pages() -> None:
    read = {p.relative_to(ROOT).as_posix() for p in repository_files() if not is_captured_page(p)}
    for expected in ("Makefile", "pyproject.toml", "README.md", "docs/README.md", "scenarios/README.md",
                     "fixtures/phpbb/viewtopic_page1.json", "fixtures/extract/README.md", "forumbot/engine/day.py",
                     "fakeboard/server.py", "tests/layout/test_no_outside_references.py"):
        assert expected in read
    assert "fixtures/phpbb/viewtopic_page1.html" not in read
    assert not any(name.startswith((".git/", ".venv/")) for name in read)


def test_a_folder_beside_the_checkout_is_found_however_it_is_named() -> None:
    beside = "sh" + "ared"
    for line in (f"see ../{beside}/FOO", f"open('/srv/{beside}/x')", f"{beside}/seeds"):
        assert OUTSIDE_FOLDER.search(line) or any(name in line for name in OUTSIDE), line
    for line in (f"a_{beside}_thing", f"fixtures/{beside}-pages", "share/data"):
        assert not OUTSIDE_FOLDER.search(line), line


def test_no_file_refers_to_documents_outside_the_repository() -> None:
    found = outside_references()
    assert not found, "point into docs/ or fixtures/ instead:\n" + "\n".join(found)
