"""The home (what every game shares: `.env`, `forumbot.db`): `FORUMBOT_HOME` when it is set, else `~/.forumbot`
where an earlier version made it, else the platform's folder for a user's data (platformdirs)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from forumbot.config import forumbot_home


@pytest.fixture
def user(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv("FORUMBOT_HOME", raising=False)
    return tmp_path


@pytest.mark.skipif(sys.platform != "linux", reason="the XDG conventions are Linux's")
def test_the_home_follows_the_platform_s_conventions(user: Path) -> None:
    assert forumbot_home() == user / "data" / "forumbot"


def test_an_earlier_home_is_kept(user: Path) -> None:
    (user / ".forumbot").mkdir()
    assert forumbot_home() == user / ".forumbot"


def test_an_explicit_home_wins(user: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (user / ".forumbot").mkdir()
    monkeypatch.setenv("FORUMBOT_HOME", "~/games")
    assert forumbot_home() == user / "games"
