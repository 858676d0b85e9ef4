"""The state file: private, versioned, transactional, several games."""

from __future__ import annotations

import json
import sqlite3
import stat
from datetime import UTC, datetime
from pathlib import Path

import pytest

from forumbot.draft import DayDraft, OrderRow
from forumbot.engine import deal
from forumbot.engine.model import Reason
from forumbot.errors import StateError
from forumbot.store import MIGRATIONS, Store


def test_a_new_state_file_is_private_wal_and_at_the_latest_schema(tmp_path: Path) -> None:
    store = Store(tmp_path / "state.db")
    assert stat.S_IMODE((tmp_path / "state.db").stat().st_mode) == 0o600
    assert store.schema_version == len(MIGRATIONS)
    assert store.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_several_games_in_one_file_and_unknown_names_are_clear(tmp_path: Path) -> None:
    store = Store(tmp_path / "state.db")
    store.create_game("Мафия-1", "salon", {"x": 1}, ["A", "B"])
    store.create_game("Мафия-2", "gameru-3.3", {}, ["C"])
    assert store.players(store.game("Мафия-1").id) == ["A", "B"]
    with pytest.raises(StateError, match="unknown game 'Мафия-3'.*Мафия-1, Мафия-2"):
        store.game("Мафия-3")
    with pytest.raises(StateError, match="already exists"):
        store.create_game("Мафия-1", "salon", {}, [])


def test_a_failed_transaction_leaves_the_old_state(tmp_path: Path) -> None:
    store = Store(tmp_path / "state.db")
    game_id = store.create_game("g", "salon", {}, ["A"])
    with pytest.raises(RuntimeError):
        with store.transaction() as db:
            db.execute("DELETE FROM players WHERE game_id = ?", (game_id,))
            raise RuntimeError("crash between two writes")
    assert store.players(game_id) == ["A"]


def test_draft_approval_and_advance(tmp_path: Path) -> None:
    store = Store(tmp_path / "state.db")
    game_id = store.create_game("g", "salon", {}, ["A", "B", "C", "D"])
    state = deal("salon", ["A", "B", "C", "D"], 1)
    store.save_deal(game_id, state, "salt", "hash")
    with pytest.raises(StateError, match="already dealt"):
        store.save_deal(game_id, state, "salt", "hash")
    now = datetime(2026, 11, 29, tzinfo=UTC)
    store.open_day(game_id, 1, now, now, "2")
    with pytest.raises(StateError, match="no draft"):
        store.approve_draft(game_id, 2, "mod")
    store.save_draft(game_id, 1, DayDraft(day=1, state=state, bbcode="one"))
    store.approve_draft(game_id, 1, "Модератор")
    stored = store.draft(game_id, 1)
    assert stored is not None and stored.approved_by == "Модератор" and stored.draft.bbcode == "one"
    store.save_draft(game_id, 1, DayDraft(day=1, state=state, bbcode="two"))  # a new draft needs a new approval
    stored = store.draft(game_id, 1)
    assert stored is not None and stored.approved_by is None and stored.draft.bbcode == "two"
    store.advance(game_id, 1, state.model_copy(update={"day": 2}), {"deaths": {}})
    advanced = store.game("g").state
    assert advanced is not None and advanced.day == 2
    day1 = store.day(game_id, 1)
    assert day1 is not None and day1["status"] == "done"


def test_a_file_that_is_not_a_database_is_a_state_error(tmp_path: Path) -> None:
    path = tmp_path / "junk.db"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StateError, match="not a forumbot state file"):
        Store(path)


def test_a_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    Store(path).close()
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 1}")
    db.close()
    with pytest.raises(StateError, match="newer forumbot"):
        Store(path)


