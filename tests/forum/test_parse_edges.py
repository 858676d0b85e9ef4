"""The parsers on pages that are wrong, walled, or unusual: errors that name the page, login walls,
"no permission" pages, and markup variants the captured pages do not show (cut names, guests,
edit reasons, English IPB, phpBB 3.0 text dates)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from forumbot.errors import ParseError
from forumbot.forum.dates import is_relative, parse_forum_date
from forumbot.forum.invision import pages as invision
from forumbot.forum.ipb2 import pages as ipb2
from forumbot.forum.ipb3 import pages as ipb3
from forumbot.forum.markup import parse_html, text_lines, text_of
from forumbot.forum.phpbb import pages as phpbb

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
MSK = timezone(timedelta(hours=3))


def page(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


# --- errors name the page ------------------------------------------------------------------


def test_a_page_that_is_no_topic_page_raises_naming_it_by_url() -> None:
    url = "http://127.0.0.1:8181/ucp.php?i=pm&folder=inbox"
    with pytest.raises(ParseError, match=r"ucp\.php\?i=pm&folder=inbox: not a phpBB topic page"):
        phpbb.parse_topic_page(page("phpbb/pm_inbox.html"), url)


def test_without_a_url_the_error_names_the_page_by_its_title() -> None:
    with pytest.raises(ParseError, match="page titled '\\(2\\) Mafia - Mafia Test Board'"):
        phpbb.parse_topic_page(page("phpbb/viewforum_mafia.html"))
    with pytest.raises(ParseError, match="page titled 'Добро пожаловать в личный ящик': not an IPB topic"):
        ipb2.parse_topic_page(page("ipb/pm_inbox.html"), tz=MSK)


def test_a_login_page_served_for_a_topic_says_so() -> None:
    with pytest.raises(ParseError, match="login page"):
        phpbb.parse_topic_page(page("phpbb/login_page.html"), "http://127.0.0.1:8181/viewtopic.php?t=2")
    with pytest.raises(ParseError, match="login page"):
        ipb2.parse_topic_page(page("ipb/login.html"))


@pytest.mark.parametrize("empty", ["", "   \n", b"", b" \n"])
def test_an_empty_page_is_a_parse_error(empty: str | bytes) -> None:
    with pytest.raises(ParseError, match="empty page"):
        phpbb.parse_topic_page(empty)
    with pytest.raises(ParseError, match="empty page"):
        ipb2.parse_pm(empty)


def test_pm_parsers_refuse_other_pages() -> None:
    with pytest.raises(ParseError, match="not a phpBB private message page"):
        phpbb.parse_pm(page("phpbb/viewtopic_page1.html"))
    with pytest.raises(ParseError, match="not a phpBB PM folder"):
        phpbb.parse_pm_inbox(page("phpbb/viewtopic_page1.html"))
    with pytest.raises(ParseError, match="not an IPB private message page"):
        ipb2.parse_pm(page("ipb/topic_page1.html"), tz=MSK)
    with pytest.raises(ParseError, match="no phpBB login form"):
        phpbb.parse_login_form(page("phpbb/viewtopic_page1.html"))


# --- walls ----------------------------------------------------------------------------------


def test_phpbb_login_wall_and_guest_pages() -> None:
    assert phpbb.is_login_wall(page("phpbb/login_page.html"))
    assert not phpbb.is_login_wall(page("phpbb/viewtopic_page1_guest.html"))
    assert not phpbb.is_login_wall(page("phpbb/viewtopic_page1.html"))
    guest = phpbb.parse_topic_page(page("phpbb/viewtopic_page1_guest.html"))
    assert [p.author for p in guest.posts][:3] == ["host_bot", "Alice", "Bob Smith"]
    assert guest.posts[0].permalink == "http://127.0.0.1:8181/viewtopic.php?p=2#p2"  # from rel=canonical


@pytest.mark.parametrize("name", ["phpbb/no_permission.html", "phpbb/ru_no_permission.html"])
def test_phpbb_no_permission_page(name: str) -> None:
    html = page(name)
    assert phpbb.is_no_permission(html)
    assert not phpbb.is_login_wall(html)
    with pytest.raises(ParseError, match="refused access"):
        phpbb.parse_topic_page(html, "http://127.0.0.1:8181/viewtopic.php?t=9")
    assert not phpbb.is_no_permission(page("phpbb/viewtopic_page1.html"))


def test_ipb_walls() -> None:
    assert invision.is_login_wall((FIXTURES / "ipb" / "login_cp1251.html").read_bytes())
    assert not invision.is_login_wall(page("ipb/topic_page1.html"))
    assert invision.is_no_permission(page("ipb/no_permission.html"))
    assert invision.is_no_permission(page("ipb3/no_permission.html"))
    assert not invision.is_no_permission(page("ipb3/ipb346_topic_rel1.html"))


def test_ipb3_refusal_to_a_guest_is_a_login_wall() -> None:
    html = page("ipb3/no_permission.html")
    logout = "do=logout&amp;k=3f1a9c0e5b7d24a6c8e0f2b4d6a8c0e2"
    assert logout in html
    assert invision.is_login_wall(html.replace(logout, "do=nothing")) is True
    assert invision.is_login_wall(html) is False


# --- IPB 2 markup the captured pages lack ---------------------------------------------------

_MENU_309 = "<div class='popupmenu-new' id='post-member-309_menu' style='display:none;width:230px'>"


def _with_cut_name(html: str) -> str:
    html = html.replace("showuser=18'>Winnie</a>", "showuser=18'>Кот в сапогах из...</a>")
    return html.replace(
        _MENU_309 + "\n\t\t\t\t\t<div class='popupmenu-item-last'>",
        _MENU_309 + "\n\t\t\t\t\t<div class='popupmenu-item-last'>"
        "<div class='popupmenu-item'><strong>Кот в сапогах из Маркизата</strong></div>",
    )


def test_ipb2_cut_author_name_comes_whole_from_the_popup_menu() -> None:
    html = _with_cut_name(page("ipb/topic_page1.html"))
    post = ipb2.parse_topic_page(html, tz=MSK).posts[8]
    assert (post.post_id, post.author, post.author_id) == (309, "Кот в сапогах из Маркизата", 18)


def test_ipb2_guest_author() -> None:
    html = page("ipb/topic_page1.html")
    start = html.index('<div id="post-member-305"')
    end = html.index("<!-- member menu -->", start)
    html = html[:start] + '<span class="unreg">Прохожий</span>\n' + html[end:]
    post = ipb2.parse_topic_page(html, tz=MSK).posts[4]
    assert (post.post_id, post.author, post.author_id) == (305, "Прохожий", None)


def test_ipb2_placeholder_of_an_ignored_member_is_not_a_post() -> None:
    placeholder = (
        "<div id='post-ignore-305' style='display:none'>\n <div class=\"postcolor\" id='post-305'>\n"
        "   <strong>Вы игнорируете Печкин.</strong></div></div>\n"
    )
    html = page("ipb/topic_page1.html").replace(
        "<!--Begin Msg Number 305-->", placeholder + "<!--Begin Msg Number 305-->"
    )
    posts = ipb2.parse_topic_page(html, tz=MSK).posts
    assert [p.post_id for p in posts] == list(range(301, 311))
    assert "почтальон" in posts[4].content_html


def test_ipb2_edit_reason_is_read_and_cut_out_of_the_body() -> None:
    line = "<span class='edit'>Сообщение отредактировал <b>Winnie</b> - Сегодня, 12:03</span>"
    reason = "<div class='post-edit-reason'>Причина редактирования: опечатка в нике</div>"
    html = page("ipb/topic_page1.html").replace(line, line + reason)
    post = ipb2.parse_topic_page(html, tz=MSK).posts[8]
    assert (post.edited, post.edited_by, post.edited_at, post.edit_reason) == (
        True,
        "Winnie",
        "Сегодня, 12:03",
        "опечатка в нике",
    )
    assert "опечатка" not in post.content_html and "отредактировал" not in post.content_html
    assert "<br><br>" not in post.content_html.replace("\n", "").replace("\t", "")
    assert "Дядя Фёдор" in post.content_html


def test_ipb2_english_edit_line_and_dates() -> None:
    html = page("ipb/topic_page1.html")
    html = html.replace(
        "Сообщение отредактировал <b>Winnie</b> - Сегодня, 12:03",
        "This post has been edited by <b>Winnie</b>: Today, 12:03 PM",
    )
    html = html.replace("Сейчас: 29.11.2026, 21:10", "Time is now: Nov 29 2026, 09:10 PM")
    html = html.replace("27.11.2026, 22:00", "Nov 27 2026, 10:00 PM")
    posts = ipb2.parse_topic_page(html, tz=MSK).posts
    assert (posts[8].edited_by, posts[8].edited_at) == ("Winnie", "Today, 12:03 PM")
    assert posts[0].time == datetime(2026, 11, 27, 22, 0, tzinfo=MSK)
    assert posts[5].time == datetime(2026, 11, 29, 9, 30, tzinfo=MSK)  # "Сегодня, 9:30" against the footer


def test_ipb2_relative_dates_need_a_now() -> None:
    html = page("ipb/topic_page1.html").replace("Сейчас: 29.11.2026, 21:10", "")
    unresolved = ipb2.parse_topic_page(html, tz=MSK)
    assert any(
        re.search("Мафия-7. День 1 .*: post 302: relative date 'Вчера, 10:02' needs", problem)
        for problem in unresolved.problems
    )
    assert 302 not in {p.post_id for p in unresolved.posts}
    posts = ipb2.parse_topic_page(html, now=datetime(2026, 11, 29, 21, 0, tzinfo=MSK)).posts
    assert posts[1].time == datetime(2026, 11, 28, 10, 2, tzinfo=MSK)  # tz taken from `now`
    assert posts[1].time.utcoffset() == timedelta(hours=3)


def test_ipb2_footer_beats_the_fetch_time() -> None:
    late = datetime(2026, 12, 5, 12, 0, tzinfo=MSK)
    posts = ipb2.parse_topic_page(page("ipb/topic_page1.html"), now=late).posts
    assert posts[5].time == datetime(2026, 11, 29, 9, 30, tzinfo=MSK)
    assert ipb2.page_now(page("ipb/topic_page1.html"), MSK) == datetime(2026, 11, 29, 21, 10, tzinfo=MSK)
    assert ipb2.page_now(page("ipb3/ipb346_topic_rel1.html"), MSK) is None


def test_ipb3_conversation_gives_every_message() -> None:
    messages = ipb3.parse_conversation(page("ipb3/ipb346_pm_conversation.html"), tz=MSK)
    assert [(m.pm_id, m.sender, m.body_text) for m in messages] == [
        (301, "Ведущий", "Ваша роль: комиссар."),
        (305, "Winnie", "Проверяю — Мурка"),
    ]


def test_ipb_quick_reply_form() -> None:
    fields = invision.parse_posting_form(page("ipb/topic_page1.html"))
    assert fields["act"] == "Post" and fields["CODE"] == "03" and fields["t"] == "15821"
    assert fields["auth_key"] == "ace70557fdbc0dc5872950b874065621"
    assert fields["_action"] == "http://forum.nightcity.example/forum/index.php?"


# --- phpBB markup the captured pages lack ---------------------------------------------------


def test_phpbb_signature_and_notice_stay_out_of_the_body() -> None:
    html = page("phpbb/viewtopic_page1.html").replace(
        "P.S. edited without reason</div>",
        'P.S. edited without reason</div>\n<div id="sig5" class="signature">'
        '<span style="color:red"><strong class="text-strong">Alice</strong></span></div>',
    )
    post = phpbb.parse_topic_page(html).posts[3]
    assert post.post_id == 5 and post.edited and post.edited_by == "Пётр"
    assert "signature" not in post.content_html and "Last edited" not in post.content_html
    assert post.content_html.startswith('<div class="content">Vote:')


def test_phpbb_guest_and_coloured_authors() -> None:
    alice = '<a href="./memberlist.php?mode=viewprofile&amp;u=59" class="username">Alice</a>'
    html = page("phpbb/viewtopic_page2.html").replace(alice, '<span class="username">Guest Anna</span>', 2)
    bob = '<a href="./memberlist.php?mode=viewprofile&amp;u=60" class="username">Bob Smith</a>'
    coloured = bob.replace('class="username"', 'style="color: #AA0000;" class="username-coloured"')
    html = html.replace(bob, coloured)
    posts = {p.post_id: p for p in phpbb.parse_topic_page(html).posts}
    assert (posts[14].author, posts[14].author_id) == ("Guest Anna", None)
    assert (posts[13].author, posts[13].author_id) == ("Bob Smith", 60)


def test_a_broken_post_is_reported_naming_page_and_post_and_the_others_are_kept() -> None:
    html = page("phpbb/viewtopic_page2.html").replace(
        '<div class="content">Changing my vote', "<div>Changing"
    )
    parsed = phpbb.parse_topic_page(html, "http://127.0.0.1:8181/viewtopic.php?t=2&start=10")
    assert len(parsed.problems) == 1
    assert re.search(r"start=10: post 13: no author line \(p.author\) or no body", parsed.problems[0])
    assert [p.post_id for p in parsed.posts] == [12, 14, 15, 16, 17]


def test_phpbb_notice_without_a_profile_link() -> None:
    link = '<a href="./memberlist.php?mode=viewprofile&amp;u=65" class="username">Mr. Pink</a>'
    html = page("phpbb/ru_viewtopic_page1.html").replace(link, "Mr. Pink")
    post = next(p for p in phpbb.parse_topic_page(html).posts if p.post_id == 9)
    assert (post.edited_by, post.edited_at, post.edit_count) == ("Mr. Pink", "Вс ноя 29, 2026 5:38 pm", 1)


def test_phpbb_30_text_dates_use_the_viewer_zone() -> None:
    stamp = '<time datetime="2026-11-29T17:38:26+00:00">Sun Nov 29, 2026 5:38 pm</time>'
    html = page("phpbb/viewtopic_page2.html").replace(stamp, "Sun Nov 29, 2026 8:38 pm")
    post = phpbb.parse_topic_page(html, tz=MSK).posts[0]
    assert post.post_id == 12 and post.time == datetime(2026, 11, 29, 17, 38, tzinfo=UTC)


def test_phpbb_detection() -> None:
    assert phpbb.detect(page("phpbb/viewtopic_page1.html"))
    assert not phpbb.detect(page("ipb/topic_page1.html"))
    assert invision.version_of(page("phpbb/viewtopic_page1.html")) is None
    assert invision.version_of(page("ipb3/ipb333_topic_rel1.html")) == 3


# --- dates and text -------------------------------------------------------------------------

_NOW = datetime(2026, 11, 29, 21, 10, tzinfo=MSK)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Sun Nov 29, 2026 5:32 pm", datetime(2026, 11, 29, 17, 32, tzinfo=MSK)),
        ("Вс ноя 29, 2026 5:38 pm", datetime(2026, 11, 29, 17, 38, tzinfo=MSK)),
        ("29 ноя 2026, 17:38", datetime(2026, 11, 29, 17, 38, tzinfo=MSK)),
        ("29 ноября 2026, 17:38", datetime(2026, 11, 29, 17, 38, tzinfo=MSK)),
        ("Январь 1st, 2027, 12:05 am", datetime(2027, 1, 1, 0, 5, tzinfo=MSK)),
        ("2.12.2026, 0:20", datetime(2026, 12, 2, 0, 20, tzinfo=MSK)),
        ("29 November 2026 - 08:31 PM", datetime(2026, 11, 29, 20, 31, tzinfo=MSK)),
        ("Сегодня, 9:30", datetime(2026, 11, 29, 9, 30, tzinfo=MSK)),
        ("Вчера, 23:58", datetime(2026, 11, 28, 23, 58, tzinfo=MSK)),
        ("Today, 11:15 PM", datetime(2026, 11, 29, 23, 15, tzinfo=MSK)),
        ("5 minutes ago", datetime(2026, 11, 29, 21, 5, tzinfo=MSK)),
        ("менее минуты назад", _NOW),
        ("30 Ноябрь 2026", None),
        ("not a date at 10:00 and", None),
    ],
)
def test_forum_dates(text: str, expected: datetime | None) -> None:
    assert parse_forum_date(text, MSK, _NOW) == expected


def test_relative_dates_without_now() -> None:
    assert is_relative("Вчера, 23:58") and not is_relative("27.11.2026, 22:00")
    assert parse_forum_date("Вчера, 23:58", MSK) is None
    late_utc = datetime(2026, 11, 29, 22, 30, tzinfo=UTC)  # already the 30th in Moscow
    assert parse_forum_date("Сегодня, 0:10", MSK, late_utc) == datetime(2026, 11, 30, 0, 10, tzinfo=MSK)


def test_text_lines_follow_rendering_not_source_newlines() -> None:
    root = parse_html("<div id=x>a\n b<br>c<blockquote>q</blockquote>d<p>e</p>f<span>g</span></div>")
    box = next(el for el in root.iter("div"))
    assert text_lines(box, skip=lambda el: el.tag == "blockquote") == ["a b", "c", "d", "e", "fg"]
    assert text_of(box) == "a bcqdefg"
