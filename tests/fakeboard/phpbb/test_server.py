"""The fake phpBB board: its pages parse like the captured phpBB 3.3.11 pages, and it behaves like phpBB."""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from lxml import etree

from fakeboard import DAY_MIX, Board, BoardServer, GeneratedPost, format_date, populate_day
from fakeboard.clock import FakeClock
from fakeboard.phpbb import FLOOD_ERROR, FORM_INVALID, NOT_AUTHORISED, TOPIC_LOCKED
from forumbot.forum.markup import first_class, parse_html, serialize
from forumbot.forum.phpbb import pages as phpbb
from forumbot.posts import TopicPage
from forumbot.render.phpbb_html import render_bbcode

CAPTURED = Path(__file__).resolve().parents[3] / "fixtures" / "phpbb"
UA = "Mozilla/5.0 (X11; Linux x86_64) board-tests"
T0 = 1_795_974_000.0  # just after the captured day was played (2026-11-29 17:40 UTC)


# --- the captured demo day, rebuilt on the fake board ------------------------------------------------

DAY = datetime(2026, 11, 29, 17, 38, tzinfo=UTC)
USERS = {
    "admin": 2,
    "host_bot": 58,
    "Alice": 59,
    "Bob Smith": 60,
    "Пётр": 61,
    "Кот_Матроскин": 62,
    "Дядя Фёдор": 63,
    "Шарик": 64,
    "Mr. Pink": 65,
    "Charlie": 66,
    "Ёжик в тумане": 67,
    "Dana_99": 68,
}
POSTS = [  # post id, author, second of 17:38, BBCode as typed
    (
        2,
        "host_bot",
        1,
        "[b]Day 1 begins.[/b]\nPlayers: Alice, Bob Smith, Пётр, Кот_Матроскин, Дядя Фёдор, Шарик, Mr. Pink, Charlie, "
        "Ёжик в тумане, Dana_99\nVote with [color=red][b]Name[/b][/color].",
    ),
    (3, "Alice", 16, "I vote [color=red][b]Пётр[/b][/color]"),
    (4, "Bob Smith", 17, "[b][color=red]Кот_Матроскин[/color][/b] is suspicious."),
    (5, "Пётр", 18, "Vote: [color=#FF0000][b]Bob Smith[/b][/color]\nP.S. edited without reason"),
    (
        6,
        "Кот_Матроскин",
        19,
        '[quote="Alice"]I vote [color=red][b]Пётр[/b][/color][/quote]\nI disagree with that. No vote yet.',
    ),
    (7, "Дядя Фёдор", 20, "Dark red vote: [color=darkred][b]Mr. Pink[/b][/color]"),
    (8, "Шарик", 21, "Non-bold red: [color=red]Дядя Фёдор[/color]"),
    (9, "Mr. Pink", 23, "Vote [color=red][b]Dana_99[/b][/color] (changed my mind)"),
    (10, "Charlie", 24, "Голосую против [color=red][b]Кот_Матроскин[/b][/color]"),
    (11, "Ёжик в тумане", 25, "[color=#ff0000][b]Dana_99[/b][/color] — мой голос"),
    (12, "Dana_99", 26, "Lower-case hex: [color=#ff0000][b]Alice[/b][/color]\n[i]typo fixed by admin[/i]"),
    (13, "Bob Smith", 27, "Changing my vote: [color=red][b]Пётр[/b][/color]"),
    (14, "Alice", 29, "Just chatting, [i]no vote[/i]. [url=https://example.org]link[/url]"),
    (15, "Шарик", 30, "Now bold: [color=red][b]Дядя Фёдор[/b][/color]"),
    (
        16,
        "Charlie",
        33,
        "[quote=Alice post_id=3 time=1795973896 user_id=59]\nI vote [color=red][b]Пётр[/b][/color]\n[/quote]\n\n"
        "Agreed, I also vote [color=red][b]Пётр[/b][/color]",
    ),
    (17, "host_bot", 37, "[b]Tally so far[/b]\n[list][*]A: 1[*]B: 2[/list]"),
]
EDITS = {5: ("Пётр", None), 9: ("Mr. Pink", None), 12: ("admin", "moderator note")}


def demo_board(*, public: bool = False) -> Board:
    board = Board()
    joined = DAY - timedelta(minutes=1)
    for name, uid in USERS.items():
        board.add_user(
            name,
            "pw-" + name,
            user_id=uid,
            moderator=name == "admin",
            colour="AA0000" if name == "admin" else None,
            joined=joined,
        )
    board.add_forum("Your first category", forum_id=1, category=True)
    board.add_forum("Your first forum", forum_id=2, parent=1)
    board.add_forum("Games", forum_id=3, category=True)
    forum = board.add_forum("Mafia", forum_id=4, public=public, description="Mafia games (test)", parent=3)
    (first_id, author, second, body), *rest = POSTS
    topic = board.add_topic(
        forum, "Mafia-1. Day 1", author, body, DAY.replace(second=second), topic_id=2, post_id=first_id
    )
    for post_id, author, second, body in rest:
        editor, reason = EDITS.get(post_id, (None, None))
        board.add_post(
            topic,
            author,
            body,
            DAY.replace(second=second),
            post_id=post_id,
            edited_by=editor,
            edit_reason=reason,
            edited_at=DAY.replace(second=45) if editor else None,
        )
    board.send_pm("Alice", "host_bot", "Ночь 1", "Убиваем — Пётр", DAY.replace(second=40), pm_id=1)
    board.send_pm("Кот_Матроскин", "host_bot", "Night 1 orders", "Убиваем — Charlie", DAY.replace(second=41), pm_id=2)
    board.send_pm(
        "Дядя Фёдор", "host_bot", "Проверка", "Проверяю — Bob Smith\n[b]Лечу[/b] — Дядя Фёдор", DAY.replace(second=42)
    )
    return board


