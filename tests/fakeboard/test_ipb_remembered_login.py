"""The fake IPBs log a visitor in as IPB 2.2's session class (`authorise`) and IPB 3's public sessions do: a request
whose `session_id` the board does not know, carrying the `member_id` and `pass_hash` cookies a "remember me" login
set, is the member's, on a new session (a new `session_id` cookie); a wrong `pass_hash` is a guest's. The login page
is served to members too (2.2's `log_in_form`, 3.x's `loginForm` check nobody), with the member bar the captured
pages of the bot show (fixtures/ipb-real: ipb22-04, ipb34-16). Forgetting the sessions forgets the remembered
logins too unless told (`keep_autologin`): a new member key, and with it a new form hash."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from types import ModuleType
from typing import Any
from urllib.parse import urlencode

import httpx
import pytest
from lxml import html

import tests.fakeboard.ipb2.ipb2_capture as ipb2_capture
import tests.fakeboard.ipb3.ipb3_capture as ipb3_capture
from fakeboard.clock import FakeClock
from fakeboard.invision import InvisionServer
from fakeboard.ipb2 import Ipb2Server
from fakeboard.ipb3 import Ipb3Server
from forumbot.forum.invision.pages import Viewer, login_form, viewer

UA = "Mozilla/5.0 (X11; Linux x86_64) remembered"


@dataclass(frozen=True)
class Version:
    capture: ModuleType
    server: type[InvisionServer]
    options: dict[str, Any]
    login_page: str
    login_fields: dict[str, str]  # the sign-in form's name, password and "remember me" fields
    member_page: str  # a captured page served to the bot: its member bar


VERSIONS = {
    "ipb2": Version(
        ipb2_capture, Ipb2Server, {"charset": "windows-1251"}, "index.php?act=Login&CODE=00",
        {"UserName": "name", "PassWord": "password", "CookieDate": "1"}, "ipb22-04",
    ),
    "ipb3": Version(
        ipb3_capture, Ipb3Server, {}, "index.php?app=core&module=global&section=login",
        {"ips_username": "name", "ips_password": "password", "rememberMe": "1"}, "ipb34-16",
    ),
}  # fmt: skip


@dataclass
class Stage:
    version: Version
    server: InvisionServer

    def browser(self, cookies: dict[str, str] | None = None) -> httpx.Client:
        return httpx.Client(base_url=self.server.url, headers={"User-Agent": UA}, cookies=cookies)

    def logged_in(self) -> httpx.Client:
        """A browser signed in as the bot through the login form, "remember me" ticked."""
        client = self.browser()
        served = html.fromstring(client.get(self.version.login_page).content)
        form = served.xpath('//form[@name="LOGIN" or @id="login"]')
        fields = {i.get("name"): i.get("value", "") for i in form[0].iter("input") if i.get("type") == "hidden"}
        bot = self.version.capture.BOT
        given = {"name": bot, "password": self.version.capture.PASSWORDS[bot]}
        values = {field: given.get(what, what) for field, what in self.version.login_fields.items()}
        charset = self.version.options.get("charset", "utf-8")
        body = urlencode(fields | values, encoding=charset)
        client.post(form[0].get("action"), content=body.encode(), headers={
            "Content-Type": f"application/x-www-form-urlencoded; charset={charset}"})  # fmt: skip
        assert client.cookies.get("member_id") and client.cookies.get("pass_hash")
        return client

    def served_to(self, client: httpx.Client) -> tuple[Viewer | None, httpx.Response]:
        answer = client.get(self.version.login_page)
        return viewer(answer.content), answer


@pytest.fixture(params=sorted(VERSIONS))
def stage(request: pytest.FixtureRequest) -> Iterator[Stage]:
    version = VERSIONS[str(request.param)]
    clock = FakeClock(version.capture.NOW.timestamp())
    with version.server(version.capture.board(), clock=clock, **version.options) as server:
        yield Stage(version, server)
        assert not server.errors, server.errors[0]


def captured_member(stage: Stage) -> Viewer | None:
    return viewer(stage.version.capture.page(stage.version.member_page))


def test_the_remembered_login_cookies_make_the_member_a_new_session(stage: Stage) -> None:
    first = stage.logged_in()
    remembered = {name: first.cookies[name] for name in ("member_id", "pass_hash")}
    shown, answer = stage.served_to(stage.browser(remembered))
    assert shown == captured_member(stage) and shown is not None and shown.member_id == stage.version.capture.BOT_ID
    assert answer.cookies.get("session_id") not in (None, first.cookies["session_id"])  # a session of its own
    assert login_form(html.fromstring(answer.content)) is not None  # the login page is served to members too
    forged = remembered | {"pass_hash": "0" * 32}
    assert stage.served_to(stage.browser(forged))[0] is None  # a guest


def test_forgetting_the_sessions_keeps_the_remembered_login_only_when_told(stage: Stage) -> None:
    client = stage.logged_in()
    key = stage.server.auth_key(stage.server._member(stage.version.capture.BOT_ID))
    stage.server.expire_sessions(keep_autologin=True)
    assert stage.served_to(client)[0] == captured_member(stage)  # made again from member_id and pass_hash
    stage.server.expire_sessions()
    assert stage.served_to(client)[0] is None  # the remembered login refused: a guest
    assert stage.server.auth_key(stage.server._member(stage.version.capture.BOT_ID)) != key  # a new member key
