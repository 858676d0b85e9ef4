"""Moderators approve the day's draft from the forum: they answer the bot's draft PM.

The draft PM names the draft by a short code (in its subject, which a reply keeps as "Re: ..."). A PM from a
moderator the game's config lists, whose first line (quotes left out) is a verdict, decides:
    Одобряю / approve              the draft is approved, who and when recorded
    Отклоняю <why> / reject <why>  the draft stays unapproved, the comment goes into the day's audit for the host
A verdict counts only for the draft its code names, and only while that draft is the current one: an
approval of a draft that end-day has replaced since approves nothing, and the moderator is told so.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import partial

from forumbot.draft import StoredDraft
from forumbot.extract.verdicts import Verdict, read_verdict
from forumbot.i18n import gettext
from forumbot.render import moderators as said_to
from forumbot.store import Change, Store, write_approval, write_override


def draft_version(stored: StoredDraft) -> str:
    """What tells one draft from another (a new end-day makes a new one): its draft PMs' markers carry it."""
    return hashlib.sha256(f"{stored.created_at}\n{stored.draft.bbcode}".encode()).hexdigest()[:16]


def draft_code(stored: StoredDraft) -> str:
    """The short public name of one draft, in its PM's subject: the start of its version."""
    return draft_version(stored)[:8]


def draft_subject(game: str, day: int, stored: StoredDraft) -> str:
    # the code first: boards cut a PM's subject (IPB to 40 characters), and a reply keeps only what is left
    return said_to.draft_subject(draft_code(stored), game, day)


@dataclass(frozen=True)
class Decision:
    """What a verdict does: the changes to the state file, the answer to the moderator (under the whole
    subject of the draft it speaks of: the game, the day, the code), and what the host is told: news of a
    verdict (`note`), or a verdict that decided nothing (`problem`)."""

    changes: list[Change]
    answer: str
    subject: str
    note: str = ""
    problem: str = ""
    stale: bool = False  # the verdict names no current draft: the moderator gets the current one


def decide(game_id: int, game: str, day: int, stored: StoredDraft | None, moderator: str, verdict: Verdict) -> Decision:
    """Apply a moderator's verdict to the day's current draft, if it names it."""
    if stored is None:
        return Decision([], said_to.no_draft(day), said_to.draft_subject(None, game, day))
    code = draft_code(stored)
    subject = said_to.draft_subject(code, game, day)
    if code not in verdict.codes:
        named = ", ".join(verdict.codes) or gettext("none")
        answer = said_to.not_the_current_draft(day, verdict.codes, code)
        said = (
            gettext("day {day}: {nick}'s approval names draft {named}, not {code}")
            if verdict.kind == "approve"
            else gettext("day {day}: {nick}'s rejection names draft {named}, not {code}")
        )
        problem = said.format(day=day, nick=moderator, named=named, code=code)
        return Decision([], answer, subject, problem=problem, stale=True)
    if verdict.kind == "approve":
        if stored.approved_by:
            return Decision([], said_to.already_approved(code, stored.approved_by), subject)
        change = partial(write_approval, game_id=game_id, day=day, created_at=stored.created_at, by=moderator)
        note = gettext("day {day}: draft {code} approved by {nick}").format(day=day, code=code, nick=moderator)
        return Decision([change], said_to.approved(code), subject, note=note)
    reason = verdict.comment or said_to.NO_COMMENT
    change = partial(
        write_override, game_id=game_id, day=day, kind="rejected", subject=code, value=None, reason=reason, by=moderator
    )
    note = gettext("day {day}: draft {code} rejected by {nick}: {reason}")
    return Decision(
        [change], said_to.rejected(code), subject, note=note.format(day=day, code=code, nick=moderator, reason=reason)
    )


def rejections(store: Store, game_id: int, day: int, stored: StoredDraft) -> list[tuple[str, str]]:
    """The moderators' rejections of this very draft, (who, his comment), in the order they came: the stored
    draft was made before them, so its own audit cannot hold them."""
    code = draft_code(stored)
    return [
        (o.by, o.reason)
        for o in store.overrides(game_id, day)
        if o.kind == "rejected" and o.subject == code
    ]


__all__ = [
    "Decision",
    "Verdict",
    "decide",
    "draft_code",
    "draft_subject",
    "draft_version",
    "read_verdict",
    "rejections",
]
