"""An answer that reads as nothing says where it came from: the page's address, or the letter it answered
(a bare "error: empty page" left the host guessing which of a day's forty requests it was)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path

import httpx
import pytest
import respx

from fakeboard.clock import FakeClock
from forumbot.errors import ParseError
from forumbot.forum.http import ForumHttp, HttpSettings
from forumbot.host.outbox import Outbox
from forumbot.store import Letter, Store

BASE = "http://board.test/forum/"


class NoWalls:
    def is_login_wall(self, html: str) -> bool:
        return False

    def is_no_permission(self, html: str) -> bool:
        return False


def http(clock: FakeClock, concurrency: int = 1) -> ForumHttp:
    settings = HttpSettings(min_interval=0, concurrency=concurrency)
    return ForumHttp(BASE, NoWalls(), settings=settings, clock=clock, rng=random.Random(1))


@respx.mock
@pytest.mark.parametrize("body", ["", " \n\t "])
def test_an_empty_page_names_its_address(clock: FakeClock, body: str) -> None:
    respx.get(BASE + "viewtopic.php?t=7").mock(return_value=httpx.Response(200, text=body))
    said = r"^http://board\.test/forum/viewtopic\.php\?t=7: the forum sent an empty page$"
    with pytest.raises(ParseError, match=said):
        http(clock).get(BASE + "viewtopic.php?t=7")


@respx.mock
def test_an_empty_page_among_many_names_its_address(clock: FakeClock) -> None:
    urls = [f"{BASE}viewtopic.php?t=7&start={n * 25}" for n in range(3)]
    for n, url in enumerate(urls):
        respx.get(url).mock(return_value=httpx.Response(200, text="" if n == 1 else "<html>page</html>"))
    pages = http(clock, concurrency=2).get_each(urls)
    assert next(pages)().text == "<html>page</html>"
    with pytest.raises(ParseError, match=r"start=25: the forum sent an empty page$"):
        next(pages)()


@respx.mock
def test_an_empty_page_is_still_fine_where_no_content_is_asked_for(clock: FakeClock) -> None:
    respx.get(BASE + "ucp.php?mode=logout").mock(return_value=httpx.Response(200, text=""))
    assert http(clock).get(BASE + "ucp.php?mode=logout", content=False).text == ""


class EmptyAnswers:
    """A writer whose board answers a PM with a page that reads as nothing."""

    username = "host_bot"

    def send_pm(self, recipients: Sequence[str], subject: str, body: str, *, marker: str | None = None) -> int:
        raise ParseError("empty page")


def test_an_empty_answer_to_a_letter_names_the_letter(tmp_path: Path) -> None:
    store = Store(tmp_path / "state.db")
    game = store.create_game("Игра", "salon", {}, ["Пётр", "Анна"])
    letter = Letter("m-1", "pm", ["Пётр"], "Игра: ваша роль", "Вы — мирный житель.", day=1, origin="publish")
    box = Outbox(store, game, EmptyAnswers())  # type: ignore[arg-type]  # only send_pm is reached
    with pytest.raises(ParseError, match=r"^the role PM to Пётр: empty page$"):
        box.deliver(letter, label="the role PM to Пётр")
    kept = store.letter("m-1", game)
    assert kept is not None and kept.status == "sending"  # maybe sent: looked for before it is sent again
