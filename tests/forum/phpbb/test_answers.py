"""Every answer the real Russian phpBB 3.3.11 board gave to a write (fixtures/phpbb-ru), read as one typed
outcome; the same pages with the English pack's words (as the English board prints them) read alike; a page
cut short proves nothing it did not show whole; a word of a message is not the message."""

from __future__ import annotations

from pathlib import Path

import pytest

from fakeboard.phpbb import texts as phpbb
from fakeboard.phpbb import translate
from forumbot.forum.outcome import LoggedOut, Outcome, RefusedForGood, RefusedForNow, Stored, Unknown
from forumbot.forum.phpbb.answers import (
    form_missing,
    forum_message,
    is_whole,
    lock_answer,
    pm_answer,
    post_answer,
    recipients_trouble,
)

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "phpbb-ru"
BOARD = "http://127.0.0.1:18080/"
REPLY_FORM = f"{BOARD}posting.php?mode=reply&t=10"
# The English pack's texts of the answers captured in Russian (what the English board prints instead).
ENGLISH = (
    phpbb.FLOOD_ERROR,
    phpbb.FORM_INVALID,
    phpbb.TOO_MANY_RECIPIENTS,
    phpbb.PM_NO_USERS,
    phpbb.POST_STORED_MOD,
    phpbb.TOPIC_LOCKED,
    phpbb.NOT_AUTHORISED,
    phpbb.MESSAGE_SENT,
    phpbb.TOPIC_LOCKED_DONE,
    phpbb.TOO_FEW_CHARS,
    phpbb.EMPTY_SUBJECT,
    phpbb.NO_TOPIC,
    phpbb.LOGIN_EXPLAIN["reply"],
    phpbb.LOGIN_MCP,
)


def page(number: str) -> str:
    return next(FIXTURES.glob(f"{number}-*.html")).read_text(encoding="utf-8")


def in_english(html: str) -> str:
    """The captured page with each of the board's Russian messages in the English pack's words."""
    for key in ENGLISH:
        html = html.replace(translate("ru", key), key)
    return html


def said(number: str) -> str:
    """The board's own words on the captured page: its error above the form, else its message."""
    from forumbot.forum.phpbb.answers import form_error

    text = form_error(page(number)) or forum_message(page(number))
    assert text
    return text


# --- the answers to a post, a reply, a PM and a lock, as the real board gave them ---------------------------

POSTS: list[tuple[str, str, Outcome]] = [
    ("59", REPLY_FORM, RefusedForGood(said("59"), "held_for_approval")),
    ("62", REPLY_FORM, RefusedForNow("flood", said("62"))),
    ("63", REPLY_FORM, Unknown(said("63"), "form_invalid")),
    ("64", REPLY_FORM, Unknown(said("64"), "form_invalid")),
    ("65", REPLY_FORM, RefusedForGood(said("65"))),
    ("66", f"{BOARD}posting.php?mode=post&f=3", RefusedForGood(said("66"))),
    ("70", REPLY_FORM, RefusedForGood(said("70"), "locked")),
]


@pytest.mark.parametrize(("exchange", "url", "outcome"), POSTS, ids=[p[0] for p in POSTS])
def test_each_answer_to_a_post_is_one_outcome(exchange: str, url: str, outcome: Outcome) -> None:
    assert post_answer(url, page(exchange), "reply") == outcome


def test_the_board_said_what_the_capture_says() -> None:
    assert said("59").startswith("Сообщение успешно отправлено, но должно быть одобрено модератором")
    flood = "Вы не можете отправить следующее сообщение сразу после предыдущего. Пожалуйста, попробуйте чуть позже."
    assert said("62") == flood
    assert said("70") == "Эта тема закрыта, вы не можете редактировать и оставлять сообщения в ней."
    assert said("75") == "Выбранная тема была закрыта."  # the links after the message are not its words


def test_a_post_is_stored_where_the_redirect_says() -> None:
    """57, 61, 68 and 72 are 302s to the new topic or post: their Location is the answer, whatever the page."""
    assert post_answer(f"{BOARD}viewtopic.php?t=7", page("58"), "topic") == Stored(7)  # 57's Location, 58 its page
    assert post_answer(f"{BOARD}viewtopic.php?p=74#p74", page("21"), "reply") == Stored(74)  # 61
    assert post_answer(f"{BOARD}viewtopic.php?p=76#p76", page("21"), "reply") == Stored(76)  # 68, after the review
    assert post_answer(f"{BOARD}viewtopic.php?p=77#p77", page("19"), "reply") == Stored(77)  # 72, a locked topic


def test_new_posts_meanwhile_hand_the_form_back_for_review() -> None:
    outcome = post_answer(REPLY_FORM, page("67"), "reply")
    assert isinstance(outcome, RefusedForNow) and outcome.why == "review"
    assert outcome.said.startswith("Было добавлено по крайней мере одно сообщение в этой теме.")


def test_each_answer_to_a_pm_is_one_outcome() -> None:
    assert pm_answer(page("85")) == Stored(69)
    assert pm_answer(page("86")) == RefusedForNow("flood", said("86"))
    assert pm_answer(page("88")) == RefusedForGood(said("88"), "too_many_recipients", limit=5)
    assert pm_answer(page("89")) == RefusedForGood(said("89"), "unknown_recipient")
    # the compose form back without a word (90: a name dropped in silence) proves nothing of a sending
    assert pm_answer(page("90")) == Unknown("the form came back without a word")
    assert recipients_trouble(said("87")) == "too_many_recipients"
    assert recipients_trouble(said("89")) == "unknown_recipient"
    assert recipients_trouble(None) == "unknown_recipient"  # 90: no error, a name dropped silently


