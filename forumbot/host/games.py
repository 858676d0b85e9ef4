"""The host's job, end to end: the one module that wires config, state, forum, extraction and engine.

    forum pages -> posts/PMs -> votes/orders (+ overrides) -> resolve_day -> draft (+ audit) -> advance

`end_day` reads and resolves a day and stores a DRAFT; nothing else changes until a moderator approves
it and `advance` records it (or `publish` posts it and then advances). Each step is a function of what
the previous one produced, and the only write is the draft's, in one transaction: a crash anywhere
leaves the state as it was, and a re-run gives the same draft.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from functools import partial
from typing import Any

from forumbot.config import (
    STORED,
    GameConfig,
    config_changes,
    load_game_config,
    lookalike_warnings,
    playing_moderators,
    roster_problem,
)
from forumbot.draft import Activity, DayDraft, Early, OrderRow, OverrideRow, VoidRow, VoteRow
from forumbot.engine import (
    DayInput,
    DayOutcome,
    GameState,
    Order,
    Removal,
    Replacement,
    RoleChange,
    Vote,
    apply_replacements,
    check_host_powers,
    deal,
    resolve_day,
    ruleset_for,
)
from forumbot.engine.commitment import commitment_of, role_list_text
from forumbot.engine.model import ACTIONS, Reason, VoidEntry
from forumbot.engine.variants import Ruleset, find_variant
from forumbot.errors import ConfigError, StateError
from forumbot.extract import Roster, VoteRecord, VoteSettings, extract_votes, find_fragments, orders_from_pm, read_body
from forumbot.extract.commands import is_command_line
from forumbot.extract.orders import OrderProblem, quoted_order_lines
from forumbot.extract.votes import counted_by_decision
from forumbot.forum.cache import PageCache, TopicRead, read_topic
from forumbot.forum.client import ForumClient, Progress
from forumbot.host import deadlines
from forumbot.host.daywindow import DayPms, TimedPm, read_day_pms
from forumbot.host.routing import BEFORE_DAY_1, NOT_TAKEN, Router
from forumbot.i18n import N_, gettext, ngettext
from forumbot.posts import Post, PrivateMessage
from forumbot.render import announcements
from forumbot.render.day import render_day, render_day_title
from forumbot.render.messages import Message, render_reveal
from forumbot.store import GameRow, Store

# The publications that show a day's result (see `publish`): once one is made, the day's outcome is public.
RESULT_PURPOSES = ("topic", "lock", "check", "role-change", "reveal")
EARLIEST = datetime.min.replace(tzinfo=UTC)
Checkpoint = Callable[[str], None]


def _no_checkpoint(step: str) -> None:
    return None


# --- games, signups, dealing ------------------------------------------------------------------------


def check_player_count(config: GameConfig) -> None:
    """A player list the variant cannot deal (its scheme has no such count, or its `roles` option another) is
    refused as `deal` would refuse it, naming the counts the rules take; an empty list (signups to come) passes."""
    if config.game.players:
        variant = find_variant(config.game.variant)
        variant(variant.parse_options(config.game.options)).deal_roles(len(config.game.players))


def create_game(store: Store, config: GameConfig) -> int:
    check_player_count(config)
    return store.create_game(
        config.game.name, config.game.variant, config.model_dump(mode="json"), list(config.game.players)
    )


def load(store: Store, name: str, *, on_change: Callable[[str], None] | None = None) -> tuple[GameRow, GameConfig]:
    """The game and its config. When the host edited the config's file since, the edit is applied (each
    changed field told to `on_change`) or, for a field that may no longer change, refused by name."""
    row = store.game(name)
    config = GameConfig.model_validate(row.config, context=STORED)
    edited = _edited_config(config)
    if edited is None:
        return row, config
    changes = config_changes(config, edited, dealt=row.state is not None)
    players = list(edited.game.players) if row.state is None and edited.game.players else None
    store.set_config(row.id, edited.model_dump(mode="json"), players)
    for change in changes:
        (on_change or _no_checkpoint)(
            gettext("{game}: config changed, applied: {change}").format(game=name, change=change)
        )
    return store.game(name), edited


def _edited_config(config: GameConfig) -> GameConfig | None:
    """The config's file as it reads now, when it differs from the stored config (None: unchanged or gone)."""
    if config.source is None or not config.source.is_file():
        return None
    try:
        edited = load_game_config(config.source)
    except ConfigError:
        # a file that passed the checks of its day and is unchanged since stays accepted; an edit is checked
        if load_game_config(config.source, stored=True) == config:
            return None
        raise
    return None if edited == config else edited


def check_roster(config: GameConfig, players: Sequence[str]) -> list[str]:
    """The players about to be dealt, as the config's own list is checked (docs/config.md): two nicks of one
    account, or a moderator who plays without `moderators_may_play`, refused naming the field; a warning for
    each pair of nicks that look alike."""
    where = config.source or config.game.name
    problem = roster_problem(list(players), N_("player"))
    if problem is not None:
        raise ConfigError(N_("{where}: game.players: {problem}"), where=where, problem=problem)
    both = playing_moderators(list(players), config.game.moderators)
    if both and not config.game.moderators_may_play:
        raise ConfigError(
            N_(
                "{where}: game.moderators: {names} also play, and a moderator receives every order and "
                "check: take him out of one list, or set moderators_may_play = true"
            ),
            where=where,
            names=", ".join(map(repr, both)),
        )
    return lookalike_warnings(list(players))


def signups_from_posts(posts: Iterable[Post], exclude: Iterable[str] = ()) -> list[str]:
    """Authors who signed up in red (seed 001: "Записываться следует красным цветом"), first come first."""
    skip = set(exclude)
    players: list[str] = []
    for post in sorted(posts, key=lambda p: (p.time, p.post_id)):
        author = post.author.strip()
        if author in skip or author in players:
            continue
        if any(f.red and not f.quoted and not f.spoiler and f.text.strip() for f in find_fragments(post.content_html)):
            players.append(author)
    return players


