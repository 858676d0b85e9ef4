"""The fake board set up like the captured Russian phpBB 3.3.11 board answers like it: every page and answer
is driven over HTTP and checked against the captured exchange (fixtures/phpbb-ru): status, the form's id,
fields and button values, the texts of `#message`, `p.error`, `div.error`, the notices and the dates."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import httpx
import pytest
from capture_board import (
    BOT,
    FORUM,
    TOPIC_A,
    TOPIC_ERRORS,
    TOPIC_LOCKED,
    Clock,
    capture_board,
    index,
    page,
    sent_at,
    utc,
)
from lxml import etree, html

from fakeboard import Board, BoardServer, User, format_date, translate
from fakeboard.phpbb import LANGUAGE_PACK, SKELETONS

UA = "Mozilla/5.0 (X11; Linux x86_64) board-tests"
MOSCOW = ZoneInfo("Europe/Moscow")
SID = re.compile(r"(&|\?)sid=[0-9a-f]{32}")


# --- reading pages ---------------------------------------------------------------------------------


def doc(text: str) -> html.HtmlElement:
    return html.fromstring(text)


def words(el: etree._Element | None) -> str:
    """An element's text with its whitespace collapsed."""
    return " ".join(el.text_content().split()) if el is not None else ""


def one(root: html.HtmlElement, xpath: str) -> html.HtmlElement:
    found = root.xpath(xpath)
    assert len(found) == 1, (xpath, len(found))
    return found[0]


def member(board: Board, name: str) -> User:
    """A member the board has."""
    user = board.user(name)
    assert user is not None, name
    return user


def message(text: str) -> str:
    """The text of a trigger_error() page's `div#message p`."""
    return words(one(doc(text), '//div[@id="message"]//p'))


def form_fields(text: str, form_id: str) -> list[tuple[str, str | None, str | None]]:
    """What a browser reads in `form#form_id`, in order: (tag, type, name) of every field."""
    form = one(doc(text), f'//form[@id="{form_id}"]')
    out = []
    for el in form.iter("input", "textarea", "select", "button"):
        if el.tag == "button" and el.get("type") == "button":
            continue
        out.append((el.tag, el.get("type"), el.get("name")))
    return out


def buttons(text: str, form_id: str) -> dict[str, str]:
    """The submit buttons of a form: name -> value."""
    form = one(doc(text), f'//form[@id="{form_id}"]')
    return {el.get("name"): el.get("value") for el in form.iter("input") if el.get("type") == "submit"}


def hidden(text: str, form_id: str) -> list[tuple[str, str]]:
    form = one(doc(text), f'//form[@id="{form_id}"]')
    return [(el.get("name"), el.get("value")) for el in form.iter("input") if el.get("type") == "hidden"]


def browser_data(text: str, form_id: str, **values: str) -> dict[str, str]:
    """The form's fields as a browser submits them (hidden inputs, checked boxes, selected options, text
    areas; no button), `values` on top."""
    form = one(doc(text), f'//form[@id="{form_id}"]')
    data: dict[str, str] = {}
    for el in form.iter("input", "textarea", "select"):
        name, kind = el.get("name"), el.get("type")
        if not name or kind in ("submit", "button", "file", "image"):
            continue
        if kind in ("checkbox", "radio") and el.get("checked") is None:
            continue
        if el.tag == "textarea":
            data[name] = el.text or ""
        elif el.tag == "select":
            chosen = el.xpath(".//option[@selected]") or el.xpath(".//option")
            data[name] = chosen[0].get("value", "") if chosen else ""
        else:
            data[name] = el.get("value", "on" if kind == "checkbox" else "")
    return data | values


def action(text: str, form_id: str) -> str:
    target: str = one(doc(text), f'//form[@id="{form_id}"]').get("action")
    return target.removeprefix("./")


def posts(text: str) -> dict[int, html.HtmlElement]:
    return {
        int(div.get("id")[1:]): div
        for div in doc(text).xpath('//div[starts-with(@id, "p") and contains(concat(" ", @class, " "), " post ")]')
        if div.get("id")[1:].isdigit()
    }


UNREAD_MARKS = {"unreadpost", "online", "icon-red", "icon-lightgray", "first-unread"}  # read tracking: not emulated


def shape(el: etree._Element) -> list[tuple[Any, ...]]:
    """Every element under `el` (tag, id, classes, attribute names), the insides of `div.content` left out."""
    out = []
    for child in el.iter():
        if not isinstance(child.tag, str) or any(
            "content" in (a.get("class") or "").split() for a in child.iterancestors("div")
        ):
            continue
        classes = tuple(sorted(set((child.get("class") or "").split()) - UNREAD_MARKS))
        names = tuple(sorted(a for a in child.attrib if a != "class" or classes))
        out.append((child.tag, child.get("id"), classes, names))
    return out


def serialize(el: etree._Element) -> str:
    text: str = html.tostring(el, encoding="unicode", with_tail=False)
    return text


# --- the board --------------------------------------------------------------------------------------


@pytest.fixture
def clock() -> Clock:
    return Clock(sent_at(21))


@pytest.fixture
def server(clock: Clock) -> Iterator[BoardServer]:
    with BoardServer(capture_board(), clock=clock) as running:
        yield running
    assert not running.errors, running.errors[0]


@contextmanager
def login(server: BoardServer, clock: Clock, name: str | None = BOT) -> Iterator[httpx.Client]:
    """An httpx client on the board, logged in as `name` through the login form (posted a second later)."""
    with httpx.Client(base_url=server.url, headers={"User-Agent": UA}, follow_redirects=True) as client:
        if name is not None:
            form = client.get("ucp.php?mode=login").text
            start = clock.now
            clock.advance(1.5)
            data = browser_data(form, "login", username=name, password="pw-" + name)
            answer = client.post(action(form, "login"), data={**data, "login": buttons(form, "login")["login"]})
            assert 'id="login"' not in answer.text, name
            clock.now = start
        yield client


@pytest.fixture
def bot(server: BoardServer, clock: Clock) -> Iterator[httpx.Client]:
    with login(server, clock) as client:
        yield client


# --- the language table --------------------------------------------------------------------------------


def test_every_text_the_skeletons_print_has_its_russian() -> None:
    keys = set()
    for template in SKELETONS.glob("*.html"):
        keys |= {m[2] for m in re.finditer(r"""\bt\((['"])((?:(?!\1).)*)\1""", template.read_text())}
    keys -= {"is ", "by"}  # printed as nothing in Russian
    missing = sorted(k for k in keys if not translate("ru", k) or (translate("ru", k) == k and "{}" not in k))
    assert missing == [k for k in missing if k in ("FAQ", "Re: {}")], missing
    assert translate("ru", "by") == "" and translate("en", "ON@@smilies") == "ON"


