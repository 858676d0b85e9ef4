"""The command line in the host's language (`forumbot.i18n`, `forumbot/cli/language.py`).

Every command's help, and real runs on the demo forum's saved pages, the scenario files and the fake board, are
read in Russian and in English: the Russian output holds no English word (nicks, option names, metavars, codes,
file names and the words of commands aside), the English none of the catalogue's Russian; every help text the
command line shows has its translation in the catalogue; the language follows FORUMBOT_LANG, else the locale.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import timedelta
from gettext import GNUTranslations
from pathlib import Path

import pytest
import typer.main
from typer._click import Command
from typer.core import TyperGroup
from typer.testing import CliRunner, Result

import forumbot.cli as cli
from fakeboard import Board
from fakeboard.clock import FakeClock
from forumbot import i18n
from tests.cli.test_rehearsal import GAME as REHEARSAL
from tests.cli.test_rehearsal import PLAYERS, START, day_topic, table, vote

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "fixtures" / "demo"
GAME = "Демо-мафия"
RUSSIAN = {"LANG": "ru_RU.UTF-8"}
ENGLISH = {"LANG": "C.UTF-8"}
AFTER = "2026-11-29T23:30:00+03:00"
SCENARIO = sorted((ROOT / "scenarios" / "gameru-3.3").glob("*.yaml"))[0]

__all__ = ["table"]  # the rehearsal's fake board, as a fixture here too

# What may stand in Latin letters in Russian output: the program and the forum engines, the commands and their
# arguments as typed, rule variants, file kinds and a few technical words that have no Russian of their own.
ALLOWED = {
    "forumbot", "phpbb", "ipb", "typer", "cron", "bbcode", "html", "json", "toml", "yaml", "svg", "png", "iso", "sha",
    "utc", "url", "env", "http", "https", "gameru", "kozanostra", "salon", "neapol", "boss", "true", "false",
    "new-game", "signups", "deal", "day-topic", "status", "reveal", "advance", "end-day", "draft", "show", "approve",
    "send", "publish", "watch", "relays", "account", "deadline", "override", "power", "tally", "orders", "simulate",
    "scenario", "check", "run", "replace", "remove", "appoint-maniac", "scheme", "best-player", "help", "bool",
    "int", "text", "float", "path", "integer", "inbox", "file", "root", "saved", "outbox",
}  # fmt: skip
SPARED = [
    re.compile(r"(?<![\w-])--?[A-Za-z][\w-]*"),  # option names
    re.compile(r"'[^'\n]*'|«[^»\n]*»|\"[^\"\n]*\""),  # what is quoted: values, arguments, a nick
    re.compile(r"\[/?[a-z*]+(?:=[^\]\s]*)?\]|<[^>\n]*>|\{[^}\n]*\}"),  # BBCode, typer's <type>, {argument}
    re.compile(r"(?:https?|file)://\S+|[\w.-]*[/\\][\w./\\-]*|\S+\.(?:toml|html|yaml|db|py|svg|png|j2)\b"),  # paths
    re.compile(r"#\w+|\b\w*_\w*\b|\b\w*\d\w*\b"),  # relay commands, code names, codes with digits
    re.compile(r"\b[A-Z][A-Z_]+\b"),  # metavars and environment variables
    re.compile(r"i=pm&\S*|\w+=\S*"),  # a PM's address, KEY=VALUE
]
LATIN = re.compile(r"[A-Za-z]{3,}(?:-[A-Za-z]+)*")


@pytest.fixture(autouse=True)
def wide_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    """Lines as wide as a nick or a link needs: folded at 80 columns, "Bob Smith" would read as two words."""
    from forumbot.cli.common import err, out

    for console in (out, err):
        monkeypatch.setattr(console, "_width", 250)  # the width it was made with (None: the terminal's), restored


def english_words(text: str, nicks: tuple[str, ...] = (), names: frozenset[str] = frozenset()) -> list[str]:
    """The English words left in `text` once nicks, parameter `names` and everything that is not language is
    taken out."""
    for nick in sorted(nicks, key=len, reverse=True):
        text = text.replace(nick, " ")
    for pattern in SPARED:
        text = pattern.sub(" ", text)
    return [w for w in LATIN.findall(text) if w.lower() not in ALLOWED | names]


def parameter_names(command: Command) -> frozenset[str]:
    """A command's parameters as its help names them: arguments by name, flags by their words (`send`)."""
    return frozenset(
        word for p in command.params for word in [p.name or "", *(o.lstrip("-") for o in p.opts + p.secondary_opts)]
    )


