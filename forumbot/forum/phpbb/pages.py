"""phpBB 3.x pages (prosilver and its descendants) -> data. Pure functions, no I/O.

Markup facts these rely on (checked on real phpBB 3.3.11 pages, see fixtures/phpbb/ and
fixtures/phpbb-ru/):
- a post is `div#pN.post`; author `p.author` `a.username` / `a.username-coloured` / `span.username`
  (guests, deleted users), id from `u=` in the profile link; time `<time datetime>` (always UTC);
  body `div.content`; edit notice `div.notice` ("Last edited by ..." / "Последний раз
  редактировалось ..."), a sibling of the body, as is the signature.
- a moderator also sees posts waiting for approval (`p.post-notice.unapproved` in a
  `form.mcp_approve`) and soft-deleted ones (the div has class `deleted`, a
  `p.post-notice.deleted`, the post itself hidden in `div#post_contentN`, and a second notice
  `div.notice.post_deleted_msg`); both keep their whole body in `div.content`.
- a locked topic's reply button (`posting.php?mode=reply`) carries the lock icon `i.fa-lock`.
- pagination `div.pagination`: `li.active`, page links, `a[rel=next]`.
- PM folder rows `dl.row-item` (`pm_unread` / `pm_read`): the sender and ` » date` in the inbox;
  the recipients and a `dd.info` "Sent: date" in the sent messages and the outbox. PM page
  `div.post.pm`, its `p.author` lines (`<br>`-separated): date, sender, recipients. PM dates are
  plain text in the viewer's zone and language, often relative.
- the footer (`#page-footer`) states the viewer's zone: `<span title="Европа/Москва">UTC+03:00</span>`.
- a whole page reaches `</html>` and holds its footer `div#page-footer` (print views too); a topic page's and
  a PM folder's pagination (`div.pagination`) opens with the count of all its posts or messages ("7
  сообщений", "16 posts"), its links carry the offsets (`start=`): page N of M holds the page size, the last
  one the rest (a moderator's count includes what only moderators see, as the page does).
- the index prints the board's time (`p.time`: «Текущее время: 01 дек 2026, 12:00», to the minute, in the
  footer's zone; a member's last visit is a `p.time` too, and earlier); topic, PM and folder pages do not.
Every `parse_*` takes the page as text, bytes or an already parsed lxml tree.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone, tzinfo
from typing import TypeAlias

from forumbot.errors import N_, ParseError
from forumbot.forum.dates import MONTHS, page_clock, parse_forum_date, parse_forum_interval
from forumbot.forum.dialect import PageKind
from forumbot.forum.markup import (
    NO_END,
    BodyReader,
    Element,
    Page,
    absolute,
    browser_fields,
    closes_html,
    collapse,
    count_mismatch,
    expected_count,
    first_by_id,
    first_class,
    form_fields,
    handed_over,
    has_class,
    iter_class,
    page_label,
    page_problems,
    parse_html,
    query_int,
    serialize,
    submit_buttons,
    text_lines,
    text_of,
)
from forumbot.forum.phpbb import NAME
from forumbot.forum.poster import ForumTopicRow
from forumbot.posts import (
    BoardZone,
    PmSummary,
    Post,
    Preferences,
    PrivateMessage,
    QuoteStamp,
    TopicPage,
    Visibility,
)

__all__ = [
    "detect",
    "forum_pages",
    "is_username",
    "parse_forum_topics",
    "is_login_wall",
    "is_no_permission",
    "is_relative_format",
    "page_kind",
    "page_now",
    "parse_board_zone",
    "parse_login_form",
    "parse_pm",
    "parse_pm_inbox",
    "pm_folder_pages",
    "parse_posting_form",
    "parse_preferences",
    "parse_quote_stamp",
    "parse_topic_page",
    "unproven",
]

_POST_ID = re.compile(r"p(\d+)")
_NUMBER = re.compile(r"\d+")
_USERNAME_CLASSES = ("username", "username-coloured")
_PART_CLASSES = frozenset({"author", "content", "notice", "postprofile"})
_LOCK_ICON = "fa-lock"  # the reply button's icon on a locked topic
_LOCK_ICON_BYTES = re.compile(re.escape(_LOCK_ICON.encode()))
_DELETED_NOTICE = "post_deleted_msg"  # `div.notice.post_deleted_msg`: who soft-deleted the post, not an edit
_ZONE = re.compile(r"UTC(?:([+-])(\d{1,2}):(\d{2}))?")
_QUOTE_TAG = re.compile(r'\[quote=(?:"((?:[^"\\]|\\.)*)"|([^\s\]"]+))((?:\s+[a-z_]+=\d+)*)\s*\]')
_QUOTE_ATTR = re.compile(r"([a-z_]+)=(\d+)")
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


def page_kind(html: Page) -> PageKind | None:
    """The kind of a phpBB page (None: phpBB did not make it)."""
    root = parse_html(html)
    if not detect(root):
        return None
    for div in iter_class(root, "div", "post"):
        if _POST_ID.fullmatch(div.get("id") or "") and first_class(div, "div", "content") is not None:
            return "topic"
        if "pm" in (div.get("class") or "").split():
            return "pm"
    if first_class(root, "a", "topictitle") is not None and any(f.get("id") == "viewfolder" for f in root.iter("form")):
        return "pm_inbox"
    if is_no_permission(root):
        return "no_permission"
    return "login" if is_login_wall(root) else "unknown"


def is_login_wall(html: Page) -> bool:
    """A login form served where content was expected (`form#login`, as login_body.html makes)."""
    root = parse_html(html)
    return any(form.get("id") == "login" for form in root.iter("form"))


def is_no_permission(html: Page) -> bool:
    """phpBB's message page (`div#message`) saying the account may not read this."""
    root = parse_html(html)
    panel = next((div for div in root.iter("div") if div.get("id") == "message"), None)
    return panel is not None and _NO_PERMISSION.search(text_of(panel)) is not None


