"""Publishing: the approved day goes to the forum, once, whatever crashes in between.

    publish(store, "Mafia-1", client, now)      # roles (if never sent), the new day's topic, the lock of
                                                # the old one, the PMs that are due; then the game advances
    send_draft_to_moderators(store, "Mafia-1", client)

What `publish` does, in this order:
1. refuses unless the current day's draft carries a moderator's approval (`forumbot draft approve`);
   on day 1 before any draft it publishes the opening instead: the day-1 topic (if the day has none)
   with the SHA-256 commitment to the roles, and the role PMs;
2. each player's role PM, if the bot never sent it (the mafia's lists their team and boss);
3. the new day's topic in the config's `[forum] forum_id`: "<game>. День N", the draft's BBCode, the
   commitment line after day 1, the reveal of every role and the salt when the game is over;
4. the lock of the day's old topic, where the account may: a topic locked already counts as locked; a
   refusal, or a lock the board cannot be asked for now, is reported and publishing goes on;
5. the PMs that are due: a role that changed hands, each checker's private result, and at the end the
   reveal, one PM per player (phpBB takes 5 recipients per PM by default, and players must not learn
   who else was written to);
6. `games.advance` with the new topic's id.

Crash safety: every post, PM and lock goes through the game's one outbox (`forumbot.host.outbox`): intended
in the state file, sent, confirmed; a letter whose send was cut off is looked for on the forum by its
marker (made from a secret of the game, written into the text as an invisible BBCode line) before it
is sent again. A re-run skips what is done, and first finishes what an earlier publication left due (a
lock the board did not make then, a PM it refused for now), so that nothing waits for good: the watch runs
publish again whenever such a letter is due. A letter the board refused for good is set aside and the
rest goes on; without the new topic nothing can go on, and the message says how the host settles it
(`forumbot outbox GAME`: `--retry N` once the cause is gone, or `--drop N --id TOPIC` for a topic posted
by hand). Once any publication of a day is made, `end-day` for that
day is refused: the forum already shows its outcome. `checkpoint(step)` is called right after each
letter is marked as being sent ("before ...") and right after the forum confirmed it ("after ..."):
tests crash there.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime

from forumbot.config import GameConfig
from forumbot.engine.model import DayOutcome, GameState
from forumbot.errors import ConfigError, ForumError, StateError
from forumbot.forum.client import ForumClient
from forumbot.forum.poster import Poster
from forumbot.forum.registry import poster_for
from forumbot.host import games
from forumbot.host.approval import draft_code, draft_subject, draft_version
from forumbot.host.outbox import MARKER_PREFIX, Clock, Delivery, Outbox, marker_line, markers_for, with_marker
from forumbot.i18n import N_, gettext
from forumbot.render import moderators as said_to
from forumbot.render import opening as opening_post
from forumbot.render.day import render_day_title
from forumbot.render.messages import (
    Message,
    render_best_player_message,
    render_check_messages,
    render_role_change_messages,
    render_role_messages,
)
from forumbot.render.report import render_reports, told_so_far
from forumbot.store import GameRow, Letter, Store

__all__ = [
    "DraftSent",
    "TopicUnknown",
    "PublishReport",
    "marker_line",
    "publication_marker",
    "publish",
    "send_draft_to_moderators",
]

Checkpoint = Callable[[str], None]


class TopicUnknown(ForumError):
    """Publishing cannot go on without the new topic, whose letter the board refused or the host dropped:
    the message names the letter and how the host settles it (`forumbot outbox`). A forum error, so that the
    watch reports it each pass and goes on with the rest."""


def _no_checkpoint(step: str) -> None:
    return None


# --- markers -----------------------------------------------------------------------------------------


def publication_marker(key: str, kind: str, day: int, recipient: str | None = None) -> str:
    """The marker of one publication of a game whose marker secret is `key`: the same game, kind, day
    and recipient give the same marker, and nobody without the key can make it."""
    return markers_for(key)("publish", kind, day, recipient or "")


def legacy_marker(commitment: str, kind: str, day: int, recipient: str | None = None) -> str:
    """The marker earlier versions gave a publication (from the public commitment): looked up so that a
    publication they made is never made again."""
    key = "\x1f".join((commitment, kind, str(day), recipient or ""))
    return MARKER_PREFIX + hashlib.sha256(key.encode("utf-8")).hexdigest()[:24]


# --- the report --------------------------------------------------------------------------------------


@dataclass
class PublishReport:
    """What one run of `publish` did; `locked` is None when there was no old topic to lock."""

    game: str
    day: int  # the day that was published (the one that ended; 1 for the opening)
    topic_id: int | None = None
    locked: bool | None = None
    sent: list[str] = field(default_factory=list)  # posted or sent by this run
    recovered: list[str] = field(default_factory=list)  # sent before a crash, found on the forum
    skipped: list[str] = field(default_factory=list)  # done by an earlier run
    refused: list[str] = field(default_factory=list)  # refused by the forum for good, set aside
    notes: list[str] = field(default_factory=list)
    new_day: int | None = None  # the day opened by the advance; None at the opening and at the end
    winner: str = "none"


@dataclass
class DraftSent:
    game: str
    day: int
    moderators: tuple[str, ...]
    pm_id: int | None
    already: bool  # this very draft had been sent before: nothing was sent again
    delivered: tuple[str, ...] = ()  # the moderators the board has it for, as the outbox knows it
    refused: tuple[tuple[str, str], ...] = ()  # (moderator, the board's words): refused for good
    waiting: tuple[str, ...] = ()  # the moderators it has not reached yet for a passing cause


# --- one publication, exactly once -------------------------------------------------------------------


@dataclass(frozen=True)
class _Step:
    letter: Letter
    label: str
    legacy: str  # the marker of earlier versions


class _Marks:
    """The markers of one game's publications."""

    def __init__(self, store: Store, row: GameRow) -> None:
        self.key = store.marker_key(row.id)
        self.commitment = row.commitment or ""

    def step(self, kind: str, day: int, key: str | None, letter: Letter, label: str) -> _Step:
        marker = publication_marker(self.key, kind, day, key)
        body = with_marker(letter.body, marker) if letter.kind != "lock" else ""
        made = Letter(marker, letter.kind, letter.recipients, letter.subject, body, day, "publish", purpose=kind)
        return _Step(made, label, legacy_marker(self.commitment, kind, day, key))


