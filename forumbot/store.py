"""The state file: one SQLite database (WAL, mode 0600), the only user of sqlite3 in forumbot.

Several games live in one file. The schema is versioned (`PRAGMA user_version`) and upgraded by the
ordered MIGRATIONS below; every write happens inside a transaction, so a crash leaves either the old
or the new state, never half of one.
"""

from __future__ import annotations

import functools
import json
import os
import secrets
import socket
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Literal

from forumbot.draft import DayDraft, OverrideRow, StoredDraft
from forumbot.engine.model import GameState
from forumbot.errors import GameBusy, StateError
from forumbot.i18n import N_

MIGRATIONS: tuple[str, ...] = (
    # 1: games, days, drafts, overrides, publications, page cache
    """
    CREATE TABLE games (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        variant TEXT NOT NULL,
        config_json TEXT NOT NULL,
        state_json TEXT,              -- the engine's GameState: secret roles live here
        seed INTEGER,
        salt TEXT,                    -- revealed with the role list at the end (commitment)
        commitment TEXT,
        created_at TEXT NOT NULL
    );
    CREATE TABLE players (
        game_id INTEGER NOT NULL REFERENCES games(id),
        position INTEGER NOT NULL,
        nick TEXT NOT NULL,
        PRIMARY KEY (game_id, nick)
    );
    CREATE TABLE days (
        game_id INTEGER NOT NULL REFERENCES games(id),
        day INTEGER NOT NULL,
        topic TEXT,
        starts_at TEXT NOT NULL,
        deadline TEXT NOT NULL,
        status TEXT NOT NULL DEFAULT 'open',   -- open | drafted | done
        result_json TEXT,
        PRIMARY KEY (game_id, day)
    );
    CREATE TABLE drafts (
        game_id INTEGER NOT NULL REFERENCES games(id),
        day INTEGER NOT NULL,
        payload_json TEXT NOT NULL,    -- outcome, audit (votes, orders, activity), new state
        created_at TEXT NOT NULL,
        approved_by TEXT,
        approved_at TEXT,
        PRIMARY KEY (game_id, day)
    );
    CREATE TABLE overrides (
        id INTEGER PRIMARY KEY,
        game_id INTEGER NOT NULL REFERENCES games(id),
        day INTEGER NOT NULL,
        kind TEXT NOT NULL,            -- count_post | ignore_post | set_vote | clear_vote | set_order | clear_order
        subject TEXT NOT NULL,         -- post id or player nick
        value TEXT,
        reason TEXT NOT NULL,
        by TEXT NOT NULL,
        at TEXT NOT NULL
    );
    CREATE TABLE publications (
        game_id INTEGER NOT NULL REFERENCES games(id),
        day INTEGER NOT NULL,
        marker TEXT NOT NULL UNIQUE,   -- written into the post/PM, looked for after a crash
        kind TEXT NOT NULL,            -- topic | pm | lock
        recipient TEXT,
        status TEXT NOT NULL,          -- intended | done
        remote_id TEXT,
        at TEXT NOT NULL
    );
    -- parsed topic pages (forum/cache.py's algorithm, its rows kept here)
    CREATE TABLE IF NOT EXISTS page_cache (
        forum TEXT NOT NULL,
        topic TEXT NOT NULL,
        page INTEGER NOT NULL,
        fetched_at TEXT NOT NULL,
        post_ids TEXT NOT NULL,
        edit_state TEXT NOT NULL,
        json TEXT NOT NULL,
        PRIMARY KEY (forum, topic, page)
    );
    """,
    # 2: the roles as dealt, kept apart from the evolving state (heirs, new sheriffs) for the final reveal
    """
    ALTER TABLE games ADD COLUMN dealt_json TEXT;
    """,
    # 3: watch mode: PMs handled once, players' settings, relays, receipts counted, interim vote counts
    """
    CREATE TABLE handled_pms (
        game_id INTEGER NOT NULL REFERENCES games(id),
        pm_id INTEGER NOT NULL,
        sender TEXT NOT NULL,
        kind TEXT NOT NULL,            -- orders | commands | relay | signup | other
        at TEXT NOT NULL,
        PRIMARY KEY (game_id, pm_id)
    );
    CREATE TABLE player_settings (
        game_id INTEGER NOT NULL REFERENCES games(id),
        nick TEXT NOT NULL,
        gender TEXT,
        afterlife TEXT,
        leaving INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (game_id, nick)
    );
    CREATE TABLE relays (
        id INTEGER PRIMARY KEY,
        game_id INTEGER NOT NULL REFERENCES games(id),
        day INTEGER NOT NULL,
        pm_id INTEGER NOT NULL,
        sender TEXT NOT NULL,
        kind TEXT NOT NULL,
        recipients TEXT NOT NULL,
        status TEXT NOT NULL,          -- sent | refused: reason
        at TEXT NOT NULL
    );
    CREATE TABLE order_counts (
        game_id INTEGER NOT NULL REFERENCES games(id),
        day INTEGER NOT NULL,
        actor TEXT NOT NULL,
        action TEXT NOT NULL,
        valid INTEGER NOT NULL,
        PRIMARY KEY (game_id, day, actor, action)
    );
    CREATE TABLE vote_counts (
        game_id INTEGER NOT NULL REFERENCES games(id),
        day INTEGER NOT NULL,
        at TEXT NOT NULL,
        posts INTEGER NOT NULL,
        counts_json TEXT NOT NULL
    );
    -- what the bot has to send, queued in the same transaction as the decision to send it
    CREATE TABLE outbox (
        marker TEXT PRIMARY KEY,
        game_id INTEGER NOT NULL REFERENCES games(id),
        kind TEXT NOT NULL,            -- pm | reply
        recipients TEXT NOT NULL,      -- JSON list of nicks, or the topic for a reply
        subject TEXT NOT NULL,
        body TEXT NOT NULL,
        status TEXT NOT NULL,          -- pending | sending (cut off: look on the forum first) | sent
        queued_at TEXT NOT NULL,
        sent_at TEXT
    );
    """,
    # 4: one forumbot process at a time writes to the forum for a game (publish, watch)
    """
    CREATE TABLE locks (
        game_id INTEGER PRIMARY KEY REFERENCES games(id),
        pid INTEGER NOT NULL,
        host TEXT NOT NULL,
        what TEXT NOT NULL,
        at TEXT NOT NULL
    );
    """,
    # 5: one outbox for everything the bot writes (publish's topics, PMs and locks join the watch's
    # answers), and a per-game secret from which the markers are made, so that no player can forge one
    """
    ALTER TABLE games ADD COLUMN marker_key TEXT;
    ALTER TABLE outbox ADD COLUMN day INTEGER;
    ALTER TABLE outbox ADD COLUMN remote_id TEXT;
    ALTER TABLE outbox ADD COLUMN error TEXT;
    ALTER TABLE outbox ADD COLUMN origin TEXT NOT NULL DEFAULT 'watch';
    ALTER TABLE outbox ADD COLUMN purpose TEXT;
    INSERT OR IGNORE INTO outbox (marker, game_id, kind, recipients, subject, body, status, queued_at, sent_at,
                                  day, remote_id, origin, purpose)
        SELECT marker, game_id, kind, json_array(COALESCE(recipient, '')), '', '',
               CASE status WHEN 'done' THEN 'sent' ELSE 'sending' END, at,
               CASE status WHEN 'done' THEN at END, day, remote_id, 'publish',
               CASE WHEN kind = 'pm' AND day = 0 THEN 'role' ELSE kind END
        FROM publications;
    DROP TABLE publications;
    """,
    # 6: what the host's wing read from each cached page (a tally: its posts' red and bold fragments), kept
    # beside the page and valid while the page is the one it was made from (its digest), so that a re-tally
    # neither decodes nor reads again a page that did not change
    """
    ALTER TABLE page_cache ADD COLUMN digest TEXT;
    CREATE TABLE page_extracts (
        forum TEXT NOT NULL,
        topic TEXT NOT NULL,
        page INTEGER NOT NULL,
        kind TEXT NOT NULL,            -- what was extracted, and by which version of the extraction
        digest TEXT NOT NULL,          -- the cached page it was made from
        data TEXT NOT NULL,
        PRIMARY KEY (forum, topic, page, kind)
    );
    """,
    # 7: where a count of a topic stood after its first pages (each voter's counted vote), valid while those
    # pages are the ones it read, so that a re-tally reads on from there instead of counting the day again
    """
    CREATE TABLE count_states (
        forum TEXT NOT NULL,
        topic TEXT NOT NULL,
        count TEXT NOT NULL,           -- which count: a digest of its players, bounds and rules
        through_page INTEGER NOT NULL, -- it read the pages 1..through_page
        pages TEXT NOT NULL,           -- their digest, as cached when it read them
        data TEXT NOT NULL,
        at TEXT NOT NULL,
        PRIMARY KEY (forum, topic, count)
    );
    """,
    # 8: the outbox keeps what a letter waits for (a board that asked for a pause; answers that proved
    # nothing), the host's settlements of letters that wait or were set aside (who, why), and which letter
    # posted each interim count, so that a count the board handed back is made again from a fresh read
    """
    ALTER TABLE outbox ADD COLUMN not_before TEXT;
    ALTER TABLE outbox ADD COLUMN unproven INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE vote_counts ADD COLUMN marker TEXT;
    CREATE TABLE outbox_audit (
        id INTEGER PRIMARY KEY,
        game_id INTEGER NOT NULL REFERENCES games(id),
        marker TEXT NOT NULL,
        action TEXT NOT NULL,          -- retry | drop | done by hand
        reason TEXT NOT NULL,
        by TEXT NOT NULL,
        at TEXT NOT NULL
    );
    """,
    # 9: when the watch last read a day topic whole (every page fetched, so every edit seen), by the watch's
    # clock: its passes in between read only the new pages (host/watch.py); and the board's session of each
    # account (its cookies), which the next command resumes instead of logging in again
    """
    CREATE TABLE whole_reads (
        forum TEXT NOT NULL,
        topic TEXT NOT NULL,
        at TEXT NOT NULL,
        PRIMARY KEY (forum, topic)
    );
    CREATE TABLE board_sessions (
        forum TEXT NOT NULL,
        account TEXT NOT NULL,
        cookies TEXT NOT NULL,         -- JSON: [name, value, domain, path] of each cookie the board set
        at TEXT NOT NULL,
        PRIMARY KEY (forum, account)
    );
    """,
)
# What each reading method reads, for the message when a row of it is damaged.
_READS: dict[str, str] = {
    "game": "the games table",
    "game_names": "the games table",
    "players": "the players table",
    "day": "the days table",
    "draft": "the drafts table",
    "overrides": "the overrides table",
    "handled": "the handled_pms table",
    "handled_kinds": "the handled_pms table",
    "pending": "the outbox table",
    "letter": "the outbox table",
    "outbox": "the outbox table",
    "numbered_letter": "the outbox table",
    "letters": "the outbox table",
    "settlements": "the outbox_audit table",
    "published_on": "the outbox table",
    "marker_key": "the games table",
    "page_rows": "the page_cache table",
    "page_extracts": "the page_extracts table",
    "page_digests": "the page_cache table",
    "count_state": "the count_states table",
    "whole_read_at": "the whole_reads table",
    "board_session": "the board_sessions table",
    "setting": "the player_settings table",
    "genders": "the player_settings table",
    "leaving": "the player_settings table",
    "order_count": "the order_counts table",
    "relay_count": "the relays table",
    "relays": "the relays table",
    "last_vote_count": "the vote_counts table",
}


