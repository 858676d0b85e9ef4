"""What a fake board holds, whatever engine serves it: members, forums, topics, posts and private messages,
and the board's settings (the administrator's: language, time zone, flood interval, limits).

    board = Board()
    board.add_user("host_bot", "secret", moderator=True)
    forum = board.add_forum("Mafia")
    topic = board.add_topic(forum, "Mafia-1. Day 1", "host_bot", "[b]Day 1 begins.[/b]", start)

`Board` is safe to share between threads (every method takes its lock, and what it returns are copies); the
engines' servers (`fakeboard.phpbb`, `fakeboard.ipb2`, `fakeboard.ipb3`) serve one over HTTP. Member ids
start where a fresh phpBB 3.3 board starts them (48); the edit rule of `Board.edit_post_as` is phpBB's, the
one board whose edits leave a notice the bot must read.
"""

from __future__ import annotations

import bisect
import dataclasses
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

__all__ = ["ANONYMOUS", "LANGUAGES", "Board", "Forum", "Post", "PrivateMessage", "Topic", "User", "moderates"]

ANONYMOUS = 1  # the guest's user id (phpBB's; IPB's guests are 0, never stored)
FIRST_USER_ID = 48  # a fresh phpBB 3.3 board gives its first registered member id 48 (1 guest, 2 admin, bots)
LANGUAGES = ("en", "ru")  # what the boards speak: a board's and a member's language is one of these


def check_language(lang: str) -> str:
    if lang not in LANGUAGES:
        raise ValueError(f"{lang!r}: the board speaks {', '.join(LANGUAGES)}")
    return lang


def aware(moment: datetime | None, default: Callable[[], datetime]) -> datetime:
    """`moment`, which must carry its zone, or `default()` when there is none."""
    if moment is None:
        return default()
    if moment.tzinfo is None:
        raise ValueError(f"{moment!r}: times on the board must be aware (give a tzinfo)")
    return moment


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
    delivered_to: set[str] = field(default_factory=set)  # the recipients it has reached (phpBB: their next visit)

    @property
    def read(self) -> bool:
        """Whether every recipient has opened it."""
        return all(name in self.read_by for name in self.recipients)

    @property
    def delivered(self) -> bool:
        """Whether it has reached every recipient (phpBB moves it from the sender's outbox to "Sent messages"
        then; one opened has been delivered)."""
        return all(name in self.delivered_to or name in self.read_by for name in self.recipients)

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
        check_language(language)
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
            check_language(language)
            if tz is not None:
                ZoneInfo(tz)
            user = User(
                uid,
                name,
                password,
                moderator,
                colour.lstrip("#") if colour else None,
                aware(joined, self.now),
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
                check_language(lang)
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
            when = aware(time, self.now)
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
                post.edited_at = aware(edited_at, lambda: when + timedelta(minutes=1))
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
                post.edited_at = aware(time, self.now)

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
            post.deleted_at = aware(time, self.now)
            post.delete_reason = reason.strip()
            post.version += 1

    def delete_post(self, post_id: int) -> None:
        """Delete a post for good (a moderator's "delete permanently"); a topic left without posts goes too."""
        with self.lock:
            post = self._post(post_id)
            topic = self._topic(post.topic_id)
            if post.deleted_by is None and post.approved:
                self._post_counts[post.author] = max(0, self._post_counts.get(post.author, 0) - 1)
            topic.posts.remove(post)
            del self._posts[post_id]
            if not topic.posts:
                del self._topics[topic.topic_id]

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
        delivered: bool | None = None,
    ) -> int:
        """A private message from `sender` to one or more members; returns its id. It is `read` by them all,
        or `delivered` to them all (default: when read)."""
        with self.lock:
            recipients = (to,) if isinstance(to, str) else tuple(to)
            if not recipients:
                raise ValueError("a PM needs at least one recipient")
            names = tuple(self._user(name).name for name in recipients)
            mid = self._next_pm if pm_id is None else pm_id
            if mid in self._pms:
                raise ValueError(f"PM id {mid} is taken")
            message = PrivateMessage(
                mid, self._author(sender, False), names, subject, body.replace("\r\n", "\n"), aware(time, self.now)
            )
            if read:
                message.read_by.update(names)
            if read if delivered is None else delivered:
                message.delivered_to.update(names)
            self._pms[mid] = message
            self._next_pm = max(self._next_pm, mid + 1)
            return mid

    def mark_pm_read(self, pm_id: int, user: str, read: bool = True) -> None:
        with self.lock:
            message = self._pm(pm_id)
            name = self._user(user).name
            if read:
                message.read_by.add(name)
                message.delivered_to.add(name)
            else:
                message.read_by.discard(name)

    def deliver_pms(self, user: str) -> None:
        """Every PM sent to the member reaches it (phpBB places them in its folders when it opens them)."""
        with self.lock:
            name = self._user(user).name
            for message in self._pms.values():
                if name in message.recipients:
                    message.delivered_to.add(name)

    def pm(self, pm_id: int) -> PrivateMessage:
        with self.lock:
            return copy_pm(self._pm(pm_id))

    def pms_to(self, user: str) -> list[PrivateMessage]:
        """PMs the member received, newest first (the inbox order)."""
        with self.lock:
            name = self._user(user).name
            found = [m for m in self._pms.values() if name in m.recipients]
            return [copy_pm(m) for m in sorted(found, key=lambda m: (m.time, m.pm_id), reverse=True)]

    def pms_from(self, user: str) -> list[PrivateMessage]:
        """PMs the member sent, newest first."""
        with self.lock:
            name = self._user(user).name
            found = [m for m in self._pms.values() if m.sender == name]
            return [copy_pm(m) for m in sorted(found, key=lambda m: (m.time, m.pm_id), reverse=True)]

    def _pm(self, pm_id: int) -> PrivateMessage:
        found = self._pms.get(pm_id)
        if found is None:
            raise KeyError(f"no PM {pm_id}")
        return found


def copy_pm(message: PrivateMessage) -> PrivateMessage:
    return dataclasses.replace(message, read_by=set(message.read_by), delivered_to=set(message.delivered_to))


def moderates(user: User | None, forum: Forum) -> bool:
    """Whether the member (a copy, None for a guest) moderates the forum: globally or as one of its own."""
    return user is not None and (user.moderator or user.name in forum.moderators)