def record_signups(store: Store, name: str, posts: Iterable[Post], exclude: Iterable[str] = ()) -> list[str]:
    row = store.game(name)
    if row.state is not None:
        raise StateError(N_("{game}: roles are dealt already; the player list can no longer change"), game=name)
    players = signups_from_posts(posts, exclude)
    store.set_players(row.id, players)
    return players


@dataclass(frozen=True)
class Dealt:
    state: GameState
    commitment: str
    deadline: datetime
    warnings: list[str] = field(default_factory=list)  # nicks that look alike (`check_roster`)


def commitment_line(commitment: str) -> str:
    """The line of day 1's post that commits to the roles."""
    return announcements.commitment_line(commitment)


def reveal_message(config: GameConfig, row: GameRow, outcome: DayOutcome, *, heading: bool = True) -> Message:
    """The end of the game: every role, and the salt that opens the commitment (`heading=False`: below the
    day post, which says already that the game is over)."""
    if not row.salt or not row.commitment:
        raise StateError(N_("{game}: no salt and commitment stored: the roles cannot be revealed"), game=row.name)
    dealt = GameState.model_validate_json(row.dealt_json) if row.dealt_json else None
    return render_reveal(config, outcome.state, row.salt, row.commitment, dealt, heading=heading)


def post_text(config: GameConfig, row: GameRow, before: GameState, outcome: DayOutcome, bbcode: str) -> str:
    """The day's post as it will be published: the day's BBCode, the commitment after day 1, and the
    reveal when the game is over."""
    body = bbcode.rstrip()
    if before.day == 1 and row.commitment:
        body += "\n\n" + commitment_line(row.commitment)
    if outcome.winner != "none":
        body += "\n\n" + reveal_message(config, row, outcome, heading=False).body.rstrip()
    return body


def deal_game(
    store: Store,
    name: str,
    now: datetime,
    *,
    topic: str | None = None,
    deadline: datetime | None = None,
    seed: int | None = None,
) -> Dealt:
    """Deal the roles with `seed` (default: a secure random one; stored), commit to them, and open day 1.
    A fixed seed is for demos and replays: anyone who knows it can work out the roles."""
    row, config = load(store, name)
    players = store.players(row.id)
    warnings = check_roster(config, players)
    if seed is None:
        seed = secrets.randbits(63)
    state = deal(row.variant, players, seed, config.game.options)
    salt = secrets.token_hex(16)
    commitment = commitment_of(state, salt)
    store.save_deal(row.id, state, salt, commitment)
    end = deadline or deadlines.first_deadline(now, config.game.deadline, config.game.zone)
    store.open_day(row.id, 1, now, end, topic)
    return Dealt(state, commitment, end, warnings)


# --- end of day -------------------------------------------------------------------------------------


def end_day(
    store: Store,
    name: str,
    client: ForumClient,
    *,
    early: Early | None = None,
    now: datetime | None = None,
    checkpoint: Checkpoint = _no_checkpoint,
    progress: Progress | None = None,
) -> DayDraft:
    """Read the day, resolve it, store the draft (replacing any earlier one) and return it. `early`: the
    host ends the day before its deadline, and why (kept in the draft).

    The whole topic is read now (every page, so every edit made before the read is seen), and every PM
    of the day window: the day's, in the forum's order; the late ones and those whose side of the
    deadline the forum does not tell are listed in the audit and not counted."""
    row, config = load(store, name)
    state = _dealt_state(row)
    day = _open_day(store, row, state)
    made = store.published_on(row.id, state.day, RESULT_PURPOSES)
    if made:
        raise StateError(
            N_(
                "{game}: day {day} is being published already ({n} publication(s) made or begun, "
                "the first: {kind} {which}); a new draft would contradict "
                "what the forum shows: finish it with forumbot publish {game}"
            ),
            game=name,
            day=state.day,
            n=len(made),
            kind=made[0].kind,
            which=made[0].remote_id or made[0].marker,
        )
    rules = ruleset_for(state)
    start, deadline = day["starts_at"], day["deadline"]
    topic = read_day_topic(store, client, day["topic"], progress)
    posts = topic.posts
    checkpoint("posts read")
    router = Router.for_game(store, name)
    window = read_day_pms(
        client,
        start,
        deadline,
        since=_listed_since(store, row, state, start),
        owner=partial(router.ownership, name),
        keep=_kept_before(store, row, state),
    )
    pms = window.messages
    checkpoint("messages read")
    bot = client.account
    recorded = store.overrides(row.id, state.day)
    powers = host_powers(recorded)
    # Read the forum as the day is played: a replaced slot's posts and PMs count under its new account only.
    reading, _ = apply_replacements(state, powers.replacements)
    settings = with_post_decisions(vote_settings(reading, rules, start, deadline, bot=bot), recorded)
    votes, vote_audit = _votes(settings, rules.vote_channels, posts, window.inside)
    dead = [p.nick for p in reading.players if not p.alive]
    orders, order_audit = audit_pms(window, reading.nicks(), rules, dead=dead)
    _name_former_nicks(reading, vote_audit, order_audit)
    lifted = frozenset(str(p.post_id) for p in posts if counted_by_decision(p, settings))
    votes, orders, override_audit, override_warnings = _apply_overrides(
        recorded, votes, orders, vote_audit, order_audit, lifted=lifted
    )
    checkpoint("votes and orders extracted")
    activity = _activity(reading, posts, pms, start, deadline)
    # A player the host gave a vote or an order (an override) is not silent that day.
    acted = {v.voter for v in votes} | {o.actor for o in orders}
    silent = frozenset(n for n, a in activity.items() if a["posts"] == 0 and a["orders"] == 0 and n not in acted)
    day_input = DayInput(
        leaving=frozenset(store.leaving(row.id)),
        votes=tuple(votes),
        orders=tuple(orders),
        silent=silent,
        posts={n: a["posts"] for n, a in activity.items()},
        replacements=powers.replacements,
        removals=powers.removals,
        appoint_maniac=powers.appoint_maniac,
        scheme=powers.scheme,
        best_player=powers.best_player,
    )
    outcome = resolve_day(state, day_input)
    checkpoint("day resolved")
    told = deadlines.next_deadline(config, day, recorded, now) if outcome.winner == "none" else None
    genders = store.genders(row.id)
    draft = _draft(config, row, state, outcome, vote_audit, order_audit, override_audit, activity, rules, genders, told)
    draft.unread_pms = [dict(unread) for unread in window.unread]
    draft.page_problems = list(topic.problems)
    draft.warnings = uncertain_warnings(window, deadline, start) + override_warnings
    draft.early = early
    store.save_draft(row.id, state.day, draft)
    checkpoint("draft stored")
    return draft