@pytest.mark.parametrize(
    ("lang", "english", "real"),
    [
        ("ru", "Submit", "Отправить"),
        ("ru", "Add", "Добавить"),
        ("ru", "Login", "Вход"),
        ("ru", "Yes", "Да"),
        ("ru", "No", "Нет"),
        ("ru", "Preview", "Предпросмотр"),
        ("ru", "Save draft", "Сохранить черновик"),
        ("en", "Submit", "Submit"),
        ("en", "Login", "Login"),
        ("en", "Yes", "Yes"),
    ],
)
def test_the_button_words_are_the_packs(lang: str, english: str, real: str) -> None:
    assert translate(lang, english) == real


# --- dates ---------------------------------------------------------------------------------------------

NOW = datetime(2026, 12, 1, 9, 50, 29, tzinfo=UTC)


@pytest.mark.parametrize(
    ("moment", "ru", "en"),
    [
        (NOW - timedelta(seconds=6), "менее минуты назад", "less than a minute ago"),
        (NOW - timedelta(seconds=59), "менее минуты назад", "less than a minute ago"),
        (NOW - timedelta(seconds=61), "1 минуту назад", "1 minute ago"),
        (NOW - timedelta(minutes=2, seconds=59), "2 минуты назад", "2 minutes ago"),
        (NOW - timedelta(minutes=5), "5 минут назад", "5 minutes ago"),
        (NOW - timedelta(minutes=11), "11 минут назад", "11 minutes ago"),
        (NOW - timedelta(minutes=21), "21 минуту назад", "21 minutes ago"),
        (NOW - timedelta(minutes=22), "22 минуты назад", "22 minutes ago"),
        (NOW - timedelta(minutes=25), "25 минут назад", "25 minutes ago"),
        (NOW - timedelta(minutes=60), "60 минут назад", "60 minutes ago"),
        (NOW - timedelta(minutes=61), "Сегодня, 11:49", "Today, 11:49"),
        (datetime(2026, 11, 30, 14, 59, 26, tzinfo=UTC), "Вчера, 17:59", "Yesterday, 17:59"),
        (datetime(2026, 11, 29, 15, 24, 23, tzinfo=UTC), "29 ноя 2026, 18:24", "29 Nov 2026, 18:24"),
        (datetime(2026, 5, 9, 9, 0, tzinfo=UTC), "09 май 2026, 12:00", "09 May 2026, 12:00"),
    ],
)
def test_relative_dates_as_phpbb_prints_them(moment: datetime, ru: str, en: str) -> None:
    assert format_date(moment, MOSCOW, "|d M Y|, H:i", lang="ru", now=NOW) == ru
    assert format_date(moment, MOSCOW, "|d M Y|, H:i", lang="en", now=NOW) == en


@pytest.mark.parametrize(
    ("fmt", "lang", "text"),
    [
        ("d.m.Y H:i:s", "ru", "01.12.2026 12:50:29"),
        ("D M d, Y g:i a", "ru", "Вт дек 01, 2026 12:50 pm"),
        ("D M d, Y g:i a", "en", "Tue Dec 01, 2026 12:50 pm"),
        ("F j, Y, g:i a", "ru", "Декабрь 1, 2026, 12:50 pm"),
        ("M jS, 'y, H:i", "en", "Dec 1st, '26, 12:50"),
        ("j n y G", "en", "1 12 26 12"),
        ("\\d\\a\\y d", "en", "day 01"),
        ("|d M Y|, H:i", "ru", "01 дек 2026, 12:50"),
    ],
)
def test_other_formats_are_phps_date(fmt: str, lang: str, text: str) -> None:
    assert format_date(NOW, MOSCOW, fmt, lang=lang, now=NOW, absolute=True) == text


@pytest.mark.parametrize("capture", [17, 18, 21, 26, 29, 97])
def test_every_post_date_of_the_captured_topic_is_read_back(capture: int) -> None:
    """`<time datetime>` (UTC) and its text, rendered for the viewer at the capture's time, as captured."""
    fmt = "d.m.Y H:i:s" if capture == 97 else "|d M Y|, H:i"
    lang = "en" if capture == 26 else "ru"
    now = datetime.fromtimestamp(sent_at(capture), UTC)
    times = doc(page(capture)).xpath("//time[@datetime]")
    assert len(times) >= 7
    for el in times:
        moment = datetime.fromisoformat(el.get("datetime"))
        assert format_date(moment, MOSCOW, fmt, lang=lang, now=now) == el.text, el.get("datetime")


# --- reading topics ---------------------------------------------------------------------------------------


def _same_posts(ours: str, real: str) -> None:
    mine, theirs = posts(ours), posts(real)
    assert list(mine) == list(theirs)
    for post_id, div in theirs.items():
        got = mine[post_id]
        assert set(got.get("class").split()) - UNREAD_MARKS == set(div.get("class").split()) - UNREAD_MARKS, post_id
        assert shape(got) == shape(div), post_id
        assert got.xpath(".//time/@datetime") == div.xpath(".//time/@datetime"), post_id
        assert got.xpath(".//time/text()") == div.xpath(".//time/text()"), post_id
        for xpath in (
            './/div[contains(@class, "notice")]',
            './/div[@class="ignore"]',
            './/p[contains(@class, "post-notice")]',
            './/form[@class="mcp_approve"]/@action',
        ):
            assert [words(e) if not isinstance(e, str) else e for e in got.xpath(xpath)] == [
                words(e) if not isinstance(e, str) else e for e in div.xpath(xpath)
            ], (post_id, xpath)
        assert serialize(one(got, './/div[@class="content"]')) == serialize(one(div, './/div[@class="content"]'))


def test_the_moderator_sees_edits_the_queued_and_the_deleted_post_as_captured(bot: httpx.Client) -> None:
    ours = bot.get(f"viewtopic.php?t={TOPIC_A}").text
    real = page(21)
    _same_posts(ours, real)
    for part in ('//div[@class="pagination"]', '//h2[@class="topic-title"]'):  # "9 сообщений • Страница 1 из 1"
        assert [words(e) for e in doc(ours).xpath(part)] == [
            words(e).replace("Первое новое сообщение • ", "")
            for e in doc(real).xpath(part)  # read tracking
        ]
    moderators = one(doc(real), '//p[strong[text()="Модераторы:"]]')
    assert words(one(doc(ours), '//p[strong[text()="Модераторы:"]]')) == words(moderators)


def test_a_guest_sees_neither_the_queued_nor_the_deleted_post(server: BoardServer, clock: Clock) -> None:
    with login(server, clock, None) as guest:
        ours = guest.get(f"viewtopic.php?t={TOPIC_A}").text
    real = page(24)
    assert list(posts(ours)) == list(posts(real)) == [63, 64, 65, 67, 68, 119, 120]
    assert [words(e) for e in doc(ours).xpath('//div[@class="pagination"]')] == [
        words(e) for e in doc(real).xpath('//div[@class="pagination"]')
    ]
    for post_id, div in posts(real).items():
        assert posts(ours)[post_id].xpath(".//time/text()") == div.xpath(".//time/text()")


