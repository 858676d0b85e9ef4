"""`forumbot outbox GAME`: what the bot still has to write to the forum, and what the forum refused for good,
with the board's own words; the host settles a letter with `--retry N` or `--drop N --reason R`, recorded
with who and why."""

from __future__ import annotations

import getpass
from typing import TYPE_CHECKING, Annotated, Any

import typer

from forumbot.cli.app import app
from forumbot.cli.common import JsonOption, StateOption, fail, host_errors, load_game, open_store, out, print_json
from forumbot.cli.display import local, names, plain, table
from forumbot.i18n import N_, _

SETTLEMENTS = (N_("retry"), N_("drop"), N_("done by hand"))  # as the audit names them (host/outbox.py)

if TYPE_CHECKING:
    from zoneinfo import ZoneInfo

    from forumbot.store import Letter


@app.command("outbox")
def outbox_command(
    game: Annotated[str, typer.Argument(help="The game.")],
    retry: Annotated[
        int | None, typer.Option(help="Make letter N due again (looked for on the board first, then sent).")
    ] = None,
    drop: Annotated[int | None, typer.Option(help="Drop letter N: it is never sent (say why with --reason).")] = None,
    done_as: Annotated[
        str | None,
        typer.Option("--id", help="With --drop: what was done by hand in its place (a topic's id, a PM's id)."),
    ] = None,
    reason: Annotated[str, typer.Option(help="Why (kept in the outbox's audit).")] = "",
    by: Annotated[str | None, typer.Option(help="Who settles it (default: this machine's account).")] = None,
    every: Annotated[bool, typer.Option("--all", help="Every letter, sent ones included, and the audit.")] = False,
    state: StateOption = None,
    as_json: JsonOption = False,
) -> None:
    """What waits to be written to the forum and what the forum refused for good (numbered, with the
    board's words); --retry N or --drop N --reason R settles one, recorded with who and why."""
    from forumbot.host.outbox import settle, waiting_and_set_aside

    if retry is not None and drop is not None:
        fail(_("give --retry or --drop, not both"))
    if done_as is not None and drop is None:
        fail(_("--id goes with --drop (what was done by hand in the letter's place)"))
    with host_errors():
        store = open_store(state)
        row, config = load_game(store, game)
        if retry is not None or drop is not None:
            number = retry if retry is not None else drop
            assert number is not None
            who = by if by is not None else getpass.getuser()
            action = "retry" if retry is not None else "drop"
            letter = settle(store, row.id, number, action, reason=reason, by=who, remote_id=done_as)
            out.print(_settled(letter.status).format(game=game, number=number), markup=False)
            return
        letters = store.letters(row.id) if every else waiting_and_set_aside(store, row.id)
        audit = store.settlements(row.id)
    zone = config.game.zone
    rows = [_row(letter) for letter in letters]
    if as_json:
        print_json({"letters": rows, "settlements": audit})
        return
    if not rows:
        out.print(_("{game}: nothing waits and nothing was set aside").format(game=game), markup=False)
        return
    columns = ("N", _("what"), _("to"), _("day"), _("status"), _("the board said"))
    shown = table(_("{game}: the outbox").format(game=game), *columns)
    for r in rows:
        status = _status(r, zone)
        shown.add_row(*plain(str(r["number"]), r["what"], r["to"], str(r["day"] or ""), status, r["error"] or ""))
    out.print(shown)
    for a in audit:
        when = local(a["at"], zone)
        out.print(f"{when} {a['by']}: {_(a['action'])} {a['marker']}: {a['reason']}", markup=False)
    hint = _(
        "settle one: forumbot outbox {game} --retry N  |  --drop N --reason '...' [--id ID of what was done by hand]"
    )
    out.print(hint.format(game=game), markup=False)


def _row(letter: Letter) -> dict[str, Any]:
    """A letter as listed: its number, what it is, where it goes, and its state."""
    what = letter.purpose or letter.kind
    if letter.subject:
        what += f" «{letter.subject}»"
    where = names(letter.recipients) if letter.kind == "pm" else f"{letter.kind} {letter.recipients[0]}"
    return {
        "number": letter.number,
        "marker": letter.marker,
        "kind": letter.kind,
        "what": what,
        "to": where,
        "day": letter.day,
        "origin": letter.origin,
        "status": letter.status,
        "not_before": letter.not_before,
        "error": letter.error,
        "remote_id": letter.remote_id,
    }


def _status(row: dict[str, Any], zone: ZoneInfo) -> str:
    status = str(row["status"])
    if status in ("pending", "sending"):
        said = _("waits") if status == "pending" else _("waits (looked for on the board first)")
        if row["not_before"]:
            return _("{status} until {when}").format(status=said, when=local(row["not_before"], zone))
        return said
    shown = {"refused": _("set aside"), "dropped": _("dropped"), "outdated": _("made again")}
    return shown.get(status, status)


def _settled(status: str) -> str:
    """What became of a letter the host settled ({game}, {number} to fill in)."""
    if status == "sending":
        return _(
            "{game}: letter {number} is due again: looked for on the board, then sent, by the next publish or "
            "watch pass of {game}"
        )
    if status == "sent":
        return _("{game}: letter {number} is recorded as done by hand")
    return _("{game}: letter {number} is dropped: it will not be sent")
