"""Which game a PM is for, when one bot account hosts several games at once.

A host often runs two or three games on one account, with the same players. Every game of the state file
that reads the same inbox (same engine, same board) is a sibling; a PM of the inbox belongs to at most one
of them, and every reader of the inbox (the watch of each game, end-day of each) places it alike:

1. a PM a game has already taken is that game's (the watch answered it; end-day then agrees);
2. the game named in its subject: exactly one sibling's name, as a word of the subject;
3. the conversation it answers: a marker of a letter the bot sent, quoted in it; a letter the bot sent to
   the sender whose subject it carries ("Re: Салон-1: ваша роль"); a draft's code («[1a2b3c4d]»);
4. a private game's magic word (before its deal);
5. the sender's membership at the time he wrote: the games he plays (a moderator's verdict: the games he
   moderates) that were running then; a game dealt after he wrote counts only when no other one does.

A PM none of that places on one game is `Unplaced`: the sender is asked which game he meant, nothing is
guessed. A PM placed on a finished game is that game's, and it never answers: a finished game's PMs and
commands never reach a new one. A PM from nobody's member is `Nobody`'s (a stranger: a game taking
signups answers it, if there is exactly one).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from forumbot.config import STORED, GameConfig
from forumbot.extract.commands import is_magic_word
from forumbot.host.approval import read_verdict
from forumbot.host.daywindow import Ownership
from forumbot.host.outbox import MARKER
from forumbot.posts import PrivateMessage
from forumbot.store import Store

# What a game's handled_pms row says when the game did not take the PM as its own.
ELSEWHERE = "elsewhere"  # another game's, or nobody's: this game only remembers it has looked at it
UNPLACED = "unplaced"  # the sender was asked which game he meant
NOT_TAKEN = frozenset({ELSEWHERE, UNPLACED})
WHICH_GAME = "which-game"  # the purpose of the question to the sender: never a conversation of one game
_CODE = re.compile(r"\[([0-9a-f]{8})\]")
# How long before its day 1 a PM may still be a game's (a signup, a clock set wrong): older ones are not, so
# that a new game on an account with a long history never answers, nor lists, the letters of years past.
BEFORE_DAY_1 = timedelta(days=1)


@dataclass(frozen=True)
class Placed:
    """The PM is this game's; `how` says what placed it."""

    game: str
    how: str  # handled | subject | conversation | magic_word | member


@dataclass(frozen=True)
class Unplaced:
    """The PM may be for any of `games` (by the sender's membership): he is asked which."""

    games: tuple[str, ...]


@dataclass(frozen=True)
class Nobody:
    """The PM is no game's: its sender takes part in none (a stranger, or the bot's own account)."""


Route = Placed | Unplaced | Nobody


@dataclass(frozen=True)
class Seat:
    """What placing a PM needs to know of one game of the inbox."""

    id: int
    name: str
    players: frozenset[str]  # every account that plays or played in it (replaced ones too), or signed up
    moderators: frozenset[str]
    dealt: bool
    over: bool
    opened: datetime | None  # the start of day 1 (None before the deal)
    closed: datetime | None  # a finished game: the deadline of its last day
    magic_word: str | None  # a private game taking signups by PM
    subjects: dict[str, frozenset[str]] = field(default_factory=dict)  # recipient -> subjects of the bot's PMs
    markers: frozenset[str] = frozenset()  # every PM letter the bot sent for it
    codes: frozenset[str] = frozenset()  # the codes of its drafts sent to the moderators

    def running_at(self, moment: datetime | None) -> bool:
        """Whether the game was dealt and not over when a PM sent at `moment` was sent (unknown: now)."""
        if not self.dealt:
            return False
        if moment is None:
            return not self.over
        started = self.opened is None or self.opened <= moment
        return started and (self.closed is None or moment < self.closed)

    def later(self, moment: datetime | None) -> bool:
        """Whether the game was dealt after `moment` and is still on: a PM sent before its day 1 may be its."""
        if not self.dealt or self.over or moment is None or self.opened is None:
            return False
        return self.opened - BEFORE_DAY_1 <= moment < self.opened


def inbox_of(config: GameConfig) -> tuple[str, str, str]:
    """What tells the inbox a game reads: the engine and the board (or the saved pages' folder)."""
    return config.forum.engine, config.forum.base_url or "", str(config.forum.saved_pages or "")


def seat_of(store: Store, name: str) -> Seat:
    """One game as placing a PM sees it (its config as stored, its state, its outbox)."""
    row = store.game(name)
    config = GameConfig.model_validate(row.config, context=STORED)
    state = row.state
    players = set(store.players(row.id))
    opened = closed = None
    if state is not None:
        players |= {nick for p in state.players for nick in (p.nick, *p.replaced)}
        first = store.day(row.id, 1)
        opened = first["starts_at"] if first is not None else None
        last = store.day(row.id, state.day)
        if state.winner != "none" and last is not None:
            closed = last["deadline"]
    subjects: dict[str, set[str]] = {}
    markers: set[str] = set()
    codes: set[str] = set()
    for letter in store.outbox(row.id):
        if letter["kind"] != "pm" or letter["status"] not in ("sent", "sending") or letter["purpose"] == WHICH_GAME:
            continue
        markers.add(letter["marker"])
        codes.update(_CODE.findall(letter["subject"]))
        for recipient in letter["recipients"]:
            if letter["subject"].strip():
                subjects.setdefault(recipient, set()).add(letter["subject"])
    return Seat(
        id=row.id,
        name=row.name,
        players=frozenset(players),
        moderators=frozenset(config.game.moderators),
        dealt=state is not None,
        over=state is not None and state.winner != "none",
        opened=opened,
        closed=closed,
        magic_word=config.watch.magic_word if state is None else None,
        subjects={nick: frozenset(found) for nick, found in subjects.items()},
        markers=frozenset(markers),
        codes=frozenset(codes),
    )


