"""The players' guide in short (`render/guide.py`): what the bot answers «помощь», told as true of the game,
and word for word the block docs/ru/players.md gives hosts to paste into a rules topic."""

from __future__ import annotations

from pathlib import Path

from forumbot.extract.commands import is_command_line, parse_commands
from forumbot.render.guide import players_help

ROOT = Path(__file__).resolve().parents[2]


def test_the_guide_says_where_this_game_votes() -> None:
    thread = players_help({"thread"}, relays=False)
    pm = players_help({"pm"}, relays=False)
    assert "красным жирным" in thread and "Голосую — Ник" not in thread
    assert "Голосую — Ник" in pm and "красным жирным" not in pm
    assert "#mail" in players_help({"thread"}, relays=True) and "#mail" not in thread


def test_help_is_a_command_in_any_case_and_no_order() -> None:
    for line in ("помощь", "Помощь", "ПОМОЩЬ", "help", "Help"):
        assert parse_commands(f"{line}\n").help and is_command_line(line)
    assert not parse_commands("Проверяю — помощь").help


def test_the_russian_players_guide_holds_the_short_form_word_for_word() -> None:
    guide = (ROOT / "docs" / "ru" / "players.md").read_text(encoding="utf-8")
    assert players_help({"thread", "pm"}, relays=True) in guide
