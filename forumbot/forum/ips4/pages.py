"""IPS 4 (Invision Community) topic pages saved from a browser -> data. Pure functions, no I/O.

- a post is `article.ipsComment#elComment_N`; its wrapper `div[data-commentID]` carries the JSON
  author stamp `data-quoteData` (`userid`, `username`, `timestamp`), the author pane names him too
  (`aside.ipsComment_author h3 strong`, with a profile link `/profile/ID-name/`);
- the time is `time[datetime]` (ISO 8601, exact) of the comment's meta line;
- the body is `div[data-role=commentContent]`; quotes are `blockquote.ipsQuote`;
- a comment moderators alone see (hidden or waiting) is an `article.ipsModerated`;
- pagination `ul.ipsPagination[data-pages]`, `li.ipsPagination_active`, and a `li.ipsPagination_next`
  that is `ipsPagination_inactive` on the last page; pages are addressed by `page=N`.
- a whole page reaches `</html>` and holds the board's footer (`footer#ipsLayout_footer`, or the copyright
  `p#elCopyright`); the page says how many pages the topic has, not how many comments a page holds.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, tzinfo

from forumbot.errors import N_, ParseError
from forumbot.forum.dialect import PageKind
from forumbot.forum.invision.pages import (
    PostError,
    checked_topic_page,
    first_topic_id,
    member_id,
    not_a,
    read_page,
    version_of,
)
from forumbot.forum.ips4 import NAME
from forumbot.forum.markup import (
    NO_END,
    BodyReader,
    Element,
    Page,
    absolute,
    closes_html,
    collapse,
    first_by_id,
    first_class,
    handed_over,
    has_class,
    iter_class,
    page_label,
    parse_each,
    parse_html,
    text_of,
)
from forumbot.posts import PmSummary, Post, PrivateMessage, TopicPage

_COMMENT_ID = re.compile(r"elComment_(\d+)")


def page_kind(html: Page) -> PageKind | None:
    """The kind of an IPS 4 page (None: IPS 4 did not make it); only topic pages are read."""
    root = parse_html(html)
    if version_of(root) != 4:
        return None
    return "topic" if first_class(root, "article", "ipsComment") is not None else "unknown"


def unproven(html: Page, kind: PageKind, *, source: str | bytes | None = None, url: str | None = None) -> str | None:
    """What keeps a page from proving it came whole (None: it proves it): its text (`source`, when given)
    reaches `</html>` and it holds the board's footer."""
    if source is not None and not closes_html(source):
        return NO_END
    root = parse_html(html)
    if first_by_id(root, "footer", "ipsLayout_footer") is None and first_by_id(root, "p", "elCopyright") is None:
        return "no footer (footer#ipsLayout_footer, p#elCopyright)"
    return None


def parse_topic_page(
    html: Page,
    url: str | None = None,
    *,
    tz: tzinfo | None = None,
    now: datetime | None = None,
    on_body: BodyReader | None = None,
) -> TopicPage:
    """One page of a topic saved from a browser; post times are exact, from the markup."""
    root = read_page(html, url)
    return checked_topic_page(root, url, lambda: topic_page(root, url, on_body))


def parse_pm_inbox(
    html: Page, url: str | None = None, *, tz: tzinfo | None = None, now: datetime | None = None
) -> tuple[list[PmSummary], str | None]:
    raise ParseError(N_("{value}: IPS 4 PM folders are not read (only topics are)"), value=url or "the page")


def parse_pm(
    html: Page, url: str | None = None, tz: tzinfo | None = None, *, now: datetime | None = None
) -> PrivateMessage:
    raise ParseError(N_("{value}: IPS 4 PMs are not read (only topics are)"), value=url or "the page")


