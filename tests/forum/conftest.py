"""Shared helpers of the forum client tests: the fake boards (`server.py`); the fake clock is the suite's."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest


def _load_server() -> ModuleType:
    """`server.py` beside this file, loaded by path: it works whether or not tests/ is a package."""
    name = "forumbot_tests_fake_boards"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name("server.py"))
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


boards = _load_server()


@pytest.fixture
def fake_boards() -> ModuleType:
    """The fake boards module (`FakePhpbb`, `FakeIpb`, `serve`)."""
    return boards
