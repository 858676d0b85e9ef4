"""What the bot reads out of forum text: red bold votes in threads, orders in PMs, and the nicks they name.

Pure functions over `forumbot.posts` values; the engine gets `Vote` and `Order` values out.

    names.py   skeleton, looks_alike, Roster.match: exact / lenient matching, the nearest player for the audit
    votes.py   find_fragments (one walk of a post body), extract_post_votes / extract_votes, to_engine_votes
    orders.py  parse_orders (the PM line grammar), orders_from_pm
    pms.py     read_pm: a PM parsed once (its orders and its commands), for every reader of it
"""

from forumbot.extract.names import Match, MatchMode, Roster, looks_alike, skeleton, split_targets
from forumbot.extract.orders import (
    KEYWORDS,
    OrderLine,
    OrderProblem,
    ParsedOrders,
    orders_from_pm,
    parse_line,
    parse_orders,
    text_from_html,
)
from forumbot.extract.votes import (
    EditedVotes,
    Fragment,
    ScanState,
    VoteReason,
    VoteRecord,
    VoteScan,
    VoteSettings,
    extract_post_votes,
    extract_votes,
    find_fragments,
    is_red,
    read_body,
    to_engine_votes,
)

__all__ = [
    "KEYWORDS",
    "EditedVotes",
    "Fragment",
    "Match",
    "MatchMode",
    "OrderLine",
    "OrderProblem",
    "ParsedOrders",
    "Roster",
    "ScanState",
    "VoteReason",
    "VoteRecord",
    "VoteScan",
    "VoteSettings",
    "extract_post_votes",
    "extract_votes",
    "find_fragments",
    "looks_alike",
    "is_red",
    "orders_from_pm",
    "parse_line",
    "parse_orders",
    "read_body",
    "skeleton",
    "split_targets",
    "text_from_html",
    "to_engine_votes",
]