# What each PM is, as the host reads it in publish's report (the draft's kind carries its version).
PM_KINDS = {
    "role": N_("role"),
    "role-change": N_("role change"),
    "check": N_("check"),
    "reveal": N_("reveal"),
    "report": N_("morning report"),
    "best-player": N_("best player"),
    "draft": N_("draft"),
}


def _pm_label(kind: str, to: str) -> str:
    what = gettext(PM_KINDS.get(kind.split("-", 1)[0] if kind.startswith("draft-") else kind, kind))
    return gettext("PM {kind} → {nick}").format(kind=what, nick=to)


def _topic_label(subject: str) -> str:
    return gettext("topic «{subject}»").format(subject=subject)


def _lock_label(topic: str | int) -> str:
    return gettext("lock of topic {topic}").format(topic=topic)


def _pm_step(marks: _Marks, day: int, kind: str, key: str, message: Message, to: Sequence[str]) -> _Step:
    letter = Letter("", "pm", list(to), message.subject, message.body)
    return marks.step(kind, day, key, letter, _pm_label(kind, key))


def _topic_step(marks: _Marks, forum_id: int, day: int, kind: str, subject: str, body: str) -> _Step:
    letter = Letter("", "topic", [str(forum_id)], subject, body)
    return marks.step(kind, day, None, letter, _topic_label(subject))