def test_an_english_player_reads_the_topic_in_english(server: BoardServer, clock: Clock) -> None:
    clock.at(26)
    with login(server, clock, "Bepa") as bepa:
        ours = bepa.get(f"viewtopic.php?t={TOPIC_A}").text
    _same_posts(ours, page(26))
    footer = '//li[@class="rightside"][span]'
    assert serialize(one(doc(ours), footer)).strip() == serialize(one(doc(page(26)), footer)).strip()


def test_a_date_format_with_seconds_makes_every_date_absolute(
    server: BoardServer, clock: Clock, bot: httpx.Client
) -> None:
    server.board.set_preferences(BOT, dateformat="d.m.Y H:i:s")
    clock.at(97)
    _same_posts(bot.get(f"viewtopic.php?t={TOPIC_A}").text, page(97))


def test_a_moderators_edit_without_reason_leaves_no_trace(server: BoardServer, clock: Clock, bot: httpx.Client) -> None:
    text = "Просто комментарий, без голоса. [b][color=red]Вера[/color][/b] (голос дописан модератором без причины)"
    assert not server.board.edit_post_as(67, "Модератор", text)
    clock.at(29)
    _same_posts(bot.get(f"viewtopic.php?t={TOPIC_A}").text, page(29))
    assert server.board.post(67).edit_count == 0


@pytest.mark.parametrize(
    ("editor", "post_id", "reason", "shown"),
    [
        ("Вера", 64, None, True),  # the author, not the last post
        ("Алиса Селезнёва", 120, None, False),  # the author of the topic's last post
        ("Модератор", 63, None, False),  # a moderator without a reason
        ("Модератор", 120, "опечатка", True),  # a reason always shows
    ],
)
def test_which_edits_phpbb_records(
    server: BoardServer, editor: str, post_id: int, reason: str | None, shown: bool
) -> None:
    before = server.board.post(post_id).edit_count
    assert server.board.edit_post_as(post_id, editor, "new text", reason=reason) is shown
    after = server.board.post(post_id)
    assert after.edit_count == before + shown and after.body == "new text"
    assert after.edit_reason == (reason if shown else server.board.post(post_id).edit_reason)


def test_a_locked_topic_shows_locked_to_everybody(server: BoardServer, clock: Clock, bot: httpx.Client) -> None:
    server.board.lock_topic(TOPIC_LOCKED)
    clock.at(19)
    with login(server, clock, None) as guest:
        for client, capture in ((bot, 19), (guest, 20)):
            ours = doc(client.get(f"viewtopic.php?t={TOPIC_LOCKED}").text)
            real = doc(page(capture))
            mine = ours.xpath('//div[contains(@class, "action-bar")]/a[contains(@href, "mode=reply")]')
            theirs = real.xpath('//div[contains(@class, "action-bar")]/a[contains(@href, "mode=reply")]')
            assert [(a.get("title"), words(a), a.xpath(".//i/@class")) for a in mine] == [
                (a.get("title"), words(a), a.xpath(".//i/@class")) for a in theirs
            ]
            assert [SID.sub("", a.get("href")) for a in mine] == [SID.sub("", a.get("href")) for a in theirs]


def test_no_such_topic_is_404_and_no_such_pm_200(bot: httpx.Client) -> None:
    missing = bot.get("viewtopic.php?t=999999")
    assert missing.status_code == 404 and message(missing.text) == message(page(28))
    assert words(one(doc(missing.text), '//h2[@class="message-title"]')) == "Информация"
    no_pm = bot.get("ucp.php?i=pm&mode=view&f=0&p=999999")
    assert no_pm.status_code == 200 and message(no_pm.text) == message(page(55))
    unread = re.compile(r"^\(\d+\) ")  # the count of unread notifications
    assert unread.sub("", doc(no_pm.text).findtext(".//title")) == unread.sub("", doc(page(55)).findtext(".//title"))


def test_the_footer_names_the_viewers_zone(server: BoardServer, clock: Clock, bot: httpx.Client) -> None:
    footer = '//li[@class="rightside"][span]'
    for client, capture in ((bot, 6),):
        ours = serialize(one(doc(client.get("index.php").text), footer)).strip()
        assert ours == serialize(one(doc(page(capture)), footer)).strip()
    with login(server, clock, "Админ") as admin:  # English, UTC
        ours = serialize(one(doc(admin.get("index.php").text), footer)).strip()
    assert ours == serialize(one(doc(page(79)), footer)).strip()


# --- login and sessions --------------------------------------------------------------------------------


def _login_post(client: httpx.Client, form: str, **values: str) -> httpx.Response:
    data = browser_data(form, "login", **values)
    return client.post(action(form, "login"), data={**data, "login": buttons(form, "login")["login"]})


def test_the_login_page_is_the_captured_form(server: BoardServer, clock: Clock) -> None:
    with login(server, clock, None) as guest:
        ours = guest.get("ucp.php?mode=login").text
    real = page(1)
    assert form_fields(ours, "login") == form_fields(real, "login")
    assert buttons(ours, "login") == buttons(real, "login") == {"login": "Вход"}
    assert words(one(doc(ours), '//h2[@class="login-title"]')) == "Вход"
    redirects = [v for k, v in hidden(ours, "login") if k == "redirect"]
    assert (
        [SID.sub("", v) for v in redirects]
        == [SID.sub("", v) for k, v in hidden(real, "login") if k == "redirect"]
        == ["./ucp.php?mode=login", "index.php"]
    )
    assert SID.search(action(ours, "login"))  # a fresh client: sid= in the links


@pytest.mark.parametrize(
    ("capture", "password", "wait"),
    [(2, "wrong", 1.5), (3, None, 0.0)],  # a wrong password; the right one in the second the form was made
)
def test_a_refused_login_answers_the_form_with_the_captured_error(
    server: BoardServer, clock: Clock, capture: int, password: str | None, wait: float
) -> None:
    with login(server, clock, None) as guest:
        form = guest.get("ucp.php?mode=login").text
        clock.advance(wait)
        answer = _login_post(guest, form, username=BOT, password=password or "pw-" + BOT)
    assert answer.status_code == 200
    assert words(one(doc(answer.text), '//form[@id="login"]//div[@class="error"]')) == words(
        one(doc(page(capture)), '//form[@id="login"]//div[@class="error"]')
    )
    assert form_fields(answer.text, "login") == form_fields(page(capture), "login")


def test_a_login_is_a_redirect_with_phpbbs_three_cookies(server: BoardServer, clock: Clock) -> None:
    with httpx.Client(base_url=server.url, headers={"User-Agent": UA}) as client:
        form = client.get("ucp.php?mode=login").text
        clock.advance(1.5)
        answer = _login_post(client, form, username=BOT, password="pw-" + BOT)
        sid = client.cookies[f"{server.cookie_prefix}_sid"]
        assert answer.status_code == 302
        assert answer.headers["Location"] == f"{server.url}index.php?sid={sid}"
        assert {c.name.rsplit("_", 1)[1] for c in client.cookies.jar} == {"u", "k", "sid"}
        index = client.get(answer.headers["Location"]).text
    logout = one(doc(index), '//a[contains(@href, "mode=logout")]')
    assert words(logout) == "Выход" and f"sid={sid}" in logout.get("href")


