"""Input the host gets wrong is refused at once, in one line that names it: never recorded to fail later, never
answered with something made up (an empty state file for a mistyped path)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from forumbot.cli import app
from forumbot.draft import OverrideRow

DEMO = Path(__file__).resolve().parents[2] / "fixtures" / "demo"
GAME = "Демо-мафия"


def invoke(*args: str) -> Result:
    return CliRunner().invoke(app, list(args), terminal_width=200)


def ok(*args: str) -> str:
    result = invoke(*args)
    assert result.exit_code == 0, result.output
    return result.output


def refused(*args: str) -> str:
    """The command refused its input: exit code 2, one line, no traceback."""
    result = invoke(*args)
    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit), result.exception
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output
    return lines[0]


@pytest.fixture
def state(tmp_path: Path) -> Path:
    path = tmp_path / "state.db"
    ok("new-game", str(DEMO / "game.toml"), "--state", str(path))
    ok("deal", GAME, "--seed", "1", "--topic", "1", "--now", "2026-11-29T10:00:00+03:00", "--state", str(path))
    return path


def overrides(path: Path) -> list[OverrideRow]:
    from forumbot.store import Store

    store = Store(path)
    return store.overrides(store.game(GAME).id, 1)


def test_an_override_of_a_post_the_audit_does_not_hold(state: Path) -> None:
    draft = json.loads(ok("end-day", GAME, "--json", "--state", str(state)))
    posts = sorted({v["post_id"] for v in draft["votes"]})
    for option in ("--ignore-post", "--count-post"):
        line = refused("override", GAME, option, "987654", "--reason", "x", "--by", "Модератор", "--state", str(state))
        assert "post 987654 is not in day 1's audit" in line and str(posts[0]) in line
    ok("override", GAME, "--ignore-post", str(posts[0]), "--reason", "вне", "--by", "Модератор", "--state", str(state))
    assert len(overrides(state)) == 1  # only the good one was recorded


def test_an_override_before_the_day_is_drafted_says_it_is_unchecked(state: Path) -> None:
    result = invoke("override", GAME, "--ignore-post", "5", "--reason", "x", "--by", "Модератор", "--state", str(state))
    assert result.exit_code == 0 and "could not be checked" in result.output


@pytest.mark.parametrize("by", ["Alice", "модератор", "Модератор "])
def test_only_the_moderators_of_the_game_override(state: Path, by: str) -> None:
    line = refused("override", GAME, "--clear-vote", "Alice", "--reason", "x", "--by", by, "--state", str(state))
    assert f"--by {by!r}: not a moderator of {GAME} (Модератор)" in line
    assert overrides(state) == []


def test_an_override_without_a_reason(state: Path) -> None:
    args = ["--clear-vote", "Alice", "--reason", " ", "--by", "Модератор", "--state", str(state)]
    line = refused("override", GAME, *args)
    assert "--reason is empty" in line


@pytest.mark.parametrize(
    "topic", ["not-a-topic", "0", "t=5", "ftp://forum.example/viewtopic.php?t=5", "https://forum.example/index.php"]
)
def test_a_day_topic_that_names_no_topic(state: Path, topic: str) -> None:
    line = refused("day-topic", GAME, topic, "--state", str(state))
    assert f"topic {topic!r}: not a topic number nor a topic URL" in line


@pytest.mark.parametrize(
    "topic", ["12", "https://forum.example/viewtopic.php?f=2&t=12", "http://f.example/index.php?showtopic=12"]
)
def test_a_day_topic_as_a_number_or_a_url(state: Path, topic: str) -> None:
    assert "is read from topic" in ok("day-topic", GAME, topic, "--state", str(state))


def test_deal_and_advance_check_their_topic_too(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    ok("new-game", str(DEMO / "game.toml"), "--state", str(path))
    line = refused("deal", GAME, "--topic", "день первый", "--state", str(path))
    assert "--topic 'день первый': not a topic number" in line
    line = refused("advance", GAME, "--topic", "x", "--state", str(path))
    assert "--topic 'x': not a topic number" in line


def game_config(tmp_path: Path, extra: str) -> Path:
    shutil.copytree(DEMO / "pages", tmp_path / "pages")
    text = (DEMO / "game.toml").read_text(encoding="utf-8") + extra
    path = tmp_path / "game.toml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("url", ["ftp://x/", "forum.example", "http:///board/", "javascript:alert(1)"])
def test_a_forum_address_that_is_not_http(tmp_path: Path, url: str) -> None:
    config = game_config(tmp_path, f'base_url = "{url}"\n')
    line = refused("new-game", str(config), "--state", str(tmp_path / "state.db"))
    assert line.startswith(f"error: {config}: forum.base_url: {url!r} is not a forum's web address")


def test_a_template_that_does_not_exist(tmp_path: Path) -> None:
    config = game_config(tmp_path, '\n[templates]\nday = "my_day.j2"\n')
    line = refused("new-game", str(config), "--state", str(tmp_path / "state.db"))
    assert line == f"error: {config}: templates.day: no such template file {tmp_path / 'my_day.j2'}"
    assert not (tmp_path / "state.db").exists()
    (tmp_path / "my_day.j2").write_text("{{ title }}", encoding="utf-8")
    ok("new-game", str(config), "--state", str(tmp_path / "state.db"))


@pytest.mark.parametrize(
    "command",
    [
        ["status", GAME],
        ["override", GAME, "--clear-vote", "Alice", "--reason", "x", "--by", "Модератор"],
        ["day-topic", GAME, "12"],
        ["end-day", GAME],
        ["draft", "show", GAME],
        ["draft", "approve", GAME, "--by", "Модератор"],
        ["advance", GAME],
        ["reveal", GAME],
        ["relays", GAME],
        ["deal", GAME],
        ["signups", GAME],
        ["publish", GAME],
        ["watch", GAME, "--once"],
    ],
)
def test_a_mistyped_state_path_is_refused_and_nothing_is_made(state: Path, command: list[str]) -> None:
    typo = state.parent / "sate" / "state.db"
    line = refused(*command, "--state", str(typo))
    assert line == f"error: {typo}: the state file does not exist (a game's first state file is made by new-game)"
    assert not typo.parent.exists()


def test_the_default_state_file_is_not_made_either(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("FORUMBOT_STATE", raising=False)
    line = refused("status", GAME)
    assert "forumbot.db: the state file does not exist" in line and not (tmp_path / "forumbot.db").exists()
