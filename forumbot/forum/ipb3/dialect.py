"""IPB 3.x declared to the registry."""

from __future__ import annotations

from forumbot.forum.dialect import Dialect
from forumbot.forum.ipb3 import NAME, pages
from forumbot.forum.ipb3.reader import Ipb3Client
from forumbot.forum.ipb3.writer import writer_for

DIALECT = Dialect(
    name=NAME,
    label="IPB 3.x",
    pages=pages,
    page_param=Ipb3Client.offset_param,
    topic_params=Ipb3Client.urls.topic_params,
    urls=Ipb3Client.urls,
    conversations=pages.parse_conversation_page,
    reader=Ipb3Client.opened,
    writer=writer_for,
)
