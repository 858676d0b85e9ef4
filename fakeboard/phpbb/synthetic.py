"""A topic served from a list of posts, for the tests of reading and counting topics: the real paging,
caching and counting run on top of it, without HTTP."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from forumbot.forum.http import HttpSettings
from forumbot.forum.markup import BodyReader
from forumbot.forum.phpbb.reader import PhpbbClient
from forumbot.posts import Post, TopicPage


class SyntheticTopic(PhpbbClient):
    """A phpBB client whose "server" is a list of posts, paged by offset as phpBB pages them (a page past
    the end is clamped to the last one, as phpBB does); `calls` lists the pages served, in order."""

    def __init__(self, posts: list[Post], page_size: int = 10) -> None:
        super().__init__("http://forum.test/", settings=HttpSettings(min_interval=0, concurrency=2))
        self.posts = posts
        self.page_size = page_size
        self.calls: list[int] = []

    def _topic_pages(
        self, topic: int, numbers: Sequence[int], size: int, on_body: BodyReader | None = None
    ) -> Iterator[TopicPage]:
        return (self._topic_page(topic, n, size) for n in numbers)

    def _topic_page(self, topic: int, number: int, size: int, on_body: BodyReader | None = None) -> TopicPage:
        count = max(1, -(-len(self.posts) // self.page_size))
        page = min(count, (number - 1) * (size or self.page_size) // self.page_size + 1)
        self.calls.append(page)
        chunk = self.posts[(page - 1) * self.page_size : page * self.page_size]
        following = f"http://forum.test/viewtopic.php?t={topic}&start={page * self.page_size}"
        return TopicPage(
            dialect="phpbb",
            topic_id=topic,
            title="День 1",
            page=page,
            page_count=count,
            posts=tuple(chunk),
            next_url=following if page < count else None,
            url=f"http://forum.test/viewtopic.php?t={topic}&start={(page - 1) * self.page_size}",
        )
