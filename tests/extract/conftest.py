"""Fixtures for the extract tests; the builders live in extract_support.py.

The suite runs with ``--import-mode=importlib``, which puts no test folder on ``sys.path``; this folder
is added here so the test modules can import their shared builders by name.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from extract_support import IPB_PLAYERS, PHPBB_PLAYERS  # noqa: E402

from forumbot.extract import Roster  # noqa: E402


@pytest.fixture
def phpbb_roster() -> Roster:
    return Roster(PHPBB_PLAYERS)


@pytest.fixture
def ipb_roster() -> Roster:
    return Roster(IPB_PLAYERS)
