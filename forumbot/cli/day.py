"""The day's end: end-day, the draft (show, html, approve, send), publish, watch, relays, the account."""

from __future__ import annotations

from dataclasses import asdict
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from forumbot.cli.app import app, draft_app
from forumbot.cli.common import (
    EXIT_HOST,
    EXIT_TEMPFAIL,
    JsonOption,
    NowOption,
    StateOption,
    current_time,
    err,
    fail,
    game_client,
    host_errors,
    import_meanwhile,
    load_game,
    open_store,
    out,
    parse_every,
    print_json,
    write_private,
)
from forumbot.cli.display import (
    in_zone_iso,
    local,
    names,
    plain,
    print_publish_report,
    say,
    show_draft,
    table,
    times_in,
    zone_name,
    zoned_rows,
)
from forumbot.cli.progress import page_progress, sending
from forumbot.i18n import N_, _, ngettext

if TYPE_CHECKING:
    from zoneinfo import ZoneInfo

    from forumbot.config import GameConfig
    from forumbot.errors import ConfigError
    from forumbot.host.publish import DraftSent
    from forumbot.host.watch import PassReport
    from forumbot.store import GameRow, Store


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
    import forumbot.forum.client  # noqa: F401  (what the login needs, here, before the rest is started)
    import forumbot.store  # noqa: F401
    from forumbot.draft import Early

    # The rest of the day's end (the engine, the extraction, the templates: a second or more of imports) is
    # imported while the login waits out the board's form rule, not inside the read.
    imported = import_meanwhile("forumbot.host.games")
    with host_errors():
        store = open_store(state)
        row, config = load_game(store, game)
        moment = current_time(now, config.game.zone)
        day = store.day(row.id, row.state.day) if row.state is not None else None
        if day is not None and moment < day["deadline"]:
            if not (early or "").strip():
                said = _("{game}: day {day} ends at {when}: or --early REASON")
                ends = local(day["deadline"], config.game.zone, with_zone=True)
                fail(said.format(game=game, day=row.state.day if row.state else "?", when=ends))
        before = early and day is not None and moment < day["deadline"]
        told = Early(reason=(early or "").strip(), at=moment.isoformat()) if before else None
        with game_client(config, store) as client, page_progress(_("reading the day")) as progress:
            client.login()
            imported()
            from forumbot.host import games

            draft = games.end_day(store, game, client, early=told, now=moment, progress=progress)
    if as_json:
        print_json(zoned_summary(draft.summary(), config.game.zone))
        return
    show_draft(game, draft, approved_by=None, zone=config.game.zone)


@draft_app.command("show")
def draft_show_command(
    game: Annotated[str, typer.Argument(help="The game.")],
    state: StateOption = None,
    to_moderators: Annotated[
        bool, typer.Option("--to-moderators", help="Also PM the draft to the config's moderators.")
    ] = False,
    as_json: JsonOption = False,
    now: NowOption = None,
) -> None:
    """The draft outcome, the audit, and the BBCode the host would post."""

    with host_errors():
        store = open_store(state)
        row, config = load_game(store, game)
        draft = store.draft(row.id, row.state.day) if row.state is not None else None
        if draft is None:
            fail(_("{game}: no draft for the current day (forumbot end-day {game})").format(game=game))
    if as_json:
        zone = config.game.zone
        data = zoned_summary(draft.draft.summary(), zone) | {"subject": draft.draft.subject, "post": draft.draft.post}
        made = {"created_at": in_zone_iso(draft.created_at, zone), "approved_at": in_zone_iso(draft.approved_at, zone)}
        print_json(
            data
            | made
            | {"approved_by": draft.approved_by, "next_deadline": in_zone_iso(draft.draft.next_deadline, zone)}
        )
        return
    show_draft(game, draft.draft, approved_by=draft.approved_by, zone=config.game.zone)
    from forumbot.host.approval import rejections

    for nick, comment in rejections(store, row.id, draft.draft.day, draft):
        say(_("REJECTED by {nick}: {comment}").format(nick=nick, comment=comment))
    out.print("")
    out.print(draft.draft.bbcode, markup=False)
    if to_moderators:
        send_draft(game, state, now)


