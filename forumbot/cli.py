"""The `forumbot` command. Commands are thin: they call the library and turn errors into exit codes.

Exit codes: 0 ok; 1 a check failed (scenario expectations); 2 bad input (malformed file, bad config,
unknown game, impossible deal) or a forum/network problem — always a one-line message, no traceback.
"""

from __future__ import annotations

import functools
import json
import os
import secrets
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Annotated, Any, NoReturn
from urllib.parse import parse_qs, urlsplit
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import typer
from rich.console import Console
from rich.markup import escape as escape_markup
from rich.progress import Progress
from rich.table import Table
from rich.text import Text

from forumbot.config import GameConfig, load_game_config, load_settings
from forumbot.draft import DayDraft, Early
from forumbot.engine.deal import deal as deal_game
from forumbot.engine.variants import DEFAULT_VARIANT, VARIANTS, find_variant
from forumbot.errors import ConfigError, ForumbotError, ScenarioError, StateError
from forumbot.forum.cache import PageCache, TopicRead, read_topic
from forumbot.forum.client import ForumClient, PhpbbClient, client_settings, open_client
from forumbot.forum.models import PmSummary, PrivateMessage
from forumbot.forum.phpbb import is_relative_format
from forumbot.forum.posting import poster_for
from forumbot.forum.saved import load_saved_folder
from forumbot.host import games, watch
from forumbot.host.daywindow import DayPms, interval_of, place
from forumbot.host.publish import PublishReport, send_draft_to_moderators
from forumbot.host.publish import publish as publish_day
from forumbot.host.tally import Tally, read_votes_of, render_tally_bbcode, tally_posts
from forumbot.render.bidi import isolate, isolate_within
from forumbot.render.preview import render_preview_html
from forumbot.scenario import ScenarioResult, load_scenario, run_scenario, scenario_files
from forumbot.simulate import CHART_FORMATS, ChartFormat, render_chart, simulate
from forumbot.store import Store

