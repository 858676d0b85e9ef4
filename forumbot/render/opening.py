"""The first post of day 1 when the bot opens the game: the players, the day's end, the roles' commitment."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from forumbot.render.bbcode import escape
from forumbot.render.phrases import zone_label


def subject(game: str) -> str:
    return f"{game}. День 1"


def text(game: str, players: Sequence[str], deadline: datetime | None, commitment: str) -> str:
    """The opening post; `deadline` in the game's zone; `commitment` the line that commits to the roles
    (empty: none)."""
    lines = [
        f"[size=150][b]{escape(game)}. День 1[/b][/size]",
        "",
        "Игра начинается! Роли разосланы личными сообщениями.",
        "",
        f"[b]Игроки ({len(players)}):[/b]",
        "[list]",
        *(f"[*]{escape(nick)}" for nick in players),
        "[/list]",
    ]
    if deadline is not None:
        lines += ["", f"День заканчивается {deadline:%d.%m.%Y в %H:%M} ({zone_label(deadline.tzinfo, deadline)})."]
    if commitment:
        lines += ["", commitment]
    return "\n".join(lines) + "\n"
