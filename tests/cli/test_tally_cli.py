"""`forumbot tally --from DIR --json` on the demo day: a thread of several pages holding every trap of
docs/votes-and-orders.md.

The expectations are written from the posts of fixtures/demo/make_demo.py and docs/votes-and-orders.md, not from output.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from typer.testing import CliRunner

from forumbot.cli import app
from forumbot.host.tally import StaleCount, Tally, render_tally_bbcode, tally_posts
from forumbot.posts import Post

DEMO = Path(__file__).resolve().parents[2] / "fixtures" / "demo"
PLAYERS = [
    "Alice",
    "Bob Smith",
    "Пётр",
    "Кот_Учёный",
    "Дядя Фёдор",
    "Шарик",
    "Mr. Pink",
    "Charlie",
    "Ёжик в тумане",
    "Dana_99",
    "Незнайка",
    "Winnie",
    "Маша",
    "Gandalf",
    "Чебурашка",
]
GHOST = "Призрак_Оперы"

# (voter, target, counted, reason), in the order of the posts.
EXPECTED = [
    ("Alice", "Пётр", True, None),
    ("Bob Smith", "Кот_Учёный", False, "superseded"),  # he changes his vote at 15:10
    ("Кот_Учёный", "Пётр", False, "quoted"),
    ("Дядя Фёдор", "Mr. Pink", False, "not_red"),  # dark red
    ("Шарик", "Дядя Фёдор", False, "not_bold"),  # red, not bold
    ("Шарик", "Дядя Фёдор", False, "not_red"),  # bold, not red
    ("Mr. Pink", "Dana_99", False, "edited"),  # edited by its author
    ("Кот_Учёный", "Bob Smith", True, None),
    ("Charlie", "Koт_Учёный", False, "unknown_nick"),  # Latin K and o in a Cyrillic nick
    ("Ёжик в тумане", "Пётр", True, None),
    ("Dana_99", "Пётр", False, "edited"),  # edited by a moderator, with a reason
    (GHOST, "Alice", False, "dead_voter"),
    ("Маша", "Gandalf", False, "superseded"),  # two votes in one post: the last one counts
    ("Маша", "Пётр", True, None),
    ("Bob Smith", "Пётр", True, None),
    ("Шарик", "Дядя Фёдор", True, None),  # [color=Red]: colours compare case-insensitively
    ("Gandalf", "Маша", True, None),  # rgb(255, 0, 0)
    ("Пётр", "Alice", True, None),
    ("Winnie", "Пётр", False, "after_deadline"),  # 23:04, the day ended at 23:00
]


@pytest.fixture
def lists(tmp_path: Path) -> tuple[Path, Path]:
    players = tmp_path / "players.txt"
    players.write_text("\n".join(PLAYERS) + "\n", encoding="utf-8")
    dead = tmp_path / "dead.txt"
    dead.write_text(GHOST + "\n", encoding="utf-8")
    return players, dead


def tally(*extra: str) -> dict[str, Any]:
    result = CliRunner().invoke(app, ["tally", "--from", str(DEMO / "pages"), *extra, "--json"])
    assert result.exit_code == 0, result.output
    payload: dict[str, Any] = json.loads(result.stdout)
    return payload


def test_every_trap_of_the_demo_day(lists: tuple[Path, Path]) -> None:
    players, dead = lists
    data = tally(
        "--players", str(players), "--dead", str(dead), "--start", "2026-11-29T10:00", "--deadline", "2026-11-29T23:00"
    )
    votes = data["votes"]
    assert [(v["voter"], v["target"], v["counted"], v["reason"]) for v in votes] == EXPECTED
    look_alike = next(v for v in votes if v["reason"] == "unknown_nick")
    assert look_alike["nearest"] == "Кот_Учёный"
    assert all(v["link"] and "viewtopic.php?p=" in v["link"] for v in votes)
    assert data["tally"] == {"Пётр": 4, "Bob Smith": 1, "Дядя Фёдор": 1, "Маша": 1, "Alice": 1}
    assert data["leader"] == "Пётр"
    assert set(data["not_voting"]) == {
        "Mr. Pink",
        "Charlie",
        "Dana_99",
        "Незнайка",
        "Winnie",
        "Чебурашка",
        "Дядя Фёдор",
    }


def test_without_the_dead_list_a_ghost_is_not_a_player(lists: tuple[Path, Path]) -> None:
    players, _ = lists
    data = tally("--players", str(players), "--deadline", "2026-11-29T23:00")
    ghost = next(v for v in data["votes"] if v["voter"] == GHOST)
    assert ghost["reason"] == "not_player" and not ghost["counted"]


def test_a_window_that_starts_later_drops_the_morning(lists: tuple[Path, Path]) -> None:
    players, dead = lists
    data = tally(
        "--players", str(players), "--dead", str(dead), "--start", "2026-11-29T13:00", "--deadline", "2026-11-29T23:00"
    )
    alice = next(v for v in data["votes"] if v["voter"] == "Alice")
    assert alice["reason"] == "before_start"
    assert data["tally"]["Пётр"] == 3


def test_the_vote_count_post_is_ready_to_paste(lists: tuple[Path, Path]) -> None:
    players, dead = lists
    result = CliRunner().invoke(
        app,
        [
            "tally",
            "--from",
            str(DEMO / "pages"),
            "--players",
            str(players),
            "--dead",
            str(dead),
            "--deadline",
            "2026-11-29T23:00",
            "--bbcode",
        ],
    )
    assert result.exit_code == 0, result.output
    post = result.output[result.output.index("[b]Подсчёт голосов") :]
    # without a read time (saved pages), the count stands as of the newest post: Маша's remark at 23:20
    assert "По состоянию на 23:20 МСК (29.11). Голосование до 23:00 МСК (29.11)." in post
    assert "В живых: 15; проголосовали: 8." in post
    assert "Лидер: Пётр — 4 голоса." in post
    assert "Пётр: 4 голоса (Alice, Ёжик в тумане, Маша, Bob Smith)" in post
    assert "Не голосовали (7): " in post and "Чебурашка" in line_of(post, "Не голосовали")
    assert post.count("[b]") == 1  # the title only: no nick in bold, let alone red bold


def test_the_count_post_s_heading_is_the_one_render_makes_for_the_day(lists: tuple[Path, Path]) -> None:
    """The heading a host pastes is the count's name the bot's own counts carry (render/receipts.py)."""
    from forumbot.render.receipts import count_title

    players, dead = lists
    args = ["tally", "--from", str(DEMO / "pages"), "--players", str(players), "--dead", str(dead), "--bbcode"]
    result = CliRunner().invoke(app, [*args, "--day", "3"])
    assert result.exit_code == 0, result.output
    assert f"[b]{count_title(3)}[/b]" in result.output and count_title(3) != count_title(1)


def line_of(text: str, start: str) -> str:
    return next(line for line in text.splitlines() if line.startswith(start))


# --- the count as players read it -------------------------------------------------------------------------

MOSCOW = ZoneInfo("Europe/Moscow")
NOON = datetime(2026, 11, 29, 9, 0, tzinfo=UTC)  # 12:00 Moscow


def red_bold(post_id: int, author: str, target: str) -> Post:
    body = f'<span style="color:red"><strong class="text-strong">{target}</strong></span>'
    return Post(
        post_id=post_id,
        topic_id=1,
        author=author,
        author_id=None,
        time=NOON + timedelta(minutes=post_id),
        content_html=body,
        permalink=f"./viewtopic.php?p={post_id}#p{post_id}",
    )


def count_of(votes: list[tuple[str, str]], **kwargs: Any) -> Tally:
    posts = [red_bold(i + 1, voter, target) for i, (voter, target) in enumerate(votes)]
    return tally_posts(posts, ["Анна", "Борис", "Вера", "Глеб"], deadline=NOON.replace(hour=20), **kwargs)


def test_a_tie_is_named_as_a_tie_with_who_goes_by_the_rules() -> None:
    tally = count_of([("Анна", "Борис"), ("Борис", "Вера")], read_at=NOON + timedelta(minutes=30))
    post = render_tally_bbcode(tally, "Подсчёт", zone=MOSCOW)
    assert "Ничья: Борис, Вера — по 1 голосу. По правилам сейчас впереди: Борис." in post  # the earliest vote
    assert "Лидер:" not in post
    tied3 = count_of([("Анна", "Борис"), ("Борис", "Анна"), ("Вера", "Борис"), ("Глеб", "Анна")])
    assert "Ничья: Борис, Анна — по 2 голоса." in render_tally_bbcode(tied3, "Подсчёт", zone=MOSCOW)


def test_the_time_of_the_count_is_the_read_in_the_games_zone() -> None:
    tally = count_of([("Анна", "Борис")], read_at=datetime(2026, 11, 29, 18, 30, tzinfo=UTC))
    moscow = render_tally_bbcode(tally, "Подсчёт", zone=MOSCOW)
    assert "По состоянию на 21:30 МСК (29.11). Голосование до 23:00 МСК (29.11)." in moscow
    assert "В живых: 4; проголосовали: 1." in moscow and "Не голосовали (3): Борис, Вера, Глеб" in moscow
    ekaterinburg = render_tally_bbcode(tally, "Подсчёт", zone=ZoneInfo("Asia/Yekaterinburg"))
    assert "По состоянию на 23:30 UTC+5 (29.11). Голосование до 01:00 UTC+5 (30.11)." in ekaterinburg


def test_a_count_from_a_read_older_than_the_last_post_is_refused() -> None:
    read_at = NOON + timedelta(minutes=10)
    tally = count_of([("Анна", "Борис")], read_at=read_at)
    with pytest.raises(StaleCount, match="before the last post"):
        render_tally_bbcode(tally, "Подсчёт", zone=MOSCOW, last_post_at=read_at + timedelta(seconds=1))
    assert "Борис: 1 голос (Анна)" in render_tally_bbcode(tally, "Подсчёт", zone=MOSCOW, last_post_at=read_at)
    cached = count_of([("Анна", "Борис")], read_at=read_at, complete=False)
    with pytest.raises(StaleCount, match="from the cache"):
        render_tally_bbcode(cached, "Подсчёт", zone=MOSCOW)


def test_bad_inputs_are_one_line_errors(tmp_path: Path, lists: tuple[Path, Path]) -> None:
    players, _ = lists
    runner = CliRunner()
    no_source = runner.invoke(app, ["tally", "--players", str(players)])
    assert no_source.exit_code == 2 and "either a topic URL or --from DIR" in no_source.output
    bad_time = runner.invoke(
        app, ["tally", "--from", str(DEMO / "pages"), "--players", str(players), "--deadline", "tomorrow"]
    )
    assert bad_time.exit_code == 2 and "not an ISO date-time" in bad_time.output
    empty = tmp_path / "empty"
    empty.mkdir()
    nothing = runner.invoke(app, ["tally", "--from", str(empty), "--players", str(players)])
    assert nothing.exit_code == 2 and "no thread pages" in nothing.output


@pytest.mark.real_sleep(reason="the command line's client logs in on the real clock: phpBB's one-second rule waits")
def test_a_live_topic_over_http_and_a_retally_fetches_one_page(
    tmp_path: Path, lists: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    from datetime import UTC, datetime, timedelta

    from fakeboard import Board, BoardServer

    players, _ = lists
    board = Board()
    board.add_user("host_bot", "pw", moderator=True)
    forum = board.add_forum("Мафия")
    start = datetime(2026, 11, 29, 7, 0, tzinfo=UTC)
    opening = f"Вчера голосовали:\n[list][*][b]{PLAYERS[0]}[/b]: 4 голоса[/list]"  # as the bot's day post lists them
    topic = board.add_topic(forum, "День 1", "host_bot", opening, start)
    for i, voter in enumerate(PLAYERS[:12]):
        board.add_post(topic, voter, f"[color=red][b]{PLAYERS[(i + 1) % 3]}[/b][/color]", start + timedelta(minutes=i))
    monkeypatch.setenv("FORUMBOT_USERNAME", "host_bot")
    monkeypatch.setenv("FORUMBOT_PASSWORD", "pw")
    monkeypatch.setenv("FORUMBOT_MIN_INTERVAL", "0")
    monkeypatch.setenv("FORUMBOT_STATE", str(tmp_path / "state.db"))
    with BoardServer(board, posts_per_page=5) as server:
        url = f"{server.url}viewtopic.php?t={topic}"
        first = CliRunner().invoke(app, ["tally", url, "--players", str(players), "--json"])
        assert first.exit_code == 0, first.output
        assert json.loads(first.stdout)["tally"] == {"Bob Smith": 4, "Пётр": 4, "Alice": 4}
        assert json.loads(first.stdout)["leader"] == "Bob Smith"  # gameru-3.3: voted for earliest
        assert [v for v in json.loads(first.stdout)["votes"] if v["voter"] == "host_bot"] == []  # the bot's opening
        server.reset_log()
        again = CliRunner().invoke(app, ["tally", url, "--players", str(players), "--json"])
        assert again.exit_code == 0, again.output
        topic_pages = [r for r in server.requests if r.path.endswith("viewtopic.php")]
        assert len(topic_pages) == 3  # every page again: an edit on an earlier page must be seen
        server.reset_log()
        quick = CliRunner().invoke(app, ["tally", url, "--players", str(players), "--json", "--incremental"])
        assert quick.exit_code == 0, quick.output
        topic_pages = [r for r in server.requests if r.path.endswith("viewtopic.php")]
        assert len(topic_pages) == 1  # only the last known page: nothing new
        # the re-tally counts the unchanged pages from the votes kept beside them: the same count, same records
        assert json.loads(quick.stdout)["tally"] == json.loads(first.stdout)["tally"]
        assert json.loads(quick.stdout)["votes"] == json.loads(first.stdout)["votes"]
        assert "may miss edits" in quick.stderr
        refused = CliRunner().invoke(app, ["tally", url, "--players", str(players), "--bbcode", "--incremental"])
        assert refused.exit_code != 0 and "no vote-count post" in refused.stderr  # a count that may miss edits
        full = CliRunner().invoke(app, ["tally", url, "--players", str(players), "--bbcode"])
        assert full.exit_code == 0, full.output
        assert "Подсчёт голосов, день 1" in full.stdout