class Router:
    """Places the PMs of one inbox on the games that read it (see the module's doc). Made once per pass
    or end-day: it reads the games and their outboxes once."""

    def __init__(self, store: Store, seats: Iterable[Seat]) -> None:
        self.store = store
        self.seats = tuple(sorted(seats, key=lambda s: s.id))

    @classmethod
    def for_game(cls, store: Store, name: str) -> Router:
        """The router of the inbox game `name` reads: every game of the state file on that inbox."""
        mine = inbox_of(GameConfig.model_validate(store.game(name).config, context=STORED))
        names = [
            other
            for other in store.game_names()
            if other == name or inbox_of(GameConfig.model_validate(store.game(other).config, context=STORED)) == mine
        ]
        return cls(store, [seat_of(store, other) for other in names])

    def ownership(self, game: str, pm: PrivateMessage) -> Ownership:
        """What end-day of `game` makes of a PM: its own (a stranger's too: listed, never counted), one that
        may be for several games (listed, never counted), or none of its business (another game's, or a
        moderator's verdict on a draft: no order)."""
        route = self.route(pm)
        if isinstance(route, Unplaced):
            return "unplaced" if game in route.games else "skip"
        if isinstance(route, Placed) and route.game != game:
            return "skip"
        if pm.sender.strip() in self.seat(game).moderators and read_verdict(pm) is not None:
            return "skip"
        return "mine"

    def seat(self, name: str) -> Seat:
        return next(s for s in self.seats if s.name == name)

    def taken(self, pm_id: int) -> bool:
        """Whether a game of the inbox has taken this PM as its own, or asked its sender which game."""
        return bool(self._handlers(pm_id))

    def route(self, pm: PrivateMessage) -> Route:
        handlers = self._handlers(pm.pm_id)
        owners = [seat for seat, kind in handlers if kind not in NOT_TAKEN]
        if len(owners) == 1:
            return Placed(owners[0].name, "handled")
        if not owners and any(kind == UNPLACED for _, kind in handlers):
            found = self._placed(pm)
            return found if isinstance(found, Unplaced) else Unplaced(tuple(s.name for s, _ in handlers))
        return self._placed(pm)

    def _handlers(self, pm_id: int) -> list[tuple[Seat, str]]:
        found = self.store.handled_kinds(pm_id)
        return [(seat, found[seat.id]) for seat in self.seats if seat.id in found and found[seat.id] != ELSEWHERE]

    def _placed(self, pm: PrivateMessage) -> Route:
        sender = pm.sender.strip()
        for how, found in (
            ("subject", self._by_name(pm.subject)),
            ("conversation", self._by_conversation(pm, sender)),
            ("magic_word", [s for s in self.seats if s.magic_word and is_magic_word(pm.body_text, s.magic_word)]),
        ):
            if len(found) == 1:
                return Placed(found[0].name, how)
        verdict = read_verdict(pm) is not None
        members = [s for s in self.seats if sender in (s.moderators if verdict else s.players)]
        running = [s for s in members if s.running_at(pm.time)]
        candidates = running or [s for s in members if s.later(pm.time)]
        if not candidates and not verdict:  # signed up to a game not dealt yet, and playing in no other
            candidates = [s for s in members if not s.dealt]
        if len(candidates) == 1:
            return Placed(candidates[0].name, "member")
        if candidates:
            return Unplaced(tuple(s.name for s in candidates))
        open_signups = [s for s in self.seats if s.magic_word and not s.dealt]
        if not any(sender in s.players | s.moderators for s in self.seats) and len(open_signups) == 1:
            return Placed(open_signups[0].name, "signup")
        return Nobody()

    def _by_name(self, subject: str) -> list[Seat]:
        """The games whose name stands in the subject as a word of it (not inside a longer name)."""
        text = subject.casefold()
        return [s for s in self.seats if re.search(rf"(?<!\w){re.escape(s.name.casefold())}(?!\w)", text)]

    def _by_conversation(self, pm: PrivateMessage, sender: str) -> list[Seat]:
        """The games whose letter the PM answers: a marker quoted in it, the subject of a letter the bot sent
        the sender, a draft's code."""
        quoted = set(MARKER.findall(pm.body_html))
        codes = set(_CODE.findall(pm.subject)) | set(_CODE.findall(pm.body_text))
        for found in (
            [s for s in self.seats if quoted & s.markers],
            [s for s in self.seats if any(subject in pm.subject for subject in s.subjects.get(sender, ()))],
            [s for s in self.seats if codes & s.codes],
        ):
            if found:
                return found
        return []


__all__ = ["ELSEWHERE", "UNPLACED", "WHICH_GAME", "Nobody", "Placed", "Route", "Router", "Seat", "Unplaced"]
