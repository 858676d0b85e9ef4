"""`forumbot deadline`: move the current day's deadline, or set the next day's length; told in the day topic."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from forumbot.cli.app import app
from forumbot.cli.common import (
    NowOption,
    StateOption,
    current_time,
    fail,
    game_client,
    host_errors,
    load_game,
    open_store,
)
from forumbot.cli.display import local, say
from forumbot.cli.progress import sending
from forumbot.i18n import _

if TYPE_CHECKING:
    from forumbot.config import GameConfig
    from forumbot.store import Store


@app.command("deadline")
def deadline_command(
    game: Annotated[str, typer.Argument(help="The game.")],
    when: Annotated[
        str | None,
        typer.Argument(help="The new deadline: ISO (the game's zone if no offset), or a shift like +12h or -30m."),
    ] = None,
    reason: Annotated[str, typer.Option(help="Why (in the audit and in the announcement).")] = "",
    by: Annotated[str, typer.Option(help="Who decides (a moderator of the game).")] = "",
    next_day_length: Annotated[
        float | None, typer.Option(help="The next day lasts at least this many hours (it ends at the deadline hour).")
    ] = None,
    send: Annotated[bool, typer.Option(help="Post the announcement now (else the next watch pass posts it).")] = True,
    state: StateOption = None,
    now: NowOption = None,
) -> None:
    """Move the current day's deadline (announced by a reply in the day topic), or set how long the next
    day lasts; both recorded with who and why."""
    from forumbot.host import deadlines, games

    if when is None and next_day_length is None:
        fail(_("give WHEN (the new deadline), or --next-day-length HOURS"))
    with host_errors():
        store = open_store(state)
        row, config = load_game(store, game)
        games.require_moderator(config, game, by)
        zone = config.game.zone
        moment = current_time(now, zone)
        if next_day_length is not None:
            deadlines.set_next_day_length(store, row, next_day_length, reason=reason, by=by)
            said = _("{game}: the next day lasts at least {hours} h (end-day tells it)")
            say(said.format(game=game, hours=f"{next_day_length:g}"))
        if when is None:
            return
        day = store.day(row.id, row.state.day) if row.state is not None else None
        current = day["deadline"] if day is not None else moment
        moved = deadlines.move_deadline(
            store, row, config, deadlines.parse_when(when, current, zone), moment, reason=reason, by=by
        )
    said = _("{game}: day {day} now ends {after}, was {before}")
    say(
        said.format(
            game=game, day=moved.day, after=local(moved.after, zone, True), before=local(moved.before, zone, True)
        )
    )
    if moved.announcement is None:
        say(_("the day has no topic yet: nothing to announce"))
    elif send:
        _announce(store, row.id, config, moved.announcement)
    else:
        say(_("the announcement waits in the outbox for the next watch pass"))


def _announce(store: Store, game_id: int, config: GameConfig, marker: str) -> None:
    """Send the queued announcement, and only it, through the game's outbox (exactly once)."""
    from forumbot.forum.registry import poster_for
    from forumbot.host.outbox import Outbox

    letter = store.letter(marker, game_id)
    if letter is None:
        return
    flood = config.forum.flood_interval
    with (
        host_errors(),
        game_client(config, store) as client,
        sending(poster_for(client, flood_interval=flood)) as poster,
    ):
        done = Outbox(store, game_id, poster).deliver(letter, label=_("the deadline's announcement"))
    where = _("post {id}").format(id=done.remote_id) if done.remote_id else _("the day topic")
    say(_("announced in the day topic ({how}: {where})").format(how=done.how, where=where))
