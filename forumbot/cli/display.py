"""What the commands print: tables, the draft, the publish report, the vote count.

Player text is printed as typed and isolated (`bidi.isolate`): a nick like "[b]x" is not rich markup, and
one that holds a right-to-left override turns nothing around outside its cell or line.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from rich.cells import cell_len
from rich.table import Table
from rich.text import Text

from forumbot.cli import words
from forumbot.cli.common import err, out
from forumbot.i18n import _, ngettext, russian
from forumbot.render.bidi import isolate, isolate_within

if TYPE_CHECKING:
    from zoneinfo import ZoneInfo

    from forumbot.draft import DayDraft
    from forumbot.host.publish import PublishReport
    from forumbot.host.tally import Tally
    from forumbot.scenario import ScenarioResult


def plain(*values: str) -> list[Text]:
    """Table cells that show player text as typed."""
    return [Text(isolate(v)) for v in values]


def names(nicks: Iterable[str]) -> str:
    """Nicks in one line, each isolated (`bidi.isolate`): none turns the others around."""
    return ", ".join(isolate(n) for n in nicks)


def table(title: str, *columns: str) -> Table:
    """A table that folds its cells to fit the terminal (80 columns too) instead of cutting them."""
    shown = Table(title=title)
    for column in columns:
        shown.add_column(column, overflow="fold")
    return shown


def zone_name(zone: ZoneInfo, at: datetime | None = None) -> str:
    """The game's zone as the host knows it: its name (Europe/Moscow) in English, as the posts name it in
    Russian (МСК, else its offset: UTC+5)."""
    if not russian():
        return zone.key
    from forumbot.render.phrases import zone_label

    return zone_label(zone, at)


def print_long_table(title: str, columns: Sequence[str], rows: Callable[[], Iterable[Sequence[str]]]) -> None:
    """A table of many rows as plain text: the title, the column names, and each row on a line of its own,
    every cell isolated (`bidi.isolate`) and padded to its column's widest cell. `rows` is read twice (the
    widths, then the lines), so no row is kept."""
    widths = [cell_len(c) for c in columns]
    for row in rows():
        for i, cell in enumerate(row):
            widths[i] = max(widths[i], cell_len(isolate(cell)))
    write = out.file.write

    def line(cells: Iterable[str]) -> None:
        write("  ".join(c + " " * (w - cell_len(c)) for c, w in zip(cells, widths, strict=True)).rstrip() + "\n")

    write(title + "\n")
    line(columns)
    line("-" * w for w in widths)
    for row in rows():
        line(isolate(cell) for cell in row)
    out.file.flush()


def local(moment: datetime | str | None, zone: ZoneInfo, with_zone: bool = False) -> str:
    """A moment (or an interval "a/b") as a host reads it, the same way in every command: day, month, hour and
    minute in the game's zone; with `with_zone` the year and the zone's name too (a table names the zone once,
    in its title: `times_in`)."""
    if moment is None or moment == "":
        return ""
    if isinstance(moment, str) and "/" in moment:
        return " – ".join(local(part, zone) for part in moment.split("/", 1)) + (
            f" ({zone_name(zone)})" if with_zone else ""
        )
    when = datetime.fromisoformat(moment) if isinstance(moment, str) else moment
    if when.tzinfo is None:
        return str(moment)
    if not with_zone:  # a table's cell: its title names the zone, and the year is the game's
        return f"{when.astimezone(zone):%d.%m %H:%M}"
    return f"{when.astimezone(zone):%d.%m.%Y %H:%M} ({zone_name(zone, when)})"


def times_in(zone: ZoneInfo) -> str:
    """A table title's note of the zone its times are in."""
    return _("times {zone}").format(zone=zone_name(zone))


def in_zone_iso(moment: datetime | str | None, zone: ZoneInfo) -> str | None:
    """A moment (or an interval "a/b") for JSON: ISO 8601 in the game's zone, with its offset."""
    if moment is None or moment == "":
        return None
    if isinstance(moment, str) and "/" in moment:
        return "/".join(in_zone_iso(part, zone) or "" for part in moment.split("/", 1))
    when = datetime.fromisoformat(moment) if isinstance(moment, str) else moment
    return when.astimezone(zone).isoformat() if when.tzinfo is not None else str(moment)


def say(text: str) -> None:
    """A line for the host, folded to the terminal's width (80 columns when not on one)."""
    out.print(text, markup=False, soft_wrap=False)


