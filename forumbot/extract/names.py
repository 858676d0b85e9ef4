"""Nick matching: which player a piece of text names, exactly or nearly (docs/rules/common.md, Nick matching).

Two modes:

- ``strict`` (the default of every variant): the text, stripped of surrounding whitespace, must equal a
  player's nick character for character. The seeds demand the exact nick; kozanostra says case matters.
- ``lenient``: also accepts a text whose *folded* form equals exactly one player's folded nick.

Whatever the mode, a text that does not count gets a ``nearest`` player for the audit
(docs/votes-and-orders.md): the one whose folded nick equals the folded text, else the only player
within edit distance 2 of it.

What folding does (`fold`), in this order, and why:

1. NFKC normalisation: composes ``е`` + U+0308 into ``ё`` and maps compatibility forms (full-width
   letters, ligatures, NBSP and other odd spaces) onto their plain letters.
2. ``casefold()``: case never distinguishes two players for a human reader.
3. Zero-width characters (U+200B..U+200D, U+2060, U+FEFF, U+200E/U+200F marks) and the soft hyphen are
   removed: they are invisible on the page, and pasting a nick from a post often carries them along.
4. Cyrillic letters that look like Latin ones are mapped onto the Latin letter (``а``->``a``,
   ``е``/``ё``->``e``, ``о``->``o``, ``р``->``p``, ``с``->``c``, ``у``->``y``, ``х``->``x``, ``к``->``k``,
   ``м``->``m``, ``т``->``t``, ``н``->``h``, ``в``->``b``, ``і``->``i``, ...). ``ё`` folds to ``e``: Russian
   writers drop its dots all the time.
5. Underscores count as spaces (phpBB nicks such as ``Кот_Матроскин`` are written ``Кот Матроскин`` by
   people), and then every whitespace character is removed: ``Bob  Smith``, ``Bob Smith`` and
   ``BobSmith`` fold alike. Other punctuation (``.``, ``-``) is kept: it is visible and often meaningful.

Folding is idempotent (``fold(fold(s)) == fold(s)``), which a property test pins.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Literal

MatchMode = Literal["strict", "lenient"]

# Why a match came out as it did (Match.why):
#   exact      the text is a nick, character for character
#   folded     the folded text equals exactly one player's folded nick
#   near       exactly one player is within edit distance 2 of the folded text
#   ambiguous  several players fold alike, or several are within distance 2
#   unknown    no player is near
#   empty      nothing but whitespace
MatchWhy = Literal["exact", "folded", "near", "ambiguous", "unknown", "empty"]

NEAR_DISTANCE = 2

_ZERO_WIDTH = "\u200b\u200c\u200d\u2060\ufeff\u00ad\u200e\u200f"

# Cyrillic (lower case, as casefold leaves it) -> the Latin letter it looks like. Upper-case look-alikes
# (В/B, Н/H, М/M, Т/T, К/K) reach this table already lower-cased, so the lower-case pairs cover them too.
_LOOKALIKES = {
    "а": "a",
    "в": "b",
    "е": "e",
    "ё": "e",
    "і": "i",
    "ї": "i",
    "ј": "j",
    "к": "k",
    "м": "m",
    "н": "h",
    "о": "o",
    "р": "p",
    "с": "c",
    "т": "t",
    "у": "y",
    "х": "x",
    "ѕ": "s",
    "ԁ": "d",
    "ԛ": "q",
    "ԝ": "w",
    "ӏ": "l",
    "_": " ",
}
_FOLD_TABLE = str.maketrans({**_LOOKALIKES, **dict.fromkeys(_ZERO_WIDTH, None)})
_WHITESPACE = re.compile(r"\s+")


def fold(text: str) -> str:
    """The form two nicks are compared in when exact equality fails (see the module docstring)."""
    # NFKC and casefold do not commute for a handful of code points; a second pass reaches the fixed
    # point, so folding stays idempotent whatever the input.
    return _fold_once(_fold_once(text))


def _fold_once(text: str) -> str:
    folded = unicodedata.normalize("NFKC", text).casefold().translate(_FOLD_TABLE)
    return _WHITESPACE.sub("", folded)


def levenshtein(a: str, b: str, limit: int = NEAR_DISTANCE) -> int:
    """Edit distance between `a` and `b`, or `limit + 1` as soon as it is known to exceed `limit`."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    if len(a) < len(b):
        a, b = b, a
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        if min(current) > limit:  # every later row is at least this far: stop early
            return limit + 1
        previous = current
    return min(previous[-1], limit + 1)


def is_near(folded_text: str, folded_nick: str) -> bool:
    """Within edit distance 2, and fewer than half of the longer form's characters changed.

    The second condition keeps short words from being "near" every short nick: without it any two-letter
    bold word would be within distance 2 of a two-letter nick.
    """
    distance = levenshtein(folded_text, folded_nick)
    return distance <= NEAR_DISTANCE and 2 * distance < max(len(folded_text), len(folded_nick))


@dataclass(frozen=True, slots=True)
class Match:
    """The outcome of matching one text against the roster.

    `nick` is the player the text counts for (None when it counts for nobody in this mode); `exact` says
    the text was the nick character for character; `nearest` is the player it probably meant (the nick
    itself on a match); `why` is one of `MatchWhy`.
    """

    nick: str | None
    exact: bool
    nearest: str | None
    why: MatchWhy


class Roster:
    """The game's players, for matching the nicks people write. Folded forms are computed once."""

    def __init__(self, nicks: Iterable[str]) -> None:
        self.nicks: tuple[str, ...] = tuple(dict.fromkeys(n.strip() for n in nicks if n.strip()))
        self._exact = frozenset(self.nicks)
        self._by_fold: dict[str, list[str]] = {}
        for nick in self.nicks:
            self._by_fold.setdefault(fold(nick), []).append(nick)

    def __contains__(self, nick: object) -> bool:
        return nick in self._exact

    def __iter__(self) -> Iterator[str]:
        return iter(self.nicks)

    def __len__(self) -> int:
        return len(self.nicks)

    def match(self, text: str, mode: MatchMode = "strict") -> Match:
        stripped = text.strip()
        if not stripped:
            return Match(None, False, None, "empty")
        if stripped in self._exact:
            return Match(stripped, True, stripped, "exact")
        folded = fold(stripped)
        same = self._by_fold.get(folded, [])
        if len(same) == 1:
            nick = same[0]
            return Match(nick if mode == "lenient" else None, False, nick, "folded")
        if len(same) > 1:
            return Match(None, False, None, "ambiguous")
        return self._near(folded)

    def nearest(self, text: str) -> str | None:
        """The player a near miss probably meant (docs/votes-and-orders.md, Nick matching), or None."""
        return self.match(text).nearest

    def _near(self, folded: str) -> Match:
        candidates = [nicks for key, nicks in self._by_fold.items() if is_near(folded, key)]
        if not candidates:
            return Match(None, False, None, "unknown")
        if len(candidates) > 1 or len(candidates[0]) > 1:
            return Match(None, False, None, "ambiguous")
        return Match(None, False, candidates[0][0], "near")


_TARGET_SEPARATORS = re.compile(r"\s*[,;]\s*|\s+(?:и|and|&)\s+", re.IGNORECASE)


def split_targets(text: str) -> tuple[str, ...]:
    """Split "A, B" / "A и B" / "A and B" into its parts (double-order days name two players at once).

    Callers try the whole text as one nick first: a nick may itself contain " и " or a comma.
    """
    parts = tuple(p.strip() for p in _TARGET_SEPARATORS.split(text))
    return tuple(p for p in parts if p)