def test_after_three_failures_a_captcha_refuses_even_the_right_password(server: BoardServer, clock: Clock) -> None:
    with login(server, clock, None) as guest:
        for _ in range(3):
            form = guest.get("ucp.php?mode=login").text
            clock.advance(1.5)
            refused = _login_post(guest, form, username="Капча", password="wrong")
            assert "confirm_code" not in refused.text
        form = refused.text
        clock.advance(1.5)
        fourth = _login_post(guest, form, username="Капча", password="wrong")
        clock.advance(1.5)
        right = _login_post(guest, fourth.text, username="Капча", password="pw-Капча")
    for ours, capture in ((fourth, 11), (right, 12)):
        real = page(capture)
        assert ours.status_code == 200
        assert words(one(doc(ours.text), '//div[@class="error"]')) == words(one(doc(real), '//div[@class="error"]'))
        assert form_fields(ours.text, "login") == form_fields(real, "login")
        assert {"confirm_code", "confirm_id"} <= {name for _, _, name in form_fields(ours.text, "login")}
    assert server.login_attempts("Капча") >= 3


def test_the_captcha_code_set_on_the_board_solves_it(clock: Clock) -> None:
    board = capture_board(captcha_code="ABC123")
    with BoardServer(board, clock=clock) as server, login(server, clock, None) as guest:
        form = guest.get("ucp.php?mode=login").text
        for _ in range(4):
            clock.advance(1.5)
            form = _login_post(guest, form, username="Капча", password="wrong").text
        assert "confirm_code" in form
        clock.advance(1.5)
        done = _login_post(guest, form, username="Капча", password="pw-Капча", confirm_code="abc123")
        assert 'id="login"' not in done.text and server.login_attempts("Капча") == 0


@pytest.mark.parametrize(
    ("path", "capture"),
    [
        ("ucp.php?i=pm", 7),
        ("posting.php?mode=reply&t=7", 9),
        ("mcp.php?f=3&t=7&quickmod=1&action=lock", 10),
    ],
)
@pytest.mark.parametrize("how", ["logout", "expired"])
def test_a_dead_session_gets_the_login_form_headed_by_why(
    server: BoardServer, clock: Clock, path: str, capture: int, how: str
) -> None:
    with login(server, clock) as client:
        if how == "logout":
            sid = client.cookies[f"{server.cookie_prefix}_sid"]
            jar = dict(client.cookies)
            client.get(f"ucp.php?mode=logout&sid={sid}")
            client.cookies.clear()
            client.cookies.update(jar)  # the dead session's cookies, as the captured client sent them
        else:
            server.expire_sessions()
        answer = client.get(path)
    real = page(capture)
    assert answer.status_code == 200
    title = '//h2[@class="login-title"]'
    assert words(one(doc(answer.text), title)) == words(one(doc(real), title))
    assert form_fields(answer.text, "login") == form_fields(real, "login")
    redirect = [SID.sub("", v) for k, v in hidden(answer.text, "login") if k == "redirect"]
    assert redirect == [SID.sub("", v) for k, v in hidden(real, "login") if k == "redirect"]
    unread = re.compile(r"^\(\d+\) ")
    assert unread.sub("", doc(answer.text).findtext(".//title")) == doc(real).findtext(".//title")


# --- posting -----------------------------------------------------------------------------------------------

VOLATILE = {"creation_time", "form_token", "status_switch"}


def _textarea(text: str) -> str:
    return one(doc(text), '//textarea[@name="message"]').text or ""


@pytest.mark.parametrize(
    ("path", "capture", "form_id"),
    [
        (f"posting.php?mode=reply&t={TOPIC_ERRORS}", 60, "postform"),
        (f"posting.php?mode=post&f={FORUM}", 56, "postform"),
        ("posting.php?mode=quote&p=64", 27, "postform"),
        ("ucp.php?i=pm&mode=compose", 83, "postform"),
        ("ucp.php?i=pm&mode=compose&action=quote&p=67", 38, "postform"),
        ("ucp.php?i=ucp_prefs&mode=personal", 93, "ucp"),
    ],
)
def test_the_forms_are_the_captured_forms(
    server: BoardServer, bot: httpx.Client, path: str, capture: int, form_id: str
) -> None:
    ours, real = bot.get(path).text, page(capture)
    assert form_fields(ours, form_id) == form_fields(real, form_id)
    assert buttons(ours, form_id) == buttons(real, form_id)
    assert [f for f in hidden(ours, form_id) if f[0] not in VOLATILE] == [
        f for f in hidden(real, form_id) if f[0] not in VOLATILE
    ]
    assert SID.sub("", action(ours, form_id)) == SID.sub("", action(real, form_id))
    if form_id == "postform":
        subject = '//input[@name="subject"]/@value'
        assert doc(ours).xpath(subject) == doc(real).xpath(subject)


@pytest.mark.parametrize(
    ("path", "capture"), [("posting.php?mode=quote&p=64", 27), ("ucp.php?i=pm&mode=compose&action=quote&p=67", 38)]
)
def test_quoting_gives_the_exact_time_and_changes_nothing(
    server: BoardServer, bot: httpx.Client, path: str, capture: int
) -> None:
    before = (len(server.board.posts_of(TOPIC_A)), len(server.board.pms_from(BOT)), dict(server._last_post))
    assert _textarea(bot.get(path).text) == _textarea(page(capture))
    assert (len(server.board.posts_of(TOPIC_A)), len(server.board.pms_from(BOT)), dict(server._last_post)) == before


def test_a_name_with_a_space_is_quoted_in_double_quotes(bot: httpx.Client) -> None:
    assert _textarea(bot.get("posting.php?mode=quote&p=119").text).startswith(
        '[quote="Mr. Pink" post_id=119 time=1796118069 user_id=65]'
    )


def _submit(client: httpx.Client, path: str, form: str, **values: str) -> httpx.Response:
    data = browser_data(form, "postform", **values)
    return client.post(path, data={**data, "post": buttons(form, "postform")["post"]}, follow_redirects=False)