@draft_app.command("html")
def draft_html_command(
    game: Annotated[str, typer.Argument(help="The game.")],
    out_file: Annotated[Path, typer.Argument(metavar="OUT.html", help="Where to write the page.")],
    to_moderators: Annotated[
        bool, typer.Option("--to-moderators", help="Also PM the draft to the moderators of the config.")
    ] = False,
    state: StateOption = None,
    now: NowOption = None,
) -> None:
    """The draft as one self-contained HTML page for the moderators: the post as the forum shows it, the
    audit with links to the posts, and a chart of the day's votes over time."""
    from forumbot.render.preview import render_preview_html

    with host_errors():
        store = open_store(state)
        row, config = load_game(store, game)
        draft = store.draft(row.id, row.state.day) if row.state is not None else None
        if row.state is None or draft is None:
            fail(_("{game}: no draft for the current day (forumbot end-day {game})").format(game=game))
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
        fail(_("cannot write {path}: {error}").format(path=out_file, error=exc))
    said = _("{game}: preview of day {day} written to {path}")
    out.print(said.format(game=game, day=draft.draft.day, path=out_file), markup=False)
    if to_moderators:
        send_draft(game, state, now)


@draft_app.command("approve")
def draft_approve_command(
    game: Annotated[str, typer.Argument(help="The game.")],
    by: Annotated[str, typer.Option("--by", help="The approving moderator's name.")],
    state: StateOption = None,
    now: NowOption = None,
) -> None:
    """A moderator's approval of the current draft (stored with time and name)."""
    from forumbot.host import games

    with host_errors():
        store = open_store(state)
        _row, config = load_game(store, game)
        current_time(now, config.game.zone)
        games.approve(store, game, by)
    out.print(_("{game}: draft approved by {nick}").format(game=game, nick=by), markup=False)


@draft_app.command("send")
def draft_send_command(
    game: Annotated[str, typer.Argument(help="The game.")], state: StateOption = None, now: NowOption = None
) -> None:
    """PM the current draft to the moderators of the config (each version of the draft once)."""
    send_draft(game, state, now)


def send_draft(game: str, state: Path | None, now: str | None) -> None:
    from forumbot.host.publish import send_draft_to_moderators

    with host_errors():
        store = open_store(state)
        _row, config = load_game(store, game)
        current_time(now, config.game.zone)
    with host_errors(), game_client(config, store) as client:
        sent = send_draft_to_moderators(store, game, client)
    _tell_draft_sent(sent)


def _tell_draft_sent(sent: DraftSent) -> None:
    """What the board did with each draft PM, as the outbox knows it; an error when one did not go: 2 when
    the board refused it for good, 75 when it waits for a passing cause (run the command again later)."""
    game, day = sent.game, sent.day
    if sent.delivered:
        if sent.already:
            said = _("{game}: this draft of day {day} was sent to {nicks} already")
        else:
            said = _("{game}: the draft of day {day} is sent to {nicks}")
        out.print(said.format(game=game, day=day, nicks=", ".join(sent.delivered)), markup=False)
    for nick, why in sent.refused:
        said = _("{game}: the draft of day {day} is NOT sent to {nick}: {error}")
        err.print(said.format(game=game, day=day, nick=nick, error=why), markup=False)
    for nick in sent.waiting:
        said = _("{game}: the draft of day {day} is not sent to {nick} yet (forumbot outbox {game})")
        err.print(said.format(game=game, day=day, nick=nick), markup=False)
    missing = [nick for nick, _why in sent.refused] + list(sent.waiting)
    if missing:
        said = _("{game}: the draft of day {day} did not reach {nicks}")
        code = EXIT_HOST if sent.refused else EXIT_TEMPFAIL
        fail(said.format(game=game, day=day, nicks=", ".join(missing)), code)


