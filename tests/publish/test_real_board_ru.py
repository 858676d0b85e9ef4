"""Writing to the real Russian phpBB board, replayed from its captured exchanges (`replay_ru.py`): every
form goes back as the board served it, the confirm box gets its own "Да", a lock the board did not make
is seen as not made, PMs stay within the recipient limit, and the board's own texts are recognised."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from publish_support import FakeClock
from replay_ru import BASE, BOT, PASSWORD, Replay, page

from forumbot.errors import ConfigError, ForumError, MaybeSent, TooManyRecipients
from forumbot.forum.http import HttpSettings
from forumbot.forum.phpbb.answers import FLOOD as _FLOOD
from forumbot.forum.phpbb.answers import FORM_INVALID as _FORM_INVALID
from forumbot.forum.phpbb.answers import NO_USERS as _NO_USERS
from forumbot.forum.phpbb.answers import TOO_MANY as _TOO_MANY
from forumbot.forum.phpbb.answers import (
    form_error,
    forum_message,
    sent_pm_id,
)
from forumbot.forum.phpbb.forms import addressed_recipients, confirm_form
from forumbot.forum.phpbb.reader import PhpbbClient
from forumbot.forum.phpbb.writer import PhpbbPoster


@pytest.fixture
def replay() -> Replay:
    return Replay()


@pytest.fixture
def poster(replay: Replay) -> PhpbbPoster:
    client = PhpbbClient(
        BASE,
        username=BOT,
        password=PASSWORD,
        settings=HttpSettings(min_interval=0, concurrency=1),
        clock=FakeClock(1_796_115_400.0),
        transport=replay.transport(),
    )
    return PhpbbPoster(client, flood_interval=2)


# -- the board's own texts, as the real pages print them ----------------------------------------------


@pytest.mark.parametrize(
    ("exchange", "pattern"),
    [
        ("62", _FLOOD),
        ("86", _FLOOD),
        ("63", _FORM_INVALID),
        ("64", _FORM_INVALID),
        ("87", _TOO_MANY),
        ("88", _TOO_MANY),
    ],
)
def test_the_answers_matched_are_the_real_boards_words(exchange: str, pattern: re.Pattern[str]) -> None:
    error = form_error(page(exchange))
    assert error is not None and pattern.search(error)
    for other in {_FLOOD, _FORM_INVALID, _TOO_MANY, _NO_USERS} - {pattern}:
        assert not other.search(error)


def test_english_texts_of_the_same_answers() -> None:
    assert _FLOOD.search("You cannot make another post so soon after your last.")
    assert _FORM_INVALID.search("The submitted form was invalid. Try submitting again.")
    assert _TOO_MANY.search("You tried to send a private message to too many recipients.")
    assert _NO_USERS.search("The requested users to be added do not exist.")


def test_unknown_recipient_text_and_the_recipient_lists() -> None:
    assert _NO_USERS.search(form_error(page("89")) or "")
    assert addressed_recipients(page("84")) == {60: "Вера"}
    assert addressed_recipients(page("90")) == {60: "Вера"}  # the unknown name dropped without a word
    assert list(addressed_recipients(page("87"))) == [60, 61, 62, 63, 64]  # the first five kept


def test_confirm_box_is_answered_with_its_own_button() -> None:
    action, fields = confirm_form(page("73")) or ("", [])
    assert "confirm_key=9CMLGBVWEP" in action
    assert ("confirm", "Да") in fields and ("cancel", "Нет") not in fields
    assert ("topic_id_list[0]", "8") in fields and ("confirm_uid", "58") in fields
    _, english = confirm_form(page("79")) or ("", [])
    assert ("confirm", "Yes") in english


def test_a_sent_pm_is_known_by_its_id_not_by_its_words() -> None:
    assert sent_pm_id(page("85")) == 69
    assert "успешно отправлено" in (forum_message(page("85")) or "")


MARKER = "fbm0123456789abcdef01234567"


# -- the flows --------------------------------------------------------------------------------------


def test_login_sends_the_form_as_served_with_the_localised_button(poster: PhpbbPoster, replay: Replay) -> None:
    poster.client.login()
    login = next(form for method, url, form in replay.requests if method == "POST" and "mode=login" in url)
    assert ("login", "Вход") in login
    assert [name for name, _ in login].count("redirect") == 2  # both, as a browser sends them
    assert not replay.problems


def test_lock_presses_da_and_checks_the_topic(poster: PhpbbPoster, replay: Replay) -> None:
    result = poster.lock_topic(8, 3)
    assert result.locked and not result.already
    assert replay.locked and not replay.problems
    confirm = next(form for method, url, form in replay.requests if method == "POST" and "mcp.php" in url)
    assert ("confirm", "Да") in confirm


def test_an_already_locked_topic_is_locked_and_nothing_is_asked(poster: PhpbbPoster, replay: Replay) -> None:
    replay.locked = True
    result = poster.lock_topic(8, 3)
    assert result.locked and result.already
    assert not any("mcp.php" in url for _, url, _ in replay.requests)


def test_a_lock_the_board_did_not_make_is_reported_not_believed(poster: PhpbbPoster, replay: Replay) -> None:
    replay.used_keys.add("9CMLGBVWEP")  # the board redirects silently, as for a wrong "yes"
    result = poster.lock_topic(8, 3)
    assert not result.locked and result.reason
    assert not result.refused  # the board said nothing of the account's rights: it may be tried again
    assert not replay.locked


def test_a_reply_as_served_after_someone_replied_meanwhile(poster: PhpbbPoster, replay: Replay) -> None:
    replay.review_once = True
    assert poster.post_reply(10, "", "Ответ бота") == 74
    assert replay.posts == [("Re: Тест захвата: ошибки отправки", "Ответ бота")]
    assert not replay.problems  # the second POST carried the review page's own tokens


def test_flood_and_an_invalid_form_are_waited_out_with_a_fresh_form(poster: PhpbbPoster, replay: Replay) -> None:
    replay.flood_once = replay.invalid_once = True
    assert poster.post_topic(3, "День 2", f"Текст\n{MARKER}", marker=MARKER) == 7
    assert replay.posts == [("День 2", f"Текст\n{MARKER}")] and not replay.problems
    posts = [form for method, url, form in replay.requests if method == "POST" and "posting.php" in url]
    assert len(posts) == 3 and all(("post", "Отправить") in form for form in posts)
    # the invalid form may hide a request stored on the way: the forum was looked at before the next one
    looked = [n for n, (method, url, _) in enumerate(replay.requests) if method == "GET" and "viewforum.php" in url]
    submitted = [n for n, (method, url, _) in enumerate(replay.requests) if method == "POST" and "posting.php" in url]
    assert looked and submitted[0] < looked[0] < submitted[1]


def test_an_invalid_form_without_a_marker_to_look_for_is_not_sent_again(poster: PhpbbPoster, replay: Replay) -> None:
    replay.invalid_once = True
    with pytest.raises(MaybeSent, match="no marker to look for"):
        poster.post_topic(3, "День 2", "Текст")
    assert replay.posts == []


def test_a_pm_in_two_steps_with_the_boards_buttons(poster: PhpbbPoster, replay: Replay) -> None:
    replay.flood_once = True
    assert poster.send_pm(["Вера"], "Мафия: ваша роль", "Вы — шериф.") == 69
    assert replay.sent_pms == [([60], "Мафия: ваша роль", "Вы — шериф.")]
    assert not replay.problems
    adds = [form for method, url, form in replay.requests if method == "POST" and ("add_to", "Добавить") in form]
    assert len(adds) == 2  # the flood refusal is answered with a fresh form, addressed again


def test_more_recipients_than_the_board_takes_send_nothing(poster: PhpbbPoster, replay: Replay) -> None:
    names = ["Вера", "Bepa", "Дядя Фёдор", "Кот_Матроскин", "Ёжик в тумане", "Mr. Pink"]
    with pytest.raises(TooManyRecipients) as refused:
        poster.send_pm(names, "s", "m")
    assert refused.value.limit == 5
    assert replay.sent_pms == []


def test_an_unknown_name_beside_a_known_one_is_not_dropped_silently(poster: PhpbbPoster, replay: Replay) -> None:
    with pytest.raises(ForumError, match="Гендальф"):
        poster.send_pm(["Вера", "Гендальф"], "s", "m")
    assert replay.sent_pms == []


def test_the_date_format_is_changed_through_the_form_as_served(poster: PhpbbPoster, replay: Replay) -> None:
    assert poster.client.preferences().dateformat == "|d M Y|, H:i"
    after = poster.set_date_format("d.m.Y H:i:s")
    assert after.dateformat == "d.m.Y H:i:s" and after.tz == "Europe/Moscow" and after.lang == "ru"
    assert not replay.problems
    sent = next(form for method, url, form in replay.requests if method == "POST" and "ucp_prefs" in url)
    assert ("dateoptions", "custom") in sent and ("dateformat", "d.m.Y H:i:s") in sent


def _client(replay: Replay, tz: str | None) -> PhpbbClient:
    return PhpbbClient(
        BASE,
        username=BOT,
        password=PASSWORD,
        settings=HttpSettings(min_interval=0, concurrency=1),
        clock=FakeClock(1_796_115_400.0),
        transport=replay.transport(),
        tz=tz,
    )


def test_a_config_zone_that_contradicts_the_board_is_refused_naming_both(replay: Replay) -> None:
    client = _client(replay, "UTC")
    with pytest.raises(ConfigError) as refused:
        client.fetch_inbox()
    assert "UTC" in str(refused.value) and "Europe/Moscow" in str(refused.value)


def test_without_a_config_zone_the_boards_zone_reads_the_dates(replay: Replay) -> None:
    client = _client(replay, None)
    older = next(row for row in client.fetch_inbox() if row.time_text == "29 ноя 2026, 18:24")
    assert older.time is not None and older.time.utcoffset() == timedelta(hours=3)
    assert older.time.astimezone(UTC).hour == 15  # 18:24 in Moscow
    assert _client(replay, "Europe/Moscow").fetch_inbox()  # the same zone, named: accepted


def test_the_exact_time_of_a_pm_comes_from_its_quote_form(replay: Replay) -> None:
    exact = _client(replay, None).exact_pm_time(67)
    assert exact == datetime.fromtimestamp(1796114954, UTC)


@pytest.mark.parametrize("status", [503, 429, 500])
def test_a_post_the_board_made_and_then_failed_is_found_by_its_marker(
    poster: PhpbbPoster, replay: Replay, status: int
) -> None:
    replay.act_then_fail = status
    assert poster.post_reply(10, "", f"Подсчёт голосов\n{MARKER}", marker=MARKER) == 63  # found, not sent again
    assert len(replay.posts) == 1


@pytest.mark.parametrize("status", [503, 500])
def test_without_a_marker_a_post_that_may_have_been_made_is_not_sent_again(
    poster: PhpbbPoster, replay: Replay, status: int
) -> None:
    replay.act_then_fail = status
    with pytest.raises(MaybeSent, match="may have acted"):
        poster.post_reply(10, "", "Без маркера")
    assert len(replay.posts) == 1


def test_a_pm_the_board_sent_and_then_failed_is_not_sent_twice(poster: PhpbbPoster, replay: Replay) -> None:
    replay.act_then_fail = 503
    with pytest.raises(MaybeSent, match="may have acted"):
        poster.send_pm(["Вера"], "s", "m")
    assert len(replay.sent_pms) == 1
