"""One login a game on IPB 2.2 (UTF-8 and windows-1251) and IPB 3.4 (friendly URLs on and off): the session a
client kept (its cookies) is resumed by the next one, which asks for the login page first and posts no login form
when the board's member bar shows the account; a session the board forgot is logged in anew (and that session is
the one kept); a session refused in the middle of a write goes through the re-login, and the write then looks for
its marker before it sends anything again. Requests are counted on the fake boards."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from ipb_support import IpbPlayed, ipb_played_day
from publish_support import BOT

from fakeboard.server import Request, Response
from forumbot.forum.invision.reader import InvisionClient

MARK = "fbm0000000000000000000000c1"
BOARDS: dict[str, tuple[int, dict[str, Any]]] = {
    "ipb2-utf8": (2, {"charset": "utf-8"}),
    "ipb2-cp1251": (2, {"charset": "windows-1251"}),
    "ipb3-friendly": (3, {"friendly_urls": True}),
    "ipb3-plain": (3, {"friendly_urls": False}),
}
REPLY_POST = {2: "POST index.php#act=Post", 3: "POST index.php#module=post"}


@pytest.fixture(params=sorted(BOARDS))
def day(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[IpbPlayed]:
    version, server = BOARDS[str(request.param)]
    with ipb_played_day(tmp_path, version=version, **server) as played:
        yield played


def login_forms(day: IpbPlayed) -> int:
    """Login forms posted to the board so far."""
    sign_in = "act=Login" if day.version == 2 else "do=process"
    posted: int = day.server.count("index.php", method="POST", query=sign_in)
    return posted


def login_pages(day: IpbPlayed) -> int:
    """Login pages asked for so far (the first request of every login, resumed or not)."""
    page = "act=Login&CODE=00" if day.version == 2 else "section=login"
    asked: int = day.server.count("index.php", method="GET", query=page)
    return asked


def cookies(kept: str | None) -> dict[str, str]:
    assert kept is not None
    return {name: value for name, value, *_ in json.loads(kept)}


def kept_by_a_first_command(day: IpbPlayed) -> str:
    """The session a first command logged in with, as it keeps it."""
    first = day.client()
    list(first.fetch_topic(day.day1_topic))
    kept: str | None = first.kept_session()
    first.close()
    assert login_forms(day) == 1 and kept is not None
    return kept


def resumed(day: IpbPlayed, kept: str) -> InvisionClient:
    client: InvisionClient = day.client()
    client.resume_session(kept)
    return client


def test_a_second_command_resumes_the_session_and_posts_no_login_form(day: IpbPlayed) -> None:
    kept = kept_by_a_first_command(day)
    first_cost = day.server.request_count
    day.server.reset_log()
    second = resumed(day, kept)
    list(second.fetch_topic(day.day1_topic))
    assert login_forms(day) == 0 and login_pages(day) == 1  # the login page showed the account: nothing posted
    assert first_cost - day.server.request_count == 2  # the login form and the page it leads to, saved
    assert second.viewer().name == BOT and second.account_id is not None  # the member the login page showed
    assert cookies(second.kept_session())["member_id"] == cookies(kept)["member_id"]


def test_a_session_the_board_forgot_is_logged_in_anew_and_the_new_one_kept(day: IpbPlayed) -> None:
    kept = kept_by_a_first_command(day)
    day.server.expire_sessions()  # the session and the remembered login (a new member key)
    second = resumed(day, kept)
    list(second.fetch_topic(day.day1_topic))
    assert login_forms(day) == 2
    renewed = second.kept_session()
    assert cookies(renewed)["pass_hash"] != cookies(kept)["pass_hash"]
    assert cookies(renewed)["session_id"] != cookies(kept)["session_id"]
    assert renewed is not None
    list(resumed(day, renewed).fetch_topic(day.day1_topic))
    assert login_forms(day) == 2  # the new session, kept, is resumed


def test_a_session_gone_whose_remembered_login_stands_is_made_again_by_the_board(day: IpbPlayed) -> None:
    kept = kept_by_a_first_command(day)
    day.server.expire_sessions(keep_autologin=True)
    second = resumed(day, kept)
    list(second.fetch_topic(day.day1_topic))
    assert login_forms(day) == 1  # IPB logged the account in from member_id and pass_hash
    assert cookies(second.kept_session())["session_id"] != cookies(kept)["session_id"]  # its new session, kept


def test_a_session_the_board_gives_another_member_is_no_proof_the_login_form_is_posted(day: IpbPlayed) -> None:
    kept = kept_by_a_first_command(day)
    other = day.client(username="Alice", password="Alice-secret")
    other.login()
    alices = cookies(other.kept_session())["session_id"]
    mixed = [[name, alices if name == "session_id" else value, *rest] for name, value, *rest in json.loads(kept)]
    second = resumed(day, json.dumps(mixed))  # the board knows this session as Alice's: her member bar
    list(second.fetch_topic(day.day1_topic))
    assert login_forms(day) == 3 and second.viewer().name == BOT  # the bot's own login, posted


@contextmanager
def session_ended_by_the_answer(day: IpbPlayed, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The board ends the session (and the remembered login) as it answers with its guest page."""
    served = day.server._login_answer

    def ended(request: Request) -> Response:
        day.server.expire_sessions()
        answer: Response = served(request)
        return answer

    monkeypatch.setattr(day.server, "_login_answer", ended)
    yield


