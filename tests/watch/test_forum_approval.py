"""Moderators approve the day's draft by answering the bot's draft PM, through the watch on the fake board:
a configured moderator's "Одобряю" to the current draft approves it (and, with auto_publish, the day is
published); a non-moderator's, or an answer naming a draft end-day has replaced since, approves nothing; a
rejection's comment reaches the host through the day's audit."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fakeboard import Board, BoardServer
from forumbot.cli import app
from forumbot.config import GameConfig
from forumbot.forum.client import ClientSettings, ForumClient
from forumbot.forum.http import HttpSettings
from forumbot.forum.phpbb.writer import PhpbbPoster
from forumbot.forum.registry import open_client
from forumbot.host import games
from forumbot.host.approval import draft_subject
from forumbot.host.publish import publish
from forumbot.host.watch import PassReport, watch_once
from forumbot.render.moderators import audit_summary
from forumbot.store import Store
from tests.watch.watch_support import served_board

pytestmark = pytest.mark.real_sleep(reason="the client logs in on the real clock: phpBB's one-second form rule waits")
START = datetime(2026, 12, 1, 7, 0, tzinfo=UTC)  # 10:00 in Moscow; the day ends at 23:00 there
AFTER_DEADLINE = 13 * 60 + 5  # minutes from START
PLAYERS = ["Фредо", "Сонни", "Каттани", "Джо", "Анна", "Том", "Билл", "Лиза", "Вито", "Лука", "Пьер", "Ника"]
NAME = "Мафия-одобрение"
MODERATOR, STRANGER = "Модератор", "Зритель"
DRAFT_PM = "Черновик итогов дня"  # how the draft PM begins


class Table:
    def __init__(self, tmp_path: Path, board: Board, server: BoardServer, forum: int) -> None:
        self.board, self.path = board, tmp_path / "state.db"
        config = GameConfig.model_validate(
            {
                "game": {"name": NAME, "variant": "gameru-3.3", "players": PLAYERS, "moderators": [MODERATOR]},
                "forum": {"engine": "phpbb", "base_url": server.url, "forum_id": forum},
                "watch": {"auto_publish": True, "interim_counts": False},
            }
        )
        store = Store(self.path)
        games.create_game(store, config)
        self.topic = board.add_topic(forum, f"{NAME}. День 1", "host_bot", "День 1", START)
        games.deal_game(store, NAME, START, topic=str(self.topic))
        store.close()
        self.client: ForumClient = open_client(
            ClientSettings(
                forum=server.url, username="host_bot", password="pw", dialect="phpbb", http=HttpSettings(min_interval=0)
            )
        )
        self.poster = PhpbbPoster(self.client, flood_interval=0)

    def run(self, minutes: int) -> PassReport:
        store = Store(self.path)
        when = START + timedelta(minutes=minutes)
        try:
            return watch_once(
                store, NAME, self.client, self.poster, when, publish=lambda: publish(store, NAME, self.client, when)
            )
        finally:
            store.close()

    def answer(self, sender: str, subject: str, body: str, minutes: int) -> None:
        self.board.send_pm(sender, "host_bot", subject, body, START + timedelta(minutes=minutes))

    def draft_pm(self) -> tuple[str, str]:
        drafts = [pm for pm in self.board.pms_to(MODERATOR) if "черновик" in pm.subject]
        assert drafts, "the moderator got the draft"
        return drafts[-1].subject, drafts[-1].body

    def drafts_sent(self) -> list[str]:
        """The subjects of the draft PMs the moderator got (not the answers to his verdicts)."""
        return [pm.subject for pm in self.board.pms_to(MODERATOR) if pm.body.startswith(DRAFT_PM)]

    def approved_by(self) -> str | None:
        store = Store(self.path)
        try:
            found = store.draft(store.game(NAME).id, 1)
            assert found is not None
            return found.approved_by
        finally:
            store.close()

    def from_bot(self, nick: str) -> list[str]:
        return [pm.body for pm in self.board.pms_to(nick) if pm.sender == "host_bot"]


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    with served_board(PLAYERS, moderators=(), others=(MODERATOR, STRANGER)) as (board, server, forum):
        yield Table(tmp_path, board, server, forum)


def vote_everyone_for(table: Table, target: str) -> None:
    for i, nick in enumerate(p for p in PLAYERS if p != target):
        when = START + timedelta(minutes=10 + i)
        table.board.add_post(table.topic, nick, f"[color=red][b]{target}[/b][/color]", when)


def test_the_draft_pm_shows_the_post_the_audit_and_how_to_answer(table: Table) -> None:
    vote_everyone_for(table, "Лиза")
    quoted = "[quote][color=red][b]Том[/b][/color][/quote]"
    table.board.add_post(table.topic, "Фредо", quoted, START + timedelta(minutes=40))
    table.run(AFTER_DEADLINE)
    subject, body = table.draft_pm()
    assert re.search(r"^\[[0-9a-f]{8}\] .*черновик итогов дня 1$", subject)
    assert "Одобряю" in body and "Отклоняю" in body and "forumbot draft approve" not in body
    assert "Не засчитано:" in body and "Фредо → Том: в цитате или спойлере" in body


def test_only_a_configured_moderator_answering_the_current_draft_approves_it(table: Table) -> None:
    vote_everyone_for(table, "Лиза")
    table.run(AFTER_DEADLINE)
    subject, _ = table.draft_pm()
    table.answer(STRANGER, f"Re: {subject}", "Одобряю", AFTER_DEADLINE + 1)
    table.answer(PLAYERS[0], f"Re: {subject}", "Одобряю", AFTER_DEADLINE + 2)
    table.run(AFTER_DEADLINE + 3)
    assert table.approved_by() is None and not table.from_bot(STRANGER)

    store = Store(table.path)  # the host reads the day again: a new draft, with a new code
    games.end_day(store, NAME, table.client)
    store.close()
    table.answer(MODERATOR, f"Re: {subject}", "Одобряю", AFTER_DEADLINE + 4)
    report = table.run(AFTER_DEADLINE + 5)
    assert table.approved_by() is None and not report.published
    assert any("не к текущему черновику" in text for text in table.from_bot(MODERATOR))

    store = Store(table.path)
    stored = store.draft(store.game(NAME).id, 1)
    store.close()
    assert stored is not None
    current = draft_subject(NAME, 1, stored)
    # the moderator who answered the old draft has the current one, once
    assert table.drafts_sent().count(current) == 1
    table.answer(MODERATOR, f"Re: {current}", "одобряю!", AFTER_DEADLINE + 6)
    report = table.run(AFTER_DEADLINE + 7)
    assert table.approved_by() == MODERATOR
    assert report.published and any(t.title == f"{NAME}. День 2" for t in table.board.topics)
    assert any(text.startswith("Черновик") and "одобрен. Спасибо" in text for text in table.from_bot(MODERATOR))


def test_a_draft_made_again_by_hand_reaches_the_moderators_who_had_the_old_one(table: Table) -> None:
    vote_everyone_for(table, "Лиза")
    table.run(AFTER_DEADLINE)
    old, _ = table.draft_pm()
    table.board.add_post(table.topic, "Лиза", "[color=red][b]Том[/b][/color]", START + timedelta(minutes=60))
    store = Store(table.path)
    games.end_day(store, NAME, table.client)  # the host reads the day again by hand
    stored = store.draft(store.game(NAME).id, 1)
    store.close()
    assert stored is not None
    report = table.run(AFTER_DEADLINE + 1)
    new = draft_subject(NAME, 1, stored)
    assert new != old and sorted(table.drafts_sent()) == sorted([old, new])
    assert [(letter.moderator, letter.status) for letter in report.draft] == [(MODERATOR, "sent")]
    table.run(AFTER_DEADLINE + 2)
    assert table.drafts_sent().count(new) == 1  # once


def test_a_rejection_keeps_the_draft_unapproved_and_its_comment_reaches_the_host(table: Table) -> None:
    vote_everyone_for(table, "Лиза")
    table.run(AFTER_DEADLINE)
    subject, _ = table.draft_pm()
    comment = "Отклоняю: голос Тома в 22:59 не засчитан\nпроверьте"
    table.answer(MODERATOR, f"Re: {subject}", comment, AFTER_DEADLINE + 1)
    report = table.run(AFTER_DEADLINE + 2)
    assert table.approved_by() is None and not report.published
    assert any("rejected by Модератор: голос Тома в 22:59 не засчитан проверьте" in n for n in report.notes)
    store = Store(table.path)
    notes = store.overrides(store.game(NAME).id, 1)
    store.close()
    assert [(n.kind, n.by, n.reason) for n in notes] == [
        ("rejected", MODERATOR, "голос Тома в 22:59 не засчитан проверьте")
    ]
    assert any("Черновик" in text and "отклонён;" in text for text in table.from_bot(MODERATOR))
    shown = CliRunner().invoke(app, ["draft", "show", NAME, "--state", str(table.path)], env={"FORUMBOT_LANG": "en"})
    assert "REJECTED by Модератор: голос Тома в 22:59 не засчитан проверьте" in shown.output, shown.output


def test_a_players_pm_with_no_order_is_answered_under_the_games_name(table: Table) -> None:
    store = Store(table.path)
    state = store.game(NAME).state
    store.close()
    assert state is not None
    asker, civilian = [p.nick for p in state.players if p.role == "civilian"][:2]
    table.answer(asker, "вопрос", "А когда заканчивается день?", 30)
    table.answer(civilian, "приказ", "Убиваю — Лиза", 31)  # a civilian kills nobody: refused, with why
    table.run(35)
    [answer] = [pm for pm in table.board.pms_to(asker) if pm.sender == "host_bot"]
    assert answer.subject == f"{NAME}: ваше письмо ведущему"
    assert answer.body.startswith("Не нашёл приказа в вашем письме: «А когда заканчивается день?».")
    [refused] = [pm.body for pm in table.board.pms_to(civilian) if pm.sender == "host_bot"]
    assert refused.startswith("Не принято: Убиваем — Лиза: ваша роль не даёт такого приказа.")


def test_the_answer_to_a_verdict_keeps_the_drafts_whole_subject_and_tells_the_host_news_not_a_problem(
    table: Table,
) -> None:
    vote_everyone_for(table, "Лиза")
    table.run(AFTER_DEADLINE)
    subject, _ = table.draft_pm()
    table.answer(MODERATOR, f"Re: {subject}", "Одобряю", AFTER_DEADLINE + 1)
    report = table.run(AFTER_DEADLINE + 2)
    [answer] = [pm for pm in table.board.pms_to(MODERATOR) if pm.sender == "host_bot" and "Спасибо" in pm.body]
    assert answer.subject == subject  # the code and the day, as the draft PM had them
    assert any("approved by Модератор" in note for note in report.notes)
    assert not any("approved" in problem for problem in report.problems)


def test_a_moderators_verdict_is_no_order_of_the_day(table: Table) -> None:
    vote_everyone_for(table, "Лиза")
    table.run(AFTER_DEADLINE)
    subject, _ = table.draft_pm()
    table.answer(MODERATOR, f"Re: {subject}", "Отклоняю: проверьте голос Тома", AFTER_DEADLINE + 1)
    table.run(AFTER_DEADLINE + 2)
    store = Store(table.path)
    try:
        games.end_day(store, NAME, table.client)  # the host reads the day again after the rejection
        stored = store.draft(store.game(NAME).id, 1)
    finally:
        store.close()
    assert stored is not None
    assert [o for o in stored.draft.orders if o.actor == MODERATOR] == []
    assert "Отклоняю" not in audit_summary(stored.draft).split("Решения")[0]
