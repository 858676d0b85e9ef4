"""PM commands besides orders (seed 000's server commands, on a forum)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from forumbot.extract.commands import Relay, Setting, is_magic_word, parse_commands


@pytest.mark.parametrize(
    ("body", "relay"),
    [
        ("#mail Кот Матроскин ---\nТы мафия?", Relay("mail", "Ты мафия?", "Кот Матроскин", anonymous=True)),
        ("#MAIL Bob\nhi\nthere", Relay("mail", "hi\nthere", "Bob", anonymous=False)),
        ("#mafia\nУбиваем Петра", Relay("mafia", "Убиваем Петра")),
        ("\n  #jakudza\nкатана", Relay("yakuza", "катана")),
        ("#wall\nВсем привет", Relay("wall", "Всем привет")),
    ],
)
def test_relays(body: str, relay: Relay) -> None:
    assert parse_commands(body).relay == relay


def test_a_relay_makes_the_whole_pm_a_letter() -> None:
    parsed = parse_commands("#mail Bob ---\nZ\nQ\nO GENDER FEMALE")
    assert parsed.relay is not None and not parsed.report and not parsed.quit and not parsed.settings


def test_report_quit_and_settings() -> None:
    parsed = parse_commands("z\nO GENDER ona\no afterlife OFF\nQ\nУбиваю — Пётр")
    assert parsed.report and parsed.quit
    assert parsed.settings == (Setting("gender", "female"), Setting("afterlife", "off"))
    assert parsed.problems == ()


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("O GENDER robot", "GENDER takes one of MALE, FEMALE, ON, ONA, ONO, ONI"),
        ("O AFTERLIFE maybe", "AFTERLIFE takes one of ON, OFF"),
        ("O PASSWD secret", "unknown setting 'PASSWD'"),
        ("O", "an O command is"),
    ],
)
def test_bad_settings_are_reported(line: str, problem: str) -> None:
    parsed = parse_commands(line)
    assert parsed.settings == ()
    assert problem in parsed.problems[0]


def test_magic_word_is_exact() -> None:
    assert is_magic_word("  kozanostra7\n", "kozanostra7")
    assert not is_magic_word("Kozanostra7", "kozanostra7")
    assert not is_magic_word("kozanostra7 please", "kozanostra7")
    assert not is_magic_word("", "")


@given(st.text())
def test_parse_commands_never_raises(text: str) -> None:
    parse_commands(text)
