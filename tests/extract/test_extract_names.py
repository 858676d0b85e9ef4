"""Nick matching (docs/rules/common.md, Nick matching; docs/votes-and-orders.md, the nearest player for the audit)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from forumbot.extract import Roster, fold, split_targets
from forumbot.extract.names import levenshtein

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
]
PLAYERS = ["Alice", "Bob Smith", "Пётр", "Кот_Матроскин", "Дядя Фёдор", "Алиса", "Ёжик в тумане", "Mr. Pink"]


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
    assert (m.nearest, m.why, m.exact) == (nick, "folded", False)


@pytest.mark.parametrize(("text", "nick"), LOOKALIKES)
def test_lenient_mode_counts_a_lookalike(roster: Roster, text: str, nick: str) -> None:
    m = roster.match(text, "lenient")
    assert (m.nick, m.exact, m.why) == (nick, False, "folded")


@pytest.mark.parametrize(("text", "nick"), [("Alic", "Alice"), ("Alise", "Alice"), ("Mr Pink", "Mr. Pink")])
def test_a_typo_within_distance_two_is_named_never_counted(roster: Roster, text: str, nick: str) -> None:
    for mode in ("strict", "lenient"):
        m = roster.match(text, mode)
        assert (m.nick, m.nearest, m.why) == (None, nick, "near")


def test_two_players_within_distance_two_give_no_nearest() -> None:
    m = Roster(["Alice", "Alina"]).match("Alin")
    assert (m.nick, m.nearest, m.why) == (None, None, "ambiguous")


def test_players_that_fold_alike_give_no_nearest_but_exact_still_counts() -> None:
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


def test_fold_examples() -> None:
    assert fold("Пётр") == fold("ПЕТР") == fold("петр")
    assert fold("Bob\u00a0\u00a0Smith") == fold("bobsmith") == fold("Bob_Smith")
    assert fold("Mr. Pink") != fold("Mr Pink")  # punctuation is kept


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
def test_fold_is_idempotent(text: str) -> None:
    assert fold(fold(text)) == fold(text)


@given(st.text())
def test_fold_leaves_no_whitespace_or_zero_width(text: str) -> None:
    folded = fold(text)
    assert not any(c.isspace() for c in folded)
    assert not set(folded) & set("\u200b\u200c\u200d\u2060\ufeff\u00ad")


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
