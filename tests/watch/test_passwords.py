"""kozanostra's server passwords: whatever form a player sends them in, they are never kept, logged or echoed.

The kozanostra server authenticated every letter with the game and the player's password; players used to it
keep writing them. Each form is played through the watch and then the day's end; afterwards neither the
state file (every byte of it, journal included) nor any PM the bot sent holds a password.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from fakeboard import Board, BoardServer
from forumbot.config import GameConfig
from forumbot.forum.client import ClientSettings
from forumbot.forum.http import HttpSettings
from forumbot.forum.registry import open_client
from forumbot.host import games
from forumbot.host.watch import watch_once
from forumbot.store import Store
from tests.watch.watch_support import served_board

pytestmark = pytest.mark.real_sleep(reason="the client logs in on the real clock: phpBB's one-second form rule waits")
START = datetime(2026, 12, 1, 7, 0, tzinfo=UTC)  # 10:00 Moscow; the day ends at 23:00 Moscow (20:00 UTC)
PLAYERS = ["Boris", "Alice", "Пётр", "Шарик", "Кот Матроскин", "Ёжик", "Charlie", "Dana_99"]


@dataclass
class Recorder:
    pms: list[tuple[tuple[str, ...], str, str]] = field(default_factory=list)
    replies: list[tuple[str, str, str]] = field(default_factory=list)

    def send_pm(self, recipients: Sequence[str], subject: str, message: str, *, marker: str | None = None) -> None:
        self.pms.append((tuple(recipients), subject, message))

    def post_reply(self, topic: str, subject: str, message: str, *, marker: str | None = None) -> int:
        self.replies.append((topic, subject, message))
        return len(self.replies)

    def find_marker_in_sent(self, marker: str, *, subject: str | None = None, recipients: Sequence[str] = ()) -> None:
        return None

    def find_marker_in_topic(self, topic_id: int, marker: str) -> int | None:
        return None

    def to(self, nick: str) -> list[str]:
        return [body for recipients, _, body in self.pms if nick in recipients]


@pytest.fixture
def served() -> Iterator[tuple[Board, BoardServer, int]]:
    with served_board(PLAYERS) as served:
        yield served


# Each form the kozanostra server accepted, with a password of its own.
FORMS = {
    "mail": "#mail K-1 Boris K-1 Pw-Mail-7731\nБорис, ты мафия?",
    "mail-unknown": "#mail K-1 Nobody K-1 Pw-Nobody-5521\nкто здесь?",
    "wall": "#wall K-1 Pw-Wall-9042\nВсем привет!",
    "mafia": "#mafia K-1 Pw-Mafia-3310\nСобираемся в полночь.",
    "order-same-line": "#order K-1 Pw-Order-6620\nV Boris",
    "order-next-line": "#order K-1\nPw-Next-4417\nV Boris",
    "order-bare": "#order\nK-1 Pw-Bare-8808\nV Boris",
}
PASSWORDS = [body.split("\n")[0].split()[-1] for key, body in FORMS.items() if not key.startswith("order-")]
PASSWORDS += ["Pw-Order-6620", "Pw-Next-4417", "Pw-Bare-8808"]


def state_bytes(path: Path) -> bytes:
    """The state file and its journal: everything SQLite has written."""
    return b"".join(p.read_bytes() for p in sorted(path.parent.glob(path.name + "*")))


def test_no_form_of_a_password_is_stored_or_echoed(tmp_path: Path, served: tuple[Board, BoardServer, int]) -> None:
    board, server, forum = served
    path = tmp_path / "state.db"
    config = GameConfig.model_validate(
        {
            "game": {"name": "K-1", "variant": "kozanostra", "players": PLAYERS, "moderators": ["Модератор"]},
            "forum": {"engine": "phpbb", "base_url": server.url, "forum_id": forum},
            "watch": {"relays": True},
        }
    )
    store = Store(path)
    games.create_game(store, config)
    topic = board.add_topic(forum, "K-1. День 1", "host_bot", "День 1", START)
    games.deal_game(store, "K-1", START, topic=str(topic), seed=7)
    state = store.game("K-1").state
    assert state is not None
    mafioso = next(p.nick for p in state.players if p.role == "mafia" and p.nick != "Boris")
    senders = [n for n in PLAYERS if n not in ("Boris", mafioso)]
    client = open_client(
        ClientSettings(
            forum=server.url, username="host_bot", password="pw", dialect="phpbb", http=HttpSettings(min_interval=0)
        )
    )
    messenger = Recorder()
    sender_of = {key: mafioso if key == "mafia" else senders[i % len(senders)] for i, key in enumerate(FORMS)}
    for i, (key, body) in enumerate(FORMS.items()):
        board.send_pm(sender_of[key], "host_bot", "приказ", body, START + timedelta(minutes=10 + i))
    watch_once(store, "K-1", client, messenger, START + timedelta(minutes=30))
    watch_once(store, "K-1", client, messenger, START + timedelta(hours=13, minutes=5))  # the deadline: the draft
    row = store.game("K-1")
    draft = store.draft(row.id, 1)
    assert draft is not None
    store.close()

    assert "Борис, ты мафия?" in "".join(messenger.to("Boris"))  # the letters still go out...
    assert any("Всем привет!" in body for body in messenger.to("Alice"))
    pm_votes = [v for v in draft.draft.to_json()["votes"] if v["channel"] == "pm" and v["counted"]]
    voters = {sender_of[k] for k in FORMS if k.startswith("order-")}
    assert sorted(v["voter"] for v in pm_votes) == sorted(voters)  # ...and the orders after the headers count
    saved = state_bytes(path)
    sent = "\n".join(f"{r} {s} {b}" for r, s, b in messenger.pms) + "\n".join(b for _, _, b in messenger.replies)
    on_board = [pm.body for nick in [*PLAYERS, "Модератор"] for pm in board.pms_to(nick) if pm.sender == "host_bot"]
    sent += "\n".join(on_board)
    leaks = [pw for pw in PASSWORDS if pw.encode() in saved or pw in sent]
    assert leaks == []