# --- a page proves it is whole ------------------------------------------------------------------


def unproven(html: Page, kind: PageKind, *, source: str | bytes | None = None, url: str | None = None) -> str | None:
    """What keeps a page read as `kind` from proving it came whole (None: it proves it): its text (`source`,
    when given) reaches `</html>`, it holds the footer (`div#page-footer`), and the posts of a topic page and
    the rows of a PM folder are as many as its pagination implies. A page of another kind is left to its
    parser, which names what it is."""
    if source is not None and not closes_html(source):
        return NO_END
    root = parse_html(html)
    if first_by_id(root, "div", "page-footer") is None:
        return "no footer (div#page-footer)"
    if kind == "topic":
        posts, pagers = _posts_and_pagers(root)
        return _count_mismatch(pagers, len(posts), "posts", url) if posts else None
    if kind == "pm_inbox":
        rows = [dl for dl in iter_class(root, "dl", "row-item") if first_class(dl, "a", "topictitle") is not None]
        return _count_mismatch(_posts_and_pagers(root)[1], len(rows), "messages", url) if rows else None
    if kind == "pm":
        box = next((div for div in iter_class(root, "div", "post") if has_class(div, "pm")), None)
        if box is not None and first_class(box, "div", "content") is None:
            return "no message body (div.content)"
    return None


def _posts_and_pagers(root: Element) -> tuple[list[Element], list[Element]]:
    """One pass over a page's divs: its posts (`div#pN.post`) and its paginations (`div.pagination`)."""
    posts: list[Element] = []
    pagers: list[Element] = []
    for div in root.iter("div"):
        cls = div.get("class")
        if not cls:
            continue
        bits = _PAGE_CLASSES.get(cls)
        if bits is None:
            bits = _page_part_classes(cls)
        if bits & _POST and _POST_ID.fullmatch(div.get("id") or ""):
            posts.append(div)
        elif bits & _PAGER:
            pagers.append(div)
    return posts, pagers


def _count_mismatch(boxes: list[Element], found: int, what: str, url: str | None) -> str | None:
    """Whether the page holds the `what` its paginations (`boxes`) say it does (the count of all, the page
    size)."""
    total = next((n for n in map(_total_of, boxes) if n is not None), None)
    page, pages, _ = max((_pagination(box) for box in boxes), key=lambda found: found[1], default=(1, 1, None))
    size = next((n for n in (_page_size(box, page, url) for box in boxes) if n is not None), None)
    expected = expected_count(page, pages, size, total)
    return count_mismatch(found, expected, what, f"page {page} of {pages} holds")


def _total_of(box: Element) -> int | None:
    """The count of all posts (or messages) a pagination opens with: the first number of its own text,
    outside its links and page numbers ("Первое новое сообщение • 7 сообщений • Страница 1 из 1")."""
    for text in [box.text, *(child.tail for child in box)]:
        m = _NUMBER.search(text or "")
        if m:
            return int(m.group(0))
    return None


def _page_size(box: Element, page: int, url: str | None) -> int | None:
    """Posts a page holds, from the offsets of the pagination's page links (`start=20` on page 3 -> 10),
    else of the page's own URL."""
    for a in box.iter("a"):
        label, start = text_of(a), query_int(a.get("href"), "start")
        if label.isdigit() and int(label) > 1 and start:
            return start // (int(label) - 1)
    start = query_int(url, "start")
    return start // (page - 1) if start and page > 1 else None


