"""A folder of pages saved from a browser, of any engine the registry knows: `pages.py` recognises and
reads each file, `reader.py` serves them behind the `ForumClient` interface, `dialect.py` declares it."""

NAME = "saved"  # the engine's name in a game's `[forum] engine`; written here only