app = typer.Typer(
    help="forumbot: hosts forum Mafia games on phpBB and IPB forums.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)


def _print_version(value: bool) -> None:
    if value:
        from forumbot import __version__

        typer.echo(f"forumbot {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_print_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """forumbot: hosts forum Mafia games on phpBB and IPB forums."""


scenario_app = typer.Typer(help="Scenario files: the rules engine's acceptance tests.", no_args_is_help=True)
app.add_typer(scenario_app, name="scenario")

out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)


def fail(message: str, code: int = 2) -> NoReturn:
    err.print(f"[red]error:[/red] {escape_markup(message)}", markup=True)
    raise typer.Exit(code)


def plain(*values: str) -> list[Text]:
    """Table cells that show player text as typed: a nick like "[b]x" is not rich markup, and one that holds a
    right-to-left override turns nothing around outside its cell."""
    return [Text(isolate(v)) for v in values]


def names(nicks: Iterable[str]) -> str:
    """Nicks in one line, each isolated (`bidi.isolate`): none turns the others around."""
    return ", ".join(isolate(n) for n in nicks)


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
        deaths = ", ".join(f"{isolate(n)}: {c}" for n, c in o.deaths.items()) or "-"
        checks = ", ".join(f"{isolate(n)}: {c}" for n, c in o.checks.items()) or "-"
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
    game: Annotated[str | None, typer.Argument(help="A game of the state file: deal it and open day 1.")] = None,
    variant: Annotated[str | None, typer.Option(help=f"Rule variant: {', '.join(VARIANTS)}.")] = None,
    players: Annotated[Path | None, typer.Option(help="File with one nick per line.")] = None,
    seed: Annotated[int | None, typer.Option(help="Seed for the deal (default: a secure random one).")] = None,
    option: Annotated[
        list[str] | None, typer.Option("--option", "-o", help="A variant option, KEY=VALUE (JSON value).")
    ] = None,
    topic: Annotated[str | None, typer.Option(help="GAME: the topic of day 1, if already posted.")] = None,
    state: StateOption = None,
    now: NowOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the deal as JSON.")] = False,
) -> None:
    """Deal roles: a game of the state file (roles stay secret), or a player list (--variant, --players)."""
    if game is not None:
        _deal_stored_game(game, topic, state, now, seed)
        return
    if variant is None or players is None:
        fail("give a GAME, or --variant and --players")
    nicks = read_nicks(players)
    used_seed = seed if seed is not None else secrets.randbelow(2**63)
    try:
        dealt = deal_game(variant, nicks, used_seed, parse_option_pairs(option or []))
    except ForumbotError as exc:
        fail(str(exc))
    if as_json:
        print_json(
            {
                "variant": dealt.variant,
                "seed": dealt.seed,
                "players": [{"nick": p.nick, "role": p.role, "boss": p.boss} for p in dealt.players],
            }
        )
        return
    table = Table(title=f"{variant}, {len(nicks)} players, seed {used_seed}")
    table.add_column("nick")
    table.add_column("role")
    for p in dealt.players:
        table.add_row(*plain(p.nick, p.role + (" (boss)" if p.boss else "")))
    out.print(table)


def _deal_stored_game(game: str, topic: str | None, state: Path | None, now: str | None, seed: int | None) -> None:
    with host_errors():
        topic = checked_topic(topic, "--topic")
        store = open_store(state)
        dealt = games.deal_game(store, game, current_time(now), topic=topic, seed=seed)
    out.print(f"{game}: roles dealt to {len(dealt.state.players)} players (secret: forumbot status {game} --secret)")
    out.print(f"commitment for the first day's post: SHA-256 {dealt.commitment}", markup=False)
    out.print(f"day 1 deadline: {dealt.deadline.isoformat()}", markup=False)
    if topic is None:
        out.print(f"next: forumbot publish {game}  (day 1's topic with the commitment, and the role PMs)", markup=False)
    else:
        out.print(f"next: forumbot publish {game}  (the role PMs; day 1 is read from topic {topic})", markup=False)


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
    variant: Annotated[str, typer.Option(help=f"Rule variant: {', '.join(VARIANTS)}.")] = DEFAULT_VARIANT,
    day: Annotated[int, typer.Option(help="The game day (double-vote days of gameru-3.3).")] = 1,
    tz: Annotated[str, typer.Option(help="The game's time zone.")] = "Europe/Moscow",
    now: Annotated[str | None, typer.Option(help="Saved pages: the moment relative dates refer to.")] = None,
    topic_id: Annotated[int | None, typer.Option("--topic", help="Which topic, when the folder holds several.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print votes, tally and leader as JSON.")] = False,
    bbcode: Annotated[bool, typer.Option("--bbcode", help="Print the ready-to-paste vote-count post.")] = False,
    incremental: Annotated[
        bool,
        typer.Option(help="A live topic: fetch only the last known page and newer ones (may miss earlier edits)."),
    ] = False,
) -> None:
    """The running vote count of a day, from saved pages (--from DIR) or a live topic URL (every page is
    read, so every edit is seen; --incremental reads only what is new)."""
    if (topic is None) == (source is None):
        fail("give either a topic URL or --from DIR (saved pages)")
    if players is None:
        fail("--players FILE is required (the living players, one nick per line)")
    zone = load_zone(tz)
    living = read_nicks(players)
    ghosts = read_nicks(dead) if dead is not None else []
    try:
        rules_cls = find_variant(variant)
        read = _day_posts(topic, source, topic_id, parse_moment(now, zone, "--now"), zone, incremental)
        per_post = rules_cls().max_targets(day, "vote", len(living) + len(ghosts))
        result = tally_posts(
            read.posts,
            living,
            dead=ghosts,
            start=parse_moment(start, zone, "--start"),
            deadline=parse_moment(deadline, zone, "--deadline"),
            variant=variant,
            votes_per_post=per_post,
        )
    except ForumbotError as exc:
        fail(str(exc))
    if not read.complete:
        err.print("earlier pages came from the cache: this count may miss edits made on them", markup=False)
    if as_json:
        print_json(result.to_json() | {"problems": read.problems, "complete": read.complete})
        return
    for problem in read.problems:
        err.print(f"unreadable post: {problem}", markup=False)
    _print_tally(result)
    if bbcode:
        out.print(render_tally_bbcode(result, f"Подсчёт голосов, день {day}"), markup=False)


def _day_posts(
    topic: str | None,
    source: Path | None,
    topic_id: int | None,
    now: datetime | None,
    zone: ZoneInfo,
    incremental: bool = False,
) -> TopicRead:
    if source is not None:
        return _saved_posts(source, topic_id, now, zone)
    assert topic is not None
    settings = load_settings()
    base = topic.split("?")[0].rsplit("/", 1)[0] + "/"
    client = open_client(client_settings(settings, TopicSource(base_url=base)))
    store = Store(settings.state)  # the state file: private from its first byte
    cache = PageCache(store)
    try:
        with Progress(console=err, transient=True) as bar:
            task = bar.add_task("pages", total=None)
            return read_topic(
                client,
                cache,
                topic,
                progress=lambda done, total: bar.update(task, completed=done, total=total),
                on_page=read_votes_of,
                incremental=incremental,
            )
    finally:
        cache.close()
        client.close()


@dataclass(frozen=True)
class TopicSource:
    """A forum known only by a topic's URL: the dialect is told from the URL."""

    base_url: str
    engine: str = "auto"
    saved_pages: Path | None = None


def _saved_posts(folder: Path, topic_id: int | None, now: datetime | None, zone: ZoneInfo) -> TopicRead:
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
    return TopicRead([post for page in pages for post in page.posts], [x for page in pages for x in page.problems])


@app.command("orders")
def orders_command(
    source: Annotated[Path, typer.Option("--from", help="A folder of saved PM pages (and inbox pages).")],
    players: Annotated[Path, typer.Option(help="The players, one nick per line.")],
    dead: Annotated[Path | None, typer.Option(help="The dead players, one nick per line.")] = None,
    start: Annotated[str | None, typer.Option(help="The day's start (ISO; game time zone if no offset).")] = None,
    deadline: Annotated[str | None, typer.Option(help="The day's deadline (ISO): PMs at or after it are late.")] = None,
    now: Annotated[str | None, typer.Option(help="When the pages were saved: what relative dates count from.")] = None,
    variant: Annotated[str, typer.Option(help=f"Rule variant: {', '.join(VARIANTS)}.")] = DEFAULT_VARIANT,
    tz: Annotated[str, typer.Option(help="The zone the pages print their dates in.")] = "Europe/Moscow",
    as_json: Annotated[bool, typer.Option("--json", help="Print every line as JSON.")] = False,
) -> None:
    """Every order line of saved PMs: sender, time (exact, or the interval a relative date allows),
    action, targets, whether it is valid and why not, link; in the forum's order."""
    zone = load_zone(tz)
    nicks = read_nicks(players)
    ghosts = read_nicks(dead) if dead is not None else []
    begin = parse_moment(start, zone, "--start") or datetime.min.replace(tzinfo=UTC)
    end = parse_moment(deadline, zone, "--deadline") or datetime.max.replace(tzinfo=UTC)
    try:
        rules_cls = find_variant(variant)
        saved = load_saved_folder(source, parse_moment(now, zone, "--now"), tz=zone)
        window = saved_window(saved.inbox, saved.messages, begin, end)
        _, rows = games.audit_pms(window, [*nicks, *ghosts], rules_cls(), dead=ghosts)
    except ForumbotError as exc:
        fail(str(exc))
    for skipped in saved.skipped:
        err.print(f"skipped {skipped.name}: {skipped.reason}", markup=False)
    if as_json:
        print_json({"orders": rows, "uncertain": games.uncertain_warnings(window, end, begin)})
        return
    table = Table(title=f"{len(window.all_listed())} PMs, {len(rows)} lines")
    for column in ("PM", "sender", "time", "action", "targets", "valid", "reason", "link"):
        table.add_column(column)
    for row in rows:
        table.add_row(
            *plain(
                str(row.get("pm_id", "")),
                str(row.get("actor") or ""),
                str(row.get("time") or ""),
                str(row.get("action") or ""),
                names(row.get("targets") or []),
                "yes" if row.get("valid") else "no",
                str(row.get("reason") or ""),
                str(row.get("link") or ""),
            )
        )
    out.print(table)
    for warning in games.uncertain_warnings(window, end, begin):
        err.print(f"uncertain: {warning}", markup=False)


def saved_window(
    inbox: Iterable[PmSummary], messages: Iterable[PrivateMessage], start: datetime, end: datetime
) -> DayPms:
    """Saved PMs placed against the day: what the inbox row and the PM page print, nothing more."""
    rows = {row.pm_id: row for row in inbox}
    window = DayPms()
    for pm in sorted(messages, key=lambda m: m.pm_id):
        row = rows.get(pm.pm_id)
        window.add(place(_NoExactTimes(), pm, interval_of(row.time, row.time_until) if row else None, start, end))
    return window


class _NoExactTimes:
    """Saved pages cannot be asked for more than they show."""

    def exact_pm_time(self, pm_id: int) -> datetime | None:
        return None


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
        counts.add_row(*plain(isolate(target) + mark, str(len(who)), names(who)))
    out.print(counts)
    if result.not_voting:
        out.print("not voting: " + names(result.not_voting), markup=False)


# --- running a game -----------------------------------------------------------------------------

StateOption = Annotated[Path | None, typer.Option("--state", help="The state file (default: FORUMBOT_STATE).")]
NowOption = Annotated[str | None, typer.Option("--now", help="Act as if it were this moment (ISO).")]


@contextmanager
def host_errors() -> Iterator[None]:
    """Every expected failure of the host's commands: one line, exit code 2, no traceback."""
    try:
        yield
    except ForumbotError as exc:
        fail(str(exc))


def checked_topic(topic: str | None, what: str = "topic") -> str | None:
    """A topic as the host gives it: its number, or a topic URL (http or https) that names one
    (`viewtopic.php?t=N`, `index.php?showtopic=N`); anything else is refused here, not at the next read."""
    if topic is None:
        return None
    text = topic.strip()
    if text.isdigit() and int(text) > 0:
        return text
    parts = urlsplit(text)
    query = parse_qs(parts.query)
    named = [v for key in ("t", "showtopic") for v in query.get(key, []) if v.isdigit() and int(v) > 0]
    if parts.scheme in ("http", "https") and parts.netloc and named:
        return text
    raise ConfigError(f"{what} {topic!r}: not a topic number nor a topic URL (e.g. 1234, or …/viewtopic.php?t=1234)")


def write_private(path: Path, text: str) -> None:
    """Write a file only its owner may read (the draft shows the roles of the day's dead and the checks):
    mode 0600, whether the file is new or was there before."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as file:
        os.fchmod(file.fileno(), 0o600)
        file.write(text)


def open_store(path: Path | None, *, create: bool = False) -> Store:
    """The state file (--state, else FORUMBOT_STATE). Only `new-game` may `create` it: a mistyped path is
    refused, never answered with a new empty state file."""
    where = path if path is not None else load_settings().state
    if not create and not where.is_file():
        what = "is not a file" if where.exists() else "does not exist"
        raise StateError(f"{where}: the state file {what} (a game's first state file is made by new-game)")
    return Store(where)


def current_time(text: str | None) -> datetime:
    if text is None:
        return datetime.now(UTC)
    moment = parse_moment(text, ZoneInfo("UTC"), "--now")
    assert moment is not None
    return moment


@contextmanager
def game_client(config: GameConfig) -> Iterator[ForumClient]:
    """The game's forum client, closed however the command ends."""
    settings = load_settings()
    if config.forum.engine != "saved":
        settings.require_account()
    client = open_client(client_settings(settings, config.forum))
    try:
        yield client
    finally:
        client.close()


@app.command("new-game")
def new_game_command(
    config: Annotated[Path, typer.Argument(help="The game's TOML config.")], state: StateOption = None
) -> None:
    """Create a game in the state file from its config."""
    with host_errors():
        parsed = load_game_config(config)
        store = open_store(state, create=True)
        games.create_game(store, parsed)
    out.print(
        f"game {parsed.game.name!r} created ({parsed.game.variant}, {len(parsed.game.players)} players)", markup=False
    )


@app.command("signups")
def signups_command(
    args: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="[GAME] [TOPIC]",
            help="The game (may be left out when the state file holds one game) and the signup topic "
            "(id or URL; default: the config's [forum] signup_topic).",
        ),
    ] = None,
    state: StateOption = None,
) -> None:
    """Take the player list from the signup topic: everyone who signed up in red (seed 001)."""
    with host_errors():
        store = open_store(state)
        game, topic = _game_and_topic(store, args or [])
        _, config = games.load(store, game)
        topic = topic or config.forum.signup_topic
        if not topic:
            fail(f"{game}: which signup topic? give it, or set [forum] signup_topic in the config")
        with game_client(config) as client:
            posts = [post for page in client.fetch_topic(topic) for post in page.posts]
        exclude = [n for n in (load_settings().username,) if n]
        players = games.record_signups(store, game, posts, exclude)
    out.print(f"{len(players)} players signed up: {names(players)}", markup=False)


