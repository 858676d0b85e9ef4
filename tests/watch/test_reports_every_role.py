"""kozanostra's personal morning reports and `Z`, for every role, on the fake board: two turns of a game with every
role (mafia, lawyer, yakuza, ninja, commissar, sheriff, reanimator, maniac, civilians). Each living player's
report shows his own role, his clan (the mafia without the lawyer; the yakuza with the ninja), the roles of the
jailed and the dead, and what his own checks told him on every turn so far (a ninja as a civilian); nobody
else's role. `Z` sends each of them the very report the publication sent."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from fakeboard import Board, BoardServer
from forumbot.config import GameConfig
from forumbot.engine import ruleset_for
from forumbot.engine.model import GameState
from forumbot.forum.client import ClientSettings
from forumbot.forum.http import HttpSettings
from forumbot.forum.phpbb.reader import PhpbbClient
from forumbot.forum.phpbb.writer import PhpbbPoster
from forumbot.forum.registry import open_client
from forumbot.host import games
from forumbot.host.publish import publish
from forumbot.host.watch import watch_once
from forumbot.render.phrases import role_name
from forumbot.store import Store
from tests.watch.watch_support import served_board

pytestmark = pytest.mark.real_sleep(reason="the client logs in on the real clock: phpBB's one-second form rule waits")
START = datetime(2026, 12, 1, 7, 0, tzinfo=UTC)
PLAYERS = ["Фредо", "Сонни", "Адвокат", "Оябун", "Тень", "Каттани", "Ковбой", "Врач", "Джек", "Джо", "Анна"]
ROLES = [
    "mafia", "mafia", "lawyer", "yakuza", "ninja", "commissar", "sheriff", "reanimator", "maniac", "civilian",
    "civilian",
]  # fmt: skip
NAME = "kozanostra7"
CLAN_HEAD = "[b]Ваш клан[/b]"


class Game:
    def __init__(self, tmp_path: Path, board: Board, server: BoardServer, forum: int) -> None:
        self.board, self.path, self.forum = board, tmp_path / "state.db", forum
        self.config = GameConfig.model_validate(
            {
                "game": {
                    "name": NAME,
                    "variant": "kozanostra",
                    "players": PLAYERS,
                    "moderators": ["Модератор"],
                    "morning_reports": True,
                    "options": {"game_type": "kozanostra", "roles": ROLES},
                },
                "forum": {"engine": "phpbb", "base_url": server.url, "forum_id": forum},
            }
        )
        store = Store(self.path)
        games.create_game(store, self.config)
        self.topic = board.add_topic(forum, f"{NAME}. День 1", "host_bot", "День 1", START)
        games.deal_game(store, NAME, START, topic=str(self.topic), seed=5)
        dealt = store.game(NAME).state
        assert dealt is not None
        self.state: GameState = dealt
        store.close()
        client = open_client(
            ClientSettings(
                forum=server.url, username="host_bot", password="pw", dialect="phpbb", http=HttpSettings(min_interval=0)
            )
        )
        assert isinstance(client, PhpbbClient)
        self.client = client
        self.poster = PhpbbPoster(self.client, flood_interval=0)

    def role(self, role: str) -> list[str]:
        return [p.nick for p in self.state.players if p.role == role]

    def at(self, minutes: int) -> datetime:
        return START + timedelta(minutes=minutes)

    def pm(self, sender: str, body: str, minutes: int) -> None:
        self.board.send_pm(sender, "host_bot", "приказ", body, self.at(minutes))

    def vote(self, topic: int, voter: str, target: str, minutes: int) -> None:
        self.board.add_post(topic, voter, f"[color=red][b]{target}[/b][/color]", self.at(minutes))

    def turn(self, minutes: int) -> None:
        """End the turn now (as `end-day --early` does), approve it and publish it with its reports."""
        store = Store(self.path)
        try:
            games.end_day(store, NAME, self.client, now=self.at(minutes))
            games.approve(store, NAME, "Модератор")
            publish(store, NAME, self.client, self.at(minutes + 1))
        finally:
            store.close()

    def topic_of(self, day: int) -> int:
        store = Store(self.path)
        try:
            found = store.day(store.game(NAME).id, day)
            assert found is not None and found["topic"]
            return int(found["topic"])
        finally:
            store.close()

    def reports_to(self, nick: str) -> list[str]:
        """The reports sent to `nick`, in the order they were sent."""
        found = [pm for pm in self.board.pms_to(nick) if pm.sender == "host_bot" and "Статус Жителей" in pm.body]
        return [pm.body for pm in sorted(found, key=lambda pm: pm.pm_id)]


@pytest.fixture
def game(tmp_path: Path) -> Iterator[Game]:
    with served_board(PLAYERS) as (board, server, forum):
        yield Game(tmp_path, board, server, forum)


def _text(body: str) -> str:
    return body.split("[size=1]")[0].strip()


def _residents(body: str) -> dict[str, str]:
    """«Статус Жителей»: nick -> the line's rest."""
    part = body.split("[b]Статус Жителей[/b]")[1].split("[b]Текущий")[0]
    lines = [line.split(" — ", 1) for line in part.strip().splitlines() if " — " in line]
    return {nick: rest for nick, rest in lines}


