"""Every captured exchange of IPB 2.2.2 (fixtures/ipb-real/ipb22/, answers its own handlers printed), replayed on
the fake IPB 2: the fake is driven into the captured situation (the board as it stood, the bot logged in or its
session dead, flood control, the group's copies, a closed topic, the form fetched and sent back with the captured
fields) and must answer as the capture: the status, the redirect's shape, the content type, the cookies, every
named form (its fields in order, its buttons, a nameless one included, its hidden fields, its choices), the error
box, the post's errors, the preview, the redirect screen and its refresh, the text kept, the log-in box, the
member bar, the navigation, the posts listed."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import urlencode

import httpx
import pytest
from ipb2_capture import BOT, FORUM, NOW, PASSWORDS, TOPIC, answer_of, board, captured, index
from lxml import html

from fakeboard.clock import FakeClock
from fakeboard.ipb2 import Ipb2Server

UA = "Mozilla/5.0 (X11; Linux x86_64) conformance"
FORGED = "1" * 32  # the stale auth_key the capture sent


class Stage:
    """The fake IPB 2 set up as the captured board, on a clock of its own, with browsers that log in through
    its login form."""

    def __init__(self, **server: Any) -> None:
        self.clock = FakeClock(NOW.timestamp())
        self.board = board()
        self.server = Ipb2Server(self.board, charset="windows-1251", clock=self.clock, posts_per_page=10, **server)
        self.server.start()
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
            self.send_form(client, client.get("index.php?act=Login&CODE=00").text, "LOGIN",
                           {"UserName": account, "PassWord": PASSWORDS[account], "CookieDate": "1"})  # fmt: skip
            assert client.cookies.get("member_id"), account
        return client

    def send_form(self, client: httpx.Client, text: str, name: str, values: dict[str, str]) -> httpx.Response:
        form = html.fromstring(text).xpath(f'//form[@name="{name}"]')[0]
        data = {el.get("name"): el.get("value", "") for el in form.iter("input") if el.get("type") == "hidden"}
        return client.post(form.get("action").replace(self.server.url, ""), content=_encoded(data | values),
                           headers=FORM)  # fmt: skip

    def send(self, client: httpx.Client, exchange: str, served: str | None = None) -> httpx.Response:
        """The exchange's request: its URL, and for a POST the captured fields in their order, those made anew
        for each form (`auth_key`, `attach_post_key`) taken from the page that `served` the form."""
        entry = index()[exchange]
        url = entry["url"].lstrip("/")
        if entry["method"] == "GET":
            return client.get(url)
        fresh = _hidden(served) if served is not None else {}
        fields = []
        for name, value in entry["form"]:
            if name in ("auth_key", "attach_post_key") and name in fresh and value != FORGED:
                value = fresh[name]
            elif value == "<password>":
                value = "wrong" if exchange == "ipb22-03" else PASSWORDS[BOT]
            fields.append((name, value))
        return client.post(url, content=_encoded(fields), headers=FORM)

    def post_reply(self, client: httpx.Client, text: str) -> None:
        """A reply of the bot's through the forms, as the bot posted before the exchange."""
        form = client.get(f"index.php?act=Post&CODE=02&f={FORUM}&t={TOPIC}").text
        self.send_form(client, form, "REPLIER", {"Post": text, "dosubmit": "Отправить"})


FORM = {"Content-Type": "application/x-www-form-urlencoded"}


def _encoded(fields: dict[str, str] | list[tuple[str, str]]) -> bytes:
    pairs = list(fields.items()) if isinstance(fields, dict) else fields
    return urlencode(pairs, encoding="cp1251", errors="xmlcharrefreplace").encode("ascii")


def _hidden(served: str) -> dict[str, str]:
    root = html.fromstring(served)
    form = next(f for f in root.iter("form") if f.get("name") in ("REPLIER", "modform2") and f.get("id") != "none")
    return {el.get("name"): el.get("value", "") for el in form.iter("input") if el.get("type") == "hidden"}


def the_form(exchange: str) -> str:
    """Where the form an exchange submits is asked for."""
    fields = dict(index()[exchange]["form"])
    if fields.get("act") == "Msg":
        return "index.php?act=Msg&CODE=04"
    if fields.get("act") == "Mod":
        return f"index.php?showtopic={TOPIC}&st=30"
    code = "00" if fields.get("CODE") == "01" else "02"
    return f"index.php?act=Post&CODE={code}&f={FORUM}" + (f"&t={TOPIC}" if code == "02" else "")


# --- the scenarios, one per exchange ------------------------------------------------------------------------

Scenario = Callable[[Stage, str], httpx.Response]
SCENARIOS: dict[str, tuple[Scenario, dict[str, Any]]] = {}


def scenario(*exchanges: str, **server: Any) -> Callable[[Scenario], Scenario]:
    def register(play: Scenario) -> Scenario:
        for exchange in exchanges:
            SCENARIOS[f"ipb22-{exchange}"] = (play, server)
        return play

    return register