def catalogue() -> GNUTranslations:
    found = i18n.catalogue("ru")
    assert isinstance(found, GNUTranslations), "the Russian catalogue is compiled and shipped"
    return found


def translations() -> dict[str, str]:
    return {k if isinstance(k, str) else k[0]: v for k, v in catalogue()._catalog.items() if k and v}  # type: ignore[attr-defined]


def russian_leaked(output: str) -> list[str]:
    """The catalogue's Russian found in `output` (what the English source itself quotes in Russian aside)."""
    known = translations()
    return [t for t in known.values() if len(t) > 12 and t in output and not any(t in m for m in known)]


def invoke(args: list[str], env: dict[str, str]) -> Result:
    return CliRunner().invoke(cli.app, args, env=env, terminal_width=200)


def commands() -> Iterator[tuple[list[str], Command]]:
    """Every command and group of the command line, with the words that call it."""

    def walk(path: list[str], command: Command) -> Iterator[tuple[list[str], Command]]:
        yield path, command
        if isinstance(command, TyperGroup):
            for name, sub in command.commands.items():
                yield from walk([*path, name], sub)

    yield from walk([], typer.main.get_command(cli.app))


PATHS = [path for path, _ in commands()]
NAMES = {" ".join(path): parameter_names(command) for path, command in commands()}


