"""Bad input a host can give, each refused at once in one line that names the field, the file or the line (or,
for look-alike nicks, warned of), and never leaving a state file changed: a moderator among the players, a
numeric deadline, one account listed twice, a game name that is not one line, a missing saved_pages folder, a
broken .env line, an empty or foreign state file, a deadline moved years ahead, a power naming no player, a PM
of ten thousand lines."""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from forumbot.cli import app
from forumbot.draft import OverrideRow
from forumbot.extract.orders import MAX_PM_LINES
from forumbot.store import Store

DEMO = Path(__file__).resolve().parents[2] / "fixtures" / "demo"
GAME = "Демо-мафия"
DEALT = "2026-11-29T10:00:00+03:00"


def invoke(*args: str) -> Result:
    return CliRunner().invoke(app, list(args), terminal_width=200)


def ok(*args: str) -> Result:
    result = invoke(*args)
    assert result.exit_code == 0, result.output
    return result


def refused(*args: str) -> str:
    """Exit code 2 and one line, no traceback."""
    result = invoke(*args)
    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit), result.exception
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output
    return lines[0]


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    """A copy of the demo game's folder (its config and saved pages), to edit."""
    shutil.copytree(DEMO, tmp_path / "demo", ignore=shutil.ignore_patterns("*.py"))
    return tmp_path / "demo" / "game.toml"


def edit(config: Path, old: str, new: str) -> Path:
    text = config.read_text(encoding="utf-8")
    assert old in text
    config.write_text(text.replace(old, new, 1), encoding="utf-8")
    return config


def add_players(config: Path, *nicks: str) -> Path:
    listed = "".join(f"{json.dumps(n, ensure_ascii=False)}, " for n in nicks)
    return edit(config, '"Alice", ', '"Alice", ' + listed)


# --- the game's config ------------------------------------------------------------------------------------------


def test_a_moderator_among_the_players_is_refused_unless_the_config_says_so(demo: Path, tmp_path: Path) -> None:
    state = str(tmp_path / "state.db")
    add_players(demo, "модератор")  # the moderator's account, as a board ignores case
    line = refused("new-game", str(demo), "--state", state)
    assert line.startswith(f"error: {demo}: game: ") and "'Модератор' also play" in line
    assert "moderators_may_play = true" in line and not Path(state).exists()
    edit(demo, 'moderators = ["Модератор"]', 'moderators = ["Модератор"]\nmoderators_may_play = true')
    ok("new-game", str(demo), "--state", state)
    ok("deal", GAME, "--seed", "1", "--topic", "1", "--now", DEALT, "--state", state)


def test_a_moderator_who_signed_up_is_refused_at_the_deal(demo: Path, tmp_path: Path) -> None:
    state = tmp_path / "state.db"
    ok("new-game", str(demo), "--state", str(state))
    store = Store(state)
    store.set_players(store.game(GAME).id, [*store.players(store.game(GAME).id), "Модератор"])  # as signups do
    store.close()
    line = refused("deal", GAME, "--seed", "1", "--topic", "1", "--now", DEALT, "--state", str(state))
    assert line.startswith(f"error: {demo}: game.moderators: 'Модератор' also play")
    assert Store(state).game(GAME).state is None  # nothing dealt


def test_a_replacement_by_a_moderator_is_refused(demo: Path, tmp_path: Path) -> None:
    state = str(tmp_path / "state.db")
    ok("new-game", str(demo), "--state", state)
    ok("deal", GAME, "--seed", "1", "--topic", "1", "--now", DEALT, "--state", state)
    args = ["--reason", "x", "--by", "Модератор", "--state", state]
    line = refused("power", GAME, "replace", "Alice", "Модератор", *args)
    assert line == f"error: power replace: 'Модератор' is a moderator of {GAME}, who may not play"


@pytest.mark.parametrize(("written", "hint"), [("23", '"23:00"'), ("7", '"07:00"'), ("23.5", '"HH:MM"')])
def test_a_deadline_written_as_a_number_is_refused_never_read_as_seconds(
    demo: Path, tmp_path: Path, written: str, hint: str
) -> None:
    edit(demo, 'deadline = "23:00"', f"deadline = {written}")
    line = refused("new-game", str(demo), "--state", str(tmp_path / "state.db"))
    assert line.startswith(f"error: {demo}: game.deadline: {written} is a number, not a time of day")
    assert line.endswith(f"write deadline = {hint}")


