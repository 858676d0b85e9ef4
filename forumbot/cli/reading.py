"""`forumbot tally` and `forumbot orders`: a day's votes and orders read outside a stored game."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from forumbot.cli import words
from forumbot.cli.app import app
from forumbot.cli.common import (
    client_opener,
    err,
    fail,
    fail_on,
    keeping_session,
    load_zone,
    out,
    parse_moment,
    print_json,
    print_json_streamed,
    read_nicks,
)
from forumbot.cli.display import local, names, plain, print_tally, table, times_in, zoned_rows
from forumbot.cli.progress import page_progress
from forumbot.i18n import _, ngettext

if TYPE_CHECKING:
    from zoneinfo import ZoneInfo

    from forumbot.forum.cache import TopicRead
    from forumbot.host.daywindow import DayPms
    from forumbot.host.tally import CountRules, Tally
    from forumbot.posts import PmSummary, PrivateMessage

VariantOption = Annotated[
    str | None, typer.Option(help="Rule variant (default: the engine's default; an unknown name lists them).")
]


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
    variant: VariantOption = None,
    day: Annotated[int, typer.Option(help="The game day (double-vote days of gameru-3.3).")] = 1,
    tz: Annotated[str, typer.Option(help="The game's time zone.")] = "Europe/Moscow",
    now: Annotated[
        str | None,
        typer.Option(help="The count's moment; saved pages whose own time and file time are unknown: their now."),
    ] = None,
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
    from forumbot.engine.variants import DEFAULT_VARIANT, find_variant
    from forumbot.errors import ForumbotError
    from forumbot.host.tally import CountRules, render_tally_bbcode, tally_posts
    from forumbot.render.receipts import count_title

    if (topic is None) == (source is None):
        fail(_("give either a topic URL or --from DIR (saved pages)"))
    if players is None:
        fail(_("--players FILE is required (the living players, one nick per line)"))
    zone = load_zone(tz)
    living = read_nicks(players)
    ghosts = read_nicks(dead) if dead is not None else []
    rules_name = variant or DEFAULT_VARIANT
    try:
        rules_cls = find_variant(rules_name)
        moment = parse_moment(now, zone, "--now")
        per_post = rules_cls().max_targets(day, "vote", len(living) + len(ghosts))
        since, until = parse_moment(start, zone, "--start"), parse_moment(deadline, zone, "--deadline")
        rules = CountRules(living, ghosts, since, until, rules_name, votes_per_post=per_post)
        if topic is not None:  # a live topic, read now (or at --now)
            result, problems = _live_count(topic, rules, moment or datetime.now(UTC), incremental)
        else:
            assert source is not None
            read = _saved_posts(source, topic_id, moment, zone)
            problems = read.problems
            # saved pages: read at --now, else as of their newest post
            result = tally_posts(
                read.posts, living, dead=ghosts, variant=rules_name, votes_per_post=per_post, read_at=moment,
                start=since, deadline=until,
            )  # fmt: skip
    except ForumbotError as exc:
        fail_on(exc)
    if not result.complete:
        err.print(_("earlier pages came from the cache: this count may miss edits made on them"), markup=False)
    if as_json:
        print_json_streamed(result.json_fields() | {"problems": problems, "complete": result.complete})
        return
    for problem in problems:
        err.print(_("unreadable post: {problem}").format(problem=problem), markup=False)
    print_tally(result, zone)
    if bbcode:
        try:
            post = render_tally_bbcode(result, count_title(day), zone=zone)
        except ForumbotError as exc:  # a count from a read that may miss posts is never made ready to post
            fail(_("no vote-count post: {error}").format(error=exc))
        out.print(post, markup=False)


def _live_count(topic: str, rules: CountRules, read_at: datetime, incremental: bool) -> tuple[Tally, list[str]]:
    """The count of a live topic: every page read (each edit seen), or with `incremental` only the new
    ones, counted on from what the last count of the same day kept in the state file."""
    from forumbot.config import load_settings
    from forumbot.forum.cache import PageCache
    from forumbot.forum.registry import client_settings
    from forumbot.host.recount import count_topic
    from forumbot.store import Store

    settings = load_settings()
    base = topic.split("?")[0].rsplit("/", 1)[0] + "/"
    client = client_opener()(client_settings(settings, TopicSource(base_url=base)))
    store = Store(settings.state)  # the state file: private from its first byte
    cache = PageCache(store)
    if client.account:  # the bot's own posts (the opening, the counts) are neither votes nor audit rows
        rules = replace(rules, skip_authors=[*rules.skip_authors, client.account])
    try:
        with keeping_session(client, store), page_progress(_("pages")) as progress:
            tally, read = count_topic(
                client, cache, store, topic, rules, incremental=incremental, read_at=read_at, progress=progress
            )
        list(tally.records)  # the audit prints every record: made now, while the state file is open
        return tally, list(read.problems)
    finally:
        cache.close()
        client.close()
        store.close()


@dataclass(frozen=True)
class TopicSource:
    """A forum known only by a topic's URL: the dialect is told from the URL."""

    base_url: str
    engine: str = "auto"
    saved_pages: Path | None = None


