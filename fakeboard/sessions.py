"""The fake boards' sessions: each a random id bound to the member it logged in (or a guest) and to the
User-Agent that made it, as phpBB and IPB both bind theirs. How a session id travels (which cookies, which
query parameter) and how a member is remembered are the engine's; the store is shared."""

from __future__ import annotations

import secrets
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from email.message import Message
from http.cookies import SimpleCookie

USER_AGENT_LENGTH = 149  # what both engines keep of the User-Agent to bind a session to


@dataclass(frozen=True)
class Session:
    sid: str
    user_id: int  # ANONYMOUS for a guest
    user_agent: str


def user_agent(headers: Mapping[str, str] | Message) -> str:
    return (headers.get("User-Agent") or "")[:USER_AGENT_LENGTH]


def read_cookies(header: str) -> dict[str, str]:
    """The request's cookies; a header the stdlib cannot read counts as none (PHP skips the bad parts too)."""
    jar: SimpleCookie = SimpleCookie()
    try:
        jar.load(header)
    except Exception:
        return {}
    return {name: morsel.value for name, morsel in jar.items()}


class Sessions:
    """The live sessions, by id; safe to share between the server's threads."""

    def __init__(self) -> None:
        self._by_sid: dict[str, Session] = {}
        self._lock = threading.Lock()

    def open(self, user_id: int, agent: str) -> Session:
        session = Session(secrets.token_hex(16), user_id, agent)
        with self._lock:
            self._by_sid[session.sid] = session
        return session

    def find(self, sid: str, agent: str) -> Session | None:
        """The live session `sid`, if the same User-Agent made it."""
        with self._lock:
            found = self._by_sid.get(sid)
        return found if found is not None and found.user_agent == agent else None

    def close(self, sid: str) -> None:
        with self._lock:
            self._by_sid.pop(sid, None)

    def clear(self) -> None:
        with self._lock:
            self._by_sid.clear()

    def __len__(self) -> int:
        with self._lock:
            return len(self._by_sid)

    def user_ids(self) -> set[int]:
        """Who holds a session (the guest's id included when a guest does)."""
        with self._lock:
            return {s.user_id for s in self._by_sid.values()}
