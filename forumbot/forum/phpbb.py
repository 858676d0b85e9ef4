"""phpBB 3.x pages (prosilver and its descendants) -> data. Pure functions, no I/O.

Markup facts these rely on (checked on real phpBB 3.3.11 pages, see fixtures/phpbb/):
- a post is `div#pN.post`; author `p.author` `a.username` / `a.username-coloured` / `span.username`
  (guests, deleted users), id from `u=` in the profile link; time `<time datetime>` (always UTC);
  body `div.content`; edit notice `div.notice` ("Last edited by ..." / "Последний раз
  редактировалось ..."), a sibling of the body, as is the signature.
- pagination `div.pagination`: `li.active`, page links, `a[rel=next]`.
- PM inbox rows `dl.row-item` (`pm_unread` / `pm_read`), PM page `div.post.pm`; their dates are
  plain text in the viewer's zone and language.
Every `parse_*` takes the page as text, bytes or an already parsed lxml tree.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, tzinfo

from forumbot.errors import ParseError
from forumbot.forum.dates import MONTHS, parse_forum_date
from forumbot.forum.markup import (
    Element,
    Page,
    absolute,
    collapse,
    first_class,
    form_fields,
    has_class,
    iter_class,
    page_label,
    parse_each,
    parse_html,
    query_int,
    serialize,
    text_lines,
    text_of,
)
from forumbot.forum.models import PmSummary, Post, PrivateMessage, TopicPage

__all__ = [
    "detect",
    "is_login_wall",
    "is_no_permission",
    "parse_login_form",
    "parse_pm",
    "parse_pm_inbox",
    "parse_posting_form",
    "parse_topic_page",
]

_POST_ID = re.compile(r"p(\d+)")
_USERNAME_CLASSES = ("username", "username-coloured")
_PART_CLASSES = frozenset({"author", "content", "notice", "postprofile"})
_EDIT_PHRASES = (  # "rest" is the editor's name and the date, in this order
    re.compile(r"Last edited by (?P<rest>.+?), edited (?P<n>\d+) times? in total"),
    re.compile(r"Последний раз редактировалось (?P<rest>.+?), всего редактировалось (?P<n>\d+)"),
)
_DATE_OPENERS = (
    frozenset(
        "sun mon tue wed thu fri sat sunday monday tuesday wednesday thursday friday saturday "
        "вс пн вт ср чт пт сб воскресенье понедельник вторник среда четверг пятница суббота "
        "today yesterday сегодня вчера".split()
    )
    | MONTHS.keys()
)
_SOME_NOW = datetime(2000, 1, 1, tzinfo=UTC)  # lets relative dates count as dates when splitting
_NO_PERMISSION = re.compile(
    r"not authori[sz]ed|do not have (the )?permission|cannot read|not permitted|"
    r"не авторизованы|нет (прав|доступа)|не можете (читать|просматривать)|доступ запрещ",
    re.I,
)


# --- page kinds -----------------------------------------------------------------------------


def detect(html: Page) -> bool:
    """Whether the page was made by phpBB."""
    root = parse_html(html)
    body = root.find("body")
    if body is not None and body.get("id") == "phpbb":
        return True
    return any("phpbb.com" in (a.get("href") or "") for a in root.iter("a"))


def is_login_wall(html: Page) -> bool:
    """A login form served where content was expected (`form#login`, as login_body.html makes)."""
    root = parse_html(html)
    return any(form.get("id") == "login" for form in root.iter("form"))


def is_no_permission(html: Page) -> bool:
    """phpBB's message page (`div#message`) saying the account may not read this."""
    root = parse_html(html)
    panel = next((div for div in root.iter("div") if div.get("id") == "message"), None)
    return panel is not None and _NO_PERMISSION.search(text_of(panel)) is not None


def _not_a(root: Element, url: str | None, kind: str) -> ParseError:
    where = page_label(root, url)
    if is_login_wall(root):
        return ParseError(f"{where}: a login page was served, not a phpBB {kind}")
    if is_no_permission(root):
        return ParseError(f"{where}: phpBB refused access ({text_of(_message(root))}), not a {kind}")
    return ParseError(f"{where}: not a phpBB {kind}")


