"""The day's draft: what end-day decided and the moderators approve, typed, written once and read by all.

`end-day` writes a `DayDraft`; the CLI, the moderators' preview and `publish` read it. The post's subject
and body are rendered once, at end-day: the moderators approve the post exactly as it will be published.
The audit rows (every vote and every PM line seen, the votes and orders the rules voided, the overrides)
keep any field an earlier version wrote, so drafts stored by earlier versions still load.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from forumbot.engine.model import Cause, CheckResult, DayOutcome, Event, GameState, Reason, Winner


class _Row(BaseModel):
    """An audit row: its known fields typed, any other an earlier version wrote kept as it was."""

    model_config = ConfigDict(extra="allow")

    def get(self, key: str, default: Any = None) -> Any:
        """A field by name, as templates and older readers ask for it (None when absent)."""
        value = getattr(self, key, None)
        if value is None and self.model_extra:
            value = self.model_extra.get(key)
        return default if value is None else value

    def as_made(self) -> dict[str, Any]:
        """The fields given when the row was made or set since (JSON values), as `forumbot orders --json` lists
        them: a field the row never had is not listed."""
        return self.model_dump(mode="json", exclude_unset=True)


class OverrideRow(_Row):
    """A decision of the host or a moderator applied to the day: who, why, when."""

    kind: str
    subject: str
    value: str | None = None
    reason: str = ""
    by: str = ""
    at: str | None = None


class VoteRow(_Row):
    """A vote seen in the day thread or a PM, counted or not, and why."""

    voter: str
    target: str | None = None
    time: str | None = None  # ISO, with its offset
    counted: bool = False
    reason: str | None = None
    post_id: int | str | None = None
    link: str | None = None
    channel: str | None = None  # thread | pm
    text: str | None = None
    nearest: str | None = None
    edited_by: str | None = None
    why: Reason | None = None  # the rules' reason, typed (then `reason` is its English text)
    decided: OverrideRow | None = None  # the decision that made the row as it is (then `reason` says it in words)


class OrderRow(_Row):
    """An order line of a PM (or a line that was not understood), valid or not, and why."""

    actor: str
    action: str | None = None
    targets: list[str] = Field(default_factory=list)
    time: str | None = None
    link: str | None = None
    valid: bool = False
    reason: str | None = None
    line: str | None = None  # the line as written, when it was not understood
    nearest: str | None = None
    why: Reason | None = None  # the rules' reason, typed (then `reason` is its English text)
    pm_id: int | None = None  # the PM the line was read from (drafts of earlier versions: absent)
    decided: OverrideRow | None = None  # the decision that made the row as it is (then `reason` says it in words)


class VoidRow(_Row):
    """A vote or order the rules voided that has no row of its own above (an override's, say)."""

    kind: str
    actor: str
    action: str
    targets: list[str] = Field(default_factory=list)
    reason: str = ""
    ref: str | None = None
    why: Reason | None = None


class Activity(_Row):
    """A living player's posts in the day thread and PMs sent, inside the day."""

    posts: int = 0
    orders: int = 0


class Early(_Row):
    """An end-day run before the deadline, and the host's reason."""

    reason: str
    at: str


class DayDraft(BaseModel):
    """The draft of one day: the outcome, the audit, and the post as it will be published."""

    model_config = ConfigDict(extra="ignore")

    day: int
    deaths: dict[str, Cause] = Field(default_factory=dict)
    checks: dict[str, CheckResult | list[CheckResult]] = Field(default_factory=dict)
    winner: Winner = "none"
    executed: list[str] = Field(default_factory=list)
    tally: dict[str, int] = Field(default_factory=dict)
    votes: list[VoteRow] = Field(default_factory=list)
    orders: list[OrderRow] = Field(default_factory=list)
    void: list[VoidRow] = Field(default_factory=list)
    overrides: list[OverrideRow] = Field(default_factory=list)
    activity: dict[str, Activity] = Field(default_factory=dict)
    inactivity: list[str] = Field(default_factory=list)
    events: list[Event] = Field(default_factory=list)
    bbcode: str = ""  # the day post's template output
    subject: str | None = None  # the new topic's subject (None: a draft of an earlier version)
    post: str | None = None  # the body as it will be posted (None: a draft of an earlier version)
    state: GameState
    unread_pms: list[dict[str, Any]] = Field(default_factory=list)
    page_problems: list[Any] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    early: Early | None = None
    next_deadline: str | None = None  # ISO: the next day's deadline as the post tells it (advance keeps it)

    def outcome(self) -> DayOutcome:
        """The day's outcome as the draft holds it (enough for the titles and the private messages)."""
        return DayOutcome(
            day=self.day,
            deaths=self.deaths,
            checks=self.checks,
            winner=self.winner,
            executed=tuple(self.executed),
            tally=self.tally,
            events=tuple(self.events),
            state=self.state,
        )

    def to_json(self) -> dict[str, Any]:
        """The draft as stored (JSON values)."""
        return self.model_dump(mode="json")

    def summary(self) -> dict[str, Any]:
        """What `end-day --json` prints: the decisions and the audit of votes and orders."""
        data = self.to_json()
        return {k: data[k] for k in ("day", "deaths", "checks", "winner", "votes", "orders")}


@dataclass(frozen=True)
class StoredDraft:
    """A draft as the state file keeps it: when it was made and who approved it."""

    draft: DayDraft
    created_at: str
    approved_by: str | None
    approved_at: str | None
