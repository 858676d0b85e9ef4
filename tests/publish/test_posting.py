"""Posting on the fake phpBB board through the project's client: forms, tokens, flood control, review,
locking, PMs in two steps, and finding a marker afterwards."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from publish_support import BOT, FORUM, PLAYERS, START, Played, played_day

from fakeboard.phpbb import FLOOD_ERROR, FORM_INVALID
from forumbot.errors import ForumError, NoPermission, Unproven
from forumbot.forum import registry
from forumbot.forum.phpbb.answers import form_error, forum_message
from forumbot.forum.phpbb.pages import parse_forum_topics
from forumbot.forum.phpbb.writer import PhpbbPoster
from forumbot.forum.registry import poster_for
from forumbot.forum.saved.reader import SavedPagesClient

MARK = "[size=1][color=#ffffff]fbm0123456789abcdef01234567[/color][/size]"
MARKER = "fbm0123456789abcdef01234567"


@pytest.fixture
def day(tmp_path: Path) -> Iterator[Played]:
    with played_day(tmp_path, drafted=False) as played:
        yield played


def test_a_new_topic_a_reply_and_their_ids(day: Played) -> None:
    poster = day.poster()
    topic = poster.post_topic(FORUM, "Тема [b]", f"Текст [b]жирный[/b]\n{MARK}")
    post = poster.post_reply(topic, "", "Ответ")
    posts = day.board.posts_of(topic)
    assert [(p.post_id, p.author, p.subject, p.body) for p in posts] == [
        (posts[0].post_id, BOT, "Тема [b]", f"Текст [b]жирный[/b]\n{MARK}"),
        (post, BOT, "Re: Тема [b]", "Ответ"),
    ]
    assert poster.find_marker_in_forum(FORUM, "Тема [b]", MARKER) == topic
    assert poster.find_marker_in_topic(topic, MARKER) == posts[0].post_id
    assert poster.find_marker_in_topic(topic, "fbm" + "f" * 24) is None


def test_every_form_is_submitted_more_than_a_second_after_it_was_issued(day: Played) -> None:
    poster = day.poster()
    poster.post_topic(FORUM, "s", "m")
    poster.send_pm(["Alice"], "s", "m")
    log = [r for r in day.server.requests if "mode=login" not in r.query]
    submissions = [
        (before, r)
        for before, r in zip(log, log[1:], strict=False)
        if r.method == "POST" and (r.path.endswith("posting.php") or before.method == "POST")
    ]
    assert len(submissions) == 2  # the topic; the PM's second step (its first step only adds recipients)
    for issued, submitted in submissions:
        assert int(submitted.time) - int(issued.time) >= 1  # phpBB's check: not in the second it was made


def test_flood_control_is_waited_out_and_nothing_is_posted_twice(tmp_path: Path) -> None:
    with played_day(tmp_path, drafted=False, flood_interval=15) as day:
        poster = day.poster(flood_interval=15)
        first = poster.post_topic(FORUM, "one", "1")
        second = poster.post_reply(first, "", "2")
        poster.send_pm(["Alice"], "pm", "3")
        poster.send_pm(["Bob Smith"], "pm", "4")
        bodies = [p.body for p in day.board.posts_of(first)]
        assert bodies == ["1", "2"] and second == day.board.posts_of(first)[1].post_id
        assert [m.body for m in day.pms("Alice")] == ["3"] and [m.body for m in day.pms("Bob Smith")] == ["4"]
        times = sorted([p.time for p in day.board.posts_of(first)] + [m.time for m in day.board.pms_from(BOT)])
        assert all(later - earlier >= timedelta(seconds=15) for earlier, later in zip(times, times[1:], strict=False))
        # the interval is known from the config: the poster keeps it from the first post, never refused
        assert day.server.count("posting.php", method="POST") == 2


def test_a_flood_interval_not_configured_is_learned_from_the_first_refusal(tmp_path: Path) -> None:
    with played_day(tmp_path, drafted=False, flood_interval=15) as day:
        poster = day.poster()
        first = poster.post_topic(FORUM, "one", "1")
        poster.post_reply(first, "", "2")  # refused ("too soon") while the interval is probed for
        learning = day.server.count("posting.php", method="POST")
        poster.post_reply(first, "", "3")
        assert [p.body for p in day.board.posts_of(first)] == ["1", "2", "3"]
        assert learning > 2  # the board refused at least once
        assert day.server.count("posting.php", method="POST") == learning + 1  # then the interval is kept


def test_a_flood_refusal_proves_nothing_was_stored_so_nothing_is_looked_for(tmp_path: Path) -> None:
    with played_day(tmp_path, drafted=False, flood_interval=15) as day:
        poster = day.poster()  # the interval to be learned: the board refuses the second topic once
        poster.post_topic(FORUM, "one", "1")
        day.server.reset_log()
        topic = poster.post_topic(FORUM, "two", f"2\n{MARK}", marker=MARKER)
        assert [t.title for t in day.board.topics if t.topic_id == topic] == ["two"]
        assert day.server.count("posting.php", method="POST") >= 2  # refused ("too soon"), then taken
        assert day.server.count("viewforum.php") == 0


def test_an_invalid_form_is_settled_by_the_marker_then_a_fresh_form(
    day: Played, monkeypatch: pytest.MonkeyPatch
) -> None:
    original = day.server._check_form
    refusals: list[str] = []

    def refuse_once(request, form_name):  # type: ignore[no-untyped-def]
        if form_name in ("posting", "ucp_pm_compose") and len(refusals) < 2 and form_name not in refusals:
            refusals.append(form_name)
            return False
        return original(request, form_name)

    monkeypatch.setattr(day.server, "_check_form", refuse_once)
    poster = day.poster()
    topic = poster.post_topic(FORUM, "after a refusal", f"body\n{MARK}", marker=MARKER)
    poster.send_pm(["Alice"], "after a refusal", f"body\n{MARK}", marker=MARKER)
    assert refusals == ["posting", "ucp_pm_compose"]
    assert [p.body for p in day.board.posts_of(topic)] == [f"body\n{MARK}"] and len(day.pms("Alice")) == 1
    assert day.server.count("posting.php", method="GET") == 2
    # before each second submission, the forum and the sent PMs were looked at for what the first may have made
    assert day.server.count("viewforum.php") == 1 and day.server.count("ucp.php", query="folder=outbox") == 1


def test_a_form_refused_again_and_again_is_an_error_and_nothing_is_stored(
    day: Played, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(day.server, "_check_form", lambda request, form_name: form_name == "login")
    with pytest.raises(Unproven, match="called the form invalid"):
        day.poster().post_topic(FORUM, "never", f"body\n{MARK}", marker=MARKER)
    assert not day.topics_titled("never")
    assert day.server.count("posting.php", method="POST") == 3


def test_a_reply_shown_for_review_is_submitted_again_from_the_form_the_board_returned(day: Played) -> None:
    poster = day.poster()
    topic = poster.post_topic(FORUM, "busy", "first")
    # someone posts while the bot waits its second on the reply form
    def meanwhile(_: float) -> None:
        day.clock.on_sleep = None
        day.board.add_post(topic, "Alice", "meanwhile", datetime.fromtimestamp(day.clock.now, UTC))

    day.clock.on_sleep = meanwhile
    post = poster.post_reply(topic, "", "the bot's reply")
    assert [p.body for p in day.board.posts_of(topic)] == ["first", "meanwhile", "the bot's reply"]
    assert day.board.posts_of(topic)[-1].post_id == post
    # the real board returns the form with the new topic_cur_post_id: submitted as it is, it posts
    assert day.server.count("posting.php", method="GET", query=f"t={topic}") == 1
    assert day.server.count("posting.php", method="POST", query=f"t={topic}") == 2


def test_pm_in_two_steps_to_several_members(day: Played) -> None:
    pm_id = day.poster().send_pm(["Alice", "Bob Smith", " alice "], "Команда", "Вы — [b]мафия[/b].")
    message = day.board.pm(pm_id or 0)
    assert (message.sender, message.recipients, message.body) == (BOT, ("Alice", "Bob Smith"), "Вы — [b]мафия[/b].")


def test_an_unknown_recipient_is_named(day: Played) -> None:
    with pytest.raises(ForumError, match="'Nobody'") as caught:
        day.poster().send_pm(["Alice", "Nobody"], "s", "m")
    assert "Alice" not in str(caught.value).split("called")[1]
    assert not day.pms("Alice")


def test_lock_by_a_moderator_and_again(day: Played) -> None:
    poster = day.poster()
    first = poster.lock_topic(day.day1_topic, FORUM)
    assert first.locked and not first.already
    assert day.board.topic(day.day1_topic).locked
    again = poster.lock_topic(day.day1_topic)
    assert again.locked and again.already  # the topic says it is locked: nothing is asked of the board
    assert day.server.count("mcp.php", method="POST") == 1


def test_lock_refused_to_a_member_is_false_not_an_error(tmp_path: Path) -> None:
    with played_day(tmp_path, drafted=False, bot_moderator=False) as day:
        refused = day.poster().lock_topic(day.day1_topic, FORUM)
        assert not refused.locked and refused.refused  # the board said so: for good
        assert refused.reason == "You are not authorised to access this area."
        assert not day.board.topic(day.day1_topic).locked


def test_posting_where_the_account_may_not_is_no_permission(tmp_path: Path) -> None:
    with played_day(tmp_path, drafted=False, bot_moderator=False) as day:
        day.board.lock_topic(day.day1_topic)
        with pytest.raises(NoPermission, match="locked"):
            day.poster().post_reply(day.day1_topic, "", "after the lock")


def test_a_sent_pm_is_found_in_the_outbox_then_in_the_sent_messages(day: Played) -> None:
    poster = day.poster()
    other = poster.send_pm(["Alice"], "роль", "не тот")
    wanted = poster.send_pm(["Alice"], "роль", f"тот\n{MARK}")
    assert poster.find_marker_in_sent(MARKER, subject="роль", recipients=["Alice"]) == wanted
    assert day.server.count("ucp.php", query="folder=outbox") == 1
    for pm_id in (other, wanted):
        day.board.mark_pm_read(pm_id or 0, "Alice")  # delivered: phpBB moves it to "Sent messages"
    assert poster.find_marker_in_sent(MARKER, subject="роль") == wanted
    assert poster.find_marker_in_sent(MARKER, subject="другая тема", recipients=["Bob Smith"]) is None


def test_a_players_quote_of_the_marker_is_not_the_bots_post(day: Played) -> None:
    quote = f'[quote="{BOT}"]{MARK}[/quote] ха'
    day.board.add_post(day.day1_topic, "Alice", quote, START + timedelta(hours=3))
    assert day.poster().find_marker_in_topic(day.day1_topic, MARKER) is None


def test_publishing_needs_a_board_it_can_write_to(tmp_path: Path) -> None:
    writable = r"posts on IPB 2.x, IPB 3.x and phpBB boards only \(this forum is read as saved"
    with pytest.raises(Exception, match=writable):
        poster_for(SavedPagesClient(tmp_path, dialects=registry.DIALECTS))


def test_pure_readers_of_the_answers() -> None:
    page = (
        '<html><body><div class="panel" id="message"><h2>Information</h2><p>This message has been sent '
        'successfully.<br/><a href="./ucp.php?i=pm&amp;mode=view&amp;p=7">View</a></p></div>'
        '<form id="postform"><p class="error">' + FLOOD_ERROR + "</p></form>"
        '<ul><li><dl class="row-item"><dt><a class="topictitle" href="./viewtopic.php?t=3">T</a>'
        '<div class="topic-poster">by <a class="username" href="#">host_bot</a></div></dt></dl></li></ul>'
        "</body></html>"
    )
    assert form_error(page) == FLOOD_ERROR and FORM_INVALID not in page
    assert "sent successfully" in (forum_message(page) or "")
    [row] = parse_forum_topics(page)
    assert (row.topic_id, row.title, row.author) == (3, "T", "host_bot")


def test_the_poster_is_the_accounts(day: Played) -> None:
    assert PhpbbPoster(day.client()).username == BOT
    assert set(PLAYERS) <= {u.name for u in day.board.users}


def test_a_fault_after_a_submission_went_through_does_not_post_twice_under_flood_control(tmp_path: Path) -> None:
    with played_day(tmp_path, drafted=False, flood_interval=15) as day:
        day.server.fail_path("viewtopic.php?t=", 503)  # the page the submission redirects to fails
        with pytest.raises(ForumError):
            day.poster().post_topic(FORUM, "once", f"body\n{MARK}", marker=MARKER)
        assert len(day.topics_titled("once")) == 1  # the repeated submission met flood control


def test_a_fault_after_a_submission_went_through_does_not_post_twice(day: Played) -> None:
    day.server.fail_path("viewtopic.php?t=", 503)
    with pytest.raises(ForumError):
        day.poster().post_topic(FORUM, "once", f"body\n{MARK}", marker=MARKER)
    assert len(day.topics_titled("once")) == 1
