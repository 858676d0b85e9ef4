"""Between day ends: one pass of the bot's watch (`forumbot watch`), and the loop that repeats it.

A pass reads what is new and answers it:
- every PM not handled before: an order gets a receipt (taken, with the changes left, `render/receipts.py`) or
  the reason it is void; `Z`, `O GENDER`, `O AFTERLIFE`, `Q` (seed 000's commands) are carried out;
  `#mail` / `#mafia` / `#jakudza` / `#wall` letters are relayed when the game allows them; before the deal,
  a private game's magic word signs the sender up and the last signup starts the game;
- the day thread: an interim vote count is posted when the count changed, at most every N minutes or
  N posts;
- at the deadline: end-day, and the draft goes to the moderators; an approved draft is published when the
  config says so.

Progress lives in the state file. A PM is marked handled in the same transaction that queues its answers
(the outbox), and the outbox is flushed afterwards, so a restart never handles a PM twice and never loses
an answer; an answer whose sending was cut off is looked for on the forum before it is sent again.
"""

from __future__ import annotations

import json
import signal
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from forumbot.config import GameConfig
from forumbot.draft import Early, StoredDraft
from forumbot.engine.day import check_order, check_vote, ruleset_for
from forumbot.engine.model import Action, GameState, Vote
from forumbot.errors import ConfigError, ForumError, GameBusy, LoginFailed, ParseError, RulesError, StateError
from forumbot.extract import ParsedOrders, Roster, orders_from_pm
from forumbot.extract.commands import PlayerCommands, Relay, is_magic_word
from forumbot.extract.pms import read_pm
from forumbot.forum.cache import PageCache
from forumbot.forum.client import ForumClient
from forumbot.host import deadlines, games
from forumbot.host.approval import Verdict, decide, read_verdict
from forumbot.host.daywindow import place, shown_time
from forumbot.host.outbox import COUNT, Outbox, Poster, markers_for, strip_markers, with_marker
from forumbot.host.publish import draft_letters, past_outcomes
from forumbot.host.recount import count_topic
from forumbot.host.routing import ELSEWHERE, UNPLACED, WHICH_GAME, Placed, Router, Unplaced
from forumbot.host.tally import CountRules, Tally, render_tally_bbcode
from forumbot.i18n import gettext, ngettext
from forumbot.posts import PrivateMessage
from forumbot.render import receipts
from forumbot.render.bbcode import escape
from forumbot.render.guide import players_help
from forumbot.render.messages import render_role_message, render_role_messages
from forumbot.render.receipts import WHICH_GAME_SUBJECT, RelayRefusal, Untimely, about, which_game_text
from forumbot.render.report import render_report, told_so_far
from forumbot.store import (
    Change,
    GameRow,
    Letter,
    Store,
    count_valid_orders,
    write_players,
    write_relay,
    write_setting,
    write_vote_count,
)

BACKOFF_START = 30.0  # seconds before the first retry of a pass the forum failed; it doubles up to --every
PERMANENT_ERRORS = (LoginFailed, ConfigError, StateError)


Messenger = Poster  # what the watch needs of the forum beyond reading


@dataclass
class PassReport:
    """What one pass did, for the log line and the tests."""

    handled: list[int] = field(default_factory=list)
    sent: list[str] = field(default_factory=list)
    interim_count: bool = False
    drafted: bool = False
    published: bool = False
    started: bool = False
    refused: list[str] = field(default_factory=list)  # letters the forum refused for good, set aside
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # news for the host that is no problem (a verdict, say)
    draft_markers: list[str] = field(default_factory=list)  # the draft PMs this pass queued
    draft: list[DraftLetter] = field(default_factory=list)  # ... and what became of each (after the flush)


@dataclass(frozen=True)
class DraftLetter:
    """One moderator's draft PM queued by a pass, as the outbox knows it after the pass's flush."""

    moderator: str
    marker: str
    status: str  # pending | sending (the next pass goes on) | sent | refused | dropped
    error: str | None = None


Marks = Callable[..., str]


def marks_of(store: Store, game_id: int) -> Marks:
    """The game's marker maker (from its secret in the state file: no player can forge a marker)."""
    return markers_for(store.marker_key(game_id))


def stamp(text: str, mark: str) -> str:
    """The marker at the end of a message, invisible, so that a restart can find what was already sent."""
    return with_marker(text, mark)


# --- one pass -----------------------------------------------------------------------------------------


def watch_once(
    store: Store,
    name: str,
    client: ForumClient,
    messenger: Messenger,
    now: datetime,
    *,
    publish: Callable[[], object] | None = None,
) -> PassReport:
    with store.exclusive(store.game(name).id, "watch"):
        return _pass(store, name, client, messenger, now, publish)