def test_each_answer_to_a_lock_is_one_outcome() -> None:
    for exchange in ("75", "78", "82"):  # locked; already locked (the same page); from the topic's link
        assert lock_answer(page(exchange)) == Stored(None)
    # 74 and 76: a 302 back to the form's redirect without a word: the topic tells whether it is locked
    assert lock_answer("") == Unknown("", "cut")
    assert lock_answer(page("23")) == Unknown("")  # the page that redirect leads to says nothing of a lock


def test_a_page_instead_of_the_form() -> None:
    assert form_missing(page("09")) == LoggedOut("Вам необходимо авторизоваться, чтобы отвечать в темах в этом форуме.")
    assert form_missing(page("10")) == LoggedOut("Вы должны войти для модерирования этого форума.")
    assert form_missing(page("69")) == RefusedForGood(said("69"), "locked")
    assert form_missing(page("28")) == RefusedForGood("Запрошенной темы не существует.", "rejected")
    assert form_missing(page("55")) == Unknown("Личное сообщение не найдено.")  # no such PM: no refusal of a write


def test_a_login_page_in_answer_to_a_write_is_logged_out() -> None:
    assert post_answer(REPLY_FORM, page("09"), "reply") == LoggedOut(
        "Вам необходимо авторизоваться, чтобы отвечать в темах в этом форуме."
    )
    assert isinstance(pm_answer(page("07")), LoggedOut)
    assert isinstance(lock_answer(page("10")), LoggedOut)


# --- the English board ------------------------------------------------------------------------------------


def test_the_english_board_says_the_same_in_its_words() -> None:
    assert post_answer(REPLY_FORM, in_english(page("62")), "reply") == RefusedForNow("flood", phpbb.FLOOD_ERROR)
    invalid = post_answer(REPLY_FORM, in_english(page("63")), "reply")
    assert isinstance(invalid, Unknown) and invalid.why == "form_invalid"
    assert post_answer(REPLY_FORM, in_english(page("65")), "reply") == RefusedForGood(phpbb.TOO_FEW_CHARS)
    assert post_answer(REPLY_FORM, in_english(page("70")), "reply") == RefusedForGood(phpbb.TOPIC_LOCKED, "locked")
    held = post_answer(REPLY_FORM, in_english(page("59")), "reply")
    assert isinstance(held, RefusedForGood) and held.why == "held_for_approval"
    assert pm_answer(in_english(page("86"))) == RefusedForNow("flood", phpbb.FLOOD_ERROR)
    many = pm_answer(in_english(page("88")))
    assert many == RefusedForGood(phpbb.TOO_MANY_RECIPIENTS, "too_many_recipients", limit=5)
    assert pm_answer(in_english(page("89"))) == RefusedForGood(phpbb.PM_NO_USERS, "unknown_recipient")
    assert lock_answer(page("80")) == Stored(None)  # captured in English
    assert isinstance(post_answer(REPLY_FORM, in_english(page("09")), "reply"), LoggedOut)
    not_authorised = page("70").replace(translate("ru", phpbb.TOPIC_LOCKED), phpbb.NOT_AUTHORISED)
    assert lock_answer(not_authorised) == RefusedForGood(phpbb.NOT_AUTHORISED, "no_permission")
    ru_not_authorised = page("70").replace(translate("ru", phpbb.TOPIC_LOCKED), translate("ru", phpbb.NOT_AUTHORISED))
    assert lock_answer(ru_not_authorised) == RefusedForGood(translate("ru", phpbb.NOT_AUTHORISED), "no_permission")


# --- what proves nothing ------------------------------------------------------------------------------------


def test_flood_control_on_a_message_page_is_still_for_now() -> None:
    """Issue 23: «Вы не можете отправить следующее сообщение сразу после предыдущего…» on a message page was
    taken for a refusal of the account's rights, and the letter set aside for good."""
    flood = page("70").replace(said("70"), said("62"))
    assert pm_answer(flood) == RefusedForNow("flood", said("62"))
    assert post_answer(REPLY_FORM, flood, "reply") == RefusedForNow("flood", said("62"))
    invalid = page("70").replace(said("70"), said("63"))
    assert pm_answer(invalid) == Unknown(said("63"), "form_invalid")


def test_a_word_of_a_message_is_not_the_message() -> None:
    """«не можете» is in the flood error and in the locked topic's: neither is a refusal by that word."""
    ours = page("70").replace(said("70"), "Вы не можете сделать это сейчас, попробуйте позже.")
    assert post_answer(REPLY_FORM, ours, "reply") == Unknown("Вы не можете сделать это сейчас, попробуйте позже.")
    half = "Вы не можете отправить следующее сообщение"
    assert post_answer(REPLY_FORM, page("62").replace(said("62"), half), "reply") == RefusedForGood(half)


@pytest.mark.parametrize("exchange", ["59", "65", "70", "88"])
def test_a_refusal_read_off_a_page_cut_short_proves_nothing(exchange: str) -> None:
    whole = page(exchange)
    cut = whole[: whole.index("</body>")]
    assert is_whole(whole) and not is_whole(cut)
    answer = pm_answer(cut) if exchange == "88" else post_answer(REPLY_FORM, cut, "reply")
    assert isinstance(answer, Unknown) and answer.why == "cut"


def test_what_a_cut_page_did_show_whole_still_counts() -> None:
    """The flood error, the PM's id in its refresh: they are whole where they stand."""
    flood = page("62")
    assert post_answer(REPLY_FORM, flood[: flood.index("</body>")], "reply") == RefusedForNow("flood", said("62"))
    sent = page("85")
    assert pm_answer(sent[: sent.index("<body")]) == Stored(69)
    assert post_answer(REPLY_FORM, "", "reply") == Unknown("", "cut")  # nothing at all came
