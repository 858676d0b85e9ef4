"""phpBB parsers on the real board's exchanges (fixtures/phpbb-ru/): what the pairs do not say on
their own. The captures agree with each other (a relative date's interval holds the exact time
another capture shows), the footer's zone is read on every page, moderator-only posts are told
apart by markup and not by words."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from forumbot.errors import ParseError
from forumbot.forum.phpbb import pages as phpbb

REAL = Path(__file__).resolve().parents[3] / "fixtures" / "phpbb-ru"
MSK = timezone(timedelta(hours=3))
EXCHANGES: dict[str, dict[str, Any]] = {
    e["body_file"]: e for e in json.loads((REAL / "index.json").read_text(encoding="utf-8"))
}


def page(name: str) -> bytes:
    return (REAL / name).read_bytes()


def now_of(name: str) -> datetime:
    return datetime.fromisoformat(EXCHANGES[name]["time_utc"])


# --- the viewer's zone ------------------------------------------------------------------------


def _zone_wanted(exchange: dict[str, Any]) -> tuple[timezone, str] | None:
    """README: every page's footer states the viewer's zone; the board and the bot are in
    Europe/Moscow (UTC+3), the English accounts see the zone's name in English; Админ keeps UTC,
    which phpBB prints as plain "UTC"; a 302 has an empty body."""
    if exchange["status"] == 302:
        return None
    if exchange["account"] == "Админ":
        return UTC, "UTC"
    return MSK, "Europe/Moscow" if exchange["lang"] == "en" else "Европа/Москва"


@pytest.mark.parametrize("name", sorted(EXCHANGES))
def test_the_footer_zone_of_every_captured_page(name: str) -> None:
    zone = phpbb.parse_board_zone(page(name))
    wanted = _zone_wanted(EXCHANGES[name])
    assert (None if zone is None else (zone.offset, zone.label)) == wanted


def test_the_zone_is_found_by_its_offset_not_by_the_words() -> None:
    footer = '<div id="page-footer"><ul><li>Zeitzone: <span title="Asien/Kathmandu">UTC+05:45</span></li></ul></div>'
    zone = phpbb.parse_board_zone(f"<html><body>{footer}</body></html>")
    assert zone is not None and zone.offset == timezone(timedelta(hours=5, minutes=45))
    west = phpbb.parse_board_zone('<html><body><div id="page-footer"><span>UTC-03:30</span></div></body></html>')
    assert west is not None and west.offset == timezone(-timedelta(hours=3, minutes=30)) and west.label == ""
    # a post quoting a zone is no footer
    body = '<html><body><div class="content"><span>UTC+07:00</span></div></body></html>'
    assert phpbb.parse_board_zone(body) is None


# --- relative dates agree with the exact times ------------------------------------------------

# PM times to the second, from 96-pm-inbox-dateformat-seconds.html (the bot's format with seconds)
EXACT_PM = {
    84: datetime(2026, 12, 1, 12, 50, 25, tzinfo=MSK),
    82: datetime(2026, 12, 1, 12, 41, 13, tzinfo=MSK),
    70: datetime(2026, 12, 1, 12, 0, 41, tzinfo=MSK),
    67: datetime(2026, 12, 1, 11, 49, 14, tzinfo=MSK),
    63: datetime(2026, 11, 30, 17, 59, 26, tzinfo=MSK),
    62: datetime(2026, 11, 30, 17, 59, 21, tzinfo=MSK),
    58: datetime(2026, 11, 29, 18, 24, 23, tzinfo=MSK),
}


@pytest.mark.parametrize("name", ["30-pm-inbox-lt1min.html", "34-pm-inbox-nmin.html", "42-pm-inbox-all-ages.html"])
def test_inbox_intervals_hold_the_exact_times(name: str) -> None:
    rows, _ = phpbb.parse_pm_inbox(page(name), tz=MSK, now=now_of(name))
    checked = 0
    for row in rows:
        if row.pm_id in EXACT_PM:
            assert row.time is not None and row.time_until is not None
            assert row.time <= EXACT_PM[row.pm_id] < row.time_until, (row.pm_id, row.time_text)
            checked += 1
    assert checked >= 4


@pytest.mark.parametrize(
    "name",
    ["31-pm-view-lt1min.html", "35-pm-view-nmin.html", "45-pm-view-today-final.html", "48-pm-view-print.html"],
)
def test_the_pm_interval_holds_the_quoted_time(name: str) -> None:
    stamp = phpbb.parse_quote_stamp(page("38-pm-quote-form-bot.html"))  # [quote=Вера msg_id=67 time=...]
    assert stamp is not None and stamp.msg_id == 67
    pm = phpbb.parse_pm(page(name), "http://127.0.0.1:18080/ucp.php?i=pm&mode=view&f=0&p=67", MSK, now=now_of(name))
    assert pm.pm_id == 67 and pm.time is not None and pm.time_until is not None
    assert pm.time <= stamp.time < pm.time_until
    assert pm.time_until - pm.time == timedelta(minutes=1)


def test_seconds_are_exact() -> None:
    pm = phpbb.parse_pm(
        page("95-pm-view-dateformat-seconds.html"), tz=MSK, now=now_of("95-pm-view-dateformat-seconds.html")
    )
    stamp = phpbb.parse_quote_stamp(page("38-pm-quote-form-bot.html"))
    assert stamp is not None and pm.time == stamp.time and pm.time_until is None


def test_the_post_quote_time_is_the_posts_time() -> None:
    stamp = phpbb.parse_quote_stamp(page("27-post-quote-form-bot.html"))
    topic = phpbb.parse_topic_page(page("21-viewtopic-A-all-ages.html"), tz=MSK)
    assert stamp is not None and stamp.post_id == 64
    assert next(p for p in topic.posts if p.post_id == 64).time == stamp.time


def test_relative_pm_dates_without_now_stay_unknown() -> None:
    pm = phpbb.parse_pm(page("35-pm-view-nmin.html"), tz=MSK)
    assert pm.time is None and pm.time_until is None and pm.time_text == "6 минут назад"


# --- moderator-only posts ---------------------------------------------------------------------


def test_the_moderator_sees_what_guests_see_plus_two_hidden_posts() -> None:
    bot = phpbb.parse_topic_page(page("21-viewtopic-A-all-ages.html"), tz=MSK)
    guest = phpbb.parse_topic_page(page("24-viewtopic-A-guest.html"), tz=MSK)
    public = [p for p in bot.posts if p.visibility == "public"]
    assert [p.post_id for p in public] == [p.post_id for p in guest.posts]
    assert {p.post_id: p.visibility for p in bot.posts if p.visibility != "public"} == {66: "deleted", 69: "unapproved"}
    assert all(p.visibility == "public" for p in guest.posts)
    deleted = next(p for p in bot.posts if p.post_id == 66)
    # the author is Незнайка, not the moderator named first in the deletion notice; the deletion
    # notice ("Удалено ... Причина: ...") is no edit
    assert (deleted.author, deleted.author_id, deleted.edited, deleted.edit_reason) == ("Незнайка", 67, False, None)


_P67 = re.compile(rb'<div id="p67" class="post[^"]*">.*?<div class="back2top">', re.S)


def _variant(old: bytes, new: bytes) -> bytes:
    """Topic A (21) with post 67's markup changed."""
    html = page("21-viewtopic-A-all-ages.html")
    m = _P67.search(html)
    assert m is not None and old in m.group(0)
    return html[: m.start()] + m.group(0).replace(old, new, 1) + html[m.end() :]