def _listed_since(store: Store, row: GameRow, state: GameState, start: datetime) -> datetime:
    """From when a PM sent before the day's start is listed in its audit: the previous day's end (its
    deadline, or when it was ended early: what came after it was no day's), or before day 1 what `routing`
    still counts as the game's."""
    previous = store.day(row.id, state.day - 1) if state.day > 1 else None
    if previous is None:
        return start - BEFORE_DAY_1
    deadline: datetime = previous["deadline"]
    drafted = store.draft(row.id, state.day - 1)
    early = drafted.draft.early if drafted is not None else None
    ended = datetime.fromisoformat(early.at) if early is not None and early.at else deadline
    return min(ended, deadline, start)


def _kept_before(store: Store, row: GameRow, state: GameState) -> Callable[[int], bool]:
    """Which PM dated before the listed range end-day reads all the same: one this game took (the watch
    answered it) that no earlier day's audit lists. Only clocks that disagree make one (a board's against
    the bot's `--now`), and a PM the bot answered is never missing from the audit."""
    listed = {
        drafted_row.pm_id
        for day in range(1, state.day)
        if (drafted := store.draft(row.id, day)) is not None
        for drafted_row in drafted.draft.orders
    }

    def keep(pm_id: int) -> bool:
        kind = store.handled_kinds(pm_id).get(row.id)
        return kind is not None and kind not in NOT_TAKEN and pm_id not in listed

    return keep


def uncertain_warnings(window: DayPms, deadline: datetime, start: datetime) -> list[str]:
    """What the host must decide: PMs the forum dates only to an interval that straddles the day's edge."""
    warnings = []
    for timed in window.uncertain:
        at_deadline = timed.interval is None or timed.interval[1] > deadline
        said = (
            gettext(
                "PM {pm} from {sender}: sent {when}, the forum does not say on which side of the deadline; "
                "not counted (override it if it was in time)"
            )
            if at_deadline
            else gettext(
                "PM {pm} from {sender}: sent {when}, the forum does not say on which side of the day's start; "
                "not counted (override it if it was in time)"
            )
        )
        warnings.append(said.format(pm=timed.pm.pm_id, sender=timed.pm.sender, when=timed.when()))
    return warnings


def votes_so_far(store: Store, name: str, client: ForumClient) -> list[VoteRow]:
    """The current day's counted thread votes up to now, without resolving or storing anything."""
    row, _ = load(store, name)
    state = _dealt_state(row)
    day = _open_day(store, row, state)
    posts = read_day_topic(store, client, day["topic"]).posts
    rules = ruleset_for(state)
    settings = vote_settings(state, rules, day["starts_at"], day["deadline"], bot=client.account)
    _, audit = _votes(settings, rules.vote_channels, posts, [])
    return [entry for entry in audit if entry.counted]


def read_day_topic(store: Store, client: ForumClient, topic: str, progress: Progress | None = None) -> TopicRead:
    """The whole day topic, every page fetched now (each edit is seen): the state file's page cache marks
    the posts whose body changed since an earlier read."""
    return read_topic(client, PageCache(store), topic, progress=progress, on_body=read_body)


def _open_day(store: Store, row: GameRow, state: GameState) -> dict[str, Any]:
    """The current day's record; it must be open and have its topic."""
    day = store.day(row.id, state.day)
    if day is None:
        raise StateError(N_("{game}: day {day} is not open"), game=row.name, day=state.day)
    if not day["topic"]:
        raise StateError(
            N_("{game}: day {day} has no topic yet (forumbot day-topic {game} TOPIC)"), game=row.name, day=state.day
        )
    return day


def _dealt_state(row: GameRow) -> GameState:
    if row.state is None:
        raise StateError(N_("{game}: roles are not dealt yet (forumbot deal {game})"), game=row.name)
    if row.state.winner != "none":
        raise StateError(N_("{game}: the game is over ({winner} won)"), game=row.name, winner=row.state.winner)
    return row.state


def _in_window(moment: datetime | None, start: datetime, deadline: datetime) -> bool:
    return moment is not None and start <= moment < deadline


def vote_settings(
    state: GameState, rules: Ruleset, start: datetime, deadline: datetime, *, bot: str | None = None
) -> VoteSettings:
    """What decides the day's votes besides the posts and PMs, gathered once from the game's state and rules:
    the players (a dead one is named, never votes), the day's bounds, the variant's nick matching and edited
    votes, the targets a vote names today, and the bot's own account (its posts are no votes)."""
    dead = [p.nick for p in state.players if not p.alive]
    return VoteSettings(
        Roster([*(p.nick for p in state.living()), *dead]),
        dead=frozenset(dead),
        start=start,
        deadline=deadline,
        mode=rules.options.nick_matching,
        edited_votes=rules.options.edited_votes,
        votes_per_post=rules.max_targets(state.day, "vote", len(state.players)),
        skip_authors=(bot,) if bot else (),
    )


def with_post_decisions(settings: VoteSettings, overrides: Sequence[OverrideRow]) -> VoteSettings:
    """The settings with the host's decisions on posts: the last decision on a post is the one that holds."""
    last: dict[int, bool] = {}
    for o in overrides:
        if o.kind in POST_DECISIONS and o.subject.isdigit():
            last[int(o.subject)] = o.kind == "count_post"
    return replace(
        settings,
        counted_posts=frozenset(post for post, counted in last.items() if counted),
        ignored_posts=frozenset(post for post, counted in last.items() if not counted),
    )


POST_DECISIONS = ("count_post", "ignore_post")


