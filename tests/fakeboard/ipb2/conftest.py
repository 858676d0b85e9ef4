"""The suite runs with ``--import-mode=importlib``, which puts no test folder on ``sys.path``; this folder is
added here so the test modules can import the captured board's builder (ipb2_capture.py) by name."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