class _Runner:
    """Deliver steps through the game's outbox, noting in the report what became of each."""

    outbox: Outbox

    def __init__(self, outbox: Outbox, report: PublishReport) -> None:
        self.outbox, self.report = outbox, report

    def __call__(self, step: _Step, upcoming: Sequence[_Step] = ()) -> str | None:
        done = self.deliver(step, upcoming)
        if done.how == "refused":
            said = gettext("{what}: the forum refused it ({error}); it is set aside")
            self.report.notes.append(said.format(what=step.label, error=done.error))
        elif done.how == "dropped":
            self.report.notes.append(gettext("{what}: dropped by the host; not sent").format(what=step.label))
        return done.remote_id

    def each(self, steps: Sequence[_Step]) -> list[str | None]:
        """Every step in turn, the forms of the PMs after each one addressed while it waits to be sent."""
        return [self(step, steps[n + 1 :]) for n, step in enumerate(steps)]

    def deliver(self, step: _Step, upcoming: Sequence[_Step] = ()) -> Delivery:
        """The step through the outbox, filed in the report under what became of it. `upcoming`: the steps
        to be delivered after it (the outbox addresses their PMs' forms meanwhile)."""
        later = [s.letter for s in upcoming]
        done = self.outbox.deliver(step.letter, label=step.label, aliases=[step.legacy], upcoming=later)
        shelf = {"sent": self.report.sent, "recovered": self.report.recovered, "skipped": self.report.skipped}
        shelf |= {"dropped": self.report.skipped, "outdated": self.report.skipped}
        shelf.get(done.how, self.report.refused).append(step.label)
        return done


# --- publish -----------------------------------------------------------------------------------------


def publish(
    store: Store,
    name: str,
    client: ForumClient,
    now: datetime,
    *,
    poster: Poster | None = None,
    roles: bool = True,
    checkpoint: Checkpoint = _no_checkpoint,
    clock: Clock | None = None,
) -> PublishReport:
    """Post the approved day and send its PMs, each once, then advance the game (see the module's doc).
    `poster` writes (default: the client's engine's poster); `roles=False`: the role PMs were sent by hand
    and are never sent by the bot; `clock`: the time a pause the board asked for is counted on (default:
    the machine's). One process at a time publishes a game."""
    with store.exclusive(store.game(name).id, "publish"):
        return _publish(store, name, client, now, poster=poster, roles=roles, checkpoint=checkpoint, clock=clock)