def write_requests(day: IpbPlayed) -> list[str]:
    """What the board was asked from the first reply POST on: the reply POSTs, login POSTs and topic reads."""
    sign_in = "act=Login" if day.version == 2 else "do=process"
    seen: list[str] = []
    for r in day.server.requests:
        if r.method == "POST" and sign_in in r.query:
            seen.append("login")
        elif r.method == "POST" and r in day.writes():
            seen.append("reply")
        elif r.method == "GET" and ("showtopic" in r.query or "/topic/" in r.query) and seen:
            seen.append("read")
    return seen


@pytest.mark.parametrize("when", ["after", "before"])
def test_a_resumed_session_refused_mid_write_logs_in_again_and_looks_for_the_marker_first(
    day: IpbPlayed, monkeypatch: pytest.MonkeyPatch, when: str
) -> None:
    kept = kept_by_a_first_command(day)
    day.server.reset_log()
    poster = day.poster(resumed(day, kept))
    strike = day.server.fail_after_acting if when == "after" else day.server.fail_before_acting
    strike(REPLY_POST[day.version], "login")
    with session_ended_by_the_answer(day, monkeypatch):
        reply = poster.post_reply(day.day1_topic, "", f"итоги {MARK}", marker=MARK)
    assert [p.post_id for p in day.board.posts_of(day.day1_topic) if MARK in p.body] == [reply]  # made once
    steps = write_requests(day)
    assert steps[:3] == ["reply", "login", "read"]  # logged in again, then looked before anything else
    assert steps.count("reply") == (1 if when == "after" else 2) and steps.count("login") == 1
    assert cookies(poster.client.kept_session())["session_id"] != cookies(kept)["session_id"]


def test_a_write_refused_once_on_a_session_the_board_still_knows_posts_no_login_form(day: IpbPlayed) -> None:
    kept = kept_by_a_first_command(day)
    day.server.reset_log()
    poster = day.poster(resumed(day, kept))
    day.server.fail_after_acting(REPLY_POST[day.version], "login")  # a guest's page, the session alive
    reply = poster.post_reply(day.day1_topic, "", f"итоги {MARK}", marker=MARK)
    assert [p.post_id for p in day.board.posts_of(day.day1_topic) if MARK in p.body] == [reply]
    assert login_forms(day) == 0 and write_requests(day).count("reply") == 1