def _game_and_topic(store: Store, args: list[str]) -> tuple[str, str | None]:
    """`GAME TOPIC`, `GAME`, or `TOPIC` alone when the state file holds a single game."""
    if len(args) > 2:
        fail("signups takes at most two arguments: GAME and TOPIC")
    if len(args) == 2:
        return args[0], args[1]
    games = store.game_names()
    if args and args[0] in games:
        return args[0], None
    if len(games) != 1:
        listed = ", ".join(games) or "none (forumbot new-game CONFIG)"
        fail(f"name the game: the state file holds {len(games)} games ({listed})")
    return games[0], args[0] if args else None


@app.command("day-topic")
def day_topic_command(
    game: Annotated[str, typer.Argument(help="The game.")],
    topic: Annotated[str, typer.Argument(help="The current day's topic (id or URL).")],
    state: StateOption = None,
) -> None:
    """Set the topic of the current day (for hosts who post the day topic by hand)."""
    with host_errors():
        store = open_store(state)
        row, _ = games.load(store, game)
        if row.state is None:
            fail(f"{game}: roles are not dealt yet (forumbot deal {game})")
        if store.day(row.id, row.state.day) is None:
            fail(f"{game}: day {row.state.day} is not open")
        topic = checked_topic(topic) or topic
        store.set_day_topic(row.id, row.state.day, topic)
    out.print(f"{game}: day {row.state.day} is read from topic {topic}", markup=False)