@app.command("publish")
def publish_command(
    game: Annotated[str, typer.Argument(help="The game.")],
    no_roles: Annotated[
        bool, typer.Option("--no-roles", help="The role PMs were sent by hand: the bot never sends them.")
    ] = False,
    flood_interval: Annotated[
        float | None,
        typer.Option(help="The forum's flood interval in seconds (default: the config's, else learned)."),
    ] = None,
    state: StateOption = None,
    now: NowOption = None,
    as_json: JsonOption = False,
) -> None:
    """Post the approved day: the new topic, the old one locked, the PMs that are due (roles never sent,
    checks, role changes, the reveal at the end); then open the next day. Before the first draft: the
    opening (day 1's topic with the commitment, the roles). Safe to run again after any failure."""
    from forumbot.forum.registry import poster_for
    from forumbot.host.publish import publish as publish_day

    with host_errors():
        store = open_store(state)
        row, config = load_game(store, game)
    idle = _nothing_to_publish(store, row)
    if idle is not None:
        if as_json:
            print_json({"game": game, "nothing_to_do": idle})
        else:
            say(f"{game}: {idle}")
        return
    with (
        host_errors(),
        game_client(config, store) as client,
        sending(poster_for(client, flood_interval=_flood(flood_interval, config))) as poster,
    ):
        moment = current_time(now, config.game.zone)
        report = publish_day(store, game, client, moment, poster=poster, roles=not no_roles)
    if as_json:
        print_json(asdict(report) | {"sent_now": poster.counts})
        return
    print_publish_report(report)
    out.print(poster.summary(), markup=False)


def _flood(given: float | None, config: GameConfig) -> float | None:
    """The board's flood interval: the command's, else the config's, else None (learned from the board)."""
    return given if given is not None else config.forum.flood_interval


def _nothing_to_publish(store: Store, row: GameRow) -> str | None:
    """Why a publish run has nothing to do (everything due is out and no approved draft waits), or None."""
    if row.state is None or store.pending(row.id, "publish"):
        return None
    if row.state.winner != "none":
        return _("the game is over and everything is published; nothing to do")
    day = store.day(row.id, row.state.day)
    if row.state.day == 1 or store.draft(row.id, row.state.day) is not None or day is None or not day["topic"]:
        return None
    said = _("nothing to publish: day {day} (topic {topic}) has no approved draft yet")
    return said.format(day=row.state.day, topic=day["topic"])


