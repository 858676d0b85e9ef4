"""IPB 3's forms and answers (`forumbot/forum/ipb3/forms.py`, `answers.py`) on what IPB 3.4.6 serves and answers
(fixtures/ipb-real/ipb34/). Its captured bodies are its templates' output alone; the board serves each inside
its page, so each is read here inside the page the capture holds whole (16-topic-page.html, the bot's: his
member bar and sign-out link), or inside that page as a guest sees it (no member bar)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from lxml import html

from forumbot.forum.ipb3 import answers, forms
from forumbot.forum.outcome import LoggedOut, Outcome, RefusedForGood, RefusedForNow, Stored, Unknown

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "ipb-real"


@cache
def index() -> dict[str, dict[str, Any]]:
    return {e["id"]: e for e in json.loads((FIXTURES / "index.json").read_text(encoding="utf-8"))}


def fragment(exchange: str) -> str:
    body_file: str = index()[exchange]["body_file"]
    return (FIXTURES / body_file).read_text(encoding="utf-8")


def framed(exchange: str, *, guest: bool = False) -> str:
    """The captured template inside the board's page (`div#content`), as the bot (or a guest) is served it."""
    page = html.fromstring((FIXTURES / "ipb34" / "16-topic-page.html").read_text(encoding="utf-8"))
    content = page.xpath('//div[@id="content"]')[0]
    for child in list(content):
        content.remove(child)
    content.text = None
    for child in html.fromstring(fragment(exchange)).xpath("//body/*"):
        content.append(child)
    if guest:
        for link in page.xpath('//a[@id="user_link"] | //a[contains(@href, "do=logout")]'):
            link.getparent().remove(link)
    return str(html.tostring(page, encoding="unicode"))


# --- the forms ---------------------------------------------------------------------------------------------


def test_the_login_form_is_sent_as_the_browser_sends_it() -> None:
    submission = forms.login_form(fragment("ipb34-01"), "Ведущий", "<password>")
    assert submission is not None
    assert submission[1] == [
        ("auth_key", "880ea6a14ea49e853634fbdc5015a024"),  # the guests' form hash
        ("referer", "http://forum.istv.example/index.php"),
        ("ips_username", "Ведущий"),
        ("ips_password", "<password>"),
        ("rememberMe", "1"),  # ticked as served; `anonymous` not; the button has no name
    ]


@pytest.mark.parametrize("exchange", ["ipb34-03", "ipb34-04"])
def test_the_posting_form_is_multipart_and_sent_with_dosubmit(exchange: str) -> None:
    assert forms.multipart(fragment(exchange), "postingform")
    submission = forms.posting_form(fragment(exchange), {"Post": "Итоги.\nЖивы: все"})
    assert submission is not None
    fields = dict(submission[1])
    assert fields["Post"] == "Итоги.\r\nЖивы: все"
    assert fields["dosubmit"] in ("Создать тему", "Добавить ответ") and "preview" not in fields
    assert fields["do"] == ("new_post_do" if exchange == "ipb34-03" else "reply_post_do")
    assert fields["auth_key"] == "b65dd423cf43a580d01edc6bdca25523"


def test_the_conversation_form_invites_the_others_as_many_as_it_takes() -> None:
    assert forms.invites_allowed(fragment("ipb34-12")) == 5
    submission = forms.compose_form(fragment("ipb34-12"), ["Лиса", "Зося", "Остап"], "Мафия-9: ваша роль", "Роль.")
    assert submission is not None
    fields = dict(submission[1])
    assert (fields["entered_name"], fields["inviteUsers"], fields["sendType"]) == ("Лиса", "Зося, Остап", "invite")
    assert fields["dosubmit"] == "Отправить сообщение" and not {"preview", "save"} & set(fields)


# --- the answers -------------------------------------------------------------------------------------------

FLOOD = "Стоит делать передышку в 25 секунд"


@pytest.mark.parametrize(("exchange", "made", "expected"), [
    ("ipb34-05", "topic", Stored(20418)),  # index.php?/topic/20418-мафия-9-день-4/
    ("ipb34-06", "reply", Stored(512345)),  # …/topic/20417-мафия-9-день-3/?p=512345
])  # fmt: skip
def test_a_silent_redirect_with_friendly_urls_names_what_was_made(exchange: str, made: str, expected: Outcome) -> None:
    assert answers.post_answer([index()[exchange]["location"]], "", made) == expected  # type: ignore[arg-type]


@pytest.mark.parametrize(("location", "made", "expected"), [
    ("http://forum.istv.example/index.php?showtopic=20418", "topic", Stored(20418)),
    ("http://forum.istv.example/index.php?showtopic=20417&p=512345", "reply", Stored(512345)),
    ("http://forum.istv.example/index.php?showtopic=20417&view=getlastpost", "reply", Unknown()),
])  # fmt: skip
def test_a_silent_redirect_without_friendly_urls_names_what_was_made(
    location: str, made: str, expected: Outcome
) -> None:
    found = answers.post_answer([location], "", made)  # type: ignore[arg-type]
    assert type(found) is type(expected) and getattr(found, "remote_id", None) == getattr(expected, "remote_id", None)


def test_a_new_conversation_is_stored_with_its_first_messages_id() -> None:
    assert answers.pm_answer([index()["ipb34-14"]["location"]], "") == Stored(301)


@pytest.mark.parametrize(("exchange", "expected"), [
    ("ipb34-07", RefusedForNow("flood", FLOOD, 25.0)),  # the seconds left
    ("ipb34-08", RefusedForNow("form_invalid", "Ваш ключ безопасности")),
    ("ipb34-09", RefusedForGood("Вы не можете оставлять сообщения в закрытых темах", "no_permission")),
    ("ipb34-10", RefusedForGood("У Вас нет прав оставлять сообщения в этой теме.", "no_permission")),
])  # fmt: skip
def test_every_error_page_reads_as_what_it_proves(exchange: str, expected: Outcome) -> None:
    for found in (answers.form_missing(framed(exchange)), answers.post_answer([], framed(exchange), "reply")):
        assert type(found) is type(expected)
        assert getattr(found, "why", None) == getattr(expected, "why", None)
        assert getattr(found, "wait", None) == getattr(expected, "wait", None)
        assert getattr(found, "said", "").startswith(getattr(expected, "said", ""))


def test_a_guests_error_page_is_a_dead_session() -> None:
    assert isinstance(answers.form_missing(framed("ipb34-11", guest=True)), LoggedOut)
    assert isinstance(answers.post_answer([], framed("ipb34-10", guest=True), "reply"), LoggedOut)


def test_an_unknown_recipient_is_refused_for_good_as_such() -> None:
    found = answers.pm_answer([], framed("ipb34-13"))
    assert isinstance(found, RefusedForGood) and found.why == "unknown_recipient"
    assert found.said.startswith("Необходимо вручную ввести полное имя пользователя")


def test_more_invited_than_the_form_takes_is_too_many_recipients_with_the_limit() -> None:
    """The form served again with an error the board words its own way: six invited where it takes five."""
    page = framed("ipb34-12").replace('<h2 class="maintitle">', '<p class="message error">Ошибка</p><h2>')
    found = answers.pm_answer([], page, invited=6)
    assert isinstance(found, RefusedForGood) and (found.why, found.limit) == ("too_many_recipients", 6)
    assert answers.pm_answer([], page, invited=5) == RefusedForGood("Ошибка")


def test_the_close_answers_with_a_redirect_to_the_forum() -> None:
    assert answers.close_answer([index()["ipb34-17"]["location"]], "") == Stored(None)
