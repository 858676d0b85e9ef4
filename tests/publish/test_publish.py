"""`publish` on the fake phpBB board: the approved day is posted, the old topic locked, the due PMs sent,
the game advanced; each exactly once however often it crashes and is run again."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

import pytest
from publish_support import (
    BOT,
    CHECKED,
    CHECKPOINTS,
    DAY2_TITLE,
    EXECUTED,
    FORUM,
    GAME,
    NOW,
    PLAYERS,
    PUBLICATIONS,
    ROLE_SUBJECT,
    SHERIFF,
    START,
    WRITTEN,
    Crash,
    Played,
    crash_at,
    play_day1,
    played_day,
)

from forumbot.draft import DayDraft
from forumbot.errors import ForumUnavailable, StateError
from forumbot.forum.phpbb.writer import PhpbbPoster
from forumbot.host import games
from forumbot.host.outbox import marker_line
from forumbot.host.publish import PublishReport, legacy_marker, publication_marker, publish, send_draft_to_moderators
from forumbot.store import GameRow


def run_publish(day: Played, **options: object) -> PublishReport:
    client = day.client()
    return publish(day.store, GAME, client, NOW, poster=PhpbbPoster(client), **options)  # type: ignore[arg-type]


def assert_published_once(day: Played) -> None:
    """Every post and PM of day 1's publication exists exactly once, and the game moved on exactly once."""
    [topic] = day.topics_titled(DAY2_TITLE)
    assert topic.forum_id == FORUM and [p.author for p in topic.posts] == [BOT]
    row = day.store.game(GAME)
    draft = day.store.draft(row.id, 1)
    assert draft is not None and topic.posts[0].body.startswith(draft.draft.to_json()["bbcode"].rstrip())
    assert day.board.topic(day.day1_topic).locked
    for nick in PLAYERS:
        assert len(day.pms(nick, ROLE_SUBJECT)) == (1 if nick in WRITTEN else 0), nick
    checks = [m for m in day.pms(SHERIFF) if m.subject != ROLE_SUBJECT]
    assert len(checks) == 1 and CHECKED in checks[0].body
    assert len(day.board.pms_from(BOT)) == len(WRITTEN) + 1
    assert len(day.posts_by_bot()) == 2  # day 1's opening (made by the host) and day 2's
    assert row.state is not None and row.state.day == 2
    day2 = day.store.day(row.id, 2)
    assert day2 is not None and day2["topic"] == str(topic.topic_id) and day.store.day(row.id, 3) is None
    assert day.store.day(row.id, 1)["status"] == "done"


@pytest.mark.parametrize("language", ["en", "ru"])
def test_publish_posts_the_day_locks_the_old_topic_sends_the_pms_and_advances(tmp_path: Path, language: str) -> None:
    with played_day(tmp_path, language=language) as day:
        seen: list[str] = []
        report = run_publish(day, checkpoint=crash_at("", seen))
        assert seen == CHECKPOINTS
        assert report.sent == PUBLICATIONS and not report.recovered and not report.skipped
        assert (report.locked, report.new_day, report.winner) == (True, 2, "none")
        assert_published_once(day)
        [topic] = day.topics_titled(DAY2_TITLE)
        body = topic.posts[0].body
        row = day.store.game(GAME)
        assert f"[b]{row.commitment}[/b]" in body  # the commitment, after day 1
        marker = publication_marker(day.store.marker_key(row.id), "topic", 1)
        assert body.endswith(marker_line(marker) + "\n")
        assert marker != legacy_marker(row.commitment or "", "topic", 1)  # not made from public data
        assert EXECUTED in body
        role_pm = day.pms("Alice", ROLE_SUBJECT)[0]
        assert "[b]Ваша семья:[/b]" in role_pm.body and "босс" in role_pm.body  # Alice is a mafioso


def test_publish_refuses_without_a_moderators_approval(tmp_path: Path) -> None:
    with played_day(tmp_path, approve=False) as day:
        with pytest.raises(StateError, match="not approved by a moderator"):
            run_publish(day)
        assert day.posts_made() == 0 and not day.board.pms_from(BOT)
        assert day.store.game(GAME).state.day == 1


def test_publish_without_a_forum_id_says_which_setting(tmp_path: Path) -> None:
    with played_day(tmp_path) as day:
        row = day.store.game(GAME)
        config = dict(row.config)
        config["forum"] = {**config["forum"], "forum_id": None}
        day.store.db.execute("UPDATE games SET config_json = ? WHERE id = ?", (json.dumps(config), row.id))
        with pytest.raises(Exception, match="forum_id"):
            run_publish(day, roles=False)
        assert day.posts_made() == 0


