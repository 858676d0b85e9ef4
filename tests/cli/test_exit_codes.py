"""Exit codes a cron job or a systemd unit can act on: 2 when the host must act (bad input or config, an unknown
nick, the board refusing for good), 75 (EX_TEMPFAIL) for a fault that passes (the board down or refusing for now,
the game held by another forumbot), from the exception tree in one place; `-q` prints only what matters; the
watch's log lines carry the date."""

from __future__ import annotations

import json
import shutil
import socket
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from typer.testing import CliRunner, Result

import forumbot.cli
from forumbot import errors
from forumbot.cli.common import EXIT_HOST, EXIT_TEMPFAIL, exit_code, out
from forumbot.cli.day import _log_pass
from forumbot.forum.client import ClientSettings, ForumClient
from forumbot.host.watch import PassReport
from forumbot.store import Store

DEMO = Path(__file__).resolve().parents[2] / "fixtures" / "demo"
GAME = "Демо-мафия"
AFTER = "2026-11-29T23:30:00+03:00"


def invoke(*args: str) -> Result:
    return CliRunner().invoke(forumbot.cli.app, list(args))


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shutil.copytree(DEMO, tmp_path / "demo", ignore=shutil.ignore_patterns("*.py"))
    monkeypatch.setenv("FORUMBOT_STATE", str(tmp_path / "state.db"))
    assert invoke("new-game", str(tmp_path / "demo" / "game.toml")).exit_code == 0
    assert invoke("deal", GAME, "--seed", "1", "--topic", "1", "--now", "2026-11-29T10:00:00+03:00").exit_code == 0
    return tmp_path / "state.db"


@pytest.mark.parametrize(
    ("error", "code"),
    [
        (errors.ForumUnavailable("down"), EXIT_TEMPFAIL),
        (errors.MaybeSent("maybe"), EXIT_TEMPFAIL),
        (errors.PageCutShort("cut"), EXIT_TEMPFAIL),
        (errors.NotLoggedIn("a login wall"), EXIT_TEMPFAIL),
        (errors.ForumError("flood control refused it 3 times"), EXIT_TEMPFAIL),
        (errors.GameBusy("another forumbot"), EXIT_TEMPFAIL),
        (errors.LoginFailed("bad password"), EXIT_HOST),
        (errors.NoPermission("may not"), EXIT_HOST),
        (errors.HeldForApproval("held"), EXIT_HOST),
        (errors.UnknownRecipient("no member"), EXIT_HOST),
        (errors.TooManyRecipients("too many", 5), EXIT_HOST),
        (errors.ConfigError("bad"), EXIT_HOST),
        (errors.StateError("unknown game"), EXIT_HOST),
        (errors.DealError("no scheme"), EXIT_HOST),
        (errors.ParseError("not a topic page"), EXIT_HOST),
    ],
)
def test_each_error_of_the_tree_has_its_exit_code(error: errors.ForumbotError, code: int) -> None:
    assert exit_code(error) == code


def test_a_board_that_is_down_is_75(state: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def down(settings: ClientSettings) -> ForumClient:
        raise errors.ForumUnavailable("{forum}: connection refused", forum=settings.forum)

    monkeypatch.setattr(forumbot.cli, "open_client", down, raising=False)
    result = invoke("status", GAME, "--votes")
    assert result.exit_code == 75 and "connection refused" in result.output


def test_the_host_s_mistakes_are_2(state: Path) -> None:
    assert invoke("override", GAME, "--clear-vote", "Alice", "--reason", "r", "--by", "Никто").exit_code == 2
    assert invoke("status", "Нет такой игры").exit_code == 2
    assert invoke("end-day", GAME, "--now", "not a date").exit_code == 2
    assert invoke("status").exit_code == 2  # typer's own: a missing argument


def test_a_game_another_forumbot_holds_is_75(state: Path) -> None:
    assert invoke("end-day", GAME, "--now", AFTER).exit_code == 0
    store = Store(state)
    try:
        game_id = store.game(GAME).id
        with store.transaction() as db:  # a living process (pid 1) of this machine holds the game
            db.execute(
                "INSERT INTO locks (game_id, pid, host, what, at) VALUES (?, 1, ?, 'publish', ?)",
                (game_id, socket.gethostname(), datetime.now(UTC).isoformat(timespec="seconds")),
            )
    finally:
        store.close()
    result = invoke("draft", "send", GAME)
    assert result.exit_code == 75 and "another forumbot (publish, process 1" in result.output


def test_quiet_prints_only_json_and_errors(state: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(out, "quiet", False)  # put back after the test (a -q run leaves the console quiet)
    assert invoke("-q", "status", GAME).output == ""
    assert json.loads(invoke("-q", "status", GAME, "--json").output)["day"] == 1
    loud = invoke("status", GAME)
    assert "day 1" in loud.output
    refused = invoke("-q", "status", "Нет такой игры")
    assert refused.exit_code == 2 and "unknown game" in refused.output


def test_the_watch_s_log_lines_carry_the_date(capsys: pytest.CaptureFixture[str]) -> None:
    at = datetime(2026, 11, 29, 20, 5, 7, tzinfo=UTC)
    _log_pass(PassReport(), at, ZoneInfo("Europe/Moscow"))
    assert capsys.readouterr().out.startswith("2026-11-29 23:05:07 ")