@contextmanager
def session(server: BoardServer, clock: FakeClock, name: str | None = None) -> Iterator[httpx.Client]:
    """An httpx client on the board, logged in as `name` (the login form posted two seconds later)."""
    with httpx.Client(base_url=server.url, headers={"User-Agent": UA}, follow_redirects=True) as client:
        if name is not None:
            fields = phpbb.parse_login_form(client.get("ucp.php?mode=login").text)
            action = fields.pop("_action")
            clock.advance()
            answer = client.post(action, data={**fields, "username": name, "password": "pw-" + name, "login": "Login"})
            assert not phpbb.is_login_wall(answer.text), name
        yield client


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(T0)


@pytest.fixture
def demo(clock: FakeClock) -> Iterator[BoardServer]:
    with BoardServer(demo_board(), clock=clock) as server:
        yield server
    assert not server.errors, server.errors[0]


@pytest.fixture
def bot(demo: BoardServer, clock: FakeClock) -> Iterator[httpx.Client]:
    with session(demo, clock, "host_bot") as client:
        yield client


def _local(url: str | None) -> str | None:
    return re.sub(r"^https?://[^/]+/", "./", url) if url else url


def _topic_view(page: TopicPage) -> dict[str, Any]:
    posts = [post.model_dump() | {"permalink": _local(post.permalink)} for post in page.posts]
    return {
        "topic_id": page.topic_id,
        "title": page.title,
        "page": page.page,
        "page_count": page.page_count,
        "next_url": _local(page.next_url),
        "posts": posts,
    }


def _shape(el: etree._Element, skip_class: str = "content") -> list[tuple[Any, ...]]:
    """Every element under `el` (tag, id, classes, attribute names), `div.content` insides left out."""
    out = []
    for child in el.iter():
        if not isinstance(child.tag, str):
            continue
        parent = child.getparent()
        inside = False
        while parent is not None:
            if parent.tag == "div" and skip_class in (parent.get("class") or "").split():
                inside = True
                break
            parent = parent.getparent()
        if inside:
            continue
        classes = tuple(sorted(set((child.get("class") or "").split()) - {"online"}))
        out.append((child.tag, child.get("id"), classes, tuple(sorted(child.attrib))))
    return out


def _posts_by_id(html: str) -> dict[int, etree._Element]:
    root = parse_html(html)
    return {
        int(div.get("id")[1:]): div
        for div in root.iter("div")
        if re.fullmatch(r"p\d+", div.get("id") or "") and "post" in (div.get("class") or "").split()
    }


# --- pages as phpBB makes them -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "captured"), [("t=2", "viewtopic_page1.html"), ("t=2&start=10", "viewtopic_page2.html")]
)
def test_topic_pages_parse_exactly_like_the_captured_ones(bot: httpx.Client, query: str, captured: str) -> None:
    ours = phpbb.parse_topic_page(bot.get(f"viewtopic.php?{query}").text)
    real = phpbb.parse_topic_page((CAPTURED / captured).read_text())
    assert _topic_view(ours) == _topic_view(real)


@pytest.mark.parametrize(
    ("query", "captured"), [("t=2", "viewtopic_page1.html"), ("t=2&start=10", "viewtopic_page2.html")]
)
def test_post_markup_has_every_element_class_and_id_of_the_captured_page(
    bot: httpx.Client, query: str, captured: str
) -> None:
    ours = _posts_by_id(bot.get(f"viewtopic.php?{query}").text)
    real = _posts_by_id((CAPTURED / captured).read_text())
    assert list(ours) == list(real)
    for post_id, div in real.items():
        assert _shape(ours[post_id]) == _shape(div), post_id
        assert div.get("class").replace(" online", "") == ours[post_id].get("class").replace(" online", "")


def test_page_frame_matches_the_captured_page(bot: httpx.Client) -> None:
    ours = parse_html(bot.get("viewtopic.php?t=2&start=10").text)
    real = parse_html((CAPTURED / "viewtopic_page2.html").read_text())
    for tag, cls in (("div", "pagination"), ("h2", "topic-title"), ("div", "action-bar")):
        assert _shape(first_class(ours, tag, cls)) == _shape(first_class(real, tag, cls)), cls
    assert ours.findtext(".//title") == real.findtext(".//title")  # "(3) Mafia-1. Day 1 - Page 2 - Mafia Test Board"
    canonical = [link.get("href") for link in ours.iter("link") if link.get("rel") == "canonical"]
    assert canonical == [f"{bot.base_url}viewtopic.php?t=2&start=10"]
    assert ours.find("body").get("id") == "phpbb" and phpbb.detect(ours)


def test_guest_view_of_a_public_forum_matches_the_captured_guest_page(clock: FakeClock) -> None:
    with BoardServer(demo_board(public=True), clock=clock) as server, session(server, clock) as guest:
        html = guest.get("viewtopic.php?t=2").text
    real = (CAPTURED / "viewtopic_page1_guest.html").read_text()
    assert _topic_view(phpbb.parse_topic_page(html)) == _topic_view(phpbb.parse_topic_page(real))
    ours, theirs = _posts_by_id(html), _posts_by_id(real)
    assert all(_shape(ours[k]) == _shape(theirs[k]) for k in theirs)


def test_private_forum_gives_guests_the_login_wall(demo: BoardServer, clock: FakeClock) -> None:
    with session(demo, clock) as guest:
        answer = guest.get("viewtopic.php?t=2")
    assert phpbb.is_login_wall(answer.text)
    assert "The board requires you to be registered and logged in to view this forum." in answer.text
    fields = phpbb.parse_login_form(answer.text)
    assert fields["redirect"] == f"./viewtopic.php?t=2&sid={fields['sid']}"  # a new session: sid= in every link
    assert set(fields) == set(phpbb.parse_login_form((CAPTURED / "login_page.html").read_text()))


