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
import re
from dataclasses import dataclass
from functools import partial
from typing import Literal

from forumbot.draft import StoredDraft
from forumbot.i18n import gettext
from forumbot.posts import PrivateMessage
from forumbot.store import Change, write_approval, write_override

APPROVE = frozenset({"одобряю", "одобрено", "одобрен", "approve", "approved"})
REJECT = frozenset({"отклоняю", "отклонено", "отклонён", "reject", "rejected"})
_CODE = re.compile(r"\[([0-9a-f]{8})\]")
_WORD = re.compile(r"[\w-]+")


def draft_version(stored: StoredDraft) -> str:
    """What tells one draft from another (a new end-day makes a new one): its draft PMs' markers carry it."""
    return hashlib.sha256(f"{stored.created_at}\n{stored.draft.bbcode}".encode()).hexdigest()[:16]


def draft_code(stored: StoredDraft) -> str:
    """The short public name of one draft, in its PM's subject: the start of its version."""
    return draft_version(stored)[:8]


def draft_subject(game: str, day: int, stored: StoredDraft) -> str:
    # the code first: boards cut a PM's subject (IPB to 40 characters), and a reply keeps only what is left
    return f"[{draft_code(stored)}] {game}: черновик итогов дня {day}"


@dataclass(frozen=True)
class Verdict:
    kind: Literal["approve", "reject"]
    comment: str
    codes: tuple[str, ...]  # the draft codes the message names (its subject first)


def read_verdict(pm: PrivateMessage) -> Verdict | None:
    """The moderator's verdict in a PM, or None when its first line is none (quoted text never counts)."""
    lines = [line.strip() for line in pm.body_text.splitlines() if line.strip()]
    if not lines:
        return None
    first = lines[0]
    word = _WORD.match(first.casefold())
    if word is None or word.group(0) not in APPROVE | REJECT:
        return None
    kind: Literal["approve", "reject"] = "approve" if word.group(0) in APPROVE else "reject"
    comment = " ".join([first[word.end() :].strip(" :,.-—"), *lines[1:]]).strip()
    codes = tuple(dict.fromkeys(_CODE.findall(pm.subject) + _CODE.findall(pm.body_text)))
    return Verdict(kind, comment, codes)


@dataclass(frozen=True)
class Decision:
    """What a verdict does: the changes to the state file, the answer to the moderator, the host's note."""

    changes: list[Change]
    answer: str
    note: str


def decide(game_id: int, day: int, stored: StoredDraft | None, moderator: str, verdict: Verdict) -> Decision:
    """Apply a moderator's verdict to the day's current draft, if it names it."""
    if stored is None:
        return Decision([], f"Сейчас нет черновика итогов дня {day}: решать нечего.", "")
    code = draft_code(stored)
    if code not in verdict.codes:
        named = ", ".join(verdict.codes) or "никакого"
        answer = (
            f"Ваш ответ относится не к текущему черновику дня {day} (в письме назван: {named}; текущий: {code}). "
            "Ответьте на письмо с текущим черновиком."
        )
        said = (
            gettext("day {day}: {nick}'s approval names draft {named}, not {code}")
            if verdict.kind == "approve"
            else gettext("day {day}: {nick}'s rejection names draft {named}, not {code}")
        )
        return Decision([], answer, said.format(day=day, nick=moderator, named=named, code=code))
    if verdict.kind == "approve":
        if stored.approved_by:
            return Decision([], f"Черновик {code} уже одобрен: {stored.approved_by}.", "")
        change = partial(write_approval, game_id=game_id, day=day, created_at=stored.created_at, by=moderator)
        note = gettext("day {day}: draft {code} approved by {nick}").format(day=day, code=code, nick=moderator)
        return Decision([change], f"Черновик {code} одобрен. Спасибо!", note)
    reason = verdict.comment or "без комментария"
    change = partial(
        write_override, game_id=game_id, day=day, kind="rejected", subject=code, value=None, reason=reason, by=moderator
    )
    return Decision(
        [change],
        f"Черновик {code} отклонён; ведущий увидит ваш комментарий.",
        gettext("day {day}: draft {code} rejected by {nick}: {reason}").format(
            day=day, code=code, nick=moderator, reason=reason
        ),
    )
