"""What the forum readers produce and the extraction reads: posts, topic pages, private messages. Pure data,
no I/O, shared by `forumbot.forum` (which makes them) and `forumbot.extract` (which reads them)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timezone
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

Dialect = str  # the name of the engine that made a page (see `forumbot.forum.registry`)
# Who may read a post: everybody, or only moderators (waiting for approval / soft-deleted). A vote
# counter counts public posts only.
Visibility = Literal["public", "unapproved", "deleted"]


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Post(Frozen):
    post_id: int
    topic_id: int | None
    author: str
    author_id: int | None
    time: datetime  # aware
    content_html: str  # the post body as the forum rendered it (edit notices and signatures excluded)
    edited: bool = False
    edited_by: str | None = None
    edited_at: str | None = None  # as printed: plain text in the viewer's format
    edit_count: int | None = None
    edit_reason: str | None = None
    permalink: str
    page: int | None = None
    # "unapproved": waiting in the moderation queue; "deleted": soft-deleted. Only moderators see
    # either (with the post's full body), guests and players never do.
    visibility: Visibility = "public"
    # The body differs from an earlier read while the forum prints no edit notice (phpBB records no
    # edit by a moderator without a reason, nor by the author of the topic's last post): set by the
    # page cache, which is the only one that can know.
    changed_since_read: bool = False

    @classmethod
    def parsed(cls, **values: Any) -> Post:
        """A post a forum parser made of values of the fields' own types (exact `int`s and `str`s, an aware
        `datetime`, a `Visibility`), without validation: the object `Post(**values)` makes (the same fields
        in the same order, the same given names), for a third of its cost. Post has no validator that would
        change or refuse such values; anything else goes through `Post(...)`."""
        post = cls.__new__(cls)
        fields = dict(_POST_DEFAULTS)
        fields.update(values)
        if len(fields) != len(_POST_DEFAULTS) or not _POST_REQUIRED.issubset(values):
            return cls(**values)  # a name that is no field, a field missing: refused as validation refuses it
        _set(post, "__dict__", fields)
        _set(post, "__pydantic_fields_set__", set(values))
        _set(post, "__pydantic_extra__", None)
        _set(post, "__pydantic_private__", None)
        return post


_POST_DEFAULTS = {name: field.default for name, field in Post.model_fields.items()}  # required ones: filled in
_POST_REQUIRED = frozenset(name for name, field in Post.model_fields.items() if field.is_required())
_set = object.__setattr__  # a frozen model's fields are set once, as pydantic sets them


class TopicPage(Frozen):
    dialect: Dialect
    topic_id: int | None
    title: str
    page: int  # 1-based
    page_count: int
    posts: tuple[Post, ...]
    next_url: str | None = None
    url: str | None = None
    # Posts the parser could not read, each "where: why": reported in the audit, never a reason to drop
    # the page (one broken post must not abort a tally).
    problems: tuple[str, ...] = ()
    # The topic is locked: players can no longer reply (moderators still can).
    locked: bool = False
    # How the page's own links address pages ("start", "st": offsets; "page": numbers) and how many
    # posts a page holds, when the page says (IPB 3.4 numbers its pages, 3.3 counts offsets).
    page_param: str | None = None
    per_page: int | None = None


class PmSummary(Frozen):
    """One row of a PM folder (inbox, sent messages, outbox...).

    Rows of the sent messages and the outbox name recipients instead of a sender: `recipients`
    holds them all, and `sender` / `sender_id` the first of them (what older callers read there)."""

    pm_id: int
    subject: str
    sender: str
    sender_id: int | None = None
    # The earliest instant the printed date allows; `time_until` is the exclusive end of that
    # interval, None when the text is exact to the second (or there is no time at all).
    time: datetime | None = None
    time_text: str = ""
    unread: bool = False
    url: str
    time_until: datetime | None = None
    recipients: tuple[str, ...] = ()
    # A row of a conversation (IPB 3): `pm_id` is then the conversation's id, `sender` the author of
    # its last message and `starter` the member who began it; `last_message_id` and `replies` tell
    # that it grew since it was read.
    conversation_id: int | None = None
    starter: str | None = None
    last_message_id: int | None = None
    replies: int | None = None


class PrivateMessage(Frozen):
    pm_id: int
    sender: str
    sender_id: int | None = None
    # The earliest instant the printed date allows; `time_until` is the exclusive end of that
    # interval, None when the text is exact to the second (or there is no time at all).
    time: datetime | None = None
    time_text: str = ""
    subject: str
    body_html: str
    body_text: str  # lines of the body, quotes removed (orders inside quotes never count)
    url: str | None = None
    time_until: datetime | None = None
    recipients: tuple[str, ...] = ()  # as the page lists them (blind copies included)
    conversation_id: int | None = None  # the conversation the message is part of (IPB 3)


class ConversationPage(Frozen):
    """One page of an IPB 3 conversation: its messages in order, each with its own id."""

    conversation_id: int
    subject: str
    messages: tuple[PrivateMessage, ...]
    page: int = 1
    page_count: int = 1
    next_url: str | None = None
    url: str | None = None
    viewer_id: int | None = None  # the member the page was rendered for: his own messages are not PMs to him


class BoardZone(Frozen):
    """The viewer's time zone as the page footer states it (`UTC+03:00`, title `Европа/Москва`)."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    offset: timezone  # the printed offset: the reliable part
    label: str = ""  # the zone's name as printed (the span's title: translated, e.g. "Европа/Москва")


class Preferences(Frozen):
    """The phpBB board preferences form (`ucp.php?i=ucp_prefs&mode=personal`) as served."""

    action: str  # the form's action, as written in the page
    lang: str | None = None  # the selected language ("ru", "en")
    tz: str | None = None  # the selected zone name ("Europe/Moscow")
    dateformat: str | None = None  # the stored date format ("|d M Y|, H:i"), the input `dateformat`
    # What a browser submits when the form is sent unchanged, in page order: hidden fields, checked
    # radios and boxes, the selected option of every select, text inputs, and the submit button.
    fields: tuple[tuple[str, str], ...] = ()

    def submission(self, changes: Mapping[str, str] | None = None) -> list[tuple[str, str]]:
        """The fields to POST with the values of `changes` put in place of the served ones.
        A name the form does not have is an error (a typo would be ignored by the board)."""
        changes = dict(changes or {})
        unknown = set(changes) - {name for name, _ in self.fields}
        if unknown:
            raise KeyError(f"the preferences form has no field {', '.join(sorted(unknown))}")
        return [(name, changes.get(name, value)) for name, value in self.fields]


class QuoteStamp(Frozen):
    """The opening tag phpBB puts in a quoting form: `[quote=Вера msg_id=67 time=1796114954 user_id=60]`."""

    name: str
    time: datetime  # exact, UTC
    user_id: int | None = None
    post_id: int | None = None  # a quoted post
    msg_id: int | None = None  # a quoted private message
