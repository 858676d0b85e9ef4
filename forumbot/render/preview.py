"""The moderators' review of a day's draft: ONE self-contained HTML page (inline CSS, inline SVG, no
external resources, no scripts).

    render_preview_html(game_name, payload) -> str

It shows the post as the forum would show it (the draft's BBCode through `bbcode.to_html`), a chart of
the day's votes over time (`#vote-chart`: one row per voter, x = time, marks coloured by target, filled
when counted, hollow when not), and the audit: every vote seen with whether it counted and why not, every
order valid or void and why, overrides, activity, inactivity notes, PMs and posts that could not be read,
the private results and the resolution's events. Every value from the payload is HTML-escaped; links are
kept only when they are http(s) or relative.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta, tzinfo
from typing import Any

import jinja2
from markupsafe import Markup, escape

from forumbot.draft import DayDraft, OverrideRow
from forumbot.render.audit import decided_by, decision_subject, decision_value, decision_word
from forumbot.render.bbcode import to_html, unescape
from forumbot.render.bidi import isolate, isolate_within
from forumbot.render.nicks import flags
from forumbot.render.phrases import zone_label
from forumbot.render.wording import CAUSES, action_word, audit_reason

PALETTE: tuple[str, ...] = (
    "#d62728",
    "#1f77b4",
    "#2ca02c",
    "#9467bd",
    "#ff7f0e",
    "#17becf",
    "#8c564b",
    "#e377c2",
    "#bcbd22",
    "#393b79",
    "#637939",
    "#843c39",
)
_TAGS = re.compile(r"\[/?[a-z*]+(?:=[^\]]*)?\]", re.I)
_STEPS_MIN = (1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720, 1440, 2880)


# --- the chart ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Mark:
    voter: str
    target: str
    time: datetime
    counted: bool
    reason: str | None
    link: str | None
    channel: str


def _moment(text: Any, tz: tzinfo | None) -> datetime | None:
    if not isinstance(text, str) or not text:
        return None
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    if tz is not None and moment.tzinfo is not None:
        moment = moment.astimezone(tz)
    return moment


def chart_marks(votes: Iterable[dict[str, Any]], tz: tzinfo | None = None) -> list[Mark]:
    marks: list[Mark] = []
    for v in votes:
        moment = _moment(v.get("time"), tz)
        if moment is None:
            continue
        marks.append(
            Mark(
                voter=str(v.get("voter") or "?"),
                target=str(v.get("target") or "?"),
                time=moment,
                counted=bool(v.get("counted")),
                reason=v.get("reason"),
                link=v.get("link"),
                channel=str(v.get("channel") or "thread"),
            )
        )
    return sorted(marks, key=lambda m: m.time)


def target_colors(marks: Iterable[Mark]) -> dict[str, str]:
    """A colour per target: the most voted-for get the most distinct colours."""
    counted: dict[str, int] = {}
    seen: dict[str, int] = {}
    for m in marks:
        seen.setdefault(m.target, len(seen))
        counted[m.target] = counted.get(m.target, 0) + (1 if m.counted else 0)
    ordered = sorted(seen, key=lambda t: (-counted[t], seen[t]))
    colors: dict[str, str] = {}
    for i, target in enumerate(ordered):
        if i < len(PALETTE):
            colors[target] = PALETTE[i]
        else:
            colors[target] = f"hsl({(i * 137) % 360}, 55%, 45%)"
    return colors


def _step(span: timedelta) -> timedelta:
    minutes = max(span.total_seconds() / 60, 1)
    for step in _STEPS_MIN:
        if minutes / step <= 8:
            return timedelta(minutes=step)
    return timedelta(minutes=_STEPS_MIN[-1])


def _ticks(t0: datetime, t1: datetime) -> list[datetime]:
    step = _step(t1 - t0)
    seconds = int(step.total_seconds())
    offset = t0.utcoffset() or timedelta(0)
    local = t0.timestamp() + offset.total_seconds()
    first = math.ceil(local / seconds) * seconds - offset.total_seconds()
    ticks: list[datetime] = []
    moment = datetime.fromtimestamp(first, t0.tzinfo)
    while moment <= t1:
        ticks.append(moment)
        moment += step
    return ticks


def render_chart_svg(
    votes: Iterable[dict[str, Any]], *, tz: tzinfo | None = None, deadline: datetime | None = None
) -> tuple[Markup, dict[str, str]]:
    """The day's votes over time as inline SVG (`svg#vote-chart.vote-chart`), and the target colours."""
    marks = chart_marks(votes, tz)
    colors = target_colors(marks)
    voters: list[str] = []
    for m in marks:
        if m.voter not in voters:
            voters.append(m.voter)
    label_w, plot_w, row_h, top, bottom = 190, 760, 26, 16, 44
    width = label_w + plot_w + 30
    height = top + max(len(voters), 1) * row_h + bottom
    parts: list[str] = [
        f'<svg id="vote-chart" class="vote-chart" xmlns="http://www.w3.org/2000/svg" width="{width}" '
        f'height="{height}" viewBox="0 0 {width} {height}" role="img" aria-label="Голоса дня по времени">',
        f'<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>',
    ]
    if not marks:
        parts.append(f'<text x="{label_w}" y="{top + 18}" class="empty">Голосов со временем нет.</text></svg>')
        return Markup("".join(parts)), colors
    if deadline is not None and tz is not None:
        deadline = deadline.astimezone(tz)
    t0, t1 = marks[0].time, marks[-1].time
    span = max(t1 - t0, timedelta(minutes=1))
    if deadline is not None and t0 - span <= deadline <= t1 + span:
        t1 = max(t1, deadline)
        t0 = min(t0, deadline)
    span = max(t1 - t0, timedelta(minutes=1))
    t0, t1 = t0 - span * 0.03, t1 + span * 0.03
    total = (t1 - t0).total_seconds()

    def x(moment: datetime) -> float:
        return round(label_w + (moment - t0).total_seconds() / total * plot_w, 1)

    plot_bottom = top + len(voters) * row_h
    for row in range(0, len(voters), 2):
        parts.append(f'<rect x="0" y="{top + row * row_h}" width="{width}" height="{row_h}" class="band"/>')
    days_differ = t0.date() != t1.date()
    for tick in _ticks(t0, t1):
        tx = x(tick)
        label = tick.strftime("%d.%m %H:%M" if days_differ else "%H:%M")
        parts.append(f'<line x1="{tx}" y1="{top}" x2="{tx}" y2="{plot_bottom}" class="grid"/>')
        parts.append(f'<text x="{tx}" y="{plot_bottom + 16}" text-anchor="middle" class="tick">{label}</text>')
    if deadline is not None and t0 <= deadline <= t1:
        dx = x(deadline)
        parts.append(f'<line x1="{dx}" y1="{top - 6}" x2="{dx}" y2="{plot_bottom}" class="deadline"/>')
        parts.append(
            f'<text x="{dx}" y="{plot_bottom + 32}" text-anchor="middle" class="deadline-label">'
            f"конец дня {deadline:%H:%M}</text>"
        )
    zone = f" ({escape(zone_label(tz, t1))})" if tz is not None else ""
    parts.append(f'<text x="{label_w - 8}" y="{plot_bottom + 16}" text-anchor="end" class="tick">время{zone}</text>')
    for row, voter in enumerate(voters):
        y = top + row * row_h + row_h / 2
        mine = [m for m in marks if m.voter == voter]
        parts.append(
            f'<text x="{label_w - 8}" y="{y + 4}" text-anchor="end" class="voter">'
            f"{escape(isolate(_short(voter, 26)))}</text>"
        )
        if len(mine) > 1:
            parts.append(f'<line x1="{x(mine[0].time)}" y1="{y}" x2="{x(mine[-1].time)}" y2="{y}" class="track"/>')
        last_label = -1e9
        for i, m in enumerate(mine):
            mx = x(m.time)
            room = x(mine[i + 1].time) - mx if i + 1 < len(mine) else 1e9
            color = colors[m.target]
            state = "counted" if m.counted else "void"
            why = "засчитан" if m.counted else f"не засчитан: {audit_reason(m.reason)}"
            tooltip = f"{isolate(m.voter)} → {isolate(m.target)}, {m.time:%d.%m %H:%M:%S}, {why}"
            fill = color if m.counted else "#ffffff"
            dash = "" if m.counted else ' stroke-dasharray="2 2"'
            parts.append(
                f'<g class="mark {state}" data-voter="{escape(m.voter)}" data-target="{escape(m.target)}" '
                f'data-counted="{str(m.counted).lower()}"><title>{escape(tooltip)}</title>'
                f'<circle cx="{mx}" cy="{y}" r="{7 if m.counted else 6}" fill="{fill}" stroke="{color}" '
                f'stroke-width="2"{dash}/></g>'
            )
            if mx - last_label > 70 and room > 75:
                parts.append(
                    f'<text x="{mx + 10}" y="{y + 4}" class="mark-label{"" if m.counted else " void"}" '
                    f'fill="{color}">{escape(isolate(_short(m.target, 14)))}</text>'
                )
                last_label = mx
    parts.append("</svg>")
    return Markup("".join(parts)), colors