def _sent(stage: Stage, exchange: str, client: httpx.Client | None = None) -> httpx.Response:
    """The exchange's form asked for, then sent as the capture sent it."""
    client = client or stage.browser()
    served = client.get(the_form(exchange)).text
    stage.clock.advance(5)
    return stage.send(client, exchange, served)


@scenario("01")
def the_login_page(stage: Stage, exchange: str) -> httpx.Response:
    return stage.send(stage.browser(None), exchange)


@scenario("02", "03")
def a_login(stage: Stage, exchange: str) -> httpx.Response:
    """The login form asked for, then sent with the right password or a wrong one."""
    client = stage.browser(None)
    client.get("index.php?act=Login&CODE=00")
    return stage.send(client, exchange)


@scenario("04", "08", "23")
@scenario("28", copies=3)
@scenario("19", "20", posting_refused=frozenset({FORUM}))
def a_form_asked_for(stage: Stage, exchange: str) -> httpx.Response:
    return stage.send(stage.browser(), exchange)


@scenario("05", "06", "07", "09", "10", "11", "17", "24", "25", "26")
@scenario("29", "30", copies=3)
def a_form_sent(stage: Stage, exchange: str) -> httpx.Response:
    """A new topic, a preview, an empty post, a reply, eleven quotes, a stale auth_key; a PM, its preview, an
    unknown name; a PM with two copies and one with four (the group takes three)."""
    return _sent(stage, exchange)


@scenario("12", "13", flood_interval=30)
def a_form_asked_for_too_soon(stage: Stage, exchange: str) -> httpx.Response:
    """The form asked for 5 s after the bot's last post, with flood control at 30 s."""
    client = stage.browser()
    stage.post_reply(client, "Раньше")
    stage.clock.advance(5)
    return stage.send(client, exchange)


@scenario("14", "27", flood_interval=30)
def a_form_sent_too_soon(stage: Stage, exchange: str) -> httpx.Response:
    """The form asked for before the bot's last post and sent 5 s after it: a reply is refused, a PM is not."""
    client = stage.browser()
    served = client.get(the_form(exchange)).text
    stage.post_reply(client, "Раньше")
    stage.clock.advance(5)
    return stage.send(client, exchange, served)


@scenario("15", "16")
def the_same_form_sent_twice(stage: Stage, exchange: str) -> httpx.Response:
    """The form sent, then sent again a second later: the double-post guard."""
    client = stage.browser()
    served = client.get(the_form(exchange)).text
    stage.clock.advance(5)
    stage.send(client, exchange, served)
    stage.clock.advance(1)
    return stage.send(client, exchange, served)


@scenario("18")
def a_form_sent_with_a_dead_session(stage: Stage, exchange: str) -> httpx.Response:
    """The reply form asked for, then the session lost (and the remembered login with it): sent as a guest."""
    client = stage.browser()
    served = client.get(the_form(exchange)).text
    stage.server.expire_sessions()
    client.cookies.clear()
    return stage.send(client, exchange, served)


@scenario("21")
def the_reply_form_of_a_closed_topic(stage: Stage, exchange: str) -> httpx.Response:
    stage.board.lock_topic(TOPIC)
    return stage.send(stage.browser(), exchange)


@scenario("22")
def a_reply_sent_to_a_topic_closed_since(stage: Stage, exchange: str) -> httpx.Response:
    client = stage.browser()
    served = client.get(the_form(exchange)).text
    stage.board.lock_topic(TOPIC)
    return stage.send(client, exchange, served)


@scenario("31", "33")
def the_topic_page_after_the_reply(stage: Stage, exchange: str) -> httpx.Response:
    """The topic's last page after the bot's reply (and, for 33, after it was closed)."""
    client = stage.browser()
    stage.post_reply(client, "Напоминание: до конца дня час.")
    if exchange == "ipb22-33":
        stage.board.lock_topic(TOPIC)
    return stage.send(client, exchange)


@scenario("32", "35")
def the_topic_closed(stage: Stage, exchange: str) -> httpx.Response:
    """The moderators' tools of the topic page (`modform2`) sent with CODE=00, or with a stale auth_key."""
    return _sent(stage, exchange)


@scenario("34")
def the_topic_closed_again(stage: Stage, exchange: str) -> httpx.Response:
    client = stage.browser()
    served = client.get(the_form(exchange)).text
    stage.send(client, exchange, served)
    return stage.send(client, exchange, served)


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
    body = answer.content.decode("cp1251") if answer.content else ""
    cookies = {cookie.split("=", 1)[0] for cookie in answer.headers.get_list("Set-Cookie")}
    ours = answer_of(answer.status_code, answer.headers.get("Location"), answer.headers.get("Content-Type"), cookies,
                     body)  # fmt: skip
    theirs = captured(exchange)
    for key in theirs:
        assert ours.get(key) == theirs[key], key
