"""Every captured exchange of the real Russian phpBB 3.3.11 board (fixtures/phpbb-ru/index.json), replayed on
the fake phpBB: the fake is driven into the same situation (the board as it stood then, the same account, its
session alive or dead as it was, the form fetched when the capture fetched it, the same fields submitted) and
must answer as the capture: the status, the redirect's shape, the cookies it sets, the content type, the
page's title, every form (its fields in order, its buttons and their words, its hidden fields, the choices
made), the message, error, confirm and login boxes and their texts, the meta refresh, and what the page lists
(posts, private messages) where the board holds what the real one held."""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import urlencode

import httpx
import pytest
from capture_board import BOT, Clock, History, index, page, sent_at
from lxml import html

from fakeboard import BoardServer

UA = "Mozilla/5.0 (X11; Linux x86_64) conformance"
FORMS = {"ucp.php?mode=login": "login", "posting.php": "postform", "mode=compose": "postform", "mcp.php": "confirm"}
FORMS |= {"mode=delete": "confirm", "ucp_prefs": "ucp"}
VOLATILE = {"creation_time", "form_token", "sid", "sess", "confirm_id"}  # made anew for every form served
SID = re.compile(r"\b[0-9a-f]{32}\b")
WRONG_PASSWORD = {2, 11}  # the exchanges whose login sent a wrong password
NOT_REBUILT = {23, 25}  # the forum topics of the games before the capture: not rebuilt


# --- the answer's shape ------------------------------------------------------------------------------------


def words(el: Any) -> str:
    return " ".join(el.text_content().split()) if not isinstance(el, str) else " ".join(el.split())


def masked(text: str | None) -> str | None:
    """A link or a value with what differs from board to board masked: the host, session ids, confirm keys."""
    if text is None:
        return None
    text = re.sub(r"http://127\.0\.0\.1:\d+/", "BOARD/", text)
    text = SID.sub("SID", text.replace("<sid>", "SID"))
    return re.sub(r"confirm_key=[0-9A-Z]{10}", "confirm_key=KEY", text)


def shape(link: str | None) -> str | None:
    """A redirect's shape: the link masked, its numbers (the new topic's, post's, PM's id) as N."""
    found = masked(link)
    return re.sub(r"\d+", "N", found) if found is not None else None


def title(root: Any) -> str:
    """The page's title without the count of unread notifications ("(1) "), which phpBB keeps for more
    than PMs."""
    return re.sub(r"^\(\d+\) ", "", root.findtext(".//title") or "")


def form_of(root: Any, form_id: str) -> dict[str, Any]:
    """What a browser reads in `form#form_id`: the fields in order, the buttons and their words, the hidden
    fields (those made anew for every form masked), the boxes ticked, the options chosen, the texts typed."""
    found = root.xpath(f'//form[@id="{form_id}"]')
    assert len(found) == 1, f"form#{form_id}: {len(found)} of them"
    form = found[0]
    fields, buttons, hidden, ticked, chosen, typed = [], {}, [], [], [], []
    for el in form.iter("input", "textarea", "select", "button"):
        kind, name = el.get("type"), el.get("name")
        if el.tag == "button" and kind == "button":
            continue
        fields.append((el.tag, kind, name))
        if kind == "submit":
            buttons[name] = el.get("value")
        elif kind == "hidden":
            hidden.append((name, "…" if name in VOLATILE else masked(el.get("value"))))
        elif kind in ("checkbox", "radio") and el.get("checked") is not None:
            ticked.append((name, el.get("value")))
        elif el.tag == "select":
            chosen.append((name, [o.get("value") for o in el.xpath(".//option[@selected]")]))
        elif el.tag == "textarea":
            typed.append((name, el.text or ""))
    return {
        "action": masked(form.get("action")),
        "fields": fields,
        "buttons": buttons,
        "hidden": hidden,
        "ticked": ticked,
        "chosen": chosen,
        "typed": typed,
    }


