"""Nick matching and look-alike nicks: one definition, the nick's skeleton (docs/votes-and-orders.md, Nick
matching).

Two modes of matching a text against the roster:

- ``strict`` (the default of every variant): the text, stripped of surrounding whitespace, must equal a
  player's nick character for character. The seeds demand the exact nick; kozanostra says case matters.
- ``lenient``: also accepts a text whose skeleton equals exactly one player's skeleton.

Whatever the mode, a text that does not count gets a ``nearest`` player for the audit
(docs/votes-and-orders.md): the one whose skeleton equals the text's, else the only player whose skeleton is
within edit distance 2 of it.

Two different nicks *look alike* (`looks_alike`: the config's warning, the moderators' notes) when their
skeletons are equal or, for nicks of 5 letters and more, one edit apart.

The skeleton (`skeleton`) is what a reader sees of a nick. In this order, and why:

1. NFKC normalisation: compatibility forms (full-width letters, ligatures, NBSP and other odd spaces) become
   their plain letters.
2. Invisible characters (Unicode format characters: zero-width spaces and joiners, the soft hyphen, the BOM,
   direction marks) are removed: pasting a nick from a post often carries them along.
3. Diacritics are dropped (``ё`` reads as ``е``: Russian writers drop its dots all the time).
4. Whitespace and underscores are removed: ``Bob  Smith``, ``Bob_Smith`` and ``BobSmith`` read alike (phpBB
   nicks such as ``Кот_Матроскин`` are written ``Кот Матроскин`` by people). Other punctuation (``.``,
   ``-``) is kept: it is visible and often meaningful.
5. Every letter that the Unicode confusables table (the data `confusable-homoglyphs` ships) says looks like
   an ASCII letter or digit becomes it, in either case: Cyrillic ``а``, ``К``, ``к`` (as its capital),
   ``т``, Greek ``Α``, ``ο``, ``Η``... become ``a``, ``k``, ``k``, ``t``, ``a``, ``o``, ``h``.
6. Case is folded: case never distinguishes two players for a human reader (a board's accounts ignore it).

The skeleton is idempotent (``skeleton(skeleton(s)) == skeleton(s)``) and ignores case whatever the
letters, which property tests pin.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from confusable_homoglyphs.confusables import confusables_data
from rapidfuzz.distance import Levenshtein

MatchMode = Literal["strict", "lenient"]

# Why a match came out as it did (Match.why):
#   exact      the text is a nick, character for character
#   alike      the text's skeleton equals exactly one player's skeleton
#   near       exactly one player's skeleton is within edit distance 2 of the text's
#   ambiguous  several players have that skeleton, or several are within distance 2
#   unknown    no player is near
#   empty      nothing but whitespace
MatchWhy = Literal["exact", "alike", "near", "ambiguous", "unknown", "empty"]

NEAR_DISTANCE = 2
# Short nicks one letter apart are often different names ("Анна", "Анка"): only longer ones look alike.
ALIKE_MIN_LENGTH = 5


def _ascii_twin(char: str) -> str | None:
    """The ASCII character the confusables table says `char` looks like: a letter or digit for a letter,
    any visible one for a sign (``‐`` -> ``-``); None when it has none."""
    twins = (str(h["c"]) for h in confusables_data.get(char, ()))
    fits = str.isalnum if char.isalnum() else str.isprintable
    return next((t for t in twins if len(t) == 1 and t.isascii() and not t.isspace() and fits(t)), None)


@lru_cache(maxsize=8192)
def _reads_as(char: str) -> str:
    """One character of a skeleton (already case-folded): its ASCII twin, else its capital's twin, lower-cased;
    the character itself when it has neither."""
    if char.isascii():
        return char
    twin = _ascii_twin(char)
    if twin is None and len(char.upper()) == 1:
        twin = _ascii_twin(char.upper())
    return twin.casefold() if twin is not None else char


def _ignored(char: str) -> bool:
    return char.isspace() or char == "_" or unicodedata.category(char) == "Cf" or unicodedata.combining(char) > 0


def _one_pass(text: str) -> str:
    plain = unicodedata.normalize("NFD", unicodedata.normalize("NFKC", text).casefold())
    return "".join(_reads_as(c) for c in plain if not _ignored(c))


@lru_cache(maxsize=8192)
def skeleton(nick: str) -> str:
    """What a reader sees of a nick (see the module's docstring): two nicks with one skeleton are one to him."""
    # Case folding and normalisation do not commute for a handful of code points: a pass or two more reaches
    # the fixed point, so the skeleton of a skeleton is itself.
    seen = _one_pass(nick)
    for _ in range(3):
        again = _one_pass(seen)
        if again == seen:
            break
        seen = again
    return seen


def levenshtein(a: str, b: str, limit: int = NEAR_DISTANCE) -> int:
    """Edit distance between `a` and `b`, or `limit + 1` as soon as it is known to exceed `limit`."""
    return int(Levenshtein.distance(a, b, score_cutoff=limit))


def is_near(text_skeleton: str, nick_skeleton: str) -> bool:
    """Within edit distance 2, and fewer than half of the longer skeleton's characters changed.

    The second condition keeps short words from being "near" every short nick: without it any two-letter
    bold word would be within distance 2 of a two-letter nick.
    """
    distance = levenshtein(text_skeleton, nick_skeleton)
    return distance <= NEAR_DISTANCE and 2 * distance < max(len(text_skeleton), len(nick_skeleton))


def looks_alike(a: str, b: str) -> bool:
    """Two different nicks a reader may take for one another: one skeleton, or (5 letters and more) one edit
    between their skeletons."""
    if a == b:
        return False
    sa, sb = skeleton(a), skeleton(b)
    if sa == sb:
        return True
    return min(len(sa), len(sb)) >= ALIKE_MIN_LENGTH and levenshtein(sa, sb, 1) <= 1


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
    """The game's players, for matching the nicks people write. Skeletons are computed once."""

    def __init__(self, nicks: Iterable[str]) -> None:
        self.nicks: tuple[str, ...] = tuple(dict.fromkeys(n.strip() for n in nicks if n.strip()))
        self._exact = frozenset(self.nicks)
        self._by_skeleton: dict[str, list[str]] = {}
        for nick in self.nicks:
            self._by_skeleton.setdefault(skeleton(nick), []).append(nick)

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
        seen = skeleton(stripped)
        same = self._by_skeleton.get(seen, [])
        if len(same) == 1:
            nick = same[0]
            return Match(nick if mode == "lenient" else None, False, nick, "alike")
        if len(same) > 1:
            return Match(None, False, None, "ambiguous")
        return self._near(seen)

    def nearest(self, text: str) -> str | None:
        """The player a near miss probably meant (docs/votes-and-orders.md, Nick matching), or None."""
        return self.match(text).nearest

    def _near(self, seen: str) -> Match:
        candidates = [nicks for key, nicks in self._by_skeleton.items() if is_near(seen, key)]
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