def _message(root: Element) -> Element | None:
    return next((div for div in root.iter("div") if div.get("id") == "message"), None)


# --- topic pages ----------------------------------------------------------------------------


def parse_topic_page(
    html: Page, url: str | None = None, *, tz: tzinfo = UTC, now: datetime | None = None
) -> TopicPage:
    """One page of a topic. `url` (else the page's canonical link) makes links absolute;
    `tz`/`now` only matter for phpBB 3.0 pages, which print post times as text."""
    root = parse_html(html)
    divs, pager, heading = _page_parts(root)
    if not divs:
        raise _not_a(root, url, "topic page")
    base = url or _canonical(root)
    page, page_count, next_href = _pagination(pager)
    topic_id = _topic_id(root, heading)
    link_base = absolute(base, "./viewtopic.php") or "./viewtopic.php"
    posts, problems = parse_each(
        divs, lambda div: _post(div, topic_id, link_base, page, tz, now), page_label(root, url)
    )
    if not posts:
        raise ParseError(f"{page_label(root, url)}: no readable post: {'; '.join(problems)}")
    return TopicPage(
        dialect="phpbb",
        topic_id=topic_id,
        title=text_of(heading) if heading is not None else collapse(root.findtext(".//title")),
        page=page,
        page_count=max(page_count, page),
        posts=posts,
        next_url=absolute(base, next_href),
        url=url,
        problems=problems,
    )


def _page_parts(root: Element) -> tuple[list[Element], Element | None, Element | None]:
    """One pass over a page: the post divs (`div#pN.post`), the first `div.pagination` and the
    `h2.topic-title`."""
    posts: list[Element] = []
    pager = heading = None
    for el in root.iter("div", "h2"):
        cls = el.get("class")
        if not cls:
            continue
        names = cls.split()
        if el.tag == "h2":
            if heading is None and "topic-title" in names:
                heading = el
        elif "post" in names:
            if _POST_ID.fullmatch(el.get("id") or ""):
                posts.append(el)
        elif pager is None and "pagination" in names:
            pager = el
    return posts, pager, heading


def _canonical(root: Element) -> str | None:
    head = root.find("head")
    for link in head.iter("link") if head is not None else ():
        if link.get("rel") == "canonical":
            return str(link.get("href"))
    return None


def _topic_id(root: Element, heading: Element | None) -> int | None:
    link = heading.find(".//a") if heading is not None else None
    topic_id = query_int(link.get("href"), "t") if link is not None else None
    if topic_id is None:
        topic_id = query_int(_canonical(root), "t")
    if topic_id is None:
        for form in root.iter("form"):
            topic_id = query_int(form.get("action"), "t")
            if topic_id is not None:
                break
    return topic_id


def _pagination(box: Element | None) -> tuple[int, int, str | None]:
    """(page, page count, next-page link) from the first `div.pagination`."""
    if box is None:
        return 1, 1, None
    page, numbers, next_href = None, [], None
    for li in box.iter("li"):
        label = text_of(li)
        if label.isdigit():
            numbers.append(int(label))
            if has_class(li, "active"):
                page = int(label)
    for a in box.iter("a"):
        if a.get("rel") == "next":
            next_href = a.get("href")
    if page is None:
        strong = [int(s.text) for s in box.iter("strong") if (s.text or "").strip().isdigit()]
        page = strong[0] if strong else 1
        numbers.extend(strong)
    return page, max(numbers, default=page), next_href


def _post_parts(div: Element) -> dict[str, Element]:
    """One pass over a post: its first `p.author`, `div.content`, `div.notice`, `dl.postprofile`."""
    parts: dict[str, Element] = {}
    for el in div.iter("p", "div", "dl"):
        cls = el.get("class")
        if not cls:
            continue
        for name in cls.split():
            if name in _PART_CLASSES and name not in parts:
                parts[name] = el
    return parts


