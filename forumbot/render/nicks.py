"""Look-alike nicks, flagged for the host and the moderators (never in the public texts, which keep nicks exact).

A nick is flagged when
- it mixes scripts: "Koт_Учёный (лат.: K, o)" names the letters of the smaller script;
- it is all Latin among Cyrillic players and every letter has a Cyrillic twin: "Bepa (лат.)" reads as «Вера»;
- it looks like another player's nick: "Вера (похож на: Bepa)". Two nicks look alike when their skeletons
  (each letter replaced by its Latin twin from the Unicode confusables table, case and dots on «ё» dropped,
  separators ignored) are equal, or, for longer nicks, one edit apart.

The letters' scripts and twins come from the Unicode data that `confusable-homoglyphs` ships; edit distance
from `rapidfuzz`.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from functools import lru_cache

from confusable_homoglyphs.categories import alias
from confusable_homoglyphs.confusables import confusables_data
from rapidfuzz.distance import Levenshtein

SCRIPT_NAMES: dict[str, str] = {"LATIN": "лат.", "CYRILLIC": "кир.", "GREEK": "греч."}
RUSSIAN_LETTERS = frozenset("абвгдеёжзийклмнопрстуфхцчшщъыьэюяАБВГДЕЁЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯ")
SEPARATORS = frozenset(" _-.\u00a0")
# Short nicks one letter apart are often different names ("Анна", "Анка"): only longer ones count as near.
NEAR_MIN_LENGTH = 5


def _twins(char: str) -> list[str]:
    return [str(h["c"]) for h in confusables_data.get(char, ()) if len(str(h["c"])) == 1]


@lru_cache(maxsize=4096)
def _latin_twin(char: str) -> str:
    """The ASCII letter `char` looks like (Cyrillic «В» -> "B"), or `char` itself."""
    if char.isascii():
        return char
    return next((t for t in _twins(char) if t.isascii() and t.isalnum()), char)


def _strip_marks(text: str) -> str:
    decomposed = unicodedata.normalize("NFD", unicodedata.normalize("NFKC", text))
    return "".join(c for c in decomposed if not unicodedata.combining(c))


@lru_cache(maxsize=4096)
def skeleton(nick: str) -> str:
    """What a reader sees of a nick: Latin twins, no case, no diacritics, no separators."""
    return "".join(_latin_twin(c) for c in _strip_marks(nick) if c not in SEPARATORS).casefold()


def scripts_of(nick: str) -> dict[str, list[str]]:
    """The nick's letters by script (LATIN, CYRILLIC, ...); digits and punctuation belong to none."""
    found: dict[str, list[str]] = {}
    for char in nick:
        if char.isalpha():
            found.setdefault(alias(char), []).append(char)
    return found


def _mixed_note(letters: dict[str, list[str]]) -> str | None:
    if len(letters) < 2:
        return None
    minority = sorted(letters, key=lambda script: (len(letters[script]), script))[:-1]
    parts = [f"{_script_name(s)}: {', '.join(dict.fromkeys(letters[s]))}" for s in minority]
    return "; ".join(parts)


def _script_name(script: str) -> str:
    return SCRIPT_NAMES.get(script, script.lower())


def _reads_as_cyrillic(nick: str, letters: dict[str, list[str]]) -> bool:
    """All Latin, and every letter has a twin in the Russian alphabet: «Bepa» is read «Вера»."""
    if set(letters) != {"LATIN"}:
        return False
    return all(any(t in RUSSIAN_LETTERS for t in _twins(c)) for c in letters["LATIN"])


def looks_alike(a: str, b: str) -> bool:
    """Two different nicks a reader may take for one another."""
    if a == b:
        return False
    sa, sb = skeleton(a), skeleton(b)
    if sa == sb:
        return True
    if min(len(sa), len(sb)) < NEAR_MIN_LENGTH:
        return False
    return Levenshtein.distance(sa, sb, score_cutoff=1) <= 1


def notes(nick: str, players: Iterable[str]) -> list[str]:
    """Why `nick` needs a second look among `players` (empty: it does not)."""
    others = [p for p in dict.fromkeys(players) if p != nick]
    letters = scripts_of(nick)
    found: list[str] = []
    mixed = _mixed_note(letters)
    if mixed:
        found.append(mixed)
    elif _reads_as_cyrillic(nick, letters) and any("CYRILLIC" in scripts_of(p) for p in others):
        found.append(SCRIPT_NAMES["LATIN"])
    alike = [p for p in others if looks_alike(nick, p)]
    if alike:
        found.append("похож на: " + ", ".join(alike))
    return found


def flag(nick: str, players: Iterable[str]) -> str:
    """The nick as the host and the moderators should see it: "Вера (похож на: Bepa)", or the nick alone."""
    found = notes(nick, players)
    return f"{nick} ({'; '.join(found)})" if found else nick


def flags(players: Iterable[str], nicks: Iterable[str] = ()) -> dict[str, str]:
    """The note of every flagged nick among `players` and the extra `nicks` (a vote's text, a non-player)."""
    roster = list(dict.fromkeys(players))
    result: dict[str, str] = {}
    for nick in dict.fromkeys([*roster, *nicks]):
        found = notes(nick, roster)
        if found:
            result[nick] = "; ".join(found)
    return result
