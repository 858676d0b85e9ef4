"""The outbox's PMs on the fake phpBB board with their compose forms addressed ahead: while one letter
waits out phpBB's one-second form rule the next ones are addressed, yet the submissions, the store's
marks and the checkpoints stay one letter at a time, in order; a crash anywhere sends nothing twice; a
letter's own error shows at its own turn; flood control still spaces the sends."""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterator, Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from publish_support import BOT, GAME, PLAYERS, Crash, Played, crash_at, played_day

from forumbot.errors import ForumError, ForumUnavailable
from forumbot.forum.phpbb.forms import FORM_MIN_AGE
from forumbot.forum.poster import LockResult
from forumbot.host.outbox import Delivery, Outbox, markers_for, with_marker
from forumbot.store import Letter

LATENCY = 0.05  # fake seconds each answer of the board takes
Events = list[tuple[str, ...]]


@pytest.fixture
def day(tmp_path: Path) -> Iterator[Played]:
    with played_day(tmp_path, drafted=False) as played:
        yield played


def game_id(day: Played) -> int:
    return int(day.store.game(GAME).id)


def queue_pms(day: Played, recipients: Sequence[Sequence[str]]) -> list[Letter]:
    """One PM per entry, queued for the watch in this order; subject `n: …` names its place."""
    marks = markers_for(day.store.marker_key(game_id(day)))
    letters = []
    known = len(day.store.outbox(game_id(day)))
    for n, to in enumerate(recipients, 1):
        marker = marks("overlap", known + n)
        letters.append(Letter(marker, "pm", list(to), f"{n}: receipt", with_marker(f"letter {n}", marker)))
    day.store.queue(game_id(day), letters)
    return letters


def cycle(count: int) -> list[list[str]]:
    return [[PLAYERS[n % len(PLAYERS)]] for n in range(count)]


def record(day: Played, monkeypatch: pytest.MonkeyPatch) -> Events:
    """What happens, in order: the store's marks and the PMs the board makes (by subject)."""
    events: Events = []
    for mark in ("sending", "sent", "refused"):
        original = getattr(day.store, mark)

        def marked(marker: str, *args: Any, _mark: str = mark, _original: Callable[..., None] = original) -> None:
            events.append((_mark, marker))
            _original(marker, *args)

        monkeypatch.setattr(day.store, mark, marked)
    made = day.board.send_pm

    def send_pm(sender: str, names: list[str], subject: str, *args: Any, **kwargs: Any) -> int:
        events.append(("made", subject))
        return int(made(sender, names, subject, *args, **kwargs))

    monkeypatch.setattr(day.board, "send_pm", send_pm)
    return events


def with_latency(day: Played, monkeypatch: pytest.MonkeyPatch, seconds: float = LATENCY) -> None:
    """Each answer of the board takes `seconds` on the shared fake clock."""
    assert day.clock is not None
    clock, dispatch = day.clock, day.server._dispatch

    def slow(request: Any) -> Any:
        clock.sleep(seconds)
        return dispatch(request)

    monkeypatch.setattr(day.server, "_dispatch", slow)


def outbox(day: Played, checkpoint: Callable[[str], None] | None = None, **options: Any) -> Outbox:
    poster = day.poster()
    poster.client.login()
    if checkpoint is None:
        return Outbox(day.store, game_id(day), poster, **options)
    return Outbox(day.store, game_id(day), poster, checkpoint, **options)


def expected(letters: Sequence[Letter], refused: Sequence[int] = ()) -> Events:
    """One letter at a time: marked, checkpoint, made, checkpoint, confirmed (a refused one: marked,
    checkpoint, set aside)."""
    events: Events = []
    for n, letter in enumerate(letters, 1):
        label = f"pm {letter.marker}"
        if n in refused:
            events += [("sending", letter.marker), (f"before {label}",), ("refused", letter.marker)]
        else:
            events += [("sending", letter.marker), (f"before {label}",), ("made", letter.subject)]
            events += [(f"after {label}",), ("sent", letter.marker)]
    return events


