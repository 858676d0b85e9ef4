"""The IPB 3.x network client against pages rendered by IPB 3.4.6's and 3.3.3's own skins (respx).

The boards serve the real-template pages of `fixtures/ipb3/`. Where a test needs what those pages do not
show (a second page, a conversation that grew), it is made from them by the edit the board itself would
make: the active page number moved, a message block repeated under a new id."""

from __future__ import annotations

import re
from collections import Counter
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import httpx
import pytest
import respx

from fakeboard.clock import FakeClock
from forumbot.errors import ConfigError
from forumbot.forum.client import ClientSettings
from forumbot.forum.http import HttpSettings
from forumbot.forum.ipb3.reader import Ipb3Client
from forumbot.forum.registry import open_client
from forumbot.host.daywindow import read_day_pms

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "ipb3"
BASE = "http://forum.nightcity.example/forum/"
MSK = timezone(timedelta(hours=3))
FETCHED = datetime(2026, 12, 1, 18, 10, 0, tzinfo=UTC).timestamp()  # 21:10 in Moscow, as the pages were made
CONVERSATION = "do=showConversation&topicID=80"


def real(name: str) -> str:
    return (FIXTURES / f"{name}.html").read_text(encoding="utf-8")


def second_page(first: str) -> str:
    """Page 2 of the same topic: the pager's active item moved on, the posts' ids moved on, no next link."""
    page = first.replace("<li class='page active'>1</li>", "<li class='page active'>2</li>")
    page = re.sub(r"<li class='next'>.*?</li>", "", page, flags=re.S)
    return page.replace("post_id_110", "post_id_120").replace("entry110", "entry120")


def grown(conversation: str) -> str:
    """Conversation 80 after the player wrote again: his message block once more, as message 307."""
    start = conversation.index("<a id='msg305'></a>")
    end = conversation.index("</div>\n</div>\n<div class='topic_controls clear'>")
    block = conversation[start:end].replace("305", "307").replace("Проверяю — Мурка", "Проверяю — Шарик")
    return conversation[:end] + block + conversation[end:]


def filled(conversation: str, messages: int) -> str:
    """The conversation's first page holding `messages` messages, as a page before the last does (20): the
    host's first message repeated under new ids (the account's own: no row of the inbox)."""
    start, end = conversation.index("<a id='msg301'></a>"), conversation.index("<a id='msg305'></a>")
    block = conversation[start:end]
    more = "".join(block.replace("301", str(9000 + n)) for n in range(messages - 2))
    return conversation[:end] + more + conversation[end:]


class Board:
    """Answers by the query's own words; counts every request."""

    def __init__(self, topic_pages: dict[str, str], folder: str, conversation: str) -> None:
        self.topic_pages, self.folder, self.conversation = topic_pages, folder, conversation
        self.conversation_pages: dict[str, str] = {}  # later pages of conversation 80, by their `st=`
        self.asked: Counter[str] = Counter()

    def respond(self, request: httpx.Request) -> httpx.Response:
        query = request.url.query.decode()
        self.asked[query] += 1
        later = next((html for st, html in self.conversation_pages.items() if query.endswith(f"&{st}")), None)
        if later is not None:
            return httpx.Response(200, html=later)
        if query in self.topic_pages:
            return httpx.Response(200, html=self.topic_pages[query])
        if "do=showFolder" in query:
            return httpx.Response(200, html=self.folder)
        if CONVERSATION in query:
            return httpx.Response(200, html=self.conversation)
        return httpx.Response(404, html="<html><body>Not found</body></html>")


@pytest.fixture
def clock(clock: FakeClock) -> FakeClock:
    clock.now = FETCHED
    return clock


def client_for(board: Board, clock: FakeClock) -> Ipb3Client:
    router = respx.mock(assert_all_called=False)
    router.route(host="forum.nightcity.example").mock(side_effect=board.respond)
    router.start()
    client = Ipb3Client(BASE, settings=HttpSettings(min_interval=0, concurrency=1), clock=clock, tz=MSK)
    client.close = lambda: router.stop()  # type: ignore[method-assign]
    return client


def topic_board(first: str, second_query: str) -> Board:
    pages = {"showtopic=16002": first, second_query: second_page(first)}
    return Board(pages, real("ipb346_pm_folder"), real("ipb346_pm_conversation"))


@pytest.mark.parametrize(
    ("skin", "second_query"),
    [("ipb346_topic_rel1", "showtopic=16002&page=2"), ("ipb333_topic_rel1", "showtopic=16002&st=6")],
)
def test_a_topic_is_read_with_the_pagination_its_links_use(skin: str, second_query: str, clock: FakeClock) -> None:
    board = topic_board(real(skin), second_query)
    client = client_for(board, clock)
    try:
        pages = list(client.fetch_topic(16002))
    finally:
        client.close()
    assert [p.page for p in pages] == [1, 2]
    assert [p.post_id for p in pages[1].posts] == [1201, 1202, 1203, 1204, 1205, 1206]
    assert board.asked[second_query] == 1 and sum(board.asked.values()) == 2


def test_a_later_page_before_the_first_is_asked_both_ways(clock: FakeClock) -> None:
    board = topic_board(real("ipb346_topic_rel1"), "showtopic=16002&page=2&st=6")
    client = client_for(board, clock)
    try:
        pages = list(client.fetch_topic(16002, from_page=2, page_size=6))
    finally:
        client.close()
    assert [p.page for p in pages] == [2] and board.asked["showtopic=16002&page=2&st=6"] == 1


