"""forumbot: hosts forum Mafia games on phpBB and IPB forums."""

__version__ = "0.1.0"