def test_a_new_topic_then_replies_then_the_errors_as_captured(
    server: BoardServer, clock: Clock, bot: httpx.Client
) -> None:
    clock.at(56)
    form = bot.get(f"posting.php?mode=post&f={FORUM}").text
    clock.advance(1.3)
    made = _submit(bot, f"posting.php?mode=post&f={FORUM}", form, subject="Новая тема", message="Текст")
    topic = max(t.topic_id for t in server.board.topics)
    assert (made.status_code, made.headers["Location"]) == (302, f"{server.url}viewtopic.php?t={topic}")
    clock.at(60)
    path = f"posting.php?mode=reply&t={TOPIC_ERRORS}"
    form = bot.get(path).text
    clock.at(61)
    reply = _submit(bot, path, form, message="Ответ бота: [b][color=red]Никто[/color][/b]")
    post_id = server.board.posts_of(TOPIC_ERRORS)[-1].post_id
    assert (reply.status_code, reply.headers["Location"]) == (302, f"{server.url}viewtopic.php?p={post_id}#p{post_id}")
    cases = [
        (62, {"message": "Флуд-тест 0"}, 1.1),  # the flood interval (2 s) after the bot's reply
        (63, {"message": "Пост с испорченным form_token", "form_token": "0" * 40}, 4),
        (64, {"message": "Слишком быстрая отправка 0"}, 0),  # in the second the form was made
        (65, {"message": ""}, 4),
    ]
    for capture, values, wait in cases:
        form = bot.get(path).text
        clock.advance(wait)
        answer = _submit(bot, path, form, **values)
        real = page(capture)
        error = '//form[@id="postform"]//p[@class="error"]'
        assert answer.status_code == 200 and words(one(doc(answer.text), error)) == words(one(doc(real), error))
        assert form_fields(answer.text, "postform") == form_fields(real, "postform")
    form = bot.get(f"posting.php?mode=post&f={FORUM}").text
    clock.advance(4)
    answer = _submit(bot, f"posting.php?mode=post&f={FORUM}", form, subject="", message="Текст без заголовка")
    error = '//form[@id="postform"]//p[@class="error"]'
    assert words(one(doc(answer.text), error)) == words(one(doc(page(66)), error))
    assert [p.post_id for p in server.board.posts_of(TOPIC_ERRORS)] == [73, post_id]


def test_a_post_that_needs_approval_waits_for_the_moderators(
    server: BoardServer, clock: Clock, bot: httpx.Client
) -> None:
    with login(server, clock, "Новичок") as newbie:
        form = newbie.get(f"posting.php?mode=reply&t={TOPIC_A}").text
        clock.advance(1.5)
        answer = _submit(newbie, f"posting.php?mode=reply&t={TOPIC_A}", form, message="Пост новичка 2")
    real = page(59)
    assert answer.status_code == 200 and message(answer.text) == message(real)
    refresh = one(doc(answer.text), '//meta[@http-equiv="refresh"]').get("content")
    assert refresh == one(doc(real), '//meta[@http-equiv="refresh"]').get("content").replace(
        "http://127.0.0.1:18080/", server.url
    )
    queued = server.board.posts_of(TOPIC_A)[-1]
    assert (queued.author, queued.approved) == ("Новичок", False)
    seen = posts(bot.get(f"viewtopic.php?t={TOPIC_A}").text)[queued.post_id]
    assert seen.xpath('.//p[contains(@class, "post-notice") and contains(@class, "unapproved")]')
    with login(server, clock, "Вера") as player:
        assert queued.post_id not in posts(player.get(f"viewtopic.php?t={TOPIC_A}").text)


def test_a_reply_after_someone_else_replied_comes_back_for_review(
    server: BoardServer, clock: Clock, bot: httpx.Client
) -> None:
    path = f"posting.php?mode=reply&t={TOPIC_ERRORS}"
    clock.at(67)
    form = bot.get(path).text
    meanwhile = server.board.add_post(
        TOPIC_ERRORS, "Вера", "Вера отвечает, пока бот пишет.", utc("01.12.2026 11:58:53")
    )
    clock.advance(2)
    answer = _submit(bot, path, form, message="Ответ бота, написанный до поста Веры")
    real = page(67)
    assert answer.status_code == 200 and not doc(answer.text).xpath('//p[@class="error"]')
    form_el = '//form[@id="postform"]'
    for part in ("/h3[1]", "/p[1]", f'//div[@id="ppr{meanwhile}"]//p[@class="author"]'):
        assert words(one(doc(answer.text), form_el + part)) == words(
            one(doc(real), form_el + part.replace(str(meanwhile), "75"))
        )
    assert dict(hidden(answer.text, "postform"))["topic_cur_post_id"] == str(meanwhile)
    assert _textarea(answer.text) == "Ответ бота, написанный до поста Веры"
    assert [p.post_id for p in server.board.posts_of(TOPIC_ERRORS)] == [73, meanwhile]
    clock.advance(3)
    again = _submit(bot, path, answer.text)
    stored = server.board.posts_of(TOPIC_ERRORS)[-1]
    assert again.status_code == 302 and again.headers["Location"].endswith(
        f"viewtopic.php?p={stored.post_id}#p{stored.post_id}"
    )
    assert stored.body == "Ответ бота, написанный до поста Веры"


def test_a_locked_topic_refuses_the_player_not_the_moderator(
    server: BoardServer, clock: Clock, bot: httpx.Client
) -> None:
    path = f"posting.php?mode=reply&t={TOPIC_LOCKED}"
    with login(server, clock, "Вера") as player:
        early = player.get(path).text
        server.board.lock_topic(TOPIC_LOCKED)
        clock.advance(1.5)
        for answer, capture in ((player.get(path), 69), (_submit(player, path, early, message="Попытка"), 70)):
            assert answer.status_code == 200 and message(answer.text) == message(page(capture))
    form = bot.get(path).text
    assert form_fields(form, "postform") == form_fields(page(71), "postform")
    assert (
        doc(form).xpath('//input[@name="lock_topic"]/@checked')
        == doc(page(71)).xpath('//input[@name="lock_topic"]/@checked')
        == ["checked"]
    )
    clock.advance(1.5)
    answer = _submit(bot, path, form, message="Ответ модератора в закрытую тему.")
    assert answer.status_code == 302 and server.board.topic(TOPIC_LOCKED).locked
    assert server.board.posts_of(TOPIC_LOCKED)[-1].author == BOT


# --- the quick-mod lock and its confirm box ----------------------------------------------------------

LOCK = f"mcp.php?f={FORUM}&t={TOPIC_LOCKED}&quickmod=1&action=lock"


def _confirm(client: httpx.Client, form: str, word: str) -> httpx.Response:
    data = dict(hidden(form, "confirm"))
    return client.post(action(form, "confirm"), data={**data, "confirm": word}, follow_redirects=False)


