"""One outbox for everything the bot writes to the forum: day topics, replies, PMs and locks, from
`publish` and from the watch alike. Each is delivered exactly once:

1. intend: the letter is in the state file (status `pending`) before anything is sent; the watch queues
   its answers in the same transaction as the decision that needs them;
2. send: the status becomes `sending`, then the forum is asked;
3. confirm: `sent`, with the forum's id of what it made;
4. find after a crash: a letter left `sending` (the process died, or the forum's answer never came) is
   looked for on the forum by its marker before it is sent again.

Preparing is not sending: while one letter waits for its turn, a writer that can (phpBB's poster,
`Preparing`) addresses the compose forms of the PMs that come next (`upcoming`, up to `ahead` of
them), so that phpBB's one-second form rule is waited out once for several letters. Only that step,
which sends nothing, happens early; the marks, the checkpoints and the submissions stay one letter at
a time, in order, and a form prepared for a letter that is never sent is simply dropped.

A permanent refusal (the account may not, the recipient does not exist) sets the letter aside
(`refused`, with the forum's words) and the rest goes on; a passing fault (the forum down, flood
control) leaves it due for the next run, with the order kept.

Markers are made from a secret of the game kept in the state file (HMAC-SHA256), never from public
data: no player can write a marker of a message the bot has yet to send, so a letter relayed by the bot
cannot make it believe a PM was sent. A marker is looked for only in what the bot's own account wrote,
addressed as the letter is.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from forumbot.errors import (
    ForumError,
    HeldForApproval,
    MaybeSent,
    NoPermission,
    ParseError,
    TooManyRecipients,
    UnknownRecipient,
)
from forumbot.forum.poster import Poster, Preparing
from forumbot.i18n import N_
from forumbot.store import Letter, Store

__all__ = ["Delivery", "Outbox", "Poster", "Preparing", "marker_line", "markers_for", "strip_markers", "with_marker"]

MARKER_PREFIX = "fbm"
MARKER = re.compile(r"fb(?:m|-)[0-9a-f]{16,64}")
# PMs prepared ahead of the one being sent: a PM costs about three round trips once its form is old
# enough (0.15 s at 50 ms), so eight forms in hand cover phpBB's 1.1 s form age.
PREPARE_AHEAD = 8
Checkpoint = Callable[[str], None]


def _no_checkpoint(step: str) -> None:
    return None


# --- markers -------------------------------------------------------------------------------------------


def markers_for(key: str) -> Callable[..., str]:
    """The game's marker maker: the same parts give the same marker; without the key nobody can."""
    secret = key.encode()

    def make(*parts: object) -> str:
        message = "\x1f".join(map(str, parts)).encode("utf-8")
        return MARKER_PREFIX + hmac.new(secret, message, hashlib.sha256).hexdigest()[:24]

    return make


def marker_line(marker: str) -> str:
    """The marker as BBCode that phpBB renders invisibly (white, 1% size) and keeps in the page's text:
    letters and digits only, so no smiley, link or tag can form."""
    return f"[size=1][color=#ffffff]{marker}[/color][/size]"


def with_marker(body: str, marker: str) -> str:
    return f"{body.rstrip()}\n\n{marker_line(marker)}\n"


def strip_markers(text: str) -> str:
    """A player's text with anything shaped like a marker taken out (a relayed letter must not carry one)."""
    return MARKER.sub("", text)


# --- the forum side ------------------------------------------------------------------------------------


# Refusals that another attempt will not change: set the letter aside, tell the host, go on.
PERMANENT: tuple[type[Exception], ...] = (NoPermission, TooManyRecipients, UnknownRecipient, HeldForApproval)


def is_permanent(exc: Exception) -> bool:
    return isinstance(exc, PERMANENT)


@dataclass(frozen=True)
class Delivery:
    """What became of one letter: sent now, found (sent before an interruption), done earlier, or
    refused for good; `remote_id` is the forum's id of what was made."""

    letter: Letter
    how: str  # sent | recovered | skipped | refused
    remote_id: str | None = None
    error: str | None = None


