"""Issue 23's faults on every write, on the board as the real one answers (the fake phpBB answers every
captured exchange as the real board did, in Russian, with 2 s of flood control): each fault before and
after the board acted, on a topic, a PM and a lock (a publication) and on a reply (the watch's interim
count), then runs again as cron or the watch would make them. None doubles, loses or gets stuck; the
board's refusals for now are waited out, its refusals for good are set aside with its words and can be
settled; a count the board handed back is made again from a fresh read."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from boards import BOARDS, BoardKit
from publish_support import BOT, DAY2_TITLE, GAME, NOW, PLAYERS, Crash, Played, crash_at, played_day

from forumbot.errors import ForumError, ParseError
from forumbot.forum.registry import poster_for
from forumbot.host.outbox import Outbox, settle, waiting_and_set_aside
from forumbot.host.publish import TopicUnknown, publish
from forumbot.host.watch import PassReport, watch_once
from forumbot.store import Letter

FAULTS = ("503:5", "429", "reset", "login", "invalid", "cut")  # a Retry-After said and not; the rest


def board_time(day: Played) -> Callable[[], datetime]:
    assert day.clock is not None
    clock = day.clock
    return lambda: datetime.fromtimestamp(clock.now, UTC)


def publish_until_done(day: Played, runs: int = 8, checkpoint: Callable[[str], None] | None = None) -> list[str]:
    """Publish again and again, a minute apart, as cron or the watch does after a failure, until the game
    moved on and nothing of the publication is due; what each failed run said."""
    said: list[str] = []
    game = day.store.game(GAME).id
    for run in range(runs):
        state = day.store.game(GAME).state
        if state is not None and state.day == 2 and not day.store.pending(game, "publish"):
            return said
        client = day.client(timeout=0.5, deadline=1.0)
        crash = checkpoint if checkpoint is not None and run == 0 else crash_at("")
        try:
            publish(day.store, GAME, client, NOW, poster=poster_for(client), checkpoint=crash, clock=board_time(day))
        except (ForumError, ParseError, Crash) as exc:
            said.append(f"{type(exc).__name__}: {exc}")
        assert day.clock is not None
        day.clock.sleep(60)
    raise AssertionError(f"publishing is stuck after {runs} runs: {said}")


def nothing_set_aside(day: Played) -> None:
    letters = waiting_and_set_aside(day.store, day.store.game(GAME).id)
    assert not letters, [(x.number, x.kind, x.status, x.error) for x in letters]


PUBLICATION = [
    pytest.param(kit, write, when, fault, id=f"{kit.name}-{write}-{when}-{fault}")
    for kit in BOARDS.values()
    for write in ("topic", "pm", "lock")
    for when, fault in kit.faults()
    if fault in FAULTS
]


@pytest.mark.parametrize(("kit", "write", "when", "fault"), PUBLICATION)
def test_a_fault_on_a_publication_doubles_loses_and_sticks_nothing(
    tmp_path: Path, kit: BoardKit, write: str, when: str, fault: str
) -> None:
    with kit.day(tmp_path) as day:
        place = day.server.fail_after_acting if when == "after" else day.server.fail_before_acting
        place(kit.places[write], fault)
        said = publish_until_done(day)
        assert day.server.faults.pending() == 0, "the fault never struck"
        kit.published_once(day)
        nothing_set_aside(day)
        assert len(said) <= 2, said


# --- the reply: the watch's interim count ------------------------------------------------------------------


def day2(day: Played, voters: int = 3) -> int:
    """Day 1 published; on day 2 `voters` players vote in its topic. The day-2 topic's id."""
    publish_until_done(day)
    [topic] = day.topics_titled(DAY2_TITLE)
    state = day.store.game(GAME).state
    assert state is not None
    living = [p.nick for p in state.living()]
    assert day.clock is not None
    for voter in living[:voters]:
        day.clock.sleep(30)  # the board's own time: posts come in the order of their ids, as on a real board
        vote = f"Голосую: [color=red][b]{living[-1]}[/b][/color]"
        day.board.add_post(topic.topic_id, voter, vote, datetime.fromtimestamp(day.clock.now, UTC))
    return int(topic.topic_id)


def watch_until_quiet(day: Played, passes: int = 6) -> list[str]:
    """Watch passes, a minute apart, until one has nothing left to send; what they reported."""
    said: list[str] = []
    for _ in range(passes):
        client = day.client(timeout=0.5, deadline=1.0)
        try:
            report: PassReport = watch_once(day.store, GAME, client, poster_for(client), NOW + timedelta(hours=1))
        except (ForumError, ParseError) as exc:
            said.append(str(exc))
        else:
            said += report.problems
            if not report.problems and not day.store.pending(day.store.game(GAME).id):
                return said
        assert day.clock is not None
        day.clock.sleep(60)
    raise AssertionError(f"the watch is stuck after {passes} passes: {said}")