def _p67(html: bytes) -> str:
    topic = phpbb.parse_topic_page(html, tz=MSK)
    return next(p.visibility for p in topic.posts if p.post_id == 67)


def test_reported_and_ignored_posts_stay_public() -> None:
    reported = _variant(
        b'<div class="content">',
        b'<p class="post-notice reported"><strong>Report</strong></p><div class="content">',
    )
    assert _p67(reported) == "public"
    ignored = _variant(
        b'<div id="post_content67">',
        b'<div class="post-ignore" id="post_hidden67">foe</div><div id="post_content67" style="display: none;">',
    )
    assert _p67(ignored) == "public"
    own_unapproved = _variant(b'<div class="content">', b'<p class="post-notice unapproved">?</p><div class="content">')
    assert _p67(own_unapproved) == "unapproved"
    marked = _variant(b'class="post has-profile bg2"', b'class="post has-profile bg2 deleted"')
    assert _p67(marked) == "deleted"


# --- locked topics ----------------------------------------------------------------------------


VIEWTOPIC = sorted(
    name
    for name, e in EXCHANGES.items()
    if e["url"].startswith("/viewtopic.php?") and e["status"] == 200 and "view=print" not in e["url"]
)


@pytest.mark.parametrize("name", VIEWTOPIC)
def test_locked_only_where_the_reply_button_has_the_lock(name: str) -> None:
    topic = phpbb.parse_topic_page(page(name), tz=MSK)
    assert topic.locked is (topic.topic_id == 8)  # of the captured topic pages, only topic 8 was locked


def test_locked_by_the_icon_not_the_word() -> None:
    html = page("21-viewtopic-A-all-ages.html")
    worded = html.replace("<span>Ответить</span>".encode(), "<span>Закрыто</span>".encode())
    assert worded != html and not phpbb.parse_topic_page(worded, tz=MSK).locked
    iconed = html.replace(b'<i class="icon fa-reply fa-fw"', b'<i class="icon fa-lock fa-fw"')
    assert iconed != html and phpbb.parse_topic_page(iconed, tz=MSK).locked


