"""A day's count kept between reads: a re-tally costs its new pages, not the day.

A count of a topic (`count_extracts`) leaves where it stood after every page but the last (`CountState`:
each voter's counted vote, how many posts, the newest one). The state file keeps it under the count's name
(`CountRules.name`: its players, bounds and rules) with the digest of the pages it read, as they were
cached. The next read is told those pages (`read_topic_extracts(known=...)`): while the cache still holds
them unchanged, their votes are neither read nor counted again, and the count reads on from the state.
Anything else (another count, a changed page, posts that moved, a state that does not read) counts the
day from its pages, as a first count does: what is kept only ever saves work, it never decides a count.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Protocol

from forumbot.extract import read_body
from forumbot.forum.cache import ExtractRead, PageCache, PagePrefix, read_topic_extracts
from forumbot.forum.client import ForumClient, Progress
from forumbot.host.tally import PAGE_VOTES, CountRules, CountState, Tally, count_extracts


class CountStates(Protocol):
    """Where the counts are kept: the state file (`forumbot.store.Store` is the one)."""

    def count_state(self, forum: str, topic: str, count: str) -> tuple[int, str, str] | None: ...

    def put_count_state(self, forum: str, topic: str, count: str, through: int, pages: str, data: str) -> None: ...


def count_topic(
    client: ForumClient,
    cache: PageCache,
    states: CountStates,
    topic: str | int,
    rules: CountRules,
    *,
    incremental: bool = False,
    read_at: datetime | None = None,
    progress: Progress | None = None,
) -> tuple[Tally, ExtractRead]:
    """Read the topic (every page, or only the new ones when `incremental`) and count its votes, reading on
    from the count kept for the same `rules` when its pages are unchanged; keep where the count stands now."""
    forum, key = client.forum, str(client.topic_id(topic))
    name = rules.name
    kept = _kept(states.count_state(forum, key, name))
    known = kept.pages if kept is not None and incremental else None
    read = read_topic_extracts(
        client, cache, topic, PAGE_VOTES, progress=progress, incremental=incremental, known=known, on_body=read_body
    )
    tally = count_extracts(read, rules, read_at=read_at, resume=kept if known is not None else None)
    now = tally.kept
    if now is not None and now != kept:
        states.put_count_state(forum, key, name, now.pages.through, now.pages.digest, now.to_json())
    return tally, read


def _kept(row: tuple[int, str, str] | None) -> CountState | None:
    """The kept count, or None when there is none or it does not read (then the day is counted anew)."""
    if row is None:
        return None
    through, pages, data = row
    try:
        return CountState.from_json(PagePrefix(through, pages), data)
    except (ValueError, KeyError, TypeError, IndexError, json.JSONDecodeError):
        return None