@pytest.mark.parametrize(("who", "capture", "topic"), [(BOT, 73, TOPIC_LOCKED), ("Админ", 79, 9)])
def test_the_confirm_box_is_the_captured_one(
    server: BoardServer, clock: Clock, who: str, capture: int, topic: int
) -> None:
    if topic == 9:
        server.board.add_topic(FORUM, "Тест захвата: закрытие на английском", BOT, "x", topic_id=9)
        server.board.set_moderator("Админ")
    with login(server, clock, who) as client:
        ours = client.get(f"mcp.php?f={FORUM}&t={topic}&quickmod=1&action=lock").text
    real = page(capture)
    assert form_fields(ours, "confirm") == form_fields(real, "confirm")
    assert buttons(ours, "confirm") == buttons(real, "confirm")
    assert [(k, v) for k, v in hidden(ours, "confirm") if k not in ("sess", "sid")] == [
        (k, v) for k, v in hidden(real, "confirm") if k not in ("sess", "sid")
    ]
    key = re.compile(r"confirm_key=[0-9A-Z]{10}$")
    assert key.search(action(ours, "confirm")) and key.sub("", action(ours, "confirm")) == key.sub(
        "", action(real, "confirm")
    )
    for part in ('//h2[@class="message-title"]', '//form[@id="confirm"]//p'):
        assert words(one(doc(ours), part)) == words(one(doc(real), part))
    assert not server.board.topic(topic).locked


def test_only_the_viewers_own_word_for_yes_locks(server: BoardServer, bot: httpx.Client) -> None:
    form = bot.get(LOCK).text
    english = _confirm(bot, form, "Yes")  # the English word from a Russian account
    assert (english.status_code, english.headers["Location"]) == (
        302,
        f"{server.url}mcp.php?f={FORUM}&t={TOPIC_LOCKED}",
    )
    assert not server.board.topic(TOPIC_LOCKED).locked
    form = bot.get(LOCK).text
    done = _confirm(bot, form, "Да")
    assert done.status_code == 200 and message(done.text) == message(page(75))
    assert one(doc(done.text), '//meta[@http-equiv="refresh"]').get("content") == (
        f"2; url={server.url}mcp.php?f={FORUM}&t={TOPIC_LOCKED}"
    )
    assert server.board.topic(TOPIC_LOCKED).locked
    replay = _confirm(bot, form, "Да")  # a used key
    assert (replay.status_code, replay.headers["Location"]) == (302, f"{server.url}mcp.php?f={FORUM}&t={TOPIC_LOCKED}")
    again = bot.get(LOCK).text  # already locked: the same form, the same answer
    assert form_fields(again, "confirm") == form_fields(page(77), "confirm")
    assert message(_confirm(bot, again, "Да").text) == message(page(78))


def test_the_lock_link_of_the_topic_page_comes_back_to_the_topic(server: BoardServer, bot: httpx.Client) -> None:
    link = next(
        a.get("href")
        for a in doc(bot.get(f"viewtopic.php?t={TOPIC_ERRORS}").text).iter("a")
        if "action=lock" in (a.get("href") or "")
    )
    captured = index()[81]["url"]  # the exact link of the captured topic page, sid scrubbed
    assert SID.sub("", "/" + link.removeprefix("./")) == captured.removesuffix("&sid=<sid>")
    form = bot.get(link.removeprefix("./")).text
    assert (
        SID.sub("", action(form, "confirm")).rsplit("&confirm_key", 1)[0]
        == SID.sub("", action(page(81), "confirm")).rsplit("&confirm_key", 1)[0]
    )
    done = _confirm(bot, form, "Да")
    assert message(done.text) == message(page(82)) and server.board.topic(TOPIC_ERRORS).locked
    back = one(doc(done.text), '//div[@id="message"]//a').get("href")
    assert back == one(doc(page(82)), '//div[@id="message"]//a').get("href") == f"./viewtopic.php?t={TOPIC_ERRORS}"


def test_the_english_moderator_confirms_with_yes(server: BoardServer, clock: Clock) -> None:
    server.board.add_topic(FORUM, "Тест захвата: закрытие на английском", BOT, "x", topic_id=9)
    server.board.set_moderator("Админ")
    with login(server, clock, "Админ") as admin:
        form = admin.get(f"mcp.php?f={FORUM}&t=9&quickmod=1&action=lock").text
        assert _confirm(admin, form, "Да").status_code == 302 and not server.board.topic(9).locked
        form = admin.get(f"mcp.php?f={FORUM}&t=9&quickmod=1&action=lock").text
        done = _confirm(admin, form, "Yes")
    assert message(done.text) == message(page(80)) and server.board.topic(9).locked


# --- private messages --------------------------------------------------------------------------------------

COMPOSE = "ucp.php?i=pm&mode=compose"


def _compose(client: httpx.Client, form: str, button: str, path: str | None = None, **values: str) -> httpx.Response:
    data = browser_data(form, "postform", **values)
    return client.post(path or action(form, "postform"), data={**data, button: buttons(form, "postform")[button]})


def _addresses(text: str) -> list[str]:
    return [k for k, v in hidden(text, "postform") if k.startswith("address_list")]


def _compose_error(text: str) -> str:
    return words(one(doc(text), '//form[@id="postform"]//div[@id="postingbox"]//p[@class="error"]'))


def test_a_pm_in_the_captured_steps(server: BoardServer, clock: Clock, bot: httpx.Client) -> None:
    clock.at(83)
    form = bot.get(COMPOSE).text
    clock.at(84)
    added = _compose(bot, form, "add_to", username_list="Вера")
    assert _addresses(added.text) == _addresses(page(84)) == ["address_list[u][60]"]
    assert form_fields(added.text, "postform") == form_fields(page(84), "postform")
    clock.at(85)
    sent = _compose(bot, added.text, "post", subject="Тест: ЛС от бота", message="Проверка отправки ЛС ботом.")
    pm = server.board.pms_from(BOT)[0]
    real = page(85)
    assert sent.status_code == 200 and message(sent.text) == message(real).replace("p=69", f"p={pm.pm_id}")
    assert one(doc(sent.text), '//meta[@http-equiv="refresh"]').get("content") == (
        f"3; url={server.url}ucp.php?i=pm&mode=view&p={pm.pm_id}"
    )
    assert (pm.recipients, pm.subject) == (("Вера",), "Тест: ЛС от бота")
    clock.at(86)  # a tenth of a second later: one flood clock for posts and PMs
    flood = _compose(bot, added.text, "post", subject="Тест: флуд ЛС", message="Этот ЛС не должен уйти.")
    assert _compose_error(flood.text) == _compose_error(page(86)) and len(server.board.pms_from(BOT)) == 1


NINE = [
    "Вера",
    "Bepa",
    "Дядя Фёдор",
    "Кот_Матроскин",
    "Ёжик в тумане",
    "Mr. Pink",
    "Шарик",
    "Незнайка",
    "Алиса Селезнёва",
]