def page_now(html: Page, tz: tzinfo | None = None) -> datetime | None:
    """The board's time as the page prints it, where it does (the index's `p.time` in `div#page-body`,
    «Текущее время: …», to the minute), in the zone its footer states (else `tz`, else UTC); None on the pages
    that print none (topics, PMs, folders). A member's last visit is printed the same way, earlier (or
    relative): the latest date is the board's."""
    root = parse_html(html)
    body = first_by_id(root, "div", "page-body")
    lines = [p for p in body if p.tag == "p" and has_class(p, "time")] if body is not None else []
    shown = [text_of(p).rpartition(": ")[2] for p in lines]
    if not shown:
        return None
    footer = parse_board_zone(root)
    zone = footer.offset if footer is not None else tz or UTC
    found = [moment for text in shown if (moment := parse_forum_date(text, zone)) is not None]
    return max(found, default=None)


def _not_a(root: Element, url: str | None, kind: str) -> ParseError:
    where = page_label(root, url)
    if is_login_wall(root):
        return ParseError(f"{where}: a login page was served, not a phpBB {kind}")
    if is_no_permission(root):
        return ParseError(f"{where}: phpBB refused access ({text_of(_message(root))}), not a {kind}")
    panel = _message(root)
    if panel is not None:  # "Запрошенной темы не существует.", "Личное сообщение не найдено."...
        return ParseError(f"{where}: phpBB answered {_message_text(panel)!r}, not a {kind}")
    return ParseError(f"{where}: not a phpBB {kind}")


def _message(root: Element) -> Element | None:
    return next((div for div in root.iter("div") if div.get("id") == "message"), None)


def _message_text(panel: Element) -> str:
    """The text of a message page's panel without its heading ("Информация")."""
    said = [text_of(p) for p in panel.iter("p") if text_of(p)]
    return " ".join(said) or text_of(panel)


# --- topic pages ----------------------------------------------------------------------------


def parse_topic_page(
    html: Page,
    url: str | None = None,
    *,
    tz: tzinfo | None = None,
    now: datetime | None = None,
    on_body: BodyReader | None = None,
) -> TopicPage:
    """One page of a topic. `url` (else the page's canonical link) makes links absolute;
    `tz`/`now` only matter for phpBB 3.0 pages, which print post times as text. `on_body` sees each post's
    body with its element (see `BodyReader`)."""
    root = parse_html(html)
    tz = tz or UTC
    told = now
    # Only a post without a `<time datetime>` (phpBB 3.0) reads the board's clock: it is looked for then, once.
    clock = functools.cache(lambda: page_clock(page_now(root, tz), told))
    found, pager, heading, locked = _page_parts(root, may_be_locked=_may_show_lock(html))
    damage = page_problems(root, url)
    if not found:
        if damage:
            raise ParseError(N_("{names}; no post could be read"), names="; ".join(damage))
        raise _not_a(root, url, "topic page")
    base = url or _canonical(root)
    page, page_count, next_href = _pagination(pager)
    topic_id = _topic_id(root, heading)
    link_base = absolute(base, "./viewtopic.php") or "./viewtopic.php"
    where = functools.cache(lambda: url or _titled(root) or page_label(root, url))  # named when a post fails
    posts: list[Post] = []
    problems: list[str] = []
    for post in found:  # as `parse_each` reads them, the page named only for a problem
        try:
            posts.append(_post(post, topic_id, link_base, page, tz, clock, on_body))
        except ParseError as exc:
            problems.append(f"{where()}: {exc}")
    if not posts:
        raise ParseError(N_("{where}: no readable post: {names}"), where=where(), names="; ".join([*damage, *problems]))
    return TopicPage(
        dialect=NAME,
        topic_id=topic_id,
        title=text_of(heading) if heading is not None else collapse(root.findtext(".//title")),
        page=page,
        page_count=max(page_count, page),
        posts=tuple(posts),
        next_url=absolute(base, next_href),
        url=url,
        problems=(*damage, *problems),
        locked=locked,
    )


def _titled(root: Element) -> str | None:
    """How `page_label` names a page with a `<title>` in its `<head>`, found without a search of the whole
    tree: lxml's `find(".//title")` looks on for a second match through every element of the page."""
    head = root.find("head")
    title = head.find("title") if head is not None else None
    label = collapse(title.text) if title is not None else ""
    return f"page titled {label!r}" if label else None


def _locked_button(a: Element) -> bool:
    """A reply button (`posting.php?mode=reply`) that shows the lock icon: the topic is locked. Its
    words ("Закрыто", "Locked") are the language pack's, the icon is the style's."""
    href = a.get("href") or ""
    return "posting.php" in href and "mode=reply" in href and any(has_class(i, _LOCK_ICON) for i in a.iter("i"))