BOXES = {
    "message": '//div[@id="message"]//h2 | //div[@id="message"]//p',
    "message links": '//div[@id="message"]//a/@href',
    "errors": '//p[@class="error"] | //div[@class="error"]',
    "login title": '//h2[@class="login-title"]',
    "confirm": '//form[@id="confirm"]//h2 | //form[@id="confirm"]/div/div/p',
    "posting notices": '//form[@id="postform"]/h3 | //form[@id="postform"]/p',
    "refresh": '//meta[@http-equiv="refresh"]/@content',
    "print view": '//div[@class="post"]/h3 | //div[@class="post"]/div[not(@class="content")]',
    "page numbers": '//div[@class="page-number"]',
}
LISTS = {
    "posts": '//div[contains(concat(" ", @class, " "), " post ")]/@id',
    "private messages": '//ul[contains(@class, "pmlist")]//a[@class="topictitle"]/@href',
    "topics": '//ul[contains(@class, "topics")]//a[@class="topictitle"]/@href',
}


def check_as_captured(n: int, answer: httpx.Response) -> None:
    entry = index()[n]
    assert answer.status_code == entry["status"]
    assert shape(answer.headers.get("Location")) == shape(entry["location"])
    assert answer.headers["Content-Type"] == entry["content_type"]
    made = {cookie.split("=", 1)[0].rsplit("_", 1)[-1] for cookie in answer.headers.get_list("Set-Cookie")}
    assert made == {name.rsplit("_", 1)[-1] for name in entry["set_cookies"]}
    real = page(n)
    if not real:
        assert answer.content == b""
        return
    ours, theirs = html.fromstring(answer.text), html.fromstring(real)
    assert title(ours) == title(theirs)
    for form_id in [f.get("id") for f in theirs.iter("form") if f.get("id")]:
        assert form_of(ours, form_id) == form_of(theirs, form_id), f"form#{form_id}"
    for box, xpath in BOXES.items():
        assert [masked(words(e)) for e in ours.xpath(xpath)] == [masked(words(e)) for e in theirs.xpath(xpath)], box
    if n not in NOT_REBUILT:
        for listed, xpath in LISTS.items():
            assert [masked(e) for e in ours.xpath(xpath)] == [masked(e) for e in theirs.xpath(xpath)], listed


# --- driving the fake board into the captured situation ------------------------------------------------------


