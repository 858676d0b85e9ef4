"""Limits a broken or hostile board cannot get past: a body trickled byte by byte, a topic whose every
page claims one more page."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from forumbot.errors import ForumUnavailable, ParseError
from forumbot.forum.client import MAX_GROWTH
from forumbot.forum.http import ForumHttp, HttpSettings
from forumbot.forum.phpbb.reader import PhpbbClient
from forumbot.posts import Post, TopicPage


class Trickle(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 (the stdlib's naming)
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", "1000")
        self.end_headers()
        for _ in range(1000):
            self.wfile.write(b"x")
            self.wfile.flush()
            time.sleep(0.05)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


@pytest.fixture
def trickling() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Trickle)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()


class NoRules:
    def is_login_wall(self, html: str) -> bool:
        return False

    def is_no_permission(self, html: str) -> bool:
        return False


def test_a_body_trickled_past_the_deadline_is_given_up(trickling: str) -> None:
    http = ForumHttp(trickling, NoRules(), settings=HttpSettings(timeout=5, deadline=0.5, max_attempts=1))
    began = time.monotonic()
    with pytest.raises(ForumUnavailable, match="more than 0.5 s"):
        http.get(trickling, content=False)
    assert time.monotonic() - began < 3  # each byte came within the read timeout; the whole did not


def test_a_topic_whose_pages_keep_claiming_more_is_stopped(monkeypatch: pytest.MonkeyPatch) -> None:
    client = PhpbbClient("http://board.test/")
    fetched: list[int] = []

    def endless(topic: int, number: int, size: int, on_body: object = None) -> TopicPage:
        fetched.append(number)
        post = Post(
            post_id=number,
            topic_id=topic,
            author="A",
            author_id=None,
            time="2026-12-01T10:00:00+00:00",
            content_html="<div></div>",
            permalink=f"./viewtopic.php?p={number}",
        )
        return TopicPage(
            dialect="phpbb",
            topic_id=topic,
            title="t",
            page=number,
            page_count=number + 1,
            posts=(post,),
            url=f"http://board.test/viewtopic.php?t={topic}&start={(number - 1) * 10}",
            next_url=f"http://board.test/viewtopic.php?t={topic}&start={number * 10}",
        )

    monkeypatch.setattr(client, "_topic_page", endless)
    monkeypatch.setattr(
        client, "_topic_pages", lambda topic, numbers, size, on_body=None: (endless(topic, n, size) for n in numbers)
    )
    with pytest.raises(ParseError, match="keep claiming more pages"):
        list(client.fetch_topic(7))
    assert len(fetched) <= MAX_GROWTH + 3


def test_a_windows_1251_page_served_as_utf8_keeps_its_cyrillic() -> None:
    import httpx

    from forumbot.forum.http import decode_body

    body = "<p>Голосую: <b>Пётр</b></p>".encode("windows-1251")
    response = httpx.Response(200, content=body, headers={"Content-Type": "text/html; charset=UTF-8"})
    text, charset = decode_body(response)
    assert "Пётр" in text and charset == "windows-1251"
