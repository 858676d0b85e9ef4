"""The host's powers through the command line, end to end on the demo game (gameru-3.3, 15 players, seed 1):
`forumbot power` judges each power as it is made (refused then, naming why), records it with who and why;
`end-day` replays the powers and the overrides into the day, records a change the day made moot without effect
(«без последствий») instead of stopping; `draft show` and `draft html` show every decision with who and why,
and the resolution's events. Taking a power back (`override --remove`) and ending the day again replays without
it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from forumbot.cli import app
from forumbot.draft import DayDraft
from forumbot.store import Store

DEMO = Path(__file__).resolve().parents[2] / "fixtures" / "demo"
GAME = "Демо-мафия"
AFTER = "2026-11-29T23:30:00+03:00"
BY = "Модератор"
# seed 1 deals: Bob Smith the maniac, Маша a mafioso, Gandalf, Чебурашка and Незнайка civilians


def invoke(*args: str) -> Result:
    return CliRunner().invoke(app, list(args))


def ok(*args: str) -> str:
    result = invoke(*args)
    assert result.exit_code == 0, result.output
    return result.output


def power(*args: str, reason: str) -> Result:
    return invoke("power", GAME, *args, "--reason", reason, "--by", BY)


def draft_of(state: Path) -> DayDraft:
    store = Store(state)
    try:
        row = store.game(GAME)
        found = store.draft(row.id, 1)
        assert found is not None
        return found.draft
    finally:
        store.close()


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shutil.copytree(DEMO, tmp_path / "demo", ignore=shutil.ignore_patterns("*.py"))
    monkeypatch.setenv("FORUMBOT_STATE", str(tmp_path / "state.db"))
    ok("new-game", str(tmp_path / "demo" / "game.toml"))
    ok("deal", GAME, "--seed", "1", "--topic", "1", "--now", "2026-11-29T10:00:00+03:00")
    return tmp_path / "state.db"


def test_a_power_invalid_when_made_is_refused_at_once_and_nothing_is_recorded(state: Path) -> None:
    refused = power("appoint-maniac", "Маша", reason="маньяк молчит")
    assert refused.exit_code == 2 and "appoint_maniac: Маша is not a civilian" in refused.output
    refused = power("scheme", "Gandalf", "maniac", reason="новый маньяк")
    assert refused.exit_code == 2 and "appoint_maniac" in refused.output  # a maniac only by appointment
    refused = power("best-player", "Gandalf", reason="лучший")
    assert refused.exit_code == 2 and "names no best player" in refused.output
    refused = invoke("power", GAME, "remove", "Gandalf", "--reason", "x", "--by", "Gandalf")
    assert refused.exit_code == 2 and "not a moderator" in refused.output
    assert "no overrides" in ok("override", GAME, "--list")


def test_powers_and_overrides_are_recorded_replayed_and_shown_with_who_and_why(state: Path, tmp_path: Path) -> None:
    assert power("scheme", "Gandalf", "sheriff", reason="второй шериф для динамики").exit_code == 0
    assert power("appoint-maniac", "Чебурашка", reason="маньяк молчит").exit_code == 0  # valid when made
    assert power("remove", "Незнайка", reason="скриншот роли").exit_code == 0
    ok("override", GAME, "--set-vote", "Пётр=Маша", "--reason", "голос прислан в ЛС", "--by", BY)
    ok("end-day", GAME, "--now", AFTER)  # the moot appointment does not stop the day

    draft = draft_of(state)
    decisions = [(o.kind, o.subject, o.value, o.by, o.reason) for o in draft.overrides]
    assert decisions == [
        ("scheme", "Gandalf", "sheriff", BY, "второй шериф для динамики"),
        ("appoint_maniac", "Чебурашка", None, BY, "маньяк молчит"),
        ("remove", "Незнайка", None, BY, "скриншот роли"),
        ("set_vote", "Пётр", "Маша", BY, "голос прислан в ЛС"),
    ]
    events = {(e.kind, e.target): e.detail for e in draft.events}
    assert events[("role_changed", "Gandalf")] == "civilian -> sheriff, from day 2"
    assert events[("removed_by_host", "Незнайка")] == "скриншот роли"
    assert events[("no_effect", "Чебурашка")].endswith(
        "no effect (без последствий): a maniac still lives (Bob Smith): the game has one maniac at a time"
    )
    roles = {p.nick: p.role for p in draft.state.players}
    assert (roles["Gandalf"], roles["Чебурашка"]) == ("sheriff", "civilian")
    assert draft.deaths["Незнайка"] == "inactive"
    assert draft.tally.get("Маша", 0) >= 1  # the host's vote for Пётр counts
    # the removal is told as the host's decision
    assert draft.post is not None and "Ведущий" in draft.post and "Незнайка" in draft.post

    shown = " ".join(ok("draft", "show", GAME).split())
    for said in ("второй шериф для динамики", "маньяк молчит", "скриншот роли", "голос прислан в ЛС", BY):
        assert said in shown
    assert "no_effect" in shown and "без последствий" in shown and "role_changed" in shown

    page = tmp_path / "preview.html"
    ok("draft", "html", GAME, str(page))
    html = page.read_text(encoding="utf-8")
    assert 'id="audit-overrides"' in html and 'id="events"' in html
    for said in ("второй шериф для динамики", "маньяк молчит", "скриншот роли", "no_effect", "без последствий"):
        assert said in html

    # taken back, the appointment is no longer replayed
    listed = json.loads(ok("override", GAME, "--list", "--json"))
    assert [(o["number"], o["kind"], o["by"]) for o in listed][1] == (2, "appoint_maniac", BY)
    ok("override", GAME, "--remove", "2", "--by", BY)
    ok("end-day", GAME, "--now", AFTER)
    again = draft_of(state)
    assert [o.kind for o in again.overrides] == ["scheme", "remove", "set_vote"]
    assert not [e for e in again.events if e.kind == "no_effect"]
    assert [e.target for e in again.events if e.kind == "role_changed"] == ["Gandalf"]
