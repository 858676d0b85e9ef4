"""The host's and moderators' corrections of a day: overrides and the host's powers."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from forumbot.cli.app import app
from forumbot.cli.common import (
    JsonOption,
    NowOption,
    StateOption,
    current_time,
    err,
    fail,
    host_errors,
    load_game,
    open_store,
    out,
    parse_moment,
    print_json,
)
from forumbot.cli.display import in_zone_iso, local, plain, table, times_in
from forumbot.i18n import _


@app.command("override")
def override_command(
    game: Annotated[str, typer.Argument(help="The game.")],
    reason: Annotated[str, typer.Option(help="Why (shown in the audit).")] = "",
    by: Annotated[str, typer.Option(help="Who decides (host or moderator).")] = "",
    count_post: Annotated[int | None, typer.Option(help="Count the vote of this post.")] = None,
    ignore_post: Annotated[int | None, typer.Option(help="Ignore the vote of this post.")] = None,
    set_vote: Annotated[str | None, typer.Option(help="VOTER=TARGET: set a player's vote.")] = None,
    at: Annotated[
        str | None, typer.Option(help="--set-vote: the vote's time (ISO; default: that of the vote it replaces).")
    ] = None,
    clear_vote: Annotated[str | None, typer.Option(help="VOTER: clear a player's vote.")] = None,
    set_order: Annotated[str | None, typer.Option(help="ACTOR=ACTION:TARGET[,TARGET]: set an order.")] = None,
    clear_order: Annotated[str | None, typer.Option(help="ACTOR=ACTION: clear an order.")] = None,
    listing: Annotated[bool, typer.Option("--list", help="List the day's overrides, numbered.")] = False,
    remove: Annotated[int | None, typer.Option(help="Take back override N (its number in --list).")] = None,
    as_json: JsonOption = False,
    state: StateOption = None,
    now: NowOption = None,
) -> None:
    """Count or ignore a post, set or clear a vote or an order; used by the next end-day. --list shows the
    day's overrides, --remove N takes one back."""
    if listing:
        _list_overrides(game, state, as_json)
        return
    if remove is not None:
        _remove_override(game, remove, by, state, now)
        return
    given = [x for x in (count_post, ignore_post, set_vote, clear_vote, set_order, clear_order) if x is not None]
    if len(given) != 1:
        fail(_("give exactly one of --count-post, --ignore-post, --set-vote, --clear-vote, --set-order, --clear-order"))
    if not by.strip():
        fail(_("--by: who decides (a moderator of the game)"))
    if not reason.strip():
        fail(_("--reason is empty: say why (it is shown in the audit)"))
    if at is not None and set_vote is None:
        fail(_("--at goes with --set-vote"))
    _record_override(
        game, state, reason, by, (count_post, ignore_post, set_vote, clear_vote, set_order, clear_order), at, now
    )


def _record_override(
    game: str,
    state: Path | None,
    reason: str,
    by: str,
    given: tuple[int | None, int | None, str | None, str | None, str | None, str | None],
    at: str | None,
    now: str | None,
) -> None:
    from forumbot.host import games

    count_post, ignore_post = given[0], given[1]
    with host_errors():
        store = open_store(state)
        row, config = load_game(store, game)
        current_time(now, config.game.zone)
        if row.state is None:
            fail(_("{game}: roles are not dealt yet").format(game=game))
        games.require_moderator(config, game, by)
        moment = parse_moment(at, config.game.zone, "--at")
        kind, subject, value = games.parse_override(row.state, *given, at=moment)
        post = count_post if count_post is not None else ignore_post
        draft = store.draft(row.id, row.state.day)
        unchecked = post is not None and draft is None
        if post is not None and draft is not None:
            seen = {str(v.post_id) for v in draft.draft.votes if v.post_id is not None}
            if str(post) not in seen:
                listed = ", ".join(sorted(seen, key=lambda x: (len(x), x))[:12]) or _("none")
                said = _("post {post} is not in day {day}'s audit (posts with votes: {posts})")
                fail(said.format(post=post, day=row.state.day, posts=listed))
        store.add_override(row.id, row.state.day, kind, subject, value, reason, by)
    said = _("{game}: {kind} {subject} recorded (run end-day again to apply it)")
    out.print(said.format(game=game, kind=kind, subject=subject), markup=False)
    if unchecked:
        said = _(
            "note: day {day} has no draft yet, so post {post} could not be checked: "
            "end-day will show whether it holds a vote"
        )
        err.print(said.format(day=row.state.day, post=post), markup=False)


