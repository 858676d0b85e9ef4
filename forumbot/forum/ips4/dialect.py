"""IPS 4 declared to the registry: its topic pages are read inside a folder of saved pages; no network
reader, no writer."""

from __future__ import annotations

from forumbot.forum.dialect import Dialect
from forumbot.forum.ips4 import NAME, pages

DIALECT = Dialect(name=NAME, label="IPS 4", pages=pages, page_param="page", pms=False)