def _publish(
    store: Store,
    name: str,
    client: ForumClient,
    now: datetime,
    *,
    poster: Poster | None,
    roles: bool,
    checkpoint: Checkpoint,
    clock: Clock | None = None,
) -> PublishReport:
    row, config = games.load(store, name)
    state = _running(row)
    poster = poster or poster_for(client, flood_interval=config.forum.flood_interval)
    draft = store.draft(row.id, state.day)
    today = store.day(row.id, state.day)
    report = PublishReport(game=name, day=state.day)
    marks = _Marks(store, row)
    outbox = (
        Outbox(store, row.id, poster, checkpoint)
        if clock is None
        else Outbox(store, row.id, poster, checkpoint, now=clock)
    )
    run = _Runner(outbox, report)
    finished = _leftovers(store, row, state, run, report)
    if draft is None:
        if state.day != 1:
            if finished:
                return report
            raise StateError(
                N_("{game}: day {day} has no draft to publish (forumbot end-day {game})"), game=name, day=state.day
            )
        return _opening(store, row, config, state, client, marks, run, roles, report)
    if not draft.approved_by:
        if finished:
            report.notes.append(
                gettext("the draft of day {day} waits for a moderator's approval").format(day=state.day)
            )
            return report
        raise StateError(
            N_("{game}: the draft of day {day} is not approved by a moderator (forumbot draft approve {game})"),
            game=name,
            day=state.day,
        )
    outcome = draft.draft.outcome()
    forum_id = _forum_id(config)
    steps: list[_Step] = []
    if roles:  # the day's players, and a slot's new account (a replacement) from the day's end on
        steps += _role_steps(marks, config, state)
        known = set(state.nicks())
        steps += [s for s in _role_steps(marks, config, outcome.state) if s.letter.recipients[0] not in known]
    # The post as the moderators approved it: subject and body made once, at end-day (drafts of earlier
    # versions hold only the BBCode: their subject and closing lines are made as they were then).
    subject = draft.draft.subject or render_day_title(config, state, outcome)
    body = draft.draft.post or games.post_text(config, row, state, outcome, draft.draft.bbcode)
    topic_step = _topic_step(marks, forum_id, state.day, "topic", subject, body)
    steps.append(topic_step)
    remote = run.each(steps)[steps.index(topic_step)]
    report.topic_id = int(remote) if remote is not None and remote.isdigit() else None
    if report.topic_id is None:
        raise no_topic_id(store, row, topic_step.letter, N_("the new topic of day {day}"), state.day + 1)
    old_topic = today["topic"] if today is not None else None
    if old_topic:
        _lock(run, marks, poster, config, state.day, client.topic_id(old_topic), report)
    muted = frozenset(nick for nick in state.nicks() if store.setting(row.id, nick)["afterlife"] == "off")
    run.each(_due_pms(marks, config, row, state, outcome, muted))
    run.each(_report_steps(marks, state.day, store, row, config, outcome))
    checkpoint("before advance")
    new_state = games.advance(store, name, now, topic=str(report.topic_id))
    report.winner = new_state.winner
    report.new_day = new_state.day if new_state.winner == "none" else None
    return report


def _opening(
    store: Store,
    row: GameRow,
    config: GameConfig,
    state: GameState,
    client: ForumClient,
    marks: _Marks,
    run: _Runner,
    roles: bool,
    report: PublishReport,
) -> PublishReport:
    """Day 1 before its end: the role PMs, and the day-1 topic unless the host named one."""
    commitment = row.commitment or ""
    if roles:
        run.each(_role_steps(marks, config, state))
    day = store.day(row.id, 1)
    if day is not None and day["topic"]:
        report.topic_id = client.topic_id(day["topic"])
        if not report.sent and not report.recovered:
            said = gettext("day 1 is read from topic {topic}; nothing else is due before its end")
            report.notes.append(said.format(topic=day["topic"]))
        return report
    subject = opening_post.subject(config.game.name)
    deadline = day["deadline"].astimezone(config.game.zone) if day is not None else None
    commitment_text = games.commitment_line(commitment) if commitment else ""
    body = opening_post.text(config.game.name, [p.nick for p in state.players], deadline, commitment_text)
    opening = _topic_step(marks, _forum_id(config), 1, "opening", subject, body)
    remote = run(opening)
    if remote is None or not remote.isdigit():
        raise no_topic_id(store, row, opening.letter, N_("day 1's topic"))
    store.set_day_topic(row.id, 1, remote)
    report.topic_id = int(remote)
    return report


def _role_steps(marks: _Marks, config: GameConfig, state: GameState) -> list[_Step]:
    """The role PM of each living player the variant writes to; the marker has no day: a role is sent
    once a game."""
    return [_pm_step(marks, 0, "role", m.to, m, [m.to]) for m in render_role_messages(config, state) if m.to]


