"""A folder of saved pages declared to the registry: read from disk (no network, no account), never
written; its pages are recognised by the other dialects (`Opening.dialects`)."""

from __future__ import annotations

from forumbot.forum.client import ClientSettings, ForumClient
from forumbot.forum.dialect import Dialect, Opening
from forumbot.forum.saved import NAME
from forumbot.forum.saved.reader import SavedPagesClient


def _reader(settings: ClientSettings, opening: Opening) -> ForumClient:
    return SavedPagesClient(settings.forum, dialects=opening.dialects, now=settings.now, tz=settings.tz)


DIALECT = Dialect(name=NAME, label="saved pages", pages=None, page_param="", reader=_reader, network=False)
