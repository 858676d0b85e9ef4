"""Every shell block of the README runs, as a host would run it from a fresh clone's root: each block in
order, by bash, stopping at the first failing line. A block that cannot run in a test (a real forum, the
test suite itself) says so, with its reason, in an HTML comment on the line before it:

    <!-- readme-test: skip: REASON -->

Any other block must exit 0; every fenced block names its language, so no command hides in an unnamed one.
The clone is the repository's files, linked, with a `.venv` whose tools are this test's Python (so `make`
finds it installed and never installs anything)."""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SHELLS = frozenset({"sh", "bash", "shell", "console"})
_FENCE = re.compile(r"^(\s*)```(\S*)\s*$")
_MARK = re.compile(r"^\s*<!--\s*readme-test:\s*skip:\s*(?P<reason>.*?)\s*-->\s*$")
ENTRY = "import sys; sys.argv[0] = 'forumbot'; from forumbot.cli import app; app()"
_ANY_MARK = re.compile(r"<!--\s*readme-test")


@dataclass(frozen=True)
class Block:
    line: int  # the line of its opening fence (1-based)
    language: str
    text: str
    skip: str | None  # the reason it is not run, from its marker


def blocks(markdown: str) -> list[Block]:
    """The fenced blocks of a Markdown text, each with its language and the marker on the line before it."""
    lines = markdown.splitlines()
    found: list[Block] = []
    index = 0
    while index < len(lines):
        opening = _FENCE.match(lines[index])
        if opening is None:
            if _ANY_MARK.search(lines[index]) and not _MARK.match(lines[index]):
                raise ValueError(
                    f"README.md:{index + 1}: a readme-test marker reads <!-- readme-test: skip: REASON -->"
                )
            index += 1
            continue
        end = next((k for k in range(index + 1, len(lines)) if lines[k].strip() == "```"), None)
        if end is None:
            raise ValueError(f"README.md:{index + 1}: a block that never closes")
        marker = _MARK.match(lines[index - 1]) if index else None
        if marker is not None and not marker.group("reason"):
            raise ValueError(f"README.md:{index}: a skipped block says why")
        indent = len(opening.group(1))
        text = "\n".join(line[indent:] for line in lines[index + 1 : end])
        found.append(Block(index + 1, opening.group(2), text, marker.group("reason") if marker else None))
        index = end + 1
    return found


def clone(tmp: Path) -> Path:
    """A fresh clone's root: the repository's tracked top-level entries linked, and a `.venv` of this Python."""
    root = tmp / "clone"
    root.mkdir()
    tracked = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True).stdout
    for name in sorted({path.split("/", 1)[0] for path in tracked.splitlines()}):
        (root / name).symlink_to(REPO / name)
    tools = root / ".venv" / "bin"
    tools.mkdir(parents=True)
    programs = {
        "python": f'exec "{sys.executable}" "$@"',
        "forumbot": f'exec "{sys.executable}" -c "{ENTRY}" "$@"',  # the entry point pyproject.toml names
        "pip": 'echo "pip: not in a test" >&2; exit 1',
    }
    for name, body in programs.items():
        program = tools / name
        program.write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
        program.chmod(program.stat().st_mode | stat.S_IXUSR)
    (root / ".venv" / ".installed").touch()  # newer than pyproject.toml: make installs nothing
    return root


def run_block(block: Block, root: Path, home: Path) -> subprocess.CompletedProcess[str]:
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("FORUMBOT_")},
        "HOME": str(home),
        "PATH": f"{root / '.venv' / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}",
        "PYTHONPATH": str(root),  # the clone's forumbot and fakeboard, whatever the venv has installed
    }
    return subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", block.text],
        cwd=root,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=600,
    )


def failures(markdown: str, tmp: Path) -> tuple[list[str], int]:
    """What failed of a Markdown text's shell blocks, each named by its line, and how many ran."""
    root, home = clone(tmp), tmp / "home"
    home.mkdir()
    failed: list[str] = []
    ran = 0
    for block in blocks(markdown):
        if not block.language:
            failed.append(f"line {block.line}: a block without a language (```sh for commands, ```text else)")
            continue
        if block.language not in SHELLS or block.skip is not None:
            continue
        ran += 1
        done = run_block(block, root, home)
        if done.returncode != 0:
            failed.append(
                f"line {block.line}: exit {done.returncode}\n{block.text}\n--- stdout\n{done.stdout[-3000:]}"
                f"\n--- stderr\n{done.stderr[-3000:]}"
            )
    return failed, ran


def test_every_shell_block_of_the_readme_runs(tmp_path: Path) -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    failed, ran = failures(readme, tmp_path)
    assert not failed, "\n\n".join(failed)
    rehearsals = [b for b in blocks(readme) if "fakeboard rehearse" in b.text]
    assert rehearsals and all(b.skip is None for b in rehearsals)  # the rehearsal really plays
    assert ran >= 3


def test_an_unmarked_block_that_fails_fails_the_test_and_a_marked_one_is_left(tmp_path: Path) -> None:
    markdown = (
        "```sh\ntrue\n```\n"
        "<!-- readme-test: skip: needs a real forum -->\n```sh\nexit 3\n```\n"
        "```sh\nfalse\necho never\n```\n"
        "```toml\nx = 1\n```\n"
    )
    failed, ran = failures(markdown, tmp_path)
    assert ran == 2 and len(failed) == 1 and failed[0].startswith("line 8: exit 1")
    assert "--- stdout\n\n" in failed[0]  # bash stopped at the failing line


def test_a_block_without_a_language_or_a_marker_without_a_reason_is_refused(tmp_path: Path) -> None:
    assert "line 1: a block without a language" in failures("```\necho hi\n```\n", tmp_path)[0][0]
    with pytest.raises(ValueError, match="says why"):
        blocks("<!-- readme-test: skip: -->\n```sh\nfalse\n```\n")
    with pytest.raises(ValueError, match="marker reads"):
        blocks("<!-- readme-test: skipped -->\n```sh\nfalse\n```\n")