def test_pm_inbox_and_pm_parse_like_the_captured_ones(bot: httpx.Client) -> None:
    ours, next_ours = phpbb.parse_pm_inbox(bot.get("ucp.php?i=pm&folder=inbox").text)
    real, next_real = phpbb.parse_pm_inbox((CAPTURED / "pm_inbox.html").read_text())
    assert ours == real and next_ours is next_real is None
    assert phpbb.parse_pm(bot.get("ucp.php?i=pm&mode=view&f=0&p=1").text) == phpbb.parse_pm(
        (CAPTURED / "pm_view.html").read_text()
    )
    again, _ = phpbb.parse_pm_inbox(bot.get("ucp.php?i=pm&folder=inbox").text)
    assert [(s.pm_id, s.unread) for s in again] == [(3, True), (2, True), (1, False)]  # opening it marked it read


def test_pm_pages_keep_the_captured_markup(bot: httpx.Client) -> None:
    ours = parse_html(bot.get("ucp.php?i=pm&folder=inbox").text)
    real = parse_html((CAPTURED / "pm_inbox.html").read_text())
    assert _shape(first_class(ours, "div", "cp-main")) == _shape(first_class(real, "div", "cp-main"))
    assert ours.findtext(".//title") == real.findtext(".//title")
    view = parse_html(bot.get("ucp.php?i=pm&mode=view&f=0&p=1").text)
    real_view = parse_html((CAPTURED / "pm_view.html").read_text())
    assert _shape(first_class(view, "div", "cp-main"), "x") == _shape(first_class(real_view, "div", "cp-main"), "x")


def test_viewforum_keeps_the_captured_markup(bot: httpx.Client) -> None:
    ours = parse_html(bot.get("viewforum.php?f=4").text)
    real = parse_html((CAPTURED / "viewforum_mafia.html").read_text())
    assert _shape(first_class(ours, "div", "forumbg")) == _shape(first_class(real, "div", "forumbg"))


@pytest.mark.parametrize(
    ("who", "path", "captured"),
    [
        ("Alice", "posting.php?mode=post&f=4", "posting_form_new_topic.html"),
        ("Alice", "posting.php?mode=reply&t=2", "posting_form_reply.html"),
        ("Mr. Pink", "posting.php?mode=edit&p=9", "posting_form_edit.html"),
        ("Alice", "ucp.php?i=pm&mode=compose", "pm_compose_form.html"),
    ],
)
def test_posting_forms_send_the_captured_fields(
    demo: BoardServer, clock: FakeClock, who: str, path: str, captured: str
) -> None:
    with session(demo, clock, who) as client:
        ours = phpbb.parse_posting_form(client.get(path).text)
    real = phpbb.parse_posting_form((CAPTURED / captured).read_text())
    assert set(ours) == set(real)
    for name in ("subject", "message", "topic_cur_post_id", "edit_post_message_checksum", "_action"):
        if name in real and name not in ("creation_time", "form_token"):
            assert re.sub(r"&sid=\w+", "", ours[name]) == re.sub(r"&sid=\w+", "", real[name]), name


def test_dates_are_printed_in_the_viewers_zone_and_format(clock: FakeClock) -> None:
    moment = datetime(2026, 11, 29, 17, 32, 50, tzinfo=UTC)
    assert format_date(moment, UTC) == "Sun Nov 29, 2026 5:32 pm"
    assert format_date(datetime(2026, 12, 1, 0, 5, tzinfo=UTC), UTC) == "Tue Dec 01, 2026 12:05 am"
    board = demo_board()
    with BoardServer(board, clock=clock, board_tz="Europe/Moscow") as server, session(server, clock, "host_bot") as c:
        page = phpbb.parse_topic_page(c.get("viewtopic.php?t=2").text)
        html = c.get("viewtopic.php?t=2").text
    assert page.posts[0].time == datetime(2026, 11, 29, 17, 38, 1, tzinfo=UTC)  # <time datetime> stays UTC
    assert "Sun Nov 29, 2026 8:38 pm" in html and "UTC+03:00" in html
    assert page.posts[3].edited_at == "Sun Nov 29, 2026 8:38 pm"


# --- BBCode -----------------------------------------------------------------------------------------


def _content(html: str) -> str:
    return serialize(parse_html(f'<html><body><div class="content">{html}</div></body></html>').find(".//div"))


def test_every_captured_post_renders_byte_for_byte() -> None:
    real = {**_posts_by_id((CAPTURED / "viewtopic_page1.html").read_text())}
    real.update(_posts_by_id((CAPTURED / "viewtopic_page2.html").read_text()))
    for post_id, _, _, body in POSTS:
        expected = serialize(first_class(real[post_id], "div", "content"))
        assert _content(render_bbcode(body, lambda t: format_date(datetime.fromtimestamp(t, UTC), UTC))) == expected


@pytest.mark.parametrize(
    ("source", "html"),
    [
        (
            "[B]x[/B] [i]y[/i] [u]z[/u]",
            '<strong class="text-strong">x</strong> <em class="text-italics">y</em> '
            '<span style="text-decoration:underline">z</span>',
        ),
        ("[quote]x[/quote]", '<blockquote class="uncited"><div>x</div></blockquote>'),
        (
            '[quote="Bob Smith" post_id=4 time=1795973897 user_id=60]x[/quote]',
            '<blockquote cite="./viewtopic.php?p=4#p4"><div><cite><a href="./memberlist.php?mode=viewprofile&amp;u=60">'
            'Bob Smith</a> wrote: <a href="./viewtopic.php?p=4#p4" data-post-id="4" '
            'onclick="if(document.getElementById(hash.substr(1)))href=hash">↑</a></cite>x</div></blockquote>',
        ),
        ("[b]open", '<strong class="text-strong">open</strong>'),
        ("[/b] stray [x]unknown[/x]", "[/b] stray [x]unknown[/x]"),
        (
            "[b][i]x[/b]y[/i]",
            '<strong class="text-strong"><em class="text-italics">x</em></strong><em class="text-italics">y</em>',
        ),
        (
            "[color=red]a[color=#00f]b[/color][/color]",
            '<span style="color:red">a<span style="color:#00f">b</span></span>',
        ),
        ("[list=1][*]a[*]b[/list]", '<ol style="list-style-type:decimal"><li>a</li><li>b</li></ol>'),
        (
            "[code]\n[b]x[/b] <y>\n[/code]",
            '<div class="codebox"><p>Code: <a href="#" onclick="selectCode(this); '
            'return false;">Select all</a></p><pre><code>[b]x[/b] &lt;y&gt;\n</code></pre></div>',
        ),
        ("see www.example.org/a.", 'see <a href="http://www.example.org/a" class="postlink">www.example.org/a</a>.'),
        (
            "hi :)",
            'hi <img class="smilies" src="./images/smilies/icon_e_smile.gif" width="15" height="17" alt=":)" '
            'title="Smile">',
        ),
        (
            "[quote][quote][quote][quote]deep[/quote][/quote][/quote][/quote]",
            '<blockquote class="uncited"><div><blockquote class="uncited"><div><blockquote class="uncited"><div>'
            "[quote]deep</div></blockquote></div></blockquote></div></blockquote>[/quote]",
        ),
    ],
)
def test_bbcode_as_phpbb_renders_it(source: str, html: str) -> None:
    assert _content(render_bbcode(source)) == _content(html)