def _votes(
    settings: VoteSettings, channels: Collection[str], posts: list[Post], pms: Sequence[TimedPm]
) -> tuple[list[Vote], list[VoteRow]]:
    """Votes in time order, from the variant's `channels`, and the audit of every vote seen (the bot's own
    posts are neither); a vote by PM is read with the thread's settings (its nicks matched alike)."""
    audit: list[VoteRow] = []
    timed: list[tuple[datetime, int, Vote]] = []
    records = extract_votes(posts, settings)
    for record in records:
        entry = _thread_row(record)
        if "thread" not in channels and record.counted:
            entry.counted, entry.reason = False, "wrong_channel"
        audit.append(entry)
    if "thread" in channels:
        timed += [(r.time, r.post_id, _thread_vote(r)) for r in records if r.counted]
        timed = _merge_double(timed)
    for placed in pms:
        pm, read = placed.pm, placed.read
        if read.commands.relay is not None:
            continue  # a relayed letter carries no vote
        orders, _ = orders_from_pm(pm, settings.roster, mode=settings.mode, parsed=read.orders)
        for order in orders:
            if order.action != "vote":
                continue
            audit.append(
                VoteRow(
                    voter=order.actor,
                    target=", ".join(order.targets),
                    time=_iso(pm.time),
                    link=order.ref,
                    channel="pm",
                    counted="pm" in channels,
                    reason=None if "pm" in channels else "wrong_channel",
                )
            )
            sent = pm.time or settings.start  # a PM of the day is dated; one that is not sorts as sent at the start
            if "pm" in channels and sent is not None:
                timed.append(
                    (sent, pm.pm_id, Vote(voter=order.actor, targets=order.targets, time=pm.time, ref=order.ref))
                )
    timed.sort(key=lambda t: (t[0], t[1]))
    return [v for _, _, v in timed], audit


def _thread_row(record: VoteRecord) -> VoteRow:
    """A fragment of the day thread as the audit shows it, counted or not (a spoiler is a spoiler, not a quote)."""
    return VoteRow(
        post_id=record.post_id,
        voter=record.voter,
        target=record.target,
        time=record.time.isoformat(),
        counted=record.counted,
        reason=record.reason,
        text=record.text,
        nearest=record.nearest,
        edited_by=record.edited_by,
        link=record.permalink,
        channel="thread",
    )


def _thread_vote(record: VoteRecord) -> Vote:
    """A counted fragment of the day thread as the engine's vote, with the post it was written in."""
    return Vote(
        voter=record.voter, targets=(record.target,), time=record.time, ref=record.permalink, post_id=record.post_id
    )


def _merge_double(timed: list[tuple[datetime, int, Vote]]) -> list[tuple[datetime, int, Vote]]:
    """Two counted fragments of one post (a double-vote day) are one vote naming two players."""
    merged: dict[int, tuple[datetime, int, Vote]] = {}
    for moment, post_id, vote in timed:
        if post_id in merged:
            first = merged[post_id][2]
            vote = first.model_copy(update={"targets": first.targets + vote.targets})
        merged[post_id] = (moment, post_id, vote)
    return list(merged.values())


def audit_pms(
    window: DayPms, nicks: Sequence[str], rules: Ruleset, *, dead: Sequence[str] = ()
) -> tuple[list[Order], list[OrderRow]]:
    """The day's orders (votes aside), in the forum's order, and an audit row for every line of every PM
    of the window: the day's, the late ones (`after_deadline`) and those the forum dates only to an
    interval across the deadline or the start (`uncertain_time`). A relayed letter (`#mail`, `#mafia`...)
    carries no order; a PM with nothing to read is listed too, so the host sees every message."""
    everyone = Roster(list(nicks))
    gone = set(dead)
    orders: list[Order] = []
    audit: list[OrderRow] = []
    for timed in window.all_listed():
        pm = timed.pm
        outside = {"after": "after_deadline", "uncertain": "uncertain_time", "before": "before_start"}.get(timed.side)
        rows: list[OrderRow] = []
        if timed.read.commands.relay is not None:
            rows.append(_message_entry(timed, "relay"))
        else:
            found, problems = orders_from_pm(pm, everyone, mode=rules.options.nick_matching, parsed=timed.read.orders)
            for order in found:
                if order.action == "vote":
                    continue
                reason = outside or _order_reason(order, rules, gone)
                if reason is None:
                    orders.append(order)
                rows.append(_order_entry(order, pm, valid=reason is None, reason=reason))
            rows += [_problem_entry(p, pm, outside) for p in problems]
            rows += [_quoted_entry(pm, action, target, line) for action, target, line in quoted_order_lines(pm)]
            if not rows:
                rows.append(_message_entry(timed, outside or "no_order"))
        for entry in rows:
            entry.time, entry.pm_id = timed.when(), pm.pm_id
        audit += rows
    # what it says is never read out: it may be another game's, whose moderators alone may see it
    audit += [_message_entry(t, "which_game") for t in window.unplaced]
    return orders, sorted(audit, key=lambda row: row.pm_id or 0)


def _name_former_nicks(state: GameState, vote_audit: list[VoteRow], order_audit: list[OrderRow]) -> None:
    """A vote or order naming a replaced player's former nick names nobody (nicks are exact), and one sent by the
    former account never counts: their audit rows say whose former nick it is, so the moderators can set it right
    with an override."""
    former = {old: p.nick for p in state.players for old in p.replaced}
    if not former:
        return
    for vote in vote_audit:
        _former_reason(vote, former, vote.voter, [str(vote.target)], ("unknown_nick",))
    for order in order_audit:
        _former_reason(order, former, order.actor, order.targets, ("unknown_target",))


def _former_reason(
    entry: VoteRow | OrderRow, former: dict[str, str], sender: str, targets: list[str], unknown: tuple[str, ...]
) -> None:
    why: Reason | None = None
    if entry.reason == "not_player" and sender in former:
        why = Reason(code="replaced", nick=former[sender])
    elif entry.reason in unknown:
        named = next((t for t in targets if t in former), None)
        if named is not None:
            why = Reason(code="target_replaced", nick=named, other=former[named])
    if why is not None:
        entry.reason, entry.why = why.text, why


def _order_reason(order: Order, rules: Ruleset, dead: set[str]) -> str | None:
    """Why an order is void before the rules see it (the rules judge roles, targets and changes)."""
    if order.action not in rules.actions:
        return "no_such_order"
    if order.actor in dead:
        return "dead_sender"
    return None


