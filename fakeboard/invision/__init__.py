"""What the fake IPB 2.2 and IPB 3.4 share (`InvisionServer`), on the common server core."""

from fakeboard.invision.server import InvisionServer, LockRefusal

__all__ = ["InvisionServer", "LockRefusal"]