class Stage:
    """The fake board as the real one stood at `start` (a moment of the capture), served on a clock set to it,
    with clients that log in through the login form as the capture's accounts did."""

    def __init__(self, start: float) -> None:
        self.clock = Clock(start)
        self.history = History(start)
        self.server = BoardServer(self.history.board, clock=self.clock).start()
        self.clients: list[httpx.Client] = []

    def close(self) -> None:
        for client in self.clients:
            client.close()
        self.server.stop()
        assert not self.server.errors, self.server.errors[0]

    def at(self, moment: float) -> None:
        """The clock at `moment`, and the board as the real one stood then."""
        self.clock.now = max(self.clock.now, moment)
        self.history.until(moment)

    def client(self, account: str | None = None) -> httpx.Client:
        """A browser on the board, logged in as `account` through the login form (a guest when None, with
        no cookie yet)."""
        client = httpx.Client(base_url=self.server.url, headers={"User-Agent": UA}, follow_redirects=False)
        self.clients.append(client)
        if account is not None:
            now = self.clock.now
            form = client.get("ucp.php?mode=login").text
            self.clock.now += 2
            self.post_form(client, form, "login", {"username": account, "password": f"pw-{account}", "login": "x"})
            assert client.cookies.get(f"{self.server.cookie_prefix}_u") not in (None, "1"), account
            self.clock.now = now
        return client

    def sid(self, client: httpx.Client) -> str:
        return client.cookies.get(f"{self.server.cookie_prefix}_sid") or ""

    def post_form(self, client: httpx.Client, text: str, form_id: str, values: dict[str, str]) -> httpx.Response:
        form = html.fromstring(text).xpath(f'//form[@id="{form_id}"]')[0]
        data = {el.get("name"): el.get("value", "") for el in form.iter("input") if el.get("type") == "hidden"}
        return client.post(form.get("action").removeprefix("./"), data=data | values)

    def send(self, client: httpx.Client, n: int, served: str | None = None, sid: str | None = None) -> httpx.Response:
        """Exchange `n`'s request, sent at its time: its URL, and for a POST the captured fields in their order
        and encoding, those the board makes anew for each form (tokens, session ids, keys) taken from the
        form it `served`."""
        entry = index()[n]
        if entry["method"] == "POST":
            self.history.forget(n)  # what it did is done by this request, not by the history
        self.at(sent_at(n))
        session = sid if sid is not None else self.sid(client)
        url = entry["url"].replace("<sid>", session).lstrip("/")
        if entry["method"] == "GET":
            return client.get(url)
        fields: list[tuple[str, str]] = []
        fresh = _hidden(served, url) if served is not None else {}
        for name, value in entry["form"]:
            if name in fresh and name in VOLATILE and value != "0" * 40:  # a forged token stays forged
                value = fresh[name]
            elif value == "<password>":
                value = "wrong" if n in WRONG_PASSWORD else f"pw-{entry['account']}"
            fields.append((name, value.replace("<sid>", session)))
        if served is not None and "confirm_key=" in url:
            key = re.search(r"confirm_key=([0-9A-Z]{10})", _action(served, url)).group(1)  # type: ignore[union-attr]
            url = re.sub(r"confirm_key=[0-9A-Z]{10}", f"confirm_key={key}", url)
        if entry["enctype"] == "multipart/form-data":
            boundary = uuid.uuid4().hex
            return client.post(url, content=_multipart(fields, boundary), headers={
                "Content-Type": f"multipart/form-data; boundary={boundary}"
            })  # fmt: skip
        return client.post(
            url, content=urlencode(fields), headers={"Content-Type": "application/x-www-form-urlencoded"}
        )

    def log_out(self, client: httpx.Client, *, keep_cookies: bool = True) -> str:
        """The client's session logged out; the client keeps its dead cookies (as the capture's client did)
        or none. Returns the dead session's id."""
        sid = self.sid(client)
        cookies = dict(client.cookies)
        client.get(f"ucp.php?mode=logout&sid={sid}")
        client.cookies.clear()
        if keep_cookies:
            client.cookies.update(cookies)
        return sid

    def fetch(self, client: httpx.Client, path: str, when: float) -> str:
        """The page a form of the capture came from, fetched when the capture fetched it."""
        self.at(when)
        answer = client.get(path)
        assert answer.status_code == 200, path
        return answer.text


def _form_id(url: str) -> str:
    return next(form_id for part, form_id in reversed(FORMS.items()) if part in url)


def _hidden(served: str, url: str) -> dict[str, str]:
    form = html.fromstring(served).xpath(f'//form[@id="{_form_id(url)}"]')[0]
    return {el.get("name"): el.get("value", "") for el in form.iter("input") if el.get("type") == "hidden"}


def _action(served: str, url: str) -> str:
    action: str = html.fromstring(served).xpath(f'//form[@id="{_form_id(url)}"]')[0].get("action")
    return action


def _multipart(fields: list[tuple[str, str]], boundary: str) -> bytes:
    parts = [
        f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n' for name, value in fields
    ]
    return ("".join(parts) + f"--{boundary}--\r\n").encode("utf-8")


def created(n: int) -> float:
    """When the form exchange `n` submitted was served (its `creation_time`)."""
    return float(dict(index()[n]["form"])["creation_time"])


# --- the scenarios, one per exchange ------------------------------------------------------------------------

Scenario = Callable[[Stage, int], httpx.Response]
SCENARIOS: dict[int, Scenario] = {}


def scenario(*numbers: int) -> Callable[[Scenario], Scenario]:
    def register(play: Scenario) -> Scenario:
        for n in numbers:
            SCENARIOS[n] = play
        return play

    return register


def account(n: int) -> str | None:
    name: str = index()[n]["account"].split(" (")[0]
    return None if name == "guest" else name