def _may_show_lock(html: Page) -> bool:
    """Whether the page can show the lock icon at all. phpBB 3 pages are UTF-8 and its templates write
    the icon's class as is, so a page whose source lacks it is not locked, and its few hundred links
    need not be looked at."""
    if isinstance(html, bytes):
        return _LOCK_ICON_BYTES.search(html) is not None  # faster than `in` on a page full of "fa-" icons
    return not isinstance(html, str) or _LOCK_ICON in html


def _page_parts(
    root: Element, *, may_be_locked: bool = True
) -> tuple[list[_PostParts], Element | None, Element | None, bool]:
    """One pass over a page: the posts (`div#pN.post`) with their parts (see `_PostParts`), the first
    `div.pagination`, the `h2.topic-title`, and (when `may_be_locked`) whether a reply button shows the
    topic locked. A post's parts are found in the same pass, not by a search of each post's subtree: the
    page's elements are visited once (lxml makes an object for each element a loop sees)."""
    posts: list[_PostParts] = []
    found: dict[Element, _PostParts] = {}  # a post's div -> its parts (the divs stay alive: the same objects)
    pager = heading = None
    locked = False
    page_known, post_known = _PAGE_CLASSES, _POST_CLASSES
    for el in root.iter(*_PAGE_TAGS_AND_LINKS) if may_be_locked else root.iter(*_PAGE_TAGS):
        tag = el.tag
        if tag == "a":
            locked = locked or _locked_button(el)
            continue
        cls = el.get("class")
        if not cls:
            continue
        if tag == "div" or tag == "h2":
            # a page's few hundred divs repeat a few dozen class attributes: most name nothing looked for
            bits = page_known.get(cls)
            if bits is None:
                bits = _page_part_classes(cls)
            if tag == "h2":
                if heading is None and bits & _HEADING:
                    heading = el
                continue
            if bits & _POST:
                if _POST_ID.fullmatch(el.get("id") or ""):
                    parent = el.getparent()
                    if posts and parent is not None and posts[-1].parent is parent:  # the last post's sibling
                        nested = posts[-1].nested  # inside the same posts, if any
                    else:
                        nested = bool(_posts_around(parent, found))
                    post = _PostParts(el, parent, nested=nested)
                    posts.append(post)
                    found[el] = post
            elif pager is None and bits & _PAGER:
                pager = el
        if not found:  # before the first post: no post to be a part of
            continue
        said = post_known.get(cls)
        if said is None:
            said = _post_part_classes(cls)
        if said:
            for post in _posts_around(el, found):
                post.take(el, tag, said)
    return posts, pager, heading, locked


_PAGE_TAGS = ("div", "h2", "p", "dl", "form")
_PAGE_TAGS_AND_LINKS = (*_PAGE_TAGS, "a")


def _posts_around(el: Element | None, found: dict[Element, _PostParts]) -> list[_PostParts]:
    """The posts whose subtree holds `el` (itself included), nearest first: its ancestors that are posts. A
    post that is no other's ends the walk up (its `nested` says whether another holds it)."""
    around: list[_PostParts] = []
    while el is not None:
        post = found.get(el)
        if post is not None:
            around.append(post)
            if not post.nested:
                break
        el = el.getparent()
    return around


class _PostParts:
    """A post's div and what its subtree (the div itself included) holds: its first `p.author`,
    `div.content`, edit `div.notice` (not the soft-delete notice), `dl.postprofile`, and who may see it."""

    __slots__ = ("div", "parent", "parts", "deleted", "unapproved", "nested")

    def __init__(self, div: Element, parent: Element | None, *, nested: bool) -> None:
        self.div = div
        self.parent = parent  # kept: lxml hands out the same object for it while it is alive
        self.parts: dict[str, Element] = {}
        self.deleted = has_class(div, "deleted")
        self.unapproved = False
        self.nested = nested  # inside another post's div

    def take(self, el: Element, tag: str, said: _PostClasses) -> None:
        """An element of the post's subtree whose class attribute says something (`_post_part_classes`)."""
        approve_form, deleted_notice, unapproved_notice, names = said
        if tag == "form":
            self.unapproved = self.unapproved or approve_form
            return
        self.deleted = self.deleted or deleted_notice
        self.unapproved = self.unapproved or unapproved_notice
        for name in names:
            if name not in self.parts:
                self.parts[name] = el

    @property
    def visibility(self) -> Visibility:
        # a soft-deleted post carries the same moderation form as one waiting for approval
        return "deleted" if self.deleted else "unapproved" if self.unapproved else "public"