def _due_pms(
    marks: _Marks,
    config: GameConfig,
    row: GameRow,
    before: GameState,
    outcome: DayOutcome,
    muted: frozenset[str] = frozenset(),
) -> list[_Step]:
    """The PMs this day owes. A dead player who said `O AFTERLIFE OFF` (seed 000) gets none of them."""
    day = before.day
    steps: list[_Step] = []
    per_nick: dict[str, int] = {}
    for m in render_role_change_messages(config, before, outcome):
        if not m.to:
            continue
        n = per_nick[m.to] = per_nick.get(m.to, 0) + 1
        steps.append(_pm_step(marks, day, "role-change", f"{m.to}#{n}", m, [m.to]))
    for m in render_check_messages(config, before, outcome):
        if m.to:
            steps.append(_pm_step(marks, day, "check", m.to, m, [m.to]))
    if outcome.winner != "none":
        reveal = games.reveal_message(config, row, outcome)
        dead = {p.nick for p in outcome.state.players if not p.alive}
        readers = [nick for nick in before.nicks() if not (nick in dead and nick in muted)]
        # one PM each: phpBB takes 5 recipients by default, and a PM to all would list every player
        steps += [_pm_step(marks, day, "reveal", nick, reveal, [nick]) for nick in readers]
    return steps


def _lock(
    run: _Runner,
    marks: _Marks,
    poster: Poster,
    config: GameConfig,
    day: int,
    topic_id: int,
    report: PublishReport,
) -> None:
    """Lock the day's old topic. A lock the board cannot be asked for now, or did not make without saying
    why, stays due: reported, and tried again by the next publish run or watch pass (`_leftovers`);
    one the board refused (the account may not) is set aside, and a moderator locks it. Publishing goes on
    either way: the PMs and the advance matter more than the lock."""
    forum = str(config.forum.forum_id) if config.forum.forum_id is not None else ""
    letter = Letter("", "lock", [str(topic_id), forum], "", "")
    step = marks.step("lock", day, str(topic_id), letter, _lock_label(topic_id))
    try:
        done = run.deliver(step)
    except ForumError as exc:
        said = gettext(
            "topic {topic} of day {day} is not locked yet ({error}); the next publish run or watch pass tries again"
        )
        report.notes.append(said.format(topic=topic_id, day=day, error=exc))
        report.locked = False
        return
    report.locked = done.remote_id in ("locked", "already locked")
    if done.remote_id == "already locked":
        report.notes.append(gettext("topic {topic} of day {day} was locked already").format(topic=topic_id, day=day))
    elif done.how == "dropped":
        report.notes.append(
            gettext("the lock of topic {topic} of day {day} was dropped by the host").format(topic=topic_id, day=day)
        )
    elif not report.locked:
        number = _number(run.outbox.store, step.letter)
        said = gettext(
            "topic {topic} of day {day} was not locked: {error}; the account {account!r} must be a moderator of "
            "the forum to lock it: lock it by hand (then: forumbot outbox {game} --drop {number} --reason "
            "'locked by hand')"
        )
        error = done.error or gettext("the board refused")
        game = config.game.name
        report.notes.append(
            said.format(topic=topic_id, day=day, error=error, account=poster.username, game=game, number=number)
        )


def _leftovers(store: Store, row: GameRow, state: GameState, run: _Runner, report: PublishReport) -> int:
    """What earlier publications left due, delivered first, in order: the letters of days already
    published (a lock the board did not make then, a PM refused for now) and the moderators' draft PMs;
    never a role PM (the host may have sent those by hand, `--no-roles`), and never the current day's
    publication, which its own steps deliver. A lock still not made is noted and the rest goes on; any
    other passing fault stops here (the order kept). How many there were."""
    due = [
        letter
        for letter in store.pending(row.id, "publish")
        if (letter.purpose or "").startswith("draft-")
        or (letter.purpose != "role" and letter.day is not None and 0 < letter.day < state.day)
    ]
    for letter in due:
        label = _label(letter)
        try:
            run.deliver(_Step(letter, label, ""))
        except ForumError as exc:
            if letter.kind != "lock":
                raise
            said = gettext("{what} (day {day}): not yet ({error}); the next run tries again")
            report.notes.append(said.format(what=label, day=letter.day, error=exc))
    return len(due)


