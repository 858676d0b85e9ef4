"""Folders of pages saved from a browser: engine and kind detection, order, charsets, relative dates
(footer, then `now`, then the file's modification time), and files that give nothing, reported."""

from __future__ import annotations

import os
import re
import shutil
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from lxml import etree

from forumbot.errors import ParseError
from forumbot.forum import registry
from forumbot.forum.client import ClientSettings
from forumbot.forum.invision.pages import read_page
from forumbot.forum.markup import parse_html
from forumbot.forum.saved import pages as saved

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures"
MSK = timezone(timedelta(hours=3))


def put(folder: Path, source: str, name: str | None = None) -> Path:
    target = folder / (name or Path(source).name)
    shutil.copyfile(FIXTURES / source, target)
    return target


def test_phpbb_folder(tmp_path: Path) -> None:
    put(tmp_path, "phpbb/viewtopic_page2.html", "a_page2.html")
    put(tmp_path, "phpbb/viewtopic_page1.html", "b_page1.HTM")
    put(tmp_path, "phpbb/pm_inbox.html")
    put(tmp_path, "phpbb/pm_view.html")
    put(tmp_path, "phpbb/ru_pm_view.html")
    found = registry.load_saved_folder(tmp_path)
    assert [(p.topic_id, p.page, len(p.posts)) for p in found.topic_pages] == [(2, 1, 10), (2, 2, 6)]
    assert [p.post_id for page in found.topic_pages for p in page.posts] == list(range(2, 18))
    assert [m.pm_id for m in found.inbox] == [3, 2, 1]
    assert [(m.pm_id, m.sender, m.body_text) for m in found.messages] == [
        (1, "Alice", "Убиваем — Пётр"),
        (2, "Кот_Матроскин", "Убиваем — Charlie"),
    ]
    assert found.skipped == ()
    assert saved.SavedFolder is saved.SavedPages


def test_files_that_give_nothing_are_reported(tmp_path: Path) -> None:
    put(tmp_path, "phpbb/viewtopic_page1.html")
    put(tmp_path, "phpbb/ru_viewtopic_page1.html")
    put(tmp_path, "phpbb/viewforum_mafia.html")
    (tmp_path / "notes.html").write_text("<html><head><title>my notes</title></head><body>hi</body></html>")
    (tmp_path / "readme.txt").write_text("not a page")
    (tmp_path / "viewtopic_page1_files").mkdir()
    put(tmp_path / "viewtopic_page1_files", "phpbb/viewtopic_page2.html", "frame.html")
    found = registry.load_saved_folder(tmp_path)
    assert [(p.page, len(p.posts)) for p in found.topic_pages] == [(1, 10)]
    reasons = {s.name: s.reason for s in found.skipped}
    assert reasons == {
        "notes.html": "not a phpBB or IPB page",
        "viewforum_mafia.html": "phpBB page, but not a topic page, PM folder or PM",
        "viewtopic_page1.html": "page 1 of topic 2 again, already read from ru_viewtopic_page1.html",
    }


def test_a_file_in_place_of_a_page_that_cannot_be_read_whole_is_refused_named(tmp_path: Path) -> None:
    """An empty file, a login page, a refusal: the browser saved something else than the page. The folder is
    refused, every such file named with why, on one line; nothing of it is read."""
    put(tmp_path, "phpbb/viewtopic_page1.html")
    put(tmp_path, "phpbb/login_page.html")
    put(tmp_path, "ipb/no_permission.html", "ipb_refused.html")
    (tmp_path / "empty.htm").write_bytes(b"")
    (tmp_path / "blank.html").write_bytes(b" \n")
    with pytest.raises(ParseError) as refused:
        registry.load_saved_folder(tmp_path)
    said = str(refused.value)
    assert "\n" not in said and said.startswith(f"{tmp_path}: 4 saved pages cannot be read whole (")
    assert "blank.html: an empty file; empty.htm: an empty file" in said
    assert "ipb_refused.html: IPB 2.x 'no permission' page, not a topic page or PM" in said
    assert "login_page.html: phpBB login page, not a topic page or PM" in said