_POST, _PAGER, _HEADING = 1, 2, 4
_PAGE_CLASSES: dict[str, int] = {}  # class attribute -> what `_page_part_classes` says of it
_KNOWN_CLASSES = 4096  # distinct class attributes kept: a board's pages use a few hundred


def _page_part_classes(classes: str) -> int:
    """Whether a class attribute holds "post", "pagination", "topic-title" (`_POST`, `_PAGER`, `_HEADING`):
    a page repeats a few class attributes hundreds of times, each is split once (a dict, not an LRU: the
    call would cost more than the split it saves)."""
    names = classes.split()
    bits = (
        (_POST if "post" in names else 0)
        | (_PAGER if "pagination" in names else 0)
        | (_HEADING if "topic-title" in names else 0)
    )
    if len(_PAGE_CLASSES) >= _KNOWN_CLASSES:
        _PAGE_CLASSES.clear()
    _PAGE_CLASSES[classes] = bits
    return bits


def _canonical(root: Element) -> str | None:
    head = root.find("head")
    for link in head.iter("link") if head is not None else ():
        if link.get("rel") == "canonical":
            return str(link.get("href"))
    return None


def _topic_id(root: Element, heading: Element | None) -> int | None:
    link = next(heading.iter("a"), None) if heading is not None else None  # `find(".//a")`, without ElementPath
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
    for el in box.iter("li", "a"):  # one pass for both
        if el.tag == "a":
            if el.get("rel") == "next":
                next_href = el.get("href")
            continue
        # `text_of`'s label, without collapsing the spaces inside it: a label with any is no number either way
        label = "".join(el.itertext()).strip()
        if label.isdigit():
            numbers.append(int(label))
            if has_class(el, "active"):
                page = int(label)
    if page is None:
        strong = [int(s.text) for s in box.iter("strong") if (s.text or "").strip().isdigit()]
        page = strong[0] if strong else 1
        numbers.extend(strong)
    return page, max(numbers, default=page), next_href


_PostClasses: TypeAlias = tuple[bool, bool, bool, tuple[str, ...]]
_POST_CLASSES: dict[str, _PostClasses | tuple[()]] = {}  # class attribute -> `_post_part_classes` of it


def _post_part_classes(classes: str) -> _PostClasses | tuple[()]:
    """What a class attribute inside a post says (each distinct one split once: every post repeats them):
    a moderation form (`mcp_approve`), a soft-delete or an approval notice (`p.post-notice`), and the
    parts `_PostParts` keeps that it names, in order (not the soft-delete notice's `notice`); `()` when it
    says none of these."""
    names = classes.split()
    notice = "post-notice" in names
    parts = tuple(
        name for name in names if name in _PART_CLASSES and not (name == "notice" and _DELETED_NOTICE in names)
    )
    said = "mcp_approve" in names, notice and "deleted" in names, notice and "unapproved" in names, parts
    found: _PostClasses | tuple[()] = said if any(said) else ()
    if len(_POST_CLASSES) >= _KNOWN_CLASSES:
        _POST_CLASSES.clear()
    _POST_CLASSES[classes] = found
    return found


def _post(
    found: _PostParts,
    topic_id: int | None,
    viewtopic: str,
    page: int,
    tz: tzinfo,
    clock: Callable[[], datetime | None],
    on_body: BodyReader | None = None,
) -> Post:
    post_id = int(found.div.get("id")[1:])
    parts, visibility = found.parts, found.visibility
    author_p, content = parts.get("author"), parts.get("content")
    if author_p is None or content is None:
        raise ParseError(N_("post {post_id}: no author line (p.author) or no body (div.content)"), post_id=post_id)
    user, stamp = _username_and_stamp(author_p)
    if user is None:
        user = _username(parts.get("postprofile"))
    edit = _edit_notice(parts.get("notice"))
    body = handed_over(content, on_body)
    return Post.parsed(
        post_id=post_id,
        topic_id=topic_id,
        author=text_of(user) if user is not None else "",
        author_id=query_int(user.get("href"), "u") if user is not None else None,
        time=_post_time(author_p, stamp, post_id, tz, clock),
        content_html=body,
        permalink=f"{viewtopic}?p={post_id}#p{post_id}",
        page=page,
        visibility=visibility,
        **edit,
    )


def _username(box: Element | None) -> Element | None:
    """The author's name element in a block: `a.username`, `a.username-coloured` or a
    `span.username` (guest); phpBB 3.0 markup: the profile link."""
    if box is None:
        return None
    for el in box.iter("a", "span"):
        cls = el.get("class")
        if cls and _is_username_class(cls):
            return el
    for a in box.iter("a"):
        if "mode=viewprofile" in (a.get("href") or ""):
            return a
    return None