@app.command("end-day")
def end_day_command(
    game: Annotated[str, typer.Argument(help="The game.")],
    state: StateOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the draft outcome and audit as JSON.")] = False,
    early: Annotated[
        str | None, typer.Option("--early", metavar="REASON", help="End the day before its deadline, saying why.")
    ] = None,
    now: NowOption = None,
) -> None:
    """Read the day's votes and orders, resolve the day and store a DRAFT (re-running replaces it). Before
    the day's deadline it refuses, unless --early REASON (the reason goes into the draft's audit)."""
    with host_errors():
        store = open_store(state)
        row, config = games.load(store, game)
        moment = current_time(now)
        day = store.day(row.id, row.state.day) if row.state is not None else None
        if day is not None and moment < day["deadline"]:
            if not (early or "").strip():
                local = day["deadline"].astimezone(config.game.zone)
                fail(
                    f"{game}: day {row.state.day if row.state else '?'} ends at {local:%d.%m.%Y %H:%M} "
                    f"({config.game.timezone}); to end it now, give --early REASON"
                )
        before = early and day is not None and moment < day["deadline"]
        told = Early(reason=(early or "").strip(), at=moment.isoformat()) if before else None
        with game_client(config) as client:
            draft = games.end_day(store, game, client, early=told)
    if as_json:
        print_json(draft.summary())
        return
    show_draft(game, draft, approved_by=None)


draft_app = typer.Typer(help="The day's draft: show it, write it as HTML, approve it.", no_args_is_help=True)
app.add_typer(draft_app, name="draft")


@draft_app.command("show")
def draft_show_command(
    game: Annotated[str, typer.Argument(help="The game.")],
    state: StateOption = None,
    to_moderators: Annotated[
        bool, typer.Option("--to-moderators", help="Also PM the draft to the config's moderators.")
    ] = False,
) -> None:
    """The draft outcome, the audit, and the BBCode the host would post."""
    with host_errors():
        store = open_store(state)
        row, _ = games.load(store, game)
        draft = store.draft(row.id, row.state.day) if row.state is not None else None
        if draft is None:
            fail(f"{game}: no draft for the current day (forumbot end-day {game})")
    show_draft(game, draft.draft, approved_by=draft.approved_by)
    out.print("")
    out.print(draft.draft.bbcode, markup=False)
    if to_moderators:
        send_draft(game, state)


@draft_app.command("html")
def draft_html_command(
    game: Annotated[str, typer.Argument(help="The game.")],
    out_file: Annotated[Path, typer.Argument(metavar="OUT.html", help="Where to write the page.")],
    to_moderators: Annotated[
        bool, typer.Option("--to-moderators", help="Also PM the draft to the moderators of the config.")
    ] = False,
    state: StateOption = None,
) -> None:
    """The draft as one self-contained HTML page for the moderators: the post as the forum shows it, the
    audit with links to the posts, and a chart of the day's votes over time."""
    with host_errors():
        store = open_store(state)
        row, config = games.load(store, game)
        draft = store.draft(row.id, row.state.day) if row.state is not None else None
        if row.state is None or draft is None:
            fail(f"{game}: no draft for the current day (forumbot end-day {game})")
        day = store.day(row.id, row.state.day)
        page = render_preview_html(
            game,
            draft.draft,
            tz=config.game.zone,
            deadline=day["deadline"] if day is not None else None,
            approved_by=draft.approved_by,
        )
    try:
        write_private(out_file, page)
    except OSError as exc:
        fail(f"cannot write {out_file}: {exc}")
    out.print(f"{game}: preview of day {draft.draft.day} written to {out_file}", markup=False)
    if to_moderators:
        send_draft(game, state)


