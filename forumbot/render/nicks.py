"""Look-alike nicks, flagged for the host and the moderators (never in the public texts, which keep nicks exact).

A nick is flagged when
- it mixes scripts: "Koт_Учёный (лат.: K, o)" names the letters of the smaller script;
- it is all Latin among Cyrillic players and every letter has a Cyrillic twin: "Bepa (лат.)" reads as «Вера»;
- it looks like another player's nick: "Вера (похож на: Bepa)". What looks alike is defined once, for the
  vote matching, the config's warnings and these notes alike: `forumbot.extract.names.looks_alike` (the
  nicks' skeletons are equal or, for longer nicks, one edit apart).

The letters' scripts and twins come from the Unicode data that `confusable-homoglyphs` ships.
"""

from __future__ import annotations

from collections.abc import Iterable

from confusable_homoglyphs.categories import alias
from confusable_homoglyphs.confusables import confusables_data

from forumbot.extract.names import looks_alike, skeleton

__all__ = ["flag", "flags", "looks_alike", "notes", "scripts_of", "skeleton"]

SCRIPT_NAMES: dict[str, str] = {"LATIN": "лат.", "CYRILLIC": "кир.", "GREEK": "греч."}
RUSSIAN_LETTERS = frozenset("абвгдеёжзийклмнопрстуфхцчшщъыьэюяАБВГДЕЁЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯ")


def _twins(char: str) -> list[str]:
    return [str(h["c"]) for h in confusables_data.get(char, ()) if len(str(h["c"])) == 1]


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