def test_too_many_recipients_keeps_the_first_five_and_sends_nothing(
    server: BoardServer, clock: Clock, bot: httpx.Client
) -> None:
    form = bot.get(COMPOSE).text
    clock.advance(1.5)
    added = _compose(bot, form, "add_to", username_list="\n".join(NINE))
    assert _compose_error(added.text) == _compose_error(page(87))
    assert _addresses(added.text) == _addresses(page(87)) == [f"address_list[u][{uid}]" for uid in range(60, 65)]
    nine = {f"address_list[u][{uid}]": "to" for uid in range(60, 69)}
    clock.advance(1.5)
    direct = _compose(
        bot, form, "post", COMPOSE, subject="Тест: девять получателей", message="Этот ЛС не должен уйти.", **nine
    )
    assert _compose_error(direct.text) == _compose_error(page(88))
    assert _addresses(direct.text) == _addresses(page(88))
    assert not server.board.pms_from(BOT)


def test_unknown_recipients_are_an_error_only_when_none_exists(
    server: BoardServer, clock: Clock, bot: httpx.Client
) -> None:
    form = bot.get(COMPOSE).text
    clock.advance(1.5)
    unknown = _compose(bot, form, "add_to", username_list="Гендальф")
    assert _compose_error(unknown.text) == _compose_error(page(89)) and not _addresses(unknown.text)
    mixed = _compose(bot, form, "add_to", username_list="Вера\nГендальф")
    assert not doc(mixed.text).xpath('//p[@class="error"]') and not doc(page(90)).xpath('//p[@class="error"]')
    assert _addresses(mixed.text) == _addresses(page(90)) == ["address_list[u][60]"]


def test_no_recipient_limit_unless_the_board_sets_one(clock: Clock) -> None:
    board = capture_board(max_pm_recipients=0)
    with BoardServer(board, clock=clock) as server, login(server, clock) as bot:
        form = bot.get(COMPOSE).text
        added = _compose(bot, form, "add_to", username_list="\n".join(NINE))
        assert len(_addresses(added.text)) == 9 and not doc(added.text).xpath('//p[@class="error"]')


def _rows(text: str) -> list[tuple[str, str, str]]:
    out = []
    for li in doc(text).xpath('//ul[contains(@class, "pmlist")]/li'):
        dl = li.find("dl")
        out.append(
            (dl.get("class"), words(one(li, './/div[@class="list-inner"]')), words(li.find(".//dd[@class='info']")))
        )
    return out


@pytest.mark.parametrize(("fmt", "capture"), [("|d M Y|, H:i", 42), ("d.m.Y H:i:s", 96)])
def test_the_inbox_rows_and_dates_are_the_captured_ones(
    server: BoardServer, clock: Clock, bot: httpx.Client, fmt: str, capture: int
) -> None:
    if capture == 96:
        for pm_id in (84, 82):
            server.board.mark_pm_read(pm_id, BOT)
    server.board.set_preferences(BOT, dateformat=fmt)
    clock.at(capture)
    ours = bot.get("ucp.php?i=pm&folder=inbox").text
    real = page(capture)
    assert _rows(ours) == _rows(real)
    for part in ('//div[@class="cp-main ucp-main panel-container"]//div[@class="inner"]/p', "//h2[not(@class)]"):
        assert [words(e) for e in doc(ours).xpath(part)] == [words(e) for e in doc(real).xpath(part)]
    assert not doc(ours).xpath('//ul[contains(@class, "pmlist")]//time')


@pytest.mark.parametrize(
    ("pm_id", "capture", "fmt"),
    [(84, 43, None), (82, 44, None), (67, 45, None), (63, 46, None), (58, 47, None), (67, 95, "d.m.Y H:i:s")],
)
def test_the_pm_page_says_when_it_was_sent_in_words(
    server: BoardServer, clock: Clock, bot: httpx.Client, pm_id: int, capture: int, fmt: str | None
) -> None:
    if fmt:
        server.board.set_preferences(BOT, dateformat=fmt)
    clock.at(capture)
    ours = doc(bot.get(f"ucp.php?i=pm&mode=view&f=0&p={pm_id}").text)
    real = doc(page(capture))
    author = f'//div[@id="post-{pm_id}"]//p[@class="author"]'
    assert words(one(ours, author)) == words(one(real, author))
    assert not ours.xpath(f'//div[@id="post-{pm_id}"]//time')


def test_a_sent_pm_waits_in_the_outbox_named_to_its_recipient(
    server: BoardServer, clock: Clock, bot: httpx.Client
) -> None:
    clock.at(40)
    server.board.send_pm(
        BOT, "Вера", "Тест: ЛС от бота", "Проверка", datetime.fromtimestamp(clock.now - 40, UTC), pm_id=69
    )
    ours = bot.get("ucp.php?i=pm&folder=outbox").text
    first = _rows(ours)[0]
    assert first == _rows(page(41))[0]
    assert one(doc(ours), '//ul[contains(@class, "pmlist")]').get("class") == one(
        doc(page(41)), '//ul[contains(@class, "pmlist")]'
    ).get("class")
    server.board.mark_pm_read(69, "Вера")
    assert _rows(bot.get("ucp.php?i=pm&folder=sentbox").text)[0][1] == "Тест: ЛС от бота Кому Вера"


def test_an_english_reader_gets_english_dates_in_the_inbox(server: BoardServer, clock: Clock) -> None:
    server.board.send_pm("Вера", "Bepa", "Test: PM #1 (will be 'Today')", "x", utc("01.12.2026 11:49:20"), pm_id=200)
    server.board.send_pm(
        "Алиса Селезнёва", "Bepa", "Test: PM #3 (less than a minute)", "x", utc("01.12.2026 12:50:25"), pm_id=201
    )
    clock.at(49)
    with login(server, clock, "Bepa") as bepa:
        rows = _rows(bepa.get("ucp.php?i=pm&folder=inbox").text)
        server.board.set_preferences("Bepa", dateformat="D M d, Y g:i a")
        old_style = _rows(bepa.get("ucp.php?i=pm&folder=inbox").text)
    real = {r[1].split(" by ")[0]: r for r in _rows(page(49))}
    assert rows[0][1:] == real["Test: PM #3 (less than a minute)"][1:]
    assert rows[1][1:] == real["Test: PM #1 (will be 'Today')"][1:]
    assert old_style[1][1].endswith("» Tue Dec 01, 2026 11:49 am")  # as 32-en-pm-inbox-lt1min.html


# --- UCP preferences -----------------------------------------------------------------------------------------