def start_of(n: int) -> float:
    """Where a scenario's stage starts: a minute before the capture's first step of it."""
    entry = index()[n]
    first = created(n) if entry["method"] == "POST" and "creation_time" in dict(entry["form"]) else sent_at(n)
    return float(min(first, sent_at(n))) - 60


@scenario(*[e["id"] for e in index().values() if e["method"] == "GET" and e["id"] not in range(5, 15)])
def a_page_read(stage: Stage, n: int) -> httpx.Response:
    """A page asked for by the account (a guest's first request carries no cookie; a guest who had asked
    for a page before carries the cookies of its session)."""
    client = stage.client(account(n))
    if account(n) is None and index()[n]["request_cookies"]:
        client.get("index.php")
    return stage.send(client, n)


@scenario(2, 3, 4, 11, 12)
def a_login(stage: Stage, n: int) -> httpx.Response:
    """The login form fetched when the capture fetched it and posted: a wrong password, the right one in the
    second the form was made, the right one; the CAPTCHA account after three failures, then the right
    password with the CAPTCHA left empty."""
    client = stage.client()
    if n in (11, 12):
        for _ in range(3):
            form = stage.fetch(client, "ucp.php?mode=login", created(n) - 10)
            stage.clock.now += 2
            stage.post_form(client, form, "login", {"username": "Капча", "password": "wrong", "login": "x"})
        if n == 12:
            form = stage.fetch(client, "ucp.php?mode=login", created(11))
            stage.send(client, 11, form)
    form = stage.fetch(client, "ucp.php?mode=login", created(n))
    return stage.send(client, n, form)


@scenario(5, 6)
def after_login(stage: Stage, n: int) -> httpx.Response:
    """The page the login's redirect names (`sid=` in the URL), then the index with the cookies only."""
    client = stage.client()
    form = stage.fetch(client, "ucp.php?mode=login", created(4))
    location = stage.send(client, 4, form).headers["Location"]
    if n == 6:
        stage.send(client, 5)
    return stage.send(client, n, sid=location.rsplit("sid=", 1)[1])


@scenario(7, 8, 9, 10, 14)
def a_dead_session(stage: Stage, n: int) -> httpx.Response:
    """A page that needs a member, asked for with the cookies of a session that logged out (or with its
    `sid=` and no cookie), or of one that expired."""
    client = stage.client(BOT)
    if n == 14:
        stage.server.expire_sessions()
        return stage.send(client, n)
    return stage.send(client, n, sid=stage.log_out(client, keep_cookies=n != 8))


@scenario(13)
def the_index_for_a_new_guest(stage: Stage, n: int) -> httpx.Response:
    return stage.send(stage.client(), n)


def _posted(stage: Stage, n: int, client: httpx.Client, path: str | None = None) -> httpx.Response:
    """Exchange `n`'s form fetched when the capture fetched it (from `path`, else the URL it posts to), then
    submitted as the capture submitted it."""
    form = stage.fetch(client, path or index()[n]["url"].lstrip("/"), created(n))
    return stage.send(client, n, form)


@scenario(57, 59, 61, 63, 64, 65, 66, 67, 70, 72)
def a_posting_form_submitted(stage: Stage, n: int) -> httpx.Response:
    """A new topic, a reply (queued for the newcomer), a forged token, a form sent in the second it was made,
    an empty message, no subject, a reply while someone else replied, a player's reply to a topic locked since
    the form came, the moderator's reply to it."""
    return _posted(stage, n, stage.client(account(n)))


@scenario(62)
def a_reply_too_soon(stage: Stage, n: int) -> httpx.Response:
    """The bot's reply, then another a second later: flood control refuses it."""
    client = stage.client(BOT)
    _posted(stage, 61, client)
    return _posted(stage, n, client)


@scenario(68)
def the_reviewed_reply_sent_again(stage: Stage, n: int) -> httpx.Response:
    """The form that came back for review (someone replied meanwhile), submitted as it came."""
    client = stage.client(BOT)
    review = _posted(stage, 67, client).text
    return stage.send(client, n, review)


