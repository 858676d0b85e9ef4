"""The one outbox: every post, PM and lock delivered exactly once (intend, send, confirm, find after a
crash), refusals set aside, markers nobody can forge, and the state file's side of it (the migration of
the old publications, the holder's heartbeat)."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from forumbot import store as store_module
from forumbot.errors import ForumUnavailable, MaybeSent, NoPermission
from forumbot.forum.poster import LockResult
from forumbot.host.outbox import Outbox, markers_for, strip_markers, with_marker
from forumbot.store import MIGRATIONS, Letter, Store


class Board:
    """A writer that records what it made; `fail` decides, per call, to raise instead."""

    username = "bot"

    def __init__(self) -> None:
        self.made: list[tuple[str, tuple[str, ...], str]] = []
        self.fail: dict[str, Exception] = {}
        self.acted_then_failed: set[str] = set()  # recipients whose PM is made, then the answer fails

    def _make(self, kind: str, to: tuple[str, ...], body: str) -> int:
        key = to[0]
        if key in self.fail:
            raise self.fail.pop(key)
        self.made.append((kind, to, body))
        if key in self.acted_then_failed:
            self.acted_then_failed.discard(key)
            raise MaybeSent(f"{key}: HTTP 503; the board may have acted on it")
        return len(self.made)

    def post_topic(self, forum_id: int, subject: str, message: str, *, marker: str | None = None) -> int:
        return self._make("topic", (str(forum_id),), message)

    def post_reply(self, topic: int | str, subject: str, message: str, *, marker: str | None = None) -> int:
        return self._make("reply", (str(topic),), message)

    def lock_topic(self, topic_id: int, forum_id: int | None = None) -> LockResult:
        self._make("lock", (str(topic_id),), "")
        return LockResult(locked=True)

    def send_pm(self, recipients: Sequence[str], subject: str, message: str, *, marker: str | None = None) -> int:
        return self._make("pm", tuple(recipients), message)

    def find_marker_in_forum(self, forum_id: int, subject: str, marker: str) -> int | None:
        return self._find("topic", marker)

    def find_marker_in_topic(self, topic_id: int, marker: str) -> int | None:
        return self._find("reply", marker)

    def find_marker_in_sent(
        self, marker: str, *, subject: str | None = None, recipients: Sequence[str] = ()
    ) -> int | None:
        for i, (kind, to, body) in enumerate(self.made, 1):
            if kind == "pm" and marker in body and set(to) & set(recipients):
                return i
        return None

    def _find(self, kind: str, marker: str) -> int | None:
        return next((i for i, (k, _, body) in enumerate(self.made, 1) if k == kind and marker in body), None)


@pytest.fixture
def store(tmp_path: Path) -> Store:
    s = Store(tmp_path / "state.db")
    s.create_game("g", "salon", {}, ["A", "B", "C"])
    return s


def pm(marks: Callable[..., str], to: str, text: str = "text") -> Letter:
    mark = marks("reply", to)
    return Letter(mark, "pm", [to], "s", with_marker(text, mark))


def test_each_letter_once_and_a_second_flush_sends_nothing(store: Store) -> None:
    board, game = Board(), store.game("g").id
    marks = markers_for(store.marker_key(game))
    store.queue(game, [pm(marks, "A"), pm(marks, "B")])
    assert [d.how for d in Outbox(store, game, board).flush()] == ["sent", "sent"]
    assert Outbox(store, game, board).flush() == []
    assert [to for _, to, _ in board.made] == [("A",), ("B",)]


def test_a_permanent_refusal_is_set_aside_and_the_rest_goes_on(store: Store) -> None:
    board, game = Board(), store.game("g").id
    marks = markers_for(store.marker_key(game))
    store.queue(game, [pm(marks, "A"), pm(marks, "B"), pm(marks, "C")])
    board.fail["A"] = NoPermission("the account of A was deleted")
    done = Outbox(store, game, board).flush()
    assert [d.how for d in done] == ["refused", "sent", "sent"]
    assert store.letter(done[0].letter.marker).status == "refused"  # type: ignore[union-attr]
    assert Outbox(store, game, board).flush() == []  # set aside: never tried again by itself


def test_a_passing_fault_keeps_the_order_and_the_next_flush_goes_on(store: Store) -> None:
    board, game = Board(), store.game("g").id
    marks = markers_for(store.marker_key(game))
    store.queue(game, [pm(marks, "A"), pm(marks, "B")])
    board.fail["A"] = ForumUnavailable("the forum is down")
    with pytest.raises(ForumUnavailable):
        Outbox(store, game, board).flush()
    assert board.made == []
    assert [d.how for d in Outbox(store, game, board).flush()] == ["sent", "sent"]


def test_a_letter_the_board_made_before_failing_is_found_not_sent_again(store: Store) -> None:
    board, game = Board(), store.game("g").id
    marks = markers_for(store.marker_key(game))
    store.queue(game, [pm(marks, "A")])
    board.acted_then_failed.add("A")
    with pytest.raises(MaybeSent):
        Outbox(store, game, board).flush()
    assert [d.how for d in Outbox(store, game, board).flush()] == ["recovered"]
    assert len(board.made) == 1


def test_markers_come_from_the_games_secret(store: Store, tmp_path: Path) -> None:
    key = store.marker_key(store.game("g").id)
    assert key == store.marker_key(store.game("g").id) and len(key) == 64
    other = Store(tmp_path / "other.db")
    other.create_game("g", "salon", {}, ["A"])
    assert markers_for(key)("reply", 1, "A") != markers_for(other.marker_key(other.game("g").id))("reply", 1, "A")
    assert markers_for(key)("reply", 1, "A") == markers_for(key)("reply", 1, "A")


def test_a_relayed_letter_carrying_a_marker_proves_nothing(store: Store) -> None:
    board, game = Board(), store.game("g").id
    marks = markers_for(store.marker_key(game))
    check = pm(marks, "A", "Результат проверки")
    # B got hold of the marker and mails C a letter with it: the relay strips it, and a PM to C is no
    # PM to A anyway
    relayed = strip_markers(f"привет {check.marker}")
    assert check.marker not in relayed
    board.made.append(("pm", ("C",), f"Письмо от B: {check.marker}"))
    store.queue(game, [check])
    store.sending(check.marker)  # as if a crash came right after the send began
    assert [d.how for d in Outbox(store, game, board).flush()] == ["sent"]
    assert [to for _, to, _ in board.made] == [("C",), ("A",)]


def test_the_old_publications_move_into_the_outbox(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    db = sqlite3.connect(path, isolation_level=None)
    for script in MIGRATIONS[:4]:
        for statement in script.split(";"):
            if statement.strip():
                db.execute(statement)
    db.execute("PRAGMA user_version = 4")
    db.execute("INSERT INTO games (id, name, variant, config_json, created_at) VALUES (1, 'g', 'salon', '{}', 'x')")
    db.execute(
        "INSERT INTO publications VALUES (1, 1, 'fbmaaaaaaaaaaaaaaaaaaaaaaaa', 'topic', NULL, 'done', '17', 't')"
    )
    db.execute(
        "INSERT INTO publications VALUES (1, 1, 'fbmbbbbbbbbbbbbbbbbbbbbbbbb', 'pm', 'A', 'intended', NULL, 't')"
    )
    db.close()
    store = Store(path)
    done = store.letter("fbmaaaaaaaaaaaaaaaaaaaaaaaa")
    begun = store.letter("fbmbbbbbbbbbbbbbbbbbbbbbbbb")
    assert done is not None and (done.status, done.remote_id, done.origin) == ("sent", "17", "publish")
    assert begun is not None and (begun.status, begun.recipients) == ("sending", ["A"])  # looked for first


def test_a_holder_keeps_saying_it_is_alive(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    from datetime import timedelta

    monkeypatch.setattr(store_module, "HEARTBEAT", timedelta(seconds=0.05))
    game = store.game("g").id
    seen: list[str] = []
    with store.exclusive(game, "publish"):
        first = store.db.execute("SELECT at FROM locks WHERE game_id = ?", (game,)).fetchone()[0]
        store.db.execute("UPDATE locks SET at = '2000-01-01T00:00:00+00:00' WHERE game_id = ?", (game,))
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            now = store.db.execute("SELECT at FROM locks WHERE game_id = ?", (game,)).fetchone()[0]
            if now != "2000-01-01T00:00:00+00:00":
                seen.append(now)
                break
            time.sleep(0.02)
    assert first and seen  # the beat wrote over the old stamp
    assert threading.active_count() >= 1


def test_a_post_held_for_approval_is_set_aside_not_posted_again(store: Store) -> None:
    from forumbot.errors import HeldForApproval

    board, game = Board(), store.game("g").id
    marks = markers_for(store.marker_key(game))
    store.queue(game, [pm(marks, "A"), pm(marks, "B")])
    board.fail["A"] = HeldForApproval("the forum holds the post for a moderator's approval")
    assert [d.how for d in Outbox(store, game, board).flush()] == ["refused", "sent"]
    assert Outbox(store, game, board).flush() == [] and [to for _, to, _ in board.made] == [("B",)]


def test_what_an_older_version_sent_is_not_sent_again_though_queued_anew(store: Store) -> None:
    board, game = Board(), store.game("g").id
    old = Letter("fbmolderolderolderolderolde", "pm", ["A"], "s", "old body")
    store.queue(game, [old])
    store.sent(old.marker, "7")
    marks = markers_for(store.marker_key(game))
    again = pm(marks, "A")
    store.queue(game, [again])  # the same letter under today's marker, queued before the check
    done = Outbox(store, game, board).deliver(again, aliases=[old.marker])
    assert (done.how, done.remote_id) == ("skipped", "7") and board.made == []


def test_markers_are_looked_up_in_their_own_game_only(store: Store) -> None:
    other = store.create_game("h", "salon", {}, ["A"])
    shared = Letter("fbmsharedsharedsharedshared", "pm", ["A"], "s", "body")
    store.queue(other, [shared])
    store.sent(shared.marker, "1")
    board = Board()
    done = Outbox(store, store.game("g").id, board).deliver(
        Letter("fbmnewnewnewnewnewnewnewnewn", "pm", ["A"], "s", "fbmnewnewnewnewnewnewnewnewn"),
        aliases=[shared.marker],
    )
    assert done.how == "sent" and len(board.made) == 1  # game h's letter says nothing of game g's
