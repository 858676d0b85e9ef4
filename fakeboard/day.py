"""A day of play written onto a board, for benchmarks and the tests of counting: `populate_day` fills a topic
with posts of every kind a real day holds (chatter, votes in every markup, quoted and edited votes, two votes
in a post, ghosts), in fixed shares, deterministic for a seed. Any engine's server serves the result.

    populate_day(board, topic, posts=300, players=names, seed=1, start=start)
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from fakeboard.state import ANONYMOUS, Board, aware

__all__ = ["DAY_MIX", "GeneratedPost", "populate_day"]


@dataclass(frozen=True)
class GeneratedPost:
    """One post `populate_day` wrote: its kind and the names its markup names as votes (the last one
    is the vote that stands when a post carries two; empty for chatter and for quotes without a vote)."""

    post_id: int
    author: str
    kind: str
    targets: tuple[str, ...] = ()


# kind -> share of the posts (sums to 1); every kind but chatter carries a name in some markup
DAY_MIX: tuple[tuple[str, float], ...] = (
    ("chatter", 0.40),
    ("vote_color_bold", 0.12),  # [color=red][b]X[/b][/color]
    ("vote_bold_color", 0.08),  # [b][color=red]X[/color][/b]
    ("quoted_vote", 0.08),  # a quoted vote, half the time with the quoter's own vote after it
    ("dark_red", 0.04),  # [color=darkred][b]X[/b][/color]
    ("bold_only", 0.06),  # [b]X[/b]
    ("red_only", 0.03),  # [color=red]X[/color], not bold
    ("edited_vote", 0.08),  # voted X, edited to Y (by the author, or by a moderator with a reason)
    ("two_votes", 0.04),  # two red-bold names in one post
    ("ghost", 0.07),  # a non-player (dead or spectator) posting, sometimes a red-bold "vote"
)
_REDS = ("red", "#FF0000", "#ff0000", "red", "Red")
_CHATTER = (
    "I think we should wait for more information before voting.",
    "Что-то {name} подозрительно тихий сегодня.",
    "[i]Reading back the thread...[/i] nothing conclusive yet.",
    "Has anyone noticed how {name} avoided the question?",
    "I'm town, for what it's worth :)",
    "Согласен с предыдущим оратором.",
    "Link to the rules: [url=https://example.org/rules]rules[/url]",
    "[u]Reminder[/u]: day ends at 20:00.",
    "{name}, what do you think about the last night?",
    "Not voting yet. [color=blue]Just a thought[/color] about {name}.",
    "Hmm. :?",
    "See https://example.org/mafia/wiki for the roles list.",
    "Ok.\nI will be back later tonight.",
    "Голосую завтра, сегодня не уверен.",
)
_GHOSTS = ("Ghost of Day 0", "Spectator", "Зритель")


def populate_day(
    board: Board,
    topic_id: int,
    posts: int,
    players: Sequence[str],
    seed: int,
    start: datetime,
    *,
    moderator: str = "admin",
) -> list[GeneratedPost]:
    """Fill a topic with `posts` realistic posts of a Mafia day by `players`, mixed in the fixed shares of
    `DAY_MIX` (rounded; the order shuffled), deterministic for a `seed`. Posts are 10 s to 5 min apart from
    `start`. Unknown players become members; `moderator` (a coloured member, created if needed) makes the
    moderator edits. Returns what was written, post by post."""
    if len(players) < 2:
        raise ValueError("a day needs at least two players")
    aware(start, board.now)
    rng = random.Random(seed)
    counts = {kind: int(share * posts) for kind, share in DAY_MIX}
    leftover = posts - sum(counts.values())
    for kind, _ in sorted(DAY_MIX, key=lambda item: item[1] * posts - int(item[1] * posts), reverse=True)[:leftover]:
        counts[kind] += 1
    kinds = [kind for kind, _ in DAY_MIX for _ in range(counts[kind])]
    rng.shuffle(kinds)
    voting = ("vote_color_bold", "vote_bold_color", "edited_vote")
    first_vote = next((k for k, kind in enumerate(kinds) if kind in voting), None)
    first_quote = next((k for k, kind in enumerate(kinds) if kind == "quoted_vote"), None)
    if first_vote is not None and first_quote is not None and first_quote < first_vote:
        kinds[first_quote], kinds[first_vote] = kinds[first_vote], kinds[first_quote]  # a vote to quote comes first
    with board.lock:
        if board.user(moderator) is None:
            board.add_user(moderator, moderator=True, colour="AA0000")
        for name in (*players, *_GHOSTS):
            if board.user(name) is None:
                board.add_user(name)
    made: list[GeneratedPost] = []
    votes: list[tuple[int, str, str, datetime]] = []  # (post id, voter, target, time) for quotes
    moment = start
    for kind in kinds:
        moment += timedelta(seconds=rng.randint(10, 300))
        author = rng.choice(list(players))
        target = rng.choice([p for p in players if p != author])
        red = rng.choice(_REDS)
        targets: tuple[str, ...] = (target,)
        edit: dict[str, Any] = {}
        if kind == "chatter":
            body = rng.choice(_CHATTER).format(name=rng.choice(list(players)))
            targets = ()
        elif kind == "vote_color_bold":
            body = rng.choice(("Vote: {v}", "{v}", "Голосую против {v}", "My vote goes to {v}.")).format(
                v=f"[color={red}][b]{target}[/b][/color]"
            )
        elif kind == "vote_bold_color":
            body = f"[b][color={red}]{target}[/color][/b] is suspicious."
        elif kind == "quoted_vote" and votes:  # (no votes yet only when the mix has no voting kinds)
            post_id, voter, quoted, when = rng.choice(votes)
            if rng.random() < 0.5:
                head = f'[quote="{voter}"]'
            else:
                member = board.user(voter)
                who = f'"{voter}"' if " " in voter else voter
                uid = member.user_id if member else ANONYMOUS
                head = f"[quote={who} post_id={post_id} time={int(when.timestamp())} user_id={uid}]\n"
            body = f"{head}I vote [color=red][b]{quoted}[/b][/color][/quote]\n"
            if rng.random() < 0.5:
                body += f"Agreed, I also vote [color=red][b]{target}[/b][/color]"
            else:
                body += "I disagree with that."
                targets = ()
        elif kind == "quoted_vote":  # nothing to quote yet: a plain vote
            body = f"[color=red][b]{target}[/b][/color]"
        elif kind == "dark_red":
            body = f"Dark red: [color=darkred][b]{target}[/b][/color]"
        elif kind == "bold_only":
            body = f"I'd look at [b]{target}[/b] today."
        elif kind == "red_only":
            body = f"Maybe [color=red]{target}[/color]?"
        elif kind == "edited_vote":
            first = rng.choice([p for p in players if p not in (author, target)] or [target])
            body = f"Vote [color=red][b]{target}[/b][/color] (changed my mind from {first})"
            by_moderator = rng.random() < 0.25
            edit = {
                "edited_by": moderator if by_moderator else author,
                "edit_reason": "moderator note" if by_moderator else None,
                "edited_at": moment + timedelta(seconds=rng.randint(30, 600)),
            }
        elif kind == "two_votes":
            other = rng.choice([p for p in players if p not in (author, target)] or [target])
            body = f"[color=red][b]{other}[/b][/color]\nNo wait, [color=red][b]{target}[/b][/color]"
            targets = (other, target)
        else:  # ghost
            author = rng.choice(_GHOSTS)
            if rng.random() < 0.5:
                body = f"If I could vote it would be [color=red][b]{target}[/b][/color]"
            else:
                body = "Boo. Ghosts can't vote, but I'm watching you all."
                targets = ()
        post_id = board.add_post(topic_id, author, body, moment, **edit)
        if kind in ("vote_color_bold", "vote_bold_color", "edited_vote") or (kind == "quoted_vote" and targets):
            votes.append((post_id, author, target, moment))
        made.append(GeneratedPost(post_id, author, kind, targets))
    return made
