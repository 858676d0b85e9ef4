"""The host's and moderators' corrections of a day: overrides and the host's powers."""

from __future__ import annotations

from typing import Annotated

import typer

from forumbot.cli.app import app
from forumbot.cli.common import StateOption, err, fail, host_errors, open_store, out


@app.command("override")
def override_command(
    game: Annotated[str, typer.Argument(help="The game.")],
    reason: Annotated[str, typer.Option(help="Why (shown in the audit).")],
    by: Annotated[str, typer.Option(help="Who decides (host or moderator).")],
    count_post: Annotated[int | None, typer.Option(help="Count the vote of this post.")] = None,
    ignore_post: Annotated[int | None, typer.Option(help="Ignore the vote of this post.")] = None,
    set_vote: Annotated[str | None, typer.Option(help="VOTER=TARGET: set a player's vote.")] = None,
    clear_vote: Annotated[str | None, typer.Option(help="VOTER: clear a player's vote.")] = None,
    set_order: Annotated[str | None, typer.Option(help="ACTOR=ACTION:TARGET[,TARGET]: set an order.")] = None,
    clear_order: Annotated[str | None, typer.Option(help="ACTOR=ACTION: clear an order.")] = None,
    state: StateOption = None,
) -> None:
    """Count or ignore a post, set or clear a vote or an order; used by the next end-day."""
    from forumbot.host import games

    given = [x for x in (count_post, ignore_post, set_vote, clear_vote, set_order, clear_order) if x is not None]
    if len(given) != 1:
        fail("give exactly one of --count-post, --ignore-post, --set-vote, --clear-vote, --set-order, --clear-order")
    with host_errors():
        store = open_store(state)
        row, config = games.load(store, game)
        if row.state is None:
            fail(f"{game}: roles are not dealt yet")
        games.require_moderator(config, game, by)
        if not reason.strip():
            fail("--reason is empty: say why (it is shown in the audit)")
        kind, subject, value = games.parse_override(
            row.state, count_post, ignore_post, set_vote, clear_vote, set_order, clear_order
        )
        post = count_post if count_post is not None else ignore_post
        draft = store.draft(row.id, row.state.day)
        unchecked = post is not None and draft is None
        if post is not None and draft is not None:
            seen = {str(v.post_id) for v in draft.draft.votes if v.post_id is not None}
            if str(post) not in seen:
                listed = ", ".join(sorted(seen, key=lambda x: (len(x), x))[:12]) or "none"
                fail(f"post {post} is not in day {row.state.day}'s audit (posts with votes: {listed})")
        store.add_override(row.id, row.state.day, kind, subject, value, reason, by)
    out.print(f"{game}: {kind} {subject} recorded (run end-day again to apply it)", markup=False)
    if unchecked:
        err.print(
            f"note: day {row.state.day} has no draft yet, so post {post} could not be checked: "
            "end-day will show whether it holds a vote",
            markup=False,
        )


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
) -> None:
    """One of the host's powers for the current day: a replacement (замена), a removal (модкилл), a new
    maniac or a change of roles, the best player at the end. Recorded with who and why (a replacement is
    checked by the rules at once), and carried out by the day's end, whose rules refuse what they do not
    allow, naming why."""
    from forumbot.host import games

    shapes = {"replace": 2, "remove": 1, "appoint-maniac": 1, "best-player": 1, "scheme": (2, 3)}
    if kind not in shapes:
        fail(f"{kind!r}: not a power ({', '.join(shapes)})")
    wanted = shapes[kind]
    if len(args) not in (wanted if isinstance(wanted, tuple) else (wanted,)):
        fail(f"{kind} takes {wanted} value(s), got {len(args)}: {' '.join(args)}")
    with host_errors():
        store = open_store(state)
        _, config = games.load(store, game)
        games.require_moderator(config, game, by)
        subject = args[0].strip()
        value = args[1].strip() if kind == "replace" else " ".join(args[1:]).strip() if kind == "scheme" else None
        games.record_power(store, game, kind.replace("-", "_"), subject, value, reason=reason, by=by)
    out.print(f"{game}: {kind} {' '.join(args)} recorded (end-day carries it out)", markup=False)
