"""The host's commands on a saved-pages forum: new-game, deal, end-day, draft, override, advance, status."""

from __future__ import annotations

import json
import shutil
from datetime import timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from forumbot.cli import app
from forumbot.config import GameConfig, load_game_config, load_settings
from forumbot.forum.client import ForumClient
from forumbot.forum.registry import client_settings, load_saved_folder, open_client
from forumbot.host import games
from forumbot.store import Store

CAPTURED = Path(__file__).resolve().parents[2] / "fixtures" / "phpbb"
PLAYERS = [
    "Alice",
    "Bob Smith",
    "Пётр",
    "Кот_Матроскин",
    "Дядя Фёдор",
    "Шарик",
    "Mr. Pink",
    "Charlie",
    "Ёжик в тумане",
    "Dana_99",
]
CONFIG = """\
[game]
name = "Mafia-1"
variant = "gameru-3.3"
players = {players}
moderators = ["admin"]
timezone = "UTC"
deadline = "23:00"

[forum]
engine = "saved"
saved_pages = "pages"
"""
runner = CliRunner()


@pytest.fixture
def game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    pages = tmp_path / "pages"
    pages.mkdir()
    for name in ("viewtopic_page1.html", "viewtopic_page2.html", "pm_inbox.html", "pm_view.html"):
        shutil.copy(CAPTURED / name, pages / name)
    (tmp_path / "game.toml").write_text(CONFIG.format(players=json.dumps(PLAYERS, ensure_ascii=False)), "utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FORUMBOT_STATE", str(tmp_path / "state.db"))
    assert run("new-game", "game.toml").exit_code == 0
    return tmp_path


def run(*args: str) -> Result:
    result = runner.invoke(app, list(args))
    return result


