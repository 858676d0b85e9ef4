"""`forumbot scenario check|run` and `forumbot deal` through typer's runner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from forumbot.cli import app

runner = CliRunner()

GOOD = """\
name: Mafia kills, town executes the boss
variant: gameru-3.3
players:
  - Alice: mafia boss
  - Bob: mafia
  - Carol: sheriff
  - "Кот Матроскин": civilian
  - Dave: civilian
  - Eve: civilian
  - Frank: civilian
  - Grace: mafia
  - Heidi: civilian
days:
  - votes:
      - [Carol, Alice]
      - [Dave, Alice]
      - [Alice, Dave]
    orders:
      - [Alice, kill, "Кот Матроскин"]
      - [Carol, check, Bob]
    expect:
      deaths: {Alice: executed, "Кот Матроскин": mafia, Bob: sheriff}
      checks: {Carol: mafia}
      winner: none
"""


def write(tmp_path: Path, text: str, name: str = "game.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_check_passes_on_a_correct_file(tmp_path: Path) -> None:
    result = runner.invoke(app, ["scenario", "check", str(write(tmp_path, GOOD))])
    assert result.exit_code == 0, result.output
    assert "1 passed, 0 failed" in result.output


def test_check_reports_expected_against_actual_and_exits_1(tmp_path: Path) -> None:
    wrong = GOOD.replace("Bob: sheriff}", "Bob: mafia}")
    result = runner.invoke(app, ["scenario", "check", str(write(tmp_path, wrong))])
    assert result.exit_code == 1
    assert "day 1 deaths" in result.output
    assert '"Bob": "mafia"' in result.output and '"Bob": "sheriff"' in result.output


@pytest.mark.parametrize(
    ("change", "line", "reason"),
    [
        (("Bob: mafia\n", "Bob: wizard\n"), 5, "unknown role 'wizard'"),
        (("[Carol, check, Bob]", "[Carol, sleep, Bob]"), 20, "action 'sleep' does not exist in gameru-3.3"),
        (("[Dave, Alice]", "[Zed, Alice]"), 16, "unknown player 'Zed'"),
        (("variant: gameru-3.3", "variant: poker"), 2, "unknown variant 'poker'"),
        (("    expect:", "    colour: red\n    expect:"), 21, "unknown key 'colour'"),
        (("winner: none", "winner: everybody"), 24, "unknown winner 'everybody'"),
    ],
)
def test_check_names_file_line_and_reason_of_a_malformed_file(
    tmp_path: Path, change: tuple[str, str], line: int, reason: str
) -> None:
    path = write(tmp_path, GOOD.replace(*change))
    result = runner.invoke(app, ["scenario", "check", str(path)])
    assert result.exit_code == 2, result.output
    assert f"{path}:{line}: " in result.output
    assert reason in result.output


def test_a_dead_players_vote_is_not_malformed_but_void(tmp_path: Path) -> None:
    two_days = (
        GOOD
        + """\
  - votes:
      - [Alice, Carol]
      - [Carol, Grace]
    expect:
      deaths: {Grace: executed}
"""
    )
    result = runner.invoke(app, ["scenario", "check", str(write(tmp_path, two_days))])
    assert result.exit_code == 0, result.output


def test_a_day_after_the_end_is_an_error(tmp_path: Path) -> None:
    text = """\
name: over
variant: salon
players:
  - A: mafia boss
  - B: civilian
days:
  - votes: [[A, B], [B, A]]
    expect: {winner: none}
  - votes: [[A, B]]
"""
    result = runner.invoke(app, ["scenario", "check", str(write(tmp_path, text))])
    # Day 1: both voted, tie -> random; the loser dies, the game ends: day 2 must be refused.
    assert result.exit_code == 2
    assert "after the game ended" in result.output


def test_check_walks_folders_and_mixes_results(tmp_path: Path) -> None:
    write(tmp_path, GOOD, "a.yaml")
    (tmp_path / "sub").mkdir()
    write(tmp_path / "sub", GOOD.replace("Bob: sheriff}", "Bob: mafia}"), "b.yml")
    result = runner.invoke(app, ["scenario", "check", str(tmp_path)])
    assert result.exit_code == 1
    assert "1 passed, 1 failed" in result.output


def test_run_prints_the_outcome_as_json(tmp_path: Path) -> None:
    result = runner.invoke(app, ["scenario", "run", str(write(tmp_path, GOOD)), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data == {
        "days": [
            {
                "day": 1,
                "deaths": {"Alice": "executed", "Кот Матроскин": "mafia", "Bob": "sheriff"},
                "checks": {"Carol": "mafia"},
                "winner": "none",
            }
        ],
        "winner": "none",
    }


def test_run_without_json_prints_a_table(tmp_path: Path) -> None:
    result = runner.invoke(app, ["scenario", "run", str(write(tmp_path, GOOD))])
    assert result.exit_code == 0
    assert "Кот Матроскин: mafia" in result.output


def players_file(tmp_path: Path, count: int) -> Path:
    path = tmp_path / "players.txt"
    path.write_text("\n".join(["Кот Матроскин", "# a comment"] + [f"Player {i}" for i in range(count - 1)]) + "\n")
    return path


def test_deal_follows_the_scheme_and_is_seeded(tmp_path: Path) -> None:
    args = [
        "deal",
        "--variant",
        "gameru-3.3",
        "--players",
        str(players_file(tmp_path, 15)),
        "--seed",
        "7",
        "--json",
    ]
    first = runner.invoke(app, args)
    assert first.exit_code == 0, first.output
    data = json.loads(first.output)
    roles = sorted(p["role"] for p in data["players"])
    assert roles.count("mafia") == 5 and roles.count("maniac") == 1 and roles.count("sheriff") == 1
    assert sum(p["boss"] for p in data["players"]) == 1
    assert json.loads(runner.invoke(app, args).output) == data


def test_deal_refuses_an_impossible_count_naming_the_possible_ones(tmp_path: Path) -> None:
    result = runner.invoke(app, ["deal", "--variant", "gameru-3.3", "--players", str(players_file(tmp_path, 8))])
    assert result.exit_code == 2
    assert "possible counts are 9 to 23" in result.output


def test_deal_rejects_a_bad_option_value(tmp_path: Path) -> None:
    path = players_file(tmp_path, 12)
    result = runner.invoke(app, ["deal", "--variant", "salon", "--players", str(path), "-o", "execution_threshold=x"])
    assert result.exit_code == 2
    assert "execution_threshold" in result.output


def test_error_messages_keep_brackets(tmp_path: Path) -> None:
    path = tmp_path / "[weird] name.yaml"
    path.write_text("name: x\n", encoding="utf-8")
    result = runner.invoke(app, ["scenario", "run", str(path)])
    assert result.exit_code == 2
    assert "[weird] name.yaml" in result.output