def _pass(
    store: Store,
    name: str,
    client: ForumClient,
    messenger: Messenger,
    now: datetime,
    publish: Callable[[], object] | None,
) -> PassReport:
    report = PassReport()
    row, config = games.load(store, name)
    router = Router.for_game(store, name)
    if row.state is None:
        _signups(store, row, config, client, now, report, publish, router)
    else:
        if row.state.winner == "none":  # a finished game answers nothing: its PMs and commands end with it
            _messages(store, row, config, client, now, report, router)
        thread = DayThread(store, row, client, now, config.watch.count_every_minutes)
        _duel(store, row, config, thread, client, now, report)
        _interim_count(store, row, config, thread, now, report)
        deadlines.deadline_pass(store, row, config, now)  # the reminder before the deadline, the lock at it
        _unfinished_publication(store, row, report, publish)
        _deadline(store, row, config, client, now, report, publish)
    _flush(store, row.id, messenger, report)
    report.draft = [_draft_fate(store, row.id, marker) for marker in dict.fromkeys(report.draft_markers)]
    return report


def _draft_fate(store: Store, game_id: int, marker: str) -> DraftLetter:
    """What became of a draft PM: the outbox's state is the truth."""
    letter = store.letter(marker, game_id)
    if letter is None:
        return DraftLetter("", marker, "pending")
    return DraftLetter(", ".join(letter.recipients), marker, letter.status, letter.error)


def _unfinished_publication(
    store: Store, row: GameRow, report: PassReport, publish: Callable[[], object] | None
) -> None:
    """A publish that did not finish (the forum failed under it, the opening after the last signup) is
    run again by every pass until it is done; each attempt is told to the host."""
    game_id = row.id
    state = store.game(row.name).state
    due = bool(store.pending(game_id, "publish"))
    if state is not None and state.day == 1 and state.winner == "none":
        day1 = store.day(game_id, 1)
        due = due or (day1 is not None and not day1["topic"])  # the opening was never posted
    if not due or publish is None:
        return
    try:
        publish()
    except ForumError as exc:
        said = gettext("an unfinished publication is still due, the next pass tries again: {error}")
        report.problems.append(said.format(error=exc))
        return
    report.published = True
    left = len(store.pending(game_id, "publish"))  # a lock the board refused for now stays due
    if left:
        said = ngettext(
            "an unfinished publication is still due ({n} step left), the next pass tries again",
            "an unfinished publication is still due ({n} steps left), the next pass tries again",
            left,
        )
        report.problems.append(said.format(n=left))
        return
    report.notes.append(gettext("an unfinished publication was completed"))


def _new_pms(
    store: Store, row: GameRow, client: ForumClient, report: PassReport, router: Router
) -> list[PrivateMessage]:
    """The inbox's PMs for this game not handled yet, opened `concurrency` at a time (`fetch_pms`); one that
    cannot be read is reported and left for the next pass. A PM another game of the inbox took, or that is
    placed on another game (`routing`), is left to it; one that may be for several asks its sender which."""
    fresh = [
        summary
        for summary in client.fetch_inbox()
        if not store.handled(row.id, summary.pm_id) and not router.taken(summary.pm_id)
    ]
    found: list[PrivateMessage] = []
    for summary, pm in zip(fresh, client.fetch_pms(fresh), strict=True):
        if isinstance(pm, (ParseError, ForumError)):
            said = gettext("PM {pm} from {sender}: {problem}")
            report.problems.append(said.format(pm=summary.pm_id, sender=summary.sender, problem=pm))
            continue
        if isinstance(pm, Exception):
            raise pm
        pm = shown_time(pm, summary)
        route = router.route(pm)
        if isinstance(route, Placed) and route.game == row.name:
            found.append(pm)
        elif isinstance(route, Unplaced) and row.name in route.games:
            _ask_which_game(store, row, router, pm, route.games)
            report.handled.append(pm.pm_id)
        else:  # another game's, or nobody's: remembered, so that it is not opened again
            store.handle_pm(row.id, pm.pm_id, pm.sender.strip(), ELSEWHERE, [])
    return sorted(found, key=lambda pm: pm.pm_id)  # the forum's order: ids grow as messages arrive


def _ask_which_game(store: Store, row: GameRow, router: Router, pm: PrivateMessage, names: Sequence[str]) -> None:
    """The sender plays in several games and the PM says not which: he is asked, nothing is counted. The
    question's marker is the first game's, so that the watches of the others, placing the PM alike, queue
    the same letter (the outbox keeps one per marker)."""
    sender = pm.sender.strip()
    mark = marks_of(store, router.seat(names[0]).id)(WHICH_GAME, pm.pm_id, sender)
    body = which_game_text(names, pm.subject)
    letter = Letter(mark, "pm", [sender], WHICH_GAME_SUBJECT, stamp(body, mark), purpose=WHICH_GAME)
    store.handle_pm(row.id, pm.pm_id, sender, UNPLACED, [letter])