def ok(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def test_a_day_from_deal_to_advance(game: Path) -> None:
    out = ok("deal", "Mafia-1", "--topic", "2", "--now", "2026-11-29T10:00:00+00:00")
    assert "commitment for the first day's post: SHA-256 " in out
    assert "votes so far: Alice → Пётр, Ёжик в тумане → Dana_99, Bob Smith → Пётр" in ok("status", "Mafia-1", "--votes")
    assert "mafia" not in out  # roles stay secret
    draft = json.loads(ok("end-day", "Mafia-1", "--json"))
    assert draft["day"] == 1
    assert draft["deaths"] == {"Пётр": "executed"}  # 3 counted votes: Alice, Bob Smith (changed), Charlie
    counted = {(v["voter"], v["target"]) for v in draft["votes"] if v["counted"]}
    assert counted == {
        ("Alice", "Пётр"),
        ("Bob Smith", "Пётр"),
        ("Charlie", "Пётр"),
        ("Ёжик в тумане", "Dana_99"),
        ("Шарик", "Дядя Фёдор"),
    }
    reasons = {v["reason"] for v in draft["votes"] if not v["counted"]}
    assert {"quoted", "edited", "not_red", "not_bold", "superseded"} <= reasons
    assert all(v["link"] for v in draft["votes"])
    # Advancing needs a moderator's approval, and only a moderator of the game may give it.
    assert "not approved" in run("advance", "Mafia-1").output
    assert "not a moderator" in run("draft", "approve", "Mafia-1", "--by", "Alice").output
    ok("draft", "approve", "Mafia-1", "--by", "admin")
    shown = ok("draft", "show", "Mafia-1")
    assert "approved by admin" in shown and "Mafia-1. День 2" in shown
    assert "day 2 is open" in ok("advance", "Mafia-1", "--now", "2026-11-29T23:30:00+00:00")
    status = ok("status", "Mafia-1")
    assert "day 2" in status and "dead (day 1, executed)" in status
    assert "mafia" not in status.replace("Mafia-1", "")
    assert "mafia" in ok("status", "Mafia-1", "--secret").replace("Mafia-1", "")


def test_end_day_again_replaces_the_draft_and_changes_nothing_else(game: Path) -> None:
    ok("deal", "Mafia-1", "--topic", "2", "--now", "2026-11-29T10:00:00+00:00")
    store = Store(game / "state.db")
    before = store.game("Mafia-1")
    first = json.loads(ok("end-day", "Mafia-1", "--json"))
    ok("draft", "approve", "Mafia-1", "--by", "admin")
    second = json.loads(ok("end-day", "Mafia-1", "--json"))
    assert first == second
    after = store.game("Mafia-1")
    assert after.state == before.state
    redrafted = store.draft(after.id, 1)
    assert redrafted is not None and redrafted.approved_by is None  # a new draft needs a new approval


@pytest.mark.parametrize("step", ["posts read", "messages read", "votes and orders extracted", "day resolved"])
def test_a_crash_at_any_step_loses_nothing_and_a_rerun_gives_the_same_draft(game: Path, step: str) -> None:
    ok("deal", "Mafia-1", "--topic", "2", "--now", "2026-11-29T10:00:00+00:00")
    store = Store(game / "state.db")
    config = load_game_config(game / "game.toml")
    clean = games.end_day(store, "Mafia-1", client_for(config)).to_json()

    def crash(at: str) -> None:
        if at == step:
            raise KeyboardInterrupt(f"killed after {at}")

    ok("override", "Mafia-1", "--count-post", "3", "--reason", "no-op", "--by", "admin")
    with pytest.raises(KeyboardInterrupt):
        games.end_day(store, "Mafia-1", client_for(config), checkpoint=crash)
    game_row = store.game("Mafia-1")
    assert game_row.state is not None and game_row.state.day == 1
    again = games.end_day(store, "Mafia-1", client_for(config)).to_json()
    assert strip_overrides(again) == strip_overrides(clean)
    stored = store.draft(game_row.id, 1)
    assert stored is not None and stored.draft.to_json() == again


def client_for(config: GameConfig) -> ForumClient:
    return open_client(client_settings(load_settings(), config.forum))


def strip_overrides(payload: dict[str, object]) -> dict[str, object]:
    return {k: v for k, v in payload.items() if k != "overrides"}


def test_overrides_are_applied_and_shown(game: Path) -> None:
    ok("deal", "Mafia-1", "--topic", "2", "--now", "2026-11-29T10:00:00+00:00")
    ok("override", "Mafia-1", "--ignore-post", "3", "--reason", "вне игры", "--by", "admin")
    ok("override", "Mafia-1", "--set-vote", "Dana_99=Alice", "--reason", "поздний голос принят", "--by", "admin")
    ok("override", "Mafia-1", "--count-post", "5", "--reason", "правка опечатки", "--by", "admin")
    draft = json.loads(ok("end-day", "Mafia-1", "--json"))
    # Alice's vote for Пётр is ignored; Пётр's edited vote for Bob Smith counts; Dana_99 votes Alice.
    assert draft["deaths"] == {"Пётр": "executed"}  # Bob Smith and Charlie still: 2 votes
    post3 = [v for v in draft["votes"] if v.get("post_id") == 3]
    assert post3[0]["counted"] is False and post3[0]["reason"] == "override by admin: вне игры"
    shown = ok("draft", "show", "Mafia-1")
    assert "override by admin: ignore_post 3 — вне игры" in shown
    bad = run("override", "Mafia-1", "--set-vote", "Dana_99=Alise", "--reason", "x", "--by", "admin")
    assert bad.exit_code == 2 and "'Alise' is not a player (did you mean 'Alice'?)" in bad.output


def test_signups_come_from_red_posts(tmp_path: Path) -> None:
    saved_dir = tmp_path / "s"
    saved_dir.mkdir()
    shutil.copy(CAPTURED / "viewtopic_page1.html", saved_dir / "p1.html")
    posts = [p for page in load_saved_folder(saved_dir).topic_pages for p in page.posts]
    signed = games.signups_from_posts(posts, exclude=["host_bot"])
    # Red text outside quotes signs a player up; Кот_Матроскин only quoted red, Дядя Фёдор wrote dark red.
    assert "Кот_Матроскин" not in signed and "Дядя Фёдор" not in signed
    assert signed[:3] == ["Alice", "Bob Smith", "Пётр"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("end-day", "Nope"), "unknown game 'Nope'"),
        (("draft", "show", "Nope"), "unknown game 'Nope'"),
        (("new-game", "missing.toml"), "missing.toml: no such config file"),
    ],
)
def test_errors_are_one_line_with_exit_2(game: Path, args: tuple[str, ...], message: str) -> None:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_a_bad_config_names_the_field(game: Path) -> None:
    (game / "bad.toml").write_text('[game]\nname = "x"\nvariant = "poker"\n', "utf-8")
    result = runner.invoke(app, ["new-game", "bad.toml"])
    assert result.exit_code == 2
    assert "bad.toml: game.variant: unknown variant 'poker'" in result.output
    (game / "bad2.toml").write_text(
        '[game]\nname = "x"\nvariant = "salon"\n[game.options]\nexecution_threshold = "a"\n'
    )
    result = runner.invoke(app, ["new-game", "bad2.toml"])
    assert result.exit_code == 2 and "execution_threshold" in result.output


