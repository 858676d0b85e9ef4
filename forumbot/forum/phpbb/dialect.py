"""phpBB 3.x declared to the registry."""

from __future__ import annotations

import re

from forumbot.forum.dialect import Dialect
from forumbot.forum.phpbb import NAME, pages
from forumbot.forum.phpbb.reader import PhpbbClient
from forumbot.forum.phpbb.writer import writer_for

DIALECT = Dialect(
    name=NAME,
    label="phpBB",
    pages=pages,
    page_param=PhpbbClient.offset_param,
    topic_params=PhpbbClient.urls.topic_params,
    urls=PhpbbClient.urls,
    url_hint=re.compile(r"(viewtopic|viewforum|ucp|posting|memberlist)\.php", re.IGNORECASE),
    url_decides=True,
    reader=PhpbbClient.opened,
    writer=writer_for,
)
