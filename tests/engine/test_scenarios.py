"""Every scenario file under scenarios/ is an acceptance test of the engine."""

from __future__ import annotations

from pathlib import Path

import pytest

from forumbot.scenario import load_scenario, run_scenario, scenario_files

ROOT = Path(__file__).resolve().parents[2] / "scenarios"
FILES = scenario_files([ROOT])


def test_there_are_enough_scenarios_per_variant() -> None:
    for variant in ("gameru-3.3", "kozanostra", "salon"):
        assert len(list((ROOT / variant).glob("*.yaml"))) >= 15, variant


def test_every_scenario_is_listed_in_the_readme() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for path in FILES:
        assert str(path.relative_to(ROOT)) in readme, f"{path.name} is not described in scenarios/README.md"


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(ROOT)) for p in FILES])
def test_scenario(path: Path) -> None:
    result = run_scenario(load_scenario(path))
    assert result.outcomes, "a scenario must resolve at least one day"
    problems = [f"day {m.day} {m.key}: expected {m.expected}, actual {m.actual}" for m in result.mismatches]
    assert not problems, "\n".join(problems)