def test_a_live_forum_without_credentials_names_the_setting(game: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = (
        (game / "game.toml")
        .read_text("utf-8")
        .replace('engine = "saved"\nsaved_pages = "pages"', 'engine = "phpbb"\nbase_url = "http://127.0.0.1:9/"')
    )
    (game / "live.toml").write_text(config.replace('"Mafia-1"', '"Live"'), "utf-8")
    monkeypatch.delenv("FORUMBOT_USERNAME", raising=False)
    monkeypatch.delenv("FORUMBOT_PASSWORD", raising=False)
    ok("new-game", "live.toml")
    ok("deal", "Live", "--topic", "2")
    result = runner.invoke(app, ["end-day", "Live", "--early", "a rehearsal"])
    assert result.exit_code == 2
    assert "FORUMBOT_USERNAME is not set" in result.output


def test_the_reveal_matches_the_commitment_of_day_one(game: Path) -> None:
    out = ok("deal", "Mafia-1", "--topic", "2", "--now", "2026-11-29T10:00:00+00:00")
    commitment = out.split("SHA-256 ")[1].split()[0]
    early = run("reveal", "Mafia-1")
    assert early.exit_code == 2 and "still on" in early.output
    shown = ok("reveal", "Mafia-1", "--force")
    assert commitment in shown and "(verified)" in shown
    roles = shown.split("salt:")[0].strip().splitlines()
    assert len(roles) == len(PLAYERS) and sum(" boss" in r for r in roles) == 1


def test_signups_command_reads_the_signup_topic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pages = tmp_path / "pages"
    pages.mkdir()
    for name in ("viewtopic_page1.html", "viewtopic_page2.html"):
        shutil.copy(CAPTURED / name, pages / name)
    (tmp_path / "g.toml").write_text(
        '[game]\nname = "Запись"\nvariant = "gameru-3.3"\n[forum]\nengine = "saved"\nsaved_pages = "pages"\n', "utf-8"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FORUMBOT_STATE", str(tmp_path / "s.db"))
    monkeypatch.setenv("FORUMBOT_USERNAME", "host_bot")
    ok("new-game", "g.toml")
    out = ok("signups", "Запись", "2")
    assert out.startswith("8 players signed up: Alice, Bob Smith, Пётр, ")
    assert "host_bot" not in out
    assert ok("signups", "2") == out  # the only game of the state file
    missing = run("signups")
    assert missing.exit_code == 2 and "which signup topic?" in missing.output


def test_end_day_before_the_deadline_refuses_unless_early_with_a_reason(game: Path) -> None:
    ok("deal", "Mafia-1", "--topic", "2", "--now", "2026-11-29T07:00:00+00:00")
    store = Store(game / "state.db")
    deadline = store.day(store.game("Mafia-1").id, 1)["deadline"]  # type: ignore[index]
    before = (deadline - timedelta(hours=15)).isoformat()
    refused = runner.invoke(app, ["end-day", "Mafia-1", "--now", before])
    assert refused.exit_code == 2 and "--early REASON" in refused.output
    early = runner.invoke(app, ["end-day", "Mafia-1", "--now", before, "--early", "все проголосовали"])
    assert early.exit_code == 0, early.output
    draft = store.draft(store.game("Mafia-1").id, 1)
    assert draft is not None and draft.draft.to_json()["early"]["reason"] == "все проголосовали"