def counts_posted(day: Played, topic: int) -> list[str]:
    return [p.body for p in day.board.posts_of(topic) if p.author == BOT and "Промежуточный подсчёт" in p.body]


REPLY = [
    pytest.param(kit, when, fault, id=f"{kit.name}-reply-{when}-{fault}")
    for kit in BOARDS.values()
    for when, fault in kit.faults()
    if fault in FAULTS
]


@pytest.mark.parametrize(("kit", "when", "fault"), REPLY)
def test_a_fault_on_a_reply_doubles_loses_and_sticks_nothing(
    tmp_path: Path, kit: BoardKit, when: str, fault: str
) -> None:
    with kit.day(tmp_path) as day:
        topic = day2(day)
        place = day.server.fail_after_acting if when == "after" else day.server.fail_before_acting
        place(kit.places["reply"], fault)
        watch_until_quiet(day)
        assert day.server.faults.pending() == 0, "the fault never struck"
        assert len(counts_posted(day, topic)) == 1
        nothing_set_aside(day)


@pytest.mark.parametrize("when", ["before", "after"])
def test_a_crash_around_a_reply_then_a_rerun_posts_it_once(tmp_path: Path, when: str) -> None:
    with played_day(tmp_path, language="ru", flood_interval=2.0) as day:
        topic = day2(day)
        day.server.fail_path("posting.php?mode=reply", 503)  # the pass queues its count, and cannot post it
        watch_until_quiet_or_not(day)
        day.server.fail_path("posting.php?mode=reply", None)
        game = day.store.game(GAME).id
        [count] = day.store.pending(game)
        crash = crash_at(f"{when} reply {count.marker}")
        with pytest.raises(Crash):
            Outbox(day.store, game, poster_for(day.client()), crash).deliver(count)
        watch_until_quiet(day)
        assert len(counts_posted(day, topic)) == 1


def watch_until_quiet_or_not(day: Played) -> None:
    client = day.client(timeout=0.5, deadline=1.0)
    report = watch_once(day.store, GAME, client, poster_for(client), NOW + timedelta(hours=1))
    assert report.interim_count and report.problems  # counted, not posted


def test_a_count_handed_back_for_new_posts_is_made_again_from_a_fresh_read(tmp_path: Path) -> None:
    """Issue 23, item 7: a player posts between the bot's read and its reply; phpBB hands the form back
    (the captured "reply-new-post-meanwhile"), and the count is not resubmitted stale."""
    with played_day(tmp_path, language="ru", flood_interval=2.0) as day:
        topic = day2(day, voters=3)
        state = day.store.game(GAME).state
        assert state is not None
        late = next(p.nick for p in state.living()[3:] if p.nick != state.living()[-1].nick)
        target = state.living()[-1].nick
        assert day.clock is not None

        clock = day.clock

        def a_vote_meanwhile(_: float) -> None:  # while the bot waits its second on the reply form
            if day.server.count("posting.php", method="GET", query="mode=reply"):
                clock.on_sleep = None
                vote = f"И я: [color=red][b]{target}[/b][/color]"
                day.board.add_post(topic, late, vote, datetime.fromtimestamp(clock.now, UTC))

        clock.on_sleep = a_vote_meanwhile
        client = day.client()
        first = watch_once(day.store, GAME, client, poster_for(client), NOW + timedelta(hours=1))
        assert first.interim_count and any("handed back" in problem for problem in first.problems)
        assert counts_posted(day, topic) == []  # not posted stale
        watch_until_quiet(day)
        [count] = counts_posted(day, topic)
        assert "проголосовали: 4." in count and late in count.split("Не голосовали")[0]  # the fresh read
        outdated = [x for x in day.store.letters(day.store.game(GAME).id) if x.status == "outdated"]
        assert len(outdated) == 1


# --- refusals: for now, and for good -----------------------------------------------------------------------


