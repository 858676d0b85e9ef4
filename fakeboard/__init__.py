"""Test doubles for forumbot: fake forum boards served on 127.0.0.1, each answering as its real engine does.

- `state`: what a board holds (`Board`: members, forums, topics, posts, PMs, the board's settings);
- `server`, `sessions`, `faults`, `clock`: the server core every engine runs on (life cycle, request log,
  sessions, injected faults, a clock that never really waits);
- `phpbb/`: phpBB 3.3.11 (prosilver, English and Russian), like the captured boards in fixtures/phpbb and
  fixtures/phpbb-ru; `ipb2/`, `ipb3/`: Invision Power Board 2.2 and 3.4 (Russian), on what they share
  (`invision/`);
- `day`: a day of play written onto a board; `synthetic`: a topic served from a list, without HTTP.

    from fakeboard import Board, BoardServer, populate_day
"""

from fakeboard.day import DAY_MIX, GeneratedPost, populate_day
from fakeboard.phpbb import (
    DEFAULT_DATEFORMAT,
    LANGUAGES,
    BoardServer,
    count_text,
    format_date,
    translate,
    zone_name,
)
from fakeboard.server import RequestRecord
from fakeboard.state import Board, Forum, Post, PrivateMessage, Topic, User

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
