"""IPB 2's forms and answers (`forumbot/forum/ipb2/forms.py`, `answers.py`) on what IPB 2.2.2's own handlers
served and answered (fixtures/ipb-real/ipb22/): each form filled from the captured page is what a browser sent,
field for field; each captured answer reads as the outcome it proves."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any, Literal

import pytest

from forumbot.forum.ipb2 import answers, forms
from forumbot.forum.outcome import LoggedOut, Outcome, RefusedForGood, RefusedForNow, Stored, Unknown

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "ipb-real"
FLOOD = "На форуме включена блокировка массовых сообщений"


@cache
def index() -> dict[str, dict[str, Any]]:
    return {e["id"]: e for e in json.loads((FIXTURES / "index.json").read_text(encoding="utf-8"))}


def body(exchange: str) -> str:
    body_file: str = index()[exchange]["body_file"]
    return (FIXTURES / body_file).read_bytes().decode("cp1251")


def sent(exchange: str) -> list[tuple[str, str]]:
    return [(name, value) for name, value in index()[exchange]["form"]]


def typed(exchange: str, *names: str) -> dict[str, str]:
    """What the capture typed into the form (line breaks as a member types them)."""
    fields = dict(sent(exchange))
    return {name: fields[name].replace("\r\n", "\n") for name in names}


# --- the forms, as a browser sends them ---------------------------------------------------------------------


def test_the_login_form_is_sent_as_the_browser_sent_it() -> None:
    submission = forms.login_form(body("ipb22-01"), "Ведущий", "<password>")
    assert submission is not None
    assert submission[1] == sent("ipb22-02")  # referer, UserName, PassWord, CookieDate ticked, the button


@pytest.mark.parametrize(("page", "exchange", "values"), [
    ("ipb22-04", "ipb22-05", ("TopicTitle", "Post")),
    ("ipb22-08", "ipb22-09", ("Post",)),
])  # fmt: skip
def test_the_posting_form_is_sent_with_its_send_button_as_served(
    page: str, exchange: str, values: tuple[str, ...]
) -> None:
    submission = forms.posting_form(body(page), typed(exchange, *values))
    assert submission is not None
    assert submission[1] == sent(exchange)  # every field in order, CR LF line breaks, `dosubmit` and not `preview`


def test_the_pm_form_is_sent_without_a_button_field_its_send_button_having_no_name() -> None:
    submission = forms.compose_form(body("ipb22-23"), ["Лиса"], "Мафия-8: ваша роль", "Ваша роль: мирный житель.")
    assert submission is not None
    fields = submission[1]
    assert ("add_sent", "yes") in fields  # the box ticked, so that the PM is found again in «Отправленные»
    assert [f for f in fields if f[0] != "add_sent"] == sent("ipb22-24")
    assert not {"preview", "save"} & {name for name, _ in fields}


def test_several_recipients_go_in_the_carbon_copy_one_per_line_as_many_as_the_form_takes() -> None:
    assert forms.copies_allowed(body("ipb22-23")) == 0
    assert forms.copies_allowed(body("ipb22-28")) == 3
    submission = forms.compose_form(
        body("ipb22-28"), ["Лиса", "Печкин", "Кот"], "Мафия-8: ваша роль", "Ваша роль: мирный житель."
    )
    assert submission is not None
    assert [f for f in submission[1] if f[0] != "add_sent"] == sent("ipb22-29")


def test_the_topic_is_closed_through_modform2_not_modform() -> None:
    submission = forms.close_form(body("ipb22-31"))
    assert submission is not None
    assert submission[1] == sent("ipb22-32")  # t, f, st, auth_key, act=Mod, CODE=00; the button has no name
    assert forms.close_form(body("ipb22-33")) is None  # a closed topic offers to open it, not to close it


# --- the answers, each one outcome ---------------------------------------------------------------------------

POSTS: dict[str, Outcome] = {
    "ipb22-05": Stored(999),  # a 302 to showtopic=999 (the writer then checks the topic's first post)
    "ipb22-09": Stored(999),  # a 302 to …&gopid=999&#entry999
    "ipb22-15": Unknown(),  # the double-post guard's 302 to view=getlastpost: nothing named
    "ipb22-16": Stored(16290),  # the guard's 302 to the newest topic: the first post's marker decides
    "ipb22-06": RefusedForGood(""),  # the form again with a preview
    "ipb22-07": RefusedForGood("Вы должны ввести сообщение"),
    "ipb22-10": RefusedForGood("Вы ввели слишком много блоков с цитатой"),
    "ipb22-11": RefusedForGood("Вы должны ввести сообщение"),
    "ipb22-14": RefusedForNow("flood", FLOOD, 30.0),  # the whole interval
    "ipb22-17": RefusedForNow("form_invalid", "Неверная авторизация"),
    "ipb22-18": LoggedOut("У вас нет прав публиковать ответ в эту тему"),  # a guest's page: the session died
    "ipb22-22": RefusedForGood("Эта тема закрыта", "no_permission"),
}
PMS: dict[str, Outcome] = {
    "ipb22-24": Stored(None),  # the redirect screen: sent, its id not shown
    "ipb22-27": Stored(None),
    "ipb22-29": Stored(None),
    "ipb22-25": RefusedForGood(""),  # the form again with a preview
    "ipb22-26": RefusedForGood("Нет такого пользователя", "unknown_recipient"),
    "ipb22-30": RefusedForGood("Вы не имеете прав отправки копии", "too_many_recipients", 4),
}
FORM_PAGES: dict[str, Outcome] = {
    "ipb22-12": RefusedForNow("flood", FLOOD, 30.0),  # flood control when the form is asked for
    "ipb22-13": RefusedForNow("flood", FLOOD, 30.0),
    "ipb22-19": RefusedForGood("У вас нет прав открытия тем в этом форуме", "no_permission"),
    "ipb22-20": RefusedForGood("У вас нет прав публиковать ответ в эту тему", "no_permission"),
    "ipb22-21": RefusedForGood("Эта тема закрыта", "no_permission"),
}
CLOSES: dict[str, Outcome] = {
    "ipb22-32": Stored(None),
    "ipb22-34": Stored(None),  # the same answer when the topic was closed already
    "ipb22-35": RefusedForNow("form_invalid", "Неверная авторизация"),
}


def same(found: Outcome, expected: Outcome) -> None:
    """The same kind of outcome, with the same id, reason, wait and limit; the board's words start as expected."""
    assert type(found) is type(expected), found
    if isinstance(expected, Stored):
        assert found == expected
    for attribute in ("why", "wait", "limit"):
        assert getattr(found, attribute, None) == getattr(expected, attribute, None), (attribute, found)
    said = getattr(expected, "said", "")
    assert getattr(found, "said", "").startswith(said), found