def test_every_role_gets_its_report_with_what_it_may_know_and_z_sends_it_again(game: Game) -> None:
    [commissar], [lawyer], [maniac] = game.role("commissar"), game.role("lawyer"), game.role("maniac")
    [yakuza], [ninja] = game.role("yakuza"), game.role("ninja")
    mafia = game.role("mafia")
    # Turn 1 (everyone shows a sign of life: no autokill): the maniac is jailed; the commissar checks the ninja,
    # the lawyer the commissar.
    for k, voter in enumerate(PLAYERS):
        game.vote(game.topic, voter, maniac if voter != maniac else mafia[0], 5 + k)
    game.pm(commissar, f"Проверяю — {ninja}", 20)
    game.pm(lawyer, f"Проверяю — {commissar}", 21)
    game.turn(30)
    # Turn 2: the commissar checks the yakuza; the reports keep turn 1's results.
    topic2 = game.topic_of(2)
    for k, voter in enumerate([n for n in PLAYERS if n not in (maniac, mafia[1])][:3]):
        game.vote(topic2, voter, mafia[1], 40 + k)
    game.pm(commissar, f"Проверяю — {yakuza}", 50)
    game.turn(60)

    store = Store(game.path)
    state = store.game(NAME).state
    assert state is not None and state.day == 3 and state.winner == "none"
    living = [p for p in state.living()]
    store.close()
    assert {p.role for p in living} == set(ROLES) - {"maniac"}  # every role but the jailed maniac's
    rules = ruleset_for(state)
    seen: dict[str, dict[str, str]] = {}
    for p in living:
        reports = game.reports_to(p.nick)
        assert len(reports) == 2, p.nick  # one per published turn
        body = reports[-1]
        assert f"[b]Игра {NAME} День 3 " in body and f"Вы: {p.nick}, " in body
        seen[p.nick] = _residents(body)
        assert seen[p.nick][maniac].endswith("роль: маньяк")  # the jailed: published to everyone
        assert seen[p.nick][mafia[1]].endswith("роль: мафиози")
        assert seen[p.nick][p.nick].endswith(f"роль: {role_name(p.role, rules)}")  # «честный житель» too
        clan = body.split(CLAN_HEAD)[1].split("[b]")[0] if CLAN_HEAD in body else ""
        if p.role == "mafia":
            assert mafia[0] in clan and lawyer not in clan
        elif p.role in ("yakuza", "ninja"):
            assert yakuza in clan and ninja in clan
        else:
            assert clan == "", p.role  # the lawyer sees no clan, and no clan sees him
        hidden = {q.nick for q in living if q.nick != p.nick} - ({mafia[0]} if p.role == "mafia" else set())
        hidden -= {yakuza, ninja} if p.role in ("yakuza", "ninja") else set()
        known_by_checks = {commissar: {ninja, yakuza}, lawyer: {commissar}}.get(p.nick, set())
        for other in hidden - known_by_checks:
            assert seen[p.nick][other] == "в игре", (p.nick, other)
    assert seen[commissar][ninja].endswith("роль: честный житель")  # turn 1's check, kept; a ninja as a civilian
    assert seen[commissar][yakuza].endswith("роль: якудза")
    assert seen[lawyer][commissar].endswith("роль: комиссар")  # turn 1's check, kept on turn 2

    for k, p in enumerate(living):
        game.pm(p.nick, "Z", 70 + k)
    store = Store(game.path)
    try:
        watch_once(store, NAME, game.client, game.poster, game.at(90))
    finally:
        store.close()
    for p in living:
        reports = game.reports_to(p.nick)
        assert len(reports) == 3 and _text(reports[2]) == _text(reports[1]), p.nick
