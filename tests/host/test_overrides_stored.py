"""The stored draft is the truth of the day: a vote a later one replaced (in the thread or by PM), a vote the
host set anew and an order he cleared are stored as the engine resolved them, so `draft show --json`, the
moderators' preview page, the draft PM the board delivers and the day's result all say the same.

A kozanostra day on a fake phpBB board (votes in the thread and by PM), played through the command line."""

from __future__ import annotations

import json
from collections import Counter
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from game_support import BOT, GAME, START, ok, open_game, table
from lxml import html as lxml_html

from forumbot.store import Store

MAFIA, COMMISSAR = ("Лиса", "Ёжик"), "Печкин"  # dealt so by seed 11 (the test checks it)
DONE = START + timedelta(days=1)  # after the day's deadline


def play_day(board: Any, store: Store) -> None:
    """Every player votes once at least (kozanostra: a silent one would vote for himself): Лиса in the thread,
    then by PM; Кот Матроскин by PM twice; Дядя Фёдор by PM (the host sets his vote anew); the commissar
    checks Лиса by PM (the host clears it) and votes in the thread; the rest vote in the thread."""
    row = store.game(GAME)
    assert row.state is not None
    assert [p.nick for p in row.state.players if p.role == "mafia"] == list(MAFIA)
    assert row.state.player(COMMISSAR) is not None and row.state.player(COMMISSAR).role == "commissar"  # type: ignore[union-attr]
    day = store.day(row.id, 1)
    assert day is not None
    topic = int(day["topic"])

    def post(voter: str, target: str, minutes: int) -> None:
        board.add_post(topic, voter, f"Голосую: [color=red][b]{target}[/b][/color]", START + timedelta(minutes=minutes))

    def pm(sender: str, text: str, minutes: int) -> None:
        board.send_pm(sender, BOT, "Игра", text, START + timedelta(minutes=minutes))

    post("Лиса", "Мурка", 60)
    pm("Лиса", "V Шарик", 120)  # replaces her thread vote
    pm("Кот Матроскин", "V Лиса", 61)
    pm("Кот Матроскин", "V Ёжик", 180)  # replaces his PM vote
    pm("Дядя Фёдор", "V Лиса", 62)
    pm(COMMISSAR, "Проверяю — Лиса", 90)
    for k, (voter, target) in enumerate(
        [("Шарик", "Лиса"), (COMMISSAR, "Лиса"), ("Winnie", "Лиса"), ("Галчонок", "Лиса"), ("Мурка", "Лиса")]
    ):
        post(voter, target, 70 + k)
    post("Ёжик", "Мурка", 80)


def counted(rows: list[dict[str, Any]]) -> dict[str, str]:
    return {v["voter"]: v["target"] for v in rows if v["counted"]}


def test_the_stored_draft_the_preview_the_draft_pm_and_the_result_agree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with table("phpbb", tmp_path, monkeypatch) as (board, clock, _):
        config = tmp_path / "game.toml"
        config.write_text(config.read_text("utf-8").replace('"gameru-3.3"', '"kozanostra"'), "utf-8")
        open_game(clock)
        store = Store(tmp_path / "state.db")
        play_day(board, store)
        ok("end-day", GAME, "--now", clock.iso_at(DONE))
        plain = json.loads(ok("draft", "show", GAME, "--json"))
        assert COMMISSAR in plain["checks"]  # without the host's decision, the check is carried out
        assert counted(plain["votes"])["Дядя Фёдор"] == "Лиса"

        ok("override", GAME, "--clear-order", f"{COMMISSAR}=check", "--reason", "письмо не ему", "--by", "Модератор")
        ok("override", GAME, "--set-vote", "Дядя Фёдор=Ёжик", "--reason", "голос исправлен", "--by", "Модератор")
        ok("end-day", GAME, "--now", clock.iso_at(DONE))
        shown = json.loads(ok("draft", "show", GAME, "--json"))
        ok("draft", "html", GAME, str(tmp_path / "preview.html"))
        page = (tmp_path / "preview.html").read_text("utf-8")
        ok("draft", "send", GAME, "--now", clock.iso_at(DONE))
        [letter] = [m for m in board.pms_to("Модератор") if m.sender == BOT]
        drafted = store.draft(store.game(GAME).id, 1)
        assert drafted is not None
        stored = drafted.draft.to_json()

    votes, orders = shown["votes"], shown["orders"]
    standing = {
        "Лиса": "Шарик",
        "Кот Матроскин": "Ёжик",
        "Дядя Фёдор": "Ёжик",
        "Шарик": "Лиса",
        COMMISSAR: "Лиса",
        "Winnie": "Лиса",
        "Галчонок": "Лиса",
        "Мурка": "Лиса",
        "Ёжик": "Мурка",
    }
    # The payload: one counted vote a voter, the one the engine counted; the replaced ones say why.
    assert counted(votes) == standing
    assert sum(v["counted"] for v in votes) == len(standing)
    assert counted(stored["votes"]) == standing and stored["orders"] == orders  # the JSON is the payload
    assert stored["tally"] == dict(Counter(standing.values()))  # the engine's count is the payload's
    assert shown["deaths"] == {"Лиса": "executed"}
    superseded = {(v["voter"], v["target"], v["channel"]) for v in votes if v["reason"] == "superseded"}
    assert superseded == {("Лиса", "Мурка", "thread"), ("Кот Матроскин", "Лиса", "pm")}
    [replaced] = [v for v in votes if v["voter"] == "Дядя Фёдор" and v["channel"] == "pm"]
    assert not replaced["counted"] and replaced["decided"]["kind"] == "set_vote"
    [check] = [o for o in orders if o["action"] == "check"]
    assert not check["valid"] and check["decided"]["kind"] == "clear_order"
    assert check["decided"]["reason"] == "письмо не ему"
    assert COMMISSAR not in shown["checks"]  # the engine resolved the day without the cleared check

    # The preview page reads the payload: the same counted votes, the cleared order not valid, in Russian.
    document = lxml_html.document_fromstring(page)
    rows = [[td.text_content().strip() for td in tr.findall("td")] for tr in document.get_element_by_id("audit-votes")]
    shown_counted = {r[1]: r[2] for r in rows if len(r) > 3 and r[3] == "да"}
    assert shown_counted == standing
    assert f"{len(standing)} засчитано, {len(votes) - len(standing)} не засчитано" in page
    [check_row] = [
        [td.text_content().strip() for td in tr.findall("td")]
        for tr in document.get_element_by_id("audit-orders")
        if COMMISSAR in tr.text_content() and "проверка" in tr.text_content()
    ]
    assert "нет" in check_row and "решение Модератор: приказ снят — письмо не ему" in check_row

    # The draft PM the board delivered: the cleared order with the decision, no replaced vote to check.
    body = letter.body
    assert "приказ снят — письмо не ему" in body.split("Не засчитано:")[1]
    assert "Мурка" not in body.split("Не засчитано:")[1].split("Решения")[0]  # Лиса's replaced thread vote
    assert "Лиса → Мурка" not in body and "Кот Матроскин → Лиса" not in body
