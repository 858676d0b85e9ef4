"""What the forum readers produce: posts, topic pages, private messages. Pure data, no I/O."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict

Dialect = Literal["phpbb", "ipb2", "ipb3"]


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Post(Frozen):
    post_id: int
    topic_id: int | None
    author: str
    author_id: int | None
    time: datetime  # aware
    content_html: str  # the post body as the forum rendered it (edit notices and signatures excluded)
    edited: bool = False
    edited_by: str | None = None
    edited_at: str | None = None  # as printed: plain text in the viewer's format
    edit_count: int | None = None
    edit_reason: str | None = None
    permalink: str
    page: int | None = None


class TopicPage(Frozen):
    dialect: Dialect
    topic_id: int | None
    title: str
    page: int  # 1-based
    page_count: int
    posts: tuple[Post, ...]
    next_url: str | None = None
    url: str | None = None
    # Posts the parser could not read, each "where: why": reported in the audit, never a reason to drop
    # the page (one broken post must not abort a tally).
    problems: tuple[str, ...] = ()


class PmSummary(Frozen):
    """One row of the PM inbox."""

    pm_id: int
    subject: str
    sender: str
    sender_id: int | None = None
    time: datetime | None = None
    time_text: str = ""
    unread: bool = False
    url: str


class PrivateMessage(Frozen):
    pm_id: int
    sender: str
    sender_id: int | None = None
    time: datetime | None = None
    time_text: str = ""
    subject: str
    body_html: str
    body_text: str  # lines of the body, quotes removed (orders inside quotes never count)
    url: str | None = None
