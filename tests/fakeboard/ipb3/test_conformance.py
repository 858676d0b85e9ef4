"""Every captured exchange of IPB 3.4.6 (fixtures/ipb-real/ipb34/: what its templates print and its handlers
answer), replayed on the fake IPB 3: the fake is driven into the captured situation (the bot logged in or a
guest, flood control, a closed topic, a forum closed to posting, the group's invitations, friendly URLs on as a
fresh install has them, off for the topic page the capture shows) and must answer as the capture: the status,
the redirect's shape, and what the captured template shows (its forms field by field with their buttons and
hidden fields, the error box and its code, the form's error box, the heading; the topic page's moderators'
links, permalinks and post anchors)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from ipb3_capture import (
    BOT,
    FORUM,
    NEW_TITLE,
    NOW,
    PASSWORDS,
    SEAPORT_TOPIC,
    TOPIC,
    answer_of,
    board,
    captured,
    index,
    page,
)
from lxml import html

from fakeboard.clock import FakeClock
from fakeboard.ipb3 import Ipb3Server

UA = "Mozilla/5.0 (X11; Linux x86_64) conformance"


class Stage:
    """The fake IPB 3 set up as the captured boards, on a clock of its own, with browsers that log in through
    its sign-in form."""

    def __init__(self, **server: Any) -> None:
        self.clock = FakeClock(NOW.timestamp())
        self.board = board()
        self.server = Ipb3Server(self.board, clock=self.clock, posts_per_page=12, **server).start()
        self.clients: list[httpx.Client] = []

    def close(self) -> None:
        for client in self.clients:
            client.close()
        self.server.stop()
        assert not self.server.errors, self.server.errors[0]

    def browser(self, account: str | None = BOT) -> httpx.Client:
        client = httpx.Client(base_url=self.server.url, headers={"User-Agent": UA}, follow_redirects=False)
        self.clients.append(client)
        if account is not None:
            served = client.get("index.php?app=core&module=global&section=login").text
            answer = self.submit(client, served, "login", {"ips_username": account, "ips_password": PASSWORDS[account]})
            assert answer.status_code == 302, account
        return client

    def submit(self, client: httpx.Client, served: str, form_id: str, values: dict[str, str]) -> httpx.Response:
        """The page's form sent as a browser sends it: its fields in order, `values` typed in, its send
        button (the first) pressed, multipart when its enctype says so."""
        form = html.fromstring(served).xpath(f'//form[@id="{form_id}"]')[0]
        fields: list[tuple[str, str]] = []
        pressed = False
        for el in form.iter("input", "textarea", "select"):
            name, kind = el.get("name"), el.get("type")
            if not name:
                continue
            if kind == "submit":
                if not pressed:
                    fields.append((name, el.get("value", "")))
                    pressed = True
            elif kind == "checkbox":
                if el.get("checked") is not None:
                    fields.append((name, el.get("value", "")))
            elif el.tag == "select":
                fields.append((name, el.xpath(".//option")[0].get("value")))
            else:
                fields.append((name, values.get(name, el.text or "" if el.tag == "textarea" else el.get("value", ""))))
        action = form.get("action").replace(self.server.url, "")
        if form.get("enctype") == "multipart/form-data":
            return client.post(action, files={name: (None, value) for name, value in fields})
        return client.post(action, data=dict(fields))

    def send(self, client: httpx.Client, exchange: str) -> httpx.Response:
        return client.get(index()[exchange]["url"].lstrip("/"))


POSTING = "index.php?app=forums&module=post&section=post&do={}&f={}"
NEW_TOPIC = POSTING.format("new_post", FORUM)
REPLY = POSTING.format("reply_post", FORUM) + f"&t={TOPIC}"
COMPOSE = "index.php?app=members&module=messaging&section=send&do=form"

Scenario = Callable[[Stage, str], httpx.Response]
SCENARIOS: dict[str, tuple[Scenario, dict[str, Any]]] = {}


def scenario(*exchanges: str, **server: Any) -> Callable[[Scenario], Scenario]:
    def register(play: Scenario) -> Scenario:
        for exchange in exchanges:
            SCENARIOS[f"ipb34-{exchange}"] = (play, server)
        return play

    return register


@scenario("01")
def the_sign_in_page(stage: Stage, exchange: str) -> httpx.Response:
    return stage.send(stage.browser(None), exchange)


@scenario("02")
def a_sign_in(stage: Stage, exchange: str) -> httpx.Response:
    client = stage.browser(None)
    served = client.get("index.php?app=core&module=global&section=login").text
    return stage.submit(client, served, "login", {"ips_username": BOT, "ips_password": PASSWORDS[BOT]})


@scenario("03", "04")
@scenario("12", invites=5)
@scenario("10", posting_refused=frozenset({FORUM}))
def a_form_asked_for(stage: Stage, exchange: str) -> httpx.Response:
    return stage.send(stage.browser(), exchange)


@scenario("09")
def the_reply_form_of_a_closed_topic(stage: Stage, exchange: str) -> httpx.Response:
    stage.board.lock_topic(TOPIC)
    return stage.send(stage.browser(), exchange)


@scenario("11")
def a_members_page_asked_for_by_a_guest(stage: Stage, exchange: str) -> httpx.Response:
    return stage.send(stage.browser(None), exchange)


@scenario("05")
def a_new_topic(stage: Stage, exchange: str) -> httpx.Response:
    client = stage.browser()
    return stage.submit(client, client.get(NEW_TOPIC).text, "postingform", {"TopicTitle": NEW_TITLE, "Post": "Итоги."})


@scenario("06")
def a_reply(stage: Stage, exchange: str) -> httpx.Response:
    client = stage.browser()
    return stage.submit(client, client.get(REPLY).text, "postingform", {"Post": "Напоминание."})


@scenario("07", flood_interval=30)
def a_reply_too_soon(stage: Stage, exchange: str) -> httpx.Response:
    """A reply, then 5 s later another one whose form was asked for before: 25 seconds left."""
    client = stage.browser()
    served = client.get(REPLY).text
    stage.submit(client, client.get(REPLY).text, "postingform", {"Post": "Раньше."})
    stage.clock.advance(5)
    return stage.submit(client, served, "postingform", {"Post": "Напоминание."})


@scenario("08")
def a_reply_with_a_stale_form_hash(stage: Stage, exchange: str) -> httpx.Response:
    client = stage.browser()
    served = client.get(REPLY).text.replace(stage.server.auth_key(stage.board.user(BOT)), "1" * 32)
    return stage.submit(client, served, "postingform", {"Post": "Напоминание."})


@scenario("13", "14", "15", invites=5)
def a_conversation_sent(stage: Stage, exchange: str) -> httpx.Response:
    """To a name no member has, to Лиса, and to Лиса with six invited (the group takes five)."""
    client = stage.browser()
    names = {
        "ipb34-13": ("Лисса", ""),
        "ipb34-14": ("Лиса", ""),
        "ipb34-15": ("Лиса", "Зося, Остап, Козлевич, A, B, C"),
    }
    name, invited = names[exchange]
    values = {"entered_name": name, "inviteUsers": invited, "msg_title": "Мафия-9: ваша роль", "Post": "Ваша роль."}
    return stage.submit(client, client.get(COMPOSE).text, "msgForm", values)


@scenario("16", friendly_urls=False)
def the_topic_page(stage: Stage, exchange: str) -> httpx.Response:
    return stage.send(stage.browser(), exchange)


@scenario("17")
def the_topic_closed(stage: Stage, exchange: str) -> httpx.Response:
    """The topic page's moderators' link that closes it, followed."""
    client = stage.browser()
    served = html.fromstring(client.get(f"index.php?showtopic={SEAPORT_TOPIC}").text)
    return client.get(served.xpath('//a[@class="modlink_00"]/@href')[0].replace(stage.server.url, ""))


@pytest.fixture
def stage(request: pytest.FixtureRequest) -> Iterator[Stage]:
    staged = Stage(**SCENARIOS[request.param][1])
    yield staged
    staged.close()


def test_every_exchange_is_replayed() -> None:
    assert sorted(SCENARIOS) == sorted(index())


@pytest.mark.parametrize(("stage", "exchange"), [(e, e) for e in sorted(index())], indirect=["stage"], ids=str)
def test_the_fake_answers_as_captured(stage: Stage, exchange: str) -> None:
    answer = SCENARIOS[exchange][0](stage, exchange)
    ours = answer_of(answer.status_code, answer.headers.get("Location"), answer.text, page(exchange))
    theirs = captured(exchange)
    assert ours == theirs
