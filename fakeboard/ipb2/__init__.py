"""The fake Invision Power Board 2.2 (the IBResource Russian build), on what the IPB fakes share
(`fakeboard.invision`) and the common server core.

    from fakeboard.ipb2 import Ipb2Server
"""

from fakeboard.ipb2.bbcode import ipb2_bbcode
from fakeboard.ipb2.server import Ipb2Server, ipb2_date

__all__ = ["Ipb2Server", "ipb2_bbcode", "ipb2_date"]