def _reply(marks: Marks, store_key: object, to: str, body: str, subject: str) -> Letter:
    mark = marks("reply", store_key, to)
    return Letter(mark, "pm", [to], subject, stamp(body, mark))


# --- signups of a private game (seed 000) -------------------------------------------------------------


def _signups(
    store: Store,
    row: GameRow,
    config: GameConfig,
    client: ForumClient,
    now: datetime,
    report: PassReport,
    publish: Callable[[], object] | None,
    router: Router,
) -> None:
    marks = marks_of(store, row.id)
    word, wanted = config.watch.magic_word, config.watch.max_players
    if not word or not wanted:
        return
    signup = about(config.game.name, "signup")
    for pm in _new_pms(store, row, client, report, router):
        sender = pm.sender.strip()
        players = store.players(row.id)
        kind, changes = "signup", []
        if not is_magic_word(pm.body_text, word):
            kind, answer = "other", receipts.NOT_THE_WORD
        elif sender in players:
            answer = receipts.signed_up(config.game.name, len(players), wanted, before=True)
        elif len(players) >= wanted:
            answer = receipts.SIGNUPS_CLOSED
        else:
            joined = [*players, sender]
            answer = receipts.signed_up(config.game.name, len(joined), wanted, before=False)
            changes = [partial(write_players, game_id=row.id, nicks=joined)]
        reply = _reply(marks, pm.pm_id, sender, answer, signup)
        store.handle_pm(row.id, pm.pm_id, sender, kind, [reply], changes=changes)
        report.handled.append(pm.pm_id)
    if len(store.players(row.id)) >= wanted:
        dealt = games.deal_game(store, row.name, now)
        report.started = True
        if publish is not None:
            try:
                publish()  # the opening: day 1's topic with the commitment, and the role PMs, each once
            except ForumError as exc:
                said = gettext("the opening is not published yet, the next pass tries again: {error}")
                report.problems.append(said.format(error=exc))
            return
        roles = render_role_messages(config, dealt.state)
        store.queue(row.id, [_reply(marks, ("role", row.id), m.to or "", m.body, m.subject) for m in roles])


# --- PMs of a running game --------------------------------------------------------------------------


def _messages(
    store: Store,
    row: GameRow,
    config: GameConfig,
    client: ForumClient,
    now: datetime,
    report: PassReport,
    router: Router,
) -> None:
    marks = marks_of(store, row.id)
    state = row.state
    assert state is not None
    day = store.day(row.id, state.day)
    everyone = Roster(state.nicks())
    drafted = store.draft(row.id, state.day)
    # the duel's turn is made once all have moved: what comes after it is not this turn's
    turn_made = made_by_duel(drafted)
    for pm in _new_pms(store, row, client, report, router):
        sender = pm.sender.strip()
        report.handled.append(pm.pm_id)
        verdict = read_verdict(pm) if sender in config.game.moderators else None
        if verdict is not None:
            _verdict(store, row.id, state.day, pm, sender, verdict, report, config.game.name)
            continue
        if sender not in everyone:
            store.handle_pm(row.id, pm.pm_id, sender, "other", [])
            continue
        read = read_pm(pm)
        commands = read.commands
        if commands.relay is not None:
            _relay(store, row, config, state, pm, commands.relay)
            continue
        outgoing: list[Letter] = []
        changes: list[Change] = []
        side = place(client, pm, None, day["starts_at"], day["deadline"]).side if day is not None else "after"
        # a PM from before the day's start belonged to an earlier day, which is over (or to none, before day 1)
        refusal = _refusal(side, state.day)
        if refusal is None and turn_made:
            refusal = "turn_made"
        lines = _order_receipts(store, row.id, config, state, pm, read.orders, everyone, refusal, changes)
        lines += _commands(store, row, config, state, sender, commands, changes, outgoing, pm.pm_id)
        if not lines and not commands.problems and not commands.help:  # nothing read: say so, quoting its start
            lines = [receipts.nothing_found(pm.body_text)]
        if lines and config.watch.receipts:
            outgoing.insert(0, _reply(marks, pm.pm_id, sender, "\n".join(lines), about(config.game.name, "receipt")))
        store.handle_pm(row.id, pm.pm_id, sender, "orders" if lines else "other", outgoing, changes=changes)


