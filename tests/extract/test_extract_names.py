"""Nick matching and look-alike nicks: one skeleton decides (docs/rules/common.md, Nick matching;
docs/votes-and-orders.md, the nearest player for the audit)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from forumbot.extract import Roster, looks_alike, skeleton, split_targets
from forumbot.extract.names import levenshtein
from forumbot.render import nicks

LATIN_O = "\u006f"  # Latin small o, looks like Cyrillic о

# Near misses a careful host would read as the player's nick: not counted in strict mode.
LOOKALIKES = [
    ("Кот_Матр" + LATIN_O + "скин", "Кот_Матроскин"),  # Latin 'o' in a Cyrillic nick
    ("Кот Матроскин", "Кот_Матроскин"),  # space for underscore
    ("Дядя\u200bФёдор", "Дядя Фёдор"),  # zero-width space for the space
    ("Дядя  Фёдор", "Дядя Фёдор"),  # double space
    ("Дядя\u00a0Фёдор", "Дядя Фёдор"),  # NBSP
    ("Дя\u00adдя Фёдор", "Дядя Фёдор"),  # soft hyphen
    ("\ufeffАлиса", "Алиса"),  # BOM
    ("алиса", "Алиса"),  # case
    ("ALICE", "Alice"),
    ("Петр", "Пётр"),  # ё written as е
    ("Пе\u0308тр", "Пётр"),  # ё as е + combining diaeresis: NFKC composes it
    ("Ежик в тумане", "Ёжик в тумане"),
    ("Аlice", "Alice"),  # Cyrillic А in a Latin nick
    ("BOB SMITH", "Bob Smith"),
    ("\u0391lice", "Alice"),  # Greek capital Alpha
    ("Mypka", "Мурка"),  # all Latin: M, y, p, k, a
]
PLAYERS = ["Alice", "Bob Smith", "Пётр", "Кот_Матроскин", "Дядя Фёдор", "Алиса", "Ёжик в тумане", "Mr. Pink", "Мурка"]


@pytest.fixture
def roster() -> Roster:
    return Roster(PLAYERS)


def test_exact_nick_matches_in_both_modes(roster: Roster) -> None:
    for mode in ("strict", "lenient"):
        m = roster.match("Кот_Матроскин", mode)
        assert (m.nick, m.exact, m.nearest, m.why) == ("Кот_Матроскин", True, "Кот_Матроскин", "exact")


def test_surrounding_whitespace_is_not_part_of_the_nick(roster: Roster) -> None:
    assert roster.match("  Пётр \n").nick == "Пётр"


@pytest.mark.parametrize(("text", "nick"), LOOKALIKES)
def test_strict_ignores_a_lookalike_but_names_the_player(roster: Roster, text: str, nick: str) -> None:
    m = roster.match(text, "strict")
    assert m.nick is None
    assert (m.nearest, m.why, m.exact) == (nick, "alike", False)


@pytest.mark.parametrize(("text", "nick"), LOOKALIKES)
def test_lenient_mode_counts_a_lookalike(roster: Roster, text: str, nick: str) -> None:
    m = roster.match(text, "lenient")
    assert (m.nick, m.exact, m.why) == (nick, False, "alike")


@pytest.mark.parametrize(("text", "nick"), [("Alic", "Alice"), ("Alise", "Alice"), ("Mr Pink", "Mr. Pink")])
def test_a_typo_within_distance_two_is_named_never_counted(roster: Roster, text: str, nick: str) -> None:
    for mode in ("strict", "lenient"):
        m = roster.match(text, mode)
        assert (m.nick, m.nearest, m.why) == (None, nick, "near")


def test_two_players_within_distance_two_give_no_nearest() -> None:
    m = Roster(["Alice", "Alina"]).match("Alin")
    assert (m.nick, m.nearest, m.why) == (None, None, "ambiguous")


def test_players_that_look_alike_give_no_nearest_but_exact_still_counts() -> None:
    roster = Roster(["Bob", "bob"])
    assert roster.match("BOB", "lenient") == roster.match("BOB") and roster.match("BOB").why == "ambiguous"
    assert roster.match("bob").nick == "bob"


def test_a_short_word_is_not_near_every_short_nick() -> None:
    roster = Roster(["Ян", "Ева"])
    assert roster.match("да").why == "unknown"  # distance 2 from "Ян", but nothing in common
    assert roster.match("Яна").nearest == "Ян"


def test_unknown_and_empty(roster: Roster) -> None:
    assert roster.match("Печкин").why == "unknown"
    assert roster.match(" \u00a0 ").why == "empty"


def test_skeleton_examples() -> None:
    assert skeleton("Пётр") == skeleton("ПЕТР") == skeleton("петр")
    assert skeleton("Bob\u00a0\u00a0Smith") == skeleton("bobsmith") == skeleton("Bob_Smith")
    assert skeleton("Mr. Pink") != skeleton("Mr Pink")  # punctuation is kept
    assert skeleton("Кот") == skeleton("КОТ") == skeleton("K\u03bf\u0442")  # Latin K, Greek omicron, Cyrillic т


# Written with the other alphabet's letters: Greek capital Alpha; Latin K with Greek omicron; Greek capital
# Eta; all Latin. Each is the real nick to a reader, and so to every part of the bot.
GREEK_AND_LATIN = [("\u0391lice", "Alice"), ("K\u03bf\u0442", "Кот"), ("\u0397ина", "Нина"), ("Mypka", "Мурка")]


@pytest.mark.parametrize(("written", "nick"), GREEK_AND_LATIN)
def test_one_definition_of_looking_alike_decides_everywhere(written: str, nick: str) -> None:
    roster = Roster([nick, "Пётр"])
    assert roster.match(written).why == "alike" and roster.match(written).nearest == nick  # the audit's hint
    assert roster.match(written, "lenient").nick == nick  # lenient matching
    assert roster.match(written).nick is None  # strict: never counted
    assert looks_alike(written, nick) and nicks.looks_alike is looks_alike  # the config's and preview's notes
    assert f"похож на: {nick}" in nicks.flag(written, [written, nick])


ALPHABETS = ["абвгдеёжзийклмнопрстуфхцчшщъыьэюя", "abcdefghijklmnopqrstuvwxyz", "αβγδεζηθικλμνξοπρστυφχψω"]


@pytest.mark.parametrize("alphabet", ALPHABETS)
def test_case_never_changes_a_skeleton(alphabet: str) -> None:
    for letter in alphabet:
        assert skeleton(letter) == skeleton(letter.upper()), letter


def test_roster_membership_is_exact(roster: Roster) -> None:
    assert "Пётр" in roster and "Петр" not in roster and len(roster) == len(PLAYERS)


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        ("A, B", ("A", "B")),
        ("A и B", ("A", "B")),
        ("A;B", ("A", "B")),
        ("A and B", ("A", "B")),
        ("A", ("A",)),
    ],
)
def test_split_targets(text: str, parts: tuple[str, ...]) -> None:
    assert split_targets(text) == parts


@given(st.text())
def test_the_skeleton_is_idempotent(text: str) -> None:
    assert skeleton(skeleton(text)) == skeleton(text)


@given(st.text())
def test_the_skeleton_leaves_no_whitespace_or_zero_width(text: str) -> None:
    seen = skeleton(text)
    assert not any(c.isspace() for c in seen)
    assert not set(seen) & set("\u200b\u200c\u200d\u2060\ufeff\u00ad")


@given(st.lists(st.text(min_size=1, max_size=12), min_size=1, max_size=8))
def test_every_nick_matches_itself_exactly(nicks: list[str]) -> None:
    roster = Roster(nicks)
    for nick in roster.nicks:
        assert roster.match(nick).nick == nick


def _naive_distance(a: str, b: str) -> int:
    if not a or not b:
        return len(a) + len(b)
    return min(
        _naive_distance(a[1:], b) + 1,
        _naive_distance(a, b[1:]) + 1,
        _naive_distance(a[1:], b[1:]) + (a[0] != b[0]),
    )


@given(st.text(alphabet="abc", max_size=6), st.text(alphabet="abc", max_size=6))
def test_bounded_levenshtein_agrees_with_the_definition(a: str, b: str) -> None:
    assert levenshtein(a, b) == min(_naive_distance(a, b), 3)
