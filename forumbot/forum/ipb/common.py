"""What every Invision page shares: which dialect made it, login walls and refusals, charsets, dates,
author links, and cutting notices out of a body. Pure functions, no I/O."""

from __future__ import annotations

import copy
import re
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta, tzinfo
from typing import Literal

from forumbot.errors import ParseError
from forumbot.forum.dates import is_relative, parse_forum_date, parse_ipb_interval
from forumbot.forum.markup import (
    Element,
    Page,
    iter_class,
    page_label,
    parse_html,
    sniff_charset,
    text_of,
)

IpbDialect = Literal["ipb2", "ipb3", "ips4"]

SHOWUSER = re.compile(r"showuser=(\d+)|/user/(\d+)-|/profile/(\d+)-")
SHOWTOPIC = re.compile(r"showtopic=(\d+)|[?&;]t=(\d+)|/topic/(\d+)-")
_NO_PERMISSION = re.compile(
    r"permission|not permitted|not allowed|"
    r"нет прав|не имеете прав|нет доступа|запрещ|не разрешено|недостаточно прав",
    re.I,
)
QUOTE_CLASSES = frozenset({"quotetop", "quotemain", "citation", "ipsBlockquote", "blockquote", "ipsQuote"})
_CYRILLIC = re.compile(r"[а-яёА-ЯЁ]")
_LOWER_CYRILLIC = re.compile(r"[а-яё]")
_KOI8_PAIR = ("cp1251", "koi8_r")  # the two 8-bit Russian charsets an undeclared page is in
_SECOND = timedelta(seconds=1)
_RUNNING_TEXT = 0.8  # Russian prose is ~90% lower-case letters; a wrong 8-bit reading is far below


class PostError(ParseError):
    """A post the parser cannot read; re-raised naming the page."""


# --- reading the bytes ----------------------------------------------------------------------


def read_page(html: Page, url: str | None = None) -> Element:
    """The page parsed once. Bytes that declare no charset and are not UTF-8 are windows-1251 or
    KOI8-R: the one whose Cyrillic reads as mostly lower case (running text) wins; a page neither
    reads as is refused, naming it, instead of being read as gibberish."""
    if isinstance(html, bytes) and sniff_charset(html) is None:
        return parse_html(decode_undeclared(html, url))
    return parse_html(html)