def _refusal(side: str, day: int) -> Untimely | None:
    """Why an order is not taken, by when it was sent: after the deadline or before the start (the earlier
    day's, which is over; before day 1, none), or at a time the forum does not tell exactly."""
    if side == "inside":
        return None
    if side == "uncertain":
        return "uncertain"
    return "before_day_1" if side == "before" and day == 1 else "late"


def _verdict(
    store: Store,
    game_id: int,
    day: int,
    pm: PrivateMessage,
    moderator: str,
    verdict: Verdict,
    report: PassReport,
    game: str,
) -> None:
    """A moderator's answer to the draft PM: approve or reject the draft it names, if it is the current one,
    and tell him what became of it; one who answered a draft end-day has replaced since gets the current one
    (again, if he had it: the outbox sends a letter once). An approval with `auto_publish` is published by
    this pass's deadline step."""
    decision = decide(game_id, game, day, store.draft(game_id, day), moderator, verdict)
    answer = _reply(marks_of(store, game_id), pm.pm_id, moderator, decision.answer, decision.subject)
    current = [x for x in draft_letters(store, game) if x.recipients == [moderator]] if decision.stale else []
    store.handle_pm(game_id, pm.pm_id, moderator, "verdict", [answer, *current], changes=decision.changes)
    report.draft_markers += [x.marker for x in current]
    report.notes += [decision.note] if decision.note else []
    report.problems += [decision.problem] if decision.problem else []


def _order_receipts(
    store: Store,
    game_id: int,
    config: GameConfig,
    state: GameState,
    pm: PrivateMessage,
    parsed: ParsedOrders,
    everyone: Roster,
    refusal: Untimely | None,
    changes: list[Change],
) -> list[str]:
    sender = pm.sender.strip()
    orders, problems = orders_from_pm(pm, everyone, mode=config_mode(state), parsed=parsed)
    lines = [receipts.problem_line(p) for p in problems if p.reason != "unknown_line"]
    counted: dict[str, int] = {}
    for order in orders:
        said = receipts.order_said(order.action, order.targets)
        if refusal is not None:
            lines.append(receipts.not_taken(said, receipts.REFUSALS[refusal]))
            continue
        if order.action == "vote":
            receipt, taken = _vote_receipt(state, sender, order.targets, said)
            if taken:
                counted["vote"] = counted.get("vote", 0) + 1  # the duel counts who has voted
            lines.append(receipt)
            continue
        try:
            earlier = store.order_count(game_id, state.day, sender, order.action) + counted.get(order.action, 0)
            check = check_order(state, order, earlier)
        except RulesError as exc:  # an action this variant does not have
            lines.append(receipts.not_taken(said, escape(str(exc))))
            continue
        if check.reason is not None:
            lines.append(receipts.rule_refusal(said, check.reason))
            continue
        counted[order.action] = counted.get(order.action, 0) + 1
        lines.append(receipts.taken(said, check.number, check.limit))
    for action, n in counted.items():
        changes.append(partial(count_valid_orders, game_id=game_id, day=state.day, actor=sender, action=action, n=n))
    return lines


def vote_channels(state: GameState) -> frozenset[str]:
    """Where this game's votes are cast ("thread", "pm"), as its ruleset says."""
    return ruleset_for(state).vote_channels


def _vote_receipt(state: GameState, sender: str, targets: tuple[str, ...], said: str) -> tuple[str, bool]:
    """A vote sent by PM: accepted where the game takes PM votes (it counts at the day's end), else refused;
    the receipt's line, and whether it was taken."""
    if "pm" not in vote_channels(state):
        return receipts.not_taken(said, receipts.VOTES_IN_THE_THREAD), False
    reason = check_vote(state, Vote(voter=sender, targets=targets))
    if reason is not None:
        return receipts.rule_refusal(said, reason), False
    return receipts.vote_taken(targets), True


def config_mode(state: GameState) -> Any:
    return state.options.get("nick_matching", "strict")


def _commands(
    store: Store,
    row: GameRow,
    config: GameConfig,
    state: GameState,
    sender: str,
    commands: PlayerCommands,
    changes: list[Change],
    outgoing: list[Letter],
    pm_id: int,
) -> list[str]:
    marks = marks_of(store, row.id)
    lines = [receipts.command_not_understood(p) for p in commands.problems]
    # Any message cancels an earlier Q; a Q in this one sets it again.
    changes.append(partial(write_setting, game_id=row.id, nick=sender, key="leaving", value=1 if commands.quit else 0))
    if commands.quit:
        lines.append(receipts.QUIT_TAKEN)
    for setting in commands.settings:
        changes.append(partial(write_setting, game_id=row.id, nick=sender, key=setting.key, value=setting.value))
        lines.append(receipts.setting_taken(setting.key, setting.value))
    if commands.help:
        guide = players_help(vote_channels(state), relays=config.watch.relays)
        outgoing.append(_reply(marks, ("help", pm_id), sender, guide, about(config.game.name, "help")))
    if commands.report:
        outgoing.append(
            _reply(
                marks,
                ("report", pm_id),
                sender,
                latest_report(store, row, config, state, sender),
                about(config.game.name, "report"),
            )
        )
    return lines