def test_ipb2_cp1251_pages_resolve_relative_dates_against_their_footer(tmp_path: Path) -> None:
    for name in ("topic_page2_cp1251", "topic_page1_cp1251", "pm_inbox_cp1251", "pm_view_cp1251"):
        put(tmp_path, f"ipb/{name}.html")
    found = registry.load_saved_folder(tmp_path, now=datetime(2027, 1, 1, tzinfo=MSK))
    assert [(p.dialect, p.page) for p in found.topic_pages] == [("ipb2", 1), ("ipb2", 2)]
    first = found.topic_pages[0].posts
    assert (first[1].author, first[1].time) == ("Лиса", datetime(2026, 11, 28, 10, 2, tzinfo=MSK))
    assert [m.pm_id for m in found.inbox] == [1207, 1205, 1202, 1201]
    assert found.inbox[3].time == datetime(2026, 11, 28, 23, 41, tzinfo=MSK)
    assert found.messages[0].subject == "приказы"


def _without_footer_time(path: Path) -> None:
    data = path.read_bytes().replace("Сейчас: 29.11.2026, 21:10".encode("cp1251"), b"")
    path.write_bytes(data)


def test_without_a_footer_now_then_the_file_time_then_now(tmp_path: Path) -> None:
    """The board's clock when the page was saved: the file's time, whatever `now` (the bot's own) says;
    `now` only for a file whose time the file system cannot tell."""
    page = put(tmp_path, "ipb/topic_page1_cp1251.html")
    _without_footer_time(page)
    evening = datetime(2026, 11, 29, 21, 10, tzinfo=MSK)
    os.utime(page, (evening.timestamp(), evening.timestamp()))
    from_mtime = registry.load_saved_folder(tmp_path, tz=MSK, now=evening + timedelta(days=3))
    assert from_mtime.topic_pages[0].posts[5].time == datetime(2026, 11, 29, 9, 30, tzinfo=MSK)  # "Сегодня, 9:30"
    next_day = evening + timedelta(days=1)
    os.utime(page, (next_day.timestamp(), next_day.timestamp()))
    shifted = registry.load_saved_folder(tmp_path, tz=MSK)
    assert shifted.topic_pages[0].posts[5].time == datetime(2026, 11, 30, 9, 30, tzinfo=MSK)
    os.utime(page, (0, 0))  # a time the file system does not know
    given = registry.load_saved_folder(tmp_path, now=evening)
    assert given.topic_pages[0].posts[5].time == datetime(2026, 11, 29, 9, 30, tzinfo=MSK)


def test_undeclared_windows_1251_bytes(tmp_path: Path) -> None:
    page = put(tmp_path, "ipb/pm_view_cp1251.html")
    data = page.read_bytes()
    meta = b'<meta http-equiv="content-type" content="text/html; charset=windows-1251" />'
    assert meta in data
    page.write_bytes(data.replace(meta, b""))
    found = registry.load_saved_folder(tmp_path, tz=MSK)
    assert (found.messages[0].subject, found.messages[0].sender) == ("приказы", "Winnie")


def test_ipb3_folder_and_the_saved_from_url_comment(tmp_path: Path) -> None:
    for name in ("ipb346_topic_rel1", "ipb346_pm_folder", "ipb346_pm_conversation"):
        put(tmp_path, f"ipb3/{name}.html")
    inbox = put(tmp_path, "phpbb/pm_inbox.html", "phpbb_inbox.html")
    noted = "<!-- saved from url=(0048)http://127.0.0.1:8181/ucp.php?i=pm&folder=inbox -->\n"
    inbox.write_text(noted + inbox.read_text(encoding="utf-8"), encoding="utf-8")
    found = registry.load_saved_folder(tmp_path, now=datetime(2026, 12, 1, 21, 10, tzinfo=MSK))
    pages = [(p.dialect, p.topic_id, p.page) for p in found.topic_pages]
    assert pages == [("ipb3", 16002, 1)]
    assert found.topic_pages[0].posts[0].time == datetime(2026, 12, 1, 7, 0, tzinfo=UTC)
    # conversation 80 is saved: both its messages are read, the viewer's own (301) is no PM to him;
    # conversation 81 is not: its folder row stays (and cannot be opened)
    assert [m.pm_id for m in found.messages] == [301, 305]
    assert {m.pm_id for m in found.inbox} == {305, 81, 1, 2, 3}
    reply = next(m for m in found.inbox if m.pm_id == 305)
    assert (reply.sender, reply.conversation_id) == ("Winnie", 80)
    phpbb_row = next(m for m in found.inbox if m.pm_id == 3)
    assert phpbb_row.url == "http://127.0.0.1:8181/ucp.php?i=pm&mode=view&f=0&p=3"
    assert saved.saved_url(parse_html(inbox.read_bytes())) == "http://127.0.0.1:8181/ucp.php?i=pm&folder=inbox"


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("phpbb/viewtopic_page1_guest.html", ("phpbb", "topic")),
        ("phpbb/ru_pm_inbox.html", ("phpbb", "pm_inbox")),
        ("phpbb/ru_pm_view.html", ("phpbb", "pm")),
        ("ipb/login.html", ("ipb2", "login")),
        ("ipb/topic_page2_cp1251.html", ("ipb2", "topic")),
        ("ipb3/no_permission.html", ("ipb3", "no_permission")),
        ("ipb3/ipb346_pm_conversation.html", ("ipb3", "pm")),
        ("ips4/ips4_topic_saved.html", ("ips4", "topic")),
    ],
)
def test_detect_page(source: str, expected: tuple[str, str]) -> None:
    assert registry.detect_page((FIXTURES / source).read_bytes()) == expected