def test_the_inbox_is_every_message_written_to_us_in_the_folders_conversations(clock: FakeClock) -> None:
    board = topic_board(real("ipb346_topic_rel1"), "showtopic=16002&page=2")
    client = client_for(board, clock)
    try:
        rows = client.fetch_inbox()
        messages = list(client.fetch_pms(rows))
    finally:
        client.close()
    # 305 is the player's reply in conversation 80 (our own 301 is no PM to us); 81 did not open (404)
    assert [(r.pm_id, r.conversation_id) for r in rows] == [(305, 80), (81, 81)]
    reply = messages[0]
    assert not isinstance(reply, Exception)
    assert (reply.pm_id, reply.sender, reply.body_text) == (305, "Winnie", "Проверяю — Мурка")
    assert (reply.time, reply.time_until) == (
        datetime(2026, 12, 1, 20, 31, tzinfo=MSK),
        datetime(2026, 12, 1, 20, 32, tzinfo=MSK),
    )
    assert isinstance(messages[1], Exception) and "topicID=81" in str(messages[1])
    assert board.asked[f"app=members&module=messaging&section=view&{CONVERSATION}"] == 1  # not again for fetch_pm


def test_a_conversation_is_read_again_only_when_it_grew(clock: FakeClock) -> None:
    board = topic_board(real("ipb346_topic_rel1"), "showtopic=16002&page=2")
    client = client_for(board, clock)
    url = f"app=members&module=messaging&section=view&{CONVERSATION}"
    try:
        first = [r.pm_id for r in client.fetch_inbox()]
        again = [r.pm_id for r in client.fetch_inbox()]
        assert board.asked[url] == 1  # the row still names message 305 last
        board.conversation = grown(real("ipb346_pm_conversation"))
        board.folder = real("ipb346_pm_folder").replace("msgID=305", "msgID=307")
        later = [r.pm_id for r in client.fetch_inbox()]
    finally:
        client.close()
    assert first == again == [305, 81] and later == [305, 307, 81] and board.asked[url] == 2


def test_every_page_of_a_conversation_is_read(clock: FakeClock) -> None:
    conversation = real("ipb346_pm_conversation")
    pager = re.search(r"<div class='pagination clearfix left '>.*?</div>", real("ipb346_topic_rel1"), re.S)
    assert pager is not None
    link = f"{BASE}index.php?app=members&amp;module=messaging&amp;section=view&amp;{CONVERSATION}&amp;st=20"
    paged = pager.group(0).replace(f"{BASE}index.php?showtopic=16002&amp;page=2", link)
    first = filled(conversation, 20).replace("<h2 class='maintitle'>", paged + "<h2 class='maintitle'>", 1)
    board = topic_board(real("ipb346_topic_rel1"), "showtopic=16002&page=2")
    board.conversation = first
    board.conversation_pages["st=20"] = grown(conversation).replace("<a id='msg305'></a>", "")
    client = client_for(board, clock)
    try:
        rows = [r.pm_id for r in client.fetch_inbox()]
    finally:
        client.close()
    assert rows == [305, 307, 81]
    assert board.asked[f"app=members&module=messaging&section=view&{CONVERSATION}&st=20"] == 1


def test_the_days_orders_include_a_reply_to_the_hosts_role_pm(clock: FakeClock) -> None:
    board = topic_board(real("ipb346_topic_rel1"), "showtopic=16002&page=2")
    client = client_for(board, clock)
    try:
        window = read_day_pms(client, datetime(2026, 12, 1, 0, 0, tzinfo=MSK), datetime(2026, 12, 1, 21, 0, tzinfo=MSK))
    finally:
        client.close()
    assert [(t.pm.pm_id, t.pm.body_text, t.side) for t in window.inside] == [(305, "Проверяю — Мурка", "inside")]
    assert window.unread == []  # conversation 81's row is dated 29 November: an earlier day's, not opened


def test_a_mybb_url_is_decided_by_the_boards_markup_and_refused(clock: FakeClock) -> None:
    def index(request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            200, html="<html><body><div id='pun' class='punbb'><div id='pun-index'></div></div></body></html>"
        )

    settings = ClientSettings(forum="https://mafia.rusff.me/viewtopic.php?id=5", http=HttpSettings(min_interval=0))
    with pytest.raises(ConfigError, match="mybb.ru / rusff .* not support"):
        open_client(settings, clock=clock, transport=httpx.MockTransport(index))


def test_without_a_configured_zone_the_pages_show_the_viewers_offset(clock: FakeClock) -> None:
    board = topic_board(real("ipb346_topic_rel1"), "showtopic=16002&page=2")
    router = respx.mock(assert_all_called=False)
    router.route(host="forum.nightcity.example").mock(side_effect=board.respond)
    with router:
        client = Ipb3Client(BASE, settings=HttpSettings(min_interval=0), clock=clock)
        rows = client.fetch_inbox()  # the conversation quotes message 301 with its exact time
    assert client.tz is not None and client.tz.utcoffset(None) == timedelta(hours=3)
    assert rows[0].time == datetime(2026, 12, 1, 17, 31, tzinfo=UTC)  # "Сегодня, 20:31" in Moscow