def latest_report(store: Store, row: GameRow, config: GameConfig, state: GameState, nick: str) -> str:
    """`Z`: the player's latest morning report where the game sends them (the very text the last
    publication sent him); else his role message and the latest result of his own checks."""
    if config.game.morning_reports and state.day > 1:
        last = store.draft(row.id, state.day - 1)
        if last is not None:
            outcome = last.draft.outcome()
            told = told_so_far([*past_outcomes(store, row, outcome.day), outcome])
            return render_report(config, outcome, nick, told).body
    text = render_role_message(config, state, nick).body
    for day in range(state.day - 1, 0, -1):
        found = store.day(row.id, day)
        checks = ((found or {}).get("result") or {}).get("checks", {})
        slot = state.player(nick)
        named = next((n for n in (nick, *(slot.replaced if slot else ())) if n in checks), None)  # the slot's history
        if named is not None:
            text += receipts.check_result_line(day, checks[named])
            break
    return text


def _relay(store: Store, row: GameRow, config: GameConfig, state: GameState, pm: PrivateMessage, relay: Relay) -> None:
    marks = marks_of(store, row.id)
    sender = pm.sender.strip()
    living = [p.nick for p in state.living()]
    recipients, refusal = _relay_recipients(state, sender, relay)
    if not config.watch.relays:
        refusal = RelayRefusal("off")
    elif sender not in living:
        refusal = RelayRefusal("sender_out")
    elif store.relay_count(row.id, state.day, sender) >= config.watch.relay_limit:
        refusal = RelayRefusal("limit", limit=config.watch.relay_limit)
    elif not relay.body.strip():
        refusal = RelayRefusal("empty")
    status = "sent" if refusal is None else f"refused: {receipts.relay_refusal(refusal)}"

    at = pm.time.isoformat() if pm.time else ""
    record = partial(
        write_relay,
        game_id=row.id,
        day=state.day,
        pm_id=pm.pm_id,
        sender=sender,
        kind=relay.kind,
        recipients=recipients,
        status=status,
        at=at,
    )

    if refusal is not None:
        said = receipts.relay_not_sent(refusal)
        answer = _reply(marks, pm.pm_id, sender, said, about(config.game.name, "relay"))
        store.handle_pm(row.id, pm.pm_id, sender, "relay", [answer], changes=[record])
        return
    heading = receipts.relay_heading(None if relay.anonymous else sender, relay.kind)
    text = f"{heading}:\n\n{strip_markers(relay.body)}"  # a letter never carries a marker of the bot's
    # One PM per recipient: a PM to a whole clan would tell each member who the others are.
    letters = [
        Letter(mark, "pm", [nick], heading, stamp(text, mark))
        for nick in recipients
        for mark in [marks("relay", pm.pm_id, nick)]
    ]
    receipt = _reply(marks, pm.pm_id, sender, receipts.RELAY_SENT, about(config.game.name, "relay"))
    store.handle_pm(row.id, pm.pm_id, sender, "relay", [*letters, receipt], changes=[record])


def _relay_recipients(state: GameState, sender: str, relay: Relay) -> tuple[list[str], RelayRefusal | None]:
    living = [p for p in state.living() if p.nick != sender]
    if relay.kind == "mail":
        nick = relay.nick or ""
        target = state.player(nick)
        if target is None:
            nearest = Roster(state.nicks()).nearest(nick)
            return [], RelayRefusal("no_player", nick, nearest)
        if not target.alive:
            return [], RelayRefusal("target_out", nick)
        return [nick], None
    if relay.kind == "wall":
        return [p.nick for p in living], None
    roles = {"mafia": ("mafia", "lawyer"), "yakuza": ("yakuza", "ninja")}[relay.kind]
    members = [p.nick for p in living if p.role in roles]
    return members, None if members else RelayRefusal("nobody")


# --- the day thread and the deadline -----------------------------------------------------------------


