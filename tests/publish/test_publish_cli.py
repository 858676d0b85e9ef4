"""`forumbot draft send`, `draft show --to-moderators` and `forumbot publish` against the fake board,
through typer's runner, with the account from the environment and real (one-second) form waits."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from publish_support import BOT, BOT_PASSWORD, DAY2_TITLE, GAME, SHERIFF, Played, played_day
from typer.testing import CliRunner

from forumbot.cli import app

runner = CliRunner()


@pytest.fixture
def live(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Played]:
    monkeypatch.chdir(tmp_path)  # no .env of the checkout
    monkeypatch.setenv("FORUMBOT_STATE", str(tmp_path / "state.db"))
    monkeypatch.setenv("FORUMBOT_USERNAME", BOT)
    monkeypatch.setenv("FORUMBOT_PASSWORD", BOT_PASSWORD)
    monkeypatch.setenv("FORUMBOT_MIN_INTERVAL", "0")
    with played_day(tmp_path, approve=False, real_time=True) as day:
        yield day


def invoke(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.output


@pytest.mark.real_sleep(reason="the command line's clients keep phpBB's one-second rule for forms on the real clock")
def test_draft_to_the_moderators_then_publish_from_the_command_line(live: Played) -> None:
    code, output = invoke("publish", GAME, "--no-roles")
    assert code == 2 and "not approved by a moderator" in output and live.posts_made() == 0
    code, output = invoke("draft", "show", GAME, "--to-moderators")
    assert code == 0 and "is sent to admin" in output
    assert invoke("draft", "send", GAME) == (0, f"{GAME}: this draft of day 1 was sent to admin already\n")
    code, output = invoke("draft", "html", GAME, "preview.html", "--to-moderators")  # in tmp_path
    assert code == 0 and "preview of day 1 written" in output and "was sent to admin already" in output
    assert len(live.board.pms_to("admin")) == 1
    assert invoke("draft", "approve", GAME, "--by", "admin")[0] == 0
    code, output = invoke("publish", GAME, "--no-roles", "--flood-interval", "0")
    assert code == 0, output
    [topic] = live.topics_titled(DAY2_TITLE)
    assert f"day 2 is open in topic {topic.topic_id}" in output and "previous day's topic is locked" in output
    assert f"sent: PM check → {SHERIFF}" in output
    code, output = invoke("publish", GAME)  # a re-run with nothing to do says so, and is no error
    assert code == 0 and "nothing to publish: day 2" in output
    assert len(live.topics_titled(DAY2_TITLE)) == 1


@pytest.mark.real_sleep(reason="the command line's clients keep phpBB's one-second rule for forms on the real clock")
def test_draft_send_tells_what_the_board_did_and_fails_when_a_letter_did_not_go(live: Played) -> None:
    row = live.store.game(GAME)
    game = row.config["game"] | {"moderators": ["admin", "Модератор"]}  # no member of the board is «Модератор»
    live.store.set_config(row.id, row.config | {"game": game})
    code, output = invoke("draft", "send", GAME)
    assert code == 2, output
    assert f"{GAME}: the draft of day 1 is sent to admin" in output
    assert f"{GAME}: the draft of day 1 is NOT sent to Модератор: " in output
    assert len(live.board.pms_to("admin")) == 1
    code, output = invoke("draft", "send", GAME)  # again: what went stays sent, what did not is told again
    assert code == 2 and "was sent to admin already" in output and "NOT sent to Модератор" in output