@draft_app.command("approve")
def draft_approve_command(
    game: Annotated[str, typer.Argument(help="The game.")],
    by: Annotated[str, typer.Option("--by", help="The approving moderator's name.")],
    state: StateOption = None,
) -> None:
    """A moderator's approval of the current draft (stored with time and name)."""
    with host_errors():
        games.approve(open_store(state), game, by)
    out.print(f"{game}: draft approved by {by}", markup=False)


@app.command("advance")
def advance_command(
    game: Annotated[str, typer.Argument(help="The game.")],
    topic: Annotated[str | None, typer.Option(help="The new day's topic, if posted already.")] = None,
    state: StateOption = None,
    now: NowOption = None,
) -> None:
    """Record the approved draft as the day's result and open the next day."""
    with host_errors():
        topic = checked_topic(topic, "--topic")
        new_state = games.advance(open_store(state), game, current_time(now), topic=topic)
    if new_state.winner != "none":
        out.print(f"{game}: the game is over — {new_state.winner}", markup=False)
    else:
        out.print(f"{game}: day {new_state.day} is open", markup=False)


@app.command("override")
def override_command(
    game: Annotated[str, typer.Argument(help="The game.")],
    reason: Annotated[str, typer.Option(help="Why (shown in the audit).")],
    by: Annotated[str, typer.Option(help="Who decides (host or moderator).")],
    count_post: Annotated[int | None, typer.Option(help="Count the vote of this post.")] = None,
    ignore_post: Annotated[int | None, typer.Option(help="Ignore the vote of this post.")] = None,
    set_vote: Annotated[str | None, typer.Option(help="VOTER=TARGET: set a player's vote.")] = None,
    clear_vote: Annotated[str | None, typer.Option(help="VOTER: clear a player's vote.")] = None,
    set_order: Annotated[str | None, typer.Option(help="ACTOR=ACTION:TARGET[,TARGET]: set an order.")] = None,
    clear_order: Annotated[str | None, typer.Option(help="ACTOR=ACTION: clear an order.")] = None,
    state: StateOption = None,
) -> None:
    """Count or ignore a post, set or clear a vote or an order; used by the next end-day."""
    given = [x for x in (count_post, ignore_post, set_vote, clear_vote, set_order, clear_order) if x is not None]
    if len(given) != 1:
        fail("give exactly one of --count-post, --ignore-post, --set-vote, --clear-vote, --set-order, --clear-order")
    with host_errors():
        store = open_store(state)
        row, config = games.load(store, game)
        if row.state is None:
            fail(f"{game}: roles are not dealt yet")
        games.require_moderator(config, game, by)
        if not reason.strip():
            fail("--reason is empty: say why (it is shown in the audit)")
        kind, subject, value = games.parse_override(
            row.state, count_post, ignore_post, set_vote, clear_vote, set_order, clear_order
        )
        post = count_post if count_post is not None else ignore_post
        draft = store.draft(row.id, row.state.day)
        unchecked = post is not None and draft is None
        if post is not None and draft is not None:
            seen = {str(v.post_id) for v in draft.draft.votes if v.post_id is not None}
            if str(post) not in seen:
                listed = ", ".join(sorted(seen, key=lambda x: (len(x), x))[:12]) or "none"
                fail(f"post {post} is not in day {row.state.day}'s audit (posts with votes: {listed})")
        store.add_override(row.id, row.state.day, kind, subject, value, reason, by)
    out.print(f"{game}: {kind} {subject} recorded (run end-day again to apply it)", markup=False)
    if unchecked:
        err.print(
            f"note: day {row.state.day} has no draft yet, so post {post} could not be checked: "
            "end-day will show whether it holds a vote",
            markup=False,
        )


@app.command("power")
def power_command(
    game: Annotated[str, typer.Argument(help="The game.")],
    kind: Annotated[
        str,
        typer.Argument(
            help="replace OLD NEW | remove NICK | appoint-maniac NICK | scheme NICK ROLE [boss] | best-player NICK"
        ),
    ],
    args: Annotated[list[str], typer.Argument(help="The nicks (and for scheme the new role).")],
    reason: Annotated[str, typer.Option(help="Why (shown in the audit and, for a removal, kept with it).")],
    by: Annotated[str, typer.Option(help="Who decides (a moderator of the game).")],
    state: StateOption = None,
) -> None:
    """One of the host's powers for the current day: a replacement (замена), a removal (модкилл), a new
    maniac or a change of roles (gameru-3.3), the best player at the end (kozanostra). Recorded with who
    and why (a replacement is checked by the rules at once), and carried out by the day's end, whose
    rules refuse what they do not allow, naming why."""
    shapes = {"replace": 2, "remove": 1, "appoint-maniac": 1, "best-player": 1, "scheme": (2, 3)}
    if kind not in shapes:
        fail(f"{kind!r}: not a power ({', '.join(shapes)})")
    wanted = shapes[kind]
    if len(args) not in (wanted if isinstance(wanted, tuple) else (wanted,)):
        fail(f"{kind} takes {wanted} value(s), got {len(args)}: {' '.join(args)}")
    with host_errors():
        store = open_store(state)
        row, config = games.load(store, game)
        games.require_moderator(config, game, by)
        subject = args[0].strip()
        value = args[1].strip() if kind == "replace" else " ".join(args[1:]).strip() if kind == "scheme" else None
        games.record_power(store, game, kind.replace("-", "_"), subject, value, reason=reason, by=by)
    out.print(f"{game}: {kind} {' '.join(args)} recorded (end-day carries it out)", markup=False)