def decode_undeclared(data: bytes, url: str | None = None) -> str:
    """Text of bytes with no declared charset: UTF-8, else windows-1251 or KOI8-R by letter case."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    readings = {codec: data.decode(codec, errors="replace") for codec in _KOI8_PAIR}
    if not _CYRILLIC.search(readings["cp1251"]):
        return readings["cp1251"]  # no Russian at all: nothing to tell the two apart by
    scores = {codec: _lower_share(text) for codec, text in readings.items()}
    best = max(scores, key=lambda codec: scores[codec])
    if scores[best] < _RUNNING_TEXT:
        where = url or "the page"
        raise ParseError(
            f"{where}: declares no charset and reads as neither UTF-8, windows-1251 nor KOI8-R; "
            "save it again with its charset"
        )
    return readings[best]


def _lower_share(text: str) -> float:
    """The share of lower-case letters among the Cyrillic ones (0 when there are none)."""
    letters = len(_CYRILLIC.findall(text))
    return len(_LOWER_CYRILLIC.findall(text)) / letters if letters else 0.0


# --- dialect and page kinds -----------------------------------------------------------------


def dialect_of(html: Page) -> IpbDialect | None:
    """Which Invision software made the page: "ipb3" (`body#ipboard_body`, `ipb.vars`), "ipb2"
    (`div#ipbwrapper`, `ipb_var_base_url`), "ips4" (`body.ipsApp`), or None."""
    root = parse_html(html)
    body = root.find("body")
    if body is not None and body.get("id") == "ipboard_body":
        return "ipb3"
    if body is not None and "ipsApp" in (body.get("class") or "").split():
        return "ips4"
    if any(el.get("id") == "ipbwrapper" for el in root.iter("div")):
        return "ipb2"
    for script in root.iter("script"):
        code = script.text or ""
        if "ipb_var_base_url" in code:
            return "ipb2"
        if "ipb.vars[" in code:
            return "ipb3"
    return None


def logged_in(root: Element) -> bool:
    """Pages for members carry a logout link (2.x `act=Login&CODE=03`, 3.x `do=logout`)."""
    for a in root.iter("a"):
        href = a.get("href") or ""
        if "do=logout" in href or ("act=Login" in href and "CODE=03" in href):
            return True
    return False


def login_form(root: Element) -> Element | None:
    for form in root.iter("form"):
        action = form.get("action") or ""
        if form.get("name") == "LOGIN" or form.get("id") == "login":
            return form
        if "act=Login" in action and "CODE=01" in action:
            return form
        fields = {i.get("name"): i.get("value") for i in form.iter("input")}
        if fields.get("act") == "Login" and fields.get("CODE") == "01":
            return form
    return None


def refusal(root: Element) -> str | None:
    """The text of an IPB error message about permissions, if the page is one."""
    candidates = list(iter_class(root, "div", "errorwrap"))
    candidates += list(iter_class(root, "p", "ipsType_sectiontitle"))
    candidates += [
        wrap
        for wrap in iter_class(root, "div", "borderwrap")
        if len(wrap) and wrap[0].tag == "h3" and wrap.find("p") is not None
    ]
    for el in candidates:
        text = text_of(el)
        if _NO_PERMISSION.search(text):
            return text
    return None


def not_a(root: Element, url: str | None, kind: str) -> ParseError:
    where = page_label(root, url)
    refused = refusal(root)
    if refused:
        return ParseError(f"{where}: IPB refused access ({refused}), not a {kind}")
    if not logged_in(root) and login_form(root) is not None:
        return ParseError(f"{where}: a login page was served, not an IPB {kind}")
    return ParseError(f"{where}: not an IPB {kind}")


# --- dates ----------------------------------------------------------------------------------


def zone(tz: tzinfo | None, now: datetime | None) -> tzinfo:
    if tz is not None:
        return tz
    if now is not None and now.tzinfo is not None:
        return now.tzinfo
    return UTC


def when(text: str, tz: tzinfo, now: datetime | None, what: str) -> datetime:
    """A post's printed date as one instant (IPB 2 prints posts to the minute)."""
    moment = parse_forum_date(text, tz, now)
    if moment is None:
        if is_relative(text):
            raise PostError(f"{what}: relative date {text!r} needs the page's 'now' (footer) or now=")
        raise PostError(f"{what}: unrecognised date {text!r}")
    return moment


def interval(text: str, tz: tzinfo, now: datetime | None) -> tuple[datetime | None, datetime | None]:
    """(time, time_until) of a printed PM or folder date: the interval it allows ("Сегодня, 20:31"
    a minute, "3 часов назад" an hour, "вчера" alone 24 to 48 hours ago), `time_until` None when exact
    to the second."""
    span = parse_ipb_interval(text, tz, now)
    if span is None:
        return None, None
    start, until = span
    return start, (None if until - start <= _SECOND else until)


# --- authors, notices, quotes ---------------------------------------------------------------


def member_id(href: str | None) -> int | None:
    m = SHOWUSER.search(href or "")
    return int(next(g for g in m.groups() if g)) if m else None


def first_topic_id(links: Sequence[str | None]) -> int | None:
    for link in links:
        m = SHOWTOPIC.search(link or "")
        if m:
            return int(next(g for g in m.groups() if g))
    return None


def is_quote(el: Element) -> bool:
    if el.tag == "blockquote":
        return True
    cls = el.get("class")
    return bool(cls) and any(name in QUOTE_CLASSES for name in cls.split())


def without(body: Element, *parts: tuple[str, str]) -> Element:
    """A copy of `body` without the given (tag, class) elements and the `<br>`s the edit
    template puts before them."""
    clone = copy.deepcopy(body)
    doomed = [el for tag, cls in parts for el in iter_class(clone, tag, cls)]
    for el in doomed:
        _drop_leading_breaks(el)
        remove(el)
    return clone


def _drop_leading_breaks(el: Element) -> None:
    prev = el.getprevious()
    while prev is not None and prev.tag == "br" and not (prev.tail or "").strip():
        before = prev.getprevious()
        remove(prev)
        prev = before


def remove(el: Element) -> None:
    """Take `el` out of its tree, keeping the text that followed it."""
    parent = el.getparent()
    if parent is None:
        return
    if el.tail and el.tail.strip():
        prev = el.getprevious()
        if prev is not None:
            prev.tail = (prev.tail or "") + el.tail
        else:
            parent.text = (parent.text or "") + el.tail
    parent.remove(el)