def _message_entry(timed: TimedPm, reason: str) -> OrderRow:
    """A PM with no order line to show (a relayed letter, nothing to read, another game's...), listed so."""
    return OrderRow(
        actor=timed.pm.sender,
        action=None,
        targets=[],
        link=timed.pm.url,
        valid=False,
        reason=reason,
        time=timed.when(),
        pm_id=timed.pm.pm_id,
    )


def _order_entry(order: Order, pm: PrivateMessage, *, valid: bool, reason: str | None) -> OrderRow:
    return OrderRow(
        actor=order.actor,
        action=order.action,
        targets=list(order.targets),
        link=order.ref,
        valid=valid,
        reason=reason,
    )


def _quoted_entry(pm: PrivateMessage, action: str, target: str, line: str) -> OrderRow:
    """An order line inside a quote (a quoted or forwarded letter): shown, never counted."""
    return OrderRow(
        actor=pm.sender,
        action=action,
        targets=[target],
        link=pm.url or f"pm:{pm.pm_id}",
        valid=False,
        reason="quoted",
        line=line,
    )


def _problem_entry(problem: OrderProblem, pm: PrivateMessage, outside: str | None) -> OrderRow:
    """A line not understood (or a command to the bot); `outside`: the PM is outside the day, which says why."""
    command = problem.reason == "unknown_line" and is_command_line(problem.raw)  # Z, Q, O ...: the watch answers
    return OrderRow(
        actor=problem.sender,
        action="command" if command else None,
        targets=[problem.target_text] if problem.target_text else [],
        link=problem.ref,
        valid=False,
        reason=outside or ("command" if command else problem.reason),
        line=problem.raw,
        nearest=problem.nearest,
    )


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment is not None else None


def _apply_overrides(
    overrides: list[OverrideRow],
    votes: list[Vote],
    orders: list[Order],
    vote_audit: list[VoteRow],
    order_audit: list[OrderRow],
    *,
    lifted: frozenset[str] = frozenset(),
) -> tuple[list[Vote], list[Order], list[OverrideRow], list[str]]:
    """The host's and moderators' decisions, applied in the order they were made, to the votes and orders the
    engine resolves and to the audit rows alike: a row a decision takes out is not counted (not valid), one it
    puts in is counted (valid), each with the decision (`decided`). A decision on a post was read with the posts
    (`with_post_decisions`: the post is valid or void, and its voter's latest valid vote stands, as for any
    post); here the rows it changed are given it (`lifted`: the posts read as votes only by a decision). Decisions
    on a voter's vote come after those on posts. A warning for each decision that names a post holding no vote of
    the day (it changes nothing)."""
    applied: list[OverrideRow] = []
    warnings: list[str] = []
    last_on_post = {o.subject: o for o in overrides if o.kind in POST_DECISIONS}
    for o in overrides:
        kind, subject, value = o.kind, o.subject, o.value or ""
        if kind in POST_DECISIONS and not any(str(e.post_id) == subject for e in vote_audit):
            said = gettext("override by {nick}: {kind} {subject}: no vote of the day is in post {subject}")
            warnings.append(said.format(nick=o.by, kind=kind, subject=subject))
        if kind in POST_DECISIONS and last_on_post[subject] is o:
            _post_decided(vote_audit, subject, o, lifted=subject in lifted)
        elif kind == "set_vote":
            vote = _set_vote(votes, subject, value)
            votes = _in_its_place([v for v in votes if v.voter != subject], vote)
            _overridden(vote_audit, subject, o)
            vote_audit.append(_override_row(vote, o))
        elif kind == "clear_vote":
            votes = [v for v in votes if v.voter != subject]
            _overridden(vote_audit, subject, o)
        elif kind == "set_order":
            action, targets = json.loads(value)
            orders = [x for x in orders if not (x.actor == subject and x.action == action)]
            order = Order(actor=subject, action=action, targets=tuple(targets))
            orders.append(order)
            _orders_overridden(order_audit, subject, action, o)
            order_audit.append(_order_override_row(order, o))
        elif kind == "clear_order":
            orders = [x for x in orders if not (x.actor == subject and x.action == value)]
            _orders_overridden(order_audit, subject, value, o)
        applied.append(o)
    return votes, orders, applied, warnings


def _decide(entry: VoteRow | OrderRow, override: OverrideRow, *, counted: bool) -> None:
    """An audit row as the host's decision makes it: counted (valid) or not, and why."""
    if isinstance(entry, VoteRow):
        entry.counted = counted
    else:
        entry.valid = counted
    entry.reason, entry.why, entry.decided = _decided_by(override), None, override


def _post_decided(vote_audit: list[VoteRow], post_id: str, override: OverrideRow, *, lifted: bool) -> None:
    """The rows of a post the host decided on carry the decision: those it voided (ignored), and those it made
    count when the post was void (`lifted`). A row it made valid that the voter's later vote replaced says
    so ("superseded"), as `_mark_replaced` leaves such a row; a post counted that counted already is left as
    it is."""
    for entry in vote_audit:
        if str(entry.post_id) != post_id:
            continue
        if entry.reason == "ignored":
            _decide(entry, override, counted=False)
        elif lifted and override.kind == "count_post" and entry.counted:
            entry.decided = override


def _in_its_place(votes: list[Vote], vote: Vote) -> list[Vote]:
    """The host's vote among the day's votes in time order: where its time puts it (the engine breaks a tie by who
    was voted for first, in this order), else last."""
    at = next((i for i, v in enumerate(votes) if _later(v, vote)), len(votes))
    return [*votes[:at], vote, *votes[at:]]


def _later(vote: Vote, than: Vote) -> bool:
    return vote.time is not None and than.time is not None and vote.time > than.time


def _overridden(vote_audit: list[VoteRow], voter: str, override: OverrideRow) -> None:
    """The voter's counted votes give way to the host's decision: the audit (and the chart) say so."""
    for entry in vote_audit:
        if entry.voter == voter and entry.counted:
            _decide(entry, override, counted=False)