def _username_and_stamp(author_p: Element) -> tuple[Element | None, Element | None]:
    """`_username` of the author line and its first `<time>`, in one pass over the line."""
    user = profile = stamp = None
    for el in author_p.iter("a", "span", "time"):
        tag = el.tag
        if tag == "time":
            if stamp is None:
                stamp = el
                if user is not None:
                    break
            continue
        if user is None:
            cls = el.get("class")
            if cls and _username_class(cls):
                user = el
                if stamp is not None:
                    break
            elif profile is None and tag == "a" and "mode=viewprofile" in (el.get("href") or ""):
                profile = el
    return (user if user is not None else profile), stamp


@functools.lru_cache(maxsize=1024)
def _is_username_class(classes: str) -> bool:
    return any(name in classes.split() for name in _USERNAME_CLASSES)


def _username_class(classes: str) -> bool:
    """`_is_username_class` through a plain dict: every post's author line repeats a few class attributes."""
    said = _USERNAME_CLASS.get(classes)
    if said is None:
        said = _is_username_class(classes)
        if len(_USERNAME_CLASS) >= _KNOWN_CLASSES:
            _USERNAME_CLASS.clear()
        _USERNAME_CLASS[classes] = said
    return said


_USERNAME_CLASS: dict[str, bool] = {}


def _post_time(
    author_p: Element, stamp: Element | None, post_id: int, tz: tzinfo, clock: Callable[[], datetime | None]
) -> datetime:
    """The post's time: its `<time datetime>` (`stamp`, the author line's first), else the line's text read
    against the board's clock."""
    moment = stamp.get("datetime") if stamp is not None else None
    if moment:
        return datetime.fromisoformat(moment)
    text = text_of(author_p).rpartition("»")[2]
    span = parse_forum_interval(text, tz, clock())
    if span is None:
        raise ParseError(N_("post {post_id}: no post time (no <time>, text {text!r})"), post_id=post_id, text=text)
    return span[0]


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
    html: Page, url: str | None = None, *, tz: tzinfo | None = None, now: datetime | None = None
) -> tuple[list[PmSummary], str | None]:
    """The rows of a PM folder page (inbox, sent messages, outbox, own folders) and the next
    page's URL. Dates are plain text in the viewer's zone: pass it as `tz`, and the board's
    clock when it rendered the page as `now` for relative dates ("6 минут назад", "Сегодня, 11:49");
    each row's `time`/`time_until` is the interval the date allows (`dates.parse_forum_interval`)."""
    root = parse_html(html)
    now = page_clock(page_now(root, tz), now)
    rows = [(dl, first_class(dl, "a", "topictitle")) for dl in iter_class(root, "dl", "row-item")]
    rows = [(dl, link) for dl, link in rows if link is not None]
    if not rows and not any(f.get("id") == "viewfolder" for f in root.iter("form")):
        raise _not_a(root, url, "PM folder")
    summaries = [_pm_row(dl, link, url, tz or UTC, now) for dl, link in rows]
    return summaries, absolute(url, _pagination(first_class(root, "div", "pagination"))[2])


def pm_folder_pages(html: Page) -> int:
    """How many pages a PM folder has, as the pagination of one of them shows (its last page's number)."""
    return _pagination(first_class(parse_html(html), "div", "pagination"))[1]


def _pm_row(dl: Element, link: Element, base: str | None, tz: tzinfo, now: datetime | None) -> PmSummary:
    href = link.get("href") or ""
    inner = first_class(dl, "div", "list-inner")
    box = inner if inner is not None else dl
    sender = _username(box)
    info = first_class(dl, "dd", "info")
    recipients: tuple[str, ...] = ()
    if info is not None:  # sent messages / outbox: "To A, B" and a `dd.info` "Sent: DATE"
        recipients = tuple(text_of(a) for a in _recipient_links(box, after=link))
        time_text = text_of(info).partition(": ")[2] or text_of(info)
    else:  # "SENDER » DATE"
        time_text = collapse((sender.tail if sender is not None else "") or "").lstrip("»").strip()
    when, until = _time_span(time_text, tz, now)
    return PmSummary(
        pm_id=query_int(href, "p") or 0,
        subject=text_of(link),
        sender=text_of(sender) if sender is not None else "",
        sender_id=query_int(sender.get("href"), "u") if sender is not None else None,
        time=when,
        time_text=time_text,
        unread=has_class(dl, "pm_unread"),
        url=absolute(base, href) or href,
        time_until=until,
        recipients=recipients,
    )


def _recipient_links(box: Element, after: Element | None = None) -> list[Element]:
    """The member (and group) links of a block, those before `after` excluded."""
    links = list(box.iter("a"))
    if after is not None and after in links:
        links = links[links.index(after) + 1 :]
    return [a for a in links if "memberlist.php" in (a.get("href") or "")]


