"""A moderator's verdict on a day's draft, read from his answer to the draft PM: the game's grammar of approval.

The first line (quotes left out) decides: «Одобряю» (or its forms, or `approve`) approves, «Отклоняю» (or
`reject`) rejects, and the rest of the line and the lines after it are the comment. The draft is named by the
short codes in brackets the message carries (its subject first: a reply keeps it as "Re: ...").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from forumbot.posts import PrivateMessage

APPROVE = frozenset({"одобряю", "одобрено", "одобрен", "approve", "approved"})
REJECT = frozenset({"отклоняю", "отклонено", "отклонён", "reject", "rejected"})
_CODE = re.compile(r"\[([0-9a-f]{8})\]")
_WORD = re.compile(r"[\w-]+")


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