def _orders_overridden(order_audit: list[OrderRow], actor: str, action: str, override: OverrideRow) -> None:
    """The actor's valid orders of the kind give way to the host's decision (cleared, or set anew)."""
    for entry in order_audit:
        if entry.actor == actor and entry.action == action and entry.valid:
            _decide(entry, override, counted=False)


def _override_row(vote: Vote, override: OverrideRow) -> VoteRow:
    """The host's vote as an audit row, so the preview's tables and chart show the vote the post counts."""
    return VoteRow(
        post_id=None,
        voter=vote.voter,
        target=", ".join(vote.targets),
        time=_iso(vote.time),
        counted=True,
        reason=_decided_by(override),
        channel="override",
        link=None,
        decided=override,
    )


def _order_override_row(order: Order, override: OverrideRow) -> OrderRow:
    """The host's order as an audit row: the order the engine carries out is among the day's orders."""
    return OrderRow(
        actor=order.actor,
        action=order.action,
        targets=list(order.targets),
        link=None,
        valid=True,
        reason=_decided_by(override),
        decided=override,
    )


def _set_vote(votes: list[Vote], voter: str, value: str) -> Vote:
    """The host's vote for `voter`, at the time given with it, else at the time of the vote it replaces (a
    tie broken by who was voted for first must not change because the host corrected a name)."""
    if value.startswith("{"):
        given = json.loads(value)
        targets, at = tuple(given["targets"]), datetime.fromisoformat(given["at"]) if given.get("at") else None
    else:
        targets, at = tuple(value.split("\n")), None
    replaced = next((v for v in reversed(votes) if v.voter == voter), None)
    return Vote(voter=voter, targets=targets, time=at or (replaced.time if replaced is not None else None))


def list_overrides(store: Store, name: str) -> list[tuple[int, dict[str, Any]]]:
    """The current day's overrides, powers and deadline moves, numbered as `override --remove` takes them."""
    row, _ = load(store, name)
    state = _dealt_state(row)
    return [(n, o) for n, (_, o) in enumerate(store.numbered_overrides(row.id, state.day), start=1)]


def remove_override(store: Store, name: str, number: int, by: str) -> dict[str, Any]:
    """Take back override `number` of the current day (as `list_overrides` numbers them); the next end-day
    goes without it. A moved deadline is not taken back so: move it again, so that players are told."""
    row, config = load(store, name)
    state = _dealt_state(row)
    require_moderator(config, name, by)
    rows = store.numbered_overrides(row.id, state.day)
    if not 1 <= number <= len(rows):
        raise StateError(
            N_("{game}: day {day} has {n} override(s); there is no number {number}"),
            game=name,
            day=state.day,
            n=len(rows),
            number=number,
        )
    override_id, override = rows[number - 1]
    if override["kind"] in deadlines.DEADLINE_KINDS:
        raise StateError(
            N_("{game}: override {number} is a {kind}: set it again instead (it is announced)"),
            game=name,
            number=number,
            kind=override["kind"],
        )
    if store.published_on(row.id, state.day, RESULT_PURPOSES):
        raise StateError(
            N_("{game}: day {day} is being published already; its overrides are settled"), game=name, day=state.day
        )
    store.remove_override(row.id, override_id)
    return override


def parse_override(
    state: GameState,
    count_post: int | None,
    ignore_post: int | None,
    set_vote: str | None,
    clear_vote: str | None,
    set_order: str | None,
    clear_order: str | None,
    at: datetime | None = None,
) -> tuple[str, str, str | None]:
    """An override as given on the command line -> (kind, subject, value), nicks checked against the game.
    `at`: the time of a --set-vote (else it keeps the time of the vote it replaces)."""
    nicks = list(state.nicks())

    def player(nick: str) -> str:
        nick = nick.strip()
        if nick not in nicks:
            nearest = Roster(nicks).nearest(nick)
            if nearest:
                raise StateError(N_("{nick!r} is not a player (did you mean {nearest!r}?)"), nick=nick, nearest=nearest)
            raise StateError(N_("{nick!r} is not a player"), nick=nick)
        return nick

    if count_post is not None:
        return "count_post", str(count_post), None
    if ignore_post is not None:
        return "ignore_post", str(ignore_post), None
    if set_vote is not None:
        voter, sep, target = set_vote.partition("=")
        if not sep:
            raise StateError(N_("--set-vote wants VOTER=TARGET"))
        targets = [player(t) for t in target.split(",")]
        if at is not None:
            return "set_vote", player(voter), json.dumps({"targets": targets, "at": at.isoformat()}, ensure_ascii=False)
        return "set_vote", player(voter), "\n".join(targets)
    if clear_vote is not None:
        return "clear_vote", player(clear_vote), None
    if set_order is not None:
        actor, sep, rest = set_order.partition("=")
        action, sep2, target = rest.partition(":")
        if not sep or not sep2 or action.strip() not in ACTIONS:
            raise StateError(
                N_("--set-order wants ACTOR=ACTION:TARGET with ACTION one of {actions}"), actions=", ".join(ACTIONS)
            )
        targets = [player(t) for t in target.split(",")]
        return "set_order", player(actor), json.dumps([action.strip(), targets], ensure_ascii=False)
    if clear_order is not None:
        actor, sep, action = clear_order.partition("=")
        if not sep or action.strip() not in ACTIONS:
            raise StateError(
                N_("--clear-order wants ACTOR=ACTION with ACTION one of {actions}"), actions=", ".join(ACTIONS)
            )
        return "clear_order", player(actor), action.strip()
    raise StateError(N_("no override given"))


POWERS = ("replace", "remove", "appoint_maniac", "scheme", "best_player")


def host_powers(overrides: Sequence[OverrideRow]) -> DayInput:
    """The host's powers recorded for a day (`forumbot replace`, `remove`, ...), as the day's input
    carries them to the engine, which checks each and records it as an event."""
    replacements: list[Replacement] = []
    removals: list[Removal] = []
    scheme: list[RoleChange] = []
    maniac: str | None = None
    best: str | None = None
    for o in overrides:
        kind, subject, value, reason = o.kind, o.subject, o.value, o.reason
        if kind == "replace":
            replacements.append(Replacement(old=subject, new=value or "", reason=reason))
        elif kind == "remove":
            removals.append(Removal(nick=subject, reason=reason))
        elif kind == "appoint_maniac":
            maniac = subject
        elif kind == "scheme":
            role, _, boss = (value or "").partition(" ")
            scheme.append(RoleChange(nick=subject, role=role, boss=boss == "boss"))
        elif kind == "best_player":
            best = subject
    return DayInput(
        replacements=tuple(replacements),
        removals=tuple(removals),
        scheme=tuple(scheme),
        appoint_maniac=maniac,
        best_player=best,
    )