def state_fault(path: Path, exc: BaseException, doing: str) -> StateError:
    """An SQLite fault, or a stored value that does not read, as one line that says what is wrong and where."""
    text = str(exc)
    lowered = text.lower()
    name = getattr(exc, "sqlite_errorname", "") or ""
    if isinstance(exc, sqlite3.Error):
        if name.startswith("SQLITE_FULL") or "disk is full" in lowered:
            why = "the disk is full: nothing of this change was written (free some space and run it again)"
        elif name.startswith("SQLITE_READONLY") or "readonly" in lowered or "read-only" in lowered:
            why = "the state file is read-only (or on a read-only disk): forumbot cannot write to it"
        elif "no such table" in lowered:
            why = f"the state file is damaged: table {text.split(':', 1)[-1].strip()} is missing"
        elif "no such column" in lowered or "malformed" in lowered or name.startswith("SQLITE_CORRUPT"):
            why = f"the state file is damaged ({text})"
        elif "file is not a database" in lowered or name.startswith("SQLITE_NOTADB"):
            why = "not a forumbot state file (not an SQLite database)"
        elif "locked" in lowered or "busy" in lowered:
            why = "the state file is busy: another process holds it; try again when it is done"
        elif "unable to open" in lowered or name.startswith("SQLITE_CANTOPEN"):
            why = "cannot open the state file (is its folder there, and may forumbot write in it?)"
        else:
            why = f"state file error: {text}"
        said = f"{path}: {why} ({doing})" if doing == "opening it" else f"{path}: {why}"
        passing = why.startswith("the state file is busy")
        return GameBusy(said) if passing else StateError(said)  # a busy file passes: the run is tried again
    errors = getattr(exc, "errors", None)
    if callable(errors):  # pydantic: the first problem, where it is
        first = errors()[0]
        where = ".".join(str(x) for x in first["loc"])
        text = f"{where}: {first['msg']}" if where else str(first["msg"])
    detail = text.splitlines()[0] if text else type(exc).__name__
    return StateError(f"{path}: the state file is damaged: {doing} holds a value that does not read ({detail})")


