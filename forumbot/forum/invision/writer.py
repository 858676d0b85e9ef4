"""What the posters of IPB 2 and IPB 3 share: the account, the gap kept between two submissions, finding
the account's post by its marker, and closing a topic (read before and after; each version closes it
with its own tools)."""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar, Generic, TypeVar

from forumbot.forum.client import HttpForumClient
from forumbot.forum.http import Page
from forumbot.forum.poster import FLOOD_INTERVAL, MAX_FLOOD_WAITS, LockResult, own_post_with

__all__ = ["InvisionPoster"]

Client = TypeVar("Client", bound=HttpForumClient)


class InvisionPoster(Generic[Client]):
    """What the posters of IPB 2 and IPB 3 share: the account, the gap kept between two submissions
    (`min_gap` seconds, the version's own by default), and finding the account's post by its marker."""

    default_min_gap: ClassVar[float]  # seconds between two submissions, the version's own

    def __init__(
        self,
        client: Client,
        *,
        flood_interval: float = FLOOD_INTERVAL,
        max_flood_waits: int = MAX_FLOOD_WAITS,
        min_gap: float | None = None,
    ) -> None:
        self.client = client
        self.http = client.http
        self._username = client._credentials_or_fail()[0]
        self.flood_interval = flood_interval
        self.max_flood_waits = max_flood_waits
        self.min_gap = self.default_min_gap if min_gap is None else min_gap
        self._last_submit: float | None = None

    @property
    def username(self) -> str:
        return self._username

    def find_marker_in_topic(self, topic_id: int, marker: str) -> int | None:
        return own_post_with(self.client, self.username, topic_id, marker)

    def _wait_gap(self) -> None:
        clock = self.http.clock
        if self._last_submit is not None:
            clock.sleep(max(0.0, self._last_submit + self.min_gap - clock.time()))

    # -- closing a topic --------------------------------------------------------------------------

    def topic_locked(self, topic_id: int) -> bool:
        return self._closed(self._topic_page(topic_id).text)

    def lock_topic(self, topic_id: int, forum_id: int | None = None) -> LockResult:
        """Close the topic with the moderators' tools of its page (`_close`). The topic is read before
        (closed already: done) and after; a refusal is a result, not an error."""
        page = self._topic_page(topic_id)
        if self._closed(page.text):
            return LockResult(locked=True, already=True)
        said = self._close(page)
        if self.topic_locked(topic_id):
            return LockResult(locked=True)
        return LockResult(locked=False, reason=said or "the board did not close it")

    def _look(self, seen: Callable[[], int | None] | None) -> int | None:
        """Before another attempt: what an earlier one made after all, found by its marker."""
        return seen() if seen is not None else None

    def _topic_page(self, topic_id: int) -> Page:
        return self.http.get(self.http.url(f"index.php?showtopic={topic_id}"))

    def _closed(self, html: str) -> bool:
        """Whether a topic page shows the topic closed (the version's own markup)."""
        raise NotImplementedError

    def _close(self, page: Page) -> str:
        """Close the topic with the tools its page offers; what the board said, if anything."""
        raise NotImplementedError