def record_power(store: Store, name: str, kind: str, subject: str, value: str | None, *, reason: str, by: str) -> None:
    """Record one of the host's powers for the current day (who and why, in the audit); end-day replays
    it. The engine's checks run at once, so a power the rules refuse is refused now, naming why."""
    if kind not in POWERS:
        raise StateError(N_("{kind!r}: not a power of the host ({powers})"), kind=kind, powers=", ".join(POWERS))
    if not reason.strip() or not by.strip():
        raise StateError(N_("a power of the host needs --reason and --by"))
    row, config = load(store, name)
    state = _dealt_state(row)
    trial = [*store.overrides(row.id, state.day), OverrideRow(kind=kind, subject=subject, value=value, reason=reason)]
    powers = host_powers(trial)
    ruleset_for(state).check_day_input(state.day, powers)  # what the variant does not give its host, named
    playing, _ = apply_replacements(state, powers.replacements)  # a replacement the rules refuse fails here
    _check_power_subject(config, playing, kind, subject, value)
    # Judged now, against the day's roles: a power invalid when made fails here, naming why; what the day itself
    # may make moot (the appointee dies...) is recorded without effect by end-day, never refused.
    check_host_powers(state, powers)
    store.add_override(row.id, state.day, kind, subject, value, reason, by)


def _check_power_subject(config: GameConfig, state: GameState, kind: str, subject: str, value: str | None) -> None:
    """The player a power names plays now (a removal: and lives); a new account is no moderator's, unless the
    game lets moderators play. Refused at once, naming the power and the nick, never recorded to fail later."""
    if kind == "replace":
        new = [value or ""]
        both = playing_moderators(new, config.game.moderators)
        if both and not config.game.moderators_may_play:
            raise ConfigError(
                N_("power replace: {value!r} is a moderator of {name}, who may not play"),
                value=both[0],
                name=config.game.name,
            )
        return
    player = state.player(subject)
    if player is None:
        former = next((p.nick for p in state.players if subject in p.replaced), None)
        hint = (
            f"; {subject!r} was replaced by {former!r}"
            if former is not None
            else f"; did you mean {nearest!r}?"
            if (nearest := Roster(state.nicks()).nearest(subject)) is not None
            else ""
        )
        raise StateError(
            N_("power {replace}: {subject!r} is not a player of {name}{hint}"),
            replace=kind.replace("_", "-"),
            subject=subject,
            name=config.game.name,
            hint=hint,
        )
    if kind == "remove" and not player.alive:
        raise StateError(N_("power remove: {subject!r} is dead already"), subject=subject)


def _activity(
    state: GameState, posts: Sequence[Post], pms: Sequence[PrivateMessage], start: datetime, deadline: datetime
) -> dict[str, dict[str, int]]:
    """Posts in the day thread and PMs sent, per living player, inside the day."""
    activity = {p.nick: {"posts": 0, "orders": 0} for p in state.living()}
    for post in posts:
        author = post.author.strip()
        if author in activity and _in_window(post.time, start, deadline):
            activity[author]["posts"] += 1
    for pm in pms:
        sender = pm.sender.strip()
        if sender in activity:
            activity[sender]["orders"] += 1
    return activity


def _draft(
    config: GameConfig,
    row: GameRow,
    state: GameState,
    outcome: DayOutcome,
    vote_audit: list[VoteRow],
    order_audit: list[OrderRow],
    overrides: list[OverrideRow],
    activity: dict[str, dict[str, int]],
    rules: Ruleset,
    genders: dict[str, str],
    next_deadline: datetime | None = None,
) -> DayDraft:
    """The day's draft; the post tells the next day's deadline, which `advance` then keeps."""
    bbcode = render_day(config, state, outcome, genders, next_deadline).body
    void = _merge_void(outcome, vote_audit, order_audit)  # marks the audit rows the rules voided
    return DayDraft(
        day=outcome.day,
        deaths=dict(outcome.deaths),
        checks=dict(outcome.checks),
        winner=outcome.winner,
        executed=list(outcome.executed),
        tally=dict(outcome.tally),
        votes=_mark_replaced(vote_audit),
        void=void,
        orders=_mark_superseded(order_audit),
        overrides=overrides,
        activity={nick: Activity(**counts) for nick, counts in activity.items()},
        inactivity=inactivity_notes(state, outcome, activity, rules),
        events=list(outcome.events),
        bbcode=bbcode,
        subject=render_day_title(config, state, outcome),
        post=post_text(config, row, state, outcome, bbcode),
        state=outcome.state,
        next_deadline=_iso(next_deadline),
    )


def _merge_void(outcome: DayOutcome, vote_audit: list[VoteRow], order_audit: list[OrderRow]) -> list[VoidRow]:
    """Mark the audit entries the rules voided (dead target, wrong role, too many changes...) with the
    rules' reason; return the voided votes and orders that have no audit entry. A vote is every row it was
    read from (two fragments of one post on a double-vote day); an order is one row."""
    rest: list[VoidRow] = []
    for void in outcome.void:
        rows: list[VoteRow] | list[OrderRow]
        if void.kind == "vote":
            rows = [e for e in vote_audit if _voids(void, e)]
        else:
            rows = [e for e in order_audit if _voids(void, e)][:1]
        if not rows:
            rest.append(VoidRow.model_validate(void.model_dump(mode="json")))
        for entry in rows:
            if isinstance(entry, VoteRow):
                entry.counted, entry.reason, entry.why = False, void.reason, void.why
            else:
                entry.valid, entry.reason, entry.why = False, void.reason, void.why
    return rest


