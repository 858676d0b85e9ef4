"""`forumbot scenario check|run`: the rules engine's acceptance tests."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from forumbot.cli.app import scenario_app
from forumbot.cli.common import err, fail, out, print_json
from forumbot.cli.display import plain, print_mismatches, show_value, table
from forumbot.render.bidi import isolate


@scenario_app.command("check")
def scenario_check(
    paths: Annotated[list[Path], typer.Argument(help="Scenario files or folders (searched for *.yaml).")],
) -> None:
    """Run scenario files and check every expectation: exit 0 all hold, 1 some fail, 2 malformed."""
    from forumbot.errors import ScenarioError
    from forumbot.scenario import load_scenario, run_scenario, scenario_files

    files = scenario_files(paths)
    if not files:
        fail(f"no scenario files under {', '.join(map(str, paths))}")
    passed = failed = malformed = 0
    for path in files:
        if not path.exists():
            err.print(f"{path}: no such file")
            malformed += 1
            continue
        try:
            result = run_scenario(load_scenario(path))
        except ScenarioError as exc:
            err.print(f"{exc}", markup=False)
            malformed += 1
            continue
        if result.passed:
            passed += 1
        else:
            failed += 1
            print_mismatches(result)
    out.print(f"scenarios: {passed} passed, {failed} failed, {malformed} malformed")
    if malformed:
        raise typer.Exit(2)
    if failed:
        raise typer.Exit(1)


@scenario_app.command("run")
def scenario_run(
    file: Annotated[Path, typer.Argument(help="One scenario file.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the outcome of every day as JSON.")] = False,
) -> None:
    """Resolve a scenario day by day and print what happened."""
    from forumbot.errors import ScenarioError
    from forumbot.scenario import load_scenario, run_scenario

    try:
        result = run_scenario(load_scenario(file))
    except ScenarioError as exc:
        fail(str(exc))
    if as_json:
        print_json(result.to_json())
        return
    shown = table(f"{result.scenario.name} ({result.scenario.variant})", "day", "deaths", "checks", "winner")
    for o in result.outcomes:
        deaths = ", ".join(f"{isolate(n)}: {c}" for n, c in o.deaths.items()) or "-"
        checks = ", ".join(f"{isolate(n)}: {c}" for n, c in o.checks.items()) or "-"
        shown.add_row(*plain(str(o.day), deaths, checks, o.winner))
    out.print(shown)
    for m in result.mismatches:
        out.print(
            f"day {m.day} {m.key}: expected {show_value(m.expected)}, actual {show_value(m.actual)}", markup=False
        )
