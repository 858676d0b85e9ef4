"""The fake phpBB board every watch test plays on: the bot's account (a moderator), the game's moderators, other
members and the players, each with the password "pw", one forum, served on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from fakeboard import Board, BoardServer

BOT = "host_bot"


@contextmanager
def served_board(
    players: Sequence[str],
    *,
    moderators: Sequence[str] = ("Модератор",),
    others: Sequence[str] = (),
    **server_options: Any,
) -> Iterator[tuple[Board, BoardServer, int]]:
    """(board, server, forum id): the accounts made in that order (their ids follow it), `moderators` moderate
    the board, `others` do not; `server_options` go to the server (`posts_per_page`...)."""
    board = Board()
    board.add_user(BOT, "pw", moderator=True)
    for nick in moderators:
        board.add_user(nick, "pw", moderator=True)
    for nick in (*others, *players):
        board.add_user(nick, "pw")
    forum = board.add_forum("Мафия")
    with BoardServer(board, **server_options) as server:
        yield board, server, forum