@pytest.mark.parametrize("language", ["en", "ru"])
@pytest.mark.parametrize("point", CHECKPOINTS)
def test_a_crash_before_or_after_any_post_or_pm_then_a_rerun_publishes_everything_once(
    tmp_path: Path, point: str, language: str
) -> None:
    with played_day(tmp_path, language=language) as day:
        with pytest.raises(Crash):
            run_publish(day, checkpoint=crash_at(point))
        again = run_publish(day)  # a new process: a fresh client, the same state file
        assert_published_once(day)
        label = point.split(" ", 1)[1]
        if point.startswith("after") and not label.startswith("lock"):
            assert again.recovered == [label]  # found on the forum, not sent again
        done_before = PUBLICATIONS[: PUBLICATIONS.index(label)] if label in PUBLICATIONS else PUBLICATIONS
        assert again.skipped == done_before
        # a third run finds the day published and the next one not yet drafted: nothing more is posted
        made = day.posts_made()
        with pytest.raises(StateError, match="day 2 has no draft"):
            run_publish(day)
        assert day.posts_made() == made


@pytest.mark.parametrize(
    ("point", "path"),
    [(f"before topic «{DAY2_TITLE}»", "posting.php"), (f"before PM check → {SHERIFF}", "action=post")],
)
def test_a_forum_failing_in_the_middle_loses_and_doubles_nothing(tmp_path: Path, point: str, path: str) -> None:
    with played_day(tmp_path) as day:

        def fail_from_here(step: str) -> None:
            if step == point:  # from this publication on, the forum answers 500 to the posting forms
                day.server.fail_path(path, 500)

        with pytest.raises(ForumUnavailable):
            run_publish(day, checkpoint=fail_from_here)
        assert day.store.game(GAME).state.day == 1
        day.server.clear_faults()
        again = run_publish(day)
        assert point.split(" ", 1)[1] in again.sent  # looked for, not found, sent
        assert_published_once(day)


def test_a_lock_refused_to_a_bot_that_is_no_moderator_is_reported(tmp_path: Path) -> None:
    with played_day(tmp_path, bot_moderator=False) as day:
        report = run_publish(day)
        assert report.locked is False and not day.board.topic(day.day1_topic).locked
        assert any("not locked" in note and "by hand" in note for note in report.notes)
        assert report.new_day == 2 and len(day.topics_titled(DAY2_TITLE)) == 1


def test_roles_sent_by_hand_are_not_sent_again(tmp_path: Path) -> None:
    with played_day(tmp_path) as day:
        report = run_publish(day, roles=False)
        assert not any(label.startswith("PM role") for label in report.sent)
        assert all(not day.pms(nick, ROLE_SUBJECT) for nick in PLAYERS)


def test_the_opening_posts_day_1_with_the_commitment_and_sends_the_roles(tmp_path: Path) -> None:
    with played_day(tmp_path, drafted=False, topic_known=False) as day:
        report = run_publish(day)
        row = day.store.game(GAME)
        topic = next(t for t in day.board.topics if t.topic_id != day.day1_topic and t.title == f"{GAME}. День 1")
        assert report.topic_id == topic.topic_id and report.new_day is None
        body = topic.posts[0].body
        assert f"[b]{row.commitment}[/b]" in body and "Кот_Матроскин" in body
        assert day.store.day(row.id, 1)["topic"] == str(topic.topic_id)
        assert all(len(day.pms(nick, ROLE_SUBJECT)) == (nick in WRITTEN) for nick in PLAYERS)
        again = run_publish(day)
        assert not again.sent and len(again.skipped) == len(WRITTEN)
        assert len(day.board.pms_from(BOT)) == len(WRITTEN)


def last_day(day: Played) -> tuple[GameRow, set[str]]:
    """Day 2 with one mafioso left, the one the town executes: publishing it ends the game (town wins).
    Returns the game and the other mafiosi, dead since day 1."""
    row = day.store.game(GAME)
    assert row.state is not None
    others = {p.nick for p in row.state.players if p.role == "mafia" and p.nick != EXECUTED}
    players = [
        p.model_copy(update={"alive": False, "death_day": 1, "death_cause": "executed", "boss": False})
        if p.nick in others
        else p
        for p in row.state.players
    ]
    state = row.state.model_copy(update={"players": tuple(players), "day": 2})
    deadline = datetime.fromisoformat("2026-11-29T23:00:00+00:00")
    day.store.advance(row.id, 1, state, {}, (START, deadline, str(day.day1_topic)))
    play_day1(day.board, day.day1_topic)
    return row, others


def approve_and_publish(day: Played) -> PublishReport:
    games.end_day(day.store, GAME, day.client())
    games.approve(day.store, GAME, "admin")
    return run_publish(day, roles=False)


def test_the_last_day_reveals_the_roles_and_the_salt_to_everyone(tmp_path: Path) -> None:
    with played_day(tmp_path, drafted=False) as day:
        row, _ = last_day(day)
        report = approve_and_publish(day)
        assert report.winner == "town" and report.new_day is None
        [topic] = day.topics_titled(f"{GAME}. День 2: итоги игры")  # titled for the day the game ended
        body = topic.posts[0].body
        assert row.salt is not None and row.salt in body and row.commitment in body
        reveals = [m for m in day.board.pms_from(BOT) if row.salt in m.body]
        # one PM each: no player learns who else was written to, and phpBB's limit of 5 recipients holds
        assert sorted(m.recipients for m in reveals) == sorted((nick,) for nick in PLAYERS)
        assert len({m.body for m in reveals}) == len(PLAYERS)  # each its own marker
        assert day.store.game(GAME).state.winner == "town"
        with pytest.raises(StateError, match="game is over"):
            run_publish(day)


