"""A private message read once: its passwords removed, its order lines and its commands to the bot parsed.

Everything that reads a PM's orders or commands (the day's audit, the votes by PM, the watch's receipts) takes
them from one `ReadPm`, so a PM is parsed once on its way from the forum to the engine.
"""

from __future__ import annotations

from dataclasses import dataclass

from forumbot.extract.commands import PlayerCommands, commands_in
from forumbot.extract.orders import ParsedOrders, orders_in, pm_text, strip_credentials
from forumbot.posts import PrivateMessage


@dataclass(frozen=True, slots=True)
class ReadPm:
    """What one PM says: its order lines (`orders_from_pm` resolves their nicks) and what else it asks."""

    orders: ParsedOrders
    commands: PlayerCommands


def read_pm(pm: PrivateMessage) -> ReadPm:
    """The PM parsed once. Commands are read from the text the board gave: a PM whose text is blank asks
    nothing (its orders are read from its HTML then, as `orders_from_pm` does)."""
    scrubbed = strip_credentials(pm_text(pm))
    commands = commands_in(scrubbed) if pm.body_text.strip() else PlayerCommands()
    return ReadPm(orders_in(scrubbed), commands)


__all__ = ["ReadPm", "read_pm"]
