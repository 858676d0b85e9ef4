"""The `forumbot` command. Commands are thin: they call the library and turn errors into exit codes.

Exit codes: 0 ok; 1 a check failed (scenario expectations); 2 bad input (malformed file, bad config,
unknown game, impossible deal) or a forum/network problem — always a one-line message, no traceback.
"""

from __future__ import annotations

import json
import secrets
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.table import Table

from forumbot.engine.deal import deal as deal_game
from forumbot.engine.variants import VARIANTS
from forumbot.errors import ForumbotError, ScenarioError
from forumbot.scenario import ScenarioResult, load_scenario, run_scenario, scenario_files

app = typer.Typer(
    help="forumbot: hosts forum Mafia games on phpBB and IPB forums.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
scenario_app = typer.Typer(help="Scenario files: the rules engine's acceptance tests.", no_args_is_help=True)
app.add_typer(scenario_app, name="scenario")

out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)


def fail(message: str, code: int = 2) -> NoReturn:
    err.print(f"[red]error:[/red] {message}", markup=True)
    raise typer.Exit(code)


def print_json(data: Any) -> None:
    typer.echo(json.dumps(data, ensure_ascii=False, indent=2))


@scenario_app.command("check")
def scenario_check(
    paths: Annotated[list[Path], typer.Argument(help="Scenario files or folders (searched for *.yaml).")],
) -> None:
    """Run scenario files and check every expectation: exit 0 all hold, 1 some fail, 2 malformed."""
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
            _print_mismatches(result)
    out.print(f"scenarios: {passed} passed, {failed} failed, {malformed} malformed")
    if malformed:
        raise typer.Exit(2)
    if failed:
        raise typer.Exit(1)


def _print_mismatches(result: ScenarioResult) -> None:
    out.print(f"FAIL {result.scenario.path} ({result.scenario.name})", markup=False)
    for m in result.mismatches:
        out.print(
            f"  day {m.day} {m.key}: expected {_show(m.expected)}, actual {_show(m.actual)}", markup=False
        )


def _show(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


@scenario_app.command("run")
def scenario_run(
    file: Annotated[Path, typer.Argument(help="One scenario file.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the outcome of every day as JSON.")] = False,
) -> None:
    """Resolve a scenario day by day and print what happened."""
    try:
        result = run_scenario(load_scenario(file))
    except ScenarioError as exc:
        fail(str(exc))
    if as_json:
        print_json(result.to_json())
        return
    table = Table(title=f"{result.scenario.name} ({result.scenario.variant})")
    for column in ("day", "deaths", "checks", "winner"):
        table.add_column(column)
    for o in result.outcomes:
        deaths = ", ".join(f"{n}: {c}" for n, c in o.deaths.items()) or "-"
        checks = ", ".join(f"{n}: {c}" for n, c in o.checks.items()) or "-"
        table.add_row(str(o.day), deaths, checks, o.winner)
    out.print(table)
    for m in result.mismatches:
        out.print(
            f"day {m.day} {m.key}: expected {_show(m.expected)}, actual {_show(m.actual)}", markup=False
        )


def read_nicks(path: Path) -> list[str]:
    """One nick per line; blank lines and lines starting with # are skipped; spaces inside a nick kept."""
    try:
        lines = path.read_text(encoding="utf-8-sig").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        fail(f"cannot read player list {path}: {exc}")
    return [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]


@app.command("deal")
def deal_command(
    variant: Annotated[str, typer.Option(help=f"Rule variant: {', '.join(VARIANTS)}.")],
    players: Annotated[Path, typer.Option(help="File with one nick per line.")],
    seed: Annotated[
        int | None, typer.Option(help="Seed for the deal (default: a secure random one).")
    ] = None,
    option: Annotated[
        list[str] | None, typer.Option("--option", "-o", help="A variant option, KEY=VALUE (JSON value).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the deal as JSON.")] = False,
) -> None:
    """Deal roles to the players by the variant's scheme (the output is secret: for the host only)."""
    nicks = read_nicks(players)
    used_seed = seed if seed is not None else secrets.randbelow(2**63)
    try:
        state = deal_game(variant, nicks, used_seed, parse_option_pairs(option or []))
    except ForumbotError as exc:
        fail(str(exc))
    if as_json:
        print_json(
            {
                "variant": state.variant,
                "seed": state.seed,
                "players": [{"nick": p.nick, "role": p.role, "boss": p.boss} for p in state.players],
            }
        )
        return
    table = Table(title=f"{variant}, {len(nicks)} players, seed {used_seed}")
    table.add_column("nick")
    table.add_column("role")
    for p in state.players:
        table.add_row(p.nick, p.role + (" (boss)" if p.boss else ""))
    out.print(table)


def parse_option_pairs(pairs: list[str]) -> dict[str, Any]:
    options: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            fail(f"option {pair!r} is not KEY=VALUE")
        try:
            options[key.strip()] = json.loads(value)
        except json.JSONDecodeError:
            options[key.strip()] = value
    return options


def main() -> None:
    app()