# --- PM folders and pages ---------------------------------------------------------------------


def test_sent_rows_name_every_recipient_and_keep_the_first_as_sender() -> None:
    rows, next_url = phpbb.parse_pm_inbox(page("40-pm-sentbox.html"), tz=MSK, now=now_of("40-pm-sentbox.html"))
    everyone = next(r for r in rows if r.pm_id == 46)
    assert len(everyone.recipients) == 9 and everyone.recipients[0] == everyone.sender == "Вера"
    assert everyone.sender_id == 60 and everyone.time_text == "29 ноя 2026, 18:19"
    assert all(r.recipients == (r.sender,) for r in rows if r.pm_id != 46)
    assert next_url is not None and "start=25" in next_url
    inbox, _ = phpbb.parse_pm_inbox(page("42-pm-inbox-all-ages.html"), tz=MSK, now=now_of("42-pm-inbox-all-ages.html"))
    assert all(r.recipients == () for r in inbox)


def test_the_quoted_pm_and_the_history_are_not_the_message() -> None:
    pm = phpbb.parse_pm(page("39-pm-view-quoting-pm.html"), tz=MSK, now=now_of("39-pm-view-quoting-pm.html"))
    assert pm.body_text == "Отвечаю на ваше сообщение, цитируя его."
    assert "O GENDER FEMALE" in pm.body_html  # the quote is kept in the HTML, as rendered
    assert pm.pm_id == 70 and pm.recipients == ("Ведущий",)


def test_pages_that_are_not_what_was_asked_for() -> None:
    with pytest.raises(ParseError, match="Личное сообщение не найдено"):
        phpbb.parse_pm(page("55-pm-view-no-such-message.html"))
    with pytest.raises(ParseError, match="Запрошенной темы не существует"):
        phpbb.parse_topic_page(page("28-viewtopic-no-such-topic.html"))
    with pytest.raises(ParseError):  # the print view has no post ids (and no moderator markers)
        phpbb.parse_topic_page(page("22-viewtopic-A-print.html"))
    with pytest.raises(ParseError):  # a topic's print view is no PM either
        phpbb.parse_pm(page("22-viewtopic-A-print.html"))
    with pytest.raises(ParseError, match="login page"):
        phpbb.parse_pm(page("07-dead-session-cookie-ucp-pm.html"))


# --- preferences and quotes -------------------------------------------------------------------


def test_preferences_change_one_field_and_send_the_rest_as_served() -> None:
    prefs = phpbb.parse_preferences(page("93-ucp-prefs-form.html"))
    sent = prefs.submission({"dateformat": "d.m.Y H:i:s"})
    assert dict(sent)["dateformat"] == "d.m.Y H:i:s"
    assert [n for n, _ in sent] == [n for n, _ in prefs.fields]
    assert [kv for kv in sent if kv[0] != "dateformat"] == [kv for kv in prefs.fields if kv[0] != "dateformat"]
    assert ("submit", "Отправить") in sent and ("tz", "Europe/Moscow") in sent
    with pytest.raises(KeyError):
        prefs.submission({"date_format": "x"})
    with pytest.raises(ParseError):
        phpbb.parse_preferences(page("83-pm-compose-step1-form.html"))


@pytest.mark.parametrize(
    ("dateformat", "relative"),
    [("|d M Y|, H:i", True), ("|F j, Y|, g:i a", True), ("D M d, Y g:i a", False), ("d.m.Y H:i:s", False), ("", False)],
)
def test_relative_formats(dateformat: str, relative: bool) -> None:
    assert phpbb.is_relative_format(dateformat) is relative


def _form(text: str) -> str:
    return f'<html><body><form id="postform"><textarea name="message">{text}</textarea></form></body></html>'


def test_quote_stamps() -> None:
    pink = phpbb.parse_quote_stamp(
        _form("[quote=&quot;Mr. Pink&quot; post_id=119 time=1796118069 user_id=65]v[/quote]")
    )
    assert pink is not None
    assert (pink.name, pink.post_id, pink.msg_id, pink.user_id) == ("Mr. Pink", 119, None, 65)
    assert pink.time == datetime(2026, 12, 1, 9, 41, 9, tzinfo=UTC)
    bare = phpbb.parse_quote_stamp(_form("[quote=Вера]старая цитата без времени[/quote]"))
    assert bare is None
    assert phpbb.parse_quote_stamp(page("60-reply-form.html")) is None  # a reply form: nothing quoted
    with pytest.raises(ParseError):
        phpbb.parse_quote_stamp(page("21-viewtopic-A-all-ages.html"))