def bot_pms(day: Played) -> list[tuple[str, tuple[str, ...]]]:
    """The bot's PMs in the order the board made them."""
    return [(m.subject, tuple(m.recipients)) for m in sorted(day.board.pms_from(BOT), key=lambda m: m.pm_id)]


def test_submissions_marks_and_checkpoints_stay_one_letter_at_a_time(
    day: Played, monkeypatch: pytest.MonkeyPatch
) -> None:
    letters = queue_pms(day, cycle(10))
    events = record(day, monkeypatch)
    box = outbox(day, lambda step: events.append((step,)))
    forms = [day.server.count("ucp.php", method="GET", query="mode=compose")]
    day.clock.on_sleep = lambda _: forms.append(day.server.count("ucp.php", method="GET", query="mode=compose"))
    assert [d.how for d in box.flush()] == ["sent"] * 10
    assert events == expected(letters)
    assert bot_pms(day) == [(letter.subject, tuple(letter.recipients)) for letter in letters]
    # while the first letter's form aged (the one wait there is), the next eight were fetched too
    assert forms[1] - forms[0] == 1 + 8 and day.clock.sleeps.count(0.0) < len(day.clock.sleeps)


def fake_seconds_for(day: Played, monkeypatch: pytest.MonkeyPatch, letters: int, **options: Any) -> float:
    assert day.clock is not None
    queue_pms(day, cycle(letters))
    with_latency(day, monkeypatch)
    box = outbox(day, **options)
    began = day.clock.time()
    assert [d.how for d in box.flush()] == ["sent"] * letters
    return float(day.clock.time() - began)


def test_ten_letters_wait_out_the_form_rule_about_once(day: Played, monkeypatch: pytest.MonkeyPatch) -> None:
    overlapped = fake_seconds_for(day, monkeypatch, 10)
    # per letter: the two round trips of step one and the send's; the rule's second is waited once
    assert overlapped <= FORM_MIN_AGE + 10 * 3 * LATENCY + 2 * LATENCY


