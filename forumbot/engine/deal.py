"""Dealing roles: the variant's scheme for the number of players, shuffled by the game's seed."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from forumbot.engine.model import GameState, Player
from forumbot.engine.variants import find_variant
from forumbot.errors import N_, DealError


def deal(variant: str, nicks: Sequence[str], seed: int, options: dict[str, Any] | None = None) -> GameState:
    """A new game: every nick gets a role of the variant's scheme; one mafioso is the boss where the variant
    has one (gameru-3.3, salon; kozanostra's mafia has none)."""
    if len(set(nicks)) != len(nicks):
        dupes = sorted({n for n in nicks if list(nicks).count(n) > 1})
        raise DealError(N_("the player list names {nicks} more than once"), nicks=", ".join(dupes))
    if any(not n.strip() for n in nicks):
        raise DealError(N_("the player list has an empty nick"))
    rules_cls = find_variant(variant)
    rules = rules_cls(rules_cls.parse_options(options))
    roles = rules.deal_roles(len(nicks))
    rng = random.Random(f"{variant}:{seed}:deal")
    rng.shuffle(roles)
    players = [Player(nick=n, role=r) for n, r in zip(nicks, roles, strict=True)]
    mafia = [i for i, p in enumerate(players) if p.role == "mafia"]
    if mafia and rules.has_boss:
        boss = rng.choice(mafia)
        players[boss] = players[boss].model_copy(update={"boss": True})
    rules.check_roles(players)
    return GameState(variant=variant, options=dict(options or {}), seed=seed, players=tuple(players))
