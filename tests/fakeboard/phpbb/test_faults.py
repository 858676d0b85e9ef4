"""The faults of the fake phpBB, before and after it acts on a write: a status page (with `Retry-After`), a
reset, its own login page, its own "the submitted form was invalid" answer, an answer broken off halfway;
what the board stored, and what the client receives."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime

import pytest

from fakeboard import Board, BoardServer
from fakeboard.clock import FakeClock
from fakeboard.phpbb import FORM_INVALID
from forumbot.errors import MaybeSent
from forumbot.forum.http import BoardBusy, HttpSettings, LoggedOutAnswer, Page
from forumbot.forum.markup import browser_fields, find_form, parse_html
from forumbot.forum.outcome import LoggedOut, Stored, Unknown
from forumbot.forum.phpbb.answers import is_whole, pm_answer, post_answer
from forumbot.forum.phpbb.reader import PhpbbClient

BOT = "host_bot"


@dataclass
class Scene:
    board: Board
    server: BoardServer
    client: PhpbbClient
    clock: FakeClock
    topic: int

    def reply(self, text: str) -> Page:
        """A reply submitted as a browser does (the form fetched, a second later sent)."""
        http = self.client.http
        form_url = http.url(f"posting.php?mode=reply&t={self.topic}")
        page = http.get(form_url)
        form = find_form(parse_html(page.text), "postform")
        assert form is not None
        fields = [(k, v) for k, v in browser_fields(form, press="post") if k != "message"] + [("message", text)]
        self.clock.advance()
        return http.post(http.rebase(form.get("action") or form_url), fields, content=True, idempotent=False)

    def pm(self, text: str) -> Page:
        http = self.client.http
        compose = http.url("ucp.php?i=pm&mode=compose")
        page = http.get(compose)
        form = find_form(parse_html(page.text), "postform")
        assert form is not None
        fields = browser_fields(form, press="add_to") + [("username_list", "Alice")]
        added = http.post(http.rebase(form.get("action") or compose), fields, content=True)
        form = find_form(parse_html(added.text), "postform")
        assert form is not None
        fields = [(k, v) for k, v in browser_fields(form, press="post") if k not in ("subject", "message")]
        self.clock.advance()
        action = http.rebase(form.get("action") or compose)
        return http.post(action, [*fields, ("subject", "s"), ("message", text)], content=True, idempotent=False)

    def replies(self) -> list[str]:
        return [p.body for p in self.board.posts_of(self.topic)[1:]]


@pytest.fixture
def scene(clock: FakeClock) -> Iterator[Scene]:
    board = Board(now=lambda: datetime.fromtimestamp(clock.now, UTC))
    board.add_user(BOT, "secret", moderator=True)
    board.add_user("Alice", "alice-secret")
    board.add_forum("Mafia", forum_id=4)
    topic = board.add_topic(4, "Day 1", BOT, "votes here", datetime.fromtimestamp(clock.now, UTC))
    with BoardServer(board, clock=clock) as server:
        settings = HttpSettings(min_interval=0, max_attempts=1, backoff_base=0, concurrency=1)
        client = PhpbbClient(server.url, username=BOT, password="secret", settings=settings, clock=clock)
        client.login()
        yield Scene(board, server, client, clock, topic)
        client.close()
        assert not server.errors, server.errors[0]


@pytest.mark.parametrize("acted", [False, True], ids=["before", "after"])
def test_a_busy_answer_says_how_long_to_wait(scene: Scene, acted: bool) -> None:
    place = scene.server.fail_after_acting if acted else scene.server.fail_before_acting
    place("POST posting.php", "503:7")
    with pytest.raises(BoardBusy) as busy:
        scene.reply("one")
    assert (busy.value.status, busy.value.wait) == (503, 7.0)
    assert scene.replies() == (["one"] if acted else [])
    place("POST posting.php", "429")
    with pytest.raises(BoardBusy) as busy:
        scene.reply("two")
    assert (busy.value.status, busy.value.wait) == (429, None)


@pytest.mark.parametrize("acted", [False, True], ids=["before", "after"])
def test_a_reset_answers_nothing(scene: Scene, acted: bool) -> None:
    (scene.server.fail_after_acting if acted else scene.server.fail_before_acting)("POST posting.php", "reset")
    with pytest.raises(MaybeSent) as cut:
        scene.reply("one")
    assert not isinstance(cut.value, BoardBusy)
    assert scene.replies() == (["one"] if acted else [])


@pytest.mark.parametrize("acted", [False, True], ids=["before", "after"])
def test_a_login_page_in_answer_to_a_write_is_the_boards_own(scene: Scene, acted: bool) -> None:
    (scene.server.fail_after_acting if acted else scene.server.fail_before_acting)("POST posting.php", "login")
    with pytest.raises(LoggedOutAnswer) as answered:
        scene.reply("one")
    outcome = post_answer(answered.value.page.url, answered.value.page.text, "reply")
    assert outcome == LoggedOut("You need to login in order to reply to topics within this forum.")
    assert scene.replies() == (["one"] if acted else [])
    assert not scene.client.http.logged_in  # the session is taken as ended: the next request logs in first


@pytest.mark.parametrize("acted", [False, True], ids=["before", "after"])
def test_the_invalid_form_answer_is_the_form_again_with_the_boards_error(scene: Scene, acted: bool) -> None:
    (scene.server.fail_after_acting if acted else scene.server.fail_before_acting)("POST ucp.php#post", "invalid")
    answer = scene.pm("one")
    assert pm_answer(answer.text) == Unknown(FORM_INVALID, "form_invalid")  # only that error: no flood beside it
    assert [m.body for m in scene.board.pms_to("Alice")] == (["one"] if acted else [])


def test_an_answer_cut_after_the_board_acted_stops_halfway_without_a_length(scene: Scene) -> None:
    scene.server.fail_after_acting("POST ucp.php#post", "cut")
    answer = scene.pm("one")
    assert not is_whole(answer.text) and answer.text.strip()
    assert isinstance(pm_answer(answer.text), Stored | Unknown)  # what the half shows, no more
    assert [m.body for m in scene.board.pms_to("Alice")] == ["one"]
    # a redirect (a reply's answer) has no body: it breaks off inside its headers
    scene.server.fail_after_acting("POST posting.php", "cut")
    with pytest.raises(MaybeSent):
        scene.reply("two")
    assert scene.replies() == ["two"]


def test_an_answer_cut_before_the_board_acted_is_its_invalid_form_answer_halved(scene: Scene) -> None:
    scene.server.fail_before_acting("POST posting.php", "cut")
    answer = scene.reply("one")
    outcome = post_answer(answer.url, answer.text, "reply")
    assert isinstance(outcome, Unknown) and outcome.why in ("cut", "form_invalid")
    assert scene.replies() == []


def test_a_fault_strikes_the_request_it_names_once(scene: Scene) -> None:
    scene.server.fail_before_acting("POST ucp.php#post", "503")
    assert scene.server.faults.pending() == 1
    scene.reply("a reply is not a PM's sending")
    assert scene.server.faults.pending() == 1 and scene.replies() == ["a reply is not a PM's sending"]
    with pytest.raises(BoardBusy):
        scene.pm("one")
    assert scene.server.faults.pending() == 0