@scenario(16)
def a_post_soft_deleted(stage: Stage, n: int) -> httpx.Response:
    client = stage.client(BOT)
    form = stage.fetch(client, index()[15]["url"].lstrip("/"), sent_at(15))
    return stage.send(client, n, form)


@scenario(74, 75, 76, 78, 80, 82)
def a_lock_confirmed(stage: Stage, n: int) -> httpx.Response:
    """The confirm box fetched, then posted: with the English word from a Russian account (nothing locked),
    with the account's own word, with a used key again, on a topic already locked, by the English
    moderator, from the topic page's link."""
    client = stage.client(account(n))
    asked = {82: 81, 80: 79, 78: 77}.get(n, 73)
    form = stage.fetch(client, index()[asked]["url"].replace("<sid>", stage.sid(client)).lstrip("/"), sent_at(n) - 1)
    if n == 76:
        stage.send(client, 75, form)
    return stage.send(client, n, form)


@scenario(84, 87, 88, 89, 90)
def a_pm_compose_step(stage: Stage, n: int) -> httpx.Response:
    """The compose form fetched, then its recipients added (one, nine, an unknown name, a known and an unknown
    one), or nine addresses sent at once."""
    client = stage.client(BOT)
    form = stage.fetch(client, "ucp.php?i=pm&mode=compose", created(n))
    return stage.send(client, n, form)


@scenario(85, 86)
def a_pm_sent(stage: Stage, n: int) -> httpx.Response:
    """The recipient added, then the PM sent; another PM a tenth of a second later (its form fetched earlier)
    refused by the flood control posts and PMs share."""
    client = stage.client(BOT)
    early = stage.fetch(client, "ucp.php?i=pm&mode=compose", created(86))
    form = stage.fetch(client, "ucp.php?i=pm&mode=compose", created(84))
    added = stage.send(client, 84, form).text
    sent = stage.send(client, 85, added)
    if n == 85:
        return sent
    return stage.send(client, n, early)


@scenario(92, 94, 98)
def the_preferences_saved(stage: Stage, n: int) -> httpx.Response:
    client = stage.client(account(n))
    return _posted(stage, n, client)


@pytest.fixture
def stage(request: pytest.FixtureRequest) -> Iterator[Stage]:
    staged = Stage(start_of(request.param))
    yield staged
    staged.close()


def test_every_exchange_is_replayed() -> None:
    assert sorted(SCENARIOS) == sorted(index())


@pytest.mark.parametrize(("stage", "n"), [(n, n) for n in sorted(index())], indirect=["stage"], ids=str)
def test_the_fake_answers_as_captured(stage: Stage, n: int) -> None:
    check_as_captured(n, SCENARIOS[n](stage, n))


@pytest.mark.parametrize("stage", [9], indirect=True)
def test_a_post_with_a_dead_session_gets_the_login_form_too(stage: Stage) -> None:
    """No POST with a dead session was captured, but the real board treats it as it treats the GET (a guest
    session, new cookies, the login form headed by why): the form fetched alive and sent dead is answered as
    09-dead-session-posting-reply.html."""
    client = stage.client(BOT)
    form = stage.fetch(client, "posting.php?mode=reply&t=7", sent_at(9) - 5)
    stage.log_out(client)
    stage.at(sent_at(9))
    data = {el.get("name"): el.get("value", "") for el in html.fromstring(form).iter("input") if el.get("name")}
    answer = client.post("posting.php?mode=reply&t=7", data=data | {"message": "Ответ", "post": "Отправить"})
    real = html.fromstring(page(9))
    assert answer.status_code == 200 and answer.headers.get_list("Set-Cookie")
    ours = html.fromstring(answer.text)
    assert title(ours) == title(real)
    assert [words(e) for e in ours.xpath(BOXES["login title"])] == [words(e) for e in real.xpath(BOXES["login title"])]
    assert form_of(ours, "login") == form_of(real, "login")
    assert len(stage.server.board.posts_of(7)) == len(History(sent_at(9)).board.posts_of(7))