def test_not_a_folder(tmp_path: Path) -> None:
    with pytest.raises(ParseError, match="not a folder of saved pages"):
        registry.load_saved_folder(tmp_path / "missing")
    assert registry.detect_page("<html><body><p>plain</p></body></html>") == (None, "unknown")


CUT_PAGES = [  # a page, its engine, and where its footer opens (a browser saves a page cut after it whole)
    ("phpbb/viewtopic_page1.html", "phpBB", b'id="page-footer"'),
    ("phpbb-ru/42-pm-inbox-all-ages.html", "phpBB", b'id="page-footer"'),
    ("phpbb-ru/31-pm-view-lt1min.html", "phpBB", b'id="page-footer"'),
    ("ipb/topic_page1_cp1251.html", "IPB 2.x", b'id="gfooter"'),
    ("ipb/pm_inbox.html", "IPB 2.x", b'id="gfooter"'),
    ("ipb/pm_view_cp1251.html", "IPB 2.x", b'id="gfooter"'),
    ("ipb3/ipb346_topic_rel1.html", "IPB 3.x", b"<div class='topic_controls clear ipsPad_top_bottom_half'>"),
    ("ipb3/ipb346_pm_folder.html", "IPB 3.x", b"id='footer_utilities'"),
    ("ipb3/ipb346_pm_conversation.html", "IPB 3.x", b"id='footer_utilities'"),
    ("ips4/ips4_topic_saved.html", "IPS 4", b'id="ipsLayout_footer"'),
]


@pytest.mark.parametrize(("source", "engine", "footer"), CUT_PAGES)
@pytest.mark.parametrize("cut", [0.3, 0.6, 0.9, 0.99])
def test_half_a_page_in_place_of_a_page_is_refused_named(
    tmp_path: Path, source: str, engine: str, footer: bytes, cut: float
) -> None:
    """The page's bytes cut short (a download that broke off): refused, the file named with what it lacks. The
    same cut page as a browser saves it (every open tag closed, `</html>` added): refused while the cut is
    before its footer; after it, everything the page holds is there."""
    whole = (FIXTURES / source).read_bytes()
    at = int(whole.lower().rindex(b"</html>") * cut)
    (tmp_path / "cut.html").write_bytes(whole[:at])
    named = rf"cut\.html: {re.escape(engine)} (topic page|PM folder|PM page|page) cut short: "
    with pytest.raises(ParseError, match=rf"a saved page cannot be read whole \({named}it stops before its end"):
        registry.load_saved_folder(tmp_path, tz=MSK)
    saved = etree.tostring(read_page(whole[:at]), encoding="unicode", method="html")
    (tmp_path / "cut.html").write_text(saved, encoding="utf-8")
    if at < whole.rindex(footer):
        with pytest.raises(ParseError, match=rf"{named}(no footer|\d+ \w+ where page)"):
            registry.load_saved_folder(tmp_path, tz=MSK)
    else:
        assert registry.load_saved_folder(tmp_path, tz=MSK).skipped == ()
    (tmp_path / "cut.html").write_bytes(whole)
    found = registry.load_saved_folder(tmp_path, tz=MSK)
    assert found.skipped == () and (found.topic_pages or found.inbox or found.messages)


def test_a_topic_read_from_saved_pages_names_the_pages_the_folder_lacks(tmp_path: Path) -> None:
    """Pages 1 and 3 saved of a topic of 4: its reader refuses to read the topic without pages 2 and 4."""
    for n in (1, 3):
        put(tmp_path, f"demo/pages/day1_page{n}.html")
    client = registry.open_client(ClientSettings(forum=str(tmp_path)))
    with pytest.raises(ParseError, match=r"has 4 pages, but page\(s\) 2, 4 are not saved"):
        list(client.fetch_topic(1))
    with pytest.raises(ParseError, match=r"page\(s\) 4 are not saved"):
        list(client.fetch_topic(1, from_page=3))