@pytest.mark.parametrize(
    "source",
    [
        "<script>alert(1)</script>",
        '[color=red" onmouseover="alert(1)]x[/color]',
        "[color=red;background:url(javascript:alert(1))]x[/color]",
        "[url=javascript:alert(1)]x[/url]",
        '[url]http://x.org/"onmouseover="alert(1)[/url]',
        "[img]javascript:alert(1)[/img]",
        '[quote="<b onclick=alert(1)>evil</b>"]x[/quote]',
        "&lt;b&gt; &amp; <b>",
    ],
)
def test_hostile_bbcode_comes_out_inert(source: str) -> None:
    root = parse_html(f'<html><body><div class="content">{render_bbcode(source)}</div></body></html>')
    for el in root.iter():
        if not isinstance(el.tag, str):
            continue
        assert el.tag not in ("script", "b")
        assert not any(name.startswith("on") and name != "onclick" for name in el.attrib)
        assert "javascript" not in " ".join(el.attrib.values()).lower()
        if el.get("onclick"):
            assert el.get("onclick") == "if(document.getElementById(hash.substr(1)))href=hash"


def test_hostile_nick_and_subject_are_escaped_everywhere(clock: FakeClock) -> None:
    board = Board()
    nick = '<img src=x onerror="alert(1)">&amp;'
    board.add_user("host_bot", "pw-host_bot")
    board.add_user(nick, "pw")
    topic = board.add_topic(board.add_forum("F"), "<b>title</b>", nick, f'[quote="{nick}"]x[/quote]<i>')
    board.send_pm(nick, "host_bot", "<script>s</script>", "body")
    with BoardServer(board, clock=clock) as server, session(server, clock, "host_bot") as client:
        html = client.get(f"viewtopic.php?t={topic}").text + client.get("ucp.php?i=pm&folder=inbox").text
        page = phpbb.parse_topic_page(client.get(f"viewtopic.php?t={topic}").text)
        inbox, _ = phpbb.parse_pm_inbox(client.get("ucp.php?i=pm&folder=inbox").text)
    root = parse_html(html)
    assert not list(root.iter("script")) or all("alert" not in (s.text or "") for s in root.iter("script"))
    assert not [el for el in root.iter() if isinstance(el.tag, str) and el.get("onerror")]
    assert page.title == "<b>title</b>" and page.posts[0].author == nick
    assert inbox[0].sender == nick and inbox[0].subject == "<script>s</script>"


def test_html_bodies_guests_and_deleted_users(clock: FakeClock) -> None:
    board = Board()
    board.add_user("host_bot", "pw-host_bot")
    topic = board.add_topic(board.add_forum("F"), "T", "host_bot", "<p>raw <em>html</em></p>", DAY, html=True)
    board.add_post(topic, "Old account", "a guest's post", DAY + timedelta(seconds=1), guest=True)
    with BoardServer(board, clock=clock) as server, session(server, clock, "host_bot") as client:
        page = phpbb.parse_topic_page(client.get(f"viewtopic.php?t={topic}").text)
    assert page.posts[0].content_html == '<div class="content"><p>raw <em>html</em></p></div>'
    assert (page.posts[1].author, page.posts[1].author_id) == ("Old account", None)


# --- pagination -------------------------------------------------------------------------------------


def _long_topic(posts: int) -> Board:
    board = Board()
    board.add_user("host_bot", "pw-host_bot")
    topic = board.add_topic(board.add_forum("Mafia"), "Long day", "host_bot", "start", DAY)
    for k in range(1, posts):
        board.add_post(topic, f"player{k % 7}", f"post {k}", DAY + timedelta(seconds=k))
    return board


def test_pages_of_a_three_page_topic_link_forward_and_back(clock: FakeClock) -> None:
    with BoardServer(_long_topic(25), clock=clock) as server, session(server, clock, "host_bot") as client:
        pages = []
        url: str | None = "viewtopic.php?t=1"
        while url:
            html = client.get(url).text
            pages.append(phpbb.parse_topic_page(html, url=f"{server.url}{url}"))
            nxt = pages[-1].next_url
            url = nxt.removeprefix(server.url) if nxt else None
        last = parse_html(client.get("viewtopic.php?t=1&start=20").text)
        base = server.url
    assert [(p.page, p.page_count, len(p.posts)) for p in pages] == [(1, 3, 10), (2, 3, 10), (3, 3, 5)]
    assert [p.next_url.removeprefix(base) if p.next_url else None for p in pages] == [
        "viewtopic.php?t=1&start=10",
        "viewtopic.php?t=1&start=20",
        None,
    ]
    assert [a.get("href") for a in last.iter("a") if a.get("rel") == "prev"][0] == "./viewtopic.php?t=1&start=10"
    ids = [post.post_id for p in pages for post in p.posts]
    assert ids == list(range(1, 26))


