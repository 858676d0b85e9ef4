"""What the README says of the command line and the config holds (its rehearsal is another test's): the engines
its config names are those that read and write, `forum_id` is where every writing engine posts, `--json` is on
the commands it lists, and `--by` names a moderator of the config (`--now`: test_now.py)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from typer.main import get_command
from typer.testing import CliRunner

from forumbot.cli import app
from forumbot.config import GameConfig
from forumbot.forum import registry

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
DEMO = Path(__file__).resolve().parents[2] / "fixtures" / "demo"


def options_of(name: str) -> set[str]:
    command = get_command(app)
    for word in name.split():
        command = command.commands[word]  # type: ignore[attr-defined]
    return {opt for param in command.params for opt in param.opts}


def readme_config() -> str:
    return README.split("```toml", 1)[1].split("```", 1)[0]


def test_the_config_names_every_engine_that_reads_and_writes() -> None:
    line = next(x for x in readme_config().splitlines() if x.strip().startswith("engine ="))
    named = re.findall(r"\b(?:" + "|".join(registry.names()) + r")\b", line)
    assert set(named) == set(registry.names(writable=True)) | {"saved"}


@pytest.mark.parametrize("engine", registry.names(writable=True))
def test_forum_id_is_where_every_writing_engine_posts(engine: str) -> None:
    assert "(every engine that writes)" in readme_config()
    forum = {"engine": engine, "base_url": "https://forum.example.org/", "forum_id": 4}
    config = GameConfig.model_validate({"game": {"name": "Игра", "variant": "gameru-3.3"}, "forum": forum})
    assert config.forum.forum_id == 4


def test_json_is_on_the_commands_the_readme_lists() -> None:
    said = README.split("`--json` (times as ISO 8601 with the offset) is on", 1)[1].split(".", 1)[0]
    listed = [name.split(" --")[0] for name in re.findall(r"`([a-z][a-z -]+)`", said)]
    assert len(listed) == 13
    for name in listed:
        assert "--json" in options_of(name), name


def test_by_names_a_moderator_of_the_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shutil.copytree(DEMO, tmp_path / "demo", ignore=shutil.ignore_patterns("*.py"))
    monkeypatch.setenv("FORUMBOT_STATE", str(tmp_path / "state.db"))
    runner = CliRunner()
    assert runner.invoke(app, ["new-game", str(tmp_path / "demo" / "game.toml")]).exit_code == 0
    dealt = runner.invoke(app, ["deal", "Демо-мафия", "--topic", "1", "--now", "2026-11-29T10:00:00+03:00"])
    assert dealt.exit_code == 0
    by_host = ["override", "Демо-мафия", "--clear-vote", "Alice", "--reason", "r", "--by", "Ведущий"]
    refused = runner.invoke(app, by_host)
    assert refused.exit_code == 2 and "not a moderator of Демо-мафия (Модератор)" in refused.output
    assert runner.invoke(app, [*by_host[:-1], "Модератор"]).exit_code == 0
