"""The IPB 3.4 boards the exchanges of fixtures/ipb-real/ipb34/ were rendered or read for, rebuilt on the fake
board, and what each exchange's answer is compared by. Except the topic page (a whole page), the captured bodies
are the templates' own output without the page around them: an answer of the fake, a whole page, is compared by
what the fragment shows (its forms, its error box, its heading)."""

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
BOT, BOT_ID = "Ведущий", 2
NOW = datetime(2026, 12, 20, 21, 0, tzinfo=UTC)
# the istv board of the forms and answers (forum 31, topic 20417), the seaport board of the topic page (forum 44)
FORUM, TOPIC, NEW_TITLE = 31, 20417, "Мафия-9. День 4"
SEAPORT_FORUM, SEAPORT_TOPIC = 44, 31207
PLAYERS = {"Лиса": 5, "Зося": 349, "Остап": 307, "Козлевич": 391}
PASSWORDS = {name: f"pw-{name}" for name in [BOT, *PLAYERS]}
HOSTS = re.compile(r"http://(?:forum\.\w+\.example|127\.0\.0\.1:\d+)/?")
KEY = re.compile(r"\b[0-9a-f]{32}\b")
EDITOR = re.compile(r"editor_[0-9a-f]{8}")
VOLATILE = {"attach_post_key", "auth_key", "postKey", "referer"}  # made anew for each form or account


@cache
def index() -> dict[str, dict[str, Any]]:
    entries = json.loads((FIXTURES / "index.json").read_text(encoding="utf-8"))
    return {e["id"]: e for e in entries if e["id"].startswith("ipb34-")}


def page(exchange: str) -> str:
    body_file = index()[exchange]["body_file"]
    return (FIXTURES / body_file).read_text(encoding="utf-8") if body_file else ""


def board() -> Board:
    """Both captured boards in one: forum 31 «Мафия» with topic 20417 «Мафия-9. День 3», forum 44 «Мафия —
    игровые дни» with topic 31207 «Мафия-12. День 2» of 40 posts; the bot moderates both."""
    made = Board("Морской порт", language="ru", timezone="Europe/Moscow", now=lambda: NOW)
    made.add_user(BOT, PASSWORDS[BOT], user_id=BOT_ID)
    for name, member_id in PLAYERS.items():
        made.add_user(name, PASSWORDS[name], user_id=member_id)
    made.add_forum("Мафия", forum_id=FORUM, public=True, moderators=[BOT])
    made.add_forum("Мафия — игровые дни", forum_id=SEAPORT_FORUM, public=True, moderators=[BOT])
    start = NOW - timedelta(days=1)
    made.add_topic(FORUM, "Мафия-9. День 3", BOT, "[b]День 3[/b]", start, topic_id=TOPIC)
    made.add_topic(SEAPORT_FORUM, "Мафия-12. День 2", BOT, "[b]День 2[/b]", start, topic_id=SEAPORT_TOPIC)
    names = list(PLAYERS)
    for n in range(1, 40):
        made.add_post(SEAPORT_TOPIC, names[n % len(names)], f"Голос {n}", start + timedelta(minutes=n))
    return made


# --- what an answer is compared by -------------------------------------------------------------------------


def words(el: Any) -> str:
    return " ".join((el if isinstance(el, str) else el.text_content()).split())


def masked(text: str | None) -> str | None:
    if text is None:
        return None
    return EDITOR.sub("editor_ID", KEY.sub("KEY", HOSTS.sub("BOARD/", unquote(text))))


def shape(link: str | None) -> str | None:
    found = masked(link)
    return re.sub(r"\d+", "N", found) if found is not None else None


def form_of(form: Any) -> dict[str, Any]:
    """What a browser reads in a form (see the IPB 2 conformance test): the editor's random id masked."""
    fields, buttons, hidden, ticked, chosen, typed = [], [], [], [], [], []
    for el in form.iter("input", "textarea", "select", "button"):
        kind, name = el.get("type"), masked(el.get("name"))
        fields.append((el.tag, kind, name))
        if kind in ("submit", "image"):
            buttons.append((name, el.get("value")))
        elif kind == "hidden":
            hidden.append((name, "…" if name in VOLATILE else masked(el.get("value"))))
        elif kind in ("checkbox", "radio") and el.get("checked") is not None:
            ticked.append((name, el.get("value")))
        elif el.tag == "select":
            chosen.append((name, [o.get("value") for o in el.iter("option")]))
        elif el.tag == "textarea":
            typed.append((name, el.text or ""))
    return {
        "action": masked(form.get("action")),
        "enctype": form.get("enctype"),
        "fields": fields,
        "buttons": buttons,
        "hidden": hidden,
        "ticked": ticked,
        "chosen": chosen,
        "typed": typed,
    }


BOXES = {
    "heading": '//h1[@class="ipsType_pagetitle"]',
    "error": '//p[@class="ipsType_sectiontitle"]',
    "error code": '//p[@class="ipsType_sectiontitle"]/preceding-sibling::span',
    "form errors": '//div[@class="message error" and not(ancestor::noscript)]/*[self::h4 or self::p]',
    "invite limit": '//input[@name="inviteUsers"]/following-sibling::span[@class="desc"]',
    "moderators' links": '//a[starts-with(@class, "modlink_")]/@class',
    "permalinks": '//a[@itemprop="replyToUrl"]/@href',
    "post anchors": '//a[starts-with(@id, "entry")]/@id',
}
SHAPED = {"permalinks", "post anchors"}


def answer_of(status: int, location: str | None, body: str, fragment: str | None) -> dict[str, Any]:
    """An answer as the capture shows it: its status, its redirect's shape, and what of its page `fragment`
    (the captured body; None: compare the page itself) shows: its forms and boxes."""
    found: dict[str, Any] = {"status": status, "location": shape(location)}
    if fragment is None:
        fragment = body
    if not fragment:
        return found
    ours, theirs = html.fromstring(body), html.fromstring(fragment)
    found["forms"] = {form.get("id"): form_of(form) for form in ours.iter("form")
                      if form.get("id") in {f.get("id") for f in theirs.iter("form") if f.get("id")}}  # fmt: skip
    for box, xpath in BOXES.items():
        if theirs.xpath(xpath):
            seen = [masked(words(e)) for e in ours.xpath(xpath)]
            found[box] = [shape(e) for e in seen] if box in SHAPED else seen
    return found


def captured(exchange: str) -> dict[str, Any]:
    entry = index()[exchange]
    return answer_of(entry["status"], entry["location"], page(exchange), None)