def _short(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _why(row: dict[str, Any]) -> str:
    """An audit row's reason in Russian: the rules' typed reason where the row has one, else the decision that
    made it so (`render.audit.row_reason`, for the payload's rows)."""
    decided = row.get("decided")
    if decided and not row.get("why"):
        return decided_by(OverrideRow.model_validate(decided))
    return audit_reason(row.get("reason"), row.get("why"), order="actor" in row)


# --- the page -----------------------------------------------------------------------------------------


def safe_link(link: Any) -> str | None:
    """A link fit for an href: http(s), or relative to the forum; anything else (javascript:, pm:1) is
    shown as text only."""
    if not isinstance(link, str) or not link:
        return None
    lowered = link.strip().lower()
    if lowered.startswith(("http://", "https://", "./", "/")) and not lowered.startswith("//"):
        return link.strip()
    return None


def nick_html(value: Any) -> Markup:
    """A nick in the page: escaped, and isolated (`<bdi>`) so that it cannot turn the rest of its line around."""
    return Markup("<bdi>") + escape("" if value is None else str(value)) + Markup("</bdi>")


def flagged_nick_html(value: Any, lookalikes: dict[str, str]) -> Markup:
    """A nick with its look-alike note (`render.nicks`): "Bepa (лат.)", "Вера (похож на: Bepa)"."""
    note = lookalikes.get("" if value is None else str(value))
    if not note:
        return nick_html(value)
    return nick_html(value) + Markup(' <span class="lookalike">(') + escape(note) + Markup(")</span>")


def _environment(nicks: Iterable[str] = (), lookalikes: dict[str, str] | None = None) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("forumbot.render", "templates"),
        autoescape=True,
        undefined=jinja2.ChainableUndefined,  # payloads of older drafts may lack a key: show nothing
        trim_blocks=True,
        lstrip_blocks=True,
    )
    known = list(nicks)
    notes = lookalikes or {}
    env.filters["nick"] = lambda value: flagged_nick_html(value, notes)
    env.filters["isolated"] = lambda text: isolate_within(str(text), known) if text is not None else ""
    env.filters["why"] = _why
    env.filters["action"] = action_word
    env.filters["cause"] = lambda c: CAUSES.get(c, c)
    env.globals["safe_link"] = safe_link
    return env


