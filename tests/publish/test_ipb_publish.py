"""Publishing day 1 on the fake IPB 2.2 board: the new topic, the old one closed, the PMs, each once, in
UTF-8 and windows-1251; the board's rules kept (2 s between submissions, flood control, one recipient
per PM, `add_sent`); faults after the board acted and crashes between steps never double a message."""

from __future__ import annotations

from pathlib import Path

import pytest
from ipb_support import IpbPlayed, assert_ipb_published_once, ipb_played_day
from publish_support import BOT, CHECKPOINTS, DAY2_TITLE, GAME, NOW, PUBLICATIONS, Crash, crash_at

from forumbot.errors import ForumError, TooManyRecipients, UnknownRecipient
from forumbot.forum.ipb2.writer import Ipb2Poster
from forumbot.forum.registry import poster_for
from forumbot.host.publish import PublishReport, publish

WRITES = ("POST index.php#act=Post", "POST index.php#act=Msg", "POST index.php#act=Mod")
SLOW = pytest.param(
    "slow", marks=pytest.mark.real_sleep(reason="the board answers after the client's real socket timeout (0.5 s)")
)
FAULTS = ("503", "429", "reset", SLOW)


def run(day: IpbPlayed, point: str = "", seen: list[str] | None = None, **http: float) -> PublishReport:
    client = day.client(**http)
    return publish(day.store, GAME, client, NOW, poster=poster_for(client), checkpoint=crash_at(point, seen))


def submit_gaps(day: IpbPlayed) -> list[float]:
    times = [r.time for r in day.server.requests if r.method == "POST" and "act=Login" not in r.query]
    return [b - a for a, b in zip(times, times[1:], strict=False)]


@pytest.mark.parametrize("charset", ["utf-8", "windows-1251"])
def test_publish_on_ipb2_posts_closes_and_writes_each_once(tmp_path: Path, charset: str) -> None:
    with ipb_played_day(tmp_path, charset=charset) as day:
        seen: list[str] = []
        report = run(day, seen=seen)
        assert seen == CHECKPOINTS
        assert report.sent == PUBLICATIONS and (report.locked, report.new_day) == (True, 2)
        assert_ipb_published_once(day)
        assert min(submit_gaps(day)) >= 2.0  # a second submission within 2 s would be dropped
        # the PM ids are the copies kept in «Отправленные» (add_sent=1), found by their markers
        outbox = day.store.pending(day.store.game(GAME).id)
        assert not outbox
        [topic] = day.topics_titled(DAY2_TITLE)
        assert "Вторник" not in topic.posts[0].body and topic.posts[0].author == BOT


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
    with ipb_played_day(tmp_path) as day:
        day.server.slow_for = 1.5
        day.server.fail_after_acting(where, fault)
        for _ in range(8):
            try:
                run(day, timeout=0.5, deadline=1.0)
                break
            except ForumError:
                continue
        assert_ipb_published_once(day)


def test_flood_control_is_waited_out_and_nothing_is_posted_twice(tmp_path: Path) -> None:
    with ipb_played_day(tmp_path, flood_interval=20.0) as day:
        poster = day.poster()
        topic = poster.post_topic(4, "Флуд", "первое fbm00000000000000000000000a", marker="fbm00000000000000000000000a")
        reply = poster.post_reply(topic, "", "второе fbm00000000000000000000000b", marker="fbm00000000000000000000000b")
        first, second = day.board.posts_of(topic)
        assert (first.post_id, second.post_id) == (day.board.topic(topic).posts[0].post_id, reply)
        assert (second.time - first.time).total_seconds() >= 20.0  # the board's answer was waited out
        refused = [r for r in day.server.requests if r.method == "POST" and "act=Login" not in r.query]
        assert len(refused) == 3  # the topic, the reply refused by flood control, the reply again


def test_a_lock_refused_is_reported_and_publishing_goes_on(tmp_path: Path) -> None:
    with ipb_played_day(tmp_path, bot_moderator=False) as day:
        report = run(day)
        assert report.locked is False and any("lock" in note for note in report.notes)
        assert not day.board.topic(day.day1_topic).locked
        assert len(day.topics_titled(DAY2_TITLE)) == 1


def test_one_recipient_per_pm_and_an_unknown_one_is_its_own_error(tmp_path: Path) -> None:
    with ipb_played_day(tmp_path) as day:
        poster = day.poster()
        with pytest.raises(TooManyRecipients) as many:
            poster.send_pm(["Alice", "Charlie"], "тема", "текст")
        assert many.value.limit == 1
        with pytest.raises(UnknownRecipient, match="Nobody"):
            poster.send_pm(["Nobody"], "тема", "текст")
        assert day.board.pms_from(BOT) == []


def test_a_long_pm_subject_is_cut_as_the_board_cuts_it_and_still_found(tmp_path: Path) -> None:
    with ipb_played_day(tmp_path) as day:
        poster = day.poster()
        subject = "Очень длинная тема личного сообщения, длиннее сорока знаков"
        pm_id = poster.send_pm(
            ["Alice"], subject, "текст fbm0123456789abcdef01234567", marker="fbm0123456789abcdef01234567"
        )
        [sent] = day.board.pms_from(BOT)
        assert sent.subject == subject[:40] and pm_id == sent.pm_id
        assert poster.find_marker_in_sent("fbm0123456789abcdef01234567", subject=subject, recipients=["Alice"]) == pm_id
        assert poster.find_marker_in_sent("fbm0123456789abcdef01234567", recipients=["Charlie"]) is None


def test_poster_for_an_ipb2_client_is_the_ipb2_poster(tmp_path: Path) -> None:
    with ipb_played_day(tmp_path) as day:
        assert isinstance(poster_for(day.client()), Ipb2Poster)