def _time_span(text: str, tz: tzinfo, now: datetime | None) -> tuple[datetime | None, datetime | None]:
    """(earliest, exclusive end) of a printed date; the end is None when the text is exact to
    the second, both None when it is no date (or relative without `now`)."""
    span = parse_forum_interval(text, tz, now) if text else None
    if span is None:
        return None, None
    start, until = span
    return start, (until if until - start > timedelta(seconds=1) else None)


def parse_pm(
    html: Page, url: str | None = None, tz: tzinfo | None = None, *, now: datetime | None = None
) -> PrivateMessage:
    """One opened PM (`ucp.php?i=pm&mode=view&p=N`), or its print view (`&view=print`, whose id
    only the URL gives). Its date is text in the viewer's zone `tz`, relative ones read against
    `now` (the board's clock when it rendered the page); `time`/`time_until` is the interval the
    date allows. Only the message itself is read, not the message history below it, and quoted
    text never reaches `body_text`."""
    root = parse_html(html)
    tz = tz or UTC
    now = page_clock(page_now(root, tz), now)
    box = next((div for div in iter_class(root, "div", "pm") if has_class(div, "post")), None)
    content = first_class(box, "div", "content") if box is not None else None
    if box is None or content is None:
        printed = _printed_pm(root, url, tz, now)
        if printed is not None:
            return printed
        raise _not_a(root, url, "private message page")
    author_p = first_class(box, "p", "author")
    sender = _username(author_p)
    time_text = _sent_text(author_p)
    when, until = _time_span(time_text, tz, now)
    return PrivateMessage(
        pm_id=_pm_id(box, root, url),
        sender=text_of(sender) if sender is not None else "",
        sender_id=query_int(sender.get("href"), "u") if sender is not None else None,
        time=when,
        time_text=time_text,
        subject=text_of(box.find(".//h3")),
        body_html=serialize(content),
        body_text="\n".join(text_lines(content, skip=_is_quote)),
        url=url,
        time_until=until,
        recipients=_pm_recipients(author_p),
    )


def _pm_recipients(author_p: Element | None) -> tuple[str, ...]:
    """The names on the lines after the sender's in the PM header: date, sender, then the
    recipients (and blind copies), one `<br>`-separated line each."""
    if author_p is None:
        return ()
    lines: list[list[Element]] = [[]]
    for el in author_p.iter():
        if el.tag == "br":
            lines.append([])
        elif el.tag == "a" and "memberlist.php" in (el.get("href") or ""):
            lines[-1].append(el)
    return tuple(text_of(a) for line in lines[2:] for a in line)


