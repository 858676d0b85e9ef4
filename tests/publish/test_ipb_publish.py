"""Publishing day 1 on the fake IPB 2.2 board (conformant to what IPB 2.2.2 answers, fixtures/ipb-real/ipb22):
the new topic, the old one closed through the moderators' topic tools, the PMs, each once, in UTF-8 and
windows-1251, the bot printed under a display name other than his login name; every answer read for what it
proves: flood control on the form's request waited out, the double-post guard's redirect taken for nothing, the
post's errors, an unknown recipient and too many copies refused for good, a dead session logged in again; faults
after the board acted and crashes between steps never double a message."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from ipb_support import BOT_LOGIN, LOGINS, IpbPlayed, assert_ipb_published_once, ipb_played_day
from publish_support import BOT, CHECKPOINTS, DAY2_TITLE, FORUM, GAME, NOW, PUBLICATIONS, Crash, crash_at

from fakeboard.ipb2 import Ipb2Server
from fakeboard.server import Request, Response
from fakeboard.state import Forum, Topic
from forumbot.errors import ForumError, MaybeSent, NoPermission, TooManyRecipients, UnknownRecipient
from forumbot.forum.ipb2.writer import Ipb2Poster
from forumbot.forum.registry import poster_for
from forumbot.host.outbox import Outbox, markers_for, with_marker
from forumbot.host.publish import PublishReport, publish
from forumbot.store import Letter

WRITES = ("POST index.php#act=Post", "POST index.php#act=Msg", "POST index.php#act=Mod")
SLOW = pytest.param(
    "slow", marks=pytest.mark.real_sleep(reason="the board answers after the client's real socket timeout (0.5 s)")
)
FAULTS = ("503", "429", "reset", SLOW)
MARK_A, MARK_B = "fbm00000000000000000000000a", "fbm00000000000000000000000b"


def run(day: IpbPlayed, point: str = "", seen: list[str] | None = None, **http: float) -> PublishReport:
    client = day.client(**http)
    return publish(day.store, GAME, client, NOW, poster=poster_for(client), checkpoint=crash_at(point, seen))


def submissions(day: IpbPlayed) -> list[Any]:
    return [r for r in day.server.requests if r.method == "POST" and "act=Login" not in r.query]


@pytest.mark.parametrize("charset", ["utf-8", "windows-1251"])
def test_publish_on_ipb2_posts_closes_and_writes_each_once(tmp_path: Path, charset: str) -> None:
    with ipb_played_day(tmp_path, charset=charset) as day:
        seen: list[str] = []
        report = run(day, seen=seen)
        assert seen == CHECKPOINTS
        assert report.sent == PUBLICATIONS and (report.locked, report.new_day) == (True, 2)
        assert_ipb_published_once(day)
        times = [r.time for r in submissions(day)]
        assert min(b - a for a, b in zip(times, times[1:], strict=False)) >= 2.0  # the double-post guard kept clear
        game = day.store.game(GAME).id
        rows = {row["kind"]: row for row in day.store.outbox(game)}
        [topic] = day.topics_titled(DAY2_TITLE)
        assert rows["topic"]["remote_id"] == str(topic.topic_id)  # read from the 302 to showtopic=T
        pms = sorted(str(m.pm_id) for m in day.board.pms_from(BOT))
        assert (
            sorted(str(r["remote_id"]) for r in day.store.outbox(game) if r["kind"] == "pm") == pms
        )  # the copies kept


def test_the_bot_is_found_under_the_name_the_board_prints_not_the_one_he_logs_in_with(tmp_path: Path) -> None:
    with ipb_played_day(tmp_path) as day:
        client = day.client()
        assert client.account == BOT_LOGIN  # before any page: the name he logs in with
        poster = day.poster(client)
        topic = poster.post_topic(FORUM, "Поиск", f"текст {MARK_A}", marker=MARK_A)
        assert client.account == BOT != BOT_LOGIN and poster.username == BOT
        assert poster.find_marker_in_forum(FORUM, "Поиск", MARK_A) == topic
        reply = poster.post_reply(topic, "", f"ответ {MARK_B}", marker=MARK_B)
        assert poster.find_marker_in_topic(topic, MARK_B) == reply


def test_a_rerun_after_publishing_sends_nothing(tmp_path: Path) -> None:
    with ipb_played_day(tmp_path) as day:
        run(day)
        made = day.posts_made()
        with pytest.raises(Exception, match="day 2 has no draft"):
            run(day)
        assert day.posts_made() == made
        assert_ipb_published_once(day)


@pytest.mark.parametrize("point", CHECKPOINTS[::3])
def test_a_crash_at_any_step_then_a_rerun_publishes_everything_once(tmp_path: Path, point: str) -> None:
    with ipb_played_day(tmp_path) as day:
        with pytest.raises(Crash):
            run(day, point)
        report = run(day)
        assert_ipb_published_once(day)
        assert report.new_day == 2


@pytest.mark.parametrize("where", WRITES)
@pytest.mark.parametrize("fault", FAULTS)
def test_a_write_the_board_made_before_its_answer_failed_is_not_made_twice(
    tmp_path: Path, where: str, fault: str
) -> None:
    with ipb_played_day(tmp_path, charset="windows-1251") as day:
        day.server.slow_for = 1.5
        day.server.fail_after_acting(where, fault)
        for _ in range(8):
            try:
                run(day, timeout=0.5, deadline=1.0)
                break
            except ForumError:
                continue
        assert_ipb_published_once(day)


def test_flood_control_on_the_forms_request_is_waited_out_and_kept_from_then_on(tmp_path: Path) -> None:
    """IPB 2 refuses the posting form itself within the interval, naming the whole interval: it is waited,
    and kept between the next posts, which then meet no refusal."""
    with ipb_played_day(tmp_path, flood_interval=30.0) as day:
        poster = day.poster()
        topic = poster.post_topic(FORUM, "Флуд", f"первое {MARK_A}", marker=MARK_A)
        poster.post_reply(topic, "", f"второе {MARK_B}", marker=MARK_B)
        poster.post_reply(topic, "", "третье", marker="fbm00000000000000000000000c")
        first, second, third = day.board.posts_of(topic)
        assert (second.time - first.time).total_seconds() >= 30.0 and (third.time - second.time).total_seconds() >= 30.0
        forms = [r for r in day.server.requests if r.method == "GET" and "CODE=02" in r.query]
        assert len(forms) == 3  # refused once (flood control), then served twice
        assert len(submissions(day)) == 3 and poster.flood_interval == 30.0


class GuardedOnce(Ipb2Server):
    """A board whose double-post guard answers the first submission (as it does a second one within 2 s of
    another): a redirect, nothing stored."""

    guarded = 0

    def _double_post(self, request: Request, forum: Forum, topic: Topic | None, code: str) -> Response | None:
        if self.guarded:
            return super()._double_post(request, forum, topic, code)
        self.guarded += 1
        if topic is not None:
            return self._to(request, f"showtopic={topic.topic_id}&view=getlastpost")
        return self._to(request, f"showtopic={self._forum_topics(forum)[0].topic_id}")


@pytest.mark.parametrize("made", ["topic", "reply"])
def test_the_double_post_guards_redirect_proves_nothing_the_marker_decides(tmp_path: Path, made: str) -> None:
    with ipb_played_day(tmp_path) as day:
        guarded = GuardedOnce(day.board, clock=day.clock, logins=LOGINS)
        with guarded:
            day.server = guarded
            game = day.store.game(GAME).id
            mark = markers_for(day.store.marker_key(game))("guard", made)
            to = [str(FORUM)] if made == "topic" else [str(day.day1_topic)]
            letter = Letter(mark, made, to, "Охрана", with_marker("текст", mark))
            day.store.queue(game, [letter])
            client = day.client()
            with pytest.raises(MaybeSent, match="proves nothing"):  # the guard's redirect is no success
                Outbox(day.store, game, poster_for(client)).flush()
            assert not [p for t in day.board.topics for p in t.posts if mark in p.body]  # nothing stored
            done = Outbox(day.store, game, poster_for(day.client())).flush()  # the next run looks, then sends
            assert [d.how for d in done] == ["sent"]
            assert len([p for t in day.board.topics for p in t.posts if mark in p.body]) == 1


def test_the_posts_errors_are_the_boards_refusal_in_its_words(tmp_path: Path) -> None:
    with ipb_played_day(tmp_path) as day:
        poster = day.poster()
        with pytest.raises(ForumError, match="слишком много блоков с цитатой"):
            poster.post_reply(day.day1_topic, "", "[quote]x[/quote]" * 11)
        assert len(submissions(day)) == 1  # refused for good: not sent again


def test_a_dead_session_is_answered_as_a_guests_and_the_post_is_made_once_after_a_new_login(tmp_path: Path) -> None:
    with ipb_played_day(tmp_path) as day:
        poster = day.poster()
        poster.post_reply(day.day1_topic, "", "первое")
        day.server.expire_sessions()  # the remembered login with it (a new member key)
        day.clock.advance(5)
        reply = poster.post_reply(day.day1_topic, "", f"второе {MARK_A}", marker=MARK_A)
        assert [p.post_id for p in day.board.posts_of(day.day1_topic) if MARK_A in p.body] == [reply]


def test_closing_is_the_topic_tools_code_00_read_before_and_after(tmp_path: Path) -> None:
    with ipb_played_day(tmp_path) as day:
        poster = day.poster()
        assert poster.lock_topic(day.day1_topic).locked
        assert len(submissions(day)) == 1
        again = poster.lock_topic(day.day1_topic)
        assert again.locked and again.already and len(submissions(day)) == 1


def test_a_lock_refused_is_reported_and_publishing_goes_on(tmp_path: Path) -> None:
    with ipb_played_day(tmp_path, bot_moderator=False) as day:
        report = run(day)
        assert report.locked is False and any("lock" in note for note in report.notes)
        assert not day.board.topic(day.day1_topic).locked
        assert len(day.topics_titled(DAY2_TITLE)) == 1


def test_an_unknown_recipient_is_refused_for_good_and_nothing_is_sent(tmp_path: Path) -> None:
    with ipb_played_day(tmp_path) as day:
        with pytest.raises(UnknownRecipient, match="Нет такого пользователя"):
            day.poster().send_pm(["Nobody"], "тема", "текст")
        assert day.board.pms_from(BOT) == [] and len(submissions(day)) == 1


def test_several_recipients_go_in_one_pm_up_to_the_groups_copies(tmp_path: Path) -> None:
    with ipb_played_day(tmp_path, copies=2) as day:
        poster = day.poster()
        poster.send_pm(["Alice", "Charlie", "Dana_99"], "Клан", f"Вы в одном клане {MARK_A}", marker=MARK_A)
        assert sorted(m.recipients[0] for m in day.board.pms_from(BOT)) == ["Alice", "Charlie", "Dana_99"]
        with pytest.raises(TooManyRecipients) as many:
            poster.send_pm(["Alice", "Charlie", "Dana_99", "Шарик"], "Клан", "текст")
        assert many.value.limit == 3 and len(day.board.pms_from(BOT)) == 3


def test_without_copies_a_pm_takes_one_recipient(tmp_path: Path) -> None:
    with ipb_played_day(tmp_path) as day:
        with pytest.raises(TooManyRecipients) as many:
            day.poster().send_pm(["Alice", "Charlie"], "тема", "текст")
        assert many.value.limit == 1 and not submissions(day)


def test_a_long_pm_subject_is_cut_as_the_form_cuts_it_and_still_found(tmp_path: Path) -> None:
    with ipb_played_day(tmp_path) as day:
        poster = day.poster()
        subject = "Очень длинная тема личного сообщения, длиннее сорока знаков"
        pm_id = poster.send_pm(["Alice"], subject, f"текст {MARK_A}", marker=MARK_A)
        [sent] = day.board.pms_from(BOT)
        assert sent.subject == subject[:40] and pm_id == sent.pm_id
        assert poster.find_marker_in_sent(MARK_A, subject=subject, recipients=["Alice"]) == pm_id
        assert poster.find_marker_in_sent(MARK_A, recipients=["Charlie"]) is None


def test_a_refusal_for_good_of_the_form_sets_the_letter_aside_and_the_rest_goes_on(tmp_path: Path) -> None:
    with ipb_played_day(tmp_path, posting_refused=frozenset({FORUM})) as day:
        game = day.store.game(GAME).id
        marks = markers_for(day.store.marker_key(game))
        reply = Letter(marks("a"), "reply", [str(day.day1_topic)], "", with_marker("ответ", marks("a")))
        pm = Letter(marks("b"), "pm", ["Alice"], "тема", with_marker("текст", marks("b")))
        day.store.queue(game, [reply, pm])
        done = Outbox(day.store, game, day.poster()).flush()
        assert [d.how for d in done] == ["refused", "sent"]
        assert "У вас нет прав публиковать ответ в эту тему" in (done[0].error or "")
        with pytest.raises(NoPermission):
            day.poster().post_reply(day.day1_topic, "", "ещё")


def test_poster_for_an_ipb2_client_is_the_ipb2_poster(tmp_path: Path) -> None:
    with ipb_played_day(tmp_path) as day:
        assert isinstance(poster_for(day.client()), Ipb2Poster)
