"""The watch's log line: what a pass did, its news on the standard output, its problems labelled as such."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from forumbot.cli.day import _log_pass
from forumbot.host.watch import PassReport


def test_an_approval_is_news_and_a_refusal_a_problem(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FORUMBOT_LANG", "en")
    report = PassReport(handled=[7], notes=["day 1: draft 1a2b3c4d approved by Модератор"], problems=["set aside (m1)"])
    _log_pass(report, datetime(2026, 12, 1, 20, 0, tzinfo=UTC), ZoneInfo("Europe/Moscow"))
    shown = capsys.readouterr()
    assert "day 1: draft 1a2b3c4d approved by Модератор" in shown.out
    assert "problem" not in shown.out and "approved" not in shown.err
    assert "problem: set aside (m1)" in shown.err