def zoned_rows(rows: list[dict[str, Any]], zone: ZoneInfo, *keys: str) -> list[dict[str, Any]]:
    """JSON rows with their moments (`keys`) in the game's zone, ISO with the offset."""
    return [
        row | {k: in_zone_iso(row[k], zone) for k in keys if isinstance(row.get(k), str) and row[k]} for row in rows
    ]


def show_value(value: Any) -> str:
    import json  # here: json and zoneinfo are no part of --help

    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def mismatch(day: int, key: str, expected: Any, actual: Any) -> str:
    """A scenario's expectation that did not hold."""
    return _("day {day} {key}: expected {expected}, actual {actual}").format(
        day=day, key=key, expected=show_value(expected), actual=show_value(actual)
    )


def print_mismatches(result: ScenarioResult) -> None:
    out.print(_("FAIL {path} ({name})").format(path=result.scenario.path, name=result.scenario.name), markup=False)
    for m in result.mismatches:
        out.print("  " + mismatch(m.day, m.key, m.expected, m.actual), markup=False)


def why_not(reason: str, nearest: str | None) -> str:
    """A reason, and the nick a typo was nearest to."""
    return reason + (" (" + _("nearest: {nick}").format(nick=nearest) + ")" if nearest else "")


def print_tally(result: Tally, zone: ZoneInfo) -> None:
    def rows() -> Iterator[tuple[str, ...]]:
        for r in result.records:
            why = why_not(words.reason(r.reason), r.nearest)
            yield str(r.post_id), r.voter, r.target, local(r.time, zone), words.yes(r.counted), why

    # A day's audit runs to 20,000 rows: written as plain aligned lines, one at a time (a rich table of them
    # costs seconds and megabytes to lay out).
    columns = (_("post"), _("voter"), _("target"), _("time"), _("counted"), _("why not"))
    print_long_table(_("Votes ({times})").format(times=times_in(zone)), columns, rows)
    counts = table(_("Count"), _("player"), _("votes"), _("voters"))
    for target, who in result.voters.items():
        mark = " ←" if target == result.leader else ""
        counts.add_row(*plain(isolate(target) + mark, str(len(who)), names(who)))
    out.print(counts)
    if result.not_voting:
        out.print(_("not voting: {nicks}").format(nicks=names(result.not_voting)), markup=False)


def show_draft(game: str, draft: DayDraft, approved_by: str | None, zone: ZoneInfo | None = None) -> None:
    """The draft for the host: decisions, the audit tables, the notes; every time in `zone` (the game's)."""
    if zone is None:
        from zoneinfo import ZoneInfo

        zone = ZoneInfo("UTC")
    status = _("approved by {nick}").format(nick=approved_by) if approved_by else _("NOT approved")
    say(_("{game}, day {day} — draft, {status}").format(game=game, day=draft.day, status=status))
    if draft.early is not None:
        out.print(
            _("made before the deadline (at {when}): {reason}").format(
                when=local(draft.early.at, zone, with_zone=True), reason=draft.early.reason
            ),
            markup=False,
        )
    if draft.next_deadline:
        say(
            _("the post gives day {day} until {when}").format(
                day=draft.day + 1, when=local(draft.next_deadline, zone, True)
            )
        )
    everyone = list(draft.state.nicks())
    deaths = ", ".join(f"{isolate(n)} ({words.cause(c)})" for n, c in draft.deaths.items()) or _("nobody")
    say(_("deaths: {deaths}; winner: {winner}").format(deaths=deaths, winner=words.winner(draft.winner)))
    if draft.checks:
        checks = ", ".join(f"{isolate(n)}: {isolate_within(_checked(r), everyone)}" for n, r in draft.checks.items())
        say(_("checks (private): {checks}").format(checks=checks))
    _print_draft_votes(draft, zone)
    _print_draft_orders(draft)
    _print_draft_notes(draft, everyone, zone)


def _checked(result: Any) -> str:
    """A check's result (a role, or several): in the host's words."""
    results = result if isinstance(result, list) else [result]
    return ", ".join(words.role(str(r)) for r in results)


def _print_draft_votes(draft: DayDraft, zone: ZoneInfo) -> None:
    columns = (_("voter"), _("target"), _("time"), _("counted"), _("why not"), _("post"))
    votes = table(_("votes ({times})").format(times=times_in(zone)), *columns)
    for v in draft.votes:
        why = why_not(words.reason(v.reason, v.get("why")), v.nearest)
        where = str(v.post_id) if v.post_id is not None else short_ref(v.link)
        votes.add_row(*plain(v.voter, v.target or "", local(v.time, zone), words.yes(v.counted), why, where))
    out.print(votes)


