"""A fake phpBB 3.3 board for tests and benchmarks, serving the real prosilver markup.

    board = Board()
    board.add_user("host_bot", "secret", moderator=True)
    forum = board.add_forum("Mafia")
    topic = board.add_topic(forum, "Mafia-1. Day 1", "host_bot", "[b]Day 1 begins.[/b]", start)
    populate_day(board, topic, posts=300, players=names, seed=1, start=start)
    with BoardServer(board, latency=0.05) as server:
        client = open_client(ClientSettings(forum=server.url, username="host_bot", password="secret"))

A board like the captured Russian one (fixtures/phpbb-ru: the official Russian language pack, Moscow time,
"|d M Y|, H:i" dates, 2 s flood interval, at most 5 PM recipients, a CAPTCHA after 3 failed logins):

    board = Board.russian(bot="Ведущий", bot_password="secret")  # the bot (user 58) moderates forum 3 "Мафия"
    # = Board(language="ru", timezone="Europe/Moscow", flood_interval=2, max_pm_recipients=5,
    #         max_login_attempts=3, quick_reply=False, pm_folder_limit=50), then add_user("Ведущий", ...)
    #   and add_forum("Мафия", forum_id=3, public=True, moderators=["Ведущий"])
    board.add_user("Bepa", "pw", lang="en", dateformat="|d M Y|, H:i")  # one member reads the board in English
    board.add_user("Новичок", "pw", needs_approval=True)  # its posts wait in the moderation queue

`Board` is the state (users, forums, topics, posts, PMs) and the board's settings, safe to share between
threads; `BoardServer` serves it over HTTP on 127.0.0.1 the way phpBB 3.3.11 does: pages are rendered from
skeletons cut out of the captured pages (`skeletons/`, see fixtures/phpbb and fixtures/phpbb-ru), BBCode
as phpBB renders it (`bbcode.py`). Every text a page prints comes from the language table
(`skeletons/languages.json`, keyed by phpBB's English texts), in the viewer's language (a member's `lang`,
"en" or "ru"; a guest gets the board's), and every date in the viewer's time zone and date format with
phpBB's relative dates ("менее минуты назад", "6 minutes ago", "Сегодня, 11:49"); `<time datetime>` stays UTC,
edit and deletion notices stay absolute.

What it emulates: sessions bound to the User-Agent with phpBB's cookies (a dead session is a guest with the
login form, headed by why); form tokens with the one-second rule; the buttons checked by name, not value;
login failures, then a CAPTCHA; flood control, one clock for posts and PMs; posts waiting for approval and
soft-deleted posts, seen by the forum's moderators only (post counts and pages per viewer); phpBB's rule for
which edits leave a notice (`Board.edit_post_as`); locked topics (members refused, moderators not, the form's
"Lock topic" box deciding); the "new posts meanwhile" review; `[quote ... time=...]` from the Quote buttons
of posts and PMs; the two-step PM compose form with phpBB's recipient limit and unknown-name rules; the sent
PMs' folders (outbox, sentbox); the lock confirmation, answering only the viewer's own word for "yes"; the
UCP preferences (language, time zone, date format); and faults to inject.
"""

from __future__ import annotations

import bisect
import dataclasses
import hashlib
import json
import math
import random
import re
import secrets
import socket
import threading
import time as _time
import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, tzinfo
from email.message import Message
from email.parser import BytesParser
from email.policy import HTTP
from http.cookies import SimpleCookie
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any
from urllib.parse import parse_qsl, quote, urlsplit
from zoneinfo import ZoneInfo

import jinja2
from markupsafe import Markup, escape

from forumbot.render.phpbb_html import QUOTE_DEPTH, quote_depth, render_bbcode, source_as_html

__all__ = [
    "DAY_MIX",
    "DEFAULT_DATEFORMAT",
    "LANGUAGES",
    "Board",
    "BoardServer",
    "Forum",
    "GeneratedPost",
    "Post",
    "PrivateMessage",
    "RequestRecord",
    "Topic",
    "User",
    "count_text",
    "format_date",
    "populate_day",
    "translate",
    "zone_name",
]

SKELETONS = Path(__file__).with_name("skeletons")
ANONYMOUS = 1  # phpBB's guest user id
FIRST_USER_ID = 48  # a fresh phpBB 3.3 board gives its first registered member id 48 (1 guest, 2 admin, bots)

# phpBB's English strings (the keys of the language table, skeletons/languages.json)
FORM_INVALID = "The submitted form was invalid. Try submitting again."
FLOOD_ERROR = "You cannot make another post so soon after your last."
TOPIC_LOCKED = "This topic is locked, you cannot edit posts or make further replies."
NOT_AUTHORISED = "You are not authorised to access this area."
MESSAGE_SENT = "This message has been sent successfully."
_LOGIN_CONTACT = "If you continue to have problems please contact the {}."
_WRONG_USERNAME = (
    "You have specified an incorrect username. Please check your username and try again. " + _LOGIN_CONTACT
)
_WRONG_PASSWORD = (
    "You have specified an incorrect password. Please check your password and try again. " + _LOGIN_CONTACT
)
WRONG_USERNAME = _WRONG_USERNAME.format("Board Administrator")
WRONG_PASSWORD = _WRONG_PASSWORD.format("Board Administrator")
LOGIN_ATTEMPTS = (
    "You exceeded the maximum allowed number of login attempts. In addition to your username and password you now "
    "also have to solve the CAPTCHA below."
)
CAPTCHA_WRONG = "The confirmation code you entered was incorrect."
LOGIN_VIEWFORUM = "The board requires you to be registered and logged in to view this forum."
LOGIN_POST = "In order to post you need to login or register."
LOGIN_EXPLAIN = {  # posting.php's login box, by mode
    "post": "You need to login in order to post within this forum.",
    "reply": "You need to login in order to reply to topics within this forum.",
    "quote": "You need to login in order to quote posts within this forum.",
    "edit": "You need to login in order to edit posts in this forum.",
}
LOGIN_UCP = "Please login in order to access the User Control Panel."
LOGIN_MCP = "To moderate this forum you must be registered and logged in."
NO_TOPIC = "The requested topic does not exist."
NO_FORUM = "The forum you selected does not exist."
NO_POST = "The requested post does not exist."
NO_MESSAGE = "The private message could not be found."
TOO_FEW_CHARS = "Your message contains too few characters."
EMPTY_SUBJECT = "You must specify a subject when posting a new topic."
EMPTY_PM_SUBJECT = "You must specify a subject when composing a new message."
NO_RECIPIENT = "No recipient defined."
PM_NO_USERS = "The requested users to be added do not exist."
TOO_MANY_RECIPIENTS = "You tried to send a private message to too many recipients."
QUOTE_DEPTH_EXCEEDED = f"You may embed only {QUOTE_DEPTH} quotes within each other."
USER_CANNOT_EDIT = "You can only edit your own posts."
POST_REVIEW = "At least one new post has been made to this topic. You may wish to review your post in light of this."
POST_STORED_MOD = (
    "This message has been submitted successfully, but it will need to be approved by a moderator before it is "
    "publicly viewable. You will be notified when your post has been approved."
)
TOPIC_LOCKED_DONE = "The selected topic has been locked."
TOPIC_UNLOCKED_DONE = "The selected topic has been unlocked."
PREFS_UPDATED = "Your preferences have been updated."

# --- languages and dates ---------------------------------------------------------------------------

LANGUAGE_PACK: dict[str, Any] = json.loads((SKELETONS / "languages.json").read_text(encoding="utf-8"))
LANGUAGES: tuple[str, ...] = tuple(k for k in LANGUAGE_PACK if k not in ("zones",) and not k.startswith("_"))
DEFAULT_DATEFORMAT: dict[str, str] = {lang: LANGUAGE_PACK[lang]["dateformat"] for lang in LANGUAGES}
ENGLISH_DATEFORMAT = DEFAULT_DATEFORMAT["en"]  # "D M d, Y g:i a"
_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_DAYS_FULL = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_MONTHS_FULL = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)  # fmt: skip


def _pack(lang: str) -> dict[str, Any]:
    found = LANGUAGE_PACK.get(lang)
    if not isinstance(found, dict) or lang.startswith("_") or lang == "zones":
        raise ValueError(f"{lang!r}: the board speaks {', '.join(LANGUAGES)}")
    return found


def translate(lang: str, english: str, *args: object) -> str:
    """`english` (a text of phpBB's English pack, as the board's constants and templates hold it) in `lang`,
    with `args` put in its `{}` places. A key may carry a context after `@@` to tell two uses apart."""
    phrases: dict[str, str] = _pack(lang)["phrases"]
    text = phrases.get(english)
    if text is None:
        text = english.partition("@@")[0]
    return text.format(*args) if args else text


def _plural_form(lang: str, n: int) -> int:
    """phpBB's plural rules: 1 (English: one, other) and 7 (Russian: one, few, many)."""
    if _pack(lang)["plural_rule"] == 7:
        if n % 10 == 1 and n % 100 != 11:
            return 1
        return 2 if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14 else 3
    return 1 if n == 1 else 2


def plural(lang: str, n: int, forms: Sequence[str | None]) -> str:
    """phpBB's lang() with a number: form 0 for zero when there is one, else the language's plural form."""
    if n == 0 and forms and forms[0] is not None:
        chosen = forms[0]
    else:
        index = min(_plural_form(lang, n), len(forms) - 1)
        while forms[index] is None and index > 1:
            index -= 1
        chosen = forms[index] or ""
    return chosen.replace("%d", str(n))


def count_text(lang: str, n: int, what: str) -> str:
    """ "9 сообщений", "1 topic": `what` is one of the pack's plural tables (posts, topics, messages, edited)."""
    return plural(lang, n, _pack(lang)["plurals"][what])


def zone_name(lang: str, zone: str) -> str:
    """A time zone's name as the language pack prints it ("Европа/Москва", "America/Los Angeles")."""
    if lang == "en":
        return zone.replace("_", " ")
    names: dict[str, str] = _pack(lang)["timezones"]
    return names.get(zone, zone)


def _zone_key(tz: tzinfo) -> str:
    return getattr(tz, "key", None) or str(tz)