def _label(letter: Letter) -> str:
    """A letter as the report names it (as its step did)."""
    if letter.kind == "lock":
        return _lock_label(letter.recipients[0])
    if letter.kind == "topic":
        return _topic_label(letter.subject)
    if letter.kind == "pm":
        return _pm_label(letter.purpose or "pm", ", ".join(letter.recipients))
    return f"{letter.kind} {letter.marker}"


def _number(store: Store, letter: Letter) -> int | str:
    known = store.letter(letter.marker)
    return known.number if known is not None and known.number is not None else "N"


def no_topic_id(store: Store, row: GameRow, letter: Letter, what: str, day: int | None = None) -> TopicUnknown:
    """Why publishing cannot go on without a topic's id (`what`, a template of the catalogue filled in with
    `day`), and the host's way out, named: the outbox's number of its letter, the board's words."""
    known = store.letter(letter.marker, row.id)
    number = known.number if known is not None and known.number is not None else "N"
    said = gettext(what).format(day=day)
    if known is not None and known.status == "refused":
        return TopicUnknown(
            N_(
                "{game}: {what} was not posted: the board refused it ({error}). Once the cause is gone: "
                "forumbot outbox {game} --retry {number}, then forumbot publish {game}; or post it by hand and "
                "give its id: forumbot outbox {game} --drop {number} --id TOPIC --reason '...'"
            ),
            game=row.name,
            what=said,
            error=known.error,
            number=number,
        )
    if known is not None and known.status == "dropped":
        return TopicUnknown(
            N_(
                "{game}: {what} was dropped by the host. Post it by hand and give its id: forumbot outbox {game} "
                "--drop {number} --id TOPIC --reason '...'; or forumbot outbox {game} --retry {number}, then "
                "forumbot publish {game}"
            ),
            game=row.name,
            what=said,
            number=number,
        )
    return TopicUnknown(
        N_(
            "{game}: {what} was posted but the outbox holds no id for it (letter {number}); give the topic's id: "
            "forumbot outbox {game} --drop {number} --id TOPIC --reason '...'"
        ),
        game=row.name,
        what=said,
        number=number,
    )


# --- the draft to the moderators ---------------------------------------------------------------------


def draft_steps(store: Store, name: str) -> list[_Step]:
    """The current draft as a PM to each moderator of the config (its BBCode as the topic would show
    it): what `draft send` delivers and what the watch queues at the deadline, with the same markers, so
    that the same draft goes out once whoever sends it. A new draft (end-day again) gets new markers."""
    row, config = games.load(store, name)
    state = _running(row)
    draft = store.draft(row.id, state.day)
    if draft is None:
        raise StateError(N_("{game}: no draft for day {day} (forumbot end-day {game})"), game=name, day=state.day)
    moderators = tuple(config.game.moderators)
    if not moderators:
        raise ConfigError(N_("{game}: the config names no moderators ([game] moderators = [...])"), game=name)
    day = draft.draft
    version = draft_version(draft)
    message = Message(
        to=None,
        subject=draft_subject(config.game.name, state.day, draft),
        body=said_to.draft_text(config.game.name, state.day, day.post or day.bbcode, draft.approved_by, day.subject)
        + said_to.audit_summary(day, config.game.zone)
        + reports_note(store, row, config, day.outcome())
        + said_to.how_to_answer(draft_code(draft)),
    )
    marks = _Marks(store, row)
    # one PM per moderator: never more recipients than the board takes in one PM
    return [_pm_step(marks, state.day, f"draft-{version}", nick, message, [nick]) for nick in moderators]


def draft_letters(store: Store, name: str) -> list[Letter]:
    """`draft_steps` as letters for the watch's queue."""
    return [replace(step.letter, origin="watch") for step in draft_steps(store, name)]