@app.command("status")
def status_command(
    game: Annotated[str, typer.Argument(help="The game.")],
    secret: Annotated[bool, typer.Option("--secret", help="Show the roles too (host only).")] = False,
    votes: Annotated[bool, typer.Option("--votes", help="Read the day topic now for the votes so far.")] = False,
    state: StateOption = None,
) -> None:
    """Day, deadline, living players and the votes so far; roles only with --secret."""
    with host_errors():
        store = open_store(state)
        row, config = games.load(store, game)
    if row.state is None:
        out.print(
            f"{game} ({row.variant}): signups, {len(store.players(row.id))} players, roles not dealt", markup=False
        )
        return
    gs = row.state
    day = store.day(row.id, gs.day)
    out.print(
        f"{game} ({row.variant}) — day {gs.day}" + (f", winner: {gs.winner}" if gs.winner != "none" else ""),
        markup=False,
    )
    if day is not None:
        out.print(
            f"topic: {day['topic'] or '-'}; deadline: {day['deadline'].astimezone(config.game.zone):%d.%m.%Y %H:%M %Z}",
            markup=False,
        )
    table = Table(title="players")
    table.add_column("nick")
    table.add_column("status")
    if secret:
        table.add_column("role")
    for p in gs.players:
        life = "alive" if p.alive else f"dead (day {p.death_day}, {p.death_cause})"
        cells = [p.nick, life] + ([p.role + (" (boss)" if p.boss else "")] if secret else [])
        table.add_row(*plain(*cells))
    out.print(table)
    if votes:
        with host_errors():
            with game_client(config) as client:
                counted = games.votes_so_far(store, game, client)
        shown = ", ".join(f"{isolate(v['voter'])} → {isolate(v['target'])}" for v in counted)
        out.print("votes so far: " + (shown or "none"), markup=False)
        return
    draft = store.draft(row.id, gs.day)
    if draft is not None:
        so_far = [v for v in draft.draft.votes if v.counted]
        out.print(
            f"votes so far (draft of {draft.created_at}): "
            + (", ".join(f"{isolate(v.voter)} → {isolate(v.target or '')}" for v in so_far) or "none"),
            markup=False,
        )


@app.command("reveal")
def reveal_command(
    game: Annotated[str, typer.Argument(help="The game.")],
    force: Annotated[bool, typer.Option("--force", help="Reveal before the game has ended.")] = False,
    state: StateOption = None,
) -> None:
    """The role list as dealt and the salt: anyone can check them against day 1's SHA-256 commitment."""
    with host_errors():
        shown = games.reveal(open_store(state), game, force=force)
    out.print(shown.roles, markup=False)
    out.print(f"salt: {shown.salt}", markup=False)
    out.print(
        f"SHA-256(salt + newline + role list) = {shown.commitment}"
        + (" (verified)" if shown.verified else " (MISMATCH)"),
        markup=False,
    )


def parse_every(text: str) -> timedelta:
    """ "10m", "90s", "1h" -> a duration."""
    units = {"s": 1, "m": 60, "h": 3600}
    number, unit = text[:-1], text[-1:].lower()
    if unit not in units or not number.isdigit() or int(number) == 0:
        fail(f"--every {text!r}: a number followed by s, m or h (e.g. 10m)")
    return timedelta(seconds=int(number) * units[unit])


@app.command("watch")
def watch_command(
    game: Annotated[str, typer.Argument(help="The game.")],
    every: Annotated[str, typer.Option(help="Time between passes (s, m or h).")] = "10m",
    once: Annotated[bool, typer.Option("--once", help="One pass, then exit (for cron).")] = False,
    state: StateOption = None,
) -> None:
    """Between day ends: order receipts, PM commands and relays, interim vote counts, the deadline's draft."""
    interval = parse_every(every)
    with host_errors():
        store = open_store(state)
        _, config = games.load(store, game)
    with host_errors(), game_client(config) as client:
        poster = poster_for(client)

        def run_pass() -> watch.PassReport:  # the loop retries a passing fault; the rest ends in host_errors
            return watch.watch_once(
                store,
                game,
                client,
                poster,
                datetime.now(UTC),
                publish=lambda: publish_day(store, game, client, datetime.now(UTC)),
            )

        def log(report: watch.PassReport) -> None:
            out.print(
                f"{datetime.now(UTC):%H:%M:%S} {len(report.handled)} PMs handled, {len(report.sent)} sent"
                + (", interim count" if report.interim_count else "")
                + (", draft made and sent to the moderators" if report.drafted else "")
                + (", published" if report.published else "")
                + (", the game started" if report.started else ""),
                markup=False,
            )
            for problem in report.problems:
                err.print(f"problem: {problem}", markup=False)

        if once:
            log(run_pass())
        else:
            watch.watch_loop(
                run_pass,
                interval,
                on_report=log,
                on_error=lambda exc, wait: err.print(
                    f"pass failed ({exc}); trying again in {wait:.0f} s", markup=False
                ),
            )


