"""Shared helpers of the forum client tests: a fake clock and the fake boards (`server.py`)."""

from __future__ import annotations

import importlib.util
import sys
import threading
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


class FakeClock:
    """Time that moves only when someone sleeps; every sleep is recorded, nothing really waits."""

    def __init__(self, start: float = 1_795_973_879.0) -> None:
        self.now = start
        self.mono = 1000.0
        self.sleeps: list[float] = []
        self._lock = threading.Lock()

    def time(self) -> float:
        return self.now

    def monotonic(self) -> float:
        return self.mono

    def sleep(self, seconds: float) -> None:
        with self._lock:
            self.sleeps.append(seconds)
            if seconds > 0:
                self.now += seconds
                self.mono += seconds


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def fake_boards() -> ModuleType:
    """The fake boards module (`FakePhpbb`, `FakeIpb`, `serve`)."""
    return boards
