"""What a board's answer to a write proves, whatever its engine: one typed outcome.

Every engine's `answers.py` reads the board's answer to a post, a reply or a PM (pure functions, the
answer in, one of these out) and its `writer.py` acts on it:

- `Stored`: the board stored it; `remote_id` is the new post's, topic's or PM's id (None: the answer names
  none, e.g. a PM whose id the board does not show);
- `RefusedForGood`: the board refused it and will refuse it again (`said`: the board's words; `why`: the
  kind of refusal); nothing was stored, or (held for approval) it must not be sent again;
- `RefusedForNow`: the board refused it for the moment (flood control, a form too old, posts to review, a
  server too busy: 429 or 503 with `Retry-After`): try again after `wait` seconds (None: the writer's own
  interval). A busy server may have acted before it answered so: what it refused is looked for first;
- `LoggedOut`: the board asked for a login instead (a login page in answer to a write): maybe sent, so
  the writer logs in again and looks for the marker before anything is sent again;
- `Unknown`: nothing in the answer proves either way: maybe sent. It is settled by looking for the marker,
  never by sending again blindly. `why` says what kind of doubt: a whole page that proves nothing
  ("unproven": an unknown message), the board's "the form was invalid" ("form_invalid": phpBB stores
  nothing then, but a request replayed on the way may have been stored) or an answer that stopped before
  its page did ("cut").

`refusal_error` turns a refusal into the exception of the error tree (`forumbot.errors`) a caller expects.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from forumbot.errors import (
    ForumError,
    HeldForApproval,
    NoPermission,
    NotLoggedIn,
    Rejected,
    TooManyRecipients,
    UnknownRecipient,
)

__all__ = [
    "Doubt",
    "Later",
    "LoggedOut",
    "Outcome",
    "Refusal",
    "RefusedForGood",
    "RefusedForNow",
    "Stored",
    "Unknown",
    "refusal_error",
]

# Why a board refused for good: the account may not; no such recipient; more recipients than it takes;
# stored but held for a moderator; the topic is locked to the account; any other refusal, in the board's words.
Refusal = Literal[
    "no_permission", "unknown_recipient", "too_many_recipients", "held_for_approval", "locked", "rejected"
]
# Why a board refused for now: flood control; a form too old or too young; new posts shown for review; the
# server too busy (429 or 503, with `Retry-After` when it says how long).
Later = Literal["flood", "form_invalid", "review", "busy"]
# What kind of doubt an unknown answer leaves (see the module's doc).
Doubt = Literal["unproven", "form_invalid", "cut"]


@dataclass(frozen=True)
class Stored:
    remote_id: int | None = None


@dataclass(frozen=True)
class RefusedForGood:
    said: str
    why: Refusal = "rejected"
    limit: int | None = None  # too_many_recipients: how many the board takes


@dataclass(frozen=True)
class RefusedForNow:
    why: Later
    said: str = ""
    wait: float | None = None  # seconds the board asks for (None: it does not say)


@dataclass(frozen=True)
class LoggedOut:
    said: str = ""


@dataclass(frozen=True)
class Unknown:
    said: str = ""
    why: Doubt = "unproven"


Outcome = Stored | RefusedForGood | RefusedForNow | LoggedOut | Unknown

_ERRORS: dict[Refusal, type[ForumError]] = {
    "no_permission": NoPermission,
    "unknown_recipient": UnknownRecipient,
    "held_for_approval": HeldForApproval,
    "locked": NoPermission,
    "rejected": Rejected,
}


def refusal_error(outcome: RefusedForGood | LoggedOut, message: str) -> ForumError:
    """The error of the tree for a refusal, carrying `message` (which names where and what)."""
    if isinstance(outcome, LoggedOut):
        return NotLoggedIn(message)
    if outcome.why == "too_many_recipients":
        return TooManyRecipients(message, outcome.limit or 0)
    return _ERRORS[outcome.why](message)