@app.command("relays")
def relays_command(game: Annotated[str, typer.Argument(help="The game.")], state: StateOption = None) -> None:
    """The host's audit of the letters players relayed through the bot (#mail, #mafia, #jakudza, #wall)."""
    with host_errors():
        store = open_store(state)
        row, _ = games.load(store, game)
        found = store.relays(row.id)
    table = Table(title=f"{game}: relayed letters")
    for column in ("day", "PM", "from", "kind", "to", "status", "at"):
        table.add_column(column)
    for r in found:
        to = names(json.loads(r["recipients"]))
        table.add_row(*plain(str(r["day"]), str(r["pm_id"]), r["sender"], r["kind"], to, r["status"], r["at"][:16]))
    out.print(table if found else f"{game}: no relayed letters")


def show_draft(game: str, draft: DayDraft, approved_by: str | None) -> None:
    status = f"approved by {approved_by}" if approved_by else "NOT approved"
    out.print(f"{game}, day {draft.day} — draft, {status}", markup=False)
    if draft.early is not None:
        out.print(f"made before the deadline (at {draft.early.at}): {draft.early.reason}", markup=False)
    everyone = list(draft.state.nicks())
    deaths = ", ".join(f"{isolate(n)} ({c})" for n, c in draft.deaths.items()) or "nobody"
    out.print(f"deaths: {deaths}; winner: {draft.winner}", markup=False)
    if draft.checks:
        checks = ", ".join(f"{isolate(n)}: {isolate_within(str(r), everyone)}" for n, r in draft.checks.items())
        out.print("checks (private): " + checks, markup=False)
    votes = Table(title="votes")
    for column in ("voter", "target", "time", "counted", "why not", "link"):
        votes.add_column(column)
    for v in draft.votes:
        why = (v.reason or "") + (f" (nearest: {v.nearest})" if v.nearest else "")
        votes.add_row(
            *plain(v.voter, v.target or "", (v.time or "")[:16], "yes" if v.counted else "", why, v.link or "")
        )
    out.print(votes)
    orders = Table(title="orders")
    for column in ("actor", "action", "targets", "valid", "why not", "link"):
        orders.add_column(column)
    for o in draft.orders:
        why = (o.reason or "") + (f" (nearest: {o.nearest})" if o.nearest else "")
        orders.add_row(
            *plain(o.actor, o.action or "", names(o.targets), "yes" if o.valid else "", why, o.link or "")
        )
    for x in draft.void:
        orders.add_row(*plain(x.actor, x.action, names(x.targets), "", x.reason, x.ref or ""))
    out.print(orders)
    activity = ", ".join(f"{isolate(n)}: {a.posts} posts, {a.orders} PMs" for n, a in draft.activity.items())
    out.print(f"activity: {activity}", markup=False)
    for problem in draft.page_problems:
        out.print(f"UNREADABLE POST {isolate_within(str(problem), everyone)}", markup=False)
    for pm in draft.unread_pms:
        sender, subject = isolate(str(pm.get("sender"))), isolate(str(pm.get("subject")))
        out.print(f"UNREAD PM {pm.get('pm_id')} from {sender} ({subject}): {pm.get('reason')}", markup=False)
    for warning in draft.warnings:
        out.print(f"WARNING {isolate_within(warning, everyone)}", markup=False)
    for note in [isolate_within(n, everyone) for n in draft.inactivity] + [
        f"override by {isolate(o.by)}: {o.kind} {isolate(o.subject)} — {o.reason}" for o in draft.overrides
    ]:
        out.print(f"note: {note}", markup=False)
    for e in draft.events:
        parts = [e.kind, isolate(e.actor or ""), "→", isolate(e.target or ""), e.detail]
        out.print("event: " + " ".join(p for p in parts if p), markup=False)


@app.command("simulate")
def simulate_command(
    variant: Annotated[str, typer.Option(help=f"Rule variant: {', '.join(VARIANTS)}.")],
    players: Annotated[int, typer.Option(help="Number of players.")],
    games: Annotated[int, typer.Option(help="Number of games to play.")] = 1000,
    seed: Annotated[int, typer.Option(help="Seed: the same seed gives the same figures.")] = 0,
    chart: Annotated[Path | None, typer.Option(help="Write a bar chart of the rates to FILE (.svg or .png).")] = None,
    option: Annotated[
        list[str] | None, typer.Option("--option", "-o", help="A variant option, KEY=VALUE (JSON value).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the figures as JSON.")] = False,
) -> None:
    """Play many games with random legal play: each side's win rate with its 95% interval, draws, length."""
    fmt: ChartFormat | None = None
    if chart is not None:
        suffix = chart.suffix.lower().lstrip(".")
        if suffix not in CHART_FORMATS:
            fail(f"--chart {chart}: give a file ending in {' or '.join('.' + f for f in CHART_FORMATS)}")
        fmt = "svg" if suffix == "svg" else "png"
    if players < 1 or games < 1:
        fail("--players and --games must be at least 1")
    try:
        result = simulate(variant, players, games, seed, parse_option_pairs(option or []))
    except ForumbotError as exc:
        fail(str(exc))
    if chart is not None and fmt is not None:
        try:
            chart.write_bytes(render_chart(result, fmt))
        except OSError as exc:
            fail(f"cannot write {chart}: {exc}")
    if as_json:
        print_json(result.to_json())
        return
    table = Table(title=f"{variant}, {players} players: {games} games, seed {seed}")
    for name in ("side", "wins", "win rate", "95% CI"):
        table.add_column(name, justify="left" if name == "side" else "right")
    for share in [*result.sides(), result.draw_share(), result.unfinished_share()]:
        low, high = share.interval
        table.add_row(share.label, str(share.count), f"{share.rate:.1%}", f"{low:.1%} – {high:.1%}")
    out.print(table)
    mean = f"{result.mean_days:.2f} days" if result.mean_days is not None else "no game finished"
    out.print(f"mean length: {mean} (cap {result.day_cap} days; unfinished games hit the cap)", markup=False)
    if chart is not None:
        out.print(f"chart: {chart}", markup=False)


