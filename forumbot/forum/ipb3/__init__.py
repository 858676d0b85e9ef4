"""Invision Power Board 3.x (3.3 / 3.4): `pages.py` reads its pages, `forms.py` fills its forms as a
browser does, `answers.py` tells what its answer to a write means, `reader.py` and `writer.py` fetch and
submit through the one HTTP choke point, `dialect.py` declares it to the registry. What IPB 2 and IPB 3
share is in `forumbot.forum.invision`."""

NAME = "ipb3"  # the engine's name in a game's `[forum] engine`; written here only