def _printed_pm(root: Element, url: str | None, tz: tzinfo, now: datetime | None) -> PrivateMessage | None:
    """The print view of a PM: `div.post` with `h3` (subject), `div.date` (`Sent <strong>DATE`),
    a `div.author` for the sender and one per recipient line (names `&nbsp;`-separated in a
    `<strong>`), `div.content`. A topic's print view has one `div.author` per post."""
    box = next(iter_class(root, "div", "post"), None)
    if box is None:
        return None
    parts: dict[str, list[Element]] = {}
    for el in box:
        if el.tag == "div" and el.get("class") in ("date", "author", "content"):
            parts.setdefault(el.get("class"), []).append(el)
    authors, dates, contents = parts.get("author", []), parts.get("date", []), parts.get("content", [])
    if len(authors) < 2 or not dates or not contents:
        return None

    def strong(el: Element) -> str:
        found = el.find("strong")
        return collapse((text_of(found) if found is not None else "").replace("\xa0", " "))

    time_text = strong(dates[0])
    when, until = _time_span(time_text, tz, now)
    names = [
        collapse(name)
        for el in authors[1:]
        for found in [el.find("strong")]
        if found is not None
        for name in "".join(found.itertext()).split("\xa0")
        if collapse(name)
    ]
    content = contents[0]
    return PrivateMessage(
        pm_id=query_int(url, "p") or 0,
        sender=strong(authors[0]),
        time=when,
        time_text=time_text,
        subject=text_of(box.find("h3")),
        body_html=serialize(content),
        body_text="\n".join(text_lines(content, skip=_is_quote)),
        url=url,
        time_until=until,
        recipients=tuple(names),
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
        raise ParseError(N_("{page_label}: no phpBB login form (form#login)"), page_label=page_label(root, None))
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


# --- the viewer's zone, preferences, quotes -------------------------------------------------


def parse_board_zone(html: Page) -> BoardZone | None:
    """The viewer's time zone as the footer (`#page-footer`) of every phpBB page states it:
    `<span title="Европа/Москва">UTC+03:00</span>` (phpBB writes plain `UTC` for +00:00). The span
    is found by its text, not by the words around it, which are the language pack's. None when
    the page has no such footer (a redirect's empty body, a page of another engine)."""
    if isinstance(html, (str, bytes)) and not html.strip():
        return None
    root = parse_html(html)
    footer = next((div for div in root.iter("div") if div.get("id") == "page-footer"), None)
    for span in footer.iter("span") if footer is not None else ():
        m = _ZONE.fullmatch(text_of(span))
        if m is None:
            continue
        sign, hours, minutes = m.groups()
        offset = timedelta(hours=int(hours or 0), minutes=int(minutes or 0))
        if offset >= timedelta(hours=24):
            continue
        return BoardZone(offset=timezone(-offset if sign == "-" else offset), label=span.get("title") or "")
    return None


def is_relative_format(dateformat: str) -> bool:
    """Whether a phpBB date format prints recent dates relatively ("6 минут назад", "Сегодня, 11:49"):
    phpBB marks the part to replace with `|` (`|d M Y|, H:i`); any `|` turns it on."""
    return "|" in dateformat


def parse_preferences(html: Page) -> Preferences:
    """The board preferences form (`ucp.php?i=ucp_prefs&mode=personal`, `form#ucp`): language,
    zone and date format as stored, and everything the form submits as served."""
    root = parse_html(html)
    form = next(
        (
            f
            for f in root.iter("form")
            if f.get("id") == "ucp" and any(el.get("name") == "dateformat" for el in f.iter("input"))
        ),
        None,
    )
    if form is None:
        raise _not_a(root, None, "preferences form")
    fields = _browser_fields(form)
    values = dict(fields)
    return Preferences(
        action=form.get("action") or "",
        lang=values.get("lang"),
        tz=values.get("tz"),
        dateformat=values.get("dateformat"),
        fields=tuple(fields),
    )


def _browser_fields(form: Element) -> list[tuple[str, str]]:
    """What a browser submits from `form` unchanged, its first submit button pressed."""
    return browser_fields(form, press=next(iter(submit_buttons(form)), None))


def parse_quote_stamp(html: Page) -> QuoteStamp | None:
    """The quoted message's author, id and exact time, from the form phpBB serves for "quote"
    (`posting.php?mode=quote&p=N`, `ucp.php?i=pm&mode=compose&action=quote&p=N`): its textarea
    `message` opens with `[quote=Вера msg_id=67 time=1796114954 user_id=60]` (a name with spaces
    is quoted: `[quote="Mr. Pink" post_id=119 ...]`). None when the text holds no such tag."""
    root = parse_html(html)
    area = next((t for t in root.iter("textarea") if t.get("name") == "message"), None)
    if area is None:
        raise _not_a(root, None, "posting or compose form")
    for m in _QUOTE_TAG.finditer(area.text or ""):
        attrs = {key: int(value) for key, value in _QUOTE_ATTR.findall(m.group(3))}
        if "time" not in attrs:
            continue
        quoted, bare = m.group(1), m.group(2)
        name = re.sub(r"\\(.)", r"\1", quoted) if quoted is not None else bare
        return QuoteStamp(
            name=name,
            time=datetime.fromtimestamp(attrs["time"], UTC),
            user_id=attrs.get("user_id"),
            post_id=attrs.get("post_id"),
            msg_id=attrs.get("msg_id"),
        )
    return None


# --- a forum's list of topics ----------------------------------------------------------------


def parse_forum_topics(html: str | Element) -> list[ForumTopicRow]:
    """The topics listed on a `viewforum.php` page, in the page's order: `a.topictitle` to
    `viewtopic.php?t=N` in a `dl.row-item`, the starter in `div.topic-poster`."""
    root = parse_html(html)
    rows: list[ForumTopicRow] = []
    for dl in iter_class(root, "dl", "row-item"):
        link = first_class(dl, "a", "topictitle")
        topic_id = query_int(link.get("href"), "t") if link is not None else None
        if link is None or topic_id is None:
            continue
        poster = first_class(dl, "div", "topic-poster")
        name = next((el for el in (poster if poster is not None else dl).iter("a", "span") if is_username(el)), None)
        rows.append(ForumTopicRow(topic_id, text_of(link), text_of(name)))
    return rows


def forum_pages(html: str | Element) -> str | None:
    """The next page of a `viewforum.php` topic list (`a[rel=next]` in its pagination), if any."""
    root = parse_html(html)
    pager = first_class(root, "div", "pagination")
    for a in pager.iter("a") if pager is not None else ():
        if a.get("rel") == "next" and a.get("href"):
            return str(a.get("href"))
    return None


def is_username(el: Element) -> bool:
    return any(name in (el.get("class") or "").split() for name in ("username", "username-coloured"))