# --- publishing ---------------------------------------------------------------------------------


@app.command("account")
def account_command(
    game: Annotated[str, typer.Argument(help="The game whose forum and account to look at.")],
    date_format: Annotated[
        str | None,
        typer.Option(help="Store this date format on the bot's account, e.g. 'd.m.Y H:i:s' (every date exact)."),
    ] = None,
    yes: Annotated[bool, typer.Option("--yes", help="Change the format without asking.")] = False,
    state: StateOption = None,
) -> None:
    """The bot account's language, time zone and date format as the board keeps them; with --date-format,
    change the format (phpBB's relative formats print fresh PMs as "5 минут назад": only an interval)."""
    with host_errors():
        store = open_store(state)
        _, config = games.load(store, game)
    with host_errors(), game_client(config) as client:
        if not isinstance(client, PhpbbClient):
            fail(f"{game}: the account's preferences are read on phpBB boards only")
        prefs = client.preferences()
        _print_preferences(client.account or "", prefs)
        if date_format is None or date_format == prefs.dateformat:
            return
        if not yes and not typer.confirm(f"Store the date format {date_format!r} on {client.account}?"):
            fail("nothing changed", code=1)
        after = poster_for(client).set_date_format(date_format)
    out.print(f"the date format is now {after.dateformat!r}", markup=False)


def _print_preferences(account: str, prefs: Any) -> None:
    out.print(f"{account}: language {prefs.lang}, time zone {prefs.tz}, date format {prefs.dateformat!r}", markup=False)
    if prefs.dateformat and is_relative_format(prefs.dateformat):
        out.print(
            "fresh dates are printed relative ('менее минуты назад'): forumbot asks the board for the exact time "
            "of a PM near a deadline; a format with seconds (--date-format 'd.m.Y H:i:s') makes every date exact",
            markup=False,
        )


@app.command("publish")
def publish_command(
    game: Annotated[str, typer.Argument(help="The game.")],
    no_roles: Annotated[
        bool, typer.Option("--no-roles", help="The role PMs were sent by hand: the bot never sends them.")
    ] = False,
    flood_interval: Annotated[
        float, typer.Option(help="The forum's flood interval in seconds (phpBB's default: 15).")
    ] = 15.0,
    state: StateOption = None,
    now: NowOption = None,
) -> None:
    """Post the approved day: the new topic, the old one locked, the PMs that are due (roles never sent,
    checks, role changes, the reveal at the end); then open the next day. Before the first draft: the
    opening (day 1's topic with the commitment, the roles). Safe to run again after any failure."""
    with host_errors():
        store = open_store(state)
        _, config = games.load(store, game)
    with host_errors(), game_client(config) as client:
        poster = poster_for(client, flood_interval=flood_interval)
        report = publish_day(store, game, client, current_time(now), poster=poster, roles=not no_roles)
    print_publish_report(report)


def print_publish_report(report: PublishReport) -> None:
    for label in report.sent:
        out.print(f"sent: {label}", markup=False)
    for label in report.recovered:
        out.print(f"found on the forum (sent before an interruption): {label}", markup=False)
    if report.skipped:
        out.print(f"done by an earlier run: {len(report.skipped)}", markup=False)
    if report.locked:
        out.print("the previous day's topic is locked", markup=False)
    for note in report.notes:
        err.print(f"note: {note}", markup=False)
    if report.winner != "none":
        out.print(f"{report.game}: the game is over — {report.winner}; final topic {report.topic_id}", markup=False)
    elif report.new_day is not None:
        out.print(f"{report.game}: day {report.new_day} is open in topic {report.topic_id}", markup=False)
    elif report.topic_id is not None:
        out.print(f"{report.game}: day {report.day} is in topic {report.topic_id}", markup=False)


@draft_app.command("send")
def draft_send_command(game: Annotated[str, typer.Argument(help="The game.")], state: StateOption = None) -> None:
    """PM the current draft to the moderators of the config (each version of the draft once)."""
    send_draft(game, state)


def send_draft(game: str, state: Path | None) -> None:
    with host_errors():
        store = open_store(state)
        _, config = games.load(store, game)
    with host_errors(), game_client(config) as client:
        sent = send_draft_to_moderators(store, game, client)
    who = ", ".join(sent.moderators)
    if sent.already:
        out.print(f"{game}: this draft of day {sent.day} was sent to {who} already", markup=False)
    else:
        out.print(f"{game}: the draft of day {sent.day} is sent to {who}", markup=False)


def _one_line_errors(command: Callable[..., Any]) -> Callable[..., Any]:
    """Whatever part of a command meets an expected failure, it ends in one line and exit code 2."""

    @functools.wraps(command)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        with host_errors():
            return command(*args, **kwargs)

    return guarded


for _typer_app in (app, draft_app, scenario_app):
    for _command in _typer_app.registered_commands:
        if _command.callback is not None:
            _command.callback = _one_line_errors(_command.callback)


def main() -> None:
    app()
