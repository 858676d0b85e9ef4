"""Test doubles for forumbot: a fake phpBB 3.3 board that serves the real (prosilver) markup.

    from forumbot.testing import Board, BoardServer, populate_day
"""

from forumbot.testing.board import (
    DAY_MIX,
    Board,
    BoardServer,
    Forum,
    GeneratedPost,
    Post,
    PrivateMessage,
    RequestRecord,
    Topic,
    User,
    format_date,
    populate_day,
)

__all__ = [
    "DAY_MIX",
    "Board",
    "BoardServer",
    "Forum",
    "GeneratedPost",
    "Post",
    "PrivateMessage",
    "RequestRecord",
    "Topic",
    "User",
    "format_date",
    "populate_day",
]