def test_a_deadline_as_a_toml_time_or_a_text_is_read_as_that_time(demo: Path, tmp_path: Path) -> None:
    edit(demo, 'deadline = "23:00"', "deadline = 21:30:00")
    state = str(tmp_path / "state.db")
    ok("new-game", str(demo), "--state", state)
    dealt = ok("deal", GAME, "--seed", "1", "--topic", "1", "--now", DEALT, "--state", state)
    assert "day 1 deadline: 29.11.2026 21:30" in dealt.output


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        (["alice"], "player 'alice' and 'Alice' are one account on a board: list it once"),
        (["Alice "], "player 'Alice ' has spaces around it"),
        (["Bob  Smith"], "player 'Bob Smith' and 'Bob  Smith' are one account on a board"),
        (["BOB SMITH"], "player 'Bob Smith' and 'BOB SMITH' are one account on a board"),
        (["Ali\nce"], "player 'Ali\\nce' is not one line of text"),
        ([""], "a player nick is empty"),
    ],
)
def test_two_nicks_of_one_account_are_refused(demo: Path, tmp_path: Path, extra: list[str], said: str) -> None:
    line = refused("new-game", str(add_players(demo, *extra)), "--state", str(tmp_path / "state.db"))
    assert line.startswith(f"error: {demo}: game.players: ") and said in line


def test_nicks_that_look_alike_are_a_warning(demo: Path, tmp_path: Path) -> None:
    add_players(demo, "\u0391lice", "Mypka", "Мурка")  # a Greek capital Alpha; all Latin and all Cyrillic
    state = str(tmp_path / "state.db")
    made = ok("new-game", str(demo), "--state", state)
    warnings = [line for line in made.stderr.splitlines() if line.startswith("warning: ")]
    assert warnings == [
        "warning: players 'Alice' and '\u0391lice' look alike: make sure both are real accounts, and tell the "
        "players apart",
        "warning: players 'Mypka' and 'Мурка' look alike: make sure both are real accounts, and tell the players apart",
    ]
    assert "created" in made.stdout
    dealt = ok("deal", GAME, "--seed", "1", "--topic", "1", "--now", DEALT, "--state", state)
    assert [line for line in dealt.stderr.splitlines() if line.startswith("warning: ")] == warnings


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ('""', "the game's name is empty"),
        ('"   "', "the game's name is empty"),
        ('" Мафия"', "' Мафия' has spaces around it"),
        ('"""Мафия\n12"""', "'Мафия\\n12' is not one line of text"),
        ('"Мафия\\t12"', "is not one line of text"),
    ],
)
def test_a_game_name_that_is_not_one_line_is_refused(demo: Path, tmp_path: Path, name: str, said: str) -> None:
    edit(demo, 'name = "Демо-мафия"', f"name = {name}")
    line = refused("new-game", str(demo), "--state", str(tmp_path / "state.db"))
    assert line.startswith(f"error: {demo}: game.name: ") and said in line


def test_a_saved_pages_folder_that_is_not_there(demo: Path, tmp_path: Path) -> None:
    edit(demo, 'saved_pages = "pages"', 'saved_pages = "pagez"')
    line = refused("new-game", str(demo), "--state", str(tmp_path / "state.db"))
    assert line == f"error: {demo}: forum.saved_pages: no such folder: {demo.parent / 'pagez'}"
    edit(demo, 'saved_pages = "pagez"', 'saved_pages = "game.toml"')
    line = refused("new-game", str(demo), "--state", str(tmp_path / "state.db"))
    assert line == f"error: {demo}: forum.saved_pages: is not a folder: {demo}"