def test_flood_control_is_learned_from_the_board_and_kept(tmp_path: Path) -> None:
    """No interval in the config: the board's 2 s are learned from its flood answers, and kept between
    the publication's submissions (not phpBB's default 15 s)."""
    with played_day(tmp_path, language="ru", flood_interval=2.0) as day:
        assert day.clock is not None
        began = day.clock.now
        publish_until_done(day)
        took = day.clock.now - 60 - began  # the loop's minute after the run that did it
        refused = [r for r in day.server.requests if r.method == "POST" and r.status == 200]
        sends = [m.time for m in sorted(day.board.pms_from(BOT), key=lambda m: m.pm_id)]
        assert all((b - a).total_seconds() >= 2.0 for a, b in zip(sends, sends[1:], strict=False))
        assert took < 15 * len(sends) / 2  # far from 15 s a submission
        assert len(refused) >= 1


def test_a_topic_held_for_approval_is_set_aside_named_and_found_once_approved(tmp_path: Path) -> None:
    with played_day(tmp_path, language="ru", flood_interval=2.0, bot_moderator=False) as day:
        day.board.set_preferences(BOT, needs_approval=True)
        client = day.client()
        with pytest.raises(TopicUnknown) as stuck:
            publish(day.store, GAME, client, NOW, poster=poster_for(client), clock=board_time(day))
        message = str(stuck.value)
        game = day.store.game(GAME).id
        [held] = [x for x in waiting_and_set_aside(day.store, game) if x.kind == "topic"]
        assert held.status == "refused" and "одобрено модератором" in (held.error or "")
        assert f"forumbot outbox {GAME} --retry {held.number}" in message and "--drop" in message
        [topic] = day.topics_titled(DAY2_TITLE)  # held, not doubled
        day.board.approve_post(topic.posts[0].post_id)  # a moderator approves it
        settle(day.store, game, held.number or 0, "retry", reason="approved by a moderator", by="host")
        publish_until_done(day)
        assert len(day.topics_titled(DAY2_TITLE)) == 1
        state = day.store.game(GAME).state
        assert state is not None and state.day == 2
        assert [s["action"] for s in day.store.settlements(game)] == ["retry"]


def test_a_lock_refused_for_good_is_set_aside_with_the_boards_words_and_the_rest_goes_on(tmp_path: Path) -> None:
    with played_day(tmp_path, language="ru", flood_interval=2.0, bot_moderator=False) as day:
        publish_until_done(day)
        [lock] = [x for x in waiting_and_set_aside(day.store, day.store.game(GAME).id) if x.kind == "lock"]
        assert lock.status == "refused" and "Вы не авторизованы для доступа к этому разделу." in (lock.error or "")
        assert len(day.topics_titled(DAY2_TITLE)) == 1


def test_a_lock_the_board_did_not_make_for_a_passing_reason_is_tried_again_by_the_next_run(tmp_path: Path) -> None:
    """Issue 23, item 2: a confirm answered by anything but success was set aside for good, blaming rights."""
    with played_day(tmp_path, language="ru", flood_interval=2.0) as day:
        day.server.fail_before_acting("POST mcp.php", "invalid")  # the board goes back without a word
        client = day.client()
        report = publish(day.store, GAME, client, NOW, poster=poster_for(client), clock=board_time(day))
        assert report.locked is False and report.new_day == 2
        assert not any("moderator" in note for note in report.notes)  # not blamed on the account's rights
        assert day.store.pending(day.store.game(GAME).id, "publish")  # due, not set aside
        publish_until_done(day)
        assert day.board.topic(day.day1_topic).locked
        nothing_set_aside(day)


def test_a_pm_to_a_player_the_board_does_not_know_is_set_aside_and_the_rest_goes_on(tmp_path: Path) -> None:
    with played_day(tmp_path, language="ru", flood_interval=2.0) as day:
        state = day.store.game(GAME).state
        assert state is not None
        topic = day2(day, voters=0)
        game = day.store.game(GAME).id
        marks = [f"fbm{n:024x}" for n in range(3)]
        letters = [
            Letter(marks[0], "pm", ["Гендальф"], "s", f"1\n{marks[0]}"),
            Letter(marks[1], "pm", [PLAYERS[0]], "s", f"2\n{marks[1]}"),
            Letter(marks[2], "reply", [str(topic)], "", f"3\n{marks[2]}"),
        ]
        day.store.queue(game, letters)
        client = day.client()
        said = watch_once(day.store, GAME, client, poster_for(client), NOW + timedelta(hours=1)).problems
        [aside] = waiting_and_set_aside(day.store, game)
        assert aside.marker == marks[0] and "Гендальф" in (aside.error or "")
        assert [m.body for m in day.pms(PLAYERS[0]) if m.body.startswith("2")] == [f"2\n{marks[1]}"]
        assert any(p.body.startswith("3") for p in day.board.posts_of(topic)), said