def _fmt_time(text: Any, tz: tzinfo | None) -> str:
    moment = _moment(text, tz)
    return moment.strftime("%d.%m %H:%M:%S") if moment is not None else ""


def render_preview_html(
    game_name: str,
    draft: DayDraft,
    *,
    tz: tzinfo | None = None,
    deadline: datetime | None = None,
    approved_by: str | None = None,
    subject: str | None = None,
) -> str:
    """The draft of a day as one self-contained HTML page for the moderators: the post as it will be
    published (subject and body as end-day made them), the chart and the audit."""
    payload = draft.to_json()
    bbcode = draft.post or draft.bbcode
    title = subject or draft.subject or _title_from(bbcode) or f"{game_name}. День {payload.get('day', 0) + 1}"
    chart, colors = render_chart_svg(payload.get("votes") or [], tz=tz, deadline=deadline)
    votes = payload.get("votes") or []
    players = (payload.get("state") or {}).get("players") or []
    nicks = {str(p.get("nick")) for p in players if isinstance(p, dict)}
    counted: dict[str, int] = {}
    for v in votes:
        if v.get("counted"):
            target = str(v.get("target"))
            counted[target] = counted.get(target, 0) + 1
    context = {
        "game": game_name,
        "day": payload.get("day"),
        "title": title,
        "approved_by": approved_by,
        "post_html": Markup(to_html(bbcode)),
        "bbcode": bbcode,
        "chart": chart,
        "legend": [(t, c, counted.get(t, 0), bool(nicks) and t not in nicks) for t, c in colors.items()],
        "deaths": payload.get("deaths") or {},
        "executed": payload.get("executed") or [],
        "winner": payload.get("winner") or "none",
        "tally": payload.get("tally") or {},
        "checks": payload.get("checks") or {},
        "votes": [v | {"when": _fmt_time(v.get("time"), tz)} for v in votes],
        "orders": [o | {"when": _fmt_time(o.get("time"), tz)} for o in payload.get("orders") or []],
        "void": payload.get("void") or [],
        "overrides": [
            {
                "by": o.by,
                "what": decision_word(o.kind),
                "whom": decision_subject(o),
                "value": decision_value(o, tz),
                "reason": o.reason,
            }
            for o in draft.overrides
        ],
        "activity": payload.get("activity") or {},
        "inactivity": payload.get("inactivity") or [],
        "unread_pms": payload.get("unread_pms") or [],
        "page_problems": payload.get("page_problems") or [],
        "events": payload.get("events") or [],
        "counted_total": sum(1 for v in votes if v.get("counted")),
        "void_total": sum(1 for v in votes if not v.get("counted")),
        "deadline": deadline.astimezone(tz).strftime("%d.%m.%Y %H:%M") if deadline and tz else None,
        "zone": zone_label(tz, deadline) if tz is not None else None,
    }
    seen = {str(v.get(k)) for v in votes for k in ("voter", "target") if v.get(k)} | nicks
    lookalikes = flags(sorted(nicks), sorted(seen))  # every nick shown gets its look-alike note
    context["lookalikes"] = sorted(lookalikes)
    return _environment(seen, lookalikes).get_template("preview.html.j2").render(context)


def _title_from(bbcode: str) -> str | None:
    """The post's heading line without its tags (drafts made before the subject was stored)."""
    for line in bbcode.splitlines():
        text = unescape(_strip_tags(line)).strip()
        if text:
            return text
    return None


def _strip_tags(line: str) -> str:
    return _TAGS.sub("", line)
