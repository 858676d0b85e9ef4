"""The fake boards' layout: a server core every engine runs on, one package per engine, and the IPB fakes sharing
only the core and what the two IPB versions have in common (`invision/`), never phpBB's server."""

from __future__ import annotations

import ast
from pathlib import Path

from fakeboard.invision import InvisionServer
from fakeboard.ipb2 import Ipb2Server
from fakeboard.ipb3 import Ipb3Server
from fakeboard.phpbb import BoardServer
from fakeboard.phpbb.frame import PhpbbFrame
from fakeboard.server import FakeServer

FAKEBOARD = Path(__file__).resolve().parents[2] / "fakeboard"
CORE = ("server.py", "sessions.py", "faults.py", "clock.py", "state.py", "day.py")
ENGINES = ("phpbb", "invision", "ipb2", "ipb3")


def imports_of(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


def imports_of_package(name: str) -> set[str]:
    return set().union(*(imports_of(path) for path in (FAKEBOARD / name).glob("*.py")))


def test_the_core_names_no_engine() -> None:
    for name in CORE:
        barred = [m for m in imports_of(FAKEBOARD / name) if m.split(".")[:2] in [["fakeboard", e] for e in ENGINES]]
        assert not barred, (name, barred)


def test_the_ipb_fakes_share_the_core_not_phpbbs_server() -> None:
    for name, others in (
        ("invision", ("phpbb", "ipb2", "ipb3")),
        ("ipb2", ("phpbb", "ipb3")),
        ("ipb3", ("phpbb", "ipb2")),
    ):
        barred = [m for m in imports_of_package(name) if any(m.startswith(f"fakeboard.{o}") for o in others)]
        assert not barred, (name, barred)
    for server in (Ipb2Server, Ipb3Server):
        assert InvisionServer in server.__mro__ and FakeServer in server.__mro__
        assert PhpbbFrame not in server.__mro__ and BoardServer not in server.__mro__


def test_only_phpbbs_bbcode_the_synthetic_topic_and_the_rehearsal_borrow_from_forumbot() -> None:
    """The rehearsal runs forumbot's own commands (and speaks the host's language); a board never borrows."""
    borrowing = sorted(
        path.relative_to(FAKEBOARD).as_posix()
        for path in FAKEBOARD.rglob("*.py")
        if any(m.split(".")[0] == "forumbot" for m in imports_of(path))
    )
    assert borrowing == ["__main__.py", "phpbb/bbcode.py", "phpbb/synthetic.py", "rehearse.py"]


def test_each_engine_serves_its_own_skeletons() -> None:
    folders = {server.skeletons.parent.name for server in (BoardServer, Ipb2Server, Ipb3Server)}
    assert folders == {"phpbb", "ipb2", "ipb3"}
    assert not (FAKEBOARD / "skeletons").exists()
