"""`watch_once` over several passes against a local phpBB board: receipts, interim counts, the deadline,
PM commands, relays and magic-word signups — and a restart between passes repeats nothing."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from fakeboard import Board, BoardServer
from forumbot.config import GameConfig
from forumbot.engine.model import GameState
from forumbot.errors import ForumUnavailable
from forumbot.forum.client import ClientSettings, ForumClient
from forumbot.forum.http import HttpSettings
from forumbot.forum.registry import open_client
from forumbot.host import games
from forumbot.host.watch import PassReport, watch_once
from forumbot.store import Store
from tests.watch.watch_support import served_board

pytestmark = pytest.mark.real_sleep(reason="the client logs in on the real clock: phpBB's one-second form rule waits")
START = datetime(2026, 12, 1, 7, 0, tzinfo=UTC)  # 10:00 Moscow; the day ends at 23:00 Moscow (20:00 UTC)
PLAYERS = [
    "Alice",
    "Bob Smith",
    "Пётр",
    "Кот Матроскин",
    "Дядя Фёдор",
    "Шарик",
    "Mr. Pink",
    "Charlie",
    "Ёжик",
    "Dana_99",
]


@dataclass
class Recorder:
    """A messenger that remembers what it was asked to send (optionally failing once)."""

    pms: list[tuple[tuple[str, ...], str, str]] = field(default_factory=list)
    replies: list[tuple[str, str, str]] = field(default_factory=list)
    fail_after: int | None = None

    def send_pm(self, recipients: Sequence[str], subject: str, message: str, *, marker: str | None = None) -> None:
        if self.fail_after is not None and len(self.pms) >= self.fail_after:
            self.fail_after = None
            raise ForumUnavailable("the forum went away")
        self.pms.append((tuple(recipients), subject, message))

    def post_reply(self, topic: str, subject: str, message: str, *, marker: str | None = None) -> int:
        self.replies.append((topic, subject, message))
        return len(self.replies)

    def find_marker_in_sent(self, marker: str, *, subject: str | None = None, recipients: Sequence[str] = ()) -> None:
        return next((1 for _, _, body in self.pms if marker in body), None)  # type: ignore[return-value]

    def find_marker_in_topic(self, topic_id: int, marker: str) -> int | None:
        return next((1 for _, _, body in self.replies if marker in body), None)

    def to(self, nick: str) -> list[str]:
        return [body for recipients, _, body in self.pms if nick in recipients]


class Game:
    def __init__(self, tmp_path: Path, server: BoardServer, board: Board, forum: int, **watch: object) -> None:
        self.board, self.path = board, tmp_path / "state.db"
        config = GameConfig.model_validate(
            {
                "game": {"name": "Мафия", "variant": "gameru-3.3", "players": PLAYERS, "moderators": ["Модератор"]},
                "forum": {"engine": "phpbb", "base_url": server.url, "forum_id": forum},
                "watch": {"count_every_minutes": 30, "count_every_posts": 5, **watch},
            }
        )
        store = Store(self.path)
        games.create_game(store, config)
        self.topic = board.add_topic(forum, "Мафия. День 1", "host_bot", "День 1", START)
        games.deal_game(store, "Мафия", START, topic=str(self.topic))
        self.state: GameState = store.game("Мафия").state  # type: ignore[assignment]
        self.client: ForumClient = open_client(
            ClientSettings(
                forum=server.url, username="host_bot", password="pw", dialect="phpbb", http=HttpSettings(min_interval=0)
            )
        )
        self.messenger = Recorder()

    def role(self, role: str) -> list[str]:
        return [p.nick for p in self.state.players if p.role == role]

    def boss(self) -> str:
        return next(p.nick for p in self.state.players if p.boss)

    def town(self) -> list[str]:
        return [p.nick for p in self.state.players if p.role == "civilian"]

    def run(self, minutes: int) -> object:
        store = Store(self.path)  # a fresh process every pass: all progress must be in the file
        try:
            return watch_once(store, "Мафия", self.client, self.messenger, START + timedelta(minutes=minutes))
        finally:
            store.close()

    def pm(self, sender: str, body: str, minutes: int) -> None:
        self.board.send_pm(sender, "host_bot", "приказ", body, START + timedelta(minutes=minutes))

    def vote(self, voter: str, target: str, minutes: int) -> None:
        self.board.add_post(
            self.topic, voter, f"[color=red][b]{target}[/b][/color]", START + timedelta(minutes=minutes)
        )


@pytest.fixture
def served() -> Iterator[tuple[Board, BoardServer, int]]:
    with served_board(PLAYERS) as served:
        yield served


@pytest.fixture
def game(tmp_path: Path, served: tuple[Board, BoardServer, int]) -> Game:
    board, server, forum = served
    return Game(tmp_path, server, board, forum)


def test_each_order_gets_one_receipt_and_a_restart_repeats_nothing(game: Game) -> None:
    boss, sheriff = game.boss(), game.role("sheriff")[0]
    victim, other, third = game.town()[:3]
    game.pm(boss, f"Убиваем — {victim}", 10)
    game.pm(sheriff, f"Проверяю — {boss}", 11)
    game.run(20)
    assert game.messenger.to(boss)[0].startswith(f"Принято: Убиваем — {victim}\n")
    assert game.messenger.to(sheriff)[0].startswith(f"Принято: Проверяю — {boss}\n")
    sent = len(game.messenger.pms)
    game.run(25)
    game.run(30)
    assert len(game.messenger.pms) == sent  # nothing new: nothing sent
    game.pm(boss, f"Убиваем — {other}", 40)
    game.pm(boss, f"Убиваем — {third}", 41)
    game.pm(boss, f"Убиваем — {victim}", 42)
    game.run(50)
    answers = game.messenger.to(boss)
    assert answers[1].startswith(f"Принято: Убиваем — {other} (изменение 1 из 2)")
    assert answers[2].startswith(f"Принято: Убиваем — {third} (изменение 2 из 2)")
    assert answers[3].startswith(f"Не принято: Убиваем — {victim}: приказ можно изменить не более двух раз.")


def test_a_pm_that_cannot_be_opened_waits_for_the_next_pass_and_the_others_are_answered(
    game: Game, served: tuple[Board, BoardServer, int]
) -> None:
    _, server, _ = served
    boss, sheriff = game.boss(), game.role("sheriff")[0]
    victim = game.town()[0]
    game.pm(boss, f"Убиваем — {victim}", 10)
    game.pm(sheriff, f"Проверяю — {boss}", 11)
    first = min(pm.pm_id for pm in game.client.fetch_inbox())
    server.fail_path(f"mode=view&f=0&p={first}", status=404)
    report = game.run(20)
    assert isinstance(report, PassReport)
    assert [p for p in report.problems if p.startswith(f"PM {first} from {boss}: ")]
    assert not game.messenger.to(boss) and game.messenger.to(sheriff)  # the other PM is answered
    server.fail_path(f"mode=view&f=0&p={first}", status=None)
    game.run(25)
    assert game.messenger.to(boss)[0].startswith(f"Принято: Убиваем — {victim}\n")
    assert len(game.messenger.to(sheriff)) == 1  # answered once


def test_void_orders_say_why_and_never_reveal_a_role(game: Game) -> None:
    civilian, mafioso = game.town()[0], next(n for n in game.role("mafia") if n != game.boss())
    game.pm(civilian, "Убиваем — Alice\nПроверяю — Кот Матроскин", 10)
    game.pm(mafioso, f"Убиваем — {civilian}", 11)
    game.pm(game.role("sheriff")[0], "Проверяю — Дядя Федор", 12)  # е for ё: a near miss
    game.run(20)
    civ = game.messenger.to(civilian)[0]
    assert "Не принято: Убиваем — Alice: ваша роль не даёт такого приказа." in civ
    assert "Не принято: Проверяю — Кот Матроскин: ваша роль не даёт такого приказа." in civ
    assert game.messenger.to(mafioso)[0].startswith(f"Не принято: Убиваем — {civilian}: приказ мафии отдаёт босс.")
    near = game.messenger.to(game.role("sheriff")[0])[0]
    assert "нет игрока «Дядя Федор»; возможно, вы имели в виду «Дядя Фёдор»" in near
    for _, _, body in game.messenger.pms:
        for word in ("мафиози", "шериф", "маньяк", "sheriff", "mafia"):
            assert word not in body.lower()


def test_orders_after_the_deadline_are_refused(game: Game) -> None:
    game.pm(game.boss(), f"Убиваем — {game.town()[0]}", 13 * 60 + 5)  # 20:05 UTC: after 23:00 Moscow
    game.run(13 * 60 + 10)
    assert "день уже закончился" in game.messenger.to(game.boss())[0]


def test_interim_counts_only_when_changed_and_not_too_often(game: Game) -> None:
    game.vote("Alice", "Пётр", 5)
    game.run(10)
    assert len(game.messenger.replies) == 1
    count = game.messenger.replies[0][2]
    assert "Лидер: Пётр — 1 голос." in count and "[b]Пётр" not in count
    assert "По состоянию на 10:10 МСК (01.12). Голосование до 23:00 МСК (01.12)." in count  # the read, Moscow time
    game.run(20)  # unchanged: nothing
    game.vote("Bob Smith", "Пётр", 21)
    game.run(25)  # changed, but 15 minutes and 1 post since the last count
    assert len(game.messenger.replies) == 1
    game.run(45)  # 35 minutes since: the changed count goes out
    assert len(game.messenger.replies) == 2 and "Лидер: Пётр — 2 голоса." in game.messenger.replies[1][2]
    for i, nick in enumerate(PLAYERS[2:7]):
        game.vote(nick, "Alice", 46 + i)
    game.run(52)  # 5 new posts: out at once
    assert len(game.messenger.replies) == 3
    assert game.messenger.replies[0][0] == str(game.topic)


def test_the_deadline_runs_end_day_and_sends_the_draft_to_the_moderators(game: Game) -> None:
    game.vote("Alice", "Пётр", 5)
    game.run(13 * 60 + 1)  # 20:01 UTC
    drafts = game.messenger.to("Модератор")
    assert len(drafts) == 1 and "Черновик итогов дня 1" in drafts[0]
    store = Store(game.path)
    assert store.draft(store.game("Мафия").id, 1) is not None
    game.run(13 * 60 + 30)
    assert len(game.messenger.to("Модератор")) == 1  # drafted once


def test_a_send_cut_off_is_retried_next_pass_and_nothing_is_sent_twice(game: Game) -> None:
    for i, nick in enumerate(game.town()[:3]):
        game.pm(nick, "O GENDER FEMALE", 10 + i)
    game.messenger.fail_after = 1
    game.run(20)
    assert len(game.messenger.pms) == 1
    game.run(21)
    assert len(game.messenger.pms) == 3
    assert len({body for _, _, body in game.messenger.pms}) == 3


def test_settings_report_and_quit(game: Game) -> None:
    nick = game.town()[0]
    game.pm(nick, "O GENDER ONA\nO AFTERLIFE OFF\nQ", 10)
    game.run(15)
    store = Store(game.path)
    game_id = store.game("Мафия").id
    assert store.setting(game_id, nick) == {"gender": "female", "afterlife": "off", "leaving": True}
    game.pm(nick, "Z", 20)  # any later message cancels Q
    game.run(25)
    assert store.setting(game_id, nick)["leaving"] is False
    assert "Мафия" in game.messenger.to(nick)[-1]  # the role message again
    game.pm(nick, "Q", 30)
    game.run(35)
    game.run(13 * 60 + 5)
    draft = store.draft(game_id, 1)
    assert draft is not None and draft.draft.to_json()["deaths"].get(nick) == "inactive"


def test_a_player_who_asks_for_help_gets_the_short_guide(game: Game) -> None:
    """«помощь» (or "help", any case) is answered with the players' guide in short, as true of this game
    (votes in the thread, no relays), and nothing else: no receipt saying no order was found."""
    from forumbot.render.guide import players_help

    game.pm("Alice", "Помощь", 10)
    game.pm("Bob Smith", "HELP", 11)
    game.run(15)
    guide = players_help({"thread"}, relays=False)
    assert game.messenger.to("Alice") == [game.messenger.to("Alice")[0]] and guide in game.messenger.to("Alice")[0]
    assert len(game.messenger.to("Bob Smith")) == 1 and guide in game.messenger.to("Bob Smith")[0]
    assert "красным жирным" in guide and "Голосую — Ник" not in guide and "#mail" not in guide
    subjects = [subject for recipients, subject, _ in game.messenger.pms if "Alice" in recipients]
    assert subjects == ["Мафия: команды бота"]
    game.run(20)
    assert len(game.messenger.to("Alice")) == 1  # answered once


def test_relays_are_off_unless_the_game_allows_them(game: Game) -> None:
    game.pm("Alice", "#mail Bob Smith ---\nпривет", 10)
    game.run(15)
    assert "пересылка писем в этой игре выключена" in game.messenger.to("Alice")[0]
    assert not game.messenger.to("Bob Smith")


@pytest.fixture
def relaying(tmp_path: Path, served: tuple[Board, BoardServer, int]) -> Game:
    board, server, forum = served
    return Game(tmp_path, server, board, forum, relays=True, relay_limit=2)


def test_relays_anonymous_mail_and_clan_walls(relaying: Game) -> None:
    game = relaying
    civilian = game.town()[0]
    game.pm(civilian, "#mail Bob Smith ---\nТы мафия?", 10)
    game.pm(civilian, "#mafia\nЯ знаю, кто вы.", 11)
    game.run(15)
    letters = [(r, s, b) for r, s, b in game.messenger.pms if "Ты мафия?" in b or "Я знаю" in b]
    anonymous = next(x for x in letters if "Ты мафия?" in x[2])
    assert anonymous[0] == ("Bob Smith",) and civilian not in anonymous[2] and anonymous[1] == "Анонимное письмо"
    walls = [x for x in letters if "Я знаю" in x[2]]
    # only members receive the wall, one PM each: no member learns from it who the others are
    assert sorted(w[0] for w in walls) == sorted((nick,) for nick in game.role("mafia"))
    receipts = [b for r, _, b in game.messenger.pms if r == (civilian,)]
    assert all("Письмо переслано." in b and "(" not in b.split("Письмо переслано")[1][:3] for b in receipts[-2:])
    store = Store(game.path)
    audit = store.relays(store.game("Мафия").id)
    assert [r["status"] for r in audit] == ["sent", "sent"]
    from typer.testing import CliRunner

    from forumbot.cli import app

    shown = CliRunner().invoke(app, ["relays", "Мафия", "--state", str(game.path)], terminal_width=200)
    assert shown.exit_code == 0 and "Bob Smith" in shown.output and "mafia" in shown.output


def test_hostile_relays_are_refused(relaying: Game) -> None:
    game = relaying
    sender = game.town()[0]
    store = Store(game.path)
    game_id = store.game("Мафия").id
    game.pm(sender, "#mail Nobody\nhi", 10)
    game.pm(sender, "#mail Alise\nhi", 11)
    game.run(15)
    answers = game.messenger.to(sender)
    assert "нет игрока «Nobody»" in answers[0]
    assert "нет игрока «Alise»; возможно, «Alice»" in answers[1]
    for i in range(3):  # a flood: the limit is 2 a day
        game.pm(sender, f"#wall\nспам {i}", 20 + i)
    game.run(25)
    statuses = [r["status"] for r in store.relays(game_id)]
    assert statuses[-3:] == ["sent", "sent", "refused: не больше 2 писем в день"]


def test_a_relay_to_a_dead_player_is_refused(relaying: Game) -> None:
    game = relaying
    store = Store(game.path)
    row = store.game("Мафия")
    assert row.state is not None
    dead = game.town()[1]
    players = tuple(p.model_copy(update={"alive": False}) if p.nick == dead else p for p in row.state.players)
    store.advance(row.id, 0, row.state.model_copy(update={"players": players}), {})  # the host's records
    game.pm(game.town()[0], f"#mail {dead}\nты жив?", 10)
    game.run(15)
    assert "выбыл из игры" in game.messenger.to(game.town()[0])[0]
    assert not game.messenger.to(dead)


def test_magic_word_signups_start_the_game(tmp_path: Path, served: tuple[Board, BoardServer, int]) -> None:
    board, server, forum = served
    store = Store(tmp_path / "state.db")
    config = GameConfig.model_validate(
        {
            "game": {"name": "kozanostra7", "variant": "kozanostra", "moderators": ["Модератор"]},
            "forum": {"engine": "phpbb", "base_url": server.url, "forum_id": forum},
            "watch": {"magic_word": "сезам", "max_players": 4},
        }
    )
    games.create_game(store, config)
    client = open_client(
        ClientSettings(
            forum=server.url, username="host_bot", password="pw", dialect="phpbb", http=HttpSettings(min_interval=0)
        )
    )
    messenger = Recorder()
    for i, nick in enumerate(["Alice", "Bob Smith", "Пётр"]):
        board.send_pm(nick, "host_bot", "запись", "сезам", START + timedelta(minutes=i))
    board.send_pm("Alice", "host_bot", "запись", "сезам", START + timedelta(minutes=5))  # twice
    board.send_pm("Шарик", "host_bot", "запись", "Сезам, откройся", START + timedelta(minutes=6))  # wrong
    report = watch_once(store, "kozanostra7", client, messenger, START + timedelta(minutes=10))
    assert store.players(store.game("kozanostra7").id) == ["Alice", "Bob Smith", "Пётр"]
    assert not report.started
    assert "Вы уже записаны" in messenger.to("Alice")[-1]
    wrong = messenger.to("Шарик")[0]
    assert "не волшебное слово" in wrong and "сезам" not in wrong.lower()
    board.send_pm("Дядя Фёдор", "host_bot", "запись", "сезам", START + timedelta(minutes=12))
    report = watch_once(store, "kozanostra7", client, messenger, START + timedelta(minutes=15))
    assert report.started
    state = store.game("kozanostra7").state
    assert state is not None and len(state.players) == 4
    for nick in ("Alice", "Bob Smith", "Пётр", "Дядя Фёдор"):
        assert any("kozanostra7" in body for body in messenger.to(nick)[-1:])


class CrashAfterSend(Recorder):
    """Sends, then the process dies before it can write down that it did."""

    def send_pm(self, recipients: Sequence[str], subject: str, message: str, *, marker: str | None = None) -> None:
        super().send_pm(recipients, subject, message, marker=marker)
        if len(self.pms) == 1:
            raise KeyboardInterrupt("killed right after the forum took the PM")


def test_a_crash_after_the_forum_took_a_pm_does_not_send_it_again(game: Game) -> None:
    game.pm(game.town()[0], "O GENDER FEMALE", 10)
    game.messenger = CrashAfterSend()
    with pytest.raises(KeyboardInterrupt):
        game.run(15)
    game.run(16)
    assert len(game.messenger.pms) == 1


def test_watch_once_from_the_command_line_over_real_phpbb_forms(
    tmp_path: Path, served: tuple[Board, BoardServer, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    from forumbot.cli import app

    board, server, forum = served
    monkeypatch.setenv("FORUMBOT_USERNAME", "host_bot")
    monkeypatch.setenv("FORUMBOT_PASSWORD", "pw")
    monkeypatch.setenv("FORUMBOT_MIN_INTERVAL", "0")
    monkeypatch.setenv("FORUMBOT_STATE", str(tmp_path / "state.db"))
    players = ", ".join(f'"{p}"' for p in PLAYERS)
    (tmp_path / "game.toml").write_text(
        f'[game]\nname = "Мафия"\nvariant = "gameru-3.3"\nplayers = [{players}]\n'
        f'[forum]\nengine = "phpbb"\nbase_url = "{server.url}"\nforum_id = {forum}\n',
        encoding="utf-8",
    )
    runner = CliRunner()
    assert runner.invoke(app, ["new-game", str(tmp_path / "game.toml")]).exit_code == 0
    topic = board.add_topic(forum, "Мафия. День 1", "host_bot", "День 1", datetime.now(UTC))
    assert runner.invoke(app, ["deal", "Мафия", "--topic", str(topic)]).exit_code == 0
    board.send_pm("Alice", "host_bot", "приказ", "Убиваем — Пётр", datetime.now(UTC))
    for _ in range(2):
        result = runner.invoke(app, ["watch", "Мафия", "--once"])
        assert result.exit_code == 0, result.output
    receipts = [pm for pm in board.pms_to("Alice") if pm.sender == "host_bot"]
    assert len(receipts) == 1
    assert receipts[0].body.startswith("Не принято: Убиваем — Пётр:") or receipts[0].body.startswith("Принято")


def test_watch_once_says_what_became_of_the_draft_and_fails_when_the_board_refused_it(
    tmp_path: Path, served: tuple[Board, BoardServer, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    from forumbot.cli import app

    board, server, forum = served
    monkeypatch.setenv("FORUMBOT_USERNAME", "host_bot")
    monkeypatch.setenv("FORUMBOT_PASSWORD", "pw")
    monkeypatch.setenv("FORUMBOT_MIN_INTERVAL", "0")
    monkeypatch.setenv("FORUMBOT_STATE", str(tmp_path / "state.db"))
    players = ", ".join(f'"{p}"' for p in PLAYERS)
    (tmp_path / "game.toml").write_text(
        f'[game]\nname = "Мафия"\nvariant = "gameru-3.3"\nplayers = [{players}]\n'
        'moderators = ["Модератор", "Никто"]\n'  # no member of the board is «Никто»
        f'[forum]\nengine = "phpbb"\nbase_url = "{server.url}"\nforum_id = {forum}\n'
        "[watch]\ninterim_counts = false\n",
        encoding="utf-8",
    )
    runner = CliRunner()
    assert runner.invoke(app, ["new-game", str(tmp_path / "game.toml")]).exit_code == 0
    topic = board.add_topic(forum, "Мафия. День 1", "host_bot", "День 1", START)
    assert runner.invoke(app, ["deal", "Мафия", "--topic", str(topic), "--now", START.isoformat()]).exit_code == 0
    after = (START + timedelta(hours=13, minutes=5)).isoformat()  # past 23:00 in Moscow
    result = runner.invoke(app, ["watch", "Мафия", "--once", "--now", after])
    assert result.exit_code == 2, result.output
    assert "draft made" in result.output and "the draft is sent to Модератор" in result.output
    assert "problem: the draft is NOT sent to Никто: " in result.output
    assert "draft made and sent" not in result.output


def test_the_last_signup_opens_the_game_on_the_forum(tmp_path: Path, served: tuple[Board, BoardServer, int]) -> None:
    from forumbot.forum.phpbb.writer import PhpbbPoster
    from forumbot.host.publish import publish

    board, server, forum = served
    store = Store(tmp_path / "state.db")
    config = GameConfig.model_validate(
        {
            "game": {"name": "kozanostra8", "variant": "kozanostra"},
            "forum": {"engine": "phpbb", "base_url": server.url, "forum_id": forum},
            "watch": {"magic_word": "сезам", "max_players": 4},
        }
    )
    games.create_game(store, config)
    client = open_client(
        ClientSettings(
            forum=server.url, username="host_bot", password="pw", dialect="phpbb", http=HttpSettings(min_interval=0)
        )
    )
    poster = PhpbbPoster(client, flood_interval=0)
    for i, nick in enumerate(["Alice", "Bob Smith", "Пётр", "Шарик"]):
        board.send_pm(nick, "host_bot", "запись", "сезам", START + timedelta(minutes=i))
    when = START + timedelta(minutes=10)
    for _ in range(2):  # a second pass repeats nothing
        watch_once(
            store, "kozanostra8", client, poster, when, publish=lambda: publish(store, "kozanostra8", client, when)
        )
    topics = [t for t in board.topics if t.forum_id == forum and "kozanostra8" in t.title]
    assert len(topics) == 1  # day 1's topic, with the commitment
    for nick in ("Alice", "Bob Smith", "Пётр", "Шарик"):
        from_bot = [pm for pm in board.pms_to(nick) if pm.sender == "host_bot"]
        assert sum("записаны" in pm.body for pm in from_bot) == 1
        assert len(from_bot) == 2  # the signup receipt and the role, once each


def test_the_loop_finishes_its_pass_and_stops_on_sigterm() -> None:
    import os
    import signal
    import threading

    from forumbot.host.watch import PassReport, watch_loop

    passes: list[int] = []

    def one_pass() -> PassReport:
        passes.append(1)
        if len(passes) == 2:
            os.kill(os.getpid(), signal.SIGTERM)  # arrives in the middle of a pass
        return PassReport()

    finished = threading.Event()
    watch_loop(one_pass, timedelta(milliseconds=10), on_report=lambda r: finished.set())
    assert len(passes) == 2 and finished.is_set()
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # the host's handler is back