def send_draft_to_moderators(
    store: Store,
    name: str,
    client: ForumClient,
    *,
    poster: Poster | None = None,
    checkpoint: Checkpoint = _no_checkpoint,
) -> DraftSent:
    """PM the current day's draft to each of the config's moderators (see `draft_steps`). It holds the
    game as publish and the watch do, so a watch pass sending the same PMs cannot send them twice."""
    with store.exclusive(store.game(name).id, "draft send"):
        return _send_draft(store, name, client, poster=poster, checkpoint=checkpoint)


def _send_draft(
    store: Store, name: str, client: ForumClient, *, poster: Poster | None, checkpoint: Checkpoint
) -> DraftSent:
    steps = draft_steps(store, name)
    row, config = games.load(store, name)
    state = _running(row)
    report = PublishReport(game=name, day=state.day)
    poster = poster or poster_for(client, flood_interval=config.forum.flood_interval)
    run = _Runner(Outbox(store, row.id, poster, checkpoint), report)
    remotes = run.each(steps)
    first = remotes[0] if remotes else None
    fates = [(step.letter.recipients[0], store.letter(step.letter.marker, row.id)) for step in steps]
    return DraftSent(  # what the board did with each letter, as the outbox knows it
        game=name,
        day=state.day,
        moderators=tuple(config.game.moderators),
        pm_id=int(first) if first is not None and first.isdigit() else None,
        already=bool(report.skipped) and not report.sent,
        delivered=tuple(nick for nick, x in fates if x is not None and x.status == "sent"),
        refused=tuple(
            (nick, x.error or gettext("dropped by the host"))
            for nick, x in fates
            if x is not None and x.status in ("refused", "dropped")
        ),
        waiting=tuple(nick for nick, x in fates if x is None or x.status not in ("sent", "refused", "dropped")),
    )


# --- the morning reports and the best player ---------------------------------------------------------


def report_messages(store: Store, row: GameRow, config: GameConfig, outcome: DayOutcome) -> list[Message]:
    """The personal morning reports a day's publication sends, one per living player: none unless the
    game turns them on (`[game] morning_reports`), none once the game is over (the reveal tells all)."""
    if not config.game.morning_reports or outcome.winner != "none":
        return []
    return render_reports(config, outcome, told_so_far([*past_outcomes(store, row, outcome.day), outcome]))


def past_outcomes(store: Store, row: GameRow, day: int) -> list[DayOutcome]:
    """The outcomes of the days before `day`, as their drafts hold them (each checker's results come from
    them)."""
    drafts = (store.draft(row.id, d) for d in range(1, day))
    return [found.draft.outcome() for found in drafts if found is not None]


def _report_steps(
    marks: _Marks, day: int, store: Store, row: GameRow, config: GameConfig, outcome: DayOutcome
) -> list[_Step]:
    reports = report_messages(store, row, config, outcome)
    steps = [_pm_step(marks, day, "report", m.to, m, [m.to]) for m in reports if m.to]
    best = render_best_player_message(config, outcome)
    if best is not None and best.to:
        steps.append(_pm_step(marks, day, "best-player", best.to, best, [best.to]))
    return steps


def reports_note(store: Store, row: GameRow, config: GameConfig, outcome: DayOutcome) -> str:
    """The draft's note of the personal PMs the publication sends besides the usual ones."""
    return said_to.reports_note(
        report_messages(store, row, config, outcome), render_best_player_message(config, outcome)
    )


# --- helpers -----------------------------------------------------------------------------------------


def _running(row: GameRow) -> GameState:
    if row.state is None:
        raise StateError(N_("{game}: roles are not dealt yet (forumbot deal {game})"), game=row.name)
    if row.state.winner != "none":
        raise StateError(
            N_("{game}: the game is over ({winner} won); nothing left to publish"),
            game=row.name,
            winner=row.state.winner,
        )
    return row.state


def _forum_id(config: GameConfig) -> int:
    if config.forum.forum_id is None:
        raise ConfigError(
            N_("{game}: set [forum] forum_id, the forum where the day topics are posted"), game=config.game.name
        )
    return config.forum.forum_id
