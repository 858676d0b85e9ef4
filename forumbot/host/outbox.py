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

What the board answers decides, as its writer read it (`forumbot.forum.outcome`):
- refused for good (the account may not, the recipient does not exist, the topic is locked, held for a
  moderator, any refusal in the board's words): the letter is set aside (`refused`, with the forum's words)
  and the rest goes on;
- refused for now (flood control that outlasted the writer's waits, a busy board): the letter waits, not
  asked again before the board's `Retry-After` (`not_before`), and is tried again by the next run, the
  order kept;
- maybe sent (a timeout, a reset, a cut answer, a login page, an unknown page): the letter stays `sending`
  and is looked for by its marker before it is sent again. A letter the board answers with pages that
  prove nothing `UNPROVEN_LIMIT` times in a row (nothing of it found each time) is set aside with the
  board's words: a refusal in words nobody taught the bot must not hold the rest back;
- a lock the board did not make is refused for good only when the board said the account may not; any
  other outcome is passing, and the next run tries again;
- an interim count the board handed back because others posted since it was read (`Outdated`) is never
  posted: it is marked `outdated` and its count forgotten, so that the next pass makes it from a fresh read.

The host sees and settles what waits or was set aside (`forumbot outbox GAME`): `retry` makes a letter due
again, looked for first; `drop` sets it aside for good, or records what was done by hand in its place
(a topic posted by hand: its id); each recorded with who and why (`settle`).

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
from datetime import UTC, datetime, timedelta

from forumbot.errors import (
    ForumError,
    HeldForApproval,
    MaybeSent,
    NoPermission,
    Outdated,
    ParseError,
    Rejected,
    StateError,
    TooManyRecipients,
    TryLater,
    UnknownRecipient,
    Unproven,
)
from forumbot.forum.poster import CurrentReplies, Poster, Preparing
from forumbot.i18n import N_, gettext
from forumbot.store import SET_ASIDE, WAITING, Letter, Store

__all__ = [
    "COUNT",
    "UNPROVEN_LIMIT",
    "Delivery",
    "Outbox",
    "Poster",
    "Preparing",
    "marker_line",
    "markers_for",
    "settle",
    "strip_markers",
    "waiting_and_set_aside",
    "with_marker",
]

MARKER_PREFIX = "fbm"
MARKER = re.compile(r"fb(?:m|-)[0-9a-f]{16,64}")
# PMs prepared ahead of the one being sent: a PM costs about three round trips once its form is old
# enough (0.15 s at 50 ms), so eight forms in hand cover phpBB's 1.1 s form age.
PREPARE_AHEAD = 8
UNPROVEN_LIMIT = 3  # answers in a row that prove nothing (and nothing found) before a letter is set aside
COUNT = "count"  # the purpose of an interim vote count's letter: posted only while it is current
Checkpoint = Callable[[str], None]
Clock = Callable[[], datetime]


def _real_now() -> datetime:
    return datetime.now(UTC)


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
PERMANENT: tuple[type[Exception], ...] = (NoPermission, TooManyRecipients, UnknownRecipient, HeldForApproval, Rejected)


def is_permanent(exc: Exception) -> bool:
    return isinstance(exc, PERMANENT)


@dataclass(frozen=True)
class Delivery:
    """What became of one letter: sent now, found (sent before an interruption), done earlier, refused
    for good (set aside), dropped by the host, or outdated (a count made again); `remote_id` is the forum's
    id of what was made."""

    letter: Letter
    how: str  # sent | recovered | skipped | refused | dropped | outdated
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
    now: Clock = _real_now  # the run's time: a board's pause (`not_before`) counts on it

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
        if known is not None and known.status in ("refused", "dropped", "outdated"):
            how = "refused" if known.status == "refused" else known.status
            return self._record(Delivery(letter, how, None, known.error))
        if known is not None and known.marker != letter.marker:
            letter = _renamed(letter, known.marker)  # keep the older marker: that is what may be on the forum
        if known is not None and known.not_before is not None:
            self._wait_for(known, label)
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
        except Outdated as exc:
            self.store.outdated(letter.marker, str(exc))
            return self._record(Delivery(letter, "outdated", None, str(exc)))
        except ForumError as exc:
            return self._failed(letter, exc)
        except ParseError as exc:  # an answer that reads as nothing: said with the letter it answered (still
            raise ParseError(
                N_("{label}: {error}"), label=label, error=exc
            ) from None  # `sending`: the next try looks for it first)
        self.checkpoint(f"after {label}")
        self.store.sent(letter.marker, remote)
        return self._record(Delivery(letter, "sent", remote))

    def _failed(self, letter: Letter, exc: ForumError) -> Delivery:
        """A send that did not go as it should: set aside for good, or left due (raised) for the next run,
        not before the pause the board asked for; an answer that proved nothing once too often set aside."""
        if is_permanent(exc):
            self.store.refused(letter.marker, str(exc))
            return self._record(Delivery(letter, "refused", None, str(exc)))
        wait = exc.wait if isinstance(exc, TryLater) else None
        pause = self.now() + timedelta(seconds=wait) if wait else None
        count = self.store.failed(letter.marker, str(exc), not_before=pause, unproven=isinstance(exc, Unproven))
        if isinstance(exc, Unproven) and count >= UNPROVEN_LIMIT:
            said = gettext("{error} ({n} answers in a row proved nothing, and it is not on the board)").format(
                error=exc, n=count
            )
            self.store.refused(letter.marker, said)
            return self._record(Delivery(letter, "refused", None, said))
        raise exc

    def _wait_for(self, known: Letter, label: str) -> None:
        """A letter the board asked not to be sent before a moment: refused for now, until then."""
        assert known.not_before is not None
        until = datetime.fromisoformat(known.not_before)
        left = (until - self.now()).total_seconds()
        if left > 0:
            raise TryLater(
                N_("{label}: waits until {until} UTC, as the board asked ({error})"),
                left,
                label=label,
                until=f"{until:%H:%M:%S}",
                error=known.error,
            )

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
        if letter.kind == "reply" and letter.purpose == COUNT and isinstance(w, CurrentReplies):
            return str(w.post_reply_if_current(to[0], letter.subject, letter.body, marker=letter.marker))
        if letter.kind == "reply":
            return str(w.post_reply(to[0], letter.subject, letter.body, marker=letter.marker))
        if letter.kind == "lock":
            forum_id = int(to[1]) if len(to) > 1 and to[1] else None
            result = w.lock_topic(int(to[0]), forum_id)
            if result.locked:
                return "already locked" if result.already else "locked"
            if result.refused:  # the board said the account may not: for good
                raise NoPermission(
                    N_("the board refused to lock topic {topic}: {reason}"), topic=to[0], reason=result.reason
                )
            raise TryLater(
                N_("topic {topic} is not locked ({reason}); tried again by the next run"),
                topic=to[0],
                reason=result.reason,
            )
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


# --- the host's view and settlement -----------------------------------------------------------------


def waiting_and_set_aside(store: Store, game_id: int) -> list[Letter]:
    """The game's letters that wait (due, or looked for first) or were set aside (refused for good), in
    the order they were queued: what the host may settle."""
    return store.letters(game_id, (*WAITING, *SET_ASIDE))


def settle(
    store: Store,
    game_id: int,
    number: int,
    action: str,
    *,
    reason: str,
    by: str,
    remote_id: str | None = None,
) -> Letter:
    """The host settles letter `number` of the game: "retry" (due again, looked for on the board first:
    what was held for a moderator may be there now) or "drop" (never sent; with `remote_id`, what was done
    by hand in its place, e.g. a topic posted by hand). Recorded with who and why. A letter already sent
    is refused (nothing to settle)."""
    letter = store.numbered_letter(game_id, number)
    if letter is None:
        raise StateError(
            N_("the outbox holds no letter {number} of this game (forumbot outbox lists them)"), number=number
        )
    if letter.status in ("sent", "outdated"):
        raise StateError(N_("letter {number} is {status}: nothing to settle"), number=number, status=letter.status)
    if not by.strip():
        raise StateError(N_("say who settles it (--by)"))
    if action == "retry":
        store.settle(game_id, letter.marker, "retry", (reason or "tried again", by), status="sending")
    elif action == "drop":
        if not reason.strip():
            raise StateError(N_("letter {number}: say why it is dropped (--reason)"), number=number)
        if remote_id:
            store.settle(game_id, letter.marker, "done by hand", (reason, by), status="sent", remote_id=remote_id)
        else:
            store.settle(game_id, letter.marker, "drop", (reason, by), status="dropped")
    else:
        raise StateError(N_("{action!r}: a letter is retried or dropped"), action=action)
    settled = store.numbered_letter(game_id, number)
    assert settled is not None
    return settled
