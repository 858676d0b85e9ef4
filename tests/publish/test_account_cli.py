"""`forumbot account` on the fake phpBB board through typer's runner: the account's zone is checked against the
config's `[forum] timezone` as the readers check it (exit code 2 when they disagree), `--date-format` with
`--yes` changes the format without asking (for scripts), and `-v` logs each request with its date."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from publish_support import BOT, BOT_PASSWORD, GAME, Played, board_with_day1, game_config, played_on
from typer.testing import CliRunner, Result

from fakeboard import BoardServer
from forumbot.cli import app
from forumbot.store import Store

pytestmark = pytest.mark.real_sleep(reason="the command line's client keeps phpBB's one-second rule for forms")


@pytest.fixture
def played(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Played]:
    """The board (its zone UTC) and a game whose config says the account's dates are in Moscow time."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FORUMBOT_STATE", str(tmp_path / "state.db"))
    monkeypatch.setenv("FORUMBOT_USERNAME", BOT)
    monkeypatch.setenv("FORUMBOT_PASSWORD", BOT_PASSWORD)
    monkeypatch.setenv("FORUMBOT_MIN_INTERVAL", "0")
    board, topic = board_with_day1()
    server = BoardServer(board)

    def make() -> Played:
        config = game_config(server.url, timezone="Europe/Moscow")
        return Played(board, server, None, Store(tmp_path / "state.db"), config, topic)

    with played_on(server, make, drafted=False) as day:
        yield day


def invoke(*args: str) -> Result:
    return CliRunner().invoke(app, list(args), terminal_width=200)


def test_a_zone_the_board_does_not_print_in_is_refused_as_the_watch_refuses_it(played: Played) -> None:
    result = invoke("account", GAME)
    assert result.exit_code == 2, result.output
    assert f"{BOT}: language en, time zone UTC" in result.output
    assert "[forum] timezone = Europe/Moscow (UTC+03:00), but the board prints the dates of host_bot in UTC" in (
        result.output
    )
    played.board.set_preferences(BOT, tz="Europe/Moscow")  # the host sets the account's zone on the board
    agreed = invoke("account", GAME)
    assert agreed.exit_code == 0, agreed.output


def test_date_format_with_yes_changes_it_without_asking(played: Played) -> None:
    played.board.set_preferences(BOT, tz="Europe/Moscow")
    result = invoke("account", GAME, "--date-format", "d.m.Y H:i:s", "--yes")
    assert result.exit_code == 0, result.output
    assert "the date format is now 'd.m.Y H:i:s'" in result.output
    user = played.board.user(BOT)
    assert user is not None and user.dateformat == "d.m.Y H:i:s"


def test_verbose_logs_each_request_with_its_date(played: Played, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("httpx", "httpcore"):  # -v sets up these loggers for the process: put back after the test
        logger = logging.getLogger(name)
        monkeypatch.setattr(logger, "handlers", list(logger.handlers))
        monkeypatch.setattr(logger, "level", logger.level)
    result = CliRunner().invoke(app, ["-v", "account", GAME])
    assert result.exit_code == 2  # the zones disagree: still logged
    logged = [line for line in result.stderr.splitlines() if "HTTP Request:" in line]
    stamped = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d httpx: HTTP Request: (GET|POST) ")
    assert logged and all(stamped.match(line) for line in logged)
    assert "ucp.php" in " ".join(logged)