class DayThread:
    """The day thread's count for one pass, read at most once incrementally (and once whole when asked): the
    duel's check and the interim count both read it, so a pass costs the new pages once.

    `count` reads only the topic's new pages (the last known one and later ones), counting on from where the
    count kept in the state file stood (`recount.count_topic`): it costs the new posts, not the day. It reads
    every page instead when no whole read was made for `every_minutes` (`_whole_read_due`), so an edit on an
    earlier page, which no new page shows, is seen within that time. `whole` reads every page now (once a
    pass), and the pass's `count` is that read from then on. The count is end-day's: the same players, bounds,
    variant options and targets per vote (`vote_settings` in `host.games`)."""

    def __init__(self, store: Store, row: GameRow, client: ForumClient, now: datetime, every_minutes: int) -> None:
        self.store, self.client, self.now, self.every_minutes = store, client, now, every_minutes
        self.topic, self.rules = _day_count_rules(store, row, client, now)
        self._count: Tally | None = None

    def count(self) -> Tally | None:
        """The count of this pass's read (None: the thread holds no votes to count now)."""
        if self.rules is None:
            return None
        if self._count is None:
            whole = _whole_read_due(self.store, self.client, self.topic, self.every_minutes, self.now)
            self._count = _thread_count(self.store, self.client, self.topic, self.rules, self.now, whole=whole)
        return self._count

    def whole(self) -> Tally | None:
        """The count of a read that fetched every page in this pass (made now unless `count`'s did)."""
        tally = self.count()
        if tally is not None and not tally.complete:
            assert self.rules is not None
            tally = _thread_count(self.store, self.client, self.topic, self.rules, self.now, whole=True)
            self._count = tally
        return tally


def _day_count_rules(store: Store, row: GameRow, client: ForumClient, now: datetime) -> tuple[str, CountRules | None]:
    """The day topic and what decides its count, as end-day counts it; no rules when the day has no topic,
    its deadline is past (end-day reads it) or its votes are not cast in the thread."""
    state = row.state
    assert state is not None
    day = store.day(row.id, state.day)
    if day is None or not day["topic"] or now >= day["deadline"]:
        return "", None
    ruleset = ruleset_for(state)
    if "thread" not in ruleset.vote_channels:
        return str(day["topic"]), None  # salon votes by PM: the thread holds no votes to count
    rules = CountRules(
        living=[p.nick for p in state.living()],
        dead=[p.nick for p in state.players if not p.alive],
        start=day["starts_at"],
        deadline=day["deadline"],
        variant=state.variant,
        options=state.options,
        votes_per_post=ruleset.max_targets(state.day, "vote", len(state.players)),
        skip_authors=[client.account] if client.account else [],
    )
    return str(day["topic"]), rules


def _interim_count(
    store: Store, row: GameRow, config: GameConfig, thread: DayThread, now: datetime, report: PassReport
) -> None:
    """An interim count in the day thread when the count changed, at most every `count_every_minutes` or
    after `count_every_posts` new posts.

    The pass's count (`DayThread.count`) reads the new pages only, between whole reads at least every
    `count_every_minutes`. Such a read cannot see an edit on an earlier page, so it never makes a count that
    is posted: a pass that finds a count due reads every page now and posts the count of that whole read (a
    count from cached pages is refused by `render_tally_bbcode` anyway); an edit alone, which changes no new
    page, changes the count posted within `count_every_minutes` by the whole reads. The deadline's count
    (end-day) always reads every page."""
    state = row.state
    assert state is not None
    if not config.watch.interim_counts:
        return
    last = store.last_vote_count(row.id, state.day)
    tally = thread.count()
    if tally is None or not _count_due(tally, last, config, now):
        return
    if not tally.complete:  # due by the new pages: the count posted is the one of every page, read now
        tally = thread.whole()
        if tally is None or not _count_due(tally, last, config, now):
            return
    counts = dict(tally.counts)
    title = receipts.interim_count_title(state.day)
    body = render_tally_bbcode(tally, title, config.templates.vote_count, zone=config.game.zone)
    mark = marks_of(store, row.id)("count", state.day, json.dumps(counts, sort_keys=True, ensure_ascii=False))
    subject = receipts.interim_count_subject(state.day)
    # posted only while current: a count the board hands back (new posts since the read) is made again
    outgoing = Letter(mark, "reply", [thread.topic], subject, stamp(body, mark), state.day, purpose=COUNT)

    record = partial(
        write_vote_count,
        game_id=row.id,
        day=state.day,
        at=now.isoformat(),
        posts=tally.posts,
        counts=counts,
        marker=mark,
    )

    store.queue(row.id, [outgoing], changes=[record])
    report.interim_count = True


def _count_due(tally: Tally, last: dict[str, Any] | None, config: GameConfig, now: datetime) -> bool:
    """Whether `tally` is a count to post: it differs from the last one posted, which is old enough or has
    enough new posts after it."""
    counts = dict(tally.counts)
    if not counts or (last is not None and last["counts"] == counts):
        return False
    if last is None:
        return True
    soon = now - last["at"] < timedelta(minutes=config.watch.count_every_minutes)
    few = tally.posts - last["posts"] < config.watch.count_every_posts
    return not (soon and few)


