"""`python -m fakeboard rehearse`: the board and forumbot's commands on one clock, the lines of a script played
in order; a line that cannot be done, a command that fails unexpected, an expectation that does not hold stop
the rehearsal, named by file and line. (The bundled game, rehearsal/gameru.txt, is played by the README's own
commands: tests/docs/test_readme.py.)"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from fakeboard.rehearse import MARK, rehearse

REPO = Path(__file__).resolve().parents[2]
CONFIG = REPO / "rehearsal" / "game.toml"
OPENING = """\
at 2026-11-29 12:00
forumbot new-game "$CONFIG"
forumbot deal "$GAME" --seed 11
at 12:01
forumbot publish "$GAME"
"""


def play(tmp_path: Path, script: str, config: Path = CONFIG) -> int:
    path = tmp_path / "script.txt"
    path.write_text(script, encoding="utf-8")
    return rehearse(config, path, tmp_path / "work")


def test_votes_posts_and_pms_are_dated_by_the_one_clock_the_bot_counts_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = OPENING + (
        "at 13:15  # the clock moves\nvote Кот Матроскин: Лиса # a vote\npm Шарик: Проверяю — Печкин\nat 14:00\n"
        'forumbot end-day "$GAME" --early "проверка"\nexpect event: executed → Лиса 1 vote\n'
        'forumbot draft show "$GAME" --json\nexpect "voter": "Кот Матроскин"\nexpect "counted": true\n'
        'expect "time": "2026-11-29T13:15:00+03:00"\n'
    )
    assert play(tmp_path, script) == 0, capsys.readouterr().err
    out = capsys.readouterr().out
    assert "── 29.11.2026 13:15:00 (Europe/Moscow) ──" in out
    assert "before_start" not in out and "after_deadline" not in out


def test_the_moderator_approves_by_answering_the_draft_pm(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = OPENING + (
        'at 13:00\nvote Шарик: Лиса\nat 23:05\nforumbot watch "$GAME"\nexpect draft made and sent to the moderators\n'
        'reply Модератор: Одобряю\nforumbot watch "$GAME"\nexpect approved by Модератор\n'
        'forumbot publish "$GAME"\nexpect day 2 is open in topic 2\n'
    )
    assert play(tmp_path, script) == 0, capsys.readouterr().err
    assert "«Re: [" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("script", "said"),
    [
        ("at 2026-11-29 12:00\nat 2026-11-29 11:00\n", "script.txt:2: the clock never goes back"),
        (OPENING + 'forumbot end-day "$GAME"\nat 13:00\n', "script.txt:7: the command before failed (exit 2)"),
        (OPENING + 'forumbot status "$GAME"\nexpect day 7\n', "script.txt:7: expected 'day 7'"),
        ("at 2026-11-29 12:00\nvote Незнакомец: Лиса\n", "script.txt:2: 'Незнакомец' has no account on the board"),
        ("at 2026-11-29 12:00\nvote Лиса: Шарик\n", "script.txt:2: no day topic yet"),
        ("at 12:00\nforumbot status X --now 2026-11-29T12:00\n", "the rehearsal's clock gives --now"),
        ("shout Лиса: hi\n", "script.txt:1: 'shout': not a rehearsal line"),
        ("wait soon\n", "script.txt:1: 'soon' is no duration"),
    ],
)
def test_a_line_that_cannot_be_done_stops_the_rehearsal_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], script: str, said: str
) -> None:
    assert play(tmp_path, script) == 1
    assert said in capsys.readouterr().err


def test_a_failure_expected_is_one_the_script_goes_on_after(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = OPENING + 'forumbot end-day "$GAME"\nexpect exit 2\nexpect ends at 29.11.2026 23:00\nwait 11h\n'
    assert play(tmp_path, script) == 0, capsys.readouterr().err
    assert "the rehearsal is over at 29.11.2026 23:01:" in capsys.readouterr().out


def test_a_config_with_a_forum_address_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "game.toml"
    config.write_text(
        CONFIG.read_text("utf-8").replace('engine = "phpbb"', 'engine = "phpbb"\nbase_url = "https://f.example/"'),
        "utf-8",
    )
    assert play(tmp_path, "at 12:00\n", config) == 2
    assert "[forum] base_url is set" in capsys.readouterr().err


def test_a_work_folder_no_rehearsal_made_is_left_alone(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "notes.txt").write_text("mine", "utf-8")
    assert play(tmp_path, "at 12:00\n") == 2
    assert (work / "notes.txt").read_text("utf-8") == "mine"
    (work / "notes.txt").unlink()
    assert play(tmp_path, "at 12:00\n") == 0
    (work / "left.txt").write_text("", "utf-8")
    assert play(tmp_path, "at 12:00\n") == 0  # an earlier rehearsal's folder is emptied
    assert sorted(p.name for p in work.iterdir()) == [MARK]


def test_lines_typed_are_read_from_the_standard_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    typed = io.StringIO('at 2026-11-29 12:00\nforumbot new-game "$CONFIG"\nquit\nforumbot deal "$GAME"\n')
    assert rehearse(CONFIG, None, tmp_path / "work", stdin=typed) == 0
    out = capsys.readouterr().out
    assert "game 'Репетиция' created" in out and "roles dealt" not in out


def test_a_missing_script_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert rehearse(CONFIG, tmp_path / "nowhere.txt", tmp_path / "work") == 2
    assert "nowhere.txt: cannot read the script" in capsys.readouterr().err
