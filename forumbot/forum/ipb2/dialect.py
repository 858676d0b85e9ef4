"""IPB 2.x declared to the registry."""

from __future__ import annotations

import re

from forumbot.forum.dialect import Dialect
from forumbot.forum.ipb2 import NAME, pages
from forumbot.forum.ipb2.reader import IpbClient
from forumbot.forum.ipb2.writer import writer_for

DIALECT = Dialect(
    name=NAME,
    label="IPB 2.x",
    pages=pages,
    page_param=IpbClient.offset_param,
    topic_params=IpbClient.urls.topic_params,
    urls=IpbClient.urls,
    # IPB 3 keeps IPB 2's links: the hint says "Invision", the board's markup says which version
    url_hint=re.compile(r"showtopic=|showforum=|[?&]act=|ipb_var_|Invision Power Board", re.IGNORECASE),
    reader=IpbClient.opened,
    writer=writer_for,
)