def test_a_140_page_topic_shows_ellipses_and_the_last_page(clock: FakeClock) -> None:
    board = _long_topic(1400)
    with BoardServer(board, clock=clock) as server, session(server, clock, "host_bot") as client:
        first = client.get("viewtopic.php?t=1").text
        middle = client.get("viewtopic.php?t=1&start=700").text
        beyond = phpbb.parse_topic_page(client.get("viewtopic.php?t=1&start=99999").text)
        by_post = phpbb.parse_topic_page(client.get("viewtopic.php?p=705").text)

    def labels(html: str) -> list[str]:
        box = first_class(parse_html(html), "div", "pagination")
        assert box is not None
        return [
            "…" if "ellipsis" in (li.get("class") or "") else "".join(li.itertext()).strip()
            for li in box.find("ul")
            if "page-jump" not in (li.get("class") or "") and "arrow" not in (li.get("class") or "")
        ]

    assert labels(first) == ["1", "2", "3", "4", "5", "…", "140"]
    assert labels(middle) == ["1", "…", "68", "69", "70", "71", "72", "73", "74", "…", "140"]
    page = phpbb.parse_topic_page(middle)
    assert (page.page, page.page_count, page.posts[0].post_id) == (71, 140, 701)
    assert (beyond.page, beyond.posts[-1].post_id) == (140, 1400)  # an offset past the end: the last page
    assert by_post.page == 71 and 705 in [p.post_id for p in by_post.posts]
    assert "<title>Long day - Page 71 - Mafia Test Board</title>" in middle


def test_pm_inbox_pages(clock: FakeClock) -> None:
    board = Board()
    board.add_user("host_bot", "pw-host_bot")
    for k in range(30):
        board.send_pm(f"p{k % 4}", "host_bot", f"order {k}", "x", DAY + timedelta(minutes=k))
    with BoardServer(board, clock=clock) as server, session(server, clock, "host_bot") as client:
        rows, nxt = phpbb.parse_pm_inbox(client.get("ucp.php?i=pm&folder=inbox").text, url=server.url + "ucp.php")
        assert nxt is not None
        more, last = phpbb.parse_pm_inbox(client.get(nxt).text)
    assert [r.pm_id for r in rows + more] == list(range(30, 0, -1)) and last is None
    assert all(r.unread for r in rows + more)


# --- login, sessions, forms -------------------------------------------------------------------------


def test_login_sets_phpbb_cookies_and_redirects(demo: BoardServer, clock: FakeClock) -> None:
    client = httpx.Client(base_url=demo.url, headers={"User-Agent": UA})
    first = client.get("ucp.php?mode=login")
    fields = phpbb.parse_login_form(first.text)
    assert fields["_action"] == f"./ucp.php?mode=login&sid={fields['sid']}"  # no cookie yet: sid in the URLs
    clock.advance()
    answer = client.post(
        fields.pop("_action"), data={**fields, "username": "host_bot", "password": "pw-host_bot", "login": "Login"}
    )
    sid = client.cookies[f"{demo.cookie_prefix}_sid"]
    assert answer.status_code == 302 and answer.headers["Location"] == f"{demo.url}index.php?sid={sid}"
    names = {c.name for c in client.cookies.jar}
    assert names == {f"{demo.cookie_prefix}_{k}" for k in ("u", "k", "sid")}
    assert client.cookies[f"{demo.cookie_prefix}_u"] == "58"
    assert not phpbb.is_login_wall(client.get("viewtopic.php?t=2").text)
    assert demo.requests[-1].user == "host_bot"


@pytest.mark.parametrize(
    ("username", "password", "message"),
    [
        ("host_bot", "wrong", "You have specified an incorrect password."),
        ("nobody", "pw", "You have specified an incorrect username."),
    ],
)
def test_wrong_credentials_show_the_login_form_with_phpbbs_error(
    demo: BoardServer, clock: FakeClock, username: str, password: str, message: str
) -> None:
    with session(demo, clock) as client:
        fields = phpbb.parse_login_form(client.get("ucp.php?mode=login").text)
        clock.advance()
        answer = client.post(
            fields.pop("_action"), data={**fields, "username": username, "password": password, "login": "Login"}
        )
    assert phpbb.is_login_wall(answer.text)
    error = first_class(parse_html(answer.text), "div", "error")
    assert error is not None and message in error.text


def test_a_form_posted_in_the_second_it_was_made_is_invalid(demo: BoardServer, clock: FakeClock) -> None:
    with session(demo, clock) as client:
        fields = phpbb.parse_login_form(client.get("ucp.php?mode=login").text)
        data = {**fields, "username": "host_bot", "password": "pw-host_bot", "login": "Login"}
        same_second = client.post(fields["_action"], data=data)
        assert FORM_INVALID in same_second.text and phpbb.is_login_wall(same_second.text)
        clock.advance(7201)  # tokens live two hours
        assert FORM_INVALID in client.post(fields["_action"], data=data).text
        forged = {**data, "form_token": "0" * 40}
        clock.advance()
        assert FORM_INVALID in client.post(fields["_action"], data=forged).text


def test_sessions_are_bound_to_the_user_agent(demo: BoardServer, clock: FakeClock, bot: httpx.Client) -> None:
    other = httpx.Client(base_url=demo.url, headers={"User-Agent": "another browser"}, cookies=bot.cookies)
    assert phpbb.is_login_wall(other.get("viewtopic.php?t=2").text)
    assert not phpbb.is_login_wall(bot.get("viewtopic.php?t=2").text)


def test_expired_sessions_get_the_login_wall_until_a_new_login(
    demo: BoardServer, clock: FakeClock, bot: httpx.Client
) -> None:
    assert not phpbb.is_login_wall(bot.get("viewtopic.php?t=2").text)
    demo.expire_sessions()
    assert phpbb.is_login_wall(bot.get("viewtopic.php?t=2").text)
    fields = phpbb.parse_login_form(bot.get("ucp.php?mode=login").text)
    clock.advance()
    bot.post(fields.pop("_action"), data={**fields, "username": "host_bot", "password": "pw-host_bot", "login": "1"})
    assert not phpbb.is_login_wall(bot.get("viewtopic.php?t=2").text)


