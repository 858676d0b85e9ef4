"""The commitment to a deal: published when the roles are dealt, opened with its salt at the end, so that
every player can check that the roles never changed. Pure, like the rest of the engine."""

from __future__ import annotations

import hashlib

from forumbot.engine.model import GameState

__all__ = ["commitment_of", "role_list_text"]


def role_list_text(state: GameState) -> str:
    """The role list as committed at the start and revealed at the end: one "nick: role" per line."""
    return "\n".join(f"{p.nick}: {p.role}{' boss' if p.boss else ''}" for p in state.players)


def commitment_of(state: GameState, salt: str) -> str:
    """SHA-256 of the salt, a newline and the role list, in hex."""
    return hashlib.sha256(f"{salt}\n{role_list_text(state)}".encode()).hexdigest()