def _whole_read_due(store: Store, client: ForumClient, topic: str, every_minutes: int, now: datetime) -> bool:
    """Whether this pass reads the day topic whole: never read whole yet, or not for `every_minutes` (the
    watch's `count_every_minutes`, by its clock; a clock that went back reads it whole too)."""
    at = store.whole_read_at(client.forum, str(client.topic_id(topic)))
    return at is None or not timedelta(0) <= now - at < timedelta(minutes=every_minutes)


def _thread_count(
    store: Store, client: ForumClient, topic: str, rules: CountRules, now: datetime, *, whole: bool
) -> Tally:
    """The day thread's count: every page read now (`whole`), else the new pages only, counted on from the
    kept count. A read that fetched every page (a first read falls back to one) is noted as the last whole."""
    tally, _ = count_topic(client, PageCache(store), store, topic, rules, incremental=not whole, read_at=now)
    if tally.complete:
        store.put_whole_read(client.forum, str(client.topic_id(topic)), now)
    return tally


DUEL_REASON = "duel: all players moved"


def made_by_duel(stored: StoredDraft | None) -> bool:
    """Whether the day's draft was made by the duel schedule, once every living player had moved."""
    return stored is not None and stored.draft.early is not None and stored.draft.early.reason == DUEL_REASON


def _duel(
    store: Store,
    row: GameRow,
    config: GameConfig,
    thread: DayThread,
    client: ForumClient,
    now: datetime,
    report: PassReport,
) -> None:
    """seed 000's `duel` schedule: the turn is made as soon as every living player has moved (his vote and
    whatever order his role owes, as the engine says). The day ends early, as `end-day --early` does, with
    the reason in the draft's audit, and the draft goes to the moderators, who still approve it.

    The thread's votes come from the pass's count (`DayThread.count`: its new pages, counted on from the kept
    count), which may miss an edit on an earlier page: it only tells whether everyone may have moved. When
    it says so and the orders are in, every page is read now and the day ends only if that read agrees. An
    edit that adds the last vote on an earlier page is seen by the next whole read, at most
    `count_every_minutes` later; one that withdraws a vote is seen by the confirming read."""
    state = row.state
    assert state is not None
    day = store.day(row.id, state.day)
    if config.watch.schedule != "duel" or day is None or not day["topic"] or now >= day["deadline"]:
        return
    if state.winner != "none" or store.draft(row.id, state.day) is not None:
        return
    rules = ruleset_for(state)
    acted, by_pm = _acted_so_far(store, row.id, state), _voted_by_pm(store, row.id, state)
    if rules.missing_moves(state, [p.nick for p in state.living()], acted):
        return  # an order is owed: no vote can end the day, nothing to read
    if rules.missing_moves(state, _thread_voters(thread.count()) | by_pm, acted):
        return
    if rules.missing_moves(state, _thread_voters(thread.whole()) | by_pm, acted):
        return  # the whole read says otherwise: a vote withdrawn by an edit the new pages did not show
    games.end_day(store, row.name, client, early=Early(reason=DUEL_REASON, at=now.isoformat()))
    report.drafted = True
    if config.game.moderators:
        _queue_draft(store, row, report)


def _thread_voters(tally: Tally | None) -> set[str]:
    """Who has a counted vote in the day thread (none when the variant's votes are not cast there)."""
    return {voter for who in tally.voters.values() for voter in who} if tally is not None else set()


def _voted_by_pm(store: Store, game_id: int, state: GameState) -> set[str]:
    """Who has voted by PM today (an accepted vote order, as the receipts counted it)."""
    return {p.nick for p in state.living() if store.order_count(game_id, state.day, p.nick, "vote")}


def _acted_so_far(store: Store, game_id: int, state: GameState) -> list[tuple[str, Action]]:
    """(player, action as sent) of each order accepted today, as the receipts counted them."""
    actions = ruleset_for(state).actions - {"vote"}
    return [
        (p.nick, action)
        for p in state.living()
        for action in sorted(actions)
        if store.order_count(game_id, state.day, p.nick, action)
    ]


