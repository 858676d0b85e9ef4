"""A replay of the real Russian phpBB 3.3.11 board (fixtures/phpbb-ru): each request is answered with
the page the real board sent for it, and each POST is checked the way phpBB checks it, so a client
that passes here submits what the real board expects.

What is checked on every POST: the form's hidden fields come back with the values the page served them
with (form_token, creation_time, confirm_uid, sid...), and the pressed button is the one phpBB looks
for, with its own value where phpBB compares it (the confirm box's "Да").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import httpx
from lxml import html as lxml_html

PAGES = Path(__file__).resolve().parents[2] / "fixtures" / "phpbb-ru"
BASE = "http://board.test/"
BOT, PASSWORD = "Ведущий", "пароль-бота"


def page(name: str) -> bytes:
    return next(PAGES.glob(f"{name}-*.html")).read_bytes()


def served_fields(body: bytes, form_id: str) -> dict[str, str]:
    """The hidden fields of `form#form_id` in a captured page."""
    root = lxml_html.fromstring(body)
    form = next(f for f in root.iter("form") if f.get("id") == form_id)
    return {i.get("name"): i.get("value") or "" for i in form.iter("input") if (i.get("type") or "") == "hidden"}


@dataclass
class Replay:
    """The board's state between requests: whether topic 8 is locked, what was sent, what was asked."""

    locked: bool = False
    flood_once: bool = False  # the next PM or post is refused by flood control
    review_once: bool = False  # the next reply meets "someone replied meanwhile"
    invalid_once: bool = False  # the next post meets "Ошибка отправки формы"
    too_many_at: int = 5  # the group's recipient limit
    members: dict[str, int] = field(default_factory=lambda: {"Вера": 60, "Bepa": 61, "Дядя Фёдор": 62})
    requests: list[tuple[str, str, list[tuple[str, str]]]] = field(default_factory=list)
    sent_pms: list[tuple[list[int], str, str]] = field(default_factory=list)
    posts: list[tuple[str, str]] = field(default_factory=list)
    served: dict[str, dict[str, str]] = field(default_factory=dict)  # form kind -> hidden fields served
    used_keys: set[str] = field(default_factory=set)
    problems: list[str] = field(default_factory=list)  # every way a POST differed from what phpBB wants
    dateformat: str = "|d M Y|, H:i"
    act_then_fail: int | None = None  # the next post or PM is made, then answered with this status

    def handler(self, request: httpx.Request) -> httpx.Response:
        url = urlsplit(str(request.url))
        query = dict(parse_qsl(url.query))
        form = parse_qsl(request.content.decode(), keep_blank_values=True) if request.method == "POST" else []
        self.requests.append((request.method, f"{url.path.lstrip('/')}?{url.query}", form))
        script = url.path.rsplit("/", 1)[-1]
        fields = dict(form)
        if script == "ucp.php" and query.get("mode") == "login":
            return self._login(request.method, fields)
        if script == "viewtopic.php":
            return self._html(self._topic())
        if script == "viewforum.php":
            return self._html(page("23"))
        if script == "index.php" or not script:
            return self._html(page("06"))
        if script == "mcp.php":
            return self._lock(request.method, query, fields)
        if script == "posting.php":
            return self._posting(request.method, query, fields)
        if script == "ucp.php" and query.get("i") == "pm":
            return self._pm(request.method, query, form)
        if script == "ucp.php" and query.get("i") == "ucp_prefs":
            return self._prefs(request.method, fields)
        return httpx.Response(404, text="not in the replay")

    # -- the checks phpBB makes ----------------------------------------------------------------------

    def _expect(self, kind: str, fields: dict[str, str], button: tuple[str, str | None]) -> None:
        for name, value in self.served.get(kind, {}).items():
            if name in ("sid", "sess"):
                continue
            if fields.get(name) != value:
                self.problems.append(f"{kind}: {name}={fields.get(name)!r}, served {value!r}")
        pressed, label = button
        if pressed not in fields:
            self.problems.append(f"{kind}: button {pressed!r} not pressed")
        elif label is not None and fields[pressed] != label:
            self.problems.append(f"{kind}: button {pressed}={fields[pressed]!r}, the page's value is {label!r}")

    def _serve(self, kind: str, body: bytes, form_id: str) -> httpx.Response:
        self.served[kind] = served_fields(body, form_id)
        return self._html(body)

    @staticmethod
    def _html(body: bytes, status: int = 200) -> httpx.Response:
        return httpx.Response(status, content=body, headers={"Content-Type": "text/html; charset=UTF-8"})

    @staticmethod
    def _redirect(location: str) -> httpx.Response:
        return httpx.Response(302, headers={"Location": location, "Set-Cookie": "phpbb3_ehie5_u=58; path=/"})

    # -- pages ---------------------------------------------------------------------------------------

    def _topic(self) -> bytes:
        """Topic A; the bot's own first post (p63) carries whatever marker the bot has posted since."""
        body = page("19") if self.locked else page("21")
        marks = [m for _, message in self.posts for m in re.findall(r"fbm[0-9a-f]{24}", message)]
        opening = "Тема для снимков страниц".encode()
        return body.replace(opening, " ".join(marks).encode() + b" " + opening, 1) if marks else body

    def _acted(self) -> httpx.Response | None:
        """After acting: the answer the board failed to give, if one is due."""
        if self.act_then_fail is None:
            return None
        status, self.act_then_fail = self.act_then_fail, None
        return httpx.Response(status, text="Service Unavailable")

    def _login(self, method: str, fields: dict[str, str]) -> httpx.Response:
        if method == "GET":
            return self._serve("login", page("01"), "login")
        self._expect("login", fields, ("login", None))
        if fields.get("username") != BOT or fields.get("password") != PASSWORD:
            return self._html(page("02"))
        return self._redirect(f"{BASE}index.php?sid=0123")

    def _prefs(self, method: str, fields: dict[str, str]) -> httpx.Response:
        served = page("93").replace(b'value="|d M Y|, H:i" maxlength', f'value="{self.dateformat}" maxlength'.encode())
        if method == "GET":
            return self._serve("prefs", served, "ucp")
        self._expect("prefs", fields, ("submit", "Отправить"))
        for name in ("lang", "tz", "viewemail", "allowpm"):
            if name not in fields:
                self.problems.append(f"prefs: {name} not sent: phpBB would reset it")
        self.dateformat = fields.get("dateformat", self.dateformat)
        return self._html(page("94"))

    def _lock(self, method: str, query: dict[str, str], fields: dict[str, str]) -> httpx.Response:
        if method == "GET":
            if query.get("action") == "lock" and "confirm_key" not in query:
                return self._serve("confirm", page("73"), "confirm")
            return self._html(page("23"))  # where the silent redirect lands
        key = query.get("confirm_key", "")
        self._expect("confirm", fields, ("confirm", None))
        if fields.get("confirm") != "Да" or key in self.used_keys:  # phpBB: the viewer's own "yes"
            return self._redirect(f"{BASE}mcp.php?f=3&t=8")
        self.used_keys.add(key)
        self.locked = True
        return self._html(page("75"))

    def _posting(self, method: str, query: dict[str, str], fields: dict[str, str]) -> httpx.Response:
        mode = query.get("mode")
        if method == "GET":
            if mode == "post":
                return self._serve("post", page("56"), "postform")
            if mode == "quote":
                return self._html(page("27"))
            return self._serve("post", page("60"), "postform")
        self._expect("post", fields, ("post", None))
        if self.invalid_once:
            self.invalid_once = False
            return self._serve("post", page("63"), "postform")
        if self.flood_once:
            self.flood_once = False
            return self._serve("post", page("62"), "postform")
        if mode == "reply" and self.review_once:
            self.review_once = False
            return self._serve("post", page("67"), "postform")
        self.posts.append((fields.get("subject", ""), fields.get("message", "")))
        failed = self._acted()
        if failed is not None:
            return failed
        if mode == "post":
            return self._redirect(f"{BASE}viewtopic.php?t=7")
        return self._redirect(f"{BASE}viewtopic.php?p=74#p74")

    def _pm(self, method: str, query: dict[str, str], form: list[tuple[str, str]]) -> httpx.Response:
        fields = dict(form)
        if method == "GET":
            if query.get("action") == "quote":
                return self._html(page("38"))
            if query.get("mode") == "compose":
                return self._serve("compose", page("83"), "postform")
            if query.get("folder") == "inbox":
                return self._html(page("42"))
            if query.get("folder") in ("outbox", "sentbox"):
                return self._html(page("41" if query["folder"] == "outbox" else "40"))
            if query.get("mode") == "view":
                return self._html(page("43"))
            return self._html(page("30"))
        if "add_to" in fields:
            self._expect("compose", fields, ("add_to", None))
            names = [n.strip() for n in fields.get("username_list", "").splitlines() if n.strip()]
            known = [n for n in names if n in self.members]
            if len(names) > self.too_many_at:
                return self._serve("compose", page("87"), "postform")
            if not known:
                return self._serve("compose", page("89"), "postform")
            if known == ["Вера"]:  # the captures hold one addressed form, Вера's (unknown names dropped)
                return self._serve("compose", page("84" if len(names) == 1 else "90"), "postform")
            return self._serve("compose", page("87"), "postform")
        self._expect("compose", fields, ("post", None))
        if self.flood_once:
            self.flood_once = False
            return self._serve("compose", page("86"), "postform")
        ids = [int(m.group(1)) for name, _ in form if (m := re.fullmatch(r"address_list\[u\]\[(\d+)\]", name))]
        self.sent_pms.append((ids, fields.get("subject", ""), fields.get("message", "")))
        return self._acted() or self._html(page("85"))

    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self.handler)