def _post(
    div: Element, topic_id: int | None, viewtopic: str, page: int, tz: tzinfo, now: datetime | None
) -> Post:
    post_id = int(div.get("id")[1:])
    parts = _post_parts(div)
    author_p, content = parts.get("author"), parts.get("content")
    if author_p is None or content is None:
        raise ParseError(f"post {post_id}: no author line (p.author) or no body (div.content)")
    user = _username(author_p)
    if user is None:
        user = _username(parts.get("postprofile"))
    edit = _edit_notice(parts.get("notice"))
    return Post(
        post_id=post_id,
        topic_id=topic_id,
        author=text_of(user) if user is not None else "",
        author_id=query_int(user.get("href"), "u") if user is not None else None,
        time=_post_time(author_p, post_id, tz, now),
        content_html=serialize(content),
        permalink=f"{viewtopic}?p={post_id}#p{post_id}",
        page=page,
        **edit,
    )


def _username(box: Element | None) -> Element | None:
    """The author's name element in a block: `a.username`, `a.username-coloured` or a
    `span.username` (guest); phpBB 3.0 markup: the profile link."""
    if box is None:
        return None
    for el in box.iter("a", "span"):
        cls = el.get("class")
        if cls and any(name in cls.split() for name in _USERNAME_CLASSES):
            return el
    for a in box.iter("a"):
        if "mode=viewprofile" in (a.get("href") or ""):
            return a
    return None


def _post_time(author_p: Element, post_id: int, tz: tzinfo, now: datetime | None) -> datetime:
    stamp = next(author_p.iter("time"), None)
    if stamp is not None and stamp.get("datetime"):
        return datetime.fromisoformat(stamp.get("datetime"))
    text = text_of(author_p).rpartition("»")[2]
    moment = parse_forum_date(text, tz, now)
    if moment is None:
        raise ParseError(f"post {post_id}: no post time (no <time>, text {text!r})")
    return moment


def _edit_notice(notice: Element | None) -> dict[str, object]:
    """edited, edited_by, edited_at, edit_count, edit_reason from a `div.notice`."""
    if notice is None:
        return {}
    text = text_of(notice)
    reason = next((text_of(em) for em in notice.iter("em")), None)
    for phrase in _EDIT_PHRASES:
        m = phrase.search(text)
        if m:
            who, when = _name_and_date(m.group("rest"), _username(notice))
            return {
                "edited": True,
                "edited_by": who,
                "edited_at": when,
                "edit_count": int(m.group("n")),
                "edit_reason": reason,
            }
    if reason is not None:  # a moderator's reason shown without the "last edited" line
        return {"edited": True, "edit_reason": reason}
    return {}


def _name_and_date(rest: str, link: Element | None) -> tuple[str, str | None]:
    """Split "Mr. Pink on Sun Nov 29, 2026 5:38 pm" (or the Russian form, which has no "on")
    into the editor's name and the date text. The profile link gives the name when present;
    else the date starts at the first word that can open a date and the rest parses as one."""
    if link is not None:
        name = text_of(link)
        if rest.startswith(name):
            return name, rest[len(name) :].strip().removeprefix("on ").strip() or None
    name, sep, when = rest.partition(" on ")
    if sep and parse_forum_date(when, UTC, _SOME_NOW) is not None:
        return name, when
    words = rest.split(" ")
    for i in range(1, len(words)):
        head = words[i].strip(",.").lower()
        tail = " ".join(words[i:])
        if (head in _DATE_OPENERS or head[:1].isdigit()) and parse_forum_date(tail, UTC, _SOME_NOW):
            return " ".join(words[:i]), tail
    return rest, None


# --- private messages -----------------------------------------------------------------------


def parse_pm_inbox(
    html: Page, url: str | None = None, *, tz: tzinfo = UTC, now: datetime | None = None
) -> tuple[list[PmSummary], str | None]:
    """The rows of a PM folder page and the next page's URL. Dates are plain text in the
    viewer's zone: pass it as `tz` (and `now` for "Today"-style dates)."""
    root = parse_html(html)
    rows = [(dl, first_class(dl, "a", "topictitle")) for dl in iter_class(root, "dl", "row-item")]
    rows = [(dl, link) for dl, link in rows if link is not None]
    if not rows and not any(f.get("id") == "viewfolder" for f in root.iter("form")):
        raise _not_a(root, url, "PM folder")
    summaries = [_pm_row(dl, link, url, tz, now) for dl, link in rows]
    return summaries, absolute(url, _pagination(first_class(root, "div", "pagination"))[2])


