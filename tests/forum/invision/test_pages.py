"""Reading IPB as it really is: conversations, moderator views, plain author names, the pagination
each version uses, relative dates as intervals, undeclared charsets, and IPS 4 saved pages.

The pairs beside the pages (`fixtures/ipb3/*.json`, `fixtures/ips4/*.json`) were written by reading
the pages; `test_parse_pairs.py` checks what every pair shares, this file the IPB-only parts."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from forumbot.errors import ParseError
from forumbot.extract.names import Roster
from forumbot.extract.votes import VoteSettings, extract_votes
from forumbot.forum import registry
from forumbot.forum.dates import parse_forum_interval, parse_ipb_interval
from forumbot.forum.ipb2 import pages as ipb2
from forumbot.forum.ipb3 import pages as ipb3
from forumbot.forum.ips4 import pages as ips4
from forumbot.forum.markup import parse_html, text_of
from forumbot.posts import PrivateMessage

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures"
MSK = timezone(timedelta(hours=3))
NOW = datetime(2026, 12, 1, 21, 10, tzinfo=MSK)
PLAYERS = Roster(["Лиса", "Кот Матроскин", "Winnie", "Галчонок", "Шарик", "Печкин", "Мурка", "Дядя Фёдор"])


def pair(name: str) -> dict[str, Any]:
    return dict(json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8")))


def page(name: str) -> bytes:
    return (FIXTURES / f"{name}.html").read_bytes()


def _instant(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text) if text else None


def _message(pm: PrivateMessage) -> dict[str, Any]:
    return {
        "id": pm.pm_id,
        "sender": pm.sender,
        "sender_id": pm.sender_id,
        "time": pm.time,
        "time_until": pm.time_until,
        "time_text": pm.time_text,
        "subject": pm.subject,
        "body_text": pm.body_text,
    }


# --- conversations and the Messenger folder -------------------------------------------------


def test_a_conversation_gives_every_message_under_its_own_id() -> None:
    case = pair("ipb3/ipb346_pm_conversation")
    got = ipb3.parse_conversation_page(page("ipb3/ipb346_pm_conversation"), case["url"], MSK, now=NOW)
    want = case["conversation"]
    head = (got.conversation_id, got.subject, got.page, got.page_count, got.next_url, got.viewer_id)
    assert head == (want["conversation_id"], want["subject"], want["page"], want["page_count"], None, want["viewer_id"])
    expected = [m | {"time": _instant(m["time"]), "time_until": _instant(m["time_until"])} for m in want["messages"]]
    assert [_message(m) for m in got.messages] == expected
    assert {m.conversation_id for m in got.messages} == {80}


def test_the_order_in_a_reply_to_the_hosts_role_pm_is_found() -> None:
    messages = ipb3.parse_conversation(page("ipb3/ipb346_pm_conversation"), tz=MSK, now=NOW)
    reply = next(m for m in messages if m.sender == "Winnie")
    assert reply.body_text == "Проверяю — Мурка"  # the quoted role is no line of it
    assert "комиссар" not in reply.body_text


def test_a_folder_row_names_the_last_author_and_the_starter_apart() -> None:
    case = pair("ipb3/ipb346_pm_folder")
    rows, _ = ipb3.parse_pm_inbox(page("ipb3/ipb346_pm_folder"), case["url"], tz=MSK, now=NOW)
    got = [
        {"id": r.pm_id, "conversation_id": r.conversation_id, "starter": r.starter}
        | {"last_message_id": r.last_message_id, "replies": r.replies}
        for r in rows
    ]
    assert got == case["conversation_rows"]
    assert rows[0].sender != rows[0].starter  # the host began it, the player wrote last


def test_a_saved_conversation_is_the_inbox_of_its_messages(tmp_path: Path) -> None:
    for name in ("ipb346_pm_folder", "ipb346_pm_conversation"):
        (tmp_path / f"{name}.html").write_bytes(page(f"ipb3/{name}"))
    found = registry.load_saved_folder(tmp_path, now=NOW)
    assert [m.pm_id for m in found.messages] == [301, 305]
    rows = {row.pm_id: row for row in found.inbox}
    assert set(rows) == {305, 81}  # the viewer's own 301 is no PM to him; 81 was not saved
    assert (rows[305].sender, rows[305].time_text) == ("Winnie", "Сегодня, 20:31")


# --- topic pages ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name", ["ipb3/ipb346_topic_rel1", "ipb3/ipb346_topic_rel3_noprofiles", "ipb3/ipb333_topic_rel1"]
)
def test_each_version_addresses_its_pages_its_own_way(name: str) -> None:
    case = pair(name)
    got = ipb3.parse_topic_page(page(name), case["url"], tz=MSK, now=NOW)
    assert (got.page_param, got.per_page) == (case["page_param"], case["per_page"])


def test_the_two_skins_read_the_same_topic_alike() -> None:
    older = ipb3.parse_topic_page(page("ipb3/ipb333_topic_rel1"), tz=MSK, now=NOW)
    newer = ipb3.parse_topic_page(page("ipb3/ipb346_topic_rel1"), tz=MSK, now=NOW)
    assert [(p.post_id, p.author, p.author_id, p.time) for p in older.posts] == [
        (p.post_id, p.author, p.author_id, p.time) for p in newer.posts
    ]


def test_posts_only_moderators_see_are_audited_never_counted() -> None:
    posts = ipb3.parse_topic_page(page("ipb3/ipb346_topic_modview"), tz=MSK, now=NOW).posts
    records = extract_votes(posts, VoteSettings(PLAYERS))
    by_post = {r.post_id: r for r in records if r.post_id in (1107, 1108)}
    assert {pid: (r.target, r.counted, r.reason) for pid, r in by_post.items()} == {
        1107: ("Мурка", False, "unapproved"),
        1108: ("Лиса", False, "deleted"),
    }
    counted = {r.voter: r.target for r in records if r.counted}
    assert "Шарик" not in counted and "Печкин" not in counted


def test_plain_author_names_still_vote_by_nick() -> None:
    shown = ipb3.parse_topic_page(page("ipb3/ipb346_topic_rel1"), tz=MSK, now=NOW).posts
    plain = ipb3.parse_topic_page(page("ipb3/ipb346_topic_rel3_noprofiles"), tz=MSK, now=NOW).posts
    assert all(p.author_id is None for p in plain)

    def tally(posts: Any) -> dict[str, str]:
        return {r.voter: r.target for r in extract_votes(posts, VoteSettings(PLAYERS)) if r.counted}

    assert tally(plain) == tally(shown)
    assert tally(plain)["Кот Матроскин"] == "Лиса"


def test_an_ipb2_post_waiting_for_approval_is_shaded() -> None:
    html = page("ipb/topic_page2").decode("utf-8")
    cell = "class=\"post1\" id='post-main-312'"
    assert cell in html
    queued = html.replace(cell, "class=\"post1shaded\" id='post-main-312'")  # what IPB 2 prints for it
    posts = ipb2.parse_topic_page(queued, tz=MSK).posts
    assert {p.post_id: p.visibility for p in posts if p.visibility != "public"} == {312: "unapproved"}
    assert all(p.visibility == "public" for p in ipb2.parse_topic_page(html, tz=MSK).posts)


def test_ips4_saved_topic_page() -> None:
    case = pair("ips4/ips4_topic_saved")
    want = case["expect"]
    got = ips4.parse_topic_page(page("ips4/ips4_topic_saved"))
    assert registry.detect_page(page("ips4/ips4_topic_saved")) == tuple(case["detect"])
    head = (got.dialect, got.topic_id, got.title, got.page, got.page_count, got.next_url, got.page_param)
    assert head == tuple(
        want[k] for k in ("dialect", "topic_id", "title", "page", "page_count", "next_url", "page_param")
    )
    assert [p.post_id for p in got.posts] == want["post_ids"]
    posts = {p.post_id: p for p in got.posts}
    for expected in want["posts"]:
        post = posts[expected["id"]]
        fields = (post.author, post.author_id, post.time, post.permalink, post.page, post.visibility)
        assert fields == (
            expected["author"],
            expected["author_id"],
            datetime.fromisoformat(expected["time"]),
            expected["permalink"],
            expected["page"],
            expected["visibility"],
        )
        body = text_of(parse_html(post.content_html))
        assert all(piece in body for piece in expected["content_contains"]), body


# --- dates ----------------------------------------------------------------------------------


SECOND = timedelta(seconds=1)


@pytest.mark.parametrize(
    ("text", "oldest", "youngest"),
    [
        # IPB's own bands of age: [youngest, oldest) before the fetch, in whole seconds
        ("3 часов назад", timedelta(hours=4), timedelta(hours=3)),
        ("15 минут назад", timedelta(minutes=16), timedelta(minutes=15)),
        ("минуту назад", timedelta(minutes=2), timedelta(0)),  # any age under 2 minutes
        ("час назад", timedelta(hours=2), timedelta(hours=1)),
        ("вчера", timedelta(hours=48), timedelta(hours=24)),  # alone: 24 to 48 hours, not the calendar day
        ("3 дней назад", timedelta(days=4), timedelta(days=3)),
        ("неделю назад", timedelta(days=14), timedelta(days=7)),
        ("2 hours ago", timedelta(hours=3), timedelta(hours=2)),
    ],
)
def test_ipb_relative_forms_are_the_ages_ipb_prints_them_for(text: str, oldest: timedelta, youngest: timedelta) -> None:
    assert parse_ipb_interval(text, MSK, NOW) == (NOW - oldest + SECOND, NOW - youngest + SECOND)


def test_ipb_dates_with_a_clock_time_are_that_minute() -> None:
    for text, start in [
        ("Сегодня, 20:31", datetime(2026, 12, 1, 20, 31, tzinfo=MSK)),
        ("Вчера, 12:00", datetime(2026, 11, 30, 12, 0, tzinfo=MSK)),
    ]:
        assert parse_ipb_interval(text, MSK, NOW) == (start, start + timedelta(minutes=1))
    assert parse_ipb_interval("29 Nov 2026", MSK, NOW) == (
        datetime(2026, 11, 29, tzinfo=MSK),
        datetime(2026, 11, 30, tzinfo=MSK),
    )


def test_phpbb_keeps_its_own_reading_of_yesterday() -> None:
    assert parse_forum_interval("вчера", MSK, NOW) == (
        datetime(2026, 11, 30, tzinfo=MSK),
        datetime(2026, 12, 1, tzinfo=MSK),
    )


def test_without_a_fetch_time_only_a_quoted_message_has_a_time() -> None:
    messages = ipb3.parse_conversation(page("ipb3/ipb346_pm_conversation"), tz=MSK)
    # 305 quotes 301 with its unix time; 305's own "Сегодня, 20:31" needs the fetch time
    assert [(m.pm_id, m.time, m.time_until) for m in messages] == [
        (301, datetime(2026, 11, 30, 9, 0, tzinfo=UTC), None),
        (305, None, None),
    ]


# --- charsets and foreign engines -----------------------------------------------------------


def _undeclared(codec: str) -> bytes:
    text = page("ipb/topic_page1").decode("utf-8")
    meta = '<meta http-equiv="content-type" content="text/html; charset=utf-8" />'
    assert meta in text
    return text.replace(meta, "").encode(codec, errors="xmlcharrefreplace")


def test_a_koi8_r_page_without_a_charset_reads_as_russian() -> None:
    plain = ipb2.parse_topic_page(page("ipb/topic_page1"), tz=MSK).posts
    koi8 = ipb2.parse_topic_page(_undeclared("koi8_r"), tz=MSK).posts
    assert [(p.author, p.content_html) for p in koi8] == [(p.author, p.content_html) for p in plain]


def test_a_page_in_no_charset_we_can_tell_is_refused_by_name() -> None:
    with pytest.raises(ParseError, match="showtopic=15821.*declares no charset"):
        ipb2.parse_topic_page(
            _undeclared("iso8859_5"), "http://f.example/index.php?showtopic=15821", tz=MSK
        )


def test_a_mybb_page_is_named_unsupported(tmp_path: Path) -> None:
    (tmp_path / "topic.html").write_text(
        "<html><head><title>Мафия</title></head><body><div id='pun' class='punbb'>"
        "<div id='pun-viewtopic' class='punbb'><a href='viewtopic.php?id=5'>Мафия</a></div></div></body></html>",
        encoding="utf-8",
    )
    found = registry.load_saved_folder(tmp_path, now=datetime(2026, 12, 1, tzinfo=UTC))
    assert [(s.name, s.reason) for s in found.skipped] == [
        ("topic.html", "a mybb.ru / rusff (PunBB) page: that engine is not supported")
    ]


@pytest.mark.parametrize(
    ("name", "offset"),
    [
        ("ipb3/ipb346_topic_rel1", timedelta(hours=3)),  # "Сегодня, 10:00" for 07:00 UTC
        ("ipb3/ipb333_topic_rel1", timedelta(hours=3)),  # "Today, 10:00"
        ("ipb3/ipb346_pm_conversation", timedelta(hours=3)),  # message 301 "Вчера, 12:00", quoted with its unix time
        ("ipb3/ipb346_topic_rel3_noprofiles", None),  # only "N часов назад": no clock time to compare
        ("ipb3/ipb346_pm_folder", None),
    ],
)
def test_the_viewers_offset_from_printed_and_exact_times(name: str, offset: timedelta | None) -> None:
    assert ipb3.printed_offset(page(name)) == offset


def test_a_soft_deleted_post_without_its_hidden_copy_is_still_deleted() -> None:
    html = page("ipb3/ipb346_topic_modview").decode("utf-8")
    start = html.index("<div id='postsDeleteShow_1108'")
    end = html.index("<ul class='post_controls clear clearfix'>", start)
    stamp = (
        "<p class='posted_info'>Отправлено "
        '<abbr class="published" title="2026-12-01T17:59:00+00:00">Сегодня, 20:59</abbr></p>'
    )
    notice_only = html[:start] + stamp + html[end:]  # a viewer allowed the notice but not the post
    posts = {p.post_id: p for p in ipb3.parse_topic_page(notice_only, tz=MSK, now=NOW).posts}
    assert posts[1108].visibility == "deleted" and "Сообщение удалено" in posts[1108].content_html
