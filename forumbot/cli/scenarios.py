"""`forumbot scenario check|run`: the rules engine's acceptance tests."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from forumbot.cli import words
from forumbot.cli.app import scenario_app
from forumbot.cli.common import err, fail, out, print_json
from forumbot.cli.display import mismatch, plain, print_mismatches, table
from forumbot.i18n import _
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
        fail(_("no scenario files under {paths}").format(paths=", ".join(map(str, paths))))
    passed = failed = malformed = 0
    for path in files:
        if not path.exists():
            err.print(_("{path}: no such file").format(path=path), markup=False)
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
    said = _("scenarios: {passed} passed, {failed} failed, {malformed} malformed")
    out.print(said.format(passed=passed, failed=failed, malformed=malformed))
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
    title = f"{result.scenario.name} ({result.scenario.variant})"
    shown = table(title, _("day"), _("deaths"), _("checks"), _("winner"))
    for o in result.outcomes:
        deaths = ", ".join(f"{isolate(n)}: {words.cause(c)}" for n, c in o.deaths.items()) or "-"
        checks = ", ".join(f"{isolate(n)}: {_checked(c)}" for n, c in o.checks.items()) or "-"
        shown.add_row(*plain(str(o.day), deaths, checks, words.winner(o.winner)))
    out.print(shown)
    for m in result.mismatches:
        out.print(mismatch(m.day, m.key, m.expected, m.actual), markup=False)


def _checked(result: object) -> str:
    return ", ".join(words.role(str(r)) for r in result) if isinstance(result, list) else words.role(str(result))