def _pm_row(dl: Element, link: Element, base: str | None, tz: tzinfo, now: datetime | None) -> PmSummary:
    href = link.get("href") or ""
    inner = first_class(dl, "div", "list-inner")
    sender = _username(inner if inner is not None else dl)
    time_text = collapse((sender.tail if sender is not None else "") or "").lstrip("»").strip()
    return PmSummary(
        pm_id=query_int(href, "p") or 0,
        subject=text_of(link),
        sender=text_of(sender) if sender is not None else "",
        sender_id=query_int(sender.get("href"), "u") if sender is not None else None,
        time=parse_forum_date(time_text, tz, now),
        time_text=time_text,
        unread=has_class(dl, "pm_unread"),
        url=absolute(base, href) or href,
    )


def parse_pm(
    html: Page, url: str | None = None, tz: tzinfo = UTC, *, now: datetime | None = None
) -> PrivateMessage:
    """One opened PM (`ucp.php?i=pm&mode=view&p=N`). Its date is text in the viewer's zone `tz`."""
    root = parse_html(html)
    box = next((div for div in iter_class(root, "div", "pm") if has_class(div, "post")), None)
    content = first_class(box, "div", "content") if box is not None else None
    if box is None or content is None:
        raise _not_a(root, url, "private message page")
    author_p = first_class(box, "p", "author")
    sender = _username(author_p)
    time_text = _sent_text(author_p)
    return PrivateMessage(
        pm_id=_pm_id(box, root, url),
        sender=text_of(sender) if sender is not None else "",
        sender_id=query_int(sender.get("href"), "u") if sender is not None else None,
        time=parse_forum_date(time_text, tz, now),
        time_text=time_text,
        subject=text_of(box.find(".//h3")),
        body_html=serialize(content),
        body_text="\n".join(text_lines(content, skip=_is_quote)),
        url=url,
    )


def _sent_text(author_p: Element | None) -> str:
    """The text after the first label (`<strong>Sent:</strong> DATE`) of the PM header."""
    if author_p is None:
        return ""
    label = author_p.find("strong")
    return collapse(label.tail) if label is not None else ""


def _pm_id(box: Element, root: Element, url: str | None) -> int:
    m = re.fullmatch(r"post-(\d+)", box.get("id") or "")
    if m:
        return int(m.group(1))
    found = query_int(url, "p")
    if found is None:
        field = next((i for i in root.iter("input") if i.get("name") == "p"), None)
        found = int(field.get("value")) if field is not None and (field.get("value") or "").isdigit() else 0
    return found


def _is_quote(el: Element) -> bool:
    return bool(el.tag == "blockquote")


# --- forms ----------------------------------------------------------------------------------


def parse_login_form(html: Page) -> dict[str, str]:
    """Hidden fields of `form#login` (sid, redirect, creation_time, form_token...) plus
    `_action`. A repeated name keeps its last value, as PHP reads it."""
    root = parse_html(html)
    form = next((f for f in root.iter("form") if f.get("id") == "login"), None)
    if form is None:
        raise ParseError(f"{page_label(root, None)}: no phpBB login form (form#login)")
    return form_fields(form, text_fields=False)


def parse_posting_form(html: Page) -> dict[str, str]:
    """What the posting / PM compose form (`form#postform`) would submit as served: hidden
    fields (tokens, checksums, topic_cur_post_id, address_list...), subject, message,
    checked options, and `_action`. Submit buttons are left to the caller."""
    root = parse_html(html)
    form = next((f for f in root.iter("form") if f.get("id") == "postform"), None)
    if form is None:
        raise _not_a(root, None, "posting form")
    return form_fields(form, text_fields=True)