class AddressingAhead(PhpbbPoster):
    """phpBB's poster, noting the PMs the outbox asks it to address ahead."""

    def __init__(self, client: object) -> None:
        super().__init__(client)  # type: ignore[arg-type]
        self.asked: list[list[tuple[str, ...]]] = []

    def prepare_pms(self, upcoming: Sequence[Sequence[str]]) -> None:
        self.asked.append([tuple(names) for names in upcoming])
        super().prepare_pms(upcoming)


def test_the_reveal_pms_are_addressed_ahead_while_each_waits_and_each_goes_out_once(tmp_path: Path) -> None:
    with played_day(tmp_path, drafted=False) as day:
        row, _ = last_day(day)
        games.end_day(day.store, GAME, day.client())
        games.approve(day.store, GAME, "admin")
        client = day.client()
        poster = AddressingAhead(client)
        publish(day.store, GAME, client, NOW, poster=poster)
        reveals = [m for m in day.board.pms_from(BOT) if row.salt and row.salt in m.body]
        assert sorted(m.recipients for m in reveals) == sorted((nick,) for nick in PLAYERS)  # each once
        later = [asked[1:] for asked in poster.asked if len(asked) > 1]
        assert later, "no PM was addressed ahead of its turn"
        addressed = {names for asked in later for names in asked}
        assert {(nick,) for nick in PLAYERS} - addressed <= {reveals[0].recipients}  # all but the first ahead


def test_a_dead_player_with_afterlife_off_gets_no_reveal(tmp_path: Path) -> None:
    with played_day(tmp_path, drafted=False) as day:
        row, dead = last_day(day)
        ghost = sorted(dead)[0]
        day.store.db.execute(
            "INSERT INTO player_settings (game_id, nick, afterlife) VALUES (?, ?, 'off')", (row.id, ghost)
        )
        approve_and_publish(day)
        reveals = [m for m in day.board.pms_from(BOT) if row.salt and row.salt in m.body]
        assert sorted(m.recipients for m in reveals) == sorted((nick,) for nick in PLAYERS if nick != ghost)


def test_the_draft_goes_to_the_moderators_once_per_version(tmp_path: Path) -> None:
    with played_day(tmp_path, approve=False) as day:
        client = day.client()
        sent = send_draft_to_moderators(day.store, GAME, client, poster=PhpbbPoster(client))
        assert sent.moderators == ("admin",) and not sent.already
        [pm] = day.board.pms_to("admin")
        row = day.store.game(GAME)
        draft = day.store.draft(row.id, 1)
        assert draft is not None and draft.draft.to_json()["bbcode"].rstrip() in pm.body
        assert "ещё не одобрен" in pm.body and "[b]Одобряю[/b]" in pm.body and "forumbot draft approve" not in pm.body
        again = send_draft_to_moderators(day.store, GAME, client, poster=PhpbbPoster(client))
        assert again.already and len(day.board.pms_to("admin")) == 1
        assert draft.draft.post is not None and draft.draft.post.rstrip() in pm.body  # the post as it will be published
        assert f"Тема: [b]{draft.draft.subject}[/b]" in pm.body and draft.draft.subject == DAY2_TITLE
        other = "[b]Другой черновик[/b]"
        other_draft = DayDraft.model_validate(draft.draft.to_json() | {"bbcode": other, "post": other})
        day.store.save_draft(row.id, 1, other_draft)
        send_draft_to_moderators(day.store, GAME, client, poster=PhpbbPoster(client))
        assert len(day.board.pms_to("admin")) == 2 and "Другой черновик" in day.board.pms_to("admin")[0].body


def test_end_day_after_a_publish_that_crashed_past_its_topic_is_refused(tmp_path: Path) -> None:
    with played_day(tmp_path) as day:
        with pytest.raises(Crash):
            run_publish(day, checkpoint=crash_at(f"after topic «{DAY2_TITLE}»"))
        with pytest.raises(StateError, match="being published already"):
            games.end_day(day.store, GAME, day.client())
        run_publish(day)  # finishing it is what the host is told to do
        assert_published_once(day)


def test_the_post_goes_out_exactly_as_the_moderators_approved_it(tmp_path: Path) -> None:
    with played_day(tmp_path) as day:
        row = day.store.game(GAME)
        draft = day.store.draft(row.id, 1)
        assert draft is not None
        payload = draft.draft.to_json()
        assert payload["post"].startswith(payload["bbcode"].rstrip()) and row.commitment in payload["post"]
        approved = {"subject": "Как одобрено", "post": "Текст как одобрен"}
        day.store.save_draft(row.id, 1, DayDraft.model_validate(payload | approved))
        games.approve(day.store, GAME, "admin")
        run_publish(day)
        [topic] = day.topics_titled("Как одобрено")
        assert topic.posts[0].body.startswith("Текст как одобрен")