# --- the machine's settings and the state file ------------------------------------------------------------------


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder to run in, with its own home, and no FORUMBOT_ setting from outside."""
    for name in ("FORUMBOT_STATE", "FORUMBOT_USERNAME", "FORUMBOT_PASSWORD", "FORUMBOT_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("FORUMBOT_HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    return work


@pytest.mark.parametrize(
    ("text", "line_no", "said"),
    [
        ("FORUMBOT_USERNAME=bot\nFORUMBOT_PASSWORD secret\n", 2, "not a KEY=VALUE line"),
        ('# the bot\n\nFORUMBOT_PASSWORD="unterminated\n', 3, "not a KEY=VALUE line"),
        ("FORUMBOT_USERNAME\n", 1, "not a KEY=VALUE line"),
        ("FORUMBOT_USERNAM=bot\n", 1, "FORUMBOT_USERNAM is no setting of forumbot (known: FORUMBOT_BASE_URL"),
    ],
)
def test_a_broken_env_line_is_refused_naming_the_file_and_the_line(
    here: Path, text: str, line_no: int, said: str
) -> None:
    (here / ".env").write_text(text, encoding="utf-8")
    line = refused("status", GAME)
    assert line.startswith(f"error: .env:{line_no}: {said}")
    assert "secret" not in line and "unterminated" not in line  # the line itself may hold the password


def test_a_broken_line_of_the_homes_env_is_named_too(here: Path, tmp_path: Path) -> None:
    (tmp_path / "home" / ".env").write_text("FORUMBOT_STATE=/x\n=oops\n", encoding="utf-8")
    assert refused("status", GAME).startswith(f"error: {tmp_path / 'home' / '.env'}:2: not a KEY=VALUE line")


def test_a_good_env_file_is_read(here: Path, demo: Path) -> None:
    (here / ".env").write_text(f"# the game\nexport FORUMBOT_STATE='{here / 'g.db'}'\n\nOTHER_TOOL=1\n", "utf-8")
    ok("new-game", str(demo))
    assert (here / "g.db").is_file()


@pytest.mark.parametrize("command", [["status", GAME], ["new-game", str(DEMO / "game.toml")]])
def test_an_empty_state_file_is_refused_and_never_written_into(tmp_path: Path, command: list[str]) -> None:
    empty = tmp_path / "state.db"
    empty.touch()
    line = refused(*command, "--state", str(empty))
    assert line.startswith(f"error: {empty}: the state file is empty (0 bytes), not a forumbot state file")
    assert empty.stat().st_size == 0 and sorted(p.name for p in tmp_path.iterdir()) == ["state.db"]


@pytest.mark.parametrize("command", [["status", GAME], ["new-game", str(DEMO / "game.toml")]])
def test_another_programs_database_is_refused_and_never_written_into(tmp_path: Path, command: list[str]) -> None:
    other = tmp_path / "notes.db"
    db = sqlite3.connect(other)
    db.executescript("CREATE TABLE notes (text TEXT); INSERT INTO notes VALUES ('keep me');")
    db.close()
    before = other.read_bytes()
    line = refused(*command, "--state", str(other))
    assert line.startswith(f"error: {other}: not a forumbot state file (an SQLite database of something else")
    assert other.read_bytes() == before


def test_an_empty_database_is_no_state_file_but_new_game_may_make_it_one(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    db = sqlite3.connect(path)
    db.executescript("CREATE TABLE t (x); DROP TABLE t;")
    db.close()
    line = refused("status", GAME, "--state", str(path))
    assert line.startswith(f"error: {path}: an empty database, not a forumbot state file yet")
    ok("new-game", str(DEMO / "game.toml"), "--state", str(path))
    ok("status", GAME, "--state", str(path))


# --- the host's commands during a game --------------------------------------------------------------------------


@pytest.fixture
def state(tmp_path: Path) -> Path:
    path = tmp_path / "state.db"
    ok("new-game", str(DEMO / "game.toml"), "--state", str(path))
    ok("deal", GAME, "--seed", "1", "--topic", "1", "--now", DEALT, "--state", str(path))
    return path


def deadline_of(path: Path) -> Any:
    store = Store(path)
    day = store.day(store.game(GAME).id, 1)
    assert day is not None
    return day["deadline"]


@pytest.mark.parametrize(
    ("when", "said"),
    [
        ("+99999h", "WHEN '+99999h': a shift of at most 336h (two weeks)"),
        ("+99999999999999999999999h", "a shift of at most 336h"),
        ("+20160m", "is more than two weeks away"),
        ("2027-12-24T23:00", "is more than two weeks away"),
        ("9999-12-31T23:59", "WHEN '9999-12-31T23:59': the year 9999 is not this game's"),
        ("0001-01-01T00:00+05:00", "the year 1 is not this game's"),
    ],
)
def test_a_deadline_moved_years_ahead_is_refused(state: Path, when: str, said: str) -> None:
    before = deadline_of(state)
    args = ["--reason", "сбой", "--by", "Модератор", "--now", "2026-11-29T12:00:00+03:00", "--state", str(state)]
    line = refused("deadline", GAME, when, *args)
    assert said in line
    assert deadline_of(state) == before


def test_a_deadline_two_weeks_ahead_is_still_fine(state: Path) -> None:
    args = ["--reason", "сбой", "--by", "Модератор", "--now", "2026-11-29T12:00:00+03:00", "--state", str(state)]
    ok("deadline", GAME, "2026-12-13T11:00", *args, "--no-send")


def powers(path: Path) -> list[OverrideRow]:
    store = Store(path)
    return store.overrides(store.game(GAME).id, 1)


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["remove", "Гендальф"], "power remove: 'Гендальф' is not a player of Демо-мафия"),
        (["remove", "Alicе"], "power remove: 'Alicе' is not a player of Демо-мафия; did you mean 'Alice'?"),
        (["best-player", "Nobody"], "best_player: the host of gameru-3.3 names no best player"),
        (["appoint-maniac", "Никто"], "power appoint-maniac: 'Никто' is not a player of Демо-мафия"),
        (["scheme", "Никто", "sheriff"], "power scheme: 'Никто' is not a player of Демо-мафия"),
    ],
)
def test_a_power_that_names_no_player_is_refused_and_not_recorded(state: Path, args: list[str], said: str) -> None:
    line = refused("power", GAME, *args, "--reason", "x", "--by", "Модератор", "--state", str(state))
    assert said in line
    assert powers(state) == []


def test_a_removal_of_a_dead_player_is_refused(state: Path) -> None:
    ok("power", GAME, "remove", "Alice", "--reason", "мультиаккаунт", "--by", "Модератор", "--state", str(state))
    line = refused("power", GAME, "remove", "Alice", "--reason", "ещё раз", "--by", "Модератор", "--state", str(state))
    assert "Alice is removed twice" in line
    assert [p.subject for p in powers(state)] == ["Alice"]


def test_a_pm_of_ten_thousand_lines_is_read_only_to_its_limit(demo: Path, tmp_path: Path) -> None:
    """The demo's third PM («Проверяю — Winnie») with ten thousand lines before its order."""
    page = demo.parent / "pages" / "pm_3.html"
    filler = "<br>\n".join(f"строка {n}" if n % 3 else f"Проверяю — Игрок{n}" for n in range(10_000))
    edit(page, "Добрый вечер!<br>", filler + "<br>")
    state = str(tmp_path / "state.db")
    ok("new-game", str(demo), "--state", state)
    ok("deal", GAME, "--seed", "1", "--topic", "1", "--now", DEALT, "--state", state)
    made = ok("end-day", GAME, "--json", "--state", state)
    rows = [row for row in json.loads(made.stdout)["orders"] if row["pm_id"] == 3]
    cut = [row for row in rows if row["reason"] == "too_long"]
    assert len(rows) == MAX_PM_LINES + 1 and len(cut) == 1
    assert cut[0]["line"] == f"{10_001 - MAX_PM_LINES} lines not read"
    assert not any(row["action"] == "check" and row["targets"] == ["Winnie"] for row in rows)  # past the limit
    shown = ok("draft", "show", GAME, "--state", state).stdout
    assert len(shown.splitlines()) < 400 and len(re.findall("too_long", shown)) == 1


def test_a_game_dealt_before_these_checks_still_plays(tmp_path: Path) -> None:
    """Its config was accepted then: a moderator among its players does not lock the host out of his game."""
    path = tmp_path / "state.db"
    players = ["Alice", "Bob", "Модератор", "Пётр", "Анна", "Глеб", "Дина"]
    game = {"name": "Старая", "variant": "salon", "players": players, "moderators": ["Модератор"]}
    store = Store(path)
    store.create_game("Старая", "salon", {"game": game | {"moderators_may_play": True}}, players)
    store.close()
    ok("deal", "Старая", "--seed", "1", "--topic", "1", "--now", DEALT, "--state", str(path))
    store = Store(path)
    store.set_config(store.game("Старая").id, {"game": game}, None)  # as a forumbot without the field stored it
    store.close()
    assert "Старая" in ok("status", "Старая", "--state", str(path)).stdout
