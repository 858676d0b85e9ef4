"""The scheme simulator: its statistics, its determinism, and `forumbot simulate` through typer's runner."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from typer.testing import CliRunner

from forumbot.cli import app
from forumbot.errors import DealError, RulesError
from forumbot.simulate import simulate, wilson_interval

runner = CliRunner()

# A sheriff and eight civilians: nobody can beat the town, so it wins every game (after day 1).
TOWN_ONLY = {"roles": ["sheriff"] + ["civilian"] * 8}
# Nine mafiosi: there is nobody to lose to.
MAFIA_ONLY = {"roles": ["mafia"] * 9}


def width(interval: tuple[float, float]) -> float:
    return interval[1] - interval[0]


def test_wilson_interval_known_values() -> None:
    low, high = wilson_interval(5, 10)
    assert low == pytest.approx(0.2366, abs=1e-4) and high == pytest.approx(0.7634, abs=1e-4)
    low, high = wilson_interval(0, 10)
    assert low == 0.0 and high == pytest.approx(0.2775, abs=1e-4)
    low, high = wilson_interval(10, 10)
    assert low == pytest.approx(0.7225, abs=1e-4) and high == 1.0
    assert wilson_interval(0, 0) == (0.0, 1.0)


@pytest.mark.parametrize(("options", "side", "other"), [(TOWN_ONLY, "town", "mafia"), (MAFIA_ONLY, "mafia", "town")])
def test_a_side_that_cannot_lose_wins_every_game(options: dict[str, object], side: str, other: str) -> None:
    result = simulate("gameru-3.3", 9, games=200, seed=3, options=options)
    shares = {s.label: s for s in result.sides()}
    assert list(shares) == [side]  # the only side of this scheme
    assert shares[side].count == 200 and shares[side].rate == 1.0
    low, high = shares[side].interval
    assert low == pytest.approx(200 / (200 + 1.959963984540054**2)) and high == 1.0
    assert result.draws == 0 and result.unfinished == 0
    assert result.mean_days == 1.0
    assert other not in shares


def test_the_interval_narrows_as_more_games_are_played() -> None:
    widths = []
    for games in (50, 200, 800):
        result = simulate("gameru-3.3", 12, games=games, seed=11)
        town = next(s for s in result.sides() if s.label == "town")
        assert town.interval[0] <= town.rate <= town.interval[1]
        widths.append(width(town.interval))
    # Roughly as 1/sqrt(K): four times the games, about half the width.
    assert widths[1] < 0.7 * widths[0]
    assert widths[2] < 0.7 * widths[1]


def test_the_counts_add_up_and_the_figures_are_sane() -> None:
    result = simulate("kozanostra", 12, games=300, seed=2, options={"yakuza": 2, "maniac": 1})
    assert [s.label for s in result.sides()] == ["town", "mafia", "yakuza", "maniac"]
    assert sum(s.count for s in result.sides()) + result.draws + result.unfinished == 300
    assert result.mean_days is not None and 1 <= result.mean_days <= result.day_cap == 36


def test_games_hitting_the_day_cap_are_unfinished() -> None:
    result = simulate("gameru-3.3", 12, games=100, seed=4, day_cap=1)
    assert result.unfinished > 0
    assert sum(s.count for s in result.sides()) + result.draws + result.unfinished == 100
    assert result.mean_days in (None, 1.0)
    assert result.to_json()["unfinished"]["count"] == result.unfinished


def test_same_seed_same_figures_other_seed_other_games() -> None:
    first = simulate("salon", 10, games=150, seed=42)
    assert simulate("salon", 10, games=150, seed=42) == first
    assert simulate("salon", 10, games=150, seed=43) != first


def test_impossible_schemes_and_bad_options_raise_rules_errors() -> None:
    with pytest.raises(DealError):
        simulate("gameru-3.3", 5, games=10)
    with pytest.raises(RulesError):
        simulate("salon", 8, games=10, options={"no_such_option": 1})
    with pytest.raises(RulesError):
        simulate("poker", 8, games=10)


# --- CLI ------------------------------------------------------------------------------------------


def test_cli_prints_the_table() -> None:
    result = runner.invoke(app, ["simulate", "--variant", "gameru-3.3", "--players", "12", "--games", "200"])
    assert result.exit_code == 0, result.output
    for text in ("side", "win rate", "95% CI", "town", "mafia", "draw", "unfinished", "mean length:"):
        assert text in result.output


def test_cli_json_matches_the_library() -> None:
    args = ["simulate", "--variant", "gameru-3.3", "--players", "9", "--games", "50", "--seed", "7", "--json"]
    result = runner.invoke(app, [*args, "-o", json.dumps(TOWN_ONLY["roles"]).join(["roles=", ""])])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["sides"] == {"town": {"count": 50, "rate": 1.0, "ci95": [pytest.approx(50 / 53.84, abs=1e-3), 1.0]}}
    assert data["games"] == 50 and data["seed"] == 7 and data["mean_days"] == 1.0
    assert data == simulate("gameru-3.3", 9, games=50, seed=7, options=TOWN_ONLY).to_json()


def test_cli_writes_an_svg_chart(tmp_path: Path) -> None:
    chart = tmp_path / "rates.svg"
    args = ["simulate", "--variant", "salon", "--players", "8", "--games", "100", "--chart", str(chart)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    root = ET.fromstring(chart.read_bytes())
    assert root.tag.rsplit("}", 1)[-1] == "svg"
    text = chart.read_text(encoding="utf-8")
    assert "town" in text and "mafia" in text  # the bars' labels, as text (matplotlib's svg.fonttype)


def test_cli_writes_a_png_chart(tmp_path: Path) -> None:
    chart = tmp_path / "rates.PNG"
    args = ["simulate", "--variant", "kozanostra", "--players", "10", "--games", "100", "--chart", str(chart)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert chart.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--variant", "gameru-3.3", "--players", "5"], "no scheme for 5 players"),
        (["--variant", "poker", "--players", "9"], "unknown variant"),
        (["--variant", "salon", "--players", "8", "--chart", "rates.pdf"], ".svg or .png"),
        (["--variant", "salon", "--players", "8", "-o", "nonsense=1"], "option nonsense"),
        (["--variant", "salon", "--players", "8", "--games", "0"], "at least 1"),
    ],
)
def test_cli_errors_are_one_line_and_exit_2(args: list[str], message: str) -> None:
    result = runner.invoke(app, ["simulate", *args])
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output
