"""Fixtures for the publishing tests; the board, the game and its first day live in publish_support.py, the
boards the fault tests run on in boards.py.

The suite runs with ``--import-mode=importlib``, which puts no test folder on ``sys.path``; this folder
is added here so the test modules can import their shared builders by name.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from boards import BOARDS, BoardKit  # noqa: E402 (the folder is on the path only now)


@pytest.fixture(params=sorted(BOARDS))
def board_kit(request: pytest.FixtureRequest) -> BoardKit:
    """Each board of `boards.BOARDS` in turn: a test taking it runs on every board listed there."""
    return BOARDS[str(request.param)]