def test_remember_me_logs_in_again_after_the_session_expired(demo: BoardServer, clock: FakeClock) -> None:
    with session(demo, clock) as client:
        fields = phpbb.parse_login_form(client.get("ucp.php?mode=login").text)
        clock.advance()
        data = {**fields, "username": "Alice", "password": "pw-Alice", "autologin": "on", "login": "Login"}
        client.post(fields.pop("_action"), data=data)
        demo.expire_sessions(keep_autologin=True)
        assert not phpbb.is_login_wall(client.get("viewtopic.php?t=2").text)
        assert demo.requests[-1].user == "Alice"
        demo.expire_sessions()
        assert phpbb.is_login_wall(client.get("viewtopic.php?t=2").text)


def test_logout_needs_the_session_id(demo: BoardServer, clock: FakeClock, bot: httpx.Client) -> None:
    sid = bot.cookies[f"{demo.cookie_prefix}_sid"]
    assert "You were not logged out" in bot.get("ucp.php?mode=logout").text
    bot.get(f"ucp.php?mode=logout&sid={sid}")
    assert phpbb.is_login_wall(bot.get("viewtopic.php?t=2").text)


def test_the_projects_phpbb_client_reads_the_board_and_logs_in_again(demo: BoardServer, clock: FakeClock) -> None:
    from forumbot.forum.client import ClientSettings
    from forumbot.forum.http import HttpSettings
    from forumbot.forum.registry import open_client

    settings = ClientSettings(
        forum=demo.url, username="host_bot", password="pw-host_bot", dialect="phpbb", http=HttpSettings(user_agent=UA)
    )
    client = open_client(settings, clock=clock)
    try:
        pages = list(client.fetch_topic(2))
        assert [p.page for p in pages] == [1, 2] and len([p for page in pages for p in page.posts]) == 16
        demo.expire_sessions()
        inbox = client.fetch_inbox()
        assert [s.pm_id for s in inbox] == [3, 2, 1]
        assert client.fetch_pm(inbox[0]).body_text == "Проверяю — Bob Smith\nЛечу — Дядя Фёдор"
    finally:
        client.close()
    assert demo.count("ucp.php", method="POST", query="mode=login") == 2


# --- posting ----------------------------------------------------------------------------------------


def _form(client: httpx.Client, path: str) -> dict[str, str]:
    fields = phpbb.parse_posting_form(client.get(path).text)
    fields.pop("_action")
    return fields


def test_new_topic_and_reply_redirect_to_what_was_posted(
    demo: BoardServer, clock: FakeClock, bot: httpx.Client
) -> None:
    fields = _form(bot, "posting.php?mode=post&f=4")
    clock.advance()
    answer = bot.post(
        "posting.php?mode=post&f=4",
        files={"x": ("", b"")},
        data={**fields, "subject": "Mafia-1. Day 2", "message": "Day 2 [b]begins[/b]", "post": "Submit"},
        follow_redirects=False,
    )
    assert answer.status_code == 302 and answer.headers["Location"] == f"{demo.url}viewtopic.php?t=3"
    fields = _form(bot, "posting.php?mode=reply&t=3")
    clock.advance()
    answer = bot.post(
        "posting.php?mode=reply&t=3", data={**fields, "message": "a reply", "post": "Submit"}, follow_redirects=False
    )
    assert answer.status_code == 302 and answer.headers["Location"] == f"{demo.url}viewtopic.php?p=19#p19"
    posts = demo.board.posts_of(3)
    assert [(p.post_id, p.author, p.subject, p.body) for p in posts] == [
        (18, "host_bot", "Mafia-1. Day 2", "Day 2 [b]begins[/b]"),
        (19, "host_bot", "Re: Mafia-1. Day 2", "a reply"),
    ]
    assert posts[0].time == datetime.fromtimestamp(clock.now - 2, UTC)
    page = phpbb.parse_topic_page(bot.get(answer.headers["Location"]).text)
    assert [p.post_id for p in page.posts] == [18, 19]


def test_flood_control_refuses_a_second_post_too_soon_and_creates_nothing(clock: FakeClock) -> None:
    with BoardServer(demo_board(), clock=clock, flood_interval=15) as server, session(server, clock, "Alice") as c:
        fields = _form(c, "posting.php?mode=reply&t=2")
        clock.advance()
        assert (
            c.post("posting.php?mode=reply&t=2", data={**fields, "message": "one", "post": "Submit"}).status_code == 200
        )
        fields = _form(c, "posting.php?mode=reply&t=2")
        clock.advance(5)
        refused = c.post("posting.php?mode=reply&t=2", data={**fields, "message": "two", "post": "Submit"})
        error = first_class(parse_html(refused.text), "p", "error")
        assert error is not None and FLOOD_ERROR in error.text
        assert phpbb.parse_posting_form(refused.text)["message"] == "two"  # the text is kept for a retry
        assert [p.body for p in server.board.posts_of(2)][-1] == "one"
        # a PM counts as a post too
        clock.advance(1)
        compose = _form(c, "ucp.php?i=pm&mode=compose&u=58")
        clock.advance(1)
        pm = c.post(
            "ucp.php?i=pm&mode=compose&action=post",
            data={**compose, "subject": "s", "message": "m", "post": "Submit"},
        )
        assert FLOOD_ERROR in pm.text and len(server.board.pms_from("Alice")) == 1
        clock.advance(15)
        fields = _form(c, "posting.php?mode=reply&t=2")
        clock.advance(1)
        c.post("posting.php?mode=reply&t=2", data={**fields, "message": "three", "post": "Submit"})
        assert [p.body for p in server.board.posts_of(2)][-1] == "three"