def test_an_older_state_file_is_upgraded_in_place(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    db = sqlite3.connect(path)
    for statement in MIGRATIONS[0].split(";"):
        if statement.strip():
            db.execute(statement)
    db.execute("INSERT INTO games (name, variant, config_json, created_at) VALUES ('g', 'salon', '{}', 'x')")
    db.execute("PRAGMA user_version = 1")
    db.commit()
    db.close()
    store = Store(path)
    assert store.schema_version == len(MIGRATIONS)
    assert store.game("g").dealt_json is None


def test_one_process_at_a_time_writes_to_the_forum_for_a_game(tmp_path: Path) -> None:
    import socket

    store = Store(tmp_path / "state.db")
    game_id = store.create_game("g", "salon", {}, ["A"])
    host = socket.gethostname()

    def held_by(pid: int, at: str) -> None:
        store.db.execute("INSERT OR REPLACE INTO locks VALUES (?, ?, ?, 'publish', ?)", (game_id, pid, host, at))

    with store.exclusive(game_id, "watch"):
        with store.exclusive(game_id, "publish"):  # the same process may enter again (watch -> publish)
            pass
        assert store.db.execute("SELECT COUNT(*) FROM locks").fetchone()[0] == 1
    assert store.db.execute("SELECT COUNT(*) FROM locks").fetchone()[0] == 0
    held_by(1, datetime.now(UTC).isoformat())  # a living process (init), just now
    with pytest.raises(StateError, match="another forumbot \\(publish, process 1"):
        with store.exclusive(game_id, "watch"):
            pass
    held_by(1, "2026-01-01T00:00:00+00:00")  # silent for long: taken over
    with store.exclusive(game_id, "watch"):
        pass
    held_by(2**22 + 12345, datetime.now(UTC).isoformat())  # a process that is gone: taken over
    with store.exclusive(game_id, "watch"):
        pass


def test_a_draft_stored_by_an_earlier_version_loads_with_its_audit_rows_typed(tmp_path: Path) -> None:
    """Earlier versions stored the audit rows as the dicts they were made as: in their key order, `why` as JSON,
    a PM's id as a key of its own, and keys no version reads now; the draft loads and keeps them."""
    store = Store(tmp_path / "state.db")
    game_id = store.create_game("g", "salon", {}, ["A", "B", "C", "D"])
    state = deal("salon", ["A", "B", "C", "D"], 1)
    store.save_deal(game_id, state, "salt", "hash")
    now = datetime(2026, 11, 29, tzinfo=UTC)
    store.open_day(game_id, 1, now, now, "2")
    why = {"code": "target_replaced", "nick": "B", "other": "E"}
    old = {
        "day": 1,
        "votes": [
            {
                "post_id": 7,
                "voter": "A",
                "target": "B",
                "time": "2026-11-29T10:00:00+03:00",
                "counted": True,
                "reason": None,
                "text": "B",
                "nearest": None,
                "edited_by": None,
                "link": "p7",
                "channel": "thread",
            },
            {
                "voter": "C",
                "target": "E",
                "time": None,
                "link": "pm:3",
                "channel": "pm",
                "counted": False,
                "reason": "unknown_nick",
                "why": why,
                "weight": 2,
            },
        ],
        "orders": [
            {
                "actor": "D",
                "action": None,
                "targets": [],
                "link": "pm:4",
                "valid": False,
                "reason": "no_order",
                "time": "2026-11-29T11:00:00+03:00",
                "pm_id": 4,
            },
        ],
        "overrides": [{"kind": "ignore_post", "subject": "7", "value": None, "reason": "r", "by": "m"}],
        "activity": {"A": {"posts": 1, "orders": 0}},
        "state": state.model_dump(mode="json"),
    }
    store.db.execute(
        "INSERT INTO drafts (game_id, day, payload_json, created_at) VALUES (?, 1, ?, ?)",
        (game_id, json.dumps(old), now.isoformat()),
    )
    stored = store.draft(game_id, 1)
    assert stored is not None
    thread, pm = stored.draft.votes
    assert (thread.post_id, thread.counted, thread.channel) == (7, True, "thread")
    assert pm.why == Reason(code="target_replaced", nick="B", other="E") and pm.get("weight") == 2
    [order] = stored.draft.orders
    assert (order.pm_id, order.reason, order.time) == (4, "no_order", "2026-11-29T11:00:00+03:00")
    assert stored.draft.overrides[0].at is None and stored.draft.activity["A"].posts == 1
    store.save_draft(game_id, 1, stored.draft)  # stored again: what the earlier version wrote is kept
    again = store.draft(game_id, 1)
    assert again is not None and again.draft.to_json() == stored.draft.to_json()
    assert again.draft.to_json()["votes"][1]["weight"] == 2


def test_an_audit_row_lists_the_fields_it_was_made_with() -> None:
    row = OrderRow(actor="D", action=None, targets=[], link=None, valid=False, reason="no_order", pm_id=4)
    assert row.as_made() == {
        "actor": "D",
        "action": None,
        "targets": [],
        "link": None,
        "valid": False,
        "reason": "no_order",
        "pm_id": 4,
    }
    row.time = "2026-11-29T11:00:00+03:00"
    assert row.as_made()["time"] == "2026-11-29T11:00:00+03:00" and "line" not in row.as_made()
