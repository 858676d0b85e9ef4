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

from forumbot.draft import OrderRow, OverrideRow, VoteRow
from forumbot.engine import DayInput, DayOutcome, GameState, Order, Player, Vote, deal, resolve_day
from forumbot.engine.model import Reason, VoidEntry
from forumbot.extract.names import Roster
from forumbot.extract.votes import VoteSettings, counted_by_decision
from forumbot.host.games import (
    _apply_overrides,
    _mark_replaced,
    _mark_superseded,
    _merge_void,
    _votes,
    with_post_decisions,
)
from forumbot.posts import Post
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
    assert [p.nick for p in row.state.players if p.role == "commissar"] == [COMMISSAR]
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


# --- the pieces, one decision at a time ---------------------------------------------------------------------


def vote_row(voter: str, target: str, minute: int, *, channel: str = "pm", post_id: int | None = None) -> VoteRow:
    link = f"./viewtopic.php?p={post_id}" if post_id is not None else f"pm:{voter}:{minute}"
    time = (START + timedelta(minutes=minute)).isoformat()
    return VoteRow(voter=voter, target=target, time=time, counted=True, channel=channel, post_id=post_id, link=link)


def outcome_voiding(*voids: VoidEntry) -> DayOutcome:
    state = GameState(variant="salon", players=(Player(nick="Анна", role="civilian"),))
    return DayOutcome(day=1, deaths={}, checks={}, winner="none", void=voids, state=state)


def test_a_later_pm_vote_the_rules_void_leaves_the_earlier_one_standing_as_the_engine_counts_it() -> None:
    earlier, later = vote_row("Анна", "Борис", 1), vote_row("Анна", "Вера, Глеб", 5)
    too_many = Reason(code="too_many_targets", count=2, limit=1, day=1)
    void = VoidEntry(
        kind="vote", actor="Анна", action="vote", targets=("Вера", "Глеб"), reason=too_many.text, ref=later.link,
        why=too_many,
    )  # fmt: skip
    audit = [earlier, later]
    rest = _merge_void(outcome_voiding(void), audit, [])
    assert rest == []  # the PM's row, with both its targets, is the void's
    _mark_replaced(audit)
    assert [(r.target, r.counted, r.reason) for r in audit] == [
        ("Борис", True, None),
        ("Вера, Глеб", False, too_many.text),
    ]


def test_both_fragments_of_a_double_vote_post_stand_and_fall_together() -> None:
    first, second = (
        vote_row("Анна", "Борис", 3, channel="thread", post_id=7),
        vote_row("Анна", "Вера", 3, channel="thread", post_id=7),
    )
    earlier = vote_row("Анна", "Глеб", 1)
    audit = [first, second, earlier]
    _mark_replaced(audit)
    assert [r.counted for r in audit] == [True, True, False] and earlier.reason == "superseded"
    dead = Reason(code="target_dead", nick="Вера")
    void = VoidEntry(
        kind="vote", actor="Анна", action="vote", targets=("Борис", "Вера"), reason=dead.text, ref=first.link
    )
    assert _merge_void(outcome_voiding(void), audit, []) == []
    assert [(r.counted, r.reason) for r in (first, second)] == [(False, dead.text), (False, dead.text)]


def thread_post(post_id: int, author: str, minutes: int, *targets: str, edited: bool = False) -> Post:
    votes = "".join(f'<span style="color:red"><strong>{t}</strong></span> ' for t in targets)
    return Post(
        post_id=post_id,
        topic_id=1,
        author=author,
        author_id=None,
        time=START + timedelta(minutes=minutes),
        content_html=f'<div class="content">{votes}</div>',
        edited=edited,
        edited_by=author if edited else None,
        permalink=f"./viewtopic.php?p={post_id}#p{post_id}",
    )


def decided_day(posts: list[Post], *decisions: OverrideRow) -> tuple[list[Vote], list[VoteRow]]:
    """The day's thread votes as end-day reads them with the host's decisions: the votes the engine gets (in
    time order, each voter's latest counting) and the audit rows as stored."""
    settings = VoteSettings(
        Roster(["Анна", "Борис", "Вера", "Глеб", "Дина", "Егор"]),
        start=START,
        deadline=START + timedelta(days=1),
        votes_per_post=1,
    )
    settings = with_post_decisions(settings, decisions)
    votes, audit = _votes(settings, ("thread",), posts, [])
    lifted = frozenset(str(p.post_id) for p in posts if counted_by_decision(p, settings))
    votes, _, _, _ = _apply_overrides(list(decisions), votes, [], audit, [], lifted=lifted)
    return votes, _mark_replaced(audit)


def test_a_post_the_host_ignores_is_void_and_the_voter_s_earlier_vote_stands() -> None:
    """A void vote is ignored as if never posted: the voter's last valid vote of the day stands."""
    decision = OverrideRow(kind="ignore_post", subject="2", reason="голос после предупреждения", by="mod")
    votes, audit = decided_day([thread_post(1, "Анна", 10, "Борис"), thread_post(2, "Анна", 20, "Вера")], decision)
    assert [(v.voter, v.targets, v.post_id) for v in votes] == [("Анна", ("Борис",), 1)]
    assert [(r.post_id, r.counted, r.decided) for r in audit] == [(1, True, None), (2, False, decision)]


