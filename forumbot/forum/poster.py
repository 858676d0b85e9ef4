"""Writing to a forum, whatever its engine: the one `Poster` protocol the outbox and publishing ask of a
board, what a lock attempt found, a topic row of a forum's list, and the limits every engine's writer
keeps. Each engine's `writer.py` implements the protocol; the registry (`poster_for`) makes the one a
client's engine has.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from forumbot.posts import Preferences

if TYPE_CHECKING:
    from forumbot.forum.client import ForumClient

__all__ = [
    "FLOOD_INTERVAL",
    "MAX_CANDIDATES",
    "MAX_FLOOD_WAITS",
    "MAX_FOLDER_PAGES",
    "Fields",
    "CurrentReplies",
    "DateFormatting",
    "ForumTopicRow",
    "LockResult",
    "Poster",
    "Preparing",
    "fill",
    "own_post_with",
    "same_title",
]

FLOOD_INTERVAL = 15.0  # seconds: phpBB's default flood_interval, for posts and PMs alike (a writer's guess when
# neither the config nor the board tells it)
MAX_FLOOD_WAITS = 4
MAX_FOLDER_PAGES = 20
MAX_CANDIDATES = 40  # topics or PMs opened when looking for a marker
Fields = list[tuple[str, str]]


@dataclass(frozen=True)
class LockResult:
    """What a lock attempt found: `locked` is the topic's state as read afterwards; `already` when it
    was locked before the attempt; `reason` what the board said when it did not lock; `refused` when the
    board said the account may not (a refusal for good: anything else not locked may be tried again)."""

    locked: bool
    already: bool = False
    reason: str = ""
    refused: bool = False

    def __bool__(self) -> bool:
        return self.locked


@dataclass(frozen=True)
class ForumTopicRow:
    """One topic in a forum's list of topics."""

    topic_id: int
    title: str
    author: str  # who started it


class Poster(Protocol):
    """What the outbox and publishing ask of a forum they write to."""

    @property
    def username(self) -> str: ...

    def post_topic(self, forum_id: int, subject: str, message: str, *, marker: str | None = None) -> int: ...

    def post_reply(self, topic: int | str, subject: str, message: str, *, marker: str | None = None) -> int: ...

    def lock_topic(self, topic_id: int, forum_id: int | None = None) -> LockResult: ...

    def send_pm(
        self, recipients: Sequence[str], subject: str, message: str, *, marker: str | None = None
    ) -> int | None: ...

    def find_marker_in_forum(self, forum_id: int, subject: str, marker: str) -> int | None: ...

    def find_marker_in_topic(self, topic_id: int, marker: str) -> int | None: ...

    def find_marker_in_sent(
        self, marker: str, *, subject: str | None = None, recipients: Sequence[str] = ()
    ) -> int | None: ...


@runtime_checkable
class Preparing(Protocol):
    """A poster that can address the PMs to come before their turn, sending nothing (phpBB's).
    Posters without it (the IPB ones, whose forms have no age rule) send each PM from scratch."""

    def prepare_pms(self, upcoming: Sequence[Sequence[str]]) -> None: ...


@runtime_checkable
class CurrentReplies(Protocol):
    """A poster whose board tells when posts were made since a reply's form was fetched (phpBB hands the
    form back for review): a reply made from the topic as read (a vote count) is then not posted
    (`Outdated`), so that it is made again from a fresh read. Posters without it post the reply."""

    def post_reply_if_current(
        self, topic: int | str, subject: str, message: str, *, marker: str | None = None
    ) -> int: ...


@runtime_checkable
class DateFormatting(Protocol):
    """A poster that can store the account's date format on the board (phpBB's; the IPB ones say why not)."""

    def set_date_format(self, dateformat: str) -> Preferences: ...


def own_post_with(client: ForumClient, username: str, topic_id: int, marker: str) -> int | None:
    """The last post of `username` in the topic that holds `marker` (quotes of it by others do not count),
    or None: how every poster finds a post it may have made."""
    me = username.casefold()
    found: int | None = None
    for page in client.fetch_topic(topic_id):
        for post in page.posts:
            if post.author.casefold() == me and marker in post.content_html:
                found = post.post_id
    return found


def fill(fields: Fields, values: dict[str, str]) -> Fields:
    """The fields with `values` put in place of the served ones (or added where the form had none)."""
    filled = [(name, values[name] if name in values else value) for name, value in fields]
    present = {name for name, _ in fields}
    return filled + [(name, value) for name, value in values.items() if name not in present]


def same_title(a: str, b: str) -> bool:
    """Two titles the same but for their spacing (boards collapse runs of spaces)."""
    return " ".join(a.split()) == " ".join(b.split())
