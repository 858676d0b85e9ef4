"""The fake phpBB 3.3.11 board (prosilver, the official English and Russian language packs), on the common
server core: `BoardServer`, its texts (`texts`), its language table and dates (`language`).

    from fakeboard import Board
    from fakeboard.phpbb import BoardServer
"""

from fakeboard.phpbb.language import (
    DEFAULT_DATEFORMAT,
    LANGUAGE_PACK,
    LANGUAGES,
    SKELETONS,
    count_text,
    format_date,
    translate,
    zone_name,
)
from fakeboard.phpbb.server import BoardServer
from fakeboard.phpbb.texts import FLOOD_ERROR, FORM_INVALID, NOT_AUTHORISED, TOPIC_LOCKED

__all__ = [
    "DEFAULT_DATEFORMAT",
    "FLOOD_ERROR",
    "FORM_INVALID",
    "LANGUAGES",
    "LANGUAGE_PACK",
    "NOT_AUTHORISED",
    "SKELETONS",
    "TOPIC_LOCKED",
    "BoardServer",
    "count_text",
    "format_date",
    "translate",
    "zone_name",
]