def test_without_preparing_each_letter_waits_the_whole_second(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with played_day(tmp_path, drafted=False) as day:
        one_by_one = fake_seconds_for(day, monkeypatch, 10, ahead=0)
    assert one_by_one >= 10 * (FORM_MIN_AGE + 3 * LATENCY) - 1e-3  # the clock holds 1.8e9: float steps
    (tmp_path / "again").mkdir()
    with played_day(tmp_path / "again", drafted=False) as day:
        overlapped = fake_seconds_for(day, monkeypatch, 10)
    assert overlapped < one_by_one / 4


CHECKPOINTS = [f"{when} {n}" for n in range(1, 5) for when in ("before", "after")]


@pytest.mark.parametrize("point", CHECKPOINTS)
def test_a_crash_at_any_checkpoint_sends_nothing_twice(tmp_path: Path, point: str) -> None:
    with played_day(tmp_path, drafted=False) as day:
        letters = queue_pms(day, cycle(4))
        when, n = point.split()
        crash = crash_at(f"{when} pm {letters[int(n) - 1].marker}")
        with pytest.raises(Crash):
            outbox(day, crash).flush()
        again = outbox(day).flush()  # a new run: a new client, no form of the old one in hand
        assert [d.how for d in again][:1] == (["recovered"] if when == "after" else ["sent"])
        assert bot_pms(day) == [(letter.subject, tuple(letter.recipients)) for letter in letters]
        assert outbox(day).flush() == []


# the PM's send, its add-recipients step (preparing), the compose form's fetch (preparing)
STEPS = ("POST ucp.php#post", "POST ucp.php#add_to", "GET mode=compose")


@settings(
    max_examples=15, deadline=None, phases=[Phase.generate], suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    faults=st.lists(st.tuples(st.sampled_from(STEPS), st.sampled_from(("503", "429", "reset"))), max_size=4),
    crashes=st.lists(st.sampled_from(CHECKPOINTS), max_size=3),
)
def test_random_faults_and_crashes_never_double_lose_or_reorder_a_letter(
    faults: list[tuple[str, str]], crashes: list[str]
) -> None:
    with tempfile.TemporaryDirectory() as tmp, played_day(Path(tmp), drafted=False) as day:
        letters = queue_pms(day, cycle(4))
        for where, fault in faults:
            day.server.fail_after_acting(where, fault)
        points = [f"{when} pm {letters[int(n) - 1].marker}" for when, n in map(str.split, crashes)]
        for _ in range(12):  # one run after another, as the watch's passes come
            try:
                outbox(day, crash_at(points.pop(0) if points else "")).flush()
                break
            except (ForumError, Crash):
                continue
        assert not day.store.pending(game_id(day))
        assert bot_pms(day) == [(letter.subject, tuple(letter.recipients)) for letter in letters]


@pytest.mark.parametrize("fault", ["503", "reset"])
def test_a_send_whose_answer_failed_is_found_not_sent_again(day: Played, fault: str) -> None:
    letters = queue_pms(day, cycle(5))
    day.server.fail_after_acting("POST ucp.php#post", fault)
    done = outbox(day).flush()
    assert [d.how for d in done] == ["sent"] * 5
    assert bot_pms(day) == [(letter.subject, tuple(letter.recipients)) for letter in letters]


def test_an_unknown_name_and_too_many_names_are_refused_at_their_own_turn(
    day: Played, monkeypatch: pytest.MonkeyPatch
) -> None:
    day.board.max_pm_recipients = 2
    letters = queue_pms(day, [["Alice"], ["Nobody"], ["Bob Smith"], ["Alice", "Charlie", "Dana_99"], ["Charlie"]])
    events = record(day, monkeypatch)
    done = outbox(day, lambda step: events.append((step,))).flush()
    assert [d.how for d in done] == ["sent", "refused", "sent", "refused", "sent"]
    assert "'Nobody'" in (done[1].error or "") and "takes 2 recipients" in (done[3].error or "")
    assert events == expected(letters, refused=(2, 4))
    assert [subject for subject, _ in bot_pms(day)] == ["1: receipt", "3: receipt", "5: receipt"]


def test_a_board_down_fails_the_letter_being_sent_and_nothing_else(day: Played) -> None:
    letters = queue_pms(day, cycle(3))
    day.server.fail_path("mode=compose", 503)
    with pytest.raises(ForumUnavailable):
        outbox(day).flush()
    statuses = [known.status if (known := day.store.letter(x.marker)) else None for x in letters]
    assert bot_pms(day) == [] and statuses == ["sending", "pending", "pending"]


def test_a_fault_while_addressing_ahead_is_met_at_that_letters_turn(day: Played) -> None:
    letters = queue_pms(day, cycle(4))
    box = outbox(day)
    box.writer.prepare_pms([["Alice"], ["Bob Smith"]])  # type: ignore[attr-defined]
    day.server.reset_log()
    day.server.fail_next(2)  # the third letter's form will not come (nor on the client's retry)
    assert [d.how for d in box.flush()] == ["sent"] * 4
    failed = [r for r in day.server.requests if r.status == 503]
    assert len(failed) == 2 and all("mode=compose" in r.query and r.method == "GET" for r in failed)
    assert bot_pms(day) == [(letter.subject, tuple(letter.recipients)) for letter in letters]


def test_a_prepared_form_refused_as_invalid_is_replaced_by_a_fresh_one(
    day: Played, monkeypatch: pytest.MonkeyPatch
) -> None:
    letters = queue_pms(day, cycle(4))
    original = day.server._check_form
    refused: list[str] = []

    def refuse_once(request: Any, form_name: str) -> bool:
        if form_name == "ucp_pm_compose" and not refused:
            refused.append(form_name)
            return False
        return bool(original(request, form_name))

    monkeypatch.setattr(day.server, "_check_form", refuse_once)
    assert [d.how for d in outbox(day).flush()] == ["sent"] * 4
    assert refused == ["ucp_pm_compose"]
    assert bot_pms(day) == [(letter.subject, tuple(letter.recipients)) for letter in letters]
    # each letter's add and send; the refused send and its fresh add; the other three added again
    assert day.posts_made() == 4 * 2 + 2 + 3


def test_flood_control_still_spaces_the_sends(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with played_day(tmp_path, drafted=False, flood_interval=15) as day:
        letters = queue_pms(day, cycle(4))
        events = record(day, monkeypatch)
        poster = day.poster(flood_interval=15)
        box = Outbox(day.store, game_id(day), poster, lambda step: events.append((step,)))
        assert [d.how for d in box.flush()] == ["sent"] * 4
        assert events == expected(letters)
        times = [m.time for m in sorted(day.board.pms_from(BOT), key=lambda m: m.pm_id)]
        assert all(later - earlier >= timedelta(seconds=15) for earlier, later in zip(times, times[1:], strict=False))


# --- the outbox's side, with a writer that records what it is asked --------------------------------


class Recorder:
    """A writer that prepares: it notes each plan and each send."""

    username = BOT

    def __init__(self) -> None:
        self.calls: list[tuple[str, ...]] = []

    def prepare_pms(self, upcoming: Sequence[Sequence[str]]) -> None:
        self.calls.append(("prepare", *(",".join(to) for to in upcoming)))

    def send_pm(self, recipients: Sequence[str], subject: str, message: str, *, marker: str | None = None) -> int:
        self.calls.append(("send", ",".join(recipients)))
        return len(self.calls)

    def post_topic(self, forum_id: int, subject: str, message: str, *, marker: str | None = None) -> int:
        self.calls.append(("topic", str(forum_id)))
        return 1

    def post_reply(self, topic: int | str, subject: str, message: str, *, marker: str | None = None) -> int:
        raise AssertionError("no reply here")

    def lock_topic(self, topic_id: int, forum_id: int | None = None) -> LockResult:
        raise AssertionError("no lock here")

    def find_marker_in_forum(self, forum_id: int, subject: str, marker: str) -> int | None:
        return None

    def find_marker_in_topic(self, topic_id: int, marker: str) -> int | None:
        return None

    def find_marker_in_sent(
        self, marker: str, *, subject: str | None = None, recipients: Sequence[str] = ()
    ) -> int | None:
        return None


def test_the_plan_is_this_pm_and_the_next_ones_still_due(day: Played) -> None:
    letters = queue_pms(day, [["A"], ["B"], ["C"], ["D"], ["E"]])
    day.store.sent(letters[2].marker, "9")  # C went out earlier: nothing to prepare for it
    topic = Letter("fbm" + "0" * 24, "topic", ["4"], "t", "body")
    writer = Recorder()
    box = Outbox(day.store, game_id(day), writer, ahead=2)
    done: list[Delivery] = []
    plan = [letters[0], topic, *letters[1:]]
    for n, letter in enumerate(plan):
        done.append(box.deliver(letter, upcoming=plan[n + 1 :]))
    assert [d.how for d in done] == ["sent", "sent", "sent", "skipped", "sent", "sent"]
    assert writer.calls == [
        ("prepare", "A", "B", "D"),
        ("send", "A"),
        ("prepare", "B", "D"),  # a topic's turn: the PMs after it
        ("topic", "4"),
        ("prepare", "B", "D", "E"),
        ("send", "B"),
        ("prepare", "D", "E"),
        ("send", "D"),
        ("prepare", "E"),
        ("send", "E"),
    ]


def test_without_upcoming_letters_or_with_none_ahead_nothing_is_prepared_early(day: Played) -> None:
    letters = queue_pms(day, [["A"], ["B"]])
    writer = Recorder()
    Outbox(day.store, game_id(day), writer, ahead=0).flush()
    assert writer.calls == [("send", "A"), ("send", "B")]
    more = queue_pms(day, [["C"]]) + letters
    writer.calls.clear()
    Outbox(day.store, game_id(day), writer).deliver(more[0])
    assert writer.calls == [("prepare", "C"), ("send", "C")]