def test_a_post_the_host_counts_is_valid_and_a_later_vote_of_its_author_still_replaces_it() -> None:
    decision = OverrideRow(kind="count_post", subject="1", reason="правка опечатки", by="mod")
    posts = [thread_post(1, "Анна", 10, "Борис", edited=True), thread_post(2, "Анна", 20, "Вера")]
    votes, audit = decided_day(posts, decision)
    assert [(v.voter, v.targets) for v in votes][-1] == ("Анна", ("Вера",))
    assert [(r.post_id, r.counted, r.reason, r.decided) for r in audit] == [
        (1, False, "superseded", None),  # valid now, and replaced: the moderators read "superseded"
        (2, True, None, None),
    ]


def test_a_post_the_host_counts_votes_as_any_post_does() -> None:
    """Its vote is its last valid fragment (one a day here); a quote in it is no vote, whatever the host says;
    a later decision on the same post is the one that holds."""
    quoted = thread_post(1, "Анна", 10, "Борис", "Глеб", edited=True)
    html = quoted.content_html.replace("<span", "<blockquote><span", 1).replace("</span>", "</span></blockquote>", 1)
    quoted = quoted.model_copy(update={"content_html": html})
    undone = OverrideRow(kind="ignore_post", subject="1", reason="", by="mod")
    decision = OverrideRow(kind="count_post", subject="1", reason="правка опечатки", by="mod")
    votes, audit = decided_day([quoted, thread_post(2, "Вера", 5, "Анна")], undone, decision)
    assert ("Анна", ("Глеб",)) in [(v.voter, v.targets) for v in votes]
    rows = {(r.post_id, r.target): r for r in audit}
    assert (rows[1, "Борис"].counted, rows[1, "Борис"].reason, rows[1, "Борис"].decided) == (False, "quoted", None)
    assert (rows[1, "Глеб"].counted, rows[1, "Глеб"].decided) == (True, decision)


def test_a_dead_player_s_post_stays_void_whatever_the_host_decides_of_it() -> None:
    decision = OverrideRow(kind="count_post", subject="1", reason="", by="mod")
    settings = VoteSettings(Roster(["Анна", "Борис"]), dead=frozenset({"Анна"}), start=START, votes_per_post=1)
    _, audit = _votes(with_post_decisions(settings, [decision]), ("thread",), [thread_post(1, "Анна", 1, "Борис")], [])
    assert [(r.counted, r.reason) for r in audit] == [(False, "dead_voter")]


def test_an_order_set_anew_or_cleared_is_what_the_engine_gets_and_what_the_audit_says() -> None:
    check = OrderRow(actor="Анна", action="check", targets=["Борис"], link="pm:1", valid=True, pm_id=1)
    again = OrderRow(actor="Анна", action="check", targets=["Вера"], link="pm:2", valid=True, pm_id=2)
    heal = OrderRow(actor="Глеб", action="heal", targets=["Анна"], link="pm:3", valid=True, pm_id=3)
    orders = [
        Order(actor="Анна", action="check", targets=("Борис",), ref="pm:1"),
        Order(actor="Анна", action="check", targets=("Вера",), ref="pm:2"),
        Order(actor="Глеб", action="heal", targets=("Анна",), ref="pm:3"),
    ]
    set_check = OverrideRow(
        kind="set_order", subject="Анна", value=json.dumps(["check", ["Глеб"]]), reason="опечатка", by="mod"
    )
    cleared = OverrideRow(kind="clear_order", subject="Глеб", value="heal", reason="письмо не ему", by="mod")
    audit = [check, again, heal]
    _, carried, _, _ = _apply_overrides([set_check, cleared], [], orders, [], audit)
    assert [(o.actor, o.action, o.targets) for o in carried] == [("Анна", "check", ("Глеб",))]
    _mark_superseded(audit)
    assert [(r.actor, r.targets, r.valid, r.decided) for r in audit] == [
        ("Анна", ["Борис"], False, set_check),
        ("Анна", ["Вера"], False, set_check),
        ("Глеб", ["Анна"], False, cleared),
        ("Анна", ["Глеб"], True, set_check),  # the host's order, the one carried out
    ]
    assert all(r.reason == f"override by mod: {r.decided.reason}" for r in audit if r.decided is not None)


def test_a_vote_the_host_sets_keeps_its_place_in_a_tie_broken_by_who_was_voted_for_first() -> None:
    """gameru-3.3 breaks a tie by who was voted for first: a vote the host corrects keeps its time, and so its
    place among the votes the engine reads, whichever decision made it (set-vote, count-post)."""
    state = deal("gameru-3.3", ["Анна", "Борис", "Вера", "Глеб", "Дина", "Егор", "Жора", "Зина", "Ира"], 5)
    early, late = START + timedelta(minutes=10), START + timedelta(minutes=15)
    votes = [
        Vote(voter="Вера", targets=("Жора",), time=early, post_id=4),
        Vote(voter="Борис", targets=("Егор",), time=late, post_id=5),
    ]
    corrected = OverrideRow(kind="set_vote", subject="Вера", value="Глеб", reason="ник с опечаткой", by="mod")
    placed, _, _, _ = _apply_overrides([corrected], list(votes), [], [], [])
    assert [(v.voter, v.targets) for v in placed] == [("Вера", ("Глеб",)), ("Борис", ("Егор",))]
    assert resolve_day(state, DayInput(votes=tuple(placed))).executed == ("Глеб",)  # voted for first
    counted_post = OverrideRow(kind="count_post", subject="4", reason="правка опечатки", by="mod")
    posts = [thread_post(4, "Вера", 10, "Глеб", edited=True), thread_post(5, "Борис", 15, "Егор")]
    placed, audit = decided_day(posts, counted_post)
    assert [v.voter for v in placed] == ["Вера", "Борис"] and audit[0].counted
    assert resolve_day(state, DayInput(votes=tuple(placed))).executed == ("Глеб",)
