"""Test doubles for forumbot: a fake phpBB 3.3 board that serves the real (prosilver) markup, in English or
Russian (the official language pack's texts, per member), like the captured boards in fixtures/phpbb and
fixtures/phpbb-ru.

    from fakeboard import Board, BoardServer, populate_day
"""

from fakeboard.board import (
    DAY_MIX,
    DEFAULT_DATEFORMAT,
    LANGUAGES,
    Board,
    BoardServer,
    Forum,
    GeneratedPost,
    Post,
    PrivateMessage,
    RequestRecord,
    Topic,
    User,
    count_text,
    format_date,
    populate_day,
    translate,
    zone_name,
)

__all__ = [
    "DAY_MIX",
    "DEFAULT_DATEFORMAT",
    "LANGUAGES",
    "Board",
    "BoardServer",
    "Forum",
    "GeneratedPost",
    "Post",
    "PrivateMessage",
    "RequestRecord",
    "Topic",
    "User",
    "count_text",
    "format_date",
    "populate_day",
    "translate",
    "zone_name",
]
