"""What every Invision page shares: which version made it, login walls and refusals, charsets, dates,
author links, cutting notices out of a body, the login and posting forms. Pure functions, no I/O.

Every public reader takes the page as text, bytes (any charset the page declares, windows-1251 included;
undeclared bytes are UTF-8, windows-1251 or KOI8-R, else refused) or an already parsed lxml tree."""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, tzinfo

from forumbot.errors import N_, ParseError
from forumbot.forum.dates import is_relative, parse_forum_date, parse_ipb_interval
from forumbot.forum.dialect import PageKind
from forumbot.forum.markup import (
    Element,
    Page,
    collapse,
    first_class,
    form_fields,
    iter_class,
    page_label,
    page_problems,
    parse_html,
    sniff_charset,
    text_of,
)
from forumbot.posts import PmSummary, PrivateMessage, TopicPage

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
            N_(
                "{where}: declares no charset and reads as neither UTF-8, windows-1251 nor KOI8-R; save "
                "it again with its charset"
            ),
            where=where,
        )
    return readings[best]


def _lower_share(text: str) -> float:
    """The share of lower-case letters among the Cyrillic ones (0 when there are none)."""
    letters = len(_CYRILLIC.findall(text))
    return len(_LOWER_CYRILLIC.findall(text)) / letters if letters else 0.0


# --- dialect and page kinds -----------------------------------------------------------------


def version_of(html: Page) -> int | None:
    """Which Invision software made the page: 3 (IPB 3.x: `body#ipboard_body`, `ipb.vars`), 2 (IPB 2.x:
    `div#ipbwrapper`, `ipb_var_base_url`), 4 (IPS 4: `body.ipsApp`), or None."""
    root = parse_html(html)
    body = root.find("body")
    if body is not None and body.get("id") == "ipboard_body":
        return 3
    if body is not None and "ipsApp" in (body.get("class") or "").split():
        return 4
    if any(el.get("id") == "ipbwrapper" for el in root.iter("div")):
        return 2
    for script in root.iter("script"):
        code = script.text or ""
        if "ipb_var_base_url" in code:
            return 2
        if "ipb.vars[" in code:
            return 3
    return None


def is_login_wall(html: Page) -> bool:
    """A guest's page whose business is logging in: a login form (2.x `form[name=LOGIN]` or the
    error page's login form, 3.x `form#login`), or a guest's "no permission" page."""
    root = parse_html(html)
    if logged_in(root):
        return False
    return login_form(root) is not None or refusal(root) is not None


def is_no_permission(html: Page) -> bool:
    """IPB's error page saying the account may not see this (2.x `div.errorwrap` / the
    error block, 3.x `p.ipsType_sectiontitle` of the error box)."""
    return refusal(parse_html(html)) is not None


def wall_kind(root: Element) -> PageKind:
    """The kind of an Invision page that is no topic, PM folder or PM: a login or a refusal, else unknown."""
    if is_no_permission(root):
        return "no_permission"
    return "login" if is_login_wall(root) else "unknown"


def checked_topic_page(root: Element, url: str | None, read: Callable[[], TopicPage]) -> TopicPage:
    """`read()` of a topic page, its page-wide damage (see `page_problems`) added to its problems: a post
    it cannot read names the page, and a page that reads as no topic page says the damage is why."""
    damage = page_problems(root, url)
    try:
        page = read()
    except PostError as exc:
        raise ParseError("; ".join([*damage, f"{page_label(root, url)}: {exc}"])) from exc
    except ParseError as exc:
        if damage:  # the damage is why the page reads as no topic page at all
            raise ParseError(N_("{names}; no post could be read"), names="; ".join(damage)) from exc
        raise
    return page.model_copy(update={"problems": damage + page.problems}) if damage else page


def parse_login_form(html: Page) -> dict[str, str]:
    """Hidden fields and checked boxes of the login form (2.x `form[name=LOGIN]`: referer,
    CookieDate; 3.x `form#login`: auth_key, referer...) plus `_action`."""
    root = read_page(html)
    form = login_form(root)
    if form is None:
        raise ParseError(N_("{page_label}: no IPB login form"), page_label=page_label(root, None))
    return form_fields(form, text_fields=False)


def parse_posting_form(html: Page) -> dict[str, str]:
    """What a posting form would submit as served (2.x `form[name=REPLIER]`, 3.x
    `form#postingform`, else the first form carrying `auth_key`), plus `_action`."""
    root = read_page(html)
    forms = list(root.iter("form"))
    form = next((f for f in forms if f.get("name") == "REPLIER" or f.get("id") == "postingform"), None)
    if form is None:
        form = next((f for f in forms if any(i.get("name") == "auth_key" for i in f.iter("input"))), None)
    if form is None:
        raise not_a(root, None, "posting form")
    return form_fields(form, text_fields=True)


@dataclass(frozen=True)
class Viewer:
    """The member a page was served to, as the board prints him: his display name (what his posts and PMs
    show, which may differ from the name he logs in with) and his member id."""

    name: str
    member_id: int | None


def viewer(html: Page) -> Viewer | None:
    """Who the page was served to: 2.x's member bar (`div#userlinks p.home`, «Вошли как: <a showuser=N>»),
    3.x's `a#user_link` to his profile; None on a guest's page."""
    root = parse_html(html)
    for div in root.iter("div"):
        if div.get("id") == "userlinks":
            home = first_class(div, "p", "home")
            link = next((a for a in (home if home is not None else div).iter("a") if member_id(a.get("href"))), None)
            if link is not None and text_of(link):
                return Viewer(text_of(link), member_id(link.get("href")))
    for link in root.iter("a"):
        if link.get("id") == "user_link":
            shown = collapse("".join([link.text or "", *(child.tail or "" for child in link)]))
            if shown:
                return Viewer(shown, member_id(link.get("href")))
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
            raise PostError(
                N_("{what}: relative date {text!r} needs the page's 'now' (footer) or now="), what=what, text=text
            )
        raise PostError(N_("{what}: unrecognised date {text!r}"), what=what, text=text)
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


def message_row(message: PrivateMessage) -> PmSummary:
    """An inbox row for one message of a conversation: its own id, sender and time."""
    return PmSummary(
        pm_id=message.pm_id,
        subject=message.subject,
        sender=message.sender,
        sender_id=message.sender_id,
        time=message.time,
        time_until=message.time_until,
        time_text=message.time_text,
        url=message.url or "",
        conversation_id=message.conversation_id,
    )