def _print_draft_orders(draft: DayDraft) -> None:
    columns = (_("actor"), _("action"), _("targets"), _("valid"), _("why not"), _("where"))
    orders = table(_("orders"), *columns)
    for o in draft.orders:
        why = why_not(words.reason(o.reason, o.get("why"), order=True), o.nearest)
        row = (o.actor, words.action(o.action), names(o.targets), words.yes(o.valid), why, short_ref(o.link))
        orders.add_row(*plain(*row))
    for x in draft.void:
        why = words.reason(x.reason, x.why, order=x.action != "vote")
        orders.add_row(*plain(x.actor, words.action(x.action), names(x.targets), "", why, short_ref(x.ref)))
    out.print(orders)


def _print_draft_notes(draft: DayDraft, everyone: list[str], zone: ZoneInfo) -> None:
    activity = ", ".join(
        f"{isolate(n)}: " + ngettext("{n} post", "{n} posts", a.posts).format(n=a.posts)
        + ", " + ngettext("{n} PM", "{n} PMs", a.orders).format(n=a.orders)
        for n, a in draft.activity.items()
    )  # fmt: skip
    say(_("activity: {activity}").format(activity=activity))
    for problem in draft.page_problems:
        say(_("UNREADABLE POST {problem}").format(problem=isolate_within(str(problem), everyone)))
    for pm in draft.unread_pms:
        sender, subject = isolate(str(pm.get("sender"))), isolate(str(pm.get("subject")))
        said = _("UNREAD PM {pm} from {sender} ({subject}): {reason}")
        say(said.format(pm=pm.get("pm_id"), sender=sender, subject=subject, reason=pm.get("reason")))
    for warning in draft.warnings:
        say(_("WARNING {warning}").format(warning=isolate_within(warning, everyone)))
    for note in [isolate_within(n, everyone) for n in draft.inactivity] + [
        _override_note(o.kind, o.subject, o.value, o.by, o.reason, zone) for o in draft.overrides
    ]:
        say(_("note: {note}").format(note=note))
    for e in draft.events:
        detail = "" if russian() else e.detail  # the engine says an event's detail in English only
        extra = ", ".join(x for x in (words.role(e.role or ""), words.cause(e.cause)) if x) if russian() else ""
        parts = [words.event(e.kind), isolate(e.actor or ""), "→", isolate(e.target or ""), detail]
        parts += [f"({extra})"] if extra else []
        say(_("event: {event}").format(event=" ".join(p for p in parts if p)))


def _override_note(kind: str, subject: str, value: str | None, by: str, reason: str, zone: ZoneInfo) -> str:
    if kind == "deadline":  # subject: the new deadline, value: the old one
        said = _("the deadline moved from {before} to {after} by {nick} — {reason}")
        return said.format(
            before=local(value, zone, True), after=local(subject, zone, True), nick=isolate(by), reason=reason
        )
    said = _("override by {nick}: {kind} {subject} — {reason}")
    return said.format(nick=isolate(by), kind=kind, subject=isolate(subject), reason=reason)


def short_ref(link: str | None) -> str:
    """Where a row came from, short enough for a table: a link's query ("p=12#p12", "i=pm&p=7")."""
    if not link:
        return ""
    from urllib.parse import urlsplit

    parts = urlsplit(link)
    return (parts.query + (f"#{parts.fragment}" if parts.fragment else "")) or link


def print_publish_report(report: PublishReport) -> None:
    for label in report.sent:
        say(_("sent: {what}").format(what=label))
    for label in report.recovered:
        say(_("found on the forum (sent before an interruption): {what}").format(what=label))
    if report.skipped:
        say(_("done by an earlier run: {n}").format(n=len(report.skipped)))
    if report.locked:
        say(_("the previous day's topic is locked"))
    for note in report.notes:
        err.print(_("note: {note}").format(note=note), markup=False)
    if report.winner != "none":
        said = _("{game}: the game is over — {winner}; final topic {topic}")
        say(said.format(game=report.game, winner=words.winner(report.winner), topic=report.topic_id))
    elif report.new_day is not None:
        said = _("{game}: day {day} is open in topic {topic}")
        say(said.format(game=report.game, day=report.new_day, topic=report.topic_id))
    elif report.topic_id is not None:
        say(_("{game}: day {day} is in topic {topic}").format(game=report.game, day=report.day, topic=report.topic_id))
