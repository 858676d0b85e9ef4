"""The `forumbot` command. Commands are thin: they call the library and turn errors into exit codes.

Exit codes: 0 ok; 1 a check failed (scenario expectations); 2 bad input (malformed file, bad config,
unknown game, impossible deal) or a forum/network problem — always a one-line message, no traceback.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any, NoReturn
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import typer
from rich.console import Console
from rich.progress import Progress
from rich.table import Table
from rich.text import Text

from forumbot.config import load_settings
from forumbot.engine.deal import deal as deal_game
from forumbot.engine.variants import VARIANTS, find_variant
from forumbot.engine.variants.gameru import Gameru
from forumbot.errors import ForumbotError, ScenarioError
from forumbot.forum.cache import PageCache, fetch_topic_incremental
from forumbot.forum.client import client_settings, open_client
from forumbot.forum.models import Post
from forumbot.forum.saved import load_saved_folder
from forumbot.scenario import ScenarioResult, load_scenario, run_scenario, scenario_files
from forumbot.tally import Tally, render_tally_bbcode, tally_posts

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


def plain(*values: str) -> list[Text]:
    """Table cells that show player text as typed: a nick like "[b]x" is not rich markup."""
    return [Text(v) for v in values]


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
        out.print(f"  day {m.day} {m.key}: expected {_show(m.expected)}, actual {_show(m.actual)}", markup=False)


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
        table.add_row(*plain(str(o.day), deaths, checks, o.winner))
    out.print(table)
    for m in result.mismatches:
        out.print(f"day {m.day} {m.key}: expected {_show(m.expected)}, actual {_show(m.actual)}", markup=False)


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
    seed: Annotated[int | None, typer.Option(help="Seed for the deal (default: a secure random one).")] = None,
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
        table.add_row(*plain(p.nick, p.role + (" (boss)" if p.boss else "")))
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


# --- tally --------------------------------------------------------------------------------------


def parse_moment(text: str | None, zone: ZoneInfo, what: str) -> datetime | None:
    """An ISO date-time; one without an offset is in the game's time zone."""
    if text is None:
        return None
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        fail(f"{what} {text!r} is not an ISO date-time (e.g. 2026-11-29T23:00)")
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=zone)


def load_zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        fail(f"unknown time zone {name!r}")


@app.command("tally")
def tally_command(
    topic: Annotated[str | None, typer.Argument(help="A live topic URL (credentials from .env).")] = None,
    source: Annotated[Path | None, typer.Option("--from", help="A folder of saved thread pages.")] = None,
    players: Annotated[Path | None, typer.Option(help="The living players, one nick per line.")] = None,
    dead: Annotated[Path | None, typer.Option(help="The dead players, one nick per line.")] = None,
    start: Annotated[str | None, typer.Option(help="The day's start (ISO; game time zone if no offset).")] = None,
    deadline: Annotated[
        str | None, typer.Option(help="The day's deadline (ISO): posts at or after it are late.")
    ] = None,
    variant: Annotated[str, typer.Option(help=f"Rule variant: {', '.join(VARIANTS)}.")] = "gameru-3.3",
    day: Annotated[int, typer.Option(help="The game day (double-vote days of gameru-3.3).")] = 1,
    tz: Annotated[str, typer.Option(help="The game's time zone.")] = "Europe/Moscow",
    now: Annotated[str | None, typer.Option(help="Saved pages: the moment relative dates refer to.")] = None,
    topic_id: Annotated[int | None, typer.Option("--topic", help="Which topic, when the folder holds several.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print votes, tally and leader as JSON.")] = False,
    bbcode: Annotated[bool, typer.Option("--bbcode", help="Print the ready-to-paste vote-count post.")] = False,
) -> None:
    """The running vote count of a day, from saved pages (--from DIR) or a live topic URL."""
    if (topic is None) == (source is None):
        fail("give either a topic URL or --from DIR (saved pages)")
    if players is None:
        fail("--players FILE is required (the living players, one nick per line)")
    zone = load_zone(tz)
    living = read_nicks(players)
    ghosts = read_nicks(dead) if dead is not None else []
    try:
        rules_cls = find_variant(variant)
        posts = _day_posts(topic, source, topic_id, parse_moment(now, zone, "--now"), zone)
        per_post = 1
        if isinstance(rules_cls, type) and issubclass(rules_cls, Gameru):
            per_post = 2 if day in Gameru().double_days(len(living) + len(ghosts)) else 1
        result = tally_posts(
            posts,
            living,
            dead=ghosts,
            start=parse_moment(start, zone, "--start"),
            deadline=parse_moment(deadline, zone, "--deadline"),
            variant=variant,
            votes_per_post=per_post,
        )
    except ForumbotError as exc:
        fail(str(exc))
    if as_json:
        print_json(result.to_json())
        return
    _print_tally(result)
    if bbcode:
        out.print(render_tally_bbcode(result, f"Подсчёт голосов, день {day}"), markup=False)


def _day_posts(
    topic: str | None, source: Path | None, topic_id: int | None, now: datetime | None, zone: ZoneInfo
) -> list[Post]:
    if source is not None:
        return _saved_posts(source, topic_id, now, zone)
    assert topic is not None
    settings = load_settings()
    base = topic.split("?")[0].rsplit("/", 1)[0] + "/"
    client = open_client(replace(client_settings(settings), forum=base))
    cache = PageCache(settings.state)
    try:
        with Progress(console=err, transient=True) as bar:
            task = bar.add_task("pages", total=None)
            return fetch_topic_incremental(
                client, cache, topic, progress=lambda done, total: bar.update(task, completed=done, total=total)
            )
    finally:
        cache.close()
        client.close()


def _saved_posts(folder: Path, topic_id: int | None, now: datetime | None, zone: ZoneInfo) -> list[Post]:
    saved = load_saved_folder(folder, now, tz=zone)
    for skipped in saved.skipped:
        err.print(f"skipped {skipped.name}: {skipped.reason}", markup=False)
    topics = sorted({p.topic_id for p in saved.topic_pages}, key=lambda t: (t is None, t))
    if topic_id is not None:
        topics = [t for t in topics if t == topic_id]
    if not topics:
        fail(f"{folder}: no thread pages" + (f" of topic {topic_id}" if topic_id is not None else ""))
    if len(topics) > 1:
        fail(f"{folder} holds several topics ({', '.join(map(str, topics))}): choose one with --topic")
    pages = [p for p in saved.topic_pages if p.topic_id == topics[0]]
    return [post for page in pages for post in page.posts]


def _print_tally(result: Tally) -> None:
    table = Table(title="Голоса")
    for column in ("post", "voter", "target", "time", "counted", "why not"):
        table.add_column(column)
    for r in result.records:
        why = (r.reason or "") + (f" (nearest: {r.nearest})" if r.nearest else "")
        table.add_row(
            *plain(str(r.post_id), r.voter, r.target, r.time.strftime("%d.%m %H:%M"), "yes" if r.counted else "", why)
        )
    out.print(table)
    counts = Table(title="Итог")
    counts.add_column("player")
    counts.add_column("votes")
    counts.add_column("voters")
    for target, who in result.voters.items():
        mark = " ←" if target == result.leader else ""
        counts.add_row(*plain(target + mark, str(len(who)), ", ".join(who)))
    out.print(counts)
    if result.not_voting:
        out.print("not voting: " + ", ".join(result.not_voting), markup=False)


def main() -> None:
    app()