def test_the_preferences_change_the_date_format_and_back(server: BoardServer, clock: Clock, bot: httpx.Client) -> None:
    path = "ucp.php?i=ucp_prefs&mode=personal"
    form = bot.get(path).text
    assert one(doc(form), '//select[@name="tz"]//option[@selected]').get("value") == "Europe/Moscow"
    assert one(doc(form), '//input[@name="dateformat"]').get("value") == "|d M Y|, H:i"
    assert [o.get("value") for o in doc(form).xpath('//select[@name="dateoptions"]/option')] == [
        o.get("value") for o in doc(page(93)).xpath('//select[@name="dateoptions"]/option')
    ]
    data = browser_data(form, "ucp", dateoptions="custom", dateformat="d.m.Y H:i:s")
    too_fast = bot.post(path, data={**data, "submit": "Отправить"})
    assert "Ошибка отправки формы. Попробуйте ещё раз." in words(one(doc(too_fast.text), '//form[@id="ucp"]'))
    clock.advance(1.5)
    done = bot.post(path, data={**data, "submit": "Отправить"})
    assert done.status_code == 200 and message(done.text) == message(page(94))
    assert member(server.board, BOT).dateformat == "d.m.Y H:i:s"
    clock.at(97)
    assert posts(bot.get(f"viewtopic.php?t={TOPIC_A}").text)[63].xpath(".//time/text()") == ["01.12.2026 11:48:43"]
    form = bot.get(path).text
    clock.advance(1.5)
    back = bot.post(
        path, data={**browser_data(form, "ucp", dateoptions="|d M Y|, H:i", dateformat="|d M Y|, H:i"), "submit": "x"}
    )
    assert message(back.text) == message(page(98)) and member(server.board, BOT).dateformat == "|d M Y|, H:i"


def test_an_english_member_switches_to_russian(server: BoardServer, clock: Clock) -> None:
    with login(server, clock, "Bepa") as bepa:
        form = bepa.get("ucp.php?i=ucp_prefs&mode=personal").text
        assert buttons(form, "ucp") == buttons(page(91), "ucp") == {"submit": "Submit"}
        clock.advance(1.5)
        done = bepa.post(
            "ucp.php?i=ucp_prefs&mode=personal", data={**browser_data(form, "ucp", lang="ru"), "submit": "Submit"}
        )
        assert message(done.text) == message(page(92))  # the answer is still in the old language
        assert buttons(bepa.get(f"posting.php?mode=reply&t={TOPIC_A}").text, "postform")["post"] == "Отправить"


# --- the board's settings ------------------------------------------------------------------------------------


def test_board_russian_is_the_captured_setup() -> None:
    board = Board.russian()
    assert (
        board.language,
        board.timezone,
        board.flood_interval,
        board.max_pm_recipients,
        board.max_login_attempts,
    ) == (
        "ru",
        "Europe/Moscow",
        2.0,
        5,
        3,
    )
    assert Board.russian(flood_interval=15).flood_interval == 15
    uid = board.add_user("Игрок")
    assert member(board, "Игрок").lang == "ru" and uid
    assert LANGUAGE_PACK["ru"]["dateformat"] == "|d M Y|, H:i"


def test_buttons_are_checked_by_name_not_value(server: BoardServer, clock: Clock, bot: httpx.Client) -> None:
    form = bot.get(f"posting.php?mode=reply&t={TOPIC_ERRORS}").text
    clock.advance(1.5)
    data = browser_data(form, "postform", message="любой текст кнопки")
    answer = bot.post(
        f"posting.php?mode=reply&t={TOPIC_ERRORS}", data={**data, "post": "Submit"}, follow_redirects=False
    )
    assert answer.status_code == 302
    unsent = bot.post(f"posting.php?mode=reply&t={TOPIC_ERRORS}", data=data, follow_redirects=False)
    assert unsent.status_code == 200 and len(server.board.posts_of(TOPIC_ERRORS)) == 2


def test_board_russian_with_the_bot_is_ready_to_play(clock: Clock) -> None:
    board = Board.russian(bot=BOT, bot_password="pw-" + BOT)
    assert member(board, BOT).user_id == 58 and board.is_moderator(BOT, FORUM)
    board.add_topic(FORUM, "Мафия-1. День 1", BOT, "Начало")
    with BoardServer(board, clock=clock) as server, login(server, clock) as bot:
        assert buttons(bot.get("posting.php?mode=reply&t=1").text, "postform")["post"] == "Отправить"
        assert "Закрыть тему" in bot.get("viewtopic.php?t=1").text


def _forum_rows(text: str) -> dict[str, tuple[str, str, list[str]]]:
    rows = {}
    for li in doc(text).xpath('//ul[@class="topiclist topics"]/li'):
        href = one(li, './/a[@class="topictitle"]').get("href")
        queue = li.xpath('.//a[contains(@href, "unapproved_posts")]/@title')
        rows[href] = (li.find("dl").get("class"), words(li.find(".//dd[@class='posts']")), queue)
    return rows


def test_the_forum_counts_and_marks_per_viewer(server: BoardServer, clock: Clock, bot: httpx.Client) -> None:
    server.board.lock_topic(TOPIC_LOCKED)
    server.board.add_post(TOPIC_LOCKED, BOT, "Ответ модератора в закрытую тему.", utc("01.12.2026 11:59:40"))
    with login(server, clock, None) as guest:
        for client, capture in ((bot, 23), (guest, 25)):
            ours, real = _forum_rows(client.get(f"viewforum.php?f={FORUM}").text), _forum_rows(page(capture))
            for href in (f"./viewtopic.php?t={TOPIC_A}", f"./viewtopic.php?t={TOPIC_LOCKED}"):
                assert ours[href] == real[href], (capture, href)


def test_pages_split_where_the_viewer_sees_the_posts(clock: Clock) -> None:
    with BoardServer(capture_board(), clock=clock, posts_per_page=5) as server, login(server, clock) as bot:
        with login(server, clock, "Вера") as player:
            assert list(posts(bot.get(f"viewtopic.php?t={TOPIC_A}&start=5").text)) == [68, 69, 119, 120]
            assert list(posts(player.get(f"viewtopic.php?t={TOPIC_A}&start=5").text)) == [119, 120]
            pagination = doc(player.get(f"viewtopic.php?t={TOPIC_A}").text).xpath('//div[@class="pagination"]')
            assert words(pagination[0]).startswith("7 сообщений")
            assert player.get("viewtopic.php?p=69").status_code == 404  # the queued post is not there for a player


@pytest.mark.parametrize(
    ("pm_id", "sender", "sent", "capture", "fmt"),
    [
        (85, "Алиса Селезнёва", "01.12.2026 12:50:25", 50, None),
        (68, "Вера", "01.12.2026 11:49:17", 52, None),
        (65, BOT, "30.11.2026 18:00:05", 53, None),
        (68, "Вера", "01.12.2026 11:49:17", 33, "D M d, Y g:i a"),  # phpBB's English default: never relative
    ],
)
def test_an_english_reader_sees_when_a_pm_was_sent_in_english(
    server: BoardServer, clock: Clock, pm_id: int, sender: str, sent: str, capture: int, fmt: str | None
) -> None:
    server.board.send_pm(sender, "Bepa", "PM", "x", utc(sent), pm_id=pm_id)
    if fmt:
        server.board.set_preferences("Bepa", dateformat=fmt)
    clock.at(capture)
    with login(server, clock, "Bepa") as bepa:
        ours = doc(bepa.get(f"ucp.php?i=pm&mode=view&f=0&p={pm_id}").text)
    author = f'//div[@id="post-{pm_id}"]//p[@class="author"]'
    assert words(one(ours, author)) == words(one(doc(page(capture)), author))