def _list_overrides(game: str, state: Path | None, as_json: bool) -> None:
    from forumbot.host import games

    with host_errors():
        store = open_store(state)
        _row, config = load_game(store, game)
        rows = games.list_overrides(store, game)
    zone = config.game.zone
    if as_json:
        print_json([{"number": n, **o, "at": in_zone_iso(o["at"], zone)} for n, o in rows])
        return
    if not rows:
        out.print(_("{game}: no overrides today").format(game=game), markup=False)
        return
    title = _("{game}: overrides of the day ({times})").format(game=game, times=times_in(zone))
    shown = table(title, "#", _("kind"), _("subject"), _("value"), _("by"), _("why"), _("at"))
    for n, o in rows:
        shown.add_row(
            *plain(str(n), o["kind"], o["subject"], str(o["value"] or ""), o["by"], o["reason"], local(o["at"], zone))
        )
    out.print(shown)


def _remove_override(game: str, number: int, by: str, state: Path | None, now: str | None) -> None:
    from forumbot.host import games

    if not by.strip():
        fail(_("--by: who takes it back (a moderator of the game)"))
    with host_errors():
        store = open_store(state)
        _row, config = load_game(store, game)
        current_time(now, config.game.zone)
        removed = games.remove_override(store, game, number, by)
    said = _("{game}: override {number} ({kind} {subject}) taken back (run end-day again)")
    out.print(said.format(game=game, number=number, kind=removed["kind"], subject=removed["subject"]), markup=False)


@app.command("power")
def power_command(
    game: Annotated[str, typer.Argument(help="The game.")],
    kind: Annotated[
        str,
        typer.Argument(
            help="replace OLD NEW | remove NICK | appoint-maniac NICK | scheme NICK ROLE [boss] | best-player NICK"
        ),
    ],
    args: Annotated[list[str], typer.Argument(help="The nicks (and for scheme the new role).")],
    reason: Annotated[str, typer.Option(help="Why (shown in the audit and, for a removal, kept with it).")],
    by: Annotated[str, typer.Option(help="Who decides (a moderator of the game).")],
    state: StateOption = None,
    now: NowOption = None,
) -> None:
    """One of the host's powers for the current day: a replacement (замена), a removal (модкилл), a new
    maniac or a change of roles, the best player at the end. Judged by the rules at once, against the day's
    roles (refused now, naming why, if invalid), recorded with who and why, and carried out by the day's end;
    a change the day makes moot is recorded there without effect («без последствий»)."""
    from forumbot.host import games

    shapes = {"replace": 2, "remove": 1, "appoint-maniac": 1, "best-player": 1, "scheme": (2, 3)}
    if kind not in shapes:
        fail(_("{kind!r}: not a power ({powers})").format(kind=kind, powers=", ".join(shapes)))
    wanted = shapes[kind]
    if len(args) not in (wanted if isinstance(wanted, tuple) else (wanted,)):
        counts = (" " + _("or") + " ").join(map(str, wanted)) if isinstance(wanted, tuple) else str(wanted)
        said = _("{kind} takes {wanted} value(s), got {n}: {values}")
        fail(said.format(kind=kind, wanted=counts, n=len(args), values=" ".join(args)))
    with host_errors():
        store = open_store(state)
        _row, config = load_game(store, game)
        current_time(now, config.game.zone)
        games.require_moderator(config, game, by)
        subject = args[0].strip()
        value = args[1].strip() if kind == "replace" else " ".join(args[1:]).strip() if kind == "scheme" else None
        games.record_power(store, game, kind.replace("-", "_"), subject, value, reason=reason, by=by)
    said = _("{game}: {kind} {values} recorded (end-day carries it out)")
    out.print(said.format(game=game, kind=kind, values=" ".join(args)), markup=False)