def _deadline(
    store: Store,
    row: GameRow,
    config: GameConfig,
    client: ForumClient,
    now: datetime,
    report: PassReport,
    publish: Callable[[], object] | None,
) -> None:
    state = row.state
    assert state is not None
    day = store.day(row.id, state.day)
    draft = store.draft(row.id, state.day)
    duel = made_by_duel(draft)
    # the duel's turn was made when all had moved: its draft stands, and may be published before the deadline
    if day is None or (now < day["deadline"] and not duel) or state.winner != "none":
        return
    early = draft is not None and not draft.approved_by and draft.draft.early is not None and not duel
    if draft is None or early:  # a draft made before the deadline gives way to one read after it
        games.end_day(store, row.name, client)
        report.drafted = True
        if early:
            said = gettext("day {day}: the draft made before the deadline is replaced by one made after it")
            report.problems.append(said.format(day=state.day))
        if config.game.moderators:
            _queue_draft(store, row, report)  # the same PMs as `forumbot draft send`
    elif config.game.moderators and not draft.approved_by and _replaced_unsent(store, row, state.day):
        _queue_draft(store, row, report)
        said = gettext("day {day}: the draft was made again since the moderators had it; they get it now")
        report.notes.append(said.format(day=state.day))
    elif draft.approved_by and config.watch.auto_publish and publish is not None:
        publish()
        report.published = True


def _queue_draft(store: Store, row: GameRow, report: PassReport) -> None:
    """The current draft's PMs to the moderators, queued (each version once, whoever sends it)."""
    letters = draft_letters(store, row.name)
    store.queue(row.id, letters)
    report.draft_markers += [letter.marker for letter in letters]


def _replaced_unsent(store: Store, row: GameRow, day: int) -> bool:
    """Whether the moderators had a draft of the day that end-day has replaced since (the host ran it by
    hand), and the current one was never queued for them: they must not approve what they never saw."""
    current = draft_letters(store, row.name)
    if all(store.letter(letter.marker, row.id) is not None for letter in current):
        return False
    return any(
        sent["day"] == day and (sent["purpose"] or "").startswith("draft-") and sent["status"] != "pending"
        for sent in store.outbox(row.id)
    )


def _flush(store: Store, game_id: int, messenger: Messenger, report: PassReport) -> None:
    """Send what is queued, oldest first, through the game's outbox. A letter the forum refuses for
    good (an account deleted, a topic closed to the bot) is set aside and reported; a passing fault (the
    board down or asking for a pause, an answer that proved nothing) stops the flush, the order kept, and
    the next pass goes on from there; an interim count the board handed back is made again by the next
    pass. No letter ends the watch: whatever one meets is reported here."""
    outbox = Outbox(store, game_id, messenger)
    pending = store.pending(game_id)
    for n, letter in enumerate(pending):
        try:
            done = outbox.deliver(letter, upcoming=pending[n + 1 :])  # the next PMs' forms addressed meanwhile
        except (ForumError, ParseError) as exc:
            report.problems.append(gettext("not sent yet ({marker}): {error}").format(marker=letter.marker, error=exc))
            break
        if done.how == "refused":
            said = gettext("set aside ({marker}, to {nicks}): {error}")
            report.problems.append(
                said.format(marker=letter.marker, nicks=", ".join(letter.recipients), error=done.error)
            )
            report.refused.append(letter.marker)
        elif done.how == "outdated":
            said = gettext("the interim count was handed back (new posts since its read): {error}")
            report.problems.append(said.format(error=done.error))
        elif done.how in ("sent", "recovered"):
            report.sent.append(letter.marker)


# --- the loop ------------------------------------------------------------------------------------------


def watch_loop(
    run_pass: Callable[[], PassReport],
    every: timedelta,
    *,
    on_report: Callable[[PassReport], None] = lambda r: None,
    on_error: Callable[[Exception, float], None] = lambda exc, wait: None,
    stop: threading.Event | None = None,
) -> None:
    """Repeat passes until SIGINT/SIGTERM (or `stop`); a pass in progress is always finished first.

    A pass that meets a passing fault of the forum (down, slow, refusing for a while) is reported and
    tried again after a back-off that doubles up to `every`; a game held by another forumbot process is
    tried again at the next pass; only a permanent error (the login refused,
    a bad config, a damaged state file) stops the loop."""
    stopping = stop or threading.Event()
    previous = {sig: signal.signal(sig, lambda *_: stopping.set()) for sig in (signal.SIGINT, signal.SIGTERM)}
    failures = 0
    try:
        while not stopping.is_set():
            try:
                on_report(run_pass())
                failures = 0
                wait = every.total_seconds()
            except GameBusy as exc:  # another forumbot (a publish) holds the game: the next pass tries again
                wait = every.total_seconds()
                on_error(exc, wait)
            except PERMANENT_ERRORS:
                raise
            except (ForumError, ParseError) as exc:
                failures += 1
                wait = min(every.total_seconds(), BACKOFF_START * 2 ** (failures - 1))
                on_error(exc, wait)
            stopping.wait(wait)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


__all__ = ["Messenger", "PassReport", "StateError", "watch_loop", "watch_once"]