@dataclass
class Outbox:
    """The game's outbox over one writer. `checkpoint(step)` is called right after a letter is marked
    `sending` ("before …") and right after the forum confirmed it ("after …"): tests crash there."""

    store: Store
    game_id: int
    writer: Poster
    checkpoint: Checkpoint = _no_checkpoint
    delivered: list[Delivery] = field(default_factory=list)
    ahead: int = PREPARE_AHEAD  # PMs prepared beyond the one being sent (0: none)

    def deliver(
        self,
        letter: Letter,
        *,
        label: str | None = None,
        aliases: Sequence[str] = (),
        upcoming: Sequence[Letter] = (),
    ) -> Delivery:
        """Send `letter` exactly once (see the module's doc). `aliases`: markers an older version gave the
        same letter, so that what it sent is not sent again. `upcoming`: the letters to be delivered after
        it, in order, whose PMs the writer may prepare meanwhile (never send)."""
        label = label or f"{letter.kind} {letter.marker}"
        current = self.store.letter(letter.marker, self.game_id)
        older = next((row for alias in aliases if (row := self.store.letter(alias, self.game_id)) is not None), None)
        # what an older version sent or set aside settles it, even if the letter was queued again since
        known = older if older is not None and (current is None or older.status in ("sent", "refused")) else current
        if known is not None and known.status == "sent":
            return self._record(Delivery(letter, "skipped", known.remote_id))
        if known is not None and known.status == "refused":
            return self._record(Delivery(letter, "refused", None, known.error))
        if known is not None and known.marker != letter.marker:
            letter = _renamed(letter, known.marker)  # keep the older marker: that is what may be on the forum
        if known is not None and known.attempted:
            remote = self._find(letter)
            if remote is not None:
                self.store.sent(letter.marker, remote)
                return self._record(Delivery(letter, "recovered", remote))
        if known is None:
            self.store.queue(self.game_id, [letter])
        self._prepare(letter, upcoming)
        self.store.sending(letter.marker)
        self.checkpoint(f"before {label}")
        try:
            remote = self._send(letter)
        except ForumError as exc:
            if is_permanent(exc):
                self.store.refused(letter.marker, str(exc))
                return self._record(Delivery(letter, "refused", None, str(exc)))
            self.store.failed(letter.marker, str(exc))
            raise
        except ParseError as exc:  # an answer that reads as nothing: said with the letter it answered (still
            raise ParseError(
                N_("{label}: {error}"), label=label, error=exc
            ) from None  # `sending`: the next try looks for it first)
        self.checkpoint(f"after {label}")
        self.store.sent(letter.marker, remote)
        return self._record(Delivery(letter, "sent", remote))

    def flush(self, origin: str = "watch") -> list[Delivery]:
        """Deliver what is queued, oldest first. A letter refused for good is set aside and the rest goes
        on; a passing fault stops the flush (the order is kept) and is raised for the caller to retry."""
        pending = self.store.pending(self.game_id, origin)
        return [self.deliver(letter, upcoming=pending[n + 1 :]) for n, letter in enumerate(pending)]

    def _prepare(self, letter: Letter, upcoming: Sequence[Letter]) -> None:
        """Let the writer address this PM and the next `ahead` ones still due (not sent, not set aside,
        not cut off mid-send: those are looked for first). A writer that cannot prepare is left alone."""
        if self.ahead <= 0 or not isinstance(self.writer, Preparing):
            return
        due = [later for later in upcoming if later.kind == "pm" and self._due(later)][: self.ahead]
        plan = ([letter] if letter.kind == "pm" else []) + due
        if plan:
            self.writer.prepare_pms([later.recipients for later in plan])

    def _due(self, letter: Letter) -> bool:
        known = self.store.letter(letter.marker, self.game_id)
        return known is None or known.status == "pending"

    def _record(self, delivery: Delivery) -> Delivery:
        self.delivered.append(delivery)
        return delivery

    def _send(self, letter: Letter) -> str | None:
        w, to = self.writer, letter.recipients
        if letter.kind == "topic":
            return str(w.post_topic(int(to[0]), letter.subject, letter.body, marker=letter.marker))
        if letter.kind == "reply":
            return str(w.post_reply(to[0], letter.subject, letter.body, marker=letter.marker))
        if letter.kind == "lock":
            forum_id = int(to[1]) if len(to) > 1 and to[1] else None
            result = w.lock_topic(int(to[0]), forum_id)
            if not result.locked:
                raise NoPermission(result.reason or "the board did not lock the topic")
            return "already locked" if result.already else "locked"
        pm_id = w.send_pm(to, letter.subject, letter.body, marker=letter.marker)
        return str(pm_id) if pm_id is not None else None

    def _find(self, letter: Letter) -> str | None:
        """A letter whose send was cut off, on the forum already? Only what the bot's own account wrote,
        addressed as the letter is, counts. A lock is not looked for: locking twice is harmless."""
        w, to = self.writer, letter.recipients
        try:
            if letter.kind == "topic":
                found = w.find_marker_in_forum(int(to[0]), letter.subject, letter.marker)
            elif letter.kind == "reply":
                found = w.find_marker_in_topic(int(to[0]), letter.marker)
            elif letter.kind == "pm":
                found = w.find_marker_in_sent(letter.marker, subject=letter.subject, recipients=to)
            else:
                return None
        except (ParseError, ForumError) as exc:
            if isinstance(exc, MaybeSent):
                raise
            raise ForumError(
                N_("looking for {marker} on the forum before sending it again: {error}"),
                marker=letter.marker,
                error=exc,
            ) from exc
        return str(found) if found is not None else None


def _renamed(letter: Letter, marker: str) -> Letter:
    return replace(letter, marker=marker, body=letter.body.replace(letter.marker, marker))