def test_missing_or_wrong_token_is_phpbbs_invalid_form(demo: BoardServer, clock: FakeClock, bot: httpx.Client) -> None:
    fields = _form(bot, "posting.php?mode=reply&t=2")
    clock.advance()
    for broken in ({**fields, "form_token": "f" * 40}, {k: v for k, v in fields.items() if k != "form_token"}):
        answer = bot.post("posting.php?mode=reply&t=2", data={**broken, "message": "x", "post": "Submit"})
        assert answer.status_code == 200 and FORM_INVALID in answer.text
    assert len(demo.board.posts_of(2)) == 16


def test_quotes_nested_deeper_than_three_are_refused(demo: BoardServer, clock: FakeClock, bot: httpx.Client) -> None:
    fields = _form(bot, "posting.php?mode=reply&t=2")
    clock.advance()
    deep = "[quote]" * 4 + "x" + "[/quote]" * 4
    answer = bot.post("posting.php?mode=reply&t=2", data={**fields, "message": deep, "post": "Submit"})
    assert "You may embed only 3 quotes within each other." in answer.text
    assert len(demo.board.posts_of(2)) == 16


def test_a_reply_after_someone_else_posted_is_reviewed_not_posted(
    demo: BoardServer, clock: FakeClock, bot: httpx.Client
) -> None:
    fields = _form(bot, "posting.php?mode=reply&t=2")
    demo.board.add_post(2, "Alice", "meanwhile", DAY.replace(minute=50))
    clock.advance()
    answer = bot.post("posting.php?mode=reply&t=2", data={**fields, "message": "late", "post": "Submit"})
    assert "At least one new post has been made to this topic" in answer.text
    assert [p.body for p in demo.board.posts_of(2)][-1] == "meanwhile"
    again = phpbb.parse_posting_form(answer.text)
    assert again["topic_cur_post_id"] == "18" and again["message"] == "late"


def test_quote_button_text_and_edit_tracking_as_phpbb(demo: BoardServer, clock: FakeClock) -> None:
    with session(demo, clock, "Alice") as alice:
        quoted = _form(alice, "posting.php?mode=quote&p=3")["message"]
        assert quoted == POSTS[14][3][: POSTS[14][3].index("Agreed")]  # as Charlie's p16 began
        fields = _form(alice, "posting.php?mode=edit&p=3")  # not her last post: the edit shows
        clock.advance()
        alice.post("posting.php?mode=edit&p=3", data={**fields, "message": "I vote [b]Bob Smith[/b]", "post": "Go"})
        assert "edit_reason" not in fields
        assert "You can only edit your own posts." in alice.get("posting.php?mode=edit&p=4").text
    with session(demo, clock, "host_bot") as bot:
        fields = _form(bot, "posting.php?mode=edit&p=17")  # his own last post: phpBB shows nothing
        clock.advance()
        bot.post("posting.php?mode=edit&p=17", data={**fields, "message": "Tally v2", "post": "Submit"})
    with session(demo, clock, "admin") as admin:
        fields = _form(admin, "posting.php?mode=edit&p=4")
        assert "edit_reason" in fields
        clock.advance()
        admin.post("posting.php?mode=edit&p=4", data={**fields, "edit_reason": "typo", "post": "Submit"})
        page = phpbb.parse_topic_page(admin.get("viewtopic.php?t=2").text)
    posts = {p.post_id: p for p in page.posts}
    assert (posts[3].edited, posts[3].edited_by, posts[3].edit_count) == (True, "Alice", 1)
    assert (posts[4].edited_by, posts[4].edit_reason) == ("admin", "typo")
    last = demo.board.post(17)
    assert last.body == "Tally v2" and not last.edited


def test_locked_topic_refuses_replies_and_only_moderators_lock(demo: BoardServer, clock: FakeClock) -> None:
    with session(demo, clock, "Alice") as alice:
        denied = alice.get("mcp.php?f=4&t=2&quickmod=1&action=lock")
        assert denied.status_code == 403 and NOT_AUTHORISED in denied.text and phpbb.is_no_permission(denied.text)
        assert not demo.board.topic(2).locked
    with session(demo, clock, "admin") as admin:
        page = admin.get("viewtopic.php?t=2").text
        lock_link = next(a.get("href") for a in parse_html(page).iter("a") if "action=lock" in (a.get("href") or ""))
        confirm = admin.get(lock_link.removeprefix("./"))
        form = next(f for f in parse_html(confirm.text).iter("form") if f.get("id") == "confirm")
        data = {i.get("name"): i.get("value") for i in form.iter("input") if i.get("type") == "hidden"}
        assert "Are you sure you want to lock this topic?" in confirm.text and not demo.board.topic(2).locked
        done = admin.post(form.get("action").removeprefix("./"), data={**data, "confirm": "Yes"})
        assert "The selected topic has been locked." in done.text and demo.board.topic(2).locked
        replay = admin.post(
            form.get("action").removeprefix("./"), data={**data, "confirm": "Yes"}, follow_redirects=False
        )
        assert (replay.status_code, replay.headers["Location"]) == (302, f"{demo.url}viewtopic.php?t=2")  # used key
        assert "Locked" in admin.get("viewtopic.php?t=2").text
    with session(demo, clock, "Alice") as alice:
        assert TOPIC_LOCKED in alice.get("posting.php?mode=reply&t=2").text
        assert 'id="qr_postform"' not in alice.get("viewtopic.php?t=2").text


