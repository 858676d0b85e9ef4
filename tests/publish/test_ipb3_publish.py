"""Publishing day 1 on the fake IPB 3.4 board (conformant to what IPB 3.4.6 answers, fixtures/ipb-real/ipb34),
with friendly URLs on (the install's default) and off: the new topic, the old one closed by the moderators' link,
the PMs as new conversations, each once, every id read from the board's silent redirects; the bot printed under a
display name other than his login name; the board's rules kept (the double-post guard, flood control naming the
seconds left, on the form and on its submission, invitations up to the group's limit, the 40-character subject);
faults after the board acted and crashes between steps never double a message."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from ipb_support import BOT_LOGIN, IpbPlayed, assert_ipb_published_once, ipb_played_day
from publish_support import (
    BOT,
    BOT_PASSWORD,
    CHECKPOINTS,
    DAY2_TITLE,
    FORUM,
    GAME,
    NOW,
    PUBLICATIONS,
    START,
    Crash,
    crash_at,
)

from fakeboard.ipb3 import Ipb3Server
from forumbot.errors import ForumError, MaybeSent, TooManyRecipients, UnknownRecipient
from forumbot.forum.client import ClientSettings
from forumbot.forum.http import HttpSettings, RefusedPage
from forumbot.forum.ipb3.answers import error_text as ipb3_error
from forumbot.forum.ipb3.answers import flood_wait as ipb3_flood_wait
from forumbot.forum.ipb3.answers import form_missing
from forumbot.forum.ipb3.pages import folder_recipients as ipb3_folder_recipients
from forumbot.forum.ipb3.pages import forum_of as ipb3_forum_of
from forumbot.forum.ipb3.pages import mod_link as ipb3_mod_link
from forumbot.forum.ipb3.pages import topic_closed as ipb3_topic_closed
from forumbot.forum.ipb3.reader import Ipb3Client
from forumbot.forum.ipb3.writer import CONVERSATION, FOLDER, Ipb3Poster
from forumbot.forum.markup import browser_fields, parse_html
from forumbot.forum.outcome import RefusedForGood, RefusedForNow
from forumbot.forum.registry import open_client, poster_for
from forumbot.host.outbox import Outbox, Preparing, markers_for, with_marker
from forumbot.host.publish import PublishReport, publish
from forumbot.store import Letter

WRITES = ("POST index.php#module=post", "POST index.php#do=send", "GET index.php#do=00")
SLOW = pytest.param(
    "slow", marks=pytest.mark.real_sleep(reason="the board answers after the client's real socket timeout (0.5 s)")
)
FAULTS = ("503", "429", "reset", SLOW)
MARK_A, MARK_B = "fbm00000000000000000000000a", "fbm00000000000000000000000b"
URLS = pytest.mark.parametrize("friendly", [True, False], ids=["friendly-urls", "plain-urls"])


@contextmanager
def ipb3_played_day(tmp_path: Path, **server: Any) -> Iterator[IpbPlayed]:
    """The Russian board on IPB 3.4 with day 1 played, dealt, drafted and approved."""
    with ipb_played_day(tmp_path, version=3, **server) as day:
        yield day


def assert_published_once(day: IpbPlayed) -> None:
    """Every post and PM of day 1's publication is on the board exactly once, each PM a conversation of its
    own, and the game moved on once."""
    assert_ipb_published_once(day)
    sent = day.board.pms_from(BOT)
    server = day.server
    assert isinstance(server, Ipb3Server)
    assert len({server.conversation_of(m.pm_id) for m in sent}) == len(sent)  # a conversation per letter


def run(day: IpbPlayed, point: str = "", seen: list[str] | None = None, **http: float) -> PublishReport:
    client = day.client(**http)
    return publish(day.store, GAME, client, NOW, poster=poster_for(client), checkpoint=crash_at(point, seen))


def fake(day: IpbPlayed) -> Ipb3Server:
    assert isinstance(day.server, Ipb3Server)
    return day.server


@URLS
def test_publish_on_ipb3_posts_closes_and_writes_each_once(tmp_path: Path, friendly: bool) -> None:
    with ipb3_played_day(tmp_path, friendly_urls=friendly) as day:
        seen: list[str] = []
        report = run(day, seen=seen)
        assert seen == CHECKPOINTS
        assert report.sent == PUBLICATIONS and (report.locked, report.new_day) == (True, 2)
        assert_published_once(day)
        game = day.store.game(GAME).id
        assert not day.store.pending(game)
        # every id is the one the board's redirect named: the topic's, and each conversation's first message
        [topic] = day.topics_titled(DAY2_TITLE)
        rows = day.store.outbox(game)
        assert [r["remote_id"] for r in rows if r["kind"] == "topic"] == [str(topic.topic_id)]
        letters = [row for row in rows if row["kind"] == "pm"]
        assert sorted(str(row["remote_id"]) for row in letters) == sorted(str(m.pm_id) for m in day.board.pms_from(BOT))
        assert not [r for r in day.server.requests if "folderID=myconvo" in r.query]  # no folder searched for them
        closing = [r for r in day.server.requests if "module=moderate" in r.query]
        assert len(closing) == 1 and closing[0].params["do"] == "00" and closing[0].method == "GET"


@URLS
def test_a_replys_id_is_read_from_its_redirect_and_the_bot_found_under_his_display_name(
    tmp_path: Path, friendly: bool
) -> None:
    with ipb3_played_day(tmp_path, friendly_urls=friendly) as day:
        client = day.client()
        poster = day.poster(client)
        topic = poster.post_topic(FORUM, "Мафия-1. День 9", f"текст {MARK_A}", marker=MARK_A)
        reply = poster.post_reply(topic, "", f"ответ {MARK_B}", marker=MARK_B)
        assert [p.post_id for p in day.board.posts_of(topic)] == [day.board.topic(topic).posts[0].post_id, reply]
        assert client.account == BOT != BOT_LOGIN
        assert poster.find_marker_in_topic(topic, MARK_B) == reply
        assert poster.find_marker_in_forum(FORUM, "Мафия-1. День 9", MARK_A) == topic
        posted = [r for r in day.server.requests if r.method == "POST" and "do=process" not in r.query]
        assert len(posted) == 2  # each made once: the answer named it, nothing was looked for or sent again


def test_a_rerun_after_publishing_sends_nothing(tmp_path: Path) -> None:
    with ipb3_played_day(tmp_path) as day:
        run(day)
        made = len(day.writes())
        with pytest.raises(Exception, match="day 2 has no draft"):
            run(day)
        assert len(day.writes()) == made
        assert_published_once(day)


@pytest.mark.parametrize("point", CHECKPOINTS[::2])
def test_a_crash_at_any_step_then_a_rerun_publishes_everything_once(tmp_path: Path, point: str) -> None:
    with ipb3_played_day(tmp_path) as day:
        with pytest.raises(Crash):
            run(day, point)
        report = run(day)
        assert_published_once(day)
        assert report.new_day == 2


@pytest.mark.parametrize("where", WRITES)
@pytest.mark.parametrize("fault", FAULTS)
def test_a_write_the_board_made_before_its_answer_failed_is_not_made_twice(
    tmp_path: Path, where: str, fault: str
) -> None:
    with ipb3_played_day(tmp_path) as day:
        day.server.slow_for = 1.5
        day.server.fail_after_acting(where, fault)
        for _ in range(8):
            try:
                run(day, timeout=0.5, deadline=1.0)
                break
            except ForumError:
                continue
        assert_published_once(day)


def test_the_double_post_guard_is_kept_clear_and_flood_control_waited_out(tmp_path: Path) -> None:
    with ipb3_played_day(tmp_path, flood_interval=20.0) as day:
        poster = day.poster()
        topic = poster.post_topic(FORUM, "Флуд", f"первое {MARK_A}", marker=MARK_A)
        reply = poster.post_reply(topic, "", f"второе {MARK_B}", marker=MARK_B)
        first, second = day.board.posts_of(topic)
        assert (first.post_id, second.post_id) == (day.board.topic(topic).posts[0].post_id, reply)
        assert (second.time - first.time).total_seconds() >= 20.0  # the board's answer was waited out
        refused = [r for r in day.server.requests if "do=reply_post" in r.query and r.method == "GET"]
        assert len(refused) == 2  # the reply's form refused by flood control once, then served


def test_a_post_inside_the_double_post_window_is_not_believed_the_marker_decides(tmp_path: Path) -> None:
    """Without the gap kept, the board's guard answers the second topic with the first one: its first post is
    not this one, its marker is nowhere, so it is maybe sent and nothing is sent again; a later run sends it."""
    with ipb3_played_day(tmp_path) as day:
        poster = day.poster(min_gap=0.0)
        first = poster.post_topic(FORUM, "Первая", f"раз {MARK_A}", marker=MARK_A)
        with pytest.raises(MaybeSent, match="proves nothing"):
            poster.post_topic(FORUM, "Вторая", f"два {MARK_B}", marker=MARK_B)
        assert not day.topics_titled("Вторая") and len(day.topics_titled("Первая")) == 1
        day.clock.advance(10)
        second = poster.post_topic(FORUM, "Вторая", f"два {MARK_B}", marker=MARK_B)
        assert second != first and len(day.topics_titled("Вторая")) == 1


def test_flood_control_between_conversations_is_waited_out(tmp_path: Path) -> None:
    with ipb3_played_day(tmp_path, pm_flood_interval=30.0) as day:
        poster = day.poster()
        one = poster.send_pm(["Alice"], "первое", f"текст {MARK_A}", marker=MARK_A)
        two = poster.send_pm(["Charlie"], "второе", f"текст {MARK_B}", marker=MARK_B)
        sent = sorted(day.board.pms_from(BOT), key=lambda m: m.pm_id)
        assert [m.pm_id for m in sent] == [one, two]
        assert (sent[1].time - sent[0].time).total_seconds() >= 30.0


def test_the_outbox_sends_queued_conversations_one_by_one_without_preparing_them(tmp_path: Path) -> None:
    with ipb3_played_day(tmp_path, pm_flood_interval=30.0) as day:
        poster = day.poster()
        assert not isinstance(poster, Preparing)  # IPB 3's form has no age rule to overlap
        game = day.store.game(GAME).id
        marks = markers_for(day.store.marker_key(game))
        names = ["Alice", "Charlie", "Dana_99"]
        letters = [Letter(marks(to), "pm", [to], f"{to}: receipt", with_marker("текст", marks(to))) for to in names]
        day.store.queue(game, letters)
        assert [d.how for d in Outbox(day.store, game, poster).flush()] == ["sent"] * 3
        sent = sorted(day.board.pms_from(BOT), key=lambda m: m.pm_id)
        assert [(m.subject, tuple(m.recipients)) for m in sent] == [(x.subject, tuple(x.recipients)) for x in letters]
        assert all((b.time - a.time).total_seconds() >= 30.0 for a, b in zip(sent, sent[1:], strict=False))


def test_a_lock_refused_is_reported_and_publishing_goes_on(tmp_path: Path) -> None:
    with ipb3_played_day(tmp_path, bot_moderator=False) as day:
        report = run(day)
        assert report.locked is False and any("lock" in note for note in report.notes)
        assert not day.board.topic(day.day1_topic).locked
        assert len(day.topics_titled(DAY2_TITLE)) == 1


def test_one_recipient_per_conversation_and_an_unknown_one_is_its_own_error(tmp_path: Path) -> None:
    with ipb3_played_day(tmp_path) as day:
        poster = day.poster()
        with pytest.raises(TooManyRecipients) as many:
            poster.send_pm(["Alice", "Charlie"], "тема", "текст")
        assert many.value.limit == 1
        with pytest.raises(UnknownRecipient, match="Nobody"):
            poster.send_pm(["Nobody"], "тема", "текст письма")
        assert day.board.pms_from(BOT) == []


def test_a_long_subject_is_cut_as_the_form_cuts_it_and_the_pm_still_found(tmp_path: Path) -> None:
    with ipb3_played_day(tmp_path) as day:
        poster = day.poster()
        subject = "Очень длинная тема личного сообщения, длиннее сорока знаков"
        pm_id = poster.send_pm(["Alice"], subject, f"текст {MARK_A}", marker=MARK_A)
        [sent] = day.board.pms_from(BOT)
        assert sent.subject == subject[:40] and pm_id == sent.pm_id
        assert poster.find_marker_in_sent(MARK_A, subject=subject, recipients=["Alice"]) == pm_id
        assert poster.find_marker_in_sent(MARK_A, recipients=["Charlie"]) is None
        # a reply by the recipient does not hide the letter: the conversation's first message holds it
        fake(day).reply_in_conversation(fake(day).conversation_of(pm_id), "Alice", "ответ")
        assert poster.find_marker_in_sent(MARK_A, recipients=["Alice"]) == pm_id


def test_poster_for_an_ipb3_client_is_the_ipb3_poster(tmp_path: Path) -> None:
    with ipb3_played_day(tmp_path) as day:
        assert isinstance(poster_for(day.client()), Ipb3Poster)


def test_a_reply_through_the_conversation_form_reaches_the_bot_as_its_own_message(tmp_path: Path) -> None:
    with ipb3_played_day(tmp_path) as day:
        poster = day.poster()
        first = poster.send_pm(["Alice"], "Роль", f"Ваша роль {MARK_A}", marker=MARK_A)
        assert first is not None
        conversation = fake(day).conversation_of(first)
        alice = day.client("Alice", "Alice-secret")
        page = alice.http.get(alice.http.url(f"{CONVERSATION}{conversation}"))
        form = next(f for f in parse_html(page.text).iter("form") if "do=sendReply" in (f.get("action") or ""))
        fields = [
            (k, "Проверяю — Charlie" if k == "msgContent" else v) for k, v in browser_fields(form, press="submit")
        ]
        alice.http.post(alice.http.rebase(form.get("action") or ""), fields, content=True)
        held = fake(day).conversation(conversation)
        assert len(held.messages) == 2 and held.participants == (BOT, "Alice")
        reply = day.board.pm(held.messages[1])
        assert (reply.sender, reply.recipients, reply.body) == ("Alice", (BOT,), "Проверяю — Charlie")
        inbox = day.client().fetch_inbox()
        [found] = [m for m in inbox if m.pm_id == reply.pm_id]
        assert found.conversation_id == conversation and found.sender == "Alice"
        assert first not in {m.pm_id for m in inbox}  # the bot's own message is not in his inbox


def test_a_topic_url_of_an_ipb3_board_opens_an_ipb3_client_and_its_poster(tmp_path: Path) -> None:
    with ipb3_played_day(tmp_path) as day:
        url = f"{day.server.url}index.php?showtopic={day.day1_topic}"
        settings = ClientSettings(
            forum=url, username=BOT_LOGIN, password=BOT_PASSWORD, http=HttpSettings(min_interval=0)
        )
        client = open_client(settings, clock=day.clock)
        day.clients.append(client)  # type: ignore[arg-type]
        assert isinstance(client, Ipb3Client) and isinstance(poster_for(client), Ipb3Poster)


def real_page(name: str) -> str:
    return (Path(__file__).resolve().parents[2] / "fixtures" / "ipb3" / f"{name}.html").read_text("utf-8")


def test_the_real_pages_read_as_the_poster_reads_them() -> None:
    topic = real_page("ipb346_topic_rel1")
    assert not ipb3_topic_closed(topic) and ipb3_forum_of(topic) == 14
    assert ipb3_error(topic) is None and ipb3_flood_wait(topic) is None
    assert ipb3_folder_recipients(real_page("ipb346_pm_folder")) == {80: ["Winnie"], 81: ["Ведущий"]}
    refused = real_page("no_permission")
    said = "У вас нет прав для просмотра этой темы."
    assert ipb3_error(refused) == said and ipb3_flood_wait(refused) is None
    assert form_missing(refused) == RefusedForGood(said, "no_permission")


def test_the_fake_boards_closed_topic_and_flood_page_read_as_closed_and_flood(tmp_path: Path) -> None:
    with ipb3_played_day(tmp_path, flood_interval=60.0) as day:
        poster = day.poster()
        assert ipb3_mod_link(day.client().http.get(f"{day.server.url}index.php?showtopic=1").text, "00")
        assert poster.lock_topic(day.day1_topic).locked and poster.lock_topic(day.day1_topic).already
        page = day.client().http.get(f"{day.server.url}index.php?showtopic={day.day1_topic}")
        assert ipb3_topic_closed(page.text) and ipb3_mod_link(page.text, "01") and not ipb3_mod_link(page.text, "00")
        poster.post_topic(FORUM, "итог", "итог")
        with pytest.raises(RefusedPage) as flood:
            day.client().http.get(
                f"{day.server.url}index.php?app=forums&module=post&section=post&do=new_post&f={FORUM}"
            )
        assert flood.value.page.status == 403 and 55 <= (ipb3_flood_wait(flood.value.page.text) or 0) <= 60
        waited = form_missing(flood.value.page.text)
        assert isinstance(waited, RefusedForNow) and waited.why == "flood" and 55 <= (waited.wait or 0) <= 60


def test_invited_recipients_share_one_conversation_up_to_the_groups_limit(tmp_path: Path) -> None:
    with ipb3_played_day(tmp_path, invites=2) as day:
        poster = day.poster()
        first = poster.send_pm(["Alice", "Charlie", "Dana_99"], "Клан", f"Вы в одном клане {MARK_A}", marker=MARK_A)
        assert first is not None
        held = fake(day).conversation(fake(day).conversation_of(first))
        assert held.participants == (BOT, "Alice", "Charlie", "Dana_99") and held.messages == [first]
        with pytest.raises(TooManyRecipients) as many:
            poster.send_pm(["Alice", "Charlie", "Dana_99", "Шарик"], "Клан", "текст")
        assert many.value.limit == 3 and len(day.board.pms_from(BOT)) == 1


def test_a_pms_exact_time_is_read_from_the_quote_its_reply_form_makes(tmp_path: Path) -> None:
    with ipb3_played_day(tmp_path) as day:
        sent = START + timedelta(hours=5, minutes=7, seconds=42)
        first = day.board.send_pm("Alice", BOT, "Приказ", "Проверяю — Charlie", sent)
        client = day.client()
        assert any(m.pm_id == first for m in client.fetch_inbox())
        assert client.exact_pm_time(first) == sent


def test_the_fake_boards_long_topic_and_long_conversation_are_read_whole(tmp_path: Path) -> None:
    with ipb3_played_day(tmp_path) as day:
        for k in range(23):
            day.board.add_post(day.day1_topic, "Alice", f"пост {k}", START + timedelta(hours=3, minutes=k))
        first = day.board.send_pm(BOT, "Alice", "Роль", "Ваша роль", START)
        conversation = fake(day).conversation_of(first)
        for k in range(24):
            fake(day).reply_in_conversation(conversation, "Alice", f"ответ {k}", START + timedelta(minutes=k + 1))
        client = day.client()
        pages = list(client.fetch_topic(day.day1_topic))
        posts = [p for page in pages for p in page.posts]
        assert len(pages) > 1 and pages[0].page_param == "page"
        assert len(posts) == len(day.board.posts_of(day.day1_topic))
        replies = [m for m in client.fetch_inbox() if m.conversation_id == conversation]
        assert [m.pm_id for m in replies] == fake(day).conversation(conversation).messages[1:]
        [second] = [r for r in day.server.requests if f"topicID={conversation}" in r.query and "st=20" in r.query]
        assert "showConversation" in second.query  # the conversation's second page, by its own next link


def field_names(html: str, pick: Callable[[Any], bool]) -> list[str]:
    form = next(f for f in parse_html(html).iter("form") if pick(f))
    return [name for name, _ in browser_fields(form)]


def marks(html: str) -> set[str]:
    """The markup the readers and the poster rely on, as found on a page."""
    root = parse_html(html)
    found = {f"{el.tag}.{c}" for el in root.iter() if isinstance(el.tag, str) for c in (el.get("class") or "").split()}
    found |= {f"#{el.get('id')}" for el in root.iter() if isinstance(el.tag, str) and el.get("id") in KEY_IDS}
    return found


KEY_IDS = {"ipboard_body", "conversation", "message_table", "modform", "ips_Posts", "messenger_content"}
TOPIC_MARKS = {"div.post_block", "span.author", "span.vcard", "abbr.published", "div.entry-content", "p.posted_info",
               "div.pagination", "li.pagejump", "li.next", "ul.topic_buttons", "#ips_Posts", "#modform"}  # fmt: skip
FOLDER_MARKS = {"#message_table", "td.col_m_subject", "td.col_m_replies", "td.col_f_post", "ul.last_post", "li.desc"}
CONVERSATION_MARKS = {"#conversation", "div.post_block", "p.posted_info", "div.entry-content", "span.vcard"}


def test_the_fake_boards_pages_carry_the_markup_of_the_real_ones(tmp_path: Path) -> None:
    with ipb3_played_day(tmp_path) as day:
        for k in range(12):
            day.board.add_post(day.day1_topic, "Alice", f"пост {k}", START + timedelta(hours=3, minutes=k))
        first = day.board.send_pm(BOT, "Alice", "Роль", "Ваша роль", START)
        conversation = fake(day).conversation_of(first)
        fake(day).reply_in_conversation(conversation, "Alice", "ответ", START + timedelta(minutes=1))
        http = day.client().http
        topic = http.get(f"{day.server.url}index.php?showtopic={day.day1_topic}").text
        folder = http.get(http.url(FOLDER)).text
        talk = http.get(http.url(f"{CONVERSATION}{conversation}")).text
    for ours, real, wanted in (
        (topic, real_page("ipb346_topic_modview"), TOPIC_MARKS),
        (folder, real_page("ipb346_pm_folder"), FOLDER_MARKS),
        (talk, real_page("ipb346_pm_conversation"), CONVERSATION_MARKS),
    ):
        assert wanted <= marks(real) and wanted <= marks(ours) and "#ipboard_body" in marks(ours)
    modform = lambda f: f.get("id") == "modform"  # noqa: E731
    replying = lambda f: "do=sendReply" in (f.get("action") or "")  # noqa: E731
    assert field_names(topic, modform) == field_names(real_page("ipb346_topic_modview"), modform)
    assert set(field_names(real_page("ipb346_pm_conversation"), replying)) <= set(field_names(talk, replying))
