"""The IPB 2.2 board the exchanges of fixtures/ipb-real/ipb22/ were captured on, rebuilt on the fake board:
«Night City», forum 14 «Мафия» moderated by the bot «Ведущий» (member 2), topic 16290 «Мафия-8. День 2» of 34
posts (the last four 4131-4134 by Лиса and Печкин, as the captured topic page shows), ten posts a page, and
what each exchange's answer is compared by: its shape, its forms, its boxes."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from lxml import html

from fakeboard import Board

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "ipb-real"
BOT, BOT_ID, FORUM, TOPIC = "Ведущий", 2, 14, 16290
PLAYERS = {"Лиса": 5, "Печкин": 6, "Кот": 7, "Шарик": 8}
PASSWORDS = {name: f"pw-{name}" for name in [BOT, *PLAYERS]}
NOW = datetime(2026, 12, 1, 22, 23, tzinfo=UTC)  # the captured footer: «Сейчас: 2.12.2026, 1:23» (UTC+3)
CAPTURED_HOST = "http://forum.nightcity.example/forum/"
KEY = re.compile(r"\b[0-9a-f]{32}\b")
VOLATILE = {"attach_post_key", "auth_key", "s", "referer"}  # made anew for each form or account


@cache
def index() -> dict[str, dict[str, Any]]:
    entries = json.loads((FIXTURES / "index.json").read_text(encoding="utf-8"))
    return {e["id"]: e for e in entries if e["id"].startswith("ipb22-")}


def page(exchange: str) -> str:
    """The captured body of an exchange (windows-1251 on the wire)."""
    body_file: str = index()[exchange]["body_file"]
    return (FIXTURES / body_file).read_bytes().decode("cp1251")


def board() -> Board:
    """The captured board as it stood before the exchanges."""
    made = Board("Night City", language="ru", timezone="Europe/Moscow", now=lambda: NOW)
    made.add_user(BOT, PASSWORDS[BOT], user_id=BOT_ID)
    for name, member_id in PLAYERS.items():
        made.add_user(name, PASSWORDS[name], user_id=member_id)
    made.add_forum("Мафия", forum_id=FORUM, public=True, moderators=[BOT])
    start = NOW - timedelta(days=1)
    made.add_topic(FORUM, "Мафия-8. День 2", BOT, "[b]День 2[/b]", start, topic_id=TOPIC, post_id=4100)
    for n in range(1, 34):
        author = "Лиса" if n % 2 else "Печкин"
        made.add_post(TOPIC, author, f"Голос: [color=red][b]{author}[/b][/color]", start + timedelta(minutes=n),
                      post_id=4100 + n)  # fmt: skip
    return made


# --- the answer's shape ------------------------------------------------------------------------------------


def words(el: Any) -> str:
    return " ".join((el if isinstance(el, str) else el.text_content()).split())


def masked(text: str | None) -> str | None:
    """A link or a value with what differs from board to board masked: the board's address, the keys."""
    if text is None:
        return None
    text = unquote(text).replace(CAPTURED_HOST, "BOARD/")
    text = re.sub(r"http://127\.0\.0\.1:\d+/", "BOARD/", text)
    return KEY.sub("KEY", text)


def shape(link: str | None) -> str | None:
    """A redirect's shape: the link masked, its numbers (ids, offsets) as N."""
    found = masked(link)
    return re.sub(r"\d+", "N", found) if found is not None else None


def form_of(form: Any) -> dict[str, Any]:
    """What a browser reads in a form: its action, its fields in order, its buttons (a nameless one too) and
    their words, its hidden fields (those made anew masked), the boxes ticked, the options chosen, the texts
    typed into its textareas."""
    fields, buttons, hidden, ticked, chosen, typed = [], [], [], [], [], []
    for el in form.iter("input", "textarea", "select", "button"):
        kind, name = el.get("type"), el.get("name")
        fields.append((el.tag, kind, name))
        if kind in ("submit", "image"):
            buttons.append((name, el.get("value")))
        elif kind == "hidden":
            hidden.append((name, "…" if name in VOLATILE else masked(el.get("value"))))
        elif kind in ("checkbox", "radio") and el.get("checked") is not None:
            ticked.append((name, el.get("value")))
        elif el.tag == "select":
            chosen.append((name, [o.get("value") for o in el.iter("option")], [o.get("value") for o in el.xpath(
                ".//option[@selected]")]))  # fmt: skip
        elif el.tag == "textarea":
            typed.append((name, (el.text or "").replace("\r\n", "\n")))
    return {
        "action": masked(form.get("action")),
        "fields": fields,
        "buttons": buttons,
        "hidden": hidden,
        "ticked": ticked,
        "chosen": chosen,
        "typed": typed,
    }


def forms(root: Any) -> dict[str, dict[str, Any]]:
    """The page's forms that have a name or an id, by it."""
    return {form.get("name") or form.get("id"): form_of(form) for form in root.iter("form")
            if form.get("name") or form.get("id")}  # fmt: skip


BOXES = {
    "title": "//title",
    "errors": '//div[@class="errorwrap"]/h4 | //div[@class="errorwrap"]/p',
    "post errors": '//div[@class="borderwrap"]/div[@class="formsubtitle"] | //span[@class="postcolor"]',
    "preview": '//div[@class="formsubtitle"]/following-sibling::*[1]',
    "redirect": '//div[@id="redirectwrap"]/h4 | //div[@id="redirectwrap"]/p',
    "saved text": '//form[@name="mehform"]//textarea',
    "log-in box": '//form[@action and .//input[@name="act" and @value="Login"]]/h4',
    "member bar": '//div[@id="userlinks"]/p[@class="home"] | //div[@id="userlinksguest"]/p',
    "navigation": '//div[@id="navstrip"]',
    "topic closed": '//img[contains(@src, "t_closed")]/@alt',
}
REFRESH = '//meta[@http-equiv="refresh"]/@content'
POSTS = '//a[starts-with(@name, "entry")]/@name'


def answer_of(
    status: int, location: str | None, content_type: str | None, cookies: set[str], body: str
) -> dict[str, Any]:
    """Everything an answer is compared by."""
    found: dict[str, Any] = {
        "status": status,
        "location": shape(location),
        "content type": content_type,
        "cookies": cookies - {"session_id"},  # the capture's stub sessions set none of their own
    }
    if not body:
        found["body"] = ""
        return found
    root = html.fromstring(body)
    found["forms"] = forms(root)
    for box, xpath in BOXES.items():
        found[box] = [masked(words(e)) for e in root.xpath(xpath)]
    found["refresh"] = [shape(e) for e in root.xpath(REFRESH)]
    found["posts"] = [shape(e) for e in root.xpath(POSTS)]
    return found


def captured(exchange: str) -> dict[str, Any]:
    entry = index()[exchange]
    body = page(exchange) if entry["body_file"] and (FIXTURES / entry["body_file"]).stat().st_size else ""
    return answer_of(entry["status"], entry["location"], entry["content_type"], set(entry["set_cookies"]), body)