@pytest.mark.parametrize("exchange", sorted(POSTS))
def test_every_answer_to_a_post_reads_as_what_it_proves(exchange: str) -> None:
    entry = index()[exchange]
    made: Literal["topic", "reply"] = "topic" if dict(entry["form"])["CODE"] == "01" else "reply"
    locations = [entry["location"]] if entry["location"] else []
    page = body(exchange) if entry["status"] == 200 else ""
    same(answers.post_answer(locations, page, made), POSTS[exchange])


def test_a_reply_redirected_by_its_anchor_alone_names_its_post() -> None:
    """Posts sorted newest first: `showtopic=T&#entryP`, no gopid."""
    found = answers.post_answer(["http://forum.example/index.php?showtopic=16290&#entry999"], "", "reply")
    assert found == Stored(999)


@pytest.mark.parametrize("exchange", sorted(PMS))
def test_every_answer_to_a_pm_reads_as_what_it_proves(exchange: str) -> None:
    same(answers.pm_answer(body(exchange)), PMS[exchange])


@pytest.mark.parametrize("exchange", sorted(FORM_PAGES))
def test_every_page_served_instead_of_a_form_reads_as_why(exchange: str) -> None:
    same(answers.form_missing(body(exchange)), FORM_PAGES[exchange])


@pytest.mark.parametrize("exchange", sorted(CLOSES))
def test_every_answer_to_the_close_reads_as_what_it_proves(exchange: str) -> None:
    same(answers.close_answer(body(exchange)), CLOSES[exchange])


def test_the_login_answer_is_a_redirect_screen_to_the_referer() -> None:
    screen = answers.redirect_screen(body("ipb22-02"))
    assert screen is not None and screen.url == index()["ipb22-02"]["redirect_url"]
    assert screen.said == index()["ipb22-02"]["redirect_text"]
    assert answers.redirect_screen(body("ipb22-03")) is None  # a wrong password: the login form again


def test_the_post_forms_errors_are_read_from_their_own_box() -> None:
    assert answers.error_text(body("ipb22-10")) == "Вы ввели слишком много блоков с цитатой"
    assert answers.error_text(body("ipb22-06")) is None  # a preview is no error


def test_a_pm_answer_cut_before_its_redirect_screen_proves_nothing() -> None:
    """Half of the redirect screen (no `div#redirectwrap` yet, no logout link on it) is no guest's page:
    read as logged out, the PM was sent again after a new login, and twice on the board."""
    whole = body("ipb22-24")
    cut = whole[: whole.index("redirectwrap")]
    outcome = answers.pm_answer(cut)
    assert isinstance(outcome, Unknown) and outcome.why == "cut"
    assert answers.pm_answer(whole) == Stored(None)