def _voids(void: VoidEntry, entry: VoteRow | OrderRow) -> bool:
    """Whether the rules' void is this audit row's: still counted (valid), same link, same targets (a thread
    row holds one of its post's targets, a PM's row all of its line's)."""
    if isinstance(entry, VoteRow):
        targets = list(void.targets)
        named = entry.target in targets if entry.channel == "thread" else entry.target == ", ".join(targets)
        return entry.counted and entry.link == void.ref and named
    return entry.valid and entry.link == void.ref and entry.targets == list(void.targets)


def _mark_replaced(vote_audit: list[VoteRow]) -> list[VoteRow]:
    """Of a voter's counted votes, in the thread and by PM alike, the latest stands, as the engine counts it
    (after the rules' voids and the host's decisions): the earlier ones are marked superseded. The fragments of
    one post are one vote (a double-vote day); a PM's vote undated sorts first, as the engine reads it at the
    day's start."""
    latest: dict[str, tuple[tuple[datetime, int], tuple[str, object]]] = {}
    counted = [(index, row) for index, row in enumerate(vote_audit) if row.counted]
    for index, row in counted:
        key = (_instant(row.time), index)
        if row.voter not in latest or key > latest[row.voter][0]:
            latest[row.voter] = (key, _vote_of(index, row))
    for index, row in counted:
        if _vote_of(index, row) != latest[row.voter][1]:
            row.counted, row.reason, row.why, row.decided = False, "superseded", None, None
    return vote_audit


def _vote_of(index: int, row: VoteRow) -> tuple[str, object]:
    """Which vote an audit row is part of: its post's, for the day thread; its own, else."""
    return ("post", row.post_id) if row.channel == "thread" and row.post_id is not None else ("row", index)


def _instant(text: str | None) -> datetime:
    return datetime.fromisoformat(text) if text else EARLIEST


def _mark_superseded(order_audit: list[OrderRow]) -> list[OrderRow]:
    """Of a sender's valid orders of one kind, the last is carried out: the earlier ones are marked
    superseded (after the rules' own voids are merged in)."""
    last: dict[tuple[str, str], OrderRow] = {}
    for entry in order_audit:
        if entry.valid and entry.action:
            key = (entry.actor, entry.action)
            if key in last:
                last[key].valid, last[key].reason = False, "superseded"
            last[key] = entry
    return order_audit


def _decided_by(override: OverrideRow) -> str:
    """Why an audit row is as it is: an override's, with who decided."""
    return gettext("override by {nick}: {reason}").format(nick=override.by, reason=override.reason)


def inactivity_notes(
    state: GameState, outcome: DayOutcome, activity: dict[str, dict[str, int]], rules: Ruleset
) -> list[str]:
    """What the rules say about silence today, for the audit."""
    notes: list[str] = []
    for nick, a in activity.items():
        if a["posts"] == 0 and a["orders"] == 0:
            streak = outcome.state.silent_streak.get(nick, 0)
            said = (
                ngettext(
                    "{nick}: no post and no order today ({n} day running)",
                    "{nick}: no post and no order today ({n} days running)",
                    streak,
                )
                if streak > 1
                else gettext("{nick}: no post and no order today")
            )
            notes.append(said.format(nick=nick, n=streak))
    notes += rules.inactivity_notes(outcome.day, activity, outcome.counted_votes)
    return notes


@dataclass(frozen=True)
class Reveal:
    roles: str
    salt: str
    commitment: str

    @property
    def verified(self) -> bool:
        return hashlib.sha256(f"{self.salt}\n{self.roles}".encode()).hexdigest() == self.commitment


def reveal(store: Store, name: str, *, force: bool = False) -> Reveal:
    """The role list as dealt and the salt, so players can check the commitment of day 1's post."""
    row = store.game(name)
    if row.state is None or row.salt is None or row.commitment is None:
        raise StateError(N_("{game}: roles are not dealt yet"), game=name)
    if row.state.winner == "none" and not force:
        raise StateError(
            N_("{game}: the game is still on; the roles are revealed at its end (--force to override)"), game=name
        )
    dealt = GameState.model_validate_json(row.dealt_json) if row.dealt_json else row.state
    return Reveal(role_list_text(dealt), row.salt, row.commitment)


# --- approval and advancing -------------------------------------------------------------------------


def require_moderator(config: GameConfig, name: str, by: str) -> None:
    """The config's moderators decide (approvals, overrides, the host's powers); with none listed, anyone."""
    moderators = config.game.moderators
    if moderators and by not in moderators:
        raise StateError(
            N_("--by {nick!r}: not a moderator of {game} ({moderators})"),
            nick=by,
            game=name,
            moderators=", ".join(moderators),
        )


def approve(store: Store, name: str, by: str) -> None:
    row, config = load(store, name)
    state = _dealt_state(row)
    require_moderator(config, name, by)
    store.approve_draft(row.id, state.day, by)


def advance(store: Store, name: str, now: datetime, *, topic: str | None = None) -> GameState:
    """Record the approved draft as the day's result and open the next day (unless the game is over)."""
    row, config = load(store, name)
    state = _dealt_state(row)
    draft = store.draft(row.id, state.day)
    if draft is None:
        raise StateError(N_("{game}: day {day} has no draft (forumbot end-day {game})"), game=name, day=state.day)
    if not draft.approved_by:
        raise StateError(
            N_("{game}: the draft of day {day} is not approved (forumbot draft approve {game})"),
            game=name,
            day=state.day,
        )
    new_state = draft.draft.state
    data = draft.draft.to_json()
    result = {k: data[k] for k in ("day", "deaths", "checks", "winner", "executed", "tally")}
    next_day = None
    if new_state.winner == "none":
        game = config.game
        deadline = _kept_deadline(draft.draft, now) or deadlines.first_deadline(now, game.deadline, game.zone)
        next_day = (now, deadline, topic)
    store.advance(row.id, state.day, new_state, result, next_day)
    return new_state


def _kept_deadline(draft: DayDraft, now: datetime) -> datetime | None:
    """The next day's deadline as the day post told it, while it is still ahead."""
    told = datetime.fromisoformat(draft.next_deadline) if draft.next_deadline else None
    return told if told is not None and told > now else None
