"""Invision pages -> data: IPB 2.x (`v2`), IPB 3.x (`v3`), IPS 4 topic pages (`ips4`). Pure functions, no I/O.

Every `parse_*` takes the page as text, bytes (any charset the page declares, windows-1251 included;
undeclared bytes are UTF-8, windows-1251 or KOI8-R, else refused) or an already parsed lxml tree,
finds which dialect made it from its markup and reads it with that dialect's module. `tz` is the zone
plain-text dates are printed in (default: the zone of `now`, else UTC); `now` is when the page was
fetched, against which relative dates are read ("Сегодня, 20:31", "3 часов назад"). Printed PM and
folder dates are intervals (`time`, `time_until`); post times are instants (IPB 2 to the minute as
printed; IPB 3 and IPS 4 exact, from the markup).
"""

from __future__ import annotations

from datetime import datetime, timedelta, tzinfo

from forumbot.errors import N_, ParseError
from forumbot.forum.ipb import ips4, v2, v3
from forumbot.forum.ipb.common import (
    IpbDialect,
    PostError,
    dialect_of,
    logged_in,
    login_form,
    not_a,
    read_page,
    refusal,
    zone,
)
from forumbot.forum.markup import BodyReader, Page, form_fields, page_label, page_problems, parse_html
from forumbot.posts import ConversationPage, PmSummary, PrivateMessage, TopicPage

__all__ = [
    "IpbDialect",
    "detect",
    "dialect_of",
    "is_login_wall",
    "is_no_permission",
    "page_now",
    "parse_conversation",
    "parse_conversation_page",
    "parse_login_form",
    "parse_pm",
    "parse_pm_inbox",
    "parse_posting_form",
    "parse_topic_page",
    "printed_offset",
    "viewer_id",
]


def detect(html: Page) -> bool:
    """Whether the page was made by Invision software (IPB 2.x, 3.x or IPS 4)."""
    return dialect_of(html) is not None


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


def page_now(html: Page, tz: tzinfo | None = None) -> datetime | None:
    """The page's own "now": IPB 2.x prints it in the footer (`Сейчас: 29.11.2026, 21:10`,
    `Time is now: ...`) in the viewer's offset. None when the page has none (IPB 3.x)."""
    return v2.footer_now(parse_html(html), zone(tz, None))


def printed_offset(html: Page) -> timedelta | None:
    """The viewer's offset from UTC as an IPB 3 topic page shows it (printed clock times against the
    exact ones); None for other pages and dialects."""
    root = parse_html(html)
    return v3.printed_offset(root) if dialect_of(root) == "ipb3" else None


def viewer_id(html: Page) -> int | None:
    """The member an IPB 3 page was rendered for (None: a guest, or another dialect)."""
    return v3.viewer_id(parse_html(html))


# --- topic pages ----------------------------------------------------------------------------


def parse_topic_page(
    html: Page,
    url: str | None = None,
    *,
    tz: tzinfo | None = None,
    now: datetime | None = None,
    on_body: BodyReader | None = None,
) -> TopicPage:
    """One page of a topic (2.x `showtopic=T&st=N`, 3.4 `&page=N`, 3.3 `&st=N`, IPS 4 saved pages);
    `on_body` sees each post's body with its element (see `BodyReader`)."""
    root = read_page(html, url)
    damage = page_problems(root, url)
    try:
        dialect = dialect_of(root)
        if dialect == "ipb3":
            page = v3.topic_page(root, url, on_body)
        elif dialect == "ips4":
            page = ips4.topic_page(root, url, on_body)
        else:
            page = v2.topic_page(root, url, zone(tz, now), now, on_body)
    except PostError as exc:
        raise ParseError("; ".join([*damage, f"{page_label(root, url)}: {exc}"])) from exc
    except ParseError as exc:
        if damage:  # the damage is why the page reads as no topic page at all
            raise ParseError(N_("{names}; no post could be read"), names="; ".join(damage)) from exc
        raise
    return page.model_copy(update={"problems": damage + page.problems}) if damage else page


# --- private messages -----------------------------------------------------------------------


def parse_pm_inbox(
    html: Page, url: str | None = None, *, tz: tzinfo | None = None, now: datetime | None = None
) -> tuple[list[PmSummary], str | None]:
    """The rows of a PM folder (2.x `act=Msg&CODE=01`: one PM a row; 3.x the Messenger's folder:
    one conversation a row, see `v3`) and the next page's URL."""
    root = read_page(html, url)
    if dialect_of(root) == "ipb3":
        return v3.folder(root, url, zone(tz, now), now)
    return v2.inbox(root, url, zone(tz, now), now)


def parse_pm(
    html: Page, url: str | None = None, tz: tzinfo | None = None, *, now: datetime | None = None
) -> PrivateMessage:
    """One opened PM: 2.x `act=Msg&CODE=03&MSID=N`; 3.x the first message of the conversation page
    (`parse_conversation` gives them all). Quoted lines are left out of body_text."""
    root = read_page(html, url)
    if dialect_of(root) == "ipb3":
        return v3.conversation(root, url, zone(tz, now), now).messages[0]
    return v2.pm(root, url, zone(tz, now), now)


def parse_conversation(
    html: Page, url: str | None = None, tz: tzinfo | None = None, *, now: datetime | None = None
) -> list[PrivateMessage]:
    """Every message of an IPB 3.x conversation page, in order; pm_id is each message's own id.
    (An IPB 2.x PM page holds one message: a one-item list.)"""
    return list(parse_conversation_page(html, url, tz, now=now).messages)


def parse_conversation_page(
    html: Page, url: str | None = None, tz: tzinfo | None = None, *, now: datetime | None = None
) -> ConversationPage:
    """One page of a conversation with its pagination and viewer (IPB 2.x: the one PM as a page)."""
    root = read_page(html, url)
    if dialect_of(root) == "ipb3":
        return v3.conversation(root, url, zone(tz, now), now)
    message = v2.pm(root, url, zone(tz, now), now)
    return ConversationPage(conversation_id=message.pm_id, subject=message.subject, messages=(message,), url=url)


# --- forms ----------------------------------------------------------------------------------


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
