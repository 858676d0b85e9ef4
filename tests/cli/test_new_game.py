"""`forumbot new-game`: a player list the variant cannot deal is refused at once (the rules say which counts
they take), and nothing is made; the host is told where the state file is, made or added to."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from forumbot.cli import app

NICKS = ["Alice", "Bob", "Carol", "Dave", "Eve", "Frank", "Grace", "Heidi", "Ivan", "Judy", "Mallory", "Olga"]


def invoke(*args: str) -> Result:
    return CliRunner().invoke(app, list(args), terminal_width=200)


def config(folder: Path, name: str, variant: str, players: list[str], options: str = "") -> Path:
    listed = ", ".join(f'"{p}"' for p in players)
    path = folder / f"{name}.toml"
    path.write_text(
        f'[game]\nname = "{name}"\nvariant = "{variant}"\nplayers = [{listed}]\n{options}'
        '[forum]\nengine = "saved"\nsaved_pages = "pages"\n',
        encoding="utf-8",
    )
    return path


@pytest.fixture(autouse=True)
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "pages").mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("FORUMBOT_STATE", raising=False)
    monkeypatch.setenv("FORUMBOT_HOME", str(tmp_path / "home"))
    return tmp_path


def test_a_player_count_the_variant_cannot_deal_is_refused_and_nothing_is_made(here: Path) -> None:
    result = invoke("new-game", str(config(here, "Семь", "gameru-3.3", NICKS[:7])))
    assert result.exit_code == 2
    assert "no scheme for 7 players" in result.output and "9 to 23" in result.output
    assert not (here / "forumbot.db").exists()


@pytest.mark.parametrize(
    ("variant", "players", "options", "dealt"),
    [
        ("gameru-3.3", 9, "", True),
        ("kozanostra", 12, "", True),
        ("salon", 3, 'options = { roles = ["mafia", "civilian", "civilian", "civilian"] }\n', False),
        ("salon", 4, 'options = { roles = ["mafia", "civilian", "civilian", "civilian"] }\n', True),
    ],
)
def test_the_variant_s_own_rules_decide_the_count(
    here: Path, variant: str, players: int, options: str, dealt: bool
) -> None:
    result = invoke("new-game", str(config(here, "Игра", variant, NICKS[:players], options)))
    assert (result.exit_code == 0) is dealt, result.output
    if not dealt:
        assert result.exit_code == 2 and f"4 roles for {players} players" in result.output


def test_a_game_without_players_waits_for_signups(here: Path) -> None:
    assert invoke("new-game", str(config(here, "Набор", "gameru-3.3", []))).exit_code == 0


def test_the_host_is_told_where_the_state_file_is(here: Path) -> None:
    made = invoke("new-game", str(config(here, "Первая", "gameru-3.3", NICKS[:9])))
    assert made.exit_code == 0, made.output
    assert f"state file made: {here / 'forumbot.db'}" in made.output
    added = invoke("new-game", str(config(here, "Вторая", "gameru-3.3", NICKS[:10])))
    assert f"state file: {here / 'forumbot.db'} (the game is added to it)" in added.output
    elsewhere = invoke("new-game", str(config(here, "Третья", "gameru-3.3", NICKS[:9])), "--state", "other.db")
    assert f"state file made: {here / 'other.db'}" in elsewhere.output
