"""Two games on one bot account, as hosts run them: a kozanostra and a salon game with the same players on the
same days, the watch running for both. Every PM is placed on its game (the conversation it answers, the game named
in its subject, the sender's membership); each game counts only its own PMs, answers only its own, and a PM that
could be for either is answered once, with a question. A finished game's PMs and commands never reach a new one."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from fakeboard import Board, BoardServer
from fakeboard.clock import FakeClock
from fakeboard.state import PrivateMessage
from forumbot.config import GameConfig
from forumbot.engine.model import GameState
from forumbot.forum.client import ClientSettings, ForumClient
from forumbot.forum.http import HttpSettings
from forumbot.forum.poster import Poster
from forumbot.forum.registry import open_client, poster_for
from forumbot.host import games
from forumbot.host.publish import publish
from forumbot.host.watch import PassReport, watch_once
from forumbot.render.receipts import WHICH_GAME_SUBJECT
from forumbot.store import Store

BOT = "host_bot"
START = datetime(2026, 12, 1, 7, 0, tzinfo=UTC)  # 10:00 Moscow; both days end at 23:00 Moscow (20:00 UTC)
DEADLINE = datetime(2026, 12, 1, 20, 0, tzinfo=UTC)
PLAYERS = ["Вито", "Томмазо", "Каттани", "Айболит", "Чикатило", "Кармен", "Иван", "Пётр"]
KOZA, SALON = "Коза-1", "Салон-1"
MODERATORS = {KOZA: "Модератор-К", SALON: "Модератор-С"}


class Account:
    """One bot account on one board, one state file, several games; every pass a fresh process."""

    def __init__(self, tmp_path: Path, board: Board, server: BoardServer, clock: FakeClock, forum: int) -> None:
        self.board, self.clock, self.forum, self.url = board, clock, forum, server.url
        self.path = tmp_path / "state.db"
        self.client: ForumClient = open_client(
            ClientSettings(forum=server.url, username=BOT, password="pw", dialect="phpbb", http=HttpSettings()),
            clock=clock,
        )
        self.poster: Poster = poster_for(self.client, flood_interval=0)

    def new_game(
        self, name: str, variant: str, seed: int, start: datetime = START, moderator: str | None = None
    ) -> GameState:
        moderators = [moderator or MODERATORS[name]]
        config = GameConfig.model_validate(
            {
                "game": {"name": name, "variant": variant, "players": PLAYERS, "moderators": moderators},
                "forum": {"engine": "phpbb", "base_url": self.url, "forum_id": self.forum},
                "watch": {"interim_counts": False},
            }
        )
        with self.store() as store:
            games.create_game(store, config)
            topic = self.board.add_topic(self.forum, f"{name}. День 1", BOT, "День 1", start)
            dealt = games.deal_game(store, name, start, topic=str(topic), seed=seed)
            publish(store, name, self.client, self.clock.at(start), poster=self.poster)  # the role PMs
        return dealt.state

    @contextmanager
    def store(self) -> Iterator[Store]:
        """The state file, opened as a new process opens it."""
        store = Store(self.path)
        try:
            yield store
        finally:
            store.close()

    def topic(self, name: str) -> int:
        with self.store() as store:
            day = store.day(store.game(name).id, 1)
        assert day is not None
        return int(day["topic"])

    def watch(self, name: str, at: datetime) -> PassReport:
        with self.store() as store:
            return watch_once(store, name, self.client, self.poster, self.clock.at(at))

    def pm(self, sender: str, subject: str, body: str, at: datetime) -> int:
        return self.board.send_pm(sender, BOT, subject, body, at)

    def answers(self, nick: str) -> list[PrivateMessage]:
        """What the bot wrote to `nick`, oldest first."""
        return sorted((m for m in self.board.pms_to(nick) if m.sender == BOT), key=lambda m: m.pm_id)

    def subjects(self, nick: str) -> list[str]:
        return [m.subject for m in self.answers(nick)]


@pytest.fixture
def account(tmp_path: Path) -> Iterator[Account]:
    clock = FakeClock(START - timedelta(hours=1))
    board = Board(language="ru", timezone="Europe/Moscow", now=lambda: datetime.fromtimestamp(clock.now, UTC))
    board.add_user(BOT, "pw", moderator=True)
    for nick in [*PLAYERS, *MODERATORS.values()]:
        board.add_user(nick, "pw")
    forum = board.add_forum("Мафия")
    with BoardServer(board, clock=clock) as server:
        yield Account(tmp_path, board, server, clock, forum)
        assert not server.errors, server.errors[0]


def _role(state: GameState, role: str) -> list[str]:
    return [p.nick for p in state.players if p.role == role]


def test_two_games_on_one_account_each_count_and_answer_only_their_own(account: Account) -> None:
    koza = account.new_game(KOZA, "kozanostra", seed=5)
    account.new_game(SALON, "salon", seed=11)
    # The salon votes all go to one player: were they read as Коза-1 votes, kozanostra would jail him.
    [commissar] = _role(koza, "commissar")
    target = next(n for n in PLAYERS if n not in [*_role(koza, "mafia"), commissar])
    salon_voters = [n for n in PLAYERS if n not in (target, commissar)]
    for k, voter in enumerate(salon_voters[:-1]):  # each answers his salon role PM
        account.pm(voter, f"Re: {SALON}: ваша роль", f"Расстреливаю — {target}", START + timedelta(minutes=10 + k))
    checked = next(n for n in PLAYERS if n != commissar)
    account.pm(commissar, f"{KOZA}: приказ", f"Проверяю — {checked}", START + timedelta(minutes=20))
    koza_topic = account.topic(KOZA)
    jailed = next(n for n in PLAYERS if n not in (target, commissar))
    for k, voter in enumerate(PLAYERS[:3]):
        if voter != jailed:
            account.board.add_post(
                koza_topic, voter, f"[color=red][b]{jailed}[/b][/color]", START + timedelta(minutes=30 + k)
            )
    # A PM that names no game, from a player of both: neither may take it.
    unsure = salon_voters[-1]
    asked = account.pm(unsure, "приказ", f"Голосую — {checked}", START + timedelta(minutes=40))

    account.watch(KOZA, START + timedelta(hours=1))
    account.watch(SALON, START + timedelta(hours=1, minutes=1))
    account.watch(KOZA, START + timedelta(hours=1, minutes=2))  # nothing new: nothing answered again

    for voter in salon_voters[:-1]:
        assert account.subjects(voter).count(f"{SALON}: ваше письмо ведущему") == 1, account.subjects(voter)
        assert f"{KOZA}: ваше письмо ведущему" not in account.subjects(voter)
    assert account.subjects(commissar).count(f"{KOZA}: ваше письмо ведущему") == 1
    questions = [m for m in account.answers(unsure) if m.subject == WHICH_GAME_SUBJECT]
    assert len(questions) == 1 and f"«{KOZA}»" in questions[0].body and f"«{SALON}»" in questions[0].body

    # The deadline: each watch ends its own day and sends its draft to its own moderator.
    account.watch(KOZA, DEADLINE + timedelta(minutes=5))
    account.watch(SALON, DEADLINE + timedelta(minutes=6))
    with account.store() as store:
        koza_draft = store.draft(store.game(KOZA).id, 1)
        salon_draft = store.draft(store.game(SALON).id, 1)
    assert koza_draft is not None and salon_draft is not None
    koza_pm_votes = [v for v in koza_draft.draft.votes if v.channel == "pm"]
    assert koza_pm_votes == []  # no salon vote, nor the unplaced one, counted in Коза-1
    assert koza_draft.draft.executed == [jailed], koza_draft.draft.tally
    koza_pms = {o.get("pm_id") for o in koza_draft.draft.orders}
    salon_pms = {o.get("pm_id") for o in salon_draft.draft.orders}
    assert not koza_pms & salon_pms - {asked}  # only the unplaced PM is listed in both, as such
    assert {o.reason for o in koza_draft.draft.orders if o.get("pm_id") == asked} == {"which_game"}
    counted = sorted(v.voter for v in salon_draft.draft.votes if v.counted)
    assert counted == sorted(salon_voters[:-1])  # the unplaced PM's vote is no salon vote either
    assert salon_draft.draft.tally.get(target) == len(salon_voters) - 1
    for name, moderator in MODERATORS.items():
        drafts = [s for s in account.subjects(moderator) if f"{name}: черновик итогов дня 1" in s]
        assert len(drafts) == 1 and len(account.answers(moderator)) == 1, account.subjects(moderator)

    # The salon's moderator approves by answering his draft PM: only the salon's watch answers him.
    [draft_pm] = account.answers(MODERATORS[SALON])
    account.pm(MODERATORS[SALON], f"Re: {draft_pm.subject}", "Одобряю", DEADLINE + timedelta(minutes=20))
    account.watch(KOZA, DEADLINE + timedelta(minutes=30))
    assert len(account.answers(MODERATORS[SALON])) == 1  # Коза-1 said nothing to him
    account.watch(SALON, DEADLINE + timedelta(minutes=31))
    with account.store() as store:
        assert store.draft(store.game(SALON).id, 1).approved_by == MODERATORS[SALON]  # type: ignore[union-attr]
        assert store.draft(store.game(KOZA).id, 1).approved_by is None  # type: ignore[union-attr]
    answer = account.answers(MODERATORS[SALON])[-1]
    assert answer.subject == draft_pm.subject and "одобрен" in answer.body  # the day and the code kept


def test_a_finished_game_keeps_its_pms_and_commands_and_a_new_game_answers_only_its_own(account: Account) -> None:
    account.new_game(KOZA, "kozanostra", seed=5)
    moderator = MODERATORS[KOZA]
    quitter, muted, late = PLAYERS[0], PLAYERS[1], PLAYERS[2]
    account.pm(quitter, "приказ", "Q", START + timedelta(minutes=10))
    account.pm(muted, "настройки", "O AFTERLIFE OFF", START + timedelta(minutes=11))
    account.watch(KOZA, START + timedelta(minutes=30))
    assert len(account.answers(quitter)) == 2  # his role, and the receipt for Q
    # Sent while Коза-1 was on, read by no pass of its watch: Коза-1's all the same.
    account.pm(late, "приказ", f"Голосую — {quitter}", START + timedelta(hours=2))
    account.pm(moderator, "ответ", "Одобряю", START + timedelta(hours=3))
    with account.store() as store:  # the game ends (the town won): its day 1 was its last
        row = store.game(KOZA)
        assert row.state is not None
        store.advance(row.id, 1, row.state.model_copy(update={"winner": "town"}), {"day": 1, "winner": "town"})
    seen = {nick: len(account.answers(nick)) for nick in [*PLAYERS, moderator]}

    # The next game, with the same players and moderator, dealt the next morning.
    account.new_game(SALON, "salon", seed=11, start=START + timedelta(days=1), moderator=moderator)
    early = account.pm(late, "приказ", f"Расстреливаю — {quitter}", START + timedelta(hours=20))  # before its day 1
    account.watch(KOZA, START + timedelta(days=1, minutes=5))  # a finished game's watch answers nothing
    account.watch(SALON, START + timedelta(days=1, minutes=10))

    for nick in [*PLAYERS, moderator]:
        new = account.answers(nick)[seen[nick] :]
        expected = {late: ["Салон-1: ваше письмо ведущему"]}.get(nick, [])
        assert [m.subject for m in new if "ваша роль" not in m.subject] == expected, nick
    [receipt] = [m for m in account.answers(late) if m.subject == f"{SALON}: ваше письмо ведущему"]
    assert "до начала дня 1" in receipt.body and "закончился" not in receipt.body
    with account.store() as store:
        game = store.game(SALON).id
        assert store.leaving(game) == []  # Коза-1's Q is not Салон-1's
        assert store.setting(game, muted)["afterlife"] is None  # nor its O AFTERLIFE OFF
        assert store.handled_kinds(early) == {game: "orders"}