# --- choosing the language -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({"LANG": "ru_RU.UTF-8"}, "ru"),
        ({"LC_MESSAGES": "ru_RU.UTF-8", "LANG": "C.UTF-8"}, "ru"),
        ({"LC_ALL": "C", "LANG": "ru_RU.UTF-8"}, "en"),
        ({"FORUMBOT_LANG": "ru", "LANG": "en_GB.UTF-8"}, "ru"),
        ({"FORUMBOT_LANG": "en", "LC_ALL": "ru_RU.UTF-8"}, "en"),
        ({"LANG": "de_DE.UTF-8"}, "en"),
        ({"LANG": "C.UTF-8"}, "en"),
        ({}, "en"),
    ],
)
def test_the_language_is_forumbot_lang_else_the_locale(
    env: dict[str, str], expected: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for variable in i18n.LANGUAGE_VARIABLES:
        monkeypatch.delenv(variable, raising=False)
    for variable, value in env.items():
        monkeypatch.setenv(variable, value)
    assert i18n.language() == expected


def test_plurals_come_from_the_catalogue(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FORUMBOT_LANG", "ru")
    said = [i18n.ngettext("{n} post", "{n} posts", n).format(n=n) for n in (1, 2, 5, 11, 21, 22, 25, 112)]
    assert said == [
        "1 сообщение", "2 сообщения", "5 сообщений", "11 сообщений", "21 сообщение", "22 сообщения", "25 сообщений",
        "112 сообщений",
    ]  # fmt: skip
    monkeypatch.setenv("FORUMBOT_LANG", "en")
    assert [i18n.ngettext("{n} post", "{n} posts", n).format(n=n) for n in (1, 2)] == ["1 post", "2 posts"]


def test_an_error_is_said_in_the_language_of_the_moment_it_is_shown(monkeypatch: pytest.MonkeyPatch) -> None:
    from forumbot.errors import N_, StateError

    error = StateError(N_("{game}: the game is over"), game="Игра")
    assert str(error) == "Игра: the game is over"
    monkeypatch.setenv("FORUMBOT_LANG", "ru")
    assert str(error) == "Игра: игра окончена"
    assert str(StateError("a message the catalogue does not know")) == "a message the catalogue does not know"


# --- the catalogue and the help --------------------------------------------------------------------


def test_the_catalogue_is_in_step_with_the_code() -> None:
    """What `make test` checks: the strings extracted from the code are the catalogue's, none fuzzy or
    untranslated, each translation with the placeholders of its English, and the .mo compiled from the .po."""
    tools = pytest.importorskip("tools.catalogue", reason="Babel is a development tool (pip install -e '.[dev]')")
    assert tools.check() == []


def test_every_help_text_has_its_translation() -> None:
    known = translations()
    missing = []
    for path, command in commands():
        texts = [command.help, *(getattr(p, "help", None) for p in command.params)]
        missing += [f"{' '.join(path) or 'forumbot'}: {t!r}" for t in texts if t and t not in known]
    assert missing == []


@pytest.mark.parametrize("path", PATHS, ids=[" ".join(p) or "forumbot" for p in PATHS])
def test_every_help_is_russian_in_russian_and_english_in_english(path: list[str]) -> None:
    russian = invoke([*path, "--help"], RUSSIAN)
    assert russian.exit_code == 0, russian.output
    assert "Вызов:" in russian.output
    assert english_words(russian.output, names=NAMES[" ".join(path)]) == [], russian.output
    english = invoke([*path, "--help"], ENGLISH)
    assert english.exit_code == 0 and "Usage:" in english.output
    assert russian.output != english.output
    assert russian_leaked(english.output) == []


# --- real runs -------------------------------------------------------------------------------------


def played(tmp_path: Path, env: dict[str, str]) -> Path:
    """The demo game (saved pages of a phpBB board), dealt, its day ended in the language of `env` (the draft
    keeps its notes as they were said): a draft to show."""
    state = tmp_path / "state.db"
    for args in (
        ["new-game", str(DEMO / "game.toml")],
        ["deal", GAME, "--seed", "20261129", "--topic", "1", "--now", "2026-11-29T10:00:00+03:00"],
        ["end-day", GAME],
    ):
        result = invoke([*args, "--state", str(state)], env)
        assert result.exit_code == 0, result.output
    return state


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    return played(tmp_path, RUSSIAN)


@pytest.fixture
def demo_in_english(tmp_path: Path) -> Path:
    return played(tmp_path, ENGLISH)


def demo_nicks(state: Path) -> tuple[str, ...]:
    from forumbot.store import Store

    store = Store(state)
    try:
        row = store.game(GAME)
        assert row.state is not None
        return (*row.state.nicks(), "Призрак_Оперы", "Gandalf", "Koт_Учёный", "Дядя Федор", "Модератор")
    finally:
        store.close()


def demo_runs(state: Path, tmp_path: Path) -> list[list[str]]:
    s = ["--state", str(state)]
    players = tmp_path / "players.txt"
    players.write_text("\n".join(demo_nicks(state)[:15]), "utf-8")
    return [
        ["status", GAME, *s, "--now", AFTER],
        ["status", GAME, "--secret", *s, "--now", AFTER],
        ["draft", "show", GAME, *s],
        ["draft", "html", GAME, str(tmp_path / "preview.html"), *s],
        ["override", GAME, "--list", *s],
        ["override", GAME, "--ignore-post", "3", "--reason", "проверка", "--by", "Модератор", *s],
        ["override", GAME, "--list", *s],
        ["end-day", GAME, *s],
        ["draft", "show", GAME, *s],
        ["relays", GAME, *s],
        ["reveal", GAME, "--force", *s],
        ["draft", "approve", GAME, "--by", "Модератор", *s],
        ["scenario", "run", str(SCENARIO)],
        ["scenario", "check", str(SCENARIO)],
        ["simulate", "--variant", "salon", "--players", "8", "--games", "20"],
        ["deal", "--variant", "salon", "--players", str(players), "--seed", "3"],
        ["tally", "--from", str(DEMO / "pages"), "--players", str(players), "--topic", "1", "--now", AFTER],
        ["orders", "--from", str(DEMO / "pages"), "--players", str(players), "--now", AFTER],
        ["advance", GAME, *s, "--now", AFTER],
        ["status", GAME, *s, "--now", AFTER],
    ]


def test_the_demo_game_is_told_in_russian(demo: Path, tmp_path: Path) -> None:
    shown = " ".join(invoke(["draft", "show", GAME, "--state", str(demo)], RUSSIAN).output.split())
    assert "черновик" in shown and "не жирный" in shown and "сегодня ни сообщения, ни приказа" in shown
    assert "время МСК" in shown and "not_red" not in shown
    from typing import get_args

    from forumbot.engine.model import Role
    from forumbot.scenario import load_scenario

    scenario = load_scenario(SCENARIO)
    nicks = (*demo_nicks(demo), scenario.name, *(p.nick for p in scenario.players))  # the file's own words
    committed = frozenset(get_args(Role))  # reveal prints the role list as committed to on day 1: its codes
    for args in demo_runs(demo, tmp_path):
        result = invoke(args, RUSSIAN)
        assert result.exit_code == 0, (args, result.output)
        spared = committed if args[0] == "reveal" else frozenset()
        assert english_words(result.output, nicks, spared) == [], (args, result.output)


def test_the_demo_game_is_told_in_english(demo_in_english: Path, tmp_path: Path) -> None:
    shown = invoke(["draft", "show", GAME, "--state", str(demo_in_english)], ENGLISH).output
    assert "not_red" in shown and "(Europe/Moscow)" in shown
    for args in demo_runs(demo_in_english, tmp_path):
        result = invoke(args, ENGLISH)
        assert result.exit_code == 0, (args, result.output)
        assert russian_leaked(result.output) == [], args


def test_json_stays_language_neutral(demo: Path) -> None:
    for args in (["draft", "show", GAME, "--json"], ["status", GAME, "--json", "--secret", "--now", AFTER]):
        russian = invoke([*args, "--state", str(demo)], RUSSIAN)
        english = invoke([*args, "--state", str(demo)], ENGLISH)
        assert russian.exit_code == 0 and russian.output == english.output
    assert '"not_red"' in invoke(["draft", "show", GAME, "--json", "--state", str(demo)], RUSSIAN).output


ERRORS = [
    ["status", GAME],  # the state file given below does not exist
    ["status"],
    ["statuz", GAME],
    ["status", GAME, "--bogus"],
    ["simulate", "--variant", "salon", "--players", "x"],
    ["simulate", "--variant", "salon", "--players", "2", "--games", "1"],
    ["simulate", "--variant", "nope", "--players", "8"],
    ["watch", GAME, "--every", "soon"],
    ["override", GAME],
    ["tally"],
    ["deal"],
]
STATE_ERRORS = [
    ["status", "Нет-такой-игры"],
    ["end-day", GAME, "--now", "2026-11-29T12:00:00+03:00"],
    ["end-day", GAME, "--now", "вчера"],
    ["draft", "approve", GAME, "--by", "Чужой"],
    ["override", GAME, "--set-vote", "Никто=Alice", "--reason", "r", "--by", "Модератор"],
    ["override", GAME, "--count-post", "999", "--reason", "r", "--by", "Модератор"],
    ["override", GAME, "--remove", "7", "--by", "Модератор"],
    ["power", GAME, "exile", "Alice", "--reason", "r", "--by", "Модератор"],
    ["power", GAME, "replace", "Alice", "--reason", "r", "--by", "Модератор"],
    ["deadline", GAME, "+2h"],
    ["publish", GAME],
    ["advance", GAME],
    ["reveal", GAME],
    ["day-topic", GAME, "topic?"],
    ["new-game", "/nonexistent/game.toml"],
]


def test_every_error_line_is_russian(demo: Path, tmp_path: Path) -> None:
    nicks = demo_nicks(demo)
    runs = [[*args, "--state", str(tmp_path / "none.db")] for args in ERRORS]
    runs += [[*args, "--state", str(demo)] for args in STATE_ERRORS]
    for args in runs:
        russian, english = invoke(args, RUSSIAN), invoke(args, ENGLISH)
        assert russian.exit_code in (1, 2) and russian.exit_code == english.exit_code, (args, russian.output)
        assert russian.output.strip() and russian.output != english.output, (args, russian.output)
        assert english_words(russian.output, nicks) == [], (args, russian.output)


def test_a_rehearsal_on_the_fake_board_is_russian(table: tuple[Board, FakeClock]) -> None:
    """publish, the watch and the draft on the local phpBB board, read in Russian."""
    board, clock = table

    def ok(*args: str) -> str:
        result = invoke(list(args), RUSSIAN)
        assert result.exit_code == 0, (args, result.output)
        assert english_words(result.output, (*PLAYERS, REHEARSAL, "Модератор")) == [], (args, result.output)
        return result.output

    ok("new-game", "game.toml")
    ok("deal", REHEARSAL, "--seed", "11", "--now", clock.iso_at(START))
    opened = ok("publish", REHEARSAL, "--flood-interval", "0", "--now", clock.iso_at(START + timedelta(minutes=1)))
    topic = day_topic(opened.replace("в теме", "in topic"))
    for k, nick in enumerate(PLAYERS[1:-1]):
        vote(board, topic, nick, PLAYERS[0], START + timedelta(hours=1, minutes=k))
    ok("status", REHEARSAL, "--votes", "--now", clock.iso_at(START + timedelta(hours=2)))
    ok("watch", REHEARSAL, "--once", "--now", clock.iso_at(START + timedelta(hours=2)))
    ok("end-day", REHEARSAL, "--early", "все проголосовали", "--now", clock.iso_at(START + timedelta(hours=3)))
    shown = ok("draft", "show", REHEARSAL)
    assert "черновик, НЕ одобрен" in shown
    ok("draft", "approve", REHEARSAL, "--by", "Модератор")
    published = ok("publish", REHEARSAL, "--flood-interval", "0", "--now", clock.iso_at(START + timedelta(hours=4)))
    assert "отправлено сейчас:" in published and "день 2 открыт в теме" in published
    assert "публиковать нечего" in ok("publish", REHEARSAL, "--now", clock.iso_at(START + timedelta(hours=5)))