def topic_page(root: Element, url: str | None, on_body: BodyReader | None = None) -> TopicPage:
    articles = [a for a in iter_class(root, "article", "ipsComment") if _COMMENT_ID.fullmatch(a.get("id") or "")]
    if not articles:
        raise not_a(root, url, "topic page")
    page, count, next_href = _pagination(root)
    topic_id = _topic_id(root, url)
    posts, problems = parse_each(articles, lambda a: _post(a, topic_id, url, page, on_body), page_label(root, url))
    if not posts:
        raise PostError(N_("no readable post: {names}"), names="; ".join(problems))
    return TopicPage(
        dialect=NAME,
        topic_id=topic_id,
        title=_title(root),
        page=page,
        page_count=max(count, page),
        posts=posts,
        next_url=absolute(url, next_href),
        url=url,
        problems=problems,
        page_param="page",
    )


def _topic_id(root: Element, url: str | None) -> int | None:
    """The `contentid` of the first author stamp, else a `/topic/ID-slug/` link."""
    for wrap in root.iter("div"):
        content = (_stamp(wrap) or {}).get("contentid")
        if isinstance(content, int):
            return content
    links = [a.get("href") for a in root.iter("a") if "/topic/" in (a.get("href") or "")]
    return first_topic_id([*links[:1], url])


def _title(root: Element) -> str:
    heading = first_class(root, "h1", "ipsType_pageTitle")
    if heading is not None:
        return text_of(heading)
    title = collapse(root.findtext(".//title"))
    return title.split(" - ", 1)[0]


def _pagination(root: Element) -> tuple[int, int, str | None]:
    box = first_class(root, "ul", "ipsPagination")
    if box is None:
        return 1, 1, None
    pages = box.get("data-pages") or ""
    count = int(pages) if pages.isdigit() else 1
    active = first_class(box, "li", "ipsPagination_active")
    label = text_of(active)
    page = int(label) if label.isdigit() else 1
    following = first_class(box, "li", "ipsPagination_next")
    link = following.find(".//a") if following is not None else None
    live = following is not None and not has_class(following, "ipsPagination_inactive")
    return page, count, link.get("href") if live and link is not None else None


def _stamp(el: Element) -> dict[str, object] | None:
    raw = el.get("data-quoteData") or el.get("data-quotedata")
    if not raw:
        return None
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _post(article: Element, topic_id: int | None, base: str | None, page: int, on_body: BodyReader | None) -> Post:
    post_id = int(article.get("id")[len("elComment_") :])
    wrap = next((div for div in article.iter("div") if _stamp(div) is not None), None)
    stamp = _stamp(wrap) if wrap is not None else None
    body = next((div for div in article.iter("div") if div.get("data-role") == "commentContent"), None)
    moment = _time(article, stamp)
    if body is None or moment is None:
        raise PostError(N_("post {post_id}: no div[data-role=commentContent] or no time[datetime]"), post_id=post_id)
    author, author_id = _author(article, stamp)
    link = _permalink(article)
    return Post(
        post_id=post_id,
        topic_id=topic_id,
        author=author,
        author_id=author_id,
        time=moment,
        content_html=handed_over(body, on_body),
        permalink=absolute(base, link) or link or "",
        page=page,
        visibility="unapproved" if has_class(article, "ipsModerated") else "public",
    )


def _time(article: Element, stamp: dict[str, object] | None) -> datetime | None:
    meta = first_class(article, "div", "ipsComment_meta")
    tag = next((t for t in (meta if meta is not None else article).iter("time") if t.get("datetime")), None)
    if tag is not None:
        return datetime.fromisoformat(tag.get("datetime").replace("Z", "+00:00"))
    seconds = stamp.get("timestamp") if stamp else None
    return datetime.fromtimestamp(seconds, UTC) if isinstance(seconds, int) else None


def _author(article: Element, stamp: dict[str, object] | None) -> tuple[str, int | None]:
    """The JSON stamp's name and id, else the author pane's name and profile link."""
    if stamp and isinstance(stamp.get("username"), str):
        user = stamp.get("userid")
        return str(stamp["username"]), user if isinstance(user, int) and user > 0 else None
    pane = first_class(article, "aside", "ipsComment_author")
    strong = pane.find(".//strong") if pane is not None else None
    link = strong.find(".//a") if strong is not None else None
    return text_of(strong), member_id(link.get("href")) if link is not None else None


def _permalink(article: Element) -> str | None:
    for a in article.iter("a"):
        href = a.get("href") or ""
        if "do=findComment" in href:
            return href
    return None