def _saved_posts(folder: Path, topic_id: int | None, now: datetime | None, zone: ZoneInfo) -> TopicRead:
    from forumbot.forum.cache import TopicRead
    from forumbot.forum.registry import load_saved_folder

    saved = load_saved_folder(folder, now, tz=zone)
    for skipped in saved.skipped:
        err.print(_("skipped {file}: {reason}").format(file=skipped.name, reason=skipped.reason), markup=False)
    topics = sorted({p.topic_id for p in saved.topic_pages}, key=lambda t: (t is None, t))
    if topic_id is not None:
        topics = [t for t in topics if t == topic_id]
    if not topics:
        if topic_id is not None:
            fail(_("{folder}: no thread pages of topic {topic}").format(folder=folder, topic=topic_id))
        fail(_("{folder}: no thread pages").format(folder=folder))
    if len(topics) > 1:
        said = _("{folder} holds several topics ({topics}): choose one with --topic")
        fail(said.format(folder=folder, topics=", ".join(map(str, topics))))
    pages = [p for p in saved.topic_pages if p.topic_id == topics[0]]
    return TopicRead([post for page in pages for post in page.posts], [x for page in pages for x in page.problems])


@app.command("orders")
def orders_command(
    source: Annotated[Path, typer.Option("--from", help="A folder of saved PM pages (and inbox pages).")],
    players: Annotated[Path, typer.Option(help="The players, one nick per line.")],
    dead: Annotated[Path | None, typer.Option(help="The dead players, one nick per line.")] = None,
    start: Annotated[str | None, typer.Option(help="The day's start (ISO; game time zone if no offset).")] = None,
    deadline: Annotated[str | None, typer.Option(help="The day's deadline (ISO): PMs at or after it are late.")] = None,
    now: Annotated[
        str | None,
        typer.Option(help="When pages were saved, for those whose own time and file time are unknown."),
    ] = None,
    variant: VariantOption = None,
    tz: Annotated[str, typer.Option(help="The zone the pages print their dates in.")] = "Europe/Moscow",
    as_json: Annotated[bool, typer.Option("--json", help="Print every line as JSON.")] = False,
) -> None:
    """Every order line of saved PMs: sender, time (exact, or the interval a relative date allows),
    action, targets, whether it is valid and why not, link; in the forum's order."""
    from forumbot.engine.variants import DEFAULT_VARIANT, find_variant
    from forumbot.errors import ForumbotError
    from forumbot.forum.registry import load_saved_folder
    from forumbot.host import games

    zone = load_zone(tz)
    nicks = read_nicks(players)
    ghosts = read_nicks(dead) if dead is not None else []
    begin = parse_moment(start, zone, "--start") or datetime.min.replace(tzinfo=UTC)
    end = parse_moment(deadline, zone, "--deadline") or datetime.max.replace(tzinfo=UTC)
    try:
        rules_cls = find_variant(variant or DEFAULT_VARIANT)
        saved = load_saved_folder(source, parse_moment(now, zone, "--now"), tz=zone)
        window = saved_window(saved.inbox, saved.messages, begin, end)
        _pms, rows = games.audit_pms(window, [*nicks, *ghosts], rules_cls(), dead=ghosts)
    except ForumbotError as exc:
        fail_on(exc)
    for skipped in saved.skipped:
        err.print(_("skipped {file}: {reason}").format(file=skipped.name, reason=skipped.reason), markup=False)
    uncertain = games.uncertain_warnings(window, end, begin)
    if as_json:
        print_json({"orders": zoned_rows([row.as_made() for row in rows], zone, "time"), "uncertain": uncertain})
        return
    listed = len(window.all_listed())
    title = ngettext("{n} PM", "{n} PMs", listed).format(n=listed) + ", "
    title += ngettext("{n} line", "{n} lines", len(rows)).format(n=len(rows)) + f" ({times_in(zone)})"
    columns = (_("PM"), _("sender"), _("time"), _("action"), _("targets"), _("valid"), _("reason"), _("link"))
    shown = table(title, *columns)
    for row in rows:
        shown.add_row(
            *plain(
                str(row.get("pm_id", "")),
                str(row.get("actor") or ""),
                local(row.get("time"), zone),
                words.action(row.get("action")),
                names(row.get("targets") or []),
                words.yes_no(bool(row.get("valid"))),
                words.reason(row.get("reason"), row.get("why"), order=True),
                str(row.get("link") or ""),
            )
        )
    out.print(shown)
    for warning in uncertain:
        err.print(_("uncertain: {warning}").format(warning=warning), markup=False)


def saved_window(
    inbox: Iterable[PmSummary], messages: Iterable[PrivateMessage], start: datetime, end: datetime
) -> DayPms:
    """Saved PMs placed against the day: what the inbox row and the PM page print, nothing more."""
    from forumbot.host.daywindow import DayPms, interval_of, place

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
