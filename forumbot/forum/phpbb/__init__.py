"""phpBB 3.x (prosilver and its descendants): `pages.py` reads its pages, `forms.py` fills its forms as a
browser does, `answers.py` tells what its answer to a write means, `reader.py` and `writer.py` fetch and
submit through the one HTTP choke point (`forumbot.forum.http`), `dialect.py` declares it to the registry."""

NAME = "phpbb"  # the engine's name in a game's `[forum] engine`; written here only
