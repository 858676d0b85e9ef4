"""`forumbot simulate`: many random games of a scheme, each side's win rate."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from forumbot.cli import words
from forumbot.cli.app import app
from forumbot.cli.common import fail, out, parse_option_pairs, print_json
from forumbot.cli.display import table
from forumbot.i18n import _, ngettext

if TYPE_CHECKING:
    from forumbot.simulate import ChartFormat


@app.command("simulate")
def simulate_command(
    variant: Annotated[str, typer.Option(help="Rule variant (an unknown name lists the known ones).")],
    players: Annotated[int, typer.Option(help="Number of players.")],
    games: Annotated[int, typer.Option(help="Number of games to play.")] = 1000,
    seed: Annotated[int, typer.Option(help="Seed: the same seed gives the same figures.")] = 0,
    chart: Annotated[Path | None, typer.Option(help="Write a bar chart of the rates to FILE (.svg or .png).")] = None,
    option: Annotated[
        list[str] | None, typer.Option("--option", "-o", help="A variant option, KEY=VALUE (JSON value).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the figures as JSON.")] = False,
) -> None:
    """Play many games with random legal play: each side's win rate with its 95% interval, draws, length."""
    from forumbot.errors import ForumbotError
    from forumbot.simulate import render_chart, simulate

    fmt = _chart_format(chart)
    if players < 1 or games < 1:
        fail(_("--players and --games must be at least 1"))
    try:
        result = simulate(variant, players, games, seed, parse_option_pairs(option or []))
    except ForumbotError as exc:
        fail(str(exc))
    if chart is not None and fmt is not None:
        try:
            chart.write_bytes(render_chart(result, fmt))
        except OSError as exc:
            fail(_("cannot write {path}: {error}").format(path=chart, error=exc))
    if as_json:
        print_json(result.to_json())
        return
    title = ngettext("{variant}, {n} player", "{variant}, {n} players", players).format(variant=variant, n=players)
    title += ": " + ngettext("{n} game, seed {seed}", "{n} games, seed {seed}", games).format(n=games, seed=seed)
    shown = table(title)
    for number, name in enumerate((_("side"), _("wins"), _("win rate"), _("95% CI"))):
        shown.add_column(name, justify="left" if number == 0 else "right")
    for share in [*result.sides(), result.draw_share(), result.unfinished_share()]:
        low, high = share.interval
        shown.add_row(_side(share.label), str(share.count), f"{share.rate:.1%}", f"{low:.1%} – {high:.1%}")
    out.print(shown)
    days = ngettext("{n} day", "{n} days", result.day_cap).format(n=result.day_cap)
    mean = _("{days:.2f} days").format(days=result.mean_days) if result.mean_days is not None else _("no game finished")
    said = _("mean length: {mean} (cap {days}; unfinished games hit the cap)")
    out.print(said.format(mean=mean, days=days), markup=False)
    if chart is not None:
        out.print(_("chart: {path}").format(path=chart), markup=False)


def _side(label: str) -> str:
    """A side of the figures: a winner's code, a draw, or the games the cap cut short."""
    return _("unfinished") if label == "unfinished" else words.winner(label)


def _chart_format(chart: Path | None) -> ChartFormat | None:
    from forumbot.simulate import CHART_FORMATS

    if chart is None:
        return None
    suffix = chart.suffix.lower().lstrip(".")
    if suffix not in CHART_FORMATS:
        said = _("--chart {path}: give a file ending in {suffixes}")
        fail(said.format(path=chart, suffixes=(" " + _("or") + " ").join("." + f for f in CHART_FORMATS)))
    return "svg" if suffix == "svg" else "png"
