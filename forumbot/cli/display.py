"""What the commands print: tables, the draft, the publish report, the vote count.

Player text is printed as typed and isolated (`bidi.isolate`): a nick like "[b]x" is not rich markup, and
one that holds a right-to-left override turns nothing around outside its cell or line.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import datetime
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from rich.table import Table
from rich.text import Text

from forumbot.cli.common import err, out
from forumbot.render.bidi import isolate, isolate_within

if TYPE_CHECKING:
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


def local(moment: datetime | str | None, zone: ZoneInfo, with_zone: bool = False) -> str:
    """A moment (or an interval "a/b") as a host reads it: day, month, hour and minute in the game's zone (its
    name with `with_zone`; a table names the zone once, in its title)."""
    if moment is None or moment == "":
        return ""
    if isinstance(moment, str) and "/" in moment:
        return " – ".join(local(part, zone) for part in moment.split("/", 1)) + (f" ({zone.key})" if with_zone else "")
    when = datetime.fromisoformat(moment) if isinstance(moment, str) else moment
    if when.tzinfo is None:
        return str(moment)
    if not with_zone:  # a table's cell: its title names the zone, and the year is the game's
        return f"{when.astimezone(zone):%d.%m %H:%M}"
    return f"{when.astimezone(zone):%d.%m.%Y %H:%M} ({zone.key})"


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
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def print_mismatches(result: ScenarioResult) -> None:
    out.print(f"FAIL {result.scenario.path} ({result.scenario.name})", markup=False)
    for m in result.mismatches:
        out.print(
            f"  day {m.day} {m.key}: expected {show_value(m.expected)}, actual {show_value(m.actual)}", markup=False
        )


def print_tally(result: Tally, zone: ZoneInfo) -> None:
    votes = table(f"Голоса (times {zone.key})", "post", "voter", "target", "time", "counted", "why not")
    for r in result.records:
        why = (r.reason or "") + (f" (nearest: {r.nearest})" if r.nearest else "")
        votes.add_row(*plain(str(r.post_id), r.voter, r.target, local(r.time, zone), "yes" if r.counted else "", why))
    out.print(votes)
    counts = table("Итог", "player", "votes", "voters")
    for target, who in result.voters.items():
        mark = " ←" if target == result.leader else ""
        counts.add_row(*plain(isolate(target) + mark, str(len(who)), names(who)))
    out.print(counts)
    if result.not_voting:
        out.print("not voting: " + names(result.not_voting), markup=False)


def show_draft(game: str, draft: DayDraft, approved_by: str | None, zone: ZoneInfo | None = None) -> None:
    """The draft for the host: decisions, the audit tables, the notes; every time in `zone` (the game's)."""
    zone = zone or ZoneInfo("UTC")
    status = f"approved by {approved_by}" if approved_by else "NOT approved"
    say(f"{game}, day {draft.day} — draft, {status}")
    if draft.early is not None:
        out.print(
            f"made before the deadline (at {local(draft.early.at, zone, with_zone=True)}): {draft.early.reason}",
            markup=False,
        )
    if draft.next_deadline:
        say(f"the post gives day {draft.day + 1} until {local(draft.next_deadline, zone, True)}")
    everyone = list(draft.state.nicks())
    deaths = ", ".join(f"{isolate(n)} ({c})" for n, c in draft.deaths.items()) or "nobody"
    say(f"deaths: {deaths}; winner: {draft.winner}")
    if draft.checks:
        checks = ", ".join(f"{isolate(n)}: {isolate_within(str(r), everyone)}" for n, r in draft.checks.items())
        say("checks (private): " + checks)
    _print_draft_votes(draft, zone)
    _print_draft_orders(draft)
    _print_draft_notes(draft, everyone, zone)


def _print_draft_votes(draft: DayDraft, zone: ZoneInfo) -> None:
    votes = table(f"votes (times {zone.key})", "voter", "target", "time", "counted", "why not", "post")
    for v in draft.votes:
        why = (v.reason or "") + (f" (nearest: {v.nearest})" if v.nearest else "")
        where = str(v.post_id) if v.post_id is not None else short_ref(v.link)
        votes.add_row(*plain(v.voter, v.target or "", local(v.time, zone), "yes" if v.counted else "", why, where))
    out.print(votes)


def _print_draft_orders(draft: DayDraft) -> None:
    orders = table("orders", "actor", "action", "targets", "valid", "why not", "where")
    for o in draft.orders:
        why = (o.reason or "") + (f" (nearest: {o.nearest})" if o.nearest else "")
        row = (o.actor, o.action or "", names(o.targets), "yes" if o.valid else "", why, short_ref(o.link))
        orders.add_row(*plain(*row))
    for x in draft.void:
        orders.add_row(*plain(x.actor, x.action, names(x.targets), "", x.reason, short_ref(x.ref)))
    out.print(orders)


def _print_draft_notes(draft: DayDraft, everyone: list[str], zone: ZoneInfo) -> None:
    activity = ", ".join(f"{isolate(n)}: {a.posts} posts, {a.orders} PMs" for n, a in draft.activity.items())
    say(f"activity: {activity}")
    for problem in draft.page_problems:
        say(f"UNREADABLE POST {isolate_within(str(problem), everyone)}")
    for pm in draft.unread_pms:
        sender, subject = isolate(str(pm.get("sender"))), isolate(str(pm.get("subject")))
        say(f"UNREAD PM {pm.get('pm_id')} from {sender} ({subject}): {pm.get('reason')}")
    for warning in draft.warnings:
        say(f"WARNING {isolate_within(warning, everyone)}")
    for note in [isolate_within(n, everyone) for n in draft.inactivity] + [
        _override_note(o.kind, o.subject, o.value, o.by, o.reason, zone) for o in draft.overrides
    ]:
        say(f"note: {note}")
    for e in draft.events:
        parts = [e.kind, isolate(e.actor or ""), "→", isolate(e.target or ""), e.detail]
        say("event: " + " ".join(p for p in parts if p))


def _override_note(kind: str, subject: str, value: str | None, by: str, reason: str, zone: ZoneInfo) -> str:
    if kind == "deadline":  # subject: the new deadline, value: the old one
        moved = f"the deadline moved from {local(value, zone, True)} to {local(subject, zone, True)}"
        return f"{moved} by {isolate(by)} — {reason}"
    return f"override by {isolate(by)}: {kind} {isolate(subject)} — {reason}"


def short_ref(link: str | None) -> str:
    """Where a row came from, short enough for a table: a link's query ("p=12#p12", "i=pm&p=7")."""
    if not link:
        return ""
    from urllib.parse import urlsplit

    parts = urlsplit(link)
    return (parts.query + (f"#{parts.fragment}" if parts.fragment else "")) or link


def print_publish_report(report: PublishReport) -> None:
    for label in report.sent:
        say(f"sent: {label}")
    for label in report.recovered:
        say(f"found on the forum (sent before an interruption): {label}")
    if report.skipped:
        say(f"done by an earlier run: {len(report.skipped)}")
    if report.locked:
        say("the previous day's topic is locked")
    for note in report.notes:
        err.print(f"note: {note}", markup=False)
    if report.winner != "none":
        say(f"{report.game}: the game is over — {report.winner}; final topic {report.topic_id}")
    elif report.new_day is not None:
        say(f"{report.game}: day {report.new_day} is open in topic {report.topic_id}")
    elif report.topic_id is not None:
        say(f"{report.game}: day {report.day} is in topic {report.topic_id}")
