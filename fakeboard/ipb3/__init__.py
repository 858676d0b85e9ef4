"""The fake Invision Power Board 3.4 (the Russian skin), on what the IPB fakes share (`fakeboard.invision`)
and the common server core.

    from fakeboard.ipb3 import Ipb3Server
"""

from fakeboard.ipb3.bbcode import ipb3_bbcode
from fakeboard.ipb3.server import Conversation, Ipb3Server, ipb3_date

__all__ = ["Conversation", "Ipb3Server", "ipb3_bbcode", "ipb3_date"]