def _guarded(method: Callable[..., Any], reads: str) -> Callable[..., Any]:
    @functools.wraps(method)
    def guarded(self: Store, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except StateError:
            raise
        except sqlite3.Error as exc:
            raise state_fault(self.path, exc, f"reading {reads}") from None
        except ValueError as exc:  # invalid JSON, a state the engine does not accept, a date that is none
            raise state_fault(self.path, exc, reads) from None

    return guarded


STALE_LOCK = timedelta(minutes=10)  # a holder silent this long is taken over
HEARTBEAT = timedelta(seconds=60)  # how often a holder says it is alive

# A write that joins a larger transaction (see `Store.handle_pm` and `Store.queue`).
Change = Callable[[sqlite3.Connection], None]


def write_players(db: sqlite3.Connection, game_id: int, nicks: list[str]) -> None:
    db.execute("DELETE FROM players WHERE game_id = ?", (game_id,))
    db.executemany(
        "INSERT INTO players (game_id, position, nick) VALUES (?, ?, ?)", [(game_id, i, n) for i, n in enumerate(nicks)]
    )


def count_valid_orders(db: sqlite3.Connection, game_id: int, day: int, actor: str, action: str, n: int) -> None:
    db.execute(
        "INSERT INTO order_counts (game_id, day, actor, action, valid) VALUES (?, ?, ?, ?, ?) "
        "ON CONFLICT (game_id, day, actor, action) DO UPDATE SET valid = valid + excluded.valid",
        (game_id, day, actor, action, n),
    )


def write_approval(db: sqlite3.Connection, game_id: int, day: int, created_at: str, by: str) -> None:
    """Approve the day's draft, and only the draft made at `created_at` (one replaced since stays unapproved)."""
    db.execute(
        "UPDATE drafts SET approved_by = ?, approved_at = ? WHERE game_id = ? AND day = ? AND created_at = ?",
        (by, now_utc(), game_id, day, created_at),
    )


def write_override(
    db: sqlite3.Connection,
    game_id: int,
    day: int,
    kind: str,
    subject: str,
    value: str | None,
    reason: str,
    by: str,
) -> None:
    """A decision about the day, in its audit (who, why, when): an override, a power, a moved deadline, or
    one that changes no vote (a moderator's rejection of a draft, `value` None)."""
    db.execute(
        "INSERT INTO overrides (game_id, day, kind, subject, value, reason, by, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (game_id, day, kind, subject, value, reason, by, now_utc()),
    )


def write_setting(db: sqlite3.Connection, game_id: int, nick: str, key: str, value: object) -> None:
    if key not in ("gender", "afterlife", "leaving"):
        raise StateError(N_("unknown player setting {key!r}"), key=key)
    db.execute("INSERT OR IGNORE INTO player_settings (game_id, nick) VALUES (?, ?)", (game_id, nick))
    db.execute(f"UPDATE player_settings SET {key} = ? WHERE game_id = ? AND nick = ?", (value, game_id, nick))


def write_relay(
    db: sqlite3.Connection,
    game_id: int,
    day: int,
    pm_id: int,
    sender: str,
    kind: str,
    recipients: list[str],
    status: str,
    at: str,
) -> None:
    db.execute(
        "INSERT INTO relays (game_id, day, pm_id, sender, kind, recipients, status, at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (game_id, day, pm_id, sender, kind, json.dumps(recipients, ensure_ascii=False), status, at),
    )


def write_vote_count(
    db: sqlite3.Connection,
    game_id: int,
    day: int,
    at: str,
    posts: int,
    counts: dict[str, int],
    marker: str | None = None,
) -> None:
    """An interim count made (`marker`: the letter that posts it)."""
    db.execute(
        "INSERT INTO vote_counts (game_id, day, at, posts, counts_json, marker) VALUES (?, ?, ?, ?, ?, ?)",
        (game_id, day, at, posts, json.dumps(counts, ensure_ascii=False), marker),
    )


LetterStatus = Literal["pending", "sending", "sent", "refused", "dropped", "outdated"]
# What waits (to be sent, or looked for first), and what was set aside: what `forumbot outbox` lists.
WAITING: tuple[LetterStatus, ...] = ("pending", "sending")
SET_ASIDE: tuple[LetterStatus, ...] = ("refused",)


@dataclass(frozen=True)
class Letter:
    """One thing the bot writes to the forum: a topic, a reply, a PM or a lock, known by its marker.

    `recipients`: the PM's recipients; for a topic the forum id, for a reply or a lock the topic id.
    `status`: pending (decided, not sent) | sending (a send began and was not confirmed: look on the
    forum before sending again) | sent | refused (the forum refused it for good; `error` says why) |
    dropped (the host settled it: never sent) | outdated (a count the board handed back: made again).
    `not_before`: a board that refused it for now asked not to be asked before then; `unproven`: answers
    in a row that proved nothing (nothing found on the board after each); `number`: its row, as
    `forumbot outbox` numbers it."""

    marker: str
    kind: str  # topic | reply | pm | lock
    recipients: list[str]
    subject: str
    body: str
    day: int | None = None
    origin: str = "watch"  # publish | watch
    status: LetterStatus = "pending"
    remote_id: str | None = None
    error: str | None = None
    purpose: str | None = None  # publish's kind of publication: opening, role, topic, lock, check, reveal...
    not_before: str | None = None
    unproven: int = 0
    number: int | None = None

    @property
    def attempted(self) -> bool:
        """A send was started and never confirmed (a crash, or an answer that never came)."""
        return self.status == "sending"


_LETTER_COLUMNS = (
    "marker, kind, recipients, subject, body, day, origin, status, remote_id, error, purpose, not_before, unproven, "
    "rowid"
)


def _letter(row: tuple[Any, ...]) -> Letter:
    marker, kind, recipients, subject, body, day, origin, status, remote_id, error, purpose, *rest = row
    not_before, unproven, number = rest
    return Letter(
        marker,
        kind,
        json.loads(recipients),
        subject,
        body,
        day,
        origin,
        status,
        remote_id,
        error,
        purpose,
        not_before,
        int(unproven or 0),
        number,
    )


def _stale(pid: int, host: str, at: str, this_host: str) -> bool:
    """A lock whose process is gone (same machine), or that is older than STALE_LOCK."""
    if datetime.now(UTC) - datetime.fromisoformat(at) > STALE_LOCK:
        return True
    if host != this_host:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


# The moment stamped on what the state file records (a game, a draft, an approval, an override, a handled PM, a
# letter): the real clock, unless a command acts at a moment of its own (`--now`), set by `record_at` for the
# rest of the context (the command line runs each command in a context of its own).
_RECORDING_AT: ContextVar[datetime | None] = ContextVar("forumbot_recording_at", default=None)


def record_at(moment: datetime | None) -> None:
    """Stamp what is recorded from now on in this context with `moment` (None: the real clock)."""
    _RECORDING_AT.set(moment)


def real_now() -> str:
    """The real clock, for what only a living process means (a lock and its heartbeat), never a `--now`."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def now_utc() -> str:
    moment = _RECORDING_AT.get() or datetime.now(UTC)
    return moment.astimezone(UTC).isoformat(timespec="seconds")


@dataclass(frozen=True)
class GameRow:
    id: int
    name: str
    variant: str
    config: dict[str, Any]
    state: GameState | None
    seed: int | None
    salt: str | None
    commitment: str | None
    dealt_json: str | None = None


class Store:
    def __init__(self, path: Path | str, *, create: bool = True) -> None:
        """Open the state file. `create`: a missing file is made (new-game, and the page cache of a topic read
        outside any game); an existing file that is not a forumbot state file is refused either way, and
        never written into: an empty file, another program's database."""
        self.path = Path(path)
        existed = self.path.exists()
        if existed and self.path.is_file() and self.path.stat().st_size == 0:
            raise StateError(
                N_(
                    "{path}: the state file is empty (0 bytes), not a forumbot state file: nothing is "
                    "written into it (a state file is made by new-game where none exists; name the right one "
                    "with --state)"
                ),
                path=self.path,
            )
        if not existed and not create:
            raise StateError(
                N_("{path}: the state file does not exist (a game's first one is made by new-game)"), path=self.path
            )
        try:
            self._create_private(self.path)
        except OSError as exc:
            raise StateError(
                N_("{path}: cannot create the state file: {error}"), path=self.path, error=exc.strerror or exc
            ) from None
        try:
            self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            try:
                self._check_kind(fresh=not existed, create=create)
            except StateError:
                self.db.close()
                raise
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA foreign_keys=ON")
            self.db.execute("PRAGMA busy_timeout=5000")
            self._migrate()
        except sqlite3.Error as exc:
            raise state_fault(self.path, exc, "opening it") from None

    def _check_kind(self, *, fresh: bool, create: bool) -> None:
        """Before anything is written: a database without forumbot's schema is another program's (refused), or
        an empty one, which only `create` gives the schema."""
        if fresh or int(self.db.execute("PRAGMA user_version").fetchone()[0]) > 0:
            return
        tables = [row[0] for row in self.db.execute("SELECT name FROM sqlite_master WHERE type = 'table' LIMIT 3")]
        if tables:
            raise StateError(
                N_(
                    "{path}: not a forumbot state file (an SQLite database of something else, with tables "
                    "{names}): nothing is written into it"
                ),
                path=self.path,
                names=", ".join(tables),
            )
        if not create:
            raise StateError(
                N_("{path}: an empty database, not a forumbot state file yet (new-game makes one)"), path=self.path
            )

    @staticmethod
    def _create_private(path: Path) -> None:
        """The state holds secret roles: readable by its owner only, whoever created the file (forumbot, or
        a tool before it), and so are SQLite's journal files beside it."""
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            fd = os.open(path, os.O_CREAT | os.O_WRONLY, 0o600)
            os.close(fd)
        for file in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
            try:
                if file.stat().st_mode & 0o077:
                    file.chmod(0o600)
            except OSError:
                continue  # absent, or not ours to change: SQLite reports what matters when it opens it

    def close(self) -> None:
        self.db.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One transaction: all of it written, or none of it. An SQLite fault in it (a full disk, a read-only
        file) is a StateError that says what is wrong, the transaction rolled back."""
        try:
            self.db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise state_fault(self.path, exc, "starting a write") from None
        try:
            yield self.db
            self.db.execute("COMMIT")
        except BaseException as exc:
            self._rollback()
            if isinstance(exc, sqlite3.Error):
                raise state_fault(self.path, exc, "writing") from None
            raise

    def _rollback(self) -> None:
        """Undo the open transaction, if SQLite has not undone it itself (it may, on a full disk)."""
        if self.db.in_transaction:
            try:
                self.db.execute("ROLLBACK")
            except sqlite3.Error:
                pass  # the fault that brought us here is the one to report

    def _migrate(self) -> None:
        version = int(self.db.execute("PRAGMA user_version").fetchone()[0])
        if version > len(MIGRATIONS):
            raise StateError(N_("{path}: made by a newer forumbot (schema {version})"), path=self.path, version=version)
        for number, script in enumerate(MIGRATIONS[version:], start=version + 1):
            with self.transaction() as db:
                for statement in script.split(";"):
                    if statement.strip():
                        db.execute(statement)
                db.execute(f"PRAGMA user_version = {number}")

    @property
    def schema_version(self) -> int:
        return int(self.db.execute("PRAGMA user_version").fetchone()[0])

    # --- games ---------------------------------------------------------------------------------
    def create_game(self, name: str, variant: str, config: dict[str, Any], players: list[str]) -> int:
        with self.transaction() as db:
            if db.execute("SELECT 1 FROM games WHERE name = ?", (name,)).fetchone():
                raise StateError(N_("a game named {name!r} already exists in {path}"), name=name, path=self.path)
            cur = db.execute(
                "INSERT INTO games (name, variant, config_json, created_at) VALUES (?, ?, ?, ?)",
                (name, variant, json.dumps(config, ensure_ascii=False, default=str), now_utc()),
            )
            game_id = int(cur.lastrowid or 0)
            write_players(db, game_id, players)
        return game_id

    def game(self, name: str) -> GameRow:
        row = self.db.execute(
            "SELECT id, name, variant, config_json, state_json, seed, salt, commitment, dealt_json FROM games "
            "WHERE name = ?",
            (name,),
        ).fetchone()
        if row is None:
            known = self.game_names()
            if known:
                raise StateError(
                    N_("unknown game {name!r} in {path}; games here: {games}"),
                    name=name,
                    path=self.path,
                    games=", ".join(known),
                )
            raise StateError(
                N_("unknown game {name!r} in {path}; no games yet (forumbot new-game CONFIG)"),
                name=name,
                path=self.path,
            )
        state = GameState.model_validate_json(row[4]) if row[4] else None
        return GameRow(row[0], row[1], row[2], json.loads(row[3]), state, row[5], row[6], row[7], row[8])

    def game_names(self) -> list[str]:
        return [r[0] for r in self.db.execute("SELECT name FROM games ORDER BY id")]

    def players(self, game_id: int) -> list[str]:
        rows = self.db.execute("SELECT nick FROM players WHERE game_id = ? ORDER BY position", (game_id,))
        return [r[0] for r in rows]

    def set_players(self, game_id: int, nicks: list[str]) -> None:
        with self.transaction() as db:
            write_players(db, game_id, nicks)

    def save_deal(self, game_id: int, state: GameState, salt: str, commitment: str) -> None:
        with self.transaction() as db:
            if db.execute("SELECT state_json FROM games WHERE id = ?", (game_id,)).fetchone()[0]:
                raise StateError(N_("roles are already dealt for this game"))
            db.execute(
                "UPDATE games SET state_json = ?, dealt_json = ?, seed = ?, salt = ?, commitment = ? WHERE id = ?",
                (state.model_dump_json(), state.model_dump_json(), state.seed, salt, commitment, game_id),
            )

    # --- days ----------------------------------------------------------------------------------
    def open_day(self, game_id: int, day: int, starts_at: datetime, deadline: datetime, topic: str | None) -> None:
        with self.transaction() as db:
            db.execute(
                "INSERT OR REPLACE INTO days (game_id, day, topic, starts_at, deadline, status) "
                "VALUES (?, ?, ?, ?, ?, 'open')",
                (game_id, day, topic, starts_at.isoformat(), deadline.isoformat()),
            )

    def day(self, game_id: int, day: int) -> dict[str, Any] | None:
        row = self.db.execute(
            "SELECT day, topic, starts_at, deadline, status, result_json FROM days WHERE game_id = ? AND day = ?",
            (game_id, day),
        ).fetchone()
        if row is None:
            return None
        return {
            "day": row[0],
            "topic": row[1],
            "starts_at": datetime.fromisoformat(row[2]),
            "deadline": datetime.fromisoformat(row[3]),
            "status": row[4],
            "result": json.loads(row[5]) if row[5] else None,
        }

    def set_day_topic(self, game_id: int, day: int, topic: str) -> None:
        with self.transaction() as db:
            db.execute("UPDATE days SET topic = ? WHERE game_id = ? AND day = ?", (topic, game_id, day))

    # --- drafts --------------------------------------------------------------------------------
    def save_draft(self, game_id: int, day: int, draft: DayDraft) -> None:
        """Replace the day's draft (and its approval: a new draft needs a new approval)."""
        with self.transaction() as db:
            db.execute(
                "INSERT OR REPLACE INTO drafts (game_id, day, payload_json, created_at) VALUES (?, ?, ?, ?)",
                (game_id, day, json.dumps(draft.to_json(), ensure_ascii=False), now_utc()),
            )
            db.execute("UPDATE days SET status = 'drafted' WHERE game_id = ? AND day = ?", (game_id, day))

    def draft(self, game_id: int, day: int) -> StoredDraft | None:
        row = self.db.execute(
            "SELECT payload_json, created_at, approved_by, approved_at FROM drafts WHERE game_id = ? AND day = ?",
            (game_id, day),
        ).fetchone()
        if row is None:
            return None
        return StoredDraft(DayDraft.model_validate_json(row[0]), row[1], row[2], row[3])

    def approve_draft(self, game_id: int, day: int, by: str) -> None:
        with self.transaction() as db:
            cur = db.execute(
                "UPDATE drafts SET approved_by = ?, approved_at = ? WHERE game_id = ? AND day = ?",
                (by, now_utc(), game_id, day),
            )
            if cur.rowcount == 0:
                raise StateError(N_("day {day} has no draft to approve (run end-day first)"), day=day)

    def advance(
        self,
        game_id: int,
        day: int,
        state: GameState,
        result: dict[str, Any],
        next_day: tuple[datetime, datetime, str | None] | None = None,
    ) -> None:
        """Record the day's result and the new game state, and open the next day, in one transaction."""
        with self.transaction() as db:
            db.execute(
                "UPDATE days SET status = 'done', result_json = ? WHERE game_id = ? AND day = ?",
                (json.dumps(result, ensure_ascii=False), game_id, day),
            )
            db.execute("UPDATE games SET state_json = ? WHERE id = ?", (state.model_dump_json(), game_id))
            if next_day is not None:
                starts_at, deadline, topic = next_day
                db.execute(
                    "INSERT OR REPLACE INTO days (game_id, day, topic, starts_at, deadline, status) "
                    "VALUES (?, ?, ?, ?, ?, 'open')",
                    (game_id, day + 1, topic, starts_at.isoformat(), deadline.isoformat()),
                )

    # --- overrides -----------------------------------------------------------------------------
    def add_override(
        self, game_id: int, day: int, kind: str, subject: str, value: str | None, reason: str, by: str
    ) -> None:
        with self.transaction() as db:
            write_override(db, game_id, day, kind, subject, value, reason, by)

    def overrides(self, game_id: int, day: int) -> list[OverrideRow]:
        """The day's overrides in the order they were made."""
        rows = self.db.execute(
            "SELECT kind, subject, value, reason, by, at FROM overrides WHERE game_id = ? AND day = ? ORDER BY id",
            (game_id, day),
        )
        return [
            OverrideRow(kind=kind, subject=subject, value=value, reason=reason, by=by, at=at)
            for kind, subject, value, reason, by, at in rows
        ]

    def numbered_overrides(self, game_id: int, day: int) -> list[tuple[int, dict[str, Any]]]:
        """The day's overrides with their ids, in the order they were made."""
        rows = self.db.execute(
            "SELECT id, kind, subject, value, reason, by, at FROM overrides WHERE game_id = ? AND day = ? ORDER BY id",
            (game_id, day),
        )
        keys = ("kind", "subject", "value", "reason", "by", "at")
        return [(r[0], dict(zip(keys, r[1:], strict=True))) for r in rows]

    def remove_override(self, game_id: int, override_id: int) -> None:
        with self.transaction() as db:
            db.execute("DELETE FROM overrides WHERE game_id = ? AND id = ?", (game_id, override_id))

    def move_deadline(
        self,
        game_id: int,
        day: int,
        deadline: datetime,
        audit: tuple[str, str, str | None, str, str],
        news: list[Letter],
    ) -> None:
        """The day's new deadline, its audit row (kind, subject, value, reason, by) and its announcement, in
        one transaction: the deadline never moves unannounced."""
        kind, subject, value, reason, by = audit
        with self.transaction() as db:
            db.execute(
                "UPDATE days SET deadline = ? WHERE game_id = ? AND day = ?", (deadline.isoformat(), game_id, day)
            )
            write_override(db, game_id, day, kind, subject, value, reason, by)
            self._queue(db, game_id, news)

    def set_config(self, game_id: int, config: dict[str, Any], players: list[str] | None = None) -> None:
        """A game's config as the host changed it after new-game (and its players, before the deal)."""
        with self.transaction() as db:
            db.execute(
                "UPDATE games SET config_json = ? WHERE id = ?",
                (json.dumps(config, ensure_ascii=False, default=str), game_id),
            )
            if players is not None:
                write_players(db, game_id, players)

    # --- one writer per game ----------------------------------------------------------------------
    @contextmanager
    def exclusive(self, game_id: int, what: str) -> Iterator[None]:
        """Hold the game for this process while it writes to the forum (publish, a watch pass). The same
        process may enter again; a holder that died, or whose heartbeat stopped for STALE_LOCK, is taken
        over."""
        me, host = os.getpid(), socket.gethostname()
        with self.transaction() as db:
            row = db.execute("SELECT pid, host, what, at FROM locks WHERE game_id = ?", (game_id,)).fetchone()
            mine = row is not None and row[0] == me and row[1] == host
            if row is not None and not mine and not _stale(row[0], row[1], row[3], host):
                raise GameBusy(
                    N_(
                        "another forumbot ({value}, process {value2} on {value3}) is working on this game since "
                        "{value4}; try again when it is done"
                    ),
                    value=row[2],
                    value2=row[0],
                    value3=row[1],
                    value4=row[3],
                )
            if not mine:
                db.execute(
                    "INSERT OR REPLACE INTO locks (game_id, pid, host, what, at) VALUES (?, ?, ?, ?, ?)",
                    (game_id, me, host, what, real_now()),
                )
        if mine:
            yield
            return
        beating = threading.Event()
        heart = threading.Thread(target=self._heartbeat, args=(game_id, me, host, beating), daemon=True)
        heart.start()
        failed = True
        try:
            yield
            failed = False
        finally:
            beating.set()
            heart.join()
            try:
                with self.transaction() as db:
                    db.execute("DELETE FROM locks WHERE game_id = ? AND pid = ? AND host = ?", (game_id, me, host))
            except StateError:
                if not failed:  # a held lock that cannot be freed is worth telling; never over another error
                    raise

    def _heartbeat(self, game_id: int, pid: int, host: str, stop: threading.Event) -> None:
        """While the game is held, say so every HEARTBEAT seconds (on a connection of its own): a long
        publish (flood waits, a slow forum) is never taken for a dead one."""
        db = sqlite3.connect(self.path, isolation_level=None)
        try:
            db.execute("PRAGMA busy_timeout=5000")
            while not stop.wait(HEARTBEAT.total_seconds()):
                try:
                    db.execute(
                        "UPDATE locks SET at = ? WHERE game_id = ? AND pid = ? AND host = ?",
                        (real_now(), game_id, pid, host),
                    )
                except sqlite3.Error:
                    continue  # busy for a moment: the next beat will do
        finally:
            db.close()

    # --- watch mode --------------------------------------------------------------------------------
    def handled(self, game_id: int, pm_id: int) -> bool:
        row = self.db.execute("SELECT 1 FROM handled_pms WHERE game_id = ? AND pm_id = ?", (game_id, pm_id))
        return row.fetchone() is not None

    def handled_kinds(self, pm_id: int) -> dict[int, str]:
        """Every game that has handled this PM of the inbox, and as what (several games may read one inbox)."""
        rows = self.db.execute("SELECT game_id, kind FROM handled_pms WHERE pm_id = ?", (pm_id,))
        return {r[0]: r[1] for r in rows}

    def handle_pm(
        self,
        game_id: int,
        pm_id: int,
        sender: str,
        kind: str,
        outgoing: list[Letter],
        *,
        changes: Iterable[Change] = (),
    ) -> None:
        """Mark a PM handled, apply what it changes and queue the answers it needs, all at once."""
        with self.transaction() as db:
            db.execute(
                "INSERT INTO handled_pms (game_id, pm_id, sender, kind, at) VALUES (?, ?, ?, ?, ?)",
                (game_id, pm_id, sender, kind, now_utc()),
            )
            for change in changes:
                change(db)
            self._queue(db, game_id, outgoing)

    def queue(self, game_id: int, outgoing: list[Letter], changes: Iterable[Change] = ()) -> None:
        with self.transaction() as db:
            for change in changes:
                change(db)
            self._queue(db, game_id, outgoing)

    @staticmethod
    def _queue(db: sqlite3.Connection, game_id: int, outgoing: list[Letter]) -> None:
        db.executemany(
            "INSERT OR IGNORE INTO outbox (marker, game_id, kind, recipients, subject, body, status, queued_at, "
            "day, origin, purpose) VALUES (?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?)",
            [
                (
                    o.marker,
                    game_id,
                    o.kind,
                    json.dumps(o.recipients, ensure_ascii=False),
                    o.subject,
                    o.body,
                    now_utc(),
                    o.day,
                    o.origin,
                    o.purpose,
                )
                for o in outgoing
            ],
        )

    def pending(self, game_id: int, origin: str = "watch") -> list[Letter]:
        """What is queued and not yet sent (pending, or a send never confirmed), oldest first."""
        rows = self.db.execute(
            f"SELECT {_LETTER_COLUMNS} FROM outbox "
            "WHERE game_id = ? AND origin = ? AND status IN ('pending', 'sending') ORDER BY rowid",
            (game_id, origin),
        )
        return [_letter(r) for r in rows]

    def letter(self, marker: str, game_id: int | None = None) -> Letter | None:
        """The letter with this marker (of this game, when given)."""
        if game_id is None:
            row = self.db.execute(f"SELECT {_LETTER_COLUMNS} FROM outbox WHERE marker = ?", (marker,)).fetchone()
        else:
            row = self.db.execute(
                f"SELECT {_LETTER_COLUMNS} FROM outbox WHERE marker = ? AND game_id = ?", (marker, game_id)
            ).fetchone()
        return _letter(row) if row else None

    def sending(self, marker: str) -> None:
        with self.transaction() as db:
            db.execute("UPDATE outbox SET status = 'sending' WHERE marker = ?", (marker,))

    def sent(self, marker: str, remote_id: str | None = None) -> None:
        with self.transaction() as db:
            db.execute(
                "UPDATE outbox SET status = 'sent', sent_at = ?, remote_id = ?, error = NULL, not_before = NULL, "
                "unproven = 0 WHERE marker = ?",
                (now_utc(), remote_id, marker),
            )

    def refused(self, marker: str, error: str) -> None:
        """The forum refused this for good (an account gone, a topic closed to the bot): set aside."""
        with self.transaction() as db:
            db.execute(
                "UPDATE outbox SET status = 'refused', error = ?, not_before = NULL WHERE marker = ?", (error, marker)
            )

    def failed(self, marker: str, error: str, *, not_before: datetime | None = None, unproven: bool = False) -> int:
        """A send that failed for now; it stays due (and is looked for first if it may have arrived), not
        before `not_before` when the board asked for a pause. `unproven`: the board's answer proved nothing
        (and nothing was found): counted, in a row; returns that count."""
        when = not_before.isoformat(timespec="seconds") if not_before is not None else None
        with self.transaction() as db:
            db.execute(
                "UPDATE outbox SET error = ?, not_before = ?, unproven = CASE WHEN ? THEN unproven + 1 ELSE 0 END "
                "WHERE marker = ?",
                (error, when, unproven, marker),
            )
            row = db.execute("SELECT unproven FROM outbox WHERE marker = ?", (marker,)).fetchone()
        return int(row[0]) if row else 0

    def outdated(self, marker: str, error: str) -> None:
        """An interim count the board handed back (new posts since its read): never posted, and its count
        forgotten, so that the next one is made from a fresh read, in one transaction."""
        with self.transaction() as db:
            db.execute("UPDATE outbox SET status = 'outdated', error = ? WHERE marker = ?", (error, marker))
            db.execute("DELETE FROM vote_counts WHERE marker = ?", (marker,))

    def numbered_letter(self, game_id: int, number: int) -> Letter | None:
        """The game's letter numbered `number` (as `forumbot outbox` lists it)."""
        row = self.db.execute(
            f"SELECT {_LETTER_COLUMNS} FROM outbox WHERE game_id = ? AND rowid = ?", (game_id, number)
        ).fetchone()
        return _letter(row) if row else None

    def letters(self, game_id: int, statuses: Iterable[str] = ()) -> list[Letter]:
        """The game's letters (of these statuses; all when none are given), in the order they were queued."""
        wanted = list(statuses)
        where = f" AND status IN ({', '.join('?' * len(wanted))})" if wanted else ""
        rows = self.db.execute(
            f"SELECT {_LETTER_COLUMNS} FROM outbox WHERE game_id = ?{where} ORDER BY rowid", (game_id, *wanted)
        )
        return [_letter(r) for r in rows]

    def settle(
        self,
        game_id: int,
        marker: str,
        action: str,
        audit: tuple[str, str],
        *,
        status: LetterStatus,
        remote_id: str | None = None,
    ) -> None:
        """The host's settlement of a letter, with its audit row (`audit`: why, who), in one transaction:
        "retry" makes it due again, looked for first (`sending`); "drop" sets it aside for good
        (`dropped`), or records what was done by hand in its place (`sent`, `remote_id`)."""
        reason, by = audit
        with self.transaction() as db:
            db.execute(
                "UPDATE outbox SET status = ?, remote_id = COALESCE(?, remote_id), not_before = NULL, unproven = 0, "
                "error = CASE WHEN ? = 'sending' THEN NULL ELSE error END WHERE marker = ? AND game_id = ?",
                (status, remote_id, status, marker, game_id),
            )
            db.execute(
                "INSERT INTO outbox_audit (game_id, marker, action, reason, by, at) VALUES (?, ?, ?, ?, ?, ?)",
                (game_id, marker, action, reason, by, now_utc()),
            )

    def settlements(self, game_id: int) -> list[dict[str, Any]]:
        """The host's settlements of the game's letters, oldest first."""
        rows = self.db.execute(
            "SELECT marker, action, reason, by, at FROM outbox_audit WHERE game_id = ? ORDER BY id", (game_id,)
        )
        return [dict(zip(("marker", "action", "reason", "by", "at"), r, strict=True)) for r in rows]

    def outbox(self, game_id: int) -> list[dict[str, Any]]:
        rows = self.db.execute(f"SELECT {_LETTER_COLUMNS} FROM outbox WHERE game_id = ? ORDER BY rowid", (game_id,))
        keys = (
            "marker",
            "kind",
            "recipients",
            "subject",
            "body",
            "day",
            "origin",
            "status",
            "remote_id",
            "error",
            "purpose",
            "not_before",
            "unproven",
            "number",
        )
        return [dict(zip(keys, r, strict=True)) | {"recipients": json.loads(r[2])} for r in rows]

    def published_on(self, game_id: int, day: int, purposes: Iterable[str]) -> list[Letter]:
        """What publish has sent, or begun to send, of day `day`'s result (of these purposes)."""
        wanted = list(purposes)
        rows = self.db.execute(
            f"SELECT {_LETTER_COLUMNS} FROM outbox WHERE game_id = ? AND day = ? AND origin = 'publish' "
            f"AND status IN ('sending', 'sent') AND purpose IN ({', '.join('?' * len(wanted))}) ORDER BY rowid",
            (game_id, day, *wanted),
        )
        return [_letter(r) for r in rows]

    def marker_key(self, game_id: int) -> str:
        """The game's secret for its markers, made on first use and kept in the state file only."""
        row = self.db.execute("SELECT marker_key FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is not None and row[0]:
            return str(row[0])  # the common case: read, no write transaction
        with self.transaction() as db:
            row = db.execute("SELECT marker_key FROM games WHERE id = ?", (game_id,)).fetchone()
            if row is None:
                raise StateError(N_("{path}: no game with id {game_id}"), path=self.path, game_id=game_id)
            if row[0]:
                return str(row[0])
            key = secrets.token_hex(32)
            db.execute("UPDATE games SET marker_key = ? WHERE id = ?", (key, game_id))
            return key

    # --- the page cache (rows for forum/cache.py) ----------------------------------------------------
    def page_rows(self, forum: str, topic: str) -> list[tuple[int, str, str, str]]:
        rows = self.db.execute(
            "SELECT page, json, fetched_at, edit_state FROM page_cache WHERE forum = ? AND topic = ? ORDER BY page",
            (forum, topic),
        )
        return [(int(r[0]), r[1], r[2], r[3]) for r in rows]

    def page_states(self, forum: str, topic: str, from_page: int = 1) -> list[tuple[int, str]]:
        """(page, edit_state) of the cached pages from `from_page` on, by page: without the pages themselves."""
        rows = self.db.execute(
            "SELECT page, edit_state FROM page_cache WHERE forum = ? AND topic = ? AND page >= ? ORDER BY page",
            (forum, topic, from_page),
        )
        return [(int(r[0]), r[1]) for r in rows]

    def page_digests(self, forum: str, topic: str) -> list[tuple[int, str | None]]:
        """(page, digest) of every cached page of the topic, by page (None: cached before digests were kept)."""
        rows = self.db.execute(
            "SELECT page, digest FROM page_cache WHERE forum = ? AND topic = ? ORDER BY page", (forum, topic)
        )
        return [(int(r[0]), r[1]) for r in rows]

    def page_row(self, forum: str, topic: str, page: int) -> tuple[str, str, str] | None:
        """(json, fetched_at, edit_state) of one cached page."""
        row = self.db.execute(
            "SELECT json, fetched_at, edit_state FROM page_cache WHERE forum = ? AND topic = ? AND page = ?",
            (forum, topic, page),
        ).fetchone()
        return (row[0], row[1], row[2]) if row else None

    def put_page(
        self, forum: str, topic: str, page: int, fetched_at: str, post_ids: str, edit_state: str, data: str
    ) -> None:
        with self.transaction() as db:
            db.execute(
                "INSERT OR REPLACE INTO page_cache (forum, topic, page, fetched_at, post_ids, edit_state, json)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (forum, topic, page, fetched_at, post_ids, edit_state, data),
            )

    def put_pages(self, forum: str, topic: str, pages: Iterable[tuple[int, str, str, str, str, str]]) -> None:
        """Several pages of one topic, each (page, fetched_at, post_ids, edit_state, json, digest), in one
        transaction: a topic read commits once per batch of pages, not once per page."""
        with self.transaction() as db:
            db.executemany(
                "INSERT OR REPLACE INTO page_cache (forum, topic, page, fetched_at, post_ids, edit_state, json, digest)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [(forum, topic, *row) for row in pages],
            )

    def page_extracts(
        self, forum: str, topic: str, kind: str, from_page: int = 1, through: int | None = None
    ) -> list[tuple[int, str, str]]:
        """(page, digest, data) of the extracts `kind` still valid (made from the page as it is cached now) of
        the pages `from_page` to `through` (to the last one if None), by page."""
        rows = self.db.execute(
            "SELECT e.page, e.digest, e.data FROM page_extracts e JOIN page_cache c"
            " ON c.forum = e.forum AND c.topic = e.topic AND c.page = e.page AND c.digest = e.digest"
            " WHERE e.forum = ? AND e.topic = ? AND e.kind = ? AND e.page >= ? AND e.page <= ? ORDER BY e.page",
            (forum, topic, kind, from_page, through if through is not None else 1 << 62),
        )
        return [(int(r[0]), r[1], r[2]) for r in rows]

    def put_page_extracts(self, forum: str, topic: str, kind: str, extracts: Iterable[tuple[int, str, str]]) -> None:
        """Extracts `kind` of several pages, each (page, digest of the cached page, data), in one transaction."""
        with self.transaction() as db:
            db.executemany(
                "INSERT OR REPLACE INTO page_extracts (forum, topic, page, kind, digest, data)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                [(forum, topic, page, kind, digest, data) for page, digest, data in extracts],
            )

    def drop_pages_after(self, forum: str, topic: str, page: int) -> None:
        with self.transaction() as db:
            db.execute("DELETE FROM page_cache WHERE forum = ? AND topic = ? AND page > ?", (forum, topic, page))
            db.execute("DELETE FROM page_extracts WHERE forum = ? AND topic = ? AND page > ?", (forum, topic, page))
            db.execute(
                "DELETE FROM count_states WHERE forum = ? AND topic = ? AND through_page > ?", (forum, topic, page)
            )

    # --- what a count of a topic's first pages left (host/recount.py) ----------------------------------
    def count_state(self, forum: str, topic: str, count: str) -> tuple[int, str, str] | None:
        """(through, pages, data) of the count `count` of the topic: the pages 1..through it read (`pages`,
        their digest as cached then) and where it stood after them."""
        row = self.db.execute(
            "SELECT through_page, pages, data FROM count_states WHERE forum = ? AND topic = ? AND count = ?",
            (forum, topic, count),
        ).fetchone()
        return (int(row[0]), row[1], row[2]) if row else None

    def put_count_state(self, forum: str, topic: str, count: str, through: int, pages: str, data: str) -> None:
        with self.transaction() as db:
            db.execute(
                "INSERT OR REPLACE INTO count_states (forum, topic, count, through_page, pages, data, at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (forum, topic, count, through, pages, data, datetime.now(UTC).isoformat()),
            )

    # --- the board's session of an account, resumed by the next command (cli/common.py) ---------------
    def board_session(self, forum: str, account: str) -> str | None:
        row = self.db.execute(
            "SELECT cookies FROM board_sessions WHERE forum = ? AND account = ?", (forum, account)
        ).fetchone()
        return str(row[0]) if row else None

    def keep_board_session(self, forum: str, account: str, cookies: str) -> None:
        with self.transaction() as db:
            db.execute(
                "INSERT OR REPLACE INTO board_sessions (forum, account, cookies, at) VALUES (?, ?, ?, ?)",
                (forum, account, cookies, datetime.now(UTC).isoformat()),
            )

    # --- when the watch last read a topic whole (host/watch.py) -----------------------------------------
    def whole_read_at(self, forum: str, topic: str) -> datetime | None:
        row = self.db.execute("SELECT at FROM whole_reads WHERE forum = ? AND topic = ?", (forum, topic)).fetchone()
        return datetime.fromisoformat(row[0]) if row else None

    def put_whole_read(self, forum: str, topic: str, at: datetime) -> None:
        with self.transaction() as db:
            db.execute(
                "INSERT OR REPLACE INTO whole_reads (forum, topic, at) VALUES (?, ?, ?)", (forum, topic, at.isoformat())
            )

    def setting(self, game_id: int, nick: str) -> dict[str, Any]:
        row = self.db.execute(
            "SELECT gender, afterlife, leaving FROM player_settings WHERE game_id = ? AND nick = ?", (game_id, nick)
        ).fetchone()
        gender, afterlife, leaving = row if row else (None, None, 0)
        return {"gender": gender, "afterlife": afterlife, "leaving": bool(leaving)}

    def genders(self, game_id: int) -> dict[str, str]:
        rows = self.db.execute(
            "SELECT nick, gender FROM player_settings WHERE game_id = ? AND gender IS NOT NULL", (game_id,)
        )
        return {r[0]: r[1] for r in rows}

    def leaving(self, game_id: int) -> list[str]:
        rows = self.db.execute("SELECT nick FROM player_settings WHERE game_id = ? AND leaving = 1", (game_id,))
        return [r[0] for r in rows]

    def order_count(self, game_id: int, day: int, actor: str, action: str) -> int:
        row = self.db.execute(
            "SELECT valid FROM order_counts WHERE game_id = ? AND day = ? AND actor = ? AND action = ?",
            (game_id, day, actor, action),
        ).fetchone()
        return int(row[0]) if row else 0

    def relay_count(self, game_id: int, day: int, sender: str) -> int:
        row = self.db.execute(
            "SELECT COUNT(*) FROM relays WHERE game_id = ? AND day = ? AND sender = ? AND status = 'sent'",
            (game_id, day, sender),
        ).fetchone()
        return int(row[0])

    def relays(self, game_id: int) -> list[dict[str, Any]]:
        rows = self.db.execute(
            "SELECT day, pm_id, sender, kind, recipients, status, at FROM relays WHERE game_id = ? ORDER BY id",
            (game_id,),
        )
        keys = ("day", "pm_id", "sender", "kind", "recipients", "status", "at")
        return [dict(zip(keys, r, strict=True)) for r in rows]

    def last_vote_count(self, game_id: int, day: int) -> dict[str, Any] | None:
        row = self.db.execute(
            "SELECT at, posts, counts_json FROM vote_counts WHERE game_id = ? AND day = ? ORDER BY rowid DESC LIMIT 1",
            (game_id, day),
        ).fetchone()
        return (
            None
            if row is None
            else {"at": datetime.fromisoformat(row[0]), "posts": row[1], "counts": json.loads(row[2])}
        )


# Every public method of the store maps its faults once, here: an SQLite error or a row that does not read
# becomes a StateError naming the file and what is wrong (transactions map their own, see `transaction`).
for _name, _member in list(vars(Store).items()):
    if not _name.startswith("_") and callable(_member) and _name not in ("transaction", "exclusive", "close"):
        setattr(Store, _name, _guarded(_member, _READS.get(_name, "the state file")))