@app.command("watch")
def watch_command(
    game: Annotated[str, typer.Argument(help="The game.")],
    every: Annotated[str, typer.Option(help="Time between passes (s, m or h).")] = "10m",
    once: Annotated[bool, typer.Option("--once", help="One pass, then exit (for cron).")] = False,
    state: StateOption = None,
    now: Annotated[str | None, typer.Option("--now", help="One pass as if it were this moment (ISO).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="One pass; print what it did as JSON.")] = False,
) -> None:
    """Between day ends: order receipts, PM commands and relays, interim vote counts, the deadline's draft
    (and, where the config asks, the reminder before the deadline and the lock at it)."""
    from forumbot.forum.registry import poster_for
    from forumbot.host import watch
    from forumbot.host.publish import publish as publish_day

    interval = parse_every(every)
    with host_errors():
        store = open_store(state)
        _row, config = load_game(store, game)
    zone = config.game.zone

    def moment() -> datetime:
        return current_time(now, zone)

    with host_errors(), game_client(config, store) as client:
        poster = poster_for(client, flood_interval=config.forum.flood_interval)  # one for every pass: what it learns

        def publish_now() -> object:
            return publish_day(store, game, client, moment(), poster=poster)

        def run_pass() -> PassReport:  # the loop retries a passing fault; the rest ends in host_errors
            return watch.watch_once(store, game, client, poster, moment(), publish=publish_now)

        if once or now is not None or as_json:
            report = run_pass()
            if as_json:
                print_json({"at": moment().astimezone(zone).isoformat()} | asdict(report))
            else:
                _log_pass(report, moment(), zone)
            _fail_on_draft_not_sent(game, report)
            return
        watch.watch_loop(
            run_pass,
            interval,
            on_report=lambda report: _log_pass(report, moment(), zone),
            on_error=lambda exc, wait: err.print(
                f"{log_stamp(moment(), zone)}: "
                + _("pass failed ({error}); trying again in {seconds:.0f} s").format(error=exc, seconds=wait),
                markup=False,
            ),
        )


def log_stamp(at: datetime, zone: ZoneInfo) -> str:
    """The moment a line of the watch's log is about: date, time and zone, so a kept log reads alone."""
    return f"{at.astimezone(zone):%Y-%m-%d %H:%M:%S} {zone_name(zone, at)}"


def _log_pass(report: PassReport, at: datetime, zone: ZoneInfo) -> None:
    did = [
        ngettext("{n} PM handled", "{n} PMs handled", len(report.handled)).format(n=len(report.handled)),
        ngettext("{n} sent", "{n} sent", len(report.sent)).format(n=len(report.sent)),
        *([_("interim count")] if report.interim_count else []),
        *([_draft_line(report)] if report.drafted else []),
        *([_("published")] if report.published else []),
        *([_("the game started")] if report.started else []),
    ]
    busy = report.handled or report.sent or report.interim_count or report.drafted or report.published
    out.print(
        f"{log_stamp(at, zone)}: " + (", ".join(did) if busy else _("nothing to do")),
        markup=False,
    )
    for letter in report.draft:  # what the board did with each draft PM, as the outbox knows it
        if letter.status == "sent":
            out.print(_("the draft is sent to {nick}").format(nick=letter.moderator), markup=False)
            continue
        if letter.status in ("refused", "dropped"):
            said = _("the draft is NOT sent to {nick}: {error}").format(nick=letter.moderator, error=letter.error)
        else:
            said = _("the draft is not sent to {nick} yet; the next pass tries again").format(nick=letter.moderator)
        err.print(_("problem: {problem}").format(problem=said), markup=False)
    for note in report.notes:  # news, not trouble: a verdict, a publication finished
        out.print(note, markup=False)
    for problem in report.problems:
        err.print(_("problem: {problem}").format(problem=problem), markup=False)


def _draft_line(report: PassReport) -> str:
    if report.draft and all(letter.status == "sent" for letter in report.draft):
        return _("draft made and sent to the moderators")
    return _("draft made")


def _fail_on_draft_not_sent(game: str, report: PassReport) -> None:
    """A single pass (`--once`) exits non-zero when a draft PM it was to send did not go: 2 when the board
    refused it for good, 75 when it waits for a passing cause."""
    missing = [letter for letter in report.draft if letter.status != "sent"]
    if not missing:
        return
    refused = any(letter.status in ("refused", "dropped") for letter in missing)
    said = _("{game}: the draft did not reach {nicks}").format(game=game, nicks=", ".join(x.moderator for x in missing))
    fail(said, EXIT_HOST if refused else EXIT_TEMPFAIL)


@app.command("relays")
def relays_command(
    game: Annotated[str, typer.Argument(help="The game.")], state: StateOption = None, as_json: JsonOption = False
) -> None:
    """The host's audit of the letters players relayed through the bot (#mail, #mafia, #jakudza, #wall)."""
    import json

    with host_errors():
        store = open_store(state)
        row, config = load_game(store, game)
        found = store.relays(row.id)
    zone = config.game.zone
    if as_json:
        print_json(zoned_rows([r | {"recipients": json.loads(r["recipients"])} for r in found], zone, "at"))
        return
    title = _("{game}: relayed letters ({times})").format(game=game, times=times_in(zone))
    columns = (_("day"), _("PM"), _("from"), _("kind"), _("to"), _("status"), _("at"))
    shown = table(title, *columns)
    for r in found:
        to = names(json.loads(r["recipients"]))
        shown.add_row(
            *plain(str(r["day"]), str(r["pm_id"]), r["sender"], r["kind"], to, r["status"], local(r["at"], zone))
        )
    out.print(shown if found else _("{game}: no relayed letters").format(game=game))


@app.command("account")
def account_command(
    game: Annotated[str, typer.Argument(help="The game whose forum and account to look at.")],
    date_format: Annotated[
        str | None,
        typer.Option(help="Store this date format on the bot's account, e.g. 'd.m.Y H:i:s' (every date exact)."),
    ] = None,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Change the format without asking (for scripts).")] = False,
    state: StateOption = None,
    now: NowOption = None,
) -> None:
    """The bot account's language, time zone and date format as the board keeps them, the zone checked
    against the config's [forum] timezone as the watch checks it (exit code 2 when they disagree); with
    --date-format, change the format (phpBB's relative formats print fresh PMs as "5 минут назад": only an
    interval)."""
    from forumbot.forum.client import AccountPreferences
    from forumbot.forum.poster import DateFormatting
    from forumbot.forum.registry import poster_for

    with host_errors():
        store = open_store(state)
        _row, config = load_game(store, game)
    with host_errors(), game_client(config, store) as client:
        if not isinstance(client, AccountPreferences):
            fail(_("{game}: this board keeps no preferences of the account (phpBB boards do)").format(game=game))
        prefs = client.preferences()
        _print_preferences(client.account or "", prefs, client.relative_format(prefs.dateformat or ""))
        moment = current_time(now, config.game.zone)
        mismatch = zone_mismatch(config.forum.timezone, prefs.tz, client.account or "", moment)
        if date_format is not None and date_format != prefs.dateformat:
            question = _("Store the date format {format!r} on {account}?").format(
                format=date_format, account=client.account
            )
            if not yes and not typer.confirm(question):
                fail(_("nothing changed"), code=1)
            poster = poster_for(client)
            if not isinstance(poster, DateFormatting):
                fail(_("{game}: this board keeps no date format of the account").format(game=game))
            after = poster.set_date_format(date_format)
            out.print(_("the date format is now {format!r}").format(format=after.dateformat), markup=False)
        if mismatch is not None:  # as the watch would refuse it at its first read of a PM
            raise mismatch


def zone_mismatch(configured: str | None, board: str | None, account: str, at: datetime) -> ConfigError | None:
    """`[forum] timezone` against the zone the board prints the account's dates in, compared as the readers
    compare them (by the offset now): the error the watch would stop with, or None when they agree or
    either is unknown. Unset, the board's zone is used, and that is said."""
    from forumbot.errors import ConfigError
    from forumbot.forum.client import offset_text, zone_named

    if not board:
        return None
    try:
        theirs = zone_named(board)
    except ConfigError:
        return None  # a zone the board names in its own way: the readers go by its footer
    if not configured:
        said = _(
            "[forum] timezone is not set: forumbot reads the board's dates in the account's zone, {zone} ({offset})"
        )
        out.print(said.format(zone=board, offset=offset_text(theirs, at)), markup=False)
        return None
    mine = zone_named(configured)
    if mine.utcoffset(at) == theirs.utcoffset(at):
        return None
    return ConfigError(
        N_(
            "[forum] timezone = {tz} ({offset_text}), but the board prints the dates of {value} in "
            "{told}: set [forum] timezone to the board's zone, or change the account's zone on the "
            "board"
        ),
        tz=configured,
        offset_text=offset_text(mine, at),
        value=account or "this account",
        told=f"{board} ({offset_text(theirs, at)})",
    )


def _print_preferences(account: str, prefs: Any, relative: bool) -> None:
    said = _("{account}: language {lang}, time zone {zone}, date format {format!r}")
    out.print(said.format(account=account, lang=prefs.lang, zone=prefs.tz, format=prefs.dateformat), markup=False)
    if prefs.dateformat and relative:
        out.print(
            _(
                "fresh dates are printed relative ('менее минуты назад'): forumbot asks the board for the exact time "
                "of a PM near a deadline; a format with seconds (--date-format 'd.m.Y H:i:s') makes every date exact"
            ),
            markup=False,
        )


def zoned_summary(summary: dict[str, Any], zone: ZoneInfo) -> dict[str, Any]:
    """A draft's summary for JSON: the times of its votes and orders in the game's zone, with the offset."""
    return summary | {key: zoned_rows(summary[key], zone, "time") for key in ("votes", "orders") if key in summary}