def test_pm_compose_in_two_steps(demo: BoardServer, clock: FakeClock, bot: httpx.Client) -> None:
    fields = _form(bot, "ucp.php?i=pm&mode=compose")
    assert not any(k.startswith("address_list") for k in fields)
    one_step = bot.post(
        "ucp.php?i=pm&mode=compose&action=post",
        data={**fields, "username_list": "Alice", "subject": "Role", "message": "m", "post": "Submit"},
    )
    assert "No recipient defined." in one_step.text and not demo.board.pms_to("Alice")
    added = bot.post(
        "ucp.php?i=pm&mode=compose&action=post",
        data={**fields, "username_list": "Alice\nBob Smith", "add_to": "Add", "subject": "Role"},
    )
    step2 = phpbb.parse_posting_form(added.text)
    assert {k: v for k, v in step2.items() if k.startswith("address_list")} == {
        "address_list[u][59]": "to",
        "address_list[u][60]": "to",
    }
    assert step2["subject"] == "Role"
    clock.advance()
    sent = bot.post(
        step2.pop("_action").removeprefix("./"),
        data={**step2, "subject": "Role", "message": "You are [b]mafia[/b].", "post": "Submit"},
    )
    assert "This message has been sent successfully." in sent.text
    pm = demo.board.pms_to("Bob Smith")[0]
    assert (pm.sender, pm.recipients, pm.body, pm.read) == (
        "host_bot",
        ("Alice", "Bob Smith"),
        "You are [b]mafia[/b].",
        False,
    )
    unknown = bot.post(
        "ucp.php?i=pm&mode=compose&action=post", data={**fields, "username_list": "Nobody", "add_to": "Add"}
    )
    assert "The requested users to be added do not exist." in unknown.text


# --- server knobs -----------------------------------------------------------------------------------


def test_latency_is_added_to_every_answer() -> None:
    with BoardServer(demo_board(), latency=0.05) as server:
        client = httpx.Client(base_url=server.url, headers={"User-Agent": UA})
        began = time.perf_counter()
        for _ in range(3):
            client.get("index.php")
        assert time.perf_counter() - began >= 0.15


def test_faults_request_log_and_unknown_routes(demo: BoardServer, clock: FakeClock, bot: httpx.Client) -> None:
    demo.reset_log()
    demo.fail_next(2, status=503, retry_after=7)
    first = bot.get("viewtopic.php?t=2")
    assert (first.status_code, first.headers["Retry-After"]) == (503, "7")
    assert bot.get("viewtopic.php?t=2").status_code == 503
    assert bot.get("viewtopic.php?t=2").status_code == 200
    demo.fail_path("start=10", 500)
    assert bot.get("viewtopic.php?t=2&start=10").status_code == 500
    assert bot.get("viewtopic.php?t=2").status_code == 200
    demo.fail_path("start=10", None)
    assert bot.get("viewtopic.php?t=2&start=10").status_code == 200
    assert bot.get("memberlist.php").status_code == 404
    assert bot.get("viewtopic.php?t=999").status_code == 404
    assert demo.request_count == 8 and demo.count("viewtopic.php") == 7
    assert [r.status for r in demo.requests][:3] == [503, 503, 200]
    assert demo.requests[0].params == {"t": "2"} and demo.requests[0].method == "GET"


def test_a_stopped_board_answers_nobody_not_even_kept_alive_connections() -> None:
    server = BoardServer(demo_board()).start()
    client = httpx.Client(base_url=server.url, headers={"User-Agent": UA})
    assert client.get("index.php").status_code == 200
    server.stop()
    with pytest.raises(httpx.TransportError):
        client.get("index.php")


# --- the day generator ------------------------------------------------------------------------------

PLAYERS = ["Alice", "Bob Smith", "Пётр", "Кот_Матроскин", "Дядя Фёдор", "Шарик", "Mr. Pink", "Charlie"]


def _day(seed: int, posts: int = 300) -> tuple[Board, list[GeneratedPost]]:
    board = Board()
    board.add_user("host_bot", "pw-host_bot")
    topic = board.add_topic(board.add_forum("Mafia"), "Day 1", "host_bot", "Day 1 begins", DAY)
    return board, populate_day(board, topic, posts, PLAYERS, seed, DAY)


def test_populate_day_is_deterministic_and_mixed_in_fixed_shares() -> None:
    board, made = _day(7)
    again, made_again = _day(7)
    assert made == made_again
    assert [p.body for p in board.posts_of(1)] == [p.body for p in again.posts_of(1)]
    assert made != _day(8)[1]
    kinds = Counter(p.kind for p in made)
    assert sum(kinds.values()) == 300
    for kind, share in DAY_MIX:
        assert abs(kinds[kind] - share * 300) <= 1, kind
    bodies = {p.post_id: p.body for p in board.posts_of(1)}
    assert all("[color=darkred][b]" in bodies[p.post_id] for p in made if p.kind == "dark_red")
    assert all(bodies[p.post_id].startswith("[b][color=") for p in made if p.kind == "vote_bold_color")
    assert all(bodies[p.post_id].count("[b]") == 2 for p in made if p.kind == "two_votes")
    assert all(p.author not in PLAYERS for p in made if p.kind == "ghost")
    assert any("post_id=" in bodies[p.post_id] for p in made if p.kind == "quoted_vote")
    assert all(bodies[p.post_id].startswith("[quote") for p in made if p.kind == "quoted_vote")
    assert all(board.post(p.post_id).edited for p in made if p.kind == "edited_vote")
    editors = Counter(board.post(p.post_id).edited_by == p.author for p in made if p.kind == "edited_vote")
    assert editors[True] and editors[False]  # by their authors, and by the moderator with a reason
    times = [p.time for p in board.posts_of(1)]
    assert times == sorted(times)


def test_a_generated_day_serves_and_parses(clock: FakeClock) -> None:
    board, made = _day(3, posts=120)
    with BoardServer(board, clock=clock) as server, session(server, clock, "host_bot") as client:
        pages = [phpbb.parse_topic_page(client.get(f"viewtopic.php?t=1&start={s}").text) for s in range(0, 121, 10)]
    posts = [p for page in pages for p in page.posts]
    assert [p.post_id for p in posts] == [1] + [g.post_id for g in made]
    assert {p.page_count for p in pages} == {13}
    edited = {g.post_id for g in made if g.kind == "edited_vote"}
    assert {p.post_id for p in posts if p.edited} == edited
    reasons = {p.post_id: p.edit_reason for p in posts if p.edited_by == "admin"}
    assert set(reasons.values()) <= {"moderator note"}