def _php_date(fmt: str, local: datetime, lang: str) -> str:
    """PHP's date() of `local` (an aware datetime), the names in `lang` as phpBB's language pack puts them."""
    words: dict[str, Any] = _pack(lang)["datetime"]

    def word(english: str) -> str:
        found = words.get(english)
        return found if isinstance(found, str) else english

    short_may = "M" in fmt.replace("\\M", "")
    offset = local.utcoffset() or timedelta(0)
    seconds = int(offset.total_seconds())
    sign = "+" if seconds >= 0 else "-"
    hh, mm = divmod(abs(seconds) // 60, 60)
    iso_year, iso_week, iso_day = local.isocalendar()
    out: list[str] = []
    i = 0
    while i < len(fmt):
        c = fmt[i]
        i += 1
        if c == "\\" and i < len(fmt):
            out.append(fmt[i])
            i += 1
            continue
        month = _MONTHS[local.month - 1]
        if c == "d":
            out.append(f"{local.day:02d}")
        elif c == "D":
            out.append(word(_DAYS[local.weekday()]))
        elif c == "j":
            out.append(str(local.day))
        elif c == "l":
            out.append(word(_DAYS_FULL[local.weekday()]))
        elif c == "N":
            out.append(str(iso_day))
        elif c == "S":
            out.append("th" if 11 <= local.day <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(local.day % 10, "th"))
        elif c == "w":
            out.append(str(iso_day % 7))
        elif c == "z":
            out.append(str(local.timetuple().tm_yday - 1))
        elif c == "W":
            out.append(f"{iso_week:02d}")
        elif c == "F":
            full = _MONTHS_FULL[local.month - 1]
            out.append(word("May_short") if full == "May" and short_may and "May_short" in words else word(full))
        elif c == "m":
            out.append(f"{local.month:02d}")
        elif c == "M":
            out.append(word("May_short") if month == "May" and "May_short" in words else word(month))
        elif c == "n":
            out.append(str(local.month))
        elif c == "t":
            nxt = (local.replace(day=28) + timedelta(days=4)).replace(day=1)
            out.append(str((nxt - timedelta(days=1)).day))
        elif c == "L":
            year = local.year
            out.append("1" if year % 4 == 0 and (year % 100 != 0 or year % 400 == 0) else "0")
        elif c == "o":
            out.append(str(iso_year))
        elif c == "Y":
            out.append(str(local.year))
        elif c == "y":
            out.append(f"{local.year % 100:02d}")
        elif c == "a":
            out.append("am" if local.hour < 12 else "pm")
        elif c == "A":
            out.append("AM" if local.hour < 12 else "PM")
        elif c == "g":
            out.append(str(local.hour % 12 or 12))
        elif c == "G":
            out.append(str(local.hour))
        elif c == "h":
            out.append(f"{local.hour % 12 or 12:02d}")
        elif c == "H":
            out.append(f"{local.hour:02d}")
        elif c == "i":
            out.append(f"{local.minute:02d}")
        elif c == "s":
            out.append(f"{local.second:02d}")
        elif c == "u":
            out.append(f"{local.microsecond:06d}")
        elif c == "v":
            out.append(f"{local.microsecond // 1000:03d}")
        elif c == "e":
            out.append(_zone_key(local.tzinfo) if local.tzinfo else "UTC")
        elif c == "I":
            out.append("1" if local.dst() else "0")
        elif c == "O":
            out.append(f"{sign}{hh:02d}{mm:02d}")
        elif c in "Pp":
            out.append("Z" if c == "p" and seconds == 0 else f"{sign}{hh:02d}:{mm:02d}")
        elif c == "T":
            out.append(local.tzname() or "UTC")
        elif c == "Z":
            out.append(str(seconds))
        elif c == "c":
            out.append(_php_date("Y-m-d\\TH:i:sP", local, lang))
        elif c == "r":
            out.append(_php_date("D, d M Y H:i:s O", local, lang))
        elif c == "U":
            out.append(str(int(local.timestamp())))
        else:
            out.append(c)
    return "".join(out)


def format_date(
    moment: datetime,
    tz: tzinfo,
    dateformat: str = ENGLISH_DATEFORMAT,
    *,
    lang: str = "en",
    now: datetime | None = None,
    absolute: bool = False,
) -> str:
    """A date as phpBB's user->format_date() prints it for a viewer of language `lang`, time zone `tz` and
    date format `dateformat` (PHP date() letters; default phpBB's English `D M d, Y g:i a`, "Sun Nov 29, 2026
    5:32 pm"). A `|...|` part makes it relative to `now` (default the wall clock) unless `absolute`: "less
    than a minute ago", "6 minutes ago" (up to an hour, whole minutes), "Today, 11:49", "Yesterday, 18:00",
    else the format without the bars ("29 Nov 2026, 18:23")."""
    local = moment.astimezone(tz)
    if "|" in dateformat and not absolute:
        words: dict[str, Any] = _pack(lang)["datetime"]
        current = now if now is not None else datetime.now(UTC)
        stamp, now_stamp = int(moment.timestamp()), int(current.timestamp())
        delta = now_stamp - stamp
        same_minute = (now_stamp // 60) % 60 == (stamp // 60) % 60
        if -60 < delta <= 3600 and (delta >= -5 or same_minute):
            return plural(lang, max(0, delta // 60), words["AGO"])
        midnight = int(current.astimezone(tz).replace(hour=0, minute=0, second=0, microsecond=0).timestamp())
        day = None
        if stamp <= midnight + 2 * 86400:
            if stamp > midnight + 86400:
                day = "TOMORROW"
            elif stamp > midnight:
                day = "TODAY"
            elif stamp > midnight - 86400:
                day = "YESTERDAY"
        if day is not None:
            short = dateformat[: dateformat.index("|")] + "||" + dateformat[dateformat.rindex("|") + 1 :]
            return _php_date(short, local, lang).replace("||", words[day])
    return _php_date(dateformat.replace("|", ""), local, lang)


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).replace(microsecond=0).isoformat()


def _aware(moment: datetime | None, default: Callable[[], datetime]) -> datetime:
    if moment is None:
        return default()
    if moment.tzinfo is None:
        raise ValueError(f"{moment!r}: times on the board must be aware (give a tzinfo)")
    return moment


# --- state ---------------------------------------------------------------------------------------


@dataclass
class User:
    """A member. `lang`, `dateformat` and `tz` are the UCP board preferences the member's pages are printed
    with (None: the board's defaults); `needs_approval` puts the member's posts in the moderation queue
    (phpBB's "Newly registered users" with f_noapprove = never)."""

    user_id: int
    name: str
    password: str | None = field(default=None, repr=False)
    moderator: bool = False  # a global moderator: moderates every forum (mcp.php quickmod, any post, the queue)
    colour: str | None = None  # a coloured group's colour, e.g. "AA0000": `a.username-coloured`
    joined: datetime = field(default_factory=lambda: datetime.now(UTC))
    lang: str = "en"
    dateformat: str | None = None
    tz: str | None = None
    needs_approval: bool = False


@dataclass
class Forum:
    forum_id: int
    name: str
    description: str = ""
    public: bool = False  # guests may read; private forums answer guests with a login wall
    parent_id: int | None = None  # the category (or forum) it sits in: breadcrumbs, jumpbox
    category: bool = False
    moderators: tuple[str, ...] = ()  # its own moderators: they moderate it, and its pages name them


@dataclass
class Post:
    post_id: int
    topic_id: int
    author: str
    body: str  # BBCode source (or HTML when `html`)
    time: datetime
    subject: str
    html: bool = False
    guest: bool = False  # posted by a guest (or a deleted user): `span.username`, no profile
    edited_by: str | None = None
    edit_count: int = 0
    edit_reason: str | None = None
    edited_at: datetime | None = None
    version: int = 0  # bumped by every edit
    approved: bool = True  # False: in the moderation queue, seen by the forum's moderators only
    deleted_by: str | None = None  # soft-deleted: seen by the forum's moderators only, struck through
    deleted_at: datetime | None = None
    delete_reason: str = ""

    @property
    def edited(self) -> bool:
        return self.edit_count > 0

    @property
    def deleted(self) -> bool:
        return self.deleted_by is not None

    @property
    def visible(self) -> bool:
        """Whether members and guests see it (approved and not deleted)."""
        return self.approved and self.deleted_by is None


@dataclass
class Topic:
    topic_id: int
    forum_id: int
    title: str
    locked: bool = False
    views: int = 0
    posts: list[Post] = field(default_factory=list)  # in phpBB's order: post time, then id


@dataclass
class PrivateMessage:
    pm_id: int
    sender: str
    recipients: tuple[str, ...]
    subject: str
    body: str
    time: datetime
    read_by: set[str] = field(default_factory=set)

    @property
    def read(self) -> bool:
        """Whether every recipient has opened it."""
        return all(name in self.read_by for name in self.recipients)

    def is_read_by(self, user: str) -> bool:
        return user in self.read_by


class Board:
    """The board's state and its settings. Every method takes the board's lock; what it returns are copies.

    Settings (keyword arguments, also attributes): `language` ("en" or "ru": guests' pages and the members'
    default), `timezone` (the board's zone: guests' and the members' default), `dateformat` (the members'
    default, None: the language's own, "D M d, Y g:i a" in English, "|d M Y|, H:i" in Russian),
    `flood_interval` (seconds between two posts or PMs of a member, one clock for both),
    `max_pm_recipients` (phpBB's group setting, 5 for Registered users by default; 0: no limit),
    `max_login_attempts` (failed logins after which the login form asks for a CAPTCHA, 0: never),
    `captcha_code` (the code that solves that CAPTCHA; None: nothing does, as a bot cannot read the
    image), `quick_reply` (the quick reply form under a topic), `pm_folder_limit` (messages per PM folder;
    more than 0 prints "Folder is N% full").
    """

    def __init__(
        self,
        name: str = "Mafia Test Board",
        description: str = "Local acceptance-test board (loopback only)",
        *,
        now: Callable[[], datetime] | None = None,
        language: str = "en",
        timezone: str = "UTC",
        dateformat: str | None = None,
        flood_interval: float = 0.0,
        max_pm_recipients: int = 5,
        max_login_attempts: int = 0,
        captcha_code: str | None = None,
        quick_reply: bool = True,
        pm_folder_limit: int = 0,
    ) -> None:
        _pack(language)
        ZoneInfo(timezone)
        self.name = name
        self.description = description
        self.now: Callable[[], datetime] = now or (lambda: datetime.now(UTC))
        self.language = language
        self.timezone = timezone
        self.dateformat = dateformat
        self.flood_interval = flood_interval
        self.max_pm_recipients = max_pm_recipients
        self.max_login_attempts = max_login_attempts
        self.captcha_code = captcha_code
        self.quick_reply = quick_reply
        self.pm_folder_limit = pm_folder_limit
        self.lock = threading.RLock()
        self._users: dict[str, User] = {}  # by lower-cased name
        self._users_by_id: dict[int, User] = {}
        self._forums: dict[int, Forum] = {}
        self._topics: dict[int, Topic] = {}
        self._posts: dict[int, Post] = {}
        self._pms: dict[int, PrivateMessage] = {}
        self._next_user = FIRST_USER_ID
        self._next_forum = 1
        self._next_topic = 1
        self._next_post = 1
        self._next_pm = 1
        self._post_counts: dict[str, int] = {}

    @classmethod
    def russian(
        cls,
        name: str = "Форум мафии (тест)",
        description: str = "Local phpBB 3.3.11 board for forumbot tests",
        *,
        bot: str | None = None,
        bot_password: str | None = None,
        **settings: Any,
    ) -> Board:
        """A board set up like the captured Russian one (fixtures/phpbb-ru): Russian language pack, Moscow
        time, "|d M Y|, H:i" dates, 2 s flood interval, at most 5 PM recipients, a CAPTCHA after 3 failed
        logins, PM folders of 50, no quick reply. `settings` override any of them. With `bot`, the bot's
        account (user 58, as captured) and the game forum it moderates (forum 3 "Мафия", readable by guests)
        are made too."""
        defaults: dict[str, Any] = {
            "language": "ru",
            "timezone": "Europe/Moscow",
            "flood_interval": 2.0,
            "max_pm_recipients": 5,
            "max_login_attempts": 3,
            "quick_reply": False,
            "pm_folder_limit": 50,
        }
        board = cls(name, description, **(defaults | settings))
        if bot is not None:
            board.add_user(bot, bot_password, user_id=58)
            board.add_forum(
                "Мафия", forum_id=3, public=True, description="Игры в мафию. Ведущий — бот.", moderators=[bot]
            )
        return board

    # -- users and forums -------------------------------------------------------------------------

    def add_user(
        self,
        name: str,
        password: str | None = None,
        *,
        user_id: int | None = None,
        moderator: bool = False,
        colour: str | None = None,
        joined: datetime | None = None,
        lang: str | None = None,
        dateformat: str | None = None,
        tz: str | None = None,
        needs_approval: bool = False,
    ) -> int:
        """Register a member; returns its id. Names are unique regardless of case, as in phpBB. `lang`
        (default the board's language), `dateformat` and `tz` (default the board's) are its preferences."""
        with self.lock:
            if name.lower() in self._users:
                raise ValueError(f"{name!r}: a user of that name exists")
            uid = self._next_user if user_id is None else user_id
            if uid in self._users_by_id or uid <= ANONYMOUS:
                raise ValueError(f"user id {uid} is taken")
            language = self.language if lang is None else lang
            _pack(language)
            if tz is not None:
                ZoneInfo(tz)
            user = User(
                uid,
                name,
                password,
                moderator,
                colour.lstrip("#") if colour else None,
                _aware(joined, self.now),
                language,
                dateformat,
                tz,
                needs_approval,
            )
            self._users[name.lower()] = user
            self._users_by_id[uid] = user
            self._next_user = max(self._next_user, uid + 1)
            return uid

    def set_moderator(self, name: str, moderator: bool = True, *, forum: int | None = None) -> None:
        """Make `name` a global moderator (or not); with `forum`, a moderator of that forum only."""
        with self.lock:
            user = self._user(name)
            if forum is None:
                user.moderator = moderator
                return
            found = self._forums.get(forum)
            if found is None:
                raise KeyError(f"no forum {forum}")
            names = [n for n in found.moderators if n.lower() != user.name.lower()]
            found.moderators = tuple([*names, user.name] if moderator else names)

    def set_preferences(
        self,
        name: str,
        *,
        lang: str | None = None,
        dateformat: str | None = None,
        tz: str | None = None,
        needs_approval: bool | None = None,
    ) -> None:
        """Change a member's board preferences (as the UCP form does) or approval status."""
        with self.lock:
            user = self._user(name)
            if lang is not None:
                _pack(lang)
                user.lang = lang
            if dateformat is not None:
                user.dateformat = dateformat
            if tz is not None:
                ZoneInfo(tz)
                user.tz = tz
            if needs_approval is not None:
                user.needs_approval = needs_approval

    def is_moderator(self, name: str | None, forum_id: int) -> bool:
        """Whether the member moderates the forum (globally or as one of its own moderators)."""
        with self.lock:
            user = self._users.get(name.lower()) if name else None
            if user is None:
                return False
            forum = self._forums.get(forum_id)
            return user.moderator or (forum is not None and user.name in forum.moderators)

    def user(self, name: str) -> User | None:
        with self.lock:
            found = self._users.get(name.lower())
            return dataclasses.replace(found) if found else None

    @property
    def users(self) -> list[User]:
        with self.lock:
            return [dataclasses.replace(u) for u in self._users_by_id.values()]

    def _user(self, name: str) -> User:
        found = self._users.get(name.lower())
        if found is None:
            raise KeyError(f"{name!r}: no such user")
        return found

    def _author(self, name: str, guest: bool) -> str:
        """The stored author name; an unknown author becomes a member (no password) unless a guest."""
        if guest:
            return name
        found = self._users.get(name.lower())
        if found is None:
            self.add_user(name)
            found = self._users[name.lower()]
        return found.name

    def add_forum(
        self,
        name: str,
        *,
        forum_id: int | None = None,
        public: bool = False,
        description: str = "",
        parent: int | None = None,
        category: bool = False,
        moderators: Sequence[str] = (),
    ) -> int:
        """A forum; private (guests get a login wall) unless `public`. `parent` is the id of the category
        (`category=True`) or forum it sits in; `moderators` are its own moderators (members, made if unknown)."""
        with self.lock:
            fid = self._next_forum if forum_id is None else forum_id
            if fid in self._forums:
                raise ValueError(f"forum id {fid} is taken")
            if parent is not None and parent not in self._forums:
                raise KeyError(f"no forum {parent}")
            names = tuple(self._author(n, False) for n in moderators)
            self._forums[fid] = Forum(fid, name, description, public, parent, category, names)
            self._next_forum = max(self._next_forum, fid + 1)
            return fid

    @property
    def forums(self) -> list[Forum]:
        with self.lock:
            return [dataclasses.replace(f) for f in self._forums.values()]

    # -- topics and posts -------------------------------------------------------------------------

    def add_topic(
        self,
        forum_id: int,
        title: str,
        author: str,
        body: str,
        time: datetime | None = None,
        *,
        topic_id: int | None = None,
        post_id: int | None = None,
        locked: bool = False,
        html: bool = False,
    ) -> int:
        """A topic and its first post; returns the topic id. An unknown forum id is created (private)."""
        with self.lock:
            if forum_id not in self._forums:
                self.add_forum(f"Forum {forum_id}", forum_id=forum_id)
            tid = self._next_topic if topic_id is None else topic_id
            if tid in self._topics:
                raise ValueError(f"topic id {tid} is taken")
            self._topics[tid] = Topic(tid, forum_id, title, locked)
            self._next_topic = max(self._next_topic, tid + 1)
            self.add_post(tid, author, body, time, subject=title, post_id=post_id, html=html)
            return tid

    def add_post(
        self,
        topic_id: int,
        author: str,
        body: str,
        time: datetime | None = None,
        *,
        edited_by: str | None = None,
        edit_reason: str | None = None,
        edit_count: int | None = None,
        edited_at: datetime | None = None,
        subject: str | None = None,
        post_id: int | None = None,
        html: bool = False,
        guest: bool = False,
        approved: bool = True,
    ) -> int:
        """A post (BBCode, or HTML when `html`); returns its id. `edited_by` makes it show as edited
        (`edit_count` times, default 1, last at `edited_at`, default a minute after `time`); `approved=False`
        puts it in the moderation queue."""
        with self.lock:
            topic = self._topic(topic_id)
            when = _aware(time, self.now)
            pid = self._next_post if post_id is None else post_id
            if pid in self._posts:
                raise ValueError(f"post id {pid} is taken")
            post = Post(
                pid,
                topic_id,
                self._author(author, guest),
                body.replace("\r\n", "\n"),
                when,
                subject if subject is not None else f"Re: {topic.title}",
                html=html,
                guest=guest,
                approved=approved,
            )
            if edited_by is not None or edit_count or edit_reason is not None:
                post.edited_by = self._author(edited_by, False) if edited_by is not None else post.author
                post.edit_count = edit_count if edit_count is not None else 1
                post.edit_reason = edit_reason
                post.edited_at = _aware(edited_at, lambda: when + timedelta(minutes=1))
            self._posts[pid] = post
            if approved:
                self._post_counts[post.author] = self._post_counts.get(post.author, 0) + 1
            self._next_post = max(self._next_post, pid + 1)
            keys = [(p.time, p.post_id) for p in topic.posts]
            topic.posts.insert(bisect.bisect(keys, (post.time, post.post_id)), post)
            return pid

    def edit_post(
        self,
        post_id: int,
        body: str | None = None,
        *,
        editor: str | None = None,
        reason: str | None = None,
        time: datetime | None = None,
        subject: str | None = None,
        track: bool = True,
    ) -> None:
        """Change a post. `track` (default) records the edit as phpBB shows it ("Last edited by `editor`
        (default the author) on `time`, edited N times in total", with the reason if any); `track=False`
        is an edit phpBB does not show (the topic's last post by its author, a moderator without reason).
        `edit_post_as` decides that as phpBB does."""
        with self.lock:
            post = self._post(post_id)
            if body is not None:
                post.body = body.replace("\r\n", "\n")
            if subject is not None:
                post.subject = subject
            post.version += 1
            if track:
                post.edited_by = self._author(editor, False) if editor is not None else post.author
                post.edit_count += 1
                post.edit_reason = reason
                post.edited_at = _aware(time, self.now)

    def edit_post_as(
        self,
        post_id: int,
        editor: str,
        body: str | None = None,
        *,
        reason: str | None = None,
        time: datetime | None = None,
        subject: str | None = None,
    ) -> bool:
        """`editor` edits the post, and phpBB decides whether the edit shows (submit_post() in
        functions_posting.php): it is recorded ("Last edited by ...", the count goes up) only when a reason is
        given, or when the editor does not moderate the forum and the post is not the topic's last one (of the
        approved, not deleted posts).
        Otherwise it leaves no trace (a moderator without a reason, an author editing the last post). Returns
        whether the edit was recorded."""
        with self.lock:
            post = self._post(post_id)
            topic = self._topic(post.topic_id)
            moderator = self.is_moderator(editor, topic.forum_id)
            public = [p for p in topic.posts if p.visible]
            last = bool(public) and public[-1] is post  # phpBB's topic_last_post_id: approved, not deleted
            reason = (reason or "").strip() or None
            track = reason is not None or (not moderator and not last)
            self.edit_post(post_id, body, editor=editor, reason=reason, time=time, subject=subject, track=track)
            return track

    def soft_delete_post(self, post_id: int, by: str, reason: str = "", time: datetime | None = None) -> None:
        """Soft-delete a post as `by` (a moderator) would with "delete permanently" unchecked: it stays in the
        topic for the forum's moderators, struck through with "`by` deleted the post ... for the following
        reason", and disappears for everybody else."""
        with self.lock:
            post = self._post(post_id)
            if post.deleted_by is None and post.approved:
                self._post_counts[post.author] = max(0, self._post_counts.get(post.author, 0) - 1)
            post.deleted_by = self._author(by, False)
            post.deleted_at = _aware(time, self.now)
            post.delete_reason = reason.strip()
            post.version += 1

    def restore_post(self, post_id: int) -> None:
        """Undo a soft delete."""
        with self.lock:
            post = self._post(post_id)
            if post.deleted_by is not None and post.approved:
                self._post_counts[post.author] = self._post_counts.get(post.author, 0) + 1
            post.deleted_by, post.deleted_at, post.delete_reason = None, None, ""
            post.version += 1

    def approve_post(self, post_id: int, approved: bool = True) -> None:
        """Take a post out of the moderation queue (or put it back)."""
        with self.lock:
            post = self._post(post_id)
            if post.approved != approved and post.deleted_by is None:
                change = 1 if approved else -1
                self._post_counts[post.author] = max(0, self._post_counts.get(post.author, 0) + change)
            post.approved = approved
            post.version += 1

    def lock_topic(self, topic_id: int, locked: bool = True) -> None:
        with self.lock:
            self._topic(topic_id).locked = locked

    def topic(self, topic_id: int) -> Topic:
        """A copy of the topic with copies of its posts (the unapproved and soft-deleted ones too)."""
        with self.lock:
            found = self._topic(topic_id)
            return dataclasses.replace(found, posts=[dataclasses.replace(p) for p in found.posts])

    @property
    def topics(self) -> list[Topic]:
        with self.lock:
            return [self.topic(tid) for tid in self._topics]

    def post(self, post_id: int) -> Post:
        with self.lock:
            return dataclasses.replace(self._post(post_id))

    def posts_of(self, topic: int | Topic) -> list[Post]:
        """The topic's posts in display order (copies)."""
        return self.topic(topic.topic_id if isinstance(topic, Topic) else topic).posts

    def _topic(self, topic_id: int) -> Topic:
        found = self._topics.get(topic_id)
        if found is None:
            raise KeyError(f"no topic {topic_id}")
        return found

    def _post(self, post_id: int) -> Post:
        found = self._posts.get(post_id)
        if found is None:
            raise KeyError(f"no post {post_id}")
        return found

    # -- private messages -------------------------------------------------------------------------

    def send_pm(
        self,
        sender: str,
        to: str | Sequence[str],
        subject: str,
        body: str,
        time: datetime | None = None,
        *,
        pm_id: int | None = None,
        read: bool = False,
    ) -> int:
        """A private message from `sender` to one or more members; returns its id."""
        with self.lock:
            recipients = (to,) if isinstance(to, str) else tuple(to)
            if not recipients:
                raise ValueError("a PM needs at least one recipient")
            names = tuple(self._user(name).name for name in recipients)
            mid = self._next_pm if pm_id is None else pm_id
            if mid in self._pms:
                raise ValueError(f"PM id {mid} is taken")
            message = PrivateMessage(
                mid, self._author(sender, False), names, subject, body.replace("\r\n", "\n"), _aware(time, self.now)
            )
            if read:
                message.read_by.update(names)
            self._pms[mid] = message
            self._next_pm = max(self._next_pm, mid + 1)
            return mid

    def mark_pm_read(self, pm_id: int, user: str, read: bool = True) -> None:
        with self.lock:
            message = self._pm(pm_id)
            name = self._user(user).name
            if read:
                message.read_by.add(name)
            else:
                message.read_by.discard(name)

    def pm(self, pm_id: int) -> PrivateMessage:
        with self.lock:
            return _copy_pm(self._pm(pm_id))

    def pms_to(self, user: str) -> list[PrivateMessage]:
        """PMs the member received, newest first (the inbox order)."""
        with self.lock:
            name = self._user(user).name
            found = [m for m in self._pms.values() if name in m.recipients]
            return [_copy_pm(m) for m in sorted(found, key=lambda m: (m.time, m.pm_id), reverse=True)]

    def pms_from(self, user: str) -> list[PrivateMessage]:
        """PMs the member sent, newest first."""
        with self.lock:
            name = self._user(user).name
            found = [m for m in self._pms.values() if m.sender == name]
            return [_copy_pm(m) for m in sorted(found, key=lambda m: (m.time, m.pm_id), reverse=True)]

    def _pm(self, pm_id: int) -> PrivateMessage:
        found = self._pms.get(pm_id)
        if found is None:
            raise KeyError(f"no PM {pm_id}")
        return found


def _copy_pm(message: PrivateMessage) -> PrivateMessage:
    return dataclasses.replace(message, read_by=set(message.read_by))


# --- the HTTP side ---------------------------------------------------------------------------------


@dataclass
class RequestRecord:
    """One request the server received: `time` is its arrival (the server's clock), `status` is filled
    in once the answer is sent (0 until then)."""

    method: str
    path: str
    query: str
    time: float
    status: int = 0
    user: str | None = None  # the member the request was served as, None for a guest

    @property
    def params(self) -> dict[str, str]:
        return dict(parse_qsl(self.query, keep_blank_values=True))


@dataclass
class _Session:
    sid: str
    user_id: int  # ANONYMOUS for a guest
    user_agent: str
    confirm_key: str | None = None  # the confirm box's single-use key (phpBB's user_last_confirm_key)
    captcha_id: str | None = None  # the login CAPTCHA shown to this session


@dataclass
class _Response:
    status: int
    body: bytes = b""
    headers: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class _Request:
    method: str
    path: str
    query: dict[str, str]
    form: dict[str, str]
    headers: Mapping[str, str] | Message
    cookies: dict[str, str]
    base_url: str
    session: _Session | None = None
    user: User | None = None
    set_cookies: list[str] = field(default_factory=list)
    new_session: bool = False  # the session began with this request: links carry `sid=`
    viewer: _Viewer | None = None


@dataclass(frozen=True)
class _Viewer:
    """How the request's pages are printed: the member's (or the board's, for a guest) language, time zone
    and date format, and the server's time."""

    lang: str
    tz: tzinfo
    dateformat: str
    now: datetime

    def t(self, english: str, *args: object) -> str:
        return translate(self.lang, english, *args)

    def date(self, moment: datetime, *, absolute: bool = False) -> str:
        return format_date(moment, self.tz, self.dateformat, lang=self.lang, now=self.now, absolute=absolute)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out in two writes: no 40 ms delayed-ACK stalls
    server_version = "Apache"
    sys_version = ""
    app: BoardServer  # set on the subclass each server makes

    def setup(self) -> None:
        super().setup()
        with self.app._state:
            self.app._connections.add(self.connection)

    def finish(self) -> None:
        with self.app._state:
            self.app._connections.discard(self.connection)
        super().finish()

    def do_GET(self) -> None:  # noqa: N802 (the stdlib's naming)
        self.app._serve(self)

    def do_POST(self) -> None:  # noqa: N802
        self.app._serve(self)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        return


class BoardServer:
    """`board` over HTTP on 127.0.0.1, as phpBB 3.3.11 (prosilver) would serve it, each member's pages in the
    member's language, time zone and date format (guests': the board's).

    `latency` seconds are added to every answer; `posts_per_page` is phpBB's setting (10 on the captured
    board); `flood_interval` (default the board's) seconds must pass between two posts or PMs of a member;
    `board_tz` (default the board's `timezone`) is the guests' and the members' default time zone. `clock`
    (default `time.time`) is the server's time: form tokens, flood control, relative dates and the times of
    posts made over HTTP use it, so a test can move it on instead of sleeping. Start and stop it with `with`
    (or `start()` / `stop()`).
    """

    def __init__(
        self,
        board: Board,
        *,
        latency: float = 0.0,
        posts_per_page: int = 10,
        flood_interval: float | None = None,
        board_tz: str | tzinfo | None = None,
        topics_per_page: int = 25,
        form_lifetime: int = 7200,
        clock: Callable[[], float] | None = None,
        port: int = 0,
    ) -> None:
        if posts_per_page < 1 or topics_per_page < 1:
            raise ValueError("pages hold at least one item")
        self.board = board
        self.latency = latency
        self.posts_per_page = posts_per_page
        self.topics_per_page = topics_per_page
        self._flood_interval = flood_interval
        self.form_lifetime = form_lifetime
        zone = board.timezone if board_tz is None else board_tz
        self.tz: tzinfo = ZoneInfo(zone) if isinstance(zone, str) else zone
        self.clock: Callable[[], float] = clock or _time.time
        self.cookie_prefix = "phpbb3_" + "".join(
            secrets.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(5)
        )
        self.requests: list[RequestRecord] = []
        self.errors: list[str] = []  # tracebacks of requests the fake board itself failed (answered 500)
        self._port = port
        self._state = threading.RLock()
        self._sessions: dict[str, _Session] = {}
        self._autologin: dict[str, int] = {}  # autologin key -> user id
        self._salts: dict[int, str] = {}
        self._last_post: dict[int, float] = {}
        self._login_attempts: dict[int, int] = {}  # user id -> failed logins since the last success
        self._fail_next: list[tuple[int, float | None]] = []
        self._fail_paths: dict[str, tuple[int, float | None]] = {}
        # Faults that strike after the board acted (the post is stored, the PM sent): "503", "429",
        # "reset" (the connection closes with no answer) or "slow" (the answer comes after `slow_for` s).
        self._after_acting: list[tuple[str, str]] = []
        self.slow_for = 2.0
        self._html_cache: dict[tuple[Any, ...], str] = {}
        self._env = jinja2.Environment(
            loader=jinja2.FileSystemLoader(str(SKELETONS)),
            autoescape=True,
            keep_trailing_newline=True,
            undefined=jinja2.StrictUndefined,
        )
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._connections: set[socket.socket] = set()  # open (kept-alive) connections, cut by stop()

    @property
    def flood_interval(self) -> float:
        """Seconds between two posts or PMs of a member: the server's own setting, else the board's."""
        return self.board.flood_interval if self._flood_interval is None else self._flood_interval

    @flood_interval.setter
    def flood_interval(self, seconds: float | None) -> None:
        self._flood_interval = seconds

    # -- life cycle -------------------------------------------------------------------------------

    def start(self) -> BoardServer:
        if self._httpd is not None:
            return self
        handler = type("BoardHandler", (_Handler,), {"app": self})
        httpd = ThreadingHTTPServer(("127.0.0.1", self._port), handler)
        httpd.daemon_threads = True
        self._httpd = httpd
        self._thread = threading.Thread(
            target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, name="phpbb-fake", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        httpd, self._httpd = self._httpd, None
        if httpd is not None:
            httpd.shutdown()
            httpd.server_close()
        with self._state:
            open_ones, self._connections = list(self._connections), set()
        for connection in open_ones:  # a stopped board answers nobody, kept-alive clients included
            try:
                connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> BoardServer:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("the board server is not running")
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        """The board's base URL, ending in `/`."""
        return f"http://127.0.0.1:{self.port}/"

    # -- what tests look at and control -------------------------------------------------------------

    @property
    def request_count(self) -> int:
        with self._state:
            return len(self.requests)

    def count(self, path: str | None = None, *, method: str | None = None, query: str | None = None) -> int:
        """Requests received whose path contains `path`, of `method`, whose query contains `query`."""
        with self._state:
            return sum(
                1
                for r in self.requests
                if (path is None or path in r.path)
                and (method is None or r.method == method.upper())
                and (query is None or query in r.query)
            )

    def reset_log(self) -> None:
        with self._state:
            self.requests.clear()

    def expire_sessions(self, *, keep_autologin: bool = False) -> None:
        """Forget every session, and the "remember me" keys unless `keep_autologin`: the next request of
        a client is then a guest's (the login wall), or logs it in again from its `_k` cookie."""
        with self._state:
            self._sessions.clear()
            if not keep_autologin:
                self._autologin.clear()

    def fail_next(self, n: int = 1, status: int = 503, retry_after: float | None = None) -> None:
        """Answer the next `n` requests with `status` (and `Retry-After`), doing nothing else."""
        with self._state:
            self._fail_next.extend([(status, retry_after)] * n)

    def fail_path(self, substr: str, status: int | None = 503, retry_after: float | None = None) -> None:
        """Answer every request whose path and query contain `substr` with `status`; `status=None` stops."""
        with self._state:
            if status is None:
                self._fail_paths.pop(substr, None)
            else:
                self._fail_paths[substr] = (status, retry_after)

    def fail_after_acting(self, substr: str, fault: str) -> None:
        """The next request whose path and query contain `substr` (e.g. "POST posting.php"; with
        "#name", only a POST whose form has the field `name`, e.g. "POST ucp.php#post" for the PM's send
        and not its add-recipients step) is carried out, and then its answer fails with `fault`: "503",
        "429", "reset" or "slow" (see `slow_for`)."""
        if fault not in ("503", "429", "reset", "slow"):
            raise ValueError(f"unknown fault {fault!r}")
        with self._state:
            self._after_acting.append((substr, fault))

    def clear_faults(self) -> None:
        with self._state:
            self._fail_next.clear()
            self._fail_paths.clear()
            self._after_acting.clear()

    def _take_after_acting(self, method: str, target: str, raw: bytes) -> str | None:
        fields = {name for name, _ in parse_qsl(raw.decode("latin-1"), keep_blank_values=True)} if raw else set()
        with self._state:
            for i, (substr, fault) in enumerate(self._after_acting):
                wanted_method, _, wanted = substr.rpartition(" ")
                wanted, _, field_name = wanted.partition("#")
                if field_name and field_name not in fields:
                    continue
                if wanted in target and (not wanted_method or wanted_method == method):
                    del self._after_acting[i]
                    return fault
        return None

    def session_count(self) -> int:
        with self._state:
            return len(self._sessions)

    def login_attempts(self, name: str) -> int:
        """The member's failed logins since its last successful one (phpBB's user_login_attempts)."""
        user = self.board.user(name)
        if user is None:
            raise KeyError(f"{name!r}: no such user")
        with self._state:
            return self._login_attempts.get(user.user_id, 0)

    def reset_login_attempts(self, name: str | None = None) -> None:
        """Forget the failed logins of `name` (default everybody's): no more CAPTCHA."""
        with self._state:
            if name is None:
                self._login_attempts.clear()
                return
            user = self.board.user(name)
            if user is not None:
                self._login_attempts.pop(user.user_id, None)

    # -- serving ----------------------------------------------------------------------------------

    def _serve(self, handler: _Handler) -> None:
        arrival = self.clock()
        split = urlsplit(handler.path)
        record = RequestRecord(handler.command, split.path, split.query, arrival)
        with self._state:
            self.requests.append(record)
        length = int(handler.headers.get("Content-Length") or 0)
        raw = handler.rfile.read(length) if length else b""
        fault: _Response | None = None
        try:
            fault = self._take_fault(f"{split.path}?{split.query}")
            if fault is not None:
                response = fault
            else:
                request = self._request(handler, split.path, split.query, raw)
                response = self._dispatch(request)
                response.headers.extend(("Set-Cookie", c) for c in request.set_cookies)
                record.user = request.user.name if request.user else None
        except Exception as exc:  # a bug in the fake board: show it, as PHP would print a fatal error
            self.errors.append(traceback.format_exc())
            response = _Response(500, f"<h1>Internal error</h1><pre>{type(exc).__name__}: {exc}</pre>".encode())
        target = f"{split.path}?{split.query}"
        late = self._take_after_acting(handler.command, target, raw) if fault is None else None
        if late == "reset":  # done, and the connection drops before any answer
            record.status = -1
            handler.close_connection = True
            try:
                handler.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            return
        if late == "slow":
            _time.sleep(self.slow_for)
        elif late in ("503", "429"):
            response = _Response(int(late), f"<html><body><h1>{late} Error</h1></body></html>".encode())
        if self.latency > 0:
            _time.sleep(self.latency)
        record.status = response.status
        handler.send_response(response.status)
        headers = dict.fromkeys(name.lower() for name, _ in response.headers)
        if "content-type" not in headers:
            handler.send_header("Content-Type", "text/html; charset=UTF-8")
        for name, value in response.headers:
            handler.send_header(name, value)
        handler.send_header("Cache-Control", 'private, no-cache="set-cookie"')
        handler.send_header("Expires", "0")
        handler.send_header("Pragma", "no-cache")
        handler.send_header("Content-Length", str(len(response.body)))
        handler.end_headers()
        if handler.command != "HEAD":
            handler.wfile.write(response.body)

    def _take_fault(self, target: str) -> _Response | None:
        with self._state:
            if self._fail_next:
                status, retry_after = self._fail_next.pop(0)
            else:
                hit = next((v for k, v in self._fail_paths.items() if k in target), None)
                if hit is None:
                    return None
                status, retry_after = hit
        headers = [("Retry-After", f"{retry_after:g}")] if retry_after is not None else []
        return _Response(status, f"<html><body><h1>{status} Error</h1></body></html>".encode(), headers)

    def _request(self, handler: _Handler, path: str, query: str, raw: bytes) -> _Request:
        cookies: dict[str, str] = {}
        jar: SimpleCookie = SimpleCookie()
        try:
            jar.load(handler.headers.get("Cookie") or "")
        except Exception:  # a cookie header the stdlib cannot read: PHP would skip the bad parts too
            jar = SimpleCookie()
        for name, morsel in jar.items():
            cookies[name] = morsel.value
        host = handler.headers.get("Host") or f"127.0.0.1:{self.port}"
        request = _Request(
            handler.command,
            path,
            dict(parse_qsl(query, keep_blank_values=True)),
            _form(handler.headers.get("Content-Type") or "", raw) if handler.command == "POST" else {},
            handler.headers,
            cookies,
            f"http://{host}/",
        )
        self._begin_session(request)
        return request

    def _dispatch(self, request: _Request) -> _Response:
        script = request.path.rsplit("/", 1)[-1] or "index.php"
        route = {
            "index.php": self._index,
            "viewtopic.php": self._viewtopic,
            "viewforum.php": self._viewforum,
            "ucp.php": self._ucp,
            "posting.php": self._posting,
            "mcp.php": self._mcp,
        }.get(script)
        if route is None or request.path.count("/") > 1:
            return _not_found()
        return route(request)

    # -- sessions, viewers and form tokens ------------------------------------------------------------

    def _begin_session(self, request: _Request) -> None:
        """phpBB's session_begin: the session named by the cookie (else `sid=`), bound to the User-Agent;
        else a "remember me" login from the `_k` cookie; else a new guest session (a dead or expired
        session's cookies included: phpBB silently starts a guest session and sets new cookies)."""
        agent = (request.headers.get("User-Agent") or "")[:149]
        sid = request.cookies.get(f"{self.cookie_prefix}_sid") or request.query.get("sid", "")
        with self._state:
            session = self._sessions.get(sid)
            if session is not None and session.user_agent == agent:
                request.session = session
            else:
                key = request.cookies.get(f"{self.cookie_prefix}_k", "")
                uid = self._autologin.get(key) if key else None
                if uid is not None and str(uid) == request.cookies.get(f"{self.cookie_prefix}_u"):
                    request.session = self._new_session(request, uid, key)
                else:
                    request.session = self._new_session(request, ANONYMOUS, "")
        with self.board.lock:
            user = self.board._users_by_id.get(request.session.user_id)
            request.user = dataclasses.replace(user) if user is not None else None
        request.viewer = self._viewer(request.user)

    def _viewer(self, user: User | None) -> _Viewer:
        board = self.board
        lang = user.lang if user is not None else board.language
        zone = ZoneInfo(user.tz) if user is not None and user.tz else self.tz
        fmt = (user.dateformat if user is not None else None) or board.dateformat or DEFAULT_DATEFORMAT[lang]
        return _Viewer(lang, zone, fmt, self._now())

    def _new_session(self, request: _Request, user_id: int, autologin_key: str) -> _Session:
        agent = (request.headers.get("User-Agent") or "")[:149]
        session = _Session(secrets.token_hex(16), user_id, agent)
        with self._state:
            self._sessions[session.sid] = session
        expires = "Fri, 01-Jan-2100 00:00:00 GMT"
        for name, value in (("u", str(user_id)), ("k", autologin_key), ("sid", session.sid)):
            request.set_cookies.append(f"{self.cookie_prefix}_{name}={value}; expires={expires}; path=/; HttpOnly")
        request.new_session = True
        return session

    def _salt(self, user_id: int) -> str:
        with self._state:
            return self._salts.setdefault(user_id, secrets.token_hex(8))

    def _tokens(self, request: _Request, form_name: str) -> list[tuple[str, str]]:
        """`creation_time` and `form_token` as phpBB's add_form_key() makes them."""
        now = int(self.clock())
        return [("creation_time", str(now)), ("form_token", self._token(request, form_name, now))]

    def _token(self, request: _Request, form_name: str, creation_time: int) -> str:
        uid = request.user.user_id if request.user else ANONYMOUS
        token_sid = request.session.sid if request.user is None and request.session else ""
        text = f"{creation_time}{self._salt(uid)}{form_name}{token_sid}"
        return hashlib.sha1(text.encode()).hexdigest()

    def _check_form(self, request: _Request, form_name: str) -> bool:
        """phpBB's check_form_key(): the token must match and the form must be between 1 second and
        `form_lifetime` seconds old (a form posted in the second it was made is refused)."""
        created = request.form.get("creation_time", "")
        token = request.form.get("form_token", "")
        if not created.isdigit() or not token:
            return False
        diff = int(self.clock()) - int(created)
        if diff == 0 or diff > self.form_lifetime:  # check_form_key(): `$diff && $diff <= $timespan`
            return False
        return secrets.compare_digest(token, self._token(request, form_name, int(created)))

    def _link_hash(self, request: _Request) -> str:
        uid = request.user.user_id if request.user else ANONYMOUS
        return hashlib.sha1(self._salt(uid).encode()).hexdigest()[:8]

    def _flooding(self, user: User) -> bool:
        with self._state:
            last = self._last_post.get(user.user_id)
        interval = self.flood_interval
        return last is not None and interval > 0 and self.clock() - last < interval

    def _posted(self, user: User) -> None:
        with self._state:
            self._last_post[user.user_id] = self.clock()

    def _now(self) -> datetime:
        return datetime.fromtimestamp(self.clock(), UTC)

    def _absolute(self, request: _Request, link: str) -> str:
        """A board link as phpBB's redirect() and meta_refresh() write it: absolute."""
        return request.base_url + link.removeprefix("./").lstrip("/")

    # -- page frame -------------------------------------------------------------------------------

    @staticmethod
    def _v(request: _Request) -> _Viewer:
        assert request.viewer is not None
        return request.viewer

    def _date(self, request: _Request, moment: datetime, *, absolute: bool = False) -> str:
        return self._v(request).date(moment, absolute=absolute)

    def _tz_label(self, viewer: _Viewer) -> tuple[str, str]:
        name = zone_name(viewer.lang, _zone_key(viewer.tz))
        offset = viewer.now.astimezone(viewer.tz).utcoffset() or timedelta(0)
        if offset == timedelta(0):
            return name, "UTC"
        return name, _offset_label(offset)

    def _userref(self, name: str, guest: bool = False) -> dict[str, Any]:
        """What the templates need to print a member: name, id (None: a guest), group colour."""
        found = None if guest else self.board._users.get(name.lower())
        if found is None:
            return {"name": name, "user_id": None, "colour": None}
        return {"name": found.name, "user_id": found.user_id, "colour": found.colour}

    def _username_html(self, name: str, guest: bool = False) -> Markup:
        """The `username` macro of macros.html, for texts built here."""
        who = self._userref(name, guest)
        if who["user_id"] is None:
            return Markup('<span class="username">{}</span>').format(who["name"])
        if who["colour"]:
            return Markup(
                '<a href="./memberlist.php?mode=viewprofile&amp;u={}" style="color: #{};" class="username-coloured">'
                "{}</a>"
            ).format(who["user_id"], who["colour"], who["name"])
        return Markup('<a href="./memberlist.php?mode=viewprofile&amp;u={}" class="username">{}</a>').format(
            who["user_id"], who["name"]
        )

    def _online(self) -> list[dict[str, Any]]:
        with self._state:
            ids = {s.user_id for s in self._sessions.values() if s.user_id != ANONYMOUS}
        users = [self.board._users_by_id[i] for i in ids if i in self.board._users_by_id]
        return [self._userref(u.name) for u in sorted(users, key=lambda u: u.name.lower())]

    def _online_ids(self) -> set[int]:
        with self._state:
            return {s.user_id for s in self._sessions.values()}

    def _unread(self, user: User | None) -> int:
        if user is None:
            return 0
        return sum(1 for m in self.board._pms.values() if user.name in m.recipients and user.name not in m.read_by)

    def _moderates(self, user: User | None, forum: Forum) -> bool:
        return user is not None and (user.moderator or user.name in forum.moderators)

    def _moderates_any(self, user: User | None) -> bool:
        return user is not None and (
            user.moderator or any(user.name in f.moderators for f in self.board._forums.values())
        )

    def _render(
        self,
        request: _Request,
        template: str,
        *,
        title: str,
        kind: str | None = None,
        section: str = "index",
        status: int = 200,
        **values: Any,
    ) -> _Response:
        """A whole page: the captured header and footer around `template`, with the viewer's menus, in the
        viewer's language (`title` is already in it)."""
        user = request.user
        viewer = self._v(request)
        t = viewer.t
        with self.board.lock:
            unread = self._unread(user)
            notifications = []
            if user is not None:
                mine = sorted(
                    (m for m in self.board._pms.values() if user.name in m.recipients),
                    key=lambda m: (m.time, m.pm_id),
                    reverse=True,
                )
                notifications = [
                    {
                        "pm_id": m.pm_id,
                        "sender": m.sender,
                        "subject": m.subject,
                        "time_text": viewer.date(m.time),
                        "unread": user.name not in m.read_by,
                    }
                    for m in mine[:5]
                ]
            me = self._userref(user.name) if user is not None else None
            mcp_link = self._moderates_any(user)
        if kind in ("topic", "forum"):
            html_title = f"{title} - {self.board.name}"
        elif kind == "ucp":
            html_title = f"{self.board.name} - {t('User Control Panel')} - {title}"
        elif kind == "mcp":
            html_title = f"{self.board.name} - {t('Moderator Control Panel')} - {title}"
        else:
            html_title = f"{self.board.name} - {title}"
        if unread:
            html_title = f"({unread}) {html_title}"
        sid_in_links = (
            user is None
            and request.session is not None
            and (request.new_session or f"{self.cookie_prefix}_sid" not in request.cookies)
        )
        guest_sid = request.session.sid if sid_in_links and request.session is not None else None
        tz_name, tz_label = self._tz_label(viewer)

        def u(link: str) -> str:
            if guest_sid is None:
                return link
            return f"{link}{'&' if '?' in link else '?'}sid={guest_sid}"

        pack = _pack(viewer.lang)
        context: dict[str, Any] = {
            "t": t,
            "lang": viewer.lang,
            "html_lang": pack["html_lang"],
            "sitename": self.board.name,
            "site_desc": self.board.description,
            "html_title": html_title,
            "section": section,
            "user": me,
            "mcp_link": mcp_link,
            "session_id": request.session.sid if request.session else "",
            "unread_pms": unread,
            "notifications": notifications,
            "link_hash": self._link_hash(request),
            "u": u,
            "crumbs": [],
            "canonical": None,
            "feed_forum": None,
            "feed_topic": None,
            "posting_page": False,
            "editor_js": False,
            "plupload_url": "",
            "meta_refresh": None,
            "tz_name": tz_name,
            "tz_label": tz_label,
            "login_redirect": None,
        }
        context.update(values)
        body = self._env.get_template(template).render(**context)
        return _Response(status, body.encode("utf-8"))

    def _message(
        self,
        request: _Request,
        text: str,
        *,
        title: str = "Information",
        status: int = 200,
        refresh: tuple[int, str] | None = None,
        links: Sequence[tuple[str, str]] = (),
        kind: str | None = None,
    ) -> _Response:
        """A trigger_error() page: `div#message` with a title and a text (English keys, printed in the
        viewer's language), `links` (English label, href) after it, `refresh` (seconds, board link) as a meta
        refresh to the absolute URL."""
        t = self._v(request).t
        body = Markup("{}").format(t(text))
        for label, href in links:
            body += Markup('<br /><br /><a href="{}">{}</a>').format(href, t(label))
        meta = (refresh[0], self._absolute(request, refresh[1])) if refresh else None
        return self._render(
            request,
            "message_body.html",
            title=t(title),
            kind=kind,
            status=status,
            message_title=t(title),
            message_text=body,
            meta_refresh=meta,
        )

    def _login_wall(
        self,
        request: _Request,
        explain: str | None,
        *,
        redirect: str | None = None,
        error: str | Markup | None = None,
        kind: str | None = None,
        captcha: bool = False,
    ) -> _Response:
        """login_body.html: the login page (`explain` None), and what phpBB serves instead of a page a
        guest may not see (`explain` says why, and the form sends the guest back to that page)."""
        t = self._v(request).t
        here = _page_link(request, sort=request.path.endswith("mcp.php"))
        if explain:
            first, second = redirect or here, None
            if request.session is not None and (
                request.new_session or f"{self.cookie_prefix}_sid" not in request.cookies
            ):
                first += f"{'&' if '?' in first else '?'}sid={request.session.sid}"
        else:
            first, second = here, redirect or "index.php"
        captcha_id = None
        if captcha and request.session is not None:
            with self._state:
                request.session.captcha_id = captcha_id = secrets.token_hex(16)
        return self._render(
            request,
            "login_body.html",
            title=t("Login"),
            kind=kind,
            section=request.path.strip("/").removesuffix(".php") or "index",
            login_explain=t(explain) if explain else None,
            login_error=error,
            login_username="",
            login_redirect_first=first,
            login_redirect=second,
            captcha_id=captcha_id,
            tokens=self._tokens(request, "login"),
        )

    def _jump_forums(self) -> list[dict[str, Any]]:
        """The jumpbox: every forum in tree order, categories as such, the others with their depth."""
        forums = self.board._forums
        children: dict[int | None, list[Forum]] = {}
        for forum in sorted(forums.values(), key=lambda f: f.forum_id):
            parent = forum.parent_id if forum.parent_id in forums else None
            children.setdefault(parent, []).append(forum)
        out: list[dict[str, Any]] = []

        def walk(parent: int | None, level: int) -> None:
            for forum in children.get(parent, []):
                out.append({"forum_id": forum.forum_id, "name": forum.name, "category": forum.category, "level": level})
                walk(forum.forum_id, level + 1)

        walk(None, 0)
        return out

    def _crumbs(self, forum: Forum) -> list[dict[str, Any]]:
        chain: list[Forum] = []
        at: Forum | None = forum
        while at is not None and at not in chain:
            chain.insert(0, at)
            at = self.board._forums.get(at.parent_id) if at.parent_id is not None else None
        return [{"forum_id": f.forum_id, "href": f"./viewforum.php?f={f.forum_id}", "name": f.name} for f in chain]

    def _render_bbcode(self, request: _Request, source: str) -> str:
        viewer = self._v(request)
        return render_bbcode(
            source, lambda stamp: viewer.date(datetime.fromtimestamp(stamp, UTC)), wrote=viewer.t("wrote:")
        )

    def _post_html(self, request: _Request, post: Post) -> str:
        if post.html:
            return post.body
        viewer = self._v(request)
        relative = "|" in viewer.dateformat and "time=" in post.body.lower()
        key = (post.post_id, post.version, viewer.lang, _zone_key(viewer.tz), viewer.dateformat)
        cached = None if relative else self._html_cache.get(key)
        if cached is None:
            cached = self._render_bbcode(request, post.body)
            if not relative:
                self._html_cache[key] = cached
        return cached

    def _sees(self, user: User | None, forum: Forum) -> Callable[[Post], bool]:
        """Which posts of the forum the viewer sees: its moderators all, everybody else the approved and
        not deleted ones."""
        if self._moderates(user, forum):
            return lambda post: True
        return lambda post: post.visible

    # -- index.php, viewforum.php, viewtopic.php -----------------------------------------------------

    def _can_read(self, request: _Request, forum: Forum) -> bool:
        return forum.public or request.user is not None

    def _index(self, request: _Request) -> _Response:
        t = self._v(request).t
        with self.board.lock:
            rows = []
            for forum in self.board._forums.values():
                if not self._can_read(request, forum):
                    continue
                sees = self._sees(request.user, forum)
                in_forum = (topic for topic in self.board._topics.values() if topic.forum_id == forum.forum_id)
                shown = [posts for posts in ([p for p in topic.posts if sees(p)] for topic in in_forum) if posts]
                last_post = max((posts[-1] for posts in shown), key=lambda p: (p.time, p.post_id), default=None)
                rows.append(
                    {
                        "forum": forum,
                        "topics": len(shown),
                        "posts": sum(len(posts) for posts in shown),
                        "last": self._post_summary(request, last_post) if last_post else None,
                    }
                )
            online = self._online()
        return self._render(
            request,
            "index_body.html",
            title=t("Index page"),
            forums=rows,
            online_users=online,
            now_text=self._date(request, self._now(), absolute=True),
        )

    def _post_summary(self, request: _Request, post: Post) -> dict[str, Any]:
        return {
            "post_id": post.post_id,
            "subject": post.subject,
            "author": self._userref(post.author, post.guest),
            "time_iso": _iso(post.time),
            "time_text": self._date(request, post.time),
        }

    def _viewforum(self, request: _Request) -> _Response:
        user = request.user
        viewer = self._v(request)
        with self.board.lock:
            forum = self.board._forums.get(_int(request.query.get("f")) or 0)
            if forum is None:
                return self._message(request, NO_FORUM, status=404)
            if not self._can_read(request, forum):
                return self._login_wall(request, LOGIN_VIEWFORUM)
            sees = self._sees(user, forum)
            moderator = self._moderates(user, forum)
            listed = []
            for topic in self.board._topics.values():
                shown = [p for p in topic.posts if sees(p)]
                if topic.forum_id == forum.forum_id and shown:
                    listed.append((topic, shown))
            listed.sort(key=lambda item: (item[1][-1].time, item[1][-1].post_id), reverse=True)
            per = self.topics_per_page
            start = _validate_start(_int(request.query.get("start")) or 0, per, len(listed))
            base = f"./viewforum.php?f={forum.forum_id}"
            rows = []
            for k, (topic, shown) in enumerate(listed[start : start + per]):
                pages = _pagination(
                    f"./viewtopic.php?t={topic.topic_id}", len(shown), self.posts_per_page, 1, reverse=True
                )
                links = [
                    {"number": it.number, "url": it.url, "ellipsis": it.kind == "ellipsis"}
                    for it in pages.items
                    if it.kind in ("page", "ellipsis")
                ]
                mine = user is not None and any(p.author == user.name and not p.guest for p in shown)
                rows.append(
                    {
                        "row_class": "bg1" if k % 2 == 0 else "bg2",
                        "mine": mine,
                        "topic": topic,
                        "first": self._post_summary(request, shown[0]),
                        "last": self._post_summary(request, shown[-1]),
                        "replies": len(shown) - 1,
                        "page_links": links,
                        "unapproved": moderator and any(not p.approved for p in topic.posts),
                    }
                )
            online = self._online()
            forums = self._jump_forums()
            crumbs = self._crumbs(forum)
        permissions = [
            ("post new topics", user is not None),
            ("reply to topics", user is not None),
            ("edit your posts", user is not None),
            ("delete your posts", user is not None),
            ("post attachments", user is not None),
        ]
        return self._render(
            request,
            "viewforum_body.html",
            title=forum.name,
            kind="forum",
            section="viewforum",
            canonical=f"{request.base_url}viewforum.php?f={forum.forum_id}" + (f"&start={start}" if start else ""),
            feed_forum=forum,
            crumbs=crumbs,
            forum=forum,
            rows=rows,
            pages=_pagination(base, len(listed), per, start),
            total_text=count_text(viewer.lang, len(listed), "topics"),
            forums=forums,
            online_users=online,
            permissions=permissions,
            now_unix=int(self.clock()),
        )

    def _deleted_view(self, request: _Request, post: Post) -> dict[str, Any]:
        """What a moderator reads about a soft-deleted post: the `div.ignore` line and the notice."""
        t = self._v(request).t
        when = self._date(request, post.deleted_at or post.time, absolute=True)
        by = self._username_html(post.deleted_by or "")
        author = self._username_html(post.author, post.guest)
        strong = Markup("<strong>{}</strong>")
        if post.delete_reason:
            line = Markup(escape(t("{} deleted the post by {} on {} for the following reason: {}"))).format(
                strong.format(by), strong.format(author), when, post.delete_reason
            )
        else:
            line = Markup(escape(t("{} deleted the post by {} on {}."))).format(
                strong.format(by), strong.format(author), when
            )
        notice = Markup(escape(t("Deleted by {} on {}"))).format(by, when)
        return {"hidden_notice": line, "notice": notice, "reason": post.delete_reason}

    def _edit_notice(self, request: _Request, post: Post) -> dict[str, Any] | None:
        if not (post.edit_count > 0 or post.edit_reason):
            return None
        viewer = self._v(request)
        when = viewer.date(post.edited_at or post.time, absolute=True)
        text = Markup(escape(viewer.t("Last edited by {} on {}, {}"))).format(
            self._username_html(post.edited_by or post.author), when, count_text(viewer.lang, post.edit_count, "edited")
        )
        return {"text": text, "reason": post.edit_reason}

    def _viewtopic(self, request: _Request) -> _Response:
        user = request.user
        viewer = self._v(request)
        t = viewer.t
        with self.board.lock:
            post_id = _int(request.query.get("p"))
            topic_id = _int(request.query.get("t"))
            target = None
            if post_id is not None:
                target = self.board._posts.get(post_id)
                if target is None:
                    return self._message(request, NO_POST, status=404)
                topic_id = target.topic_id
            topic = self.board._topics.get(topic_id or 0)
            if topic is None or not topic.posts:
                return self._message(request, NO_TOPIC, status=404)
            forum = self.board._forums[topic.forum_id]
            if not self._can_read(request, forum):
                return self._login_wall(request, LOGIN_VIEWFORUM)
            sees = self._sees(user, forum)
            shown = [p for p in topic.posts if sees(p)]
            if not shown:
                return self._message(request, NO_TOPIC, status=404)
            if target is not None and not sees(target):
                return self._message(request, NO_POST, status=404)
            per = self.posts_per_page
            total = len(shown)
            if target is not None:
                index = next(k for k, p in enumerate(shown) if p.post_id == target.post_id)
                start = index // per * per
            else:
                start = _validate_start(_int(request.query.get("start")) or 0, per, total)
            topic.views += 1
            base = f"./viewtopic.php?t={topic.topic_id}"
            topic_url = base + (f"&start={start}" if start else "")
            last_public = next((p for p in reversed(topic.posts) if p.visible), shown[-1])
            last_any = shown[-1]
            online_ids = self._online_ids()
            moderator = self._moderates(user, forum)
            posts = []
            for k, post in enumerate(shown[start : start + per]):
                author = self._userref(post.author, post.guest)
                member = None if post.guest else self.board._users.get(post.author.lower())
                own = user is not None and member is not None and member.user_id == user.user_id
                redirect_back = quote(f"./viewtopic.php?t={topic.topic_id}&p={post.post_id}#p{post.post_id}", safe="")
                posts.append(
                    {
                        "post_id": post.post_id,
                        "row_class": "bg2" if k % 2 == 0 else "bg1",
                        "online": member is not None and member.user_id in online_ids,
                        "author": author,
                        "author_posts": self.board._post_counts.get(post.author, 0),
                        "author_joined": viewer.date(member.joined) if member else "",
                        "subject": post.subject,
                        "can_edit": moderator or (own and not topic.locked),
                        "can_delete": moderator or (own and not topic.locked and post is last_any),
                        "can_quote": post.visible,
                        "moderator_info": moderator,
                        "deleted": self._deleted_view(request, post) if post.deleted else None,
                        "unapproved": not post.approved and not post.deleted,
                        "queue_redirect": redirect_back,
                        "time_iso": _iso(post.time),
                        "time_text": viewer.date(post.time),
                        "html": Markup(self._post_html(request, post)),
                        "notice": self._edit_notice(request, post),
                    }
                )
            quick_reply = None
            if self.board.quick_reply and user is not None and (not topic.locked or moderator):
                quick_reply = {
                    "tokens": self._tokens(request, "posting"),
                    "fields": [
                        ("topic_cur_post_id", str(last_public.post_id)),
                        ("topic_id", str(topic.topic_id)),
                        ("forum_id", str(forum.forum_id)),
                        ("attach_sig", "1"),
                    ],
                }
            quickmod = None
            if moderator and request.session is not None:
                back = quote(f"./viewtopic.php?t={topic.topic_id}", safe="")
                prefix = f"./mcp.php?f={forum.forum_id}&t={topic.topic_id}&start={start}&quickmod=1&redirect={back}"
                sid = request.session.sid
                actions = [
                    ("unlock" if topic.locked else "lock", "Unlock topic" if topic.locked else "Lock topic", True),
                    ("delete_topic", "Delete topic", True),
                    ("move", "Move topic", False),
                    ("split", "Split topic", False),
                    ("merge", "Merge posts", False),
                    ("merge_topic", "Merge topic", False),
                    ("fork", "Copy topic", False),
                    ("topic_logs", "View logs", False),
                ]
                quickmod = [
                    {"url": f"{prefix}&action={action}&sid={sid}", "title": t(label), "ajax": ajax}
                    for action, label, ajax in actions
                ]
            online = self._online()
            forums = self._jump_forums()
            crumbs = self._crumbs(forum)
            forum_moderators = [self._userref(name) for name in forum.moderators]
            topic_copy = dataclasses.replace(topic, posts=[])
        pages = _pagination(base, total, per, start)
        page_title = topic.title + (f" - {t('Page')} {pages.current}" if pages.current > 1 else "")
        return self._render(
            request,
            "viewtopic_body.html",
            title=page_title,
            kind="topic",
            section="viewtopic",
            canonical=f"{request.base_url}viewtopic.php?t={topic.topic_id}" + (f"&start={start}" if start else ""),
            feed_forum=forum,
            feed_topic=topic_copy,
            crumbs=crumbs,
            login_redirect=quote(_page_link(request).removeprefix("./"), safe=""),
            topic=topic_copy,
            forum=forum,
            forum_moderators=forum_moderators,
            topic_url=topic_url,
            start=start,
            pages=pages,
            total_posts_text=count_text(viewer.lang, total, "posts"),
            posts=posts,
            quick_reply=quick_reply,
            quickmod=quickmod,
            forums=forums,
            online_users=online,
        )

    # -- ucp.php: login, logout, preferences, private messages -------------------------------------------

    def _ucp(self, request: _Request) -> _Response:
        mode = request.query.get("mode", "")
        if mode == "login":
            return self._login(request)
        if mode == "logout":
            return self._logout(request)
        if request.user is None:
            return self._login_wall(request, LOGIN_UCP, kind="ucp")
        module = request.query.get("i", "")
        if module in ("ucp_prefs", "prefs", "179") and mode in ("personal", ""):
            return self._preferences(request)
        if module in ("pm", "ucp_pm"):
            if mode == "compose":
                return self._compose(request)
            if mode == "view" and _int(request.query.get("p")) is not None:
                return self._view_pm(request)
            folder = request.query.get("folder", request.query.get("f", "inbox"))
            if folder in ("inbox", "0", ""):
                return self._inbox(request)
            if folder in ("outbox", "-2", "sentbox", "-1"):
                return self._sent_folder(request, "outbox" if folder in ("outbox", "-2") else "sentbox")
        return _not_found()

    def _login(self, request: _Request) -> _Response:
        """ucp.php?mode=login. The button's name is what phpBB looks for (isset), not its localised value;
        the form token and its one-second rule come first, then the CAPTCHA once the account has
        `max_login_attempts` failures (it refuses even the right password until solved), then the name and
        the password."""
        if request.user is not None:
            return _redirect(self._absolute(request, "./index.php"))
        wanted = request.query.get("redirect")
        if request.method != "POST" or "login" not in request.form:
            return self._login_wall(request, None, redirect=wanted, kind="ucp")
        form = request.form
        t = self._v(request).t
        username = form.get("username", "").strip()
        redirect = form.get("redirect") or wanted
        admin = Markup('<a href="./memberlist.php?mode=contactadmin">{}</a>').format(t("Board Administrator"))
        if not self._check_form(request, "login"):
            return self._login_wall(request, None, redirect=redirect, error=t(FORM_INVALID), kind="ucp")
        with self.board.lock:
            found = self.board._users.get(username.lower()) if username else None
            member = dataclasses.replace(found) if found is not None else None
        if member is None:
            error = Markup(escape(t(_WRONG_USERNAME))).format(admin)
            return self._login_wall(request, None, redirect=redirect, error=error, kind="ucp")
        limit = self.board.max_login_attempts
        with self._state:
            attempts = self._login_attempts.get(member.user_id, 0)
            captcha = limit > 0 and attempts >= limit
            solved = (
                captcha
                and self.board.captcha_code is not None
                and request.session is not None
                and request.session.captcha_id is not None
                and form.get("confirm_id") == request.session.captcha_id
                and form.get("confirm_code", "").strip().lower() == self.board.captcha_code.lower()
            )
        if captcha and not solved:
            return self._login_wall(request, None, redirect=redirect, error=t(LOGIN_ATTEMPTS), kind="ucp", captcha=True)
        if member.password is None or form.get("password", "") != member.password:
            with self._state:
                self._login_attempts[member.user_id] = attempts + 1
            error = Markup(escape(t(_WRONG_PASSWORD))).format(admin)
            return self._login_wall(request, None, redirect=redirect, error=error, kind="ucp", captcha=captcha)
        with self._state:
            self._login_attempts.pop(member.user_id, None)
            if request.session is not None:
                self._sessions.pop(request.session.sid, None)
            key = secrets.token_hex(8) if form.get("autologin") else ""
            if key:
                self._autologin[key] = member.user_id
        request.set_cookies.clear()
        request.session = self._new_session(request, member.user_id, key)
        request.user = member
        request.viewer = self._viewer(member)
        target = _local_target(redirect or "index.php")
        target += f"{'&' if '?' in target else '?'}sid={request.session.sid}"
        return _redirect(self._absolute(request, target))

    def _logout(self, request: _Request) -> _Response:
        if request.user is None or request.session is None:
            return _redirect(self._absolute(request, "./index.php"))
        if request.query.get("sid") != request.session.sid:
            return self._message(
                request,
                "You were not logged out, as the request did not match your session. "
                "Please contact the board administrator if you continue to experience problems.",
                refresh=(3, "./index.php"),
            )
        with self._state:
            self._sessions.pop(request.session.sid, None)
            self._autologin.pop(request.cookies.get(f"{self.cookie_prefix}_k", ""), None)
        request.set_cookies.clear()
        request.user = None
        request.session = self._new_session(request, ANONYMOUS, "")
        return _redirect(self._absolute(request, "./index.php"))

    def _ucp_page(self, request: _Request, template: str, title: str, **values: Any) -> _Response:
        """A UCP page (PM folders and forms, preferences); `title` is an English key."""
        t = self._v(request).t
        module = values.setdefault("ucp_module", "pm")
        if module == "prefs":
            crumbs = [
                {"forum_id": None, "href": "./ucp.php", "name": t("User Control Panel")},
                {"forum_id": None, "href": "./ucp.php?i=179", "name": t("Board preferences")},
            ]
        else:
            crumbs = [
                {"forum_id": None, "href": "./ucp.php", "name": t("User Control Panel")},
                {"forum_id": None, "href": "./ucp.php?i=ucp_pm", "name": t("Private messages")},
            ]
        if values.get("ucp_active") == "compose":
            crumbs.append({"forum_id": None, "href": "./ucp.php?i=ucp_pm&mode=compose", "name": t("Compose message")})
        user = request.user
        assert user is not None
        with self.board.lock:
            outbox = sum(1 for m in self.board._pms.values() if m.sender == user.name and not m.read)
            folders = [
                ("inbox", "Inbox", self._unread(user)),
                ("outbox", "Outbox", outbox),
                ("sentbox", "Sent messages", 0),
            ]
        values.setdefault("ucp_form_open", None)
        values.setdefault("ucp_legend", False)
        values.setdefault("ucp_active", None)
        values.setdefault("folder_status", None)
        return self._render(
            request,
            template,
            title=t(title),
            kind="ucp",
            section="ucp",
            crumbs=crumbs,
            pm_folders=folders,
            **values,
        )

    def _folder_status(self, request: _Request, stored: int) -> str | None:
        """ "Folder is 54% full (27 out of 50 messages stored)", when the board limits its folders."""
        limit = self.board.pm_folder_limit
        if limit <= 0:
            return None
        return self._v(request).t(
            "Folder is {}% full ({} out of {} messages stored)", round(stored * 100 / limit), stored, limit
        )

    def _inbox(self, request: _Request) -> _Response:
        assert request.user is not None
        name = request.user.name
        viewer = self._v(request)
        with self.board.lock:
            mine = sorted(
                (m for m in self.board._pms.values() if name in m.recipients),
                key=lambda m: (m.time, m.pm_id),
                reverse=True,
            )
            per = self.topics_per_page
            start = _validate_start(_int(request.query.get("start")) or 0, per, len(mine))
            rows = [
                {
                    "row_class": "bg2" if k % 2 == 0 else "bg1",
                    "pm_id": m.pm_id,
                    "subject": m.subject,
                    "sender": self._userref(m.sender),
                    "time_text": viewer.date(m.time),
                    "unread": name not in m.read_by,
                }
                for k, m in enumerate(mine[start : start + per])
            ]
        return self._ucp_page(
            request,
            "ucp_pm_viewfolder.html",
            "View messages",
            ucp_active="inbox",
            ucp_legend=True,
            folder_title="Inbox",
            folder_id=0,
            sent_folder=False,
            folder_status=self._folder_status(request, len(mine)),
            rows=rows,
            pages=_pagination("./ucp.php?i=pm&folder=inbox", len(mine), per, start),
            total_text=count_text(viewer.lang, len(mine), "messages"),
            tokens=self._tokens(request, "ucp_pm_view"),
        )

    def _sent_folder(self, request: _Request, folder: str) -> _Response:
        """The member's sent PMs, newest first: phpBB keeps a PM in the sender's "Outbox" until it is
        delivered, then in "Sent messages"; here a PM counts as delivered once every recipient read it.
        The rows name the recipients ("To ...") and put the date in `dd.info` ("Sent: ...")."""
        assert request.user is not None
        name = request.user.name
        viewer = self._v(request)
        with self.board.lock:
            mine = sorted(
                (
                    m
                    for m in self.board._pms.values()
                    if m.sender == name and (m.read if folder == "sentbox" else not m.read)
                ),
                key=lambda m: (m.time, m.pm_id),
                reverse=True,
            )
            per = self.topics_per_page
            start = _validate_start(_int(request.query.get("start")) or 0, per, len(mine))
            rows = [
                {
                    "row_class": "bg2" if k % 2 == 0 else "bg1",
                    "pm_id": m.pm_id,
                    "subject": m.subject,
                    "recipients": [self._userref(r) for r in m.recipients],
                    "time_text": viewer.date(m.time),
                    "unread": False,
                }
                for k, m in enumerate(mine[start : start + per])
            ]
        return self._ucp_page(
            request,
            "ucp_pm_viewfolder.html",
            "View messages",
            ucp_active=folder,
            folder_title="Outbox" if folder == "outbox" else "Sent messages",
            folder_id=-2 if folder == "outbox" else -1,
            sent_folder=True,
            folder_status=self._folder_status(request, len(mine)),
            rows=rows,
            pages=_pagination(f"./ucp.php?i=pm&folder={folder}", len(mine), per, start),
            total_text=count_text(viewer.lang, len(mine), "messages"),
            tokens=self._tokens(request, "ucp_pm_view"),
        )

    def _view_pm(self, request: _Request) -> _Response:
        assert request.user is not None
        name = request.user.name
        viewer = self._v(request)
        with self.board.lock:
            message = self.board._pms.get(_int(request.query.get("p")) or 0)
            if message is None or (name not in message.recipients and name != message.sender):
                return self._message(request, NO_MESSAGE, kind="ucp")
            if name in message.recipients:
                message.read_by.add(name)
            sender = self.board._users.get(message.sender.lower())
            in_inbox = name in message.recipients
            stored = sum(1 for m in self.board._pms.values() if name in m.recipients) if in_inbox else 0
            values = {
                "pm": {"pm_id": message.pm_id, "subject": message.subject},
                "sender": self._userref(message.sender),
                "sender_posts": self.board._post_counts.get(message.sender, 0),
                "sender_joined": viewer.date(sender.joined) if sender else "",
                "sender_online": sender is not None and sender.user_id in self._online_ids(),
                "sent_text": viewer.date(message.time),
                "recipients": [self._userref(r) for r in message.recipients],
                "pm_html": Markup(self._render_bbcode(request, message.body)),
            }
        return self._ucp_page(
            request,
            "ucp_pm_viewmessage.html",
            "View messages",
            ucp_active="inbox" if in_inbox else "sentbox",
            folder_id=0 if in_inbox else -1,
            folder_name="Inbox" if in_inbox else "Sent messages",
            folder_status=self._folder_status(request, stored) if in_inbox else None,
            tokens=self._tokens(request, "ucp_pm_view"),
            **values,
        )

    def _compose(self, request: _Request) -> _Response:
        """The PM compose form in phpBB's steps: `add_to` (the button's name) adds the `username_list`
        names (unknown ones dropped silently unless none exists), `post` sends. More addresses than
        `max_pm_recipients`: an error, the first ones kept, nothing sent. `action=quote&p=N` starts a reply
        quoting PM N (sender, time and id in the `[quote]`)."""
        user = request.user
        assert user is not None and request.session is not None
        form = request.form
        board = self.board
        recipients: list[int] = []
        quoted: PrivateMessage | None = None
        action = request.query.get("action", "")
        if action in ("quote", "reply") and _int(request.query.get("p")) is not None:
            with board.lock:
                found = board._pms.get(_int(request.query.get("p")) or 0)
                if found is None or (user.name not in found.recipients and user.name != found.sender):
                    return self._message(request, NO_MESSAGE, kind="ucp")
                quoted = _copy_pm(found)
                sender = board._users.get(found.sender.lower())
                if request.method == "GET" and sender is not None:
                    recipients.append(sender.user_id)
        if request.method == "GET" and _int(request.query.get("u")) is not None:
            recipients.append(_int(request.query.get("u")) or 0)
        for key, value in form.items():
            address = _ADDRESS.fullmatch(key)
            if address and value in ("to", "bcc") and int(address.group(1)) not in recipients:
                recipients.append(int(address.group(1)))
        removed = {int(m.group(1)) for m in map(_REMOVE.fullmatch, form) if m}
        recipients = [uid for uid in recipients if uid not in removed]
        with board.lock:
            recipients = [uid for uid in recipients if uid in board._users_by_id]
        errors: list[str] = []
        t = self._v(request).t
        if "add_to" in form or "add_bcc" in form:
            names = [n.strip() for n in form.get("username_list", "").splitlines() if n.strip()]
            with board.lock:
                found_users = [board._users.get(n.lower()) for n in names]
            known = [f.user_id for f in found_users if f is not None]
            if names and not known:
                errors.append(t(PM_NO_USERS))
            recipients += [uid for uid in dict.fromkeys(known) if uid not in recipients]
        limit = board.max_pm_recipients
        if limit > 0 and len(recipients) > limit:
            errors.append(t(TOO_MANY_RECIPIENTS))
            recipients = recipients[:limit]
        if "post" in form and not errors:
            if not self._check_form(request, "ucp_pm_compose"):
                errors.append(t(FORM_INVALID))
            if not recipients:
                errors.append(t(NO_RECIPIENT))
            if not form.get("subject", "").strip():
                errors.append(t(EMPTY_PM_SUBJECT))
            if not form.get("message", "").strip():
                errors.append(t(TOO_FEW_CHARS))
            if quote_depth(form.get("message", "")) > QUOTE_DEPTH:
                errors.append(t("You may embed only {} quotes within each other.", QUOTE_DEPTH))
            if self._flooding(user):
                errors.append(t(FLOOD_ERROR))
            if not errors:
                with board.lock:
                    names = [board._users_by_id[uid].name for uid in recipients]
                pm_id = board.send_pm(user.name, names, form["subject"].strip(), form["message"], self._now())
                self._posted(user)
                link = f"./ucp.php?i=pm&mode=view&p={pm_id}"
                return self._pm_sent(request, link)
        with board.lock:
            refs = [self._userref(board._users_by_id[uid].name) for uid in recipients]
            author = board._users.get(quoted.sender.lower()) if quoted is not None else None
        subject = form.get("subject", "")
        message = form.get("message", "")
        if quoted is not None and request.method == "GET":
            subject = quoted.subject if quoted.subject.startswith("Re: ") else f"Re: {quoted.subject}"
            if action == "quote":
                message = (
                    _quote_bbcode(
                        quoted.sender,
                        quoted.body,
                        {"msg_id": quoted.pm_id, "time": int(quoted.time.timestamp())},
                        author,
                    )
                    + "\n\n"
                )
        form_action = f"./ucp.php?i=pm&mode=compose&action=post&sid={request.session.sid}"
        if quoted is not None:
            form_action = f"./ucp.php?i=pm&mode=compose&action={action}&sid={request.session.sid}&p={quoted.pm_id}"
        opening = Markup('<form id="postform" method="post" action="{}">\n').format(form_action)
        return self._ucp_page(
            request,
            "ucp_pm_compose.html",
            "Compose message",
            ucp_form_open=opening,
            ucp_active="compose",
            editor_js=True,
            pm_mode=True,
            error=Markup("<br />").join(errors) if errors else None,
            icon_label="PM icon",
            subject=subject,
            subject_maxlength=124 if quoted is not None else 120,
            message=message,
            review=None,
            recipients=refs,
            address_fields=[(f"address_list[u][{uid}]", "to") for uid in recipients],
            tokens=self._tokens(request, "ucp_pm_compose"),
        )

    def _pm_sent(self, request: _Request, link: str) -> _Response:
        t = self._v(request).t
        body = Markup(
            '{}<br /><br /><a href="{}">{}</a><br /><br /><a href="./ucp.php?i=pm&amp;folder=outbox">{}</a>'
        ).format(t(MESSAGE_SENT), link, t("View your submitted private message"), t("Return to your “Outbox” folder"))
        return self._render(
            request,
            "message_body.html",
            title=t("Information"),
            kind="ucp",
            message_title=t("Information"),
            message_text=body,
            meta_refresh=(3, self._absolute(request, link)),
        )

    def _preferences(self, request: _Request) -> _Response:
        """ucp.php?i=ucp_prefs&mode=personal: language, time zone and date format. The `submit` button's
        name, the form token and its one-second rule; then the member's pages are printed the new way."""
        user = request.user
        assert user is not None
        form = request.form
        t = self._v(request).t
        lang = user.lang
        zone = user.tz or _zone_key(self.tz)
        fmt = user.dateformat or self.board.dateformat or DEFAULT_DATEFORMAT[user.lang]
        error = None
        if request.method == "POST" and "submit" in form:
            lang = form.get("lang", lang)
            zone = form.get("tz", zone)
            fmt = form.get("dateformat", "").strip() or fmt
            if form.get("dateoptions") not in (None, "", "custom") and not form.get("dateformat"):
                fmt = form["dateoptions"]
            if not self._check_form(request, "ucp_prefs_personal"):
                error = t(FORM_INVALID)
            elif lang not in LANGUAGES:
                lang, error = user.lang, t("No mode specified.")
            elif not _valid_zone(zone):
                error = t("The timezone you entered is invalid.")
            else:
                self.board.set_preferences(user.name, lang=lang, dateformat=fmt, tz=zone)
                link = "./ucp.php?i=ucp_prefs&mode=personal"
                return self._message(
                    request,
                    PREFS_UPDATED,
                    refresh=(3, link),
                    links=[("Return to the User Control Panel", link)],
                    kind="ucp",
                )
        viewer = self._v(request)
        now = viewer.now
        options = []
        for value in _pack(viewer.lang)["dateoptions"]:
            sample = format_date(now, ZoneInfo(zone), value, lang=viewer.lang, now=now, absolute=True)
            if "|" in value:
                sample = f"{format_date(now, ZoneInfo(zone), value, lang=viewer.lang, now=now)} / {sample}"
            options.append((value, sample, value == fmt))
        if not any(selected for _, _, selected in options):
            options.append(("custom", t("Custom…"), True))
        else:
            options.append(("custom", t("Custom…"), False))
        return self._ucp_page(
            request,
            "ucp_prefs_personal.html",
            "Edit global settings",
            ucp_module="prefs",
            error=error,
            languages=[(code, _pack(code)["name"]) for code in LANGUAGES],
            prefs_lang=lang,
            prefs_dateformat=fmt,
            prefs_dateformat_js=fmt.replace("\\", "\\\\").replace("'", "\\'"),
            default_dateformat_js=(self.board.dateformat or DEFAULT_DATEFORMAT[self.board.language])
            .replace("\\", "\\\\")
            .replace("'", "\\'"),
            date_options=options,
            tz_groups=_zone_groups(viewer, zone),
            tokens=self._tokens(request, "ucp_prefs_personal"),
        )

    # -- posting.php ------------------------------------------------------------------------------

    def _posting(self, request: _Request) -> _Response:
        """posting.php: new topic, reply, quote, edit. phpBB looks for the `post` button's name (isset), not
        its value. A locked topic refuses members (a message page, also for a form fetched earlier) but not
        its moderators; a stale `topic_cur_post_id` brings the form back with the new posts to review."""
        user = request.user
        mode = request.query.get("mode", "")
        if user is None:
            return self._login_wall(request, LOGIN_EXPLAIN.get(mode, LOGIN_POST))
        post: Post | None = None
        topic: Topic | None = None
        with self.board.lock:
            if mode == "post":
                forum = self.board._forums.get(_int(request.query.get("f")) or 0)
                if forum is None:
                    return self._message(request, NO_FORUM, status=404)
            elif mode in ("reply", "quote", "edit"):
                if mode == "reply" and request.query.get("t"):
                    topic = self.board._topics.get(_int(request.query.get("t")) or 0)
                    if topic is None or not topic.posts:
                        return self._message(request, NO_TOPIC, status=404)
                else:
                    post = self.board._posts.get(_int(request.query.get("p")) or 0)
                    if post is None:
                        return self._message(request, NO_POST, status=404)
                    topic = self.board._topics[post.topic_id]
                forum = self.board._forums[topic.forum_id]
                sees = self._sees(user, forum)
                if not any(sees(p) for p in topic.posts):
                    return self._message(request, NO_TOPIC, status=404)
                if post is not None and not sees(post):
                    return self._message(request, NO_POST, status=404)
            else:
                return self._message(request, "No post mode specified.")
            moderator = self._moderates(user, forum)
            if topic is not None and topic.locked and not moderator:
                return self._message(request, TOPIC_LOCKED)
            if mode == "edit" and post is not None and not moderator:
                if post.guest or post.author.lower() != user.name.lower():
                    return self._message(request, USER_CANNOT_EDIT, status=403)
        form = request.form
        t = self._v(request).t
        errors: list[str] = []
        review: list[Post] | None = None
        if request.method == "POST" and "post" in form:
            subject = form.get("subject", "").strip()
            message = form.get("message", "")
            if not self._check_form(request, "posting"):
                errors.append(t(FORM_INVALID))
            if mode != "edit" and self._flooding(user):
                errors.append(t(FLOOD_ERROR))
            if mode == "post" and not subject:
                errors.append(t(EMPTY_SUBJECT))
            if not message.strip():
                errors.append(t(TOO_FEW_CHARS))
            if quote_depth(message) > QUOTE_DEPTH:
                errors.append(t("You may embed only {} quotes within each other.", QUOTE_DEPTH))
            if not errors and topic is not None and mode in ("reply", "quote"):
                seen = _int(form.get("topic_cur_post_id"))
                with self.board.lock:
                    sees = self._sees(user, forum)
                    later = [p for p in topic.posts if seen and p.post_id > seen and sees(p)]
                if seen and later:
                    review = later
            if not errors and review is None:
                return self._submit(request, user, mode, forum, topic, post, subject, message)
        return self._posting_form(request, user, mode, forum, topic, post, errors, review)

    def _submit(
        self,
        request: _Request,
        user: User,
        mode: str,
        forum: Forum,
        topic: Topic | None,
        post: Post | None,
        subject: str,
        message: str,
    ) -> _Response:
        now = self._now()
        moderator = self._moderates(user, forum)
        queued = user.needs_approval and not moderator
        if mode == "post":
            topic_id = self.board.add_topic(forum.forum_id, subject, user.name, message, now)
            self._posted(user)
            if moderator and "lock_topic" in request.form:
                self.board.lock_topic(topic_id)
            if queued:
                first = self.board.posts_of(topic_id)[0]
                self.board.approve_post(first.post_id, False)
                return self._queued(request, forum, f"./viewforum.php?f={forum.forum_id}")
            return _redirect(self._absolute(request, f"./viewtopic.php?t={topic_id}"))
        assert topic is not None
        if moderator and mode in ("reply", "quote", "edit"):  # the "Lock topic" box of the form decides
            self.board.lock_topic(topic.topic_id, "lock_topic" in request.form)
        if mode in ("reply", "quote"):
            post_id = self.board.add_post(
                topic.topic_id,
                user.name,
                message,
                now,
                subject=subject or f"Re: {topic.title}",
                approved=not queued,
            )
            self._posted(user)
            if queued:
                return self._queued(request, forum, f"./viewtopic.php?t={topic.topic_id}")
            return _redirect(self._absolute(request, f"./viewtopic.php?p={post_id}#p{post_id}"))
        assert post is not None
        reason = request.form.get("edit_reason", "").strip() if moderator else ""
        self.board.edit_post_as(
            post.post_id, user.name, message, reason=reason or None, time=now, subject=subject or post.subject
        )
        return _redirect(self._absolute(request, f"./viewtopic.php?p={post.post_id}#p{post.post_id}"))

    def _queued(self, request: _Request, forum: Forum, refresh_to: str) -> _Response:
        """The answer to a post that waits for a moderator: 200, a message and a refresh (phpBB's 10 s)."""
        return self._message(
            request,
            POST_STORED_MOD,
            refresh=(10, refresh_to),
            links=[("Return to the forum", f"./viewforum.php?f={forum.forum_id}")],
        )

    def _posting_form(
        self,
        request: _Request,
        user: User,
        mode: str,
        forum: Forum,
        topic: Topic | None,
        post: Post | None,
        errors: list[str],
        review: list[Post] | None,
    ) -> _Response:
        form = request.form
        submitted = request.method == "POST"
        t = self._v(request).t
        with self.board.lock:
            moderator = self._moderates(user, forum)
            sees = self._sees(user, forum)
            if mode == "post":
                action = f"./posting.php?mode=post&f={forum.forum_id}"
                heading, subject, message = "Post a new topic", "", ""
            elif mode == "edit":
                assert post is not None
                action = f"./posting.php?mode=edit&p={post.post_id}"
                heading, subject, message = "Edit post", post.subject, post.body
            else:
                assert topic is not None
                action = f"./posting.php?mode={mode}&" + (
                    f"p={post.post_id}" if mode == "quote" and post else f"t={topic.topic_id}"
                )
                heading, subject, message = "Post a reply", f"Re: {topic.title}", ""
                if mode == "quote" and post is not None and not submitted:
                    member = self.board._users.get(post.author.lower())
                    message = _quote_text(post, member) + "\n\n"
            if submitted:
                subject, message = form.get("subject", subject), form.get("message", message)
            fields: list[tuple[str, str]] = []
            topic_review = None
            if mode in ("reply", "quote") and topic is not None:
                public = [p for p in topic.posts if p.visible] or topic.posts
                fields.append(("topic_cur_post_id", str(public[-1].post_id)))
                newest = [p for p in reversed(topic.posts) if sees(p)][: self.posts_per_page]
                topic_review = [self._review_row(request, k, p) for k, p in enumerate(newest)]
            if mode == "edit" and post is not None:
                fields += [
                    ("edit_post_message_checksum", hashlib.md5(post.body.encode()).hexdigest()),
                    ("edit_post_subject_checksum", hashlib.md5(post.subject.encode()).hexdigest()),
                ]
            post_review = [self._review_row(request, k, p) for k, p in enumerate(review)] if review else None
            if topic is not None:
                title_href, title_text = f"./viewtopic.php?t={topic.topic_id}", topic.title
            else:
                title_href, title_text = f"./viewforum.php?f={forum.forum_id}", forum.name
            edit_reason = form.get("edit_reason", post.edit_reason or "" if post else "")
            crumbs = self._crumbs(forum)
        return self._render(
            request,
            "posting_body.html",
            title=t(heading),
            section="posting",
            crumbs=crumbs,
            posting_page=True,
            plupload_url=Markup(action),
            title_href=title_href,
            title_text=title_text,
            form_action=action,
            pm_mode=False,
            heading=t(heading),
            error=Markup("<br />").join(errors) if errors else None,
            icon_label="Topic icon" if mode == "post" else "Post icon",
            subject=subject,
            subject_maxlength=120 if mode == "post" else 124,
            message=message,
            fields=fields,
            can_save_draft=mode != "edit",
            edit_reason_field=mode == "edit" and moderator,
            edit_reason=edit_reason,
            lock_field=moderator,
            lock_checked=bool(topic is not None and topic.locked),
            tokens=self._tokens(request, "posting"),
            review=topic_review,
            post_review=post_review,
            topic_title=topic.title if topic else "",
        )

    def _review_row(self, request: _Request, k: int, post: Post) -> dict[str, Any]:
        name = post.author
        return {
            "row_class": "bg2" if k % 2 == 0 else "bg1",
            "post_id": post.post_id,
            "subject": post.subject,
            "author": self._userref(name, post.guest),
            "author_js": Markup("'{}'").format(name.replace("\\", "\\\\").replace("'", "\\'")),
            "unix_time": int(post.time.timestamp()),
            "time_text": self._date(request, post.time),
            "html": Markup(self._post_html(request, post)),
            "source_html": Markup(source_as_html(post.body)) if not post.html else "",
        }

    # -- mcp.php (quick-mod lock / unlock, with phpBB's confirmation step) ----------------------------

    def _mcp(self, request: _Request) -> _Response:
        """mcp.php?quickmod=1&action=lock|unlock: phpBB's confirm_box(). The GET serves `form#confirm`
        with a single-use 10-character `confirm_key` in its action; the POST acts only when `confirm`
        equals the viewer's own word for "yes" and the key, `confirm_uid` and `sess` match, else it
        redirects (302) to the form's `redirect` and does nothing. Locking a locked topic asks and
        answers the same as locking an open one."""
        user = request.user
        if user is None:
            return self._login_wall(request, LOGIN_MCP, kind="mcp")
        assert request.session is not None
        t = self._v(request).t
        action = request.form.get("action") or request.query.get("action", "")
        topic_id = _int(request.query.get("t")) or _int(request.form.get("topic_id_list[0]")) or 0
        with self.board.lock:
            topic = self.board._topics.get(topic_id)
            forum = self.board._forums.get(topic.forum_id) if topic is not None else None
            allowed = self._moderates(user, forum) if forum is not None else self._moderates_any(user)
        if not allowed:
            return self._message(request, NOT_AUTHORISED, status=403, kind="mcp")
        if request.query.get("quickmod") != "1" or action not in ("lock", "unlock"):
            return self._message(request, "No mode specified.", kind="mcp")
        if topic is None or forum is None:
            return self._message(request, NO_TOPIC, status=404, kind="mcp")
        back = _local_target(request.query.get("redirect") or f"./mcp.php?f={forum.forum_id}&t={topic_id}")
        form = request.form
        if request.method == "POST" and "cancel" in form:
            return _redirect(self._absolute(request, back))
        if request.method == "POST" and "confirm" in form:
            key = request.query.get("confirm_key", "")
            with self._state:
                expected, request.session.confirm_key = request.session.confirm_key, None
            valid = (
                form.get("confirm") == t("Yes")
                and form.get("confirm_uid") == str(user.user_id)
                and form.get("sess") == request.session.sid
                and bool(key)
                and key == expected
            )
            if not valid:
                return _redirect(self._absolute(request, back))
            self.board.lock_topic(topic_id, action == "lock")
            return self._message(
                request,
                TOPIC_LOCKED_DONE if action == "lock" else TOPIC_UNLOCKED_DONE,
                refresh=(2, back),
                links=[("Return to the previous page", back)],
                kind="mcp",
            )
        key = "".join(secrets.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") for _ in range(10))
        with self._state:
            request.session.confirm_key = key
        params = sorted((k, v) for k, v in request.query.items() if k not in ("sid", "confirm_key"))
        query = "&".join(f"{k}={quote(v, safe='')}" for k, v in params)
        title = "Lock topic" if action == "lock" else "Unlock topic"
        return self._render(
            request,
            "confirm_body.html",
            title=t(title),
            kind="mcp",
            section="mcp",
            confirm_action=f"./mcp.php?{query}&confirm_key={key}",
            message_title=t(title),
            message_text=t(f"Are you sure you want to {action} this topic?"),
            confirm_fields=[
                ("topic_id_list[0]", str(topic_id)),
                ("action", action),
                ("redirect", back),
                ("confirm_uid", str(user.user_id)),
                ("sess", request.session.sid),
                ("sid", request.session.sid),
            ],
        )


# --- helpers ---------------------------------------------------------------------------------------

_ADDRESS = re.compile(r"address_list\[u\]\[(\d+)\]")
_REMOVE = re.compile(r"remove_u\[(\d+)\]")


@dataclass(frozen=True)
class _PageItem:
    kind: str  # prev / current / ellipsis / next / page
    number: int | None
    url: str


@dataclass(frozen=True)
class _Pagination:
    items: tuple[_PageItem, ...]
    current: int
    total: int
    per_page: int
    base_url: str

    @property
    def jump(self) -> bool:
        return self.total > 6


def _page_url(base: str, page: int, per_page: int) -> str:
    return base if page <= 1 else f"{base}&start={(page - 1) * per_page}"


def _pagination(base: str, items: int, per_page: int, start: int, *, reverse: bool = False) -> _Pagination:
    """phpBB's pagination::generate_template_pagination(): previous, pages with at most one ellipsis
    on each side of the current page (seven links around it), next."""
    total = max(1, math.ceil(items / per_page))
    on_page = start // per_page + 1
    out: list[_PageItem] = []
    if total > 1:
        if reverse:  # the topic rows of viewforum: the last pages
            first_shown, last_shown = (total - 4 if total > 5 else 1), total
        else:
            first_shown = min(max(1, on_page - 3), total - 4) if total > 5 else 1
            last_shown = max(min(total, on_page + 3), 5) if total > 5 else total
        if on_page != 1 and not reverse:
            out.append(_PageItem("prev", None, _page_url(base, on_page - 1, per_page)))
        at = 1
        while at <= total:
            ellipsis = (at == 2 and first_shown > 2) or (at == total - 1 and last_shown < total - 1)
            kind = "current" if at == on_page and not reverse else "ellipsis" if ellipsis else "page"
            out.append(_PageItem(kind, at, _page_url(base, at, per_page)))
            if at == 2 and at < first_shown - 1:
                at = first_shown
            elif at == last_shown and last_shown < total - 1:
                at = total - 1
            else:
                at += 1
        if on_page != total and not reverse:
            out.append(_PageItem("next", None, _page_url(base, on_page + 1, per_page)))
    return _Pagination(tuple(out), on_page, total, per_page, base)


def _validate_start(start: int, per_page: int, items: int) -> int:
    if start < 0:
        return 0
    if start >= items:
        return max(0, (items - 1) // per_page * per_page)
    return start


def _int(value: str | None) -> int | None:
    if value is None:
        return None
    value = value.strip()
    return int(value) if value.isdigit() else None


def _page_link(request: _Request, *, sort: bool = False) -> str:
    """The page asked for, as phpBB writes it in a login form's `redirect` (no `sid`; mcp.php sorts its
    parameters, as its build_url() does)."""
    items = [(k, v) for k, v in request.query.items() if k != "sid"]
    if sort:
        items.sort()
    query = "&".join(f"{k}={quote(v, safe='')}" for k, v in items)
    script = request.path.rsplit("/", 1)[-1] or "index.php"
    return f"./{script}" + (f"?{query}" if query else "")


def _local_target(target: str) -> str:
    """A redirect target on this board (phpBB refuses to send a user elsewhere)."""
    target = target.strip()
    if "://" in target or target.startswith("//") or not target:
        return "./index.php"
    return target if target.startswith("./") else "./" + target.lstrip("/")


def _redirect(location: str) -> _Response:
    return _Response(302, b"", [("Location", location)])


def _not_found() -> _Response:
    body = b"<!DOCTYPE html><html><head><title>404 Not Found</title></head><body><h1>Not Found</h1></body></html>"
    return _Response(404, body)


def _form(content_type: str, raw: bytes) -> dict[str, str]:
    """A POSTed form, urlencoded or multipart; a repeated name keeps its last value, as PHP reads it."""
    if content_type.lower().startswith("multipart/form-data"):
        message = BytesParser(policy=HTTP).parsebytes(
            b"Content-Type: " + content_type.encode("latin-1") + b"\r\n\r\n" + raw
        )
        fields: dict[str, str] = {}
        for part in message.iter_parts():
            name = part.get_param("name", header="content-disposition")
            if not isinstance(name, str) or part.get_filename():
                continue
            payload = part.get_payload(decode=True)
            data = payload if isinstance(payload, bytes) else b""
            fields[name] = data.decode(part.get_content_charset() or "utf-8", errors="replace")
        return fields
    charset = "utf-8"
    for piece in content_type.split(";")[1:]:
        key, _, value = piece.strip().partition("=")
        if key.lower() == "charset" and value:
            charset = value.strip('"')
    return dict(parse_qsl(raw.decode(charset, errors="replace"), keep_blank_values=True))


def _quote_bbcode(author: str, body: str, attrs: Mapping[str, int], member: User | None) -> str:
    """phpBB's generate_quote(): `[quote=name msg_id|post_id=N time=T user_id=U]text[/quote]`, the name in
    double quotes when it needs them, the attributes sorted, the text on lines of its own when the whole
    is longer than 80 bytes or the text holds a line break."""
    name = author
    if any(c in name for c in ' "]\\'):
        name = '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'
    values = dict(attrs)
    if member is not None:
        values["user_id"] = member.user_id
    head = f"[quote={name}" + "".join(f" {k}={v}" for k, v in sorted(values.items())) + "]"
    text = body.strip()
    newline = "\n" if len((head + text + "[/quote]").encode("utf-8")) > 80 or "\n" in text else ""
    return f"{head}{newline}{text}{newline}[/quote]"


def _quote_text(post: Post, member: User | None) -> str:
    """What the Quote button puts in the editor: `[quote=name post_id=N time=T user_id=U]...[/quote]`."""
    return _quote_bbcode(post.author, post.body, {"post_id": post.post_id, "time": int(post.time.timestamp())}, member)


def _offset_label(offset: timedelta) -> str:
    sign = "+" if offset >= timedelta(0) else "-"
    minutes = abs(int(offset.total_seconds())) // 60
    return f"UTC{sign}{minutes // 60:02d}:{minutes % 60:02d}"


def _valid_zone(name: str) -> bool:
    try:
        ZoneInfo(name)
    except (ValueError, KeyError, OSError):
        return False
    return bool(name)


def _zone_groups(viewer: _Viewer, selected: str) -> list[dict[str, Any]]:
    """The UCP's time zone select: phpBB's zones grouped by their offset now, each group labelled with the
    offset and the time there ("UTC+03:00 - 01 дек 2026, 12:00"), names in the viewer's language."""
    groups: dict[timedelta, list[str]] = {}
    zones = list(LANGUAGE_PACK["zones"])
    if selected not in zones and _valid_zone(selected):
        zones.append(selected)
    for zone in zones:
        try:
            offset = viewer.now.astimezone(ZoneInfo(zone)).utcoffset() or timedelta(0)
        except (ValueError, KeyError, OSError):
            continue
        groups.setdefault(offset, []).append(zone)
    out = []
    for offset in sorted(groups):
        label = _offset_label(offset)
        local = viewer.now.astimezone(ZoneInfo(groups[offset][0]))
        when = format_date(local, local.tzinfo or UTC, "d M Y, H:i", lang=viewer.lang, absolute=True)
        out.append(
            {
                "label": f"{label} - {when}",
                "value": f"{label} - {groups[offset][0]} - {when}",
                "selected": selected in groups[offset],
                "zones": [
                    {
                        "value": zone,
                        "name": zone_name(viewer.lang, zone),
                        "title": f"{label} - {zone_name(viewer.lang, zone)}",
                        "selected": zone == selected,
                    }
                    for zone in groups[offset]
                ],
            }
        )
    return out


# --- a day of play, for benchmarks -------------------------------------------------------------------


@dataclass(frozen=True)
class GeneratedPost:
    """One post `populate_day` wrote: its kind and the names its markup names as votes (the last one
    is the vote that stands when a post carries two; empty for chatter and for quotes without a vote)."""

    post_id: int
    author: str
    kind: str
    targets: tuple[str, ...] = ()


# kind -> share of the posts (sums to 1); every kind but chatter carries a name in some markup
DAY_MIX: tuple[tuple[str, float], ...] = (
    ("chatter", 0.40),
    ("vote_color_bold", 0.12),  # [color=red][b]X[/b][/color]
    ("vote_bold_color", 0.08),  # [b][color=red]X[/color][/b]
    ("quoted_vote", 0.08),  # a quoted vote, half the time with the quoter's own vote after it
    ("dark_red", 0.04),  # [color=darkred][b]X[/b][/color]
    ("bold_only", 0.06),  # [b]X[/b]
    ("red_only", 0.03),  # [color=red]X[/color], not bold
    ("edited_vote", 0.08),  # voted X, edited to Y (by the author, or by a moderator with a reason)
    ("two_votes", 0.04),  # two red-bold names in one post
    ("ghost", 0.07),  # a non-player (dead or spectator) posting, sometimes a red-bold "vote"
)
_REDS = ("red", "#FF0000", "#ff0000", "red", "Red")
_CHATTER = (
    "I think we should wait for more information before voting.",
    "Что-то {name} подозрительно тихий сегодня.",
    "[i]Reading back the thread...[/i] nothing conclusive yet.",
    "Has anyone noticed how {name} avoided the question?",
    "I'm town, for what it's worth :)",
    "Согласен с предыдущим оратором.",
    "Link to the rules: [url=https://example.org/rules]rules[/url]",
    "[u]Reminder[/u]: day ends at 20:00.",
    "{name}, what do you think about the last night?",
    "Not voting yet. [color=blue]Just a thought[/color] about {name}.",
    "Hmm. :?",
    "See https://example.org/mafia/wiki for the roles list.",
    "Ok.\nI will be back later tonight.",
    "Голосую завтра, сегодня не уверен.",
)
_GHOSTS = ("Ghost of Day 0", "Spectator", "Зритель")


def populate_day(
    board: Board,
    topic_id: int,
    posts: int,
    players: Sequence[str],
    seed: int,
    start: datetime,
    *,
    moderator: str = "admin",
) -> list[GeneratedPost]:
    """Fill a topic with `posts` realistic posts of a Mafia day by `players`, mixed in the fixed shares of
    `DAY_MIX` (rounded; the order shuffled), deterministic for a `seed`. Posts are 10 s to 5 min apart from
    `start`. Unknown players become members; `moderator` (a coloured member, created if needed) makes the
    moderator edits. Returns what was written, post by post."""
    if len(players) < 2:
        raise ValueError("a day needs at least two players")
    _aware(start, board.now)
    rng = random.Random(seed)
    counts = {kind: int(share * posts) for kind, share in DAY_MIX}
    leftover = posts - sum(counts.values())
    for kind, _ in sorted(DAY_MIX, key=lambda item: item[1] * posts - int(item[1] * posts), reverse=True)[:leftover]:
        counts[kind] += 1
    kinds = [kind for kind, _ in DAY_MIX for _ in range(counts[kind])]
    rng.shuffle(kinds)
    voting = ("vote_color_bold", "vote_bold_color", "edited_vote")
    first_vote = next((k for k, kind in enumerate(kinds) if kind in voting), None)
    first_quote = next((k for k, kind in enumerate(kinds) if kind == "quoted_vote"), None)
    if first_vote is not None and first_quote is not None and first_quote < first_vote:
        kinds[first_quote], kinds[first_vote] = kinds[first_vote], kinds[first_quote]  # a vote to quote comes first
    with board.lock:
        if board.user(moderator) is None:
            board.add_user(moderator, moderator=True, colour="AA0000")
        for name in (*players, *_GHOSTS):
            if board.user(name) is None:
                board.add_user(name)
    made: list[GeneratedPost] = []
    votes: list[tuple[int, str, str, datetime]] = []  # (post id, voter, target, time) for quotes
    moment = start
    for kind in kinds:
        moment += timedelta(seconds=rng.randint(10, 300))
        author = rng.choice(list(players))
        target = rng.choice([p for p in players if p != author])
        red = rng.choice(_REDS)
        targets: tuple[str, ...] = (target,)
        edit: dict[str, Any] = {}
        if kind == "chatter":
            body = rng.choice(_CHATTER).format(name=rng.choice(list(players)))
            targets = ()
        elif kind == "vote_color_bold":
            body = rng.choice(("Vote: {v}", "{v}", "Голосую против {v}", "My vote goes to {v}.")).format(
                v=f"[color={red}][b]{target}[/b][/color]"
            )
        elif kind == "vote_bold_color":
            body = f"[b][color={red}]{target}[/color][/b] is suspicious."
        elif kind == "quoted_vote" and votes:  # (no votes yet only when the mix has no voting kinds)
            post_id, voter, quoted, when = rng.choice(votes)
            if rng.random() < 0.5:
                head = f'[quote="{voter}"]'
            else:
                member = board.user(voter)
                who = f'"{voter}"' if " " in voter else voter
                uid = member.user_id if member else ANONYMOUS
                head = f"[quote={who} post_id={post_id} time={int(when.timestamp())} user_id={uid}]\n"
            body = f"{head}I vote [color=red][b]{quoted}[/b][/color][/quote]\n"
            if rng.random() < 0.5:
                body += f"Agreed, I also vote [color=red][b]{target}[/b][/color]"
            else:
                body += "I disagree with that."
                targets = ()
        elif kind == "quoted_vote":  # nothing to quote yet: a plain vote
            body = f"[color=red][b]{target}[/b][/color]"
        elif kind == "dark_red":
            body = f"Dark red: [color=darkred][b]{target}[/b][/color]"
        elif kind == "bold_only":
            body = f"I'd look at [b]{target}[/b] today."
        elif kind == "red_only":
            body = f"Maybe [color=red]{target}[/color]?"
        elif kind == "edited_vote":
            first = rng.choice([p for p in players if p not in (author, target)] or [target])
            body = f"Vote [color=red][b]{target}[/b][/color] (changed my mind from {first})"
            by_moderator = rng.random() < 0.25
            edit = {
                "edited_by": moderator if by_moderator else author,
                "edit_reason": "moderator note" if by_moderator else None,
                "edited_at": moment + timedelta(seconds=rng.randint(30, 600)),
            }
        elif kind == "two_votes":
            other = rng.choice([p for p in players if p not in (author, target)] or [target])
            body = f"[color=red][b]{other}[/b][/color]\nNo wait, [color=red][b]{target}[/b][/color]"
            targets = (other, target)
        else:  # ghost
            author = rng.choice(_GHOSTS)
            if rng.random() < 0.5:
                body = f"If I could vote it would be [color=red][b]{target}[/b][/color]"
            else:
                body = "Boo. Ghosts can't vote, but I'm watching you all."
                targets = ()
        post_id = board.add_post(topic_id, author, body, moment, **edit)
        if kind in ("vote_color_bold", "vote_bold_color", "edited_vote") or (kind == "quoted_vote" and targets):
            votes.append((post_id, author, target, moment))
        made.append(GeneratedPost(post_id, author, kind, targets))
    return made
