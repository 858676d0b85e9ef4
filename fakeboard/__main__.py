"""`python -m fakeboard rehearse GAME.toml [SCRIPT]`: a rehearsal on a local fake board (fakeboard/rehearse.py)."""

from __future__ import annotations

import sys

from fakeboard.rehearse import main
from forumbot.i18n import _

if __name__ == "__main__":
    if sys.argv[1:2] != ["rehearse"]:
        print(_("usage: python -m fakeboard rehearse GAME.toml [SCRIPT] [--dir DIR]"), file=sys.stderr)
        raise SystemExit(2)
    raise SystemExit(main(sys.argv[2:]))
