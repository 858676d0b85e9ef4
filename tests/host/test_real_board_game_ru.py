"""A whole gameru-3.3 game on the fake board set up as the real Russian one (`Board.russian()`: its
language pack, Moscow time, relative dates, 2 s flood control, 5 PM recipients, the confirm box's «Да»),
played the way the real board was found to break forumbot: deal, publish the opening, days with votes
edited on earlier pages (one silently, by a moderator), orders sent in the day's last minute (shown as
"менее минуты назад"), two orders of one player in the same minute, a post waiting for approval and a
soft-deleted one carrying votes, end-day, approval, publish, and the reveal. No workaround: the host's
calls only."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from fakeboard import Board, BoardServer
from fakeboard.clock import FakeClock
from forumbot.config import GameConfig
from forumbot.engine import deal
from forumbot.forum.http import HttpSettings
from forumbot.forum.phpbb.reader import PhpbbClient
from forumbot.forum.phpbb.writer import PhpbbPoster
from forumbot.host import games
from forumbot.host.publish import publish
from forumbot.store import Store

GAME = "Мафия-9"
BOT, BOT_PW = "Ведущий", "пароль"
PLAYERS = ["Вера", "Шарик", "Незнайка", "Дядя Фёдор", "Кот_Матроскин", "Mr. Pink", "Алиса Селезнёва", "Печкин", "Ёжик"]
SEED = 7
DEALT = deal("gameru-3.3", PLAYERS, SEED, None)
ROLE = {p.nick: p.role for p in DEALT.players}
MAFIA = [p.nick for p in DEALT.players if p.role == "mafia"]
BOSS = next(p.nick for p in DEALT.players if p.boss)
SHERIFF = next(p.nick for p in DEALT.players if p.role == "sheriff")
TOWN = [n for n in PLAYERS if ROLE[n] != "mafia"]
START = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)  # 12:00 in Moscow; each day ends at 23:00 Moscow time


@dataclass
class Host:
    board: Board
    server: BoardServer
    clock: FakeClock
    store: Store

    def client(self) -> PhpbbClient:
        return PhpbbClient(
            self.server.url,
            username=BOT,
            password=BOT_PW,
            settings=HttpSettings(min_interval=0.0, backoff_base=0.0, max_attempts=2),
            clock=self.clock,
        )

    def now(self) -> datetime:
        return datetime.fromtimestamp(self.clock.now, UTC)

    def publish(self) -> None:
        client = self.client()
        try:
            publish(self.store, GAME, client, self.now(), poster=PhpbbPoster(client, flood_interval=2))
        finally:
            client.close()

    def day(self) -> dict[str, Any]:
        row = self.store.game(GAME)
        assert row.state is not None
        found = self.store.day(row.id, row.state.day)
        assert found is not None
        return found

    def post(self, author: str, text: str, at: datetime) -> int:
        return self.board.add_post(int(self.day()["topic"]), author, text, self.clock.at(at))

    def vote(self, voter: str, target: str, at: datetime) -> int:
        return self.post(voter, f"Мой голос: [color=red][b]{target}[/b][/color]", at)

    def order(self, sender: str, text: str, at: datetime) -> int:
        return self.board.send_pm(sender, BOT, "Приказ", text, self.clock.at(at))

    def end_day(self, after: timedelta = timedelta(seconds=10)) -> dict[str, Any]:
        self.clock.at(self.day()["deadline"] + after)
        client = self.client()
        try:
            return games.end_day(self.store, GAME, client).to_json()
        finally:
            client.close()


@pytest.fixture
def host(tmp_path: Path) -> Iterator[Host]:
    clock = FakeClock(START)
    board = Board.russian(bot=BOT, bot_password=BOT_PW, now=lambda: datetime.fromtimestamp(clock.now, UTC))
    board.add_user("Модератор", "mod-pw", moderator=True)
    for nick in PLAYERS:
        board.add_user(nick, "pw")
    board.add_user("Новичок", "pw", needs_approval=True)
    with BoardServer(board, clock=clock, posts_per_page=5) as server:
        store = Store(tmp_path / "state.db")
        config = GameConfig.model_validate(
            {
                "game": {"name": GAME, "variant": "gameru-3.3", "players": PLAYERS, "moderators": ["Модератор"]},
                "forum": {"engine": "phpbb", "base_url": server.url, "forum_id": 3},
            }
        )
        games.create_game(store, config)
        yield Host(board, server, clock, store)


def test_a_whole_game_on_the_russian_board(host: Host) -> None:
    # the deal, then the opening: day 1's topic with the commitment, and the role PMs (not to civilians)
    games.deal_game(host.store, GAME, START, seed=SEED)
    host.publish()
    day1 = host.day()
    assert day1["topic"] and host.board.topic(int(day1["topic"])).title == f"{GAME}. День 1"
    roles_sent = {m.recipients[0] for m in host.board.pms_from(BOT)}
    assert roles_sent == {n for n in PLAYERS if ROLE[n] != "civilian"}
    deadline = day1["deadline"]

    # Day 1: the town votes out the first mafioso; one voter's early vote is edited on page 1 later,
    # silently, by a moderator; a queued and a deleted post carry votes nobody else can see
    first, second = MAFIA[0], TOWN[0]
    early = host.vote(TOWN[1], second, START + timedelta(minutes=5))  # page 1
    for i, voter in enumerate(TOWN[2:], 1):
        host.vote(voter, first, START + timedelta(hours=1, minutes=i))
    host.vote(TOWN[0], first, START + timedelta(hours=2))
    for i, mafioso in enumerate(MAFIA):
        host.vote(mafioso, second, START + timedelta(hours=3, minutes=i))
    host.board.add_post(
        int(day1["topic"]),
        "Новичок",
        f"[color=red][b]{second}[/b][/color]",
        host.clock.at(START + timedelta(hours=4)),
        approved=False,
    )
    deleted = host.vote(TOWN[-1], second, START + timedelta(hours=4, minutes=1))
    host.board.soft_delete_post(deleted, "Модератор", "флуд")
    host.end_day(after=-timedelta(hours=6))  # an early read (its draft is replaced): page 1 is in the cache
    # the moderator turns TOWN[1]'s early vote into one for the first mafioso, without a reason: no notice
    assert not host.board.edit_post_as(early, "Модератор", f"Мой голос: [color=red][b]{first}[/b][/color]")

    # orders in the last minute: the boss changes his kill within one minute; the sheriff checks
    victim, other = TOWN[-1], TOWN[-2]
    host.order(BOSS, f"Убиваем — {other}", deadline - timedelta(seconds=50))
    host.order(BOSS, f"Убиваем — {victim}", deadline - timedelta(seconds=40))
    host.order(SHERIFF, f"Проверяю — {MAFIA[1]}", deadline - timedelta(seconds=30))

    draft = host.end_day(after=timedelta(seconds=10))  # 23:00:10: every PM says "менее минуты назад"
    votes = {(v["voter"], v["reason"]) for v in draft["votes"] if not v["counted"]}
    assert (TOWN[1], "changed") in votes  # the silent edit was seen on page 1
    assert ("Новичок", "unapproved") in votes
    assert (TOWN[-1], "deleted") in votes
    # the boss's second order counts, in time; the sheriff's check of a mafioso kills him (gameru-3.3)
    assert draft["deaths"] == {first: "executed", victim: "mafia", MAFIA[1]: "sheriff"}
    assert draft["checks"] == {SHERIFF: "mafia"}
    kills = [o for o in draft["orders"] if o["action"] == "kill"]
    assert [o["targets"] for o in kills] == [[other], [victim]]  # the forum's order, same minute
    assert not draft["warnings"]  # every last-minute PM's exact time was asked of the board
    # 22:59:10 reads "1 минуту назад" at 23:00:10: an interval, wholly before the deadline, kept as one;
    # 22:59:20 reads "менее минуты назад": it may be after 23:00, so its exact time was asked of the board
    before, straddling = (str(o["time"]) for o in kills)
    assert "/" in before and before.split("/")[1] <= "2026-12-01T23:00:00+03:00"
    assert "/" not in straddling and datetime.fromisoformat(straddling) == deadline - timedelta(seconds=40)

    games.approve(host.store, GAME, "Модератор")
    host.publish()
    assert host.board.topic(int(day1["topic"])).locked  # the confirm box got its «Да»
    checks = [m for m in host.board.pms_to(SHERIFF) if m.sender == BOT and "ваша роль" not in m.subject]
    assert len(checks) == 1

    # The next days: the mafia left are voted out, one a day, until the town wins; then the reveal
    for day_no in range(2, 6):
        state = host.store.game(GAME).state
        assert state is not None
        if state.winner != "none":
            break
        day = host.day()
        start = day["starts_at"]
        assert state.day == day_no
        living = [p.nick for p in state.living()]
        target = next(n for n in MAFIA if n in living)
        for i, voter in enumerate(n for n in living if ROLE[n] != "mafia"):
            host.vote(voter, target, start + timedelta(minutes=10 + i))
        boss = next(p.nick for p in state.living() if p.boss)
        prey = next(n for n in reversed(living) if ROLE[n] == "civilian")
        host.order(boss, f"Убиваем — {prey}", day["deadline"] - timedelta(minutes=5))
        draft = host.end_day()
        assert draft["deaths"].get(target) == "executed", draft["deaths"]
        games.approve(host.store, GAME, "Модератор")
        host.publish()
    row = host.store.game(GAME)
    assert row.state is not None and row.state.winner == "town"
    reveals = [m for m in host.board.pms_from(BOT) if "роли" in m.subject and "игра окончена" in m.subject]
    assert sorted(len(m.recipients) for m in reveals) == [1] * len(reveals) and len(reveals) >= 6
    # nothing posted twice: one topic a day, one role PM each
    titles = [t.title for t in host.board.topics]
    assert len(titles) == len(set(titles))
