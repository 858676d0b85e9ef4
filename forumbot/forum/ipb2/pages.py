"""IPB 2.x pages (2.2 / 2.3 skins) -> data. Pure functions, no I/O.

Every `parse_*` takes the page as text, bytes or a parsed tree; `tz` is the zone plain-text dates are
printed in (default: the zone of `now`, else UTC); `now` is the board's clock when it answered (its `Date`
header), against which relative dates are read when the footer shows no "now" of its own (and which refines the
footer's, printed to the minute, to the second: `dates.page_clock`).

- a post is a `table.ipbtable` holding `div.postcolor#post-N`; the author is `div#post-member-N
  span.normalname a` (cut to 16 characters + "..."; the full name is then in the popup menu
  `#post-member-N_menu div.popupmenu-item strong`), guests `span.unreg`, and a group that may not view
  profiles sees no link: a plain name; the date is the first `span.postdetails` of the post, plain
  text (`j.n.Y, G:i`, `Сегодня, 9:30`, `Today, 11:15 PM`) in the viewer's offset; relative dates
  resolve against the footer's "Сейчас: 29.11.2026, 21:10".
- a post waiting for approval is shown to moderators only, in cells of class `post1shaded` /
  `post2shaded` (IPB 2 has no soft delete).
- the edit line `span.edit` and `div.post-edit-reason` sit inside `div.postcolor`: they are cut out
  of `content_html`.
- pages are `&st=N`: `span.pagecurrent`, `span.pagelink a`, and the page-jump script gives
  (posts per page, post count).
- a whole page reaches `</html>` and holds the footer (`table#gfooter`, whose «Сейчас: …» is the board's
  time, or the copyright `div.copyright`); a topic page of several pages holds the posts the page-jump
  script implies (page N of M the page size, the last the rest).
"""

from __future__ import annotations

import math
import re
from datetime import datetime, tzinfo

from forumbot.errors import N_
from forumbot.forum.dates import page_clock, parse_forum_date
from forumbot.forum.dialect import PageKind
from forumbot.forum.invision.pages import (
    PostError,
    checked_topic_page,
    first_topic_id,
    interval,
    is_quote,
    member_id,
    not_a,
    read_page,
    version_of,
    wall_kind,
    when,
    without,
    zone,
)
from forumbot.forum.invision.pages import (  # the login wall, the refusal and the forms are Invision's
    is_login_wall as is_login_wall,
)
from forumbot.forum.invision.pages import (
    is_no_permission as is_no_permission,
)
from forumbot.forum.invision.pages import (
    parse_login_form as parse_login_form,
)
from forumbot.forum.invision.pages import (
    parse_posting_form as parse_posting_form,
)
from forumbot.forum.ipb2 import NAME
from forumbot.forum.markup import (
    NO_END,
    BodyReader,
    Element,
    Page,
    absolute,
    closes_html,
    collapse,
    count_mismatch,
    expected_count,
    first_by_id,
    first_class,
    handed_over,
    iter_class,
    page_label,
    parse_each,
    parse_html,
    query_int,
    serialize,
    text_lines,
    text_of,
)
from forumbot.forum.poster import ForumTopicRow
from forumbot.posts import PmSummary, Post, PrivateMessage, TopicPage, Visibility

_POST_BODY_ID = re.compile(r"post-(\d+)")
_INPUT_T = re.compile(r'ipb_input_t\s*=\s*"(\d+)"')
_PAGE_JUMP = re.compile(r"new Array\(\s*'[^']*'\s*,\s*(\d+)\s*,\s*(\d+)\s*\)")
_EDIT = re.compile(r"^(?P<label>.*?)(?P<who>\S.*?)\s*(?: - |: )(?P<when>.+)$")
_PART_CLASSES = frozenset({"postdetails", "edit", "post-edit-reason", "normalname", "unreg"})
_PAGE_CLASSES = frozenset({"postcolor", "pagecurrent", "pagelink", "maintitle"})
_SHADED = frozenset({"post1shaded", "post2shaded"})


def unproven(html: Page, kind: PageKind, *, source: str | bytes | None = None, url: str | None = None) -> str | None:
    """What keeps a page read as `kind` from proving it came whole (None: it proves it): its text (`source`,
    when given) reaches `</html>`, it holds the footer, a topic page holds the posts its page-jump script
    implies, and a PM page its message body. A page of another kind is left to its parser."""
    if source is not None and not closes_html(source):
        return NO_END
    root = parse_html(html)
    if first_by_id(root, "table", "gfooter") is None and first_class(root, "div", "copyright") is None:
        return "no footer (table#gfooter, div.copyright)"
    if kind == "topic":
        found = _page_parts(root)
        bodies = [div for div in found["postcolor"] if _POST_BODY_ID.fullmatch(div.get("id", "")) and _shown(div)]
        if not bodies:
            return None
        page, pages, _ = pagination(root, found["pagecurrent"], found["pagelink"])
        size, total = page_jump(root) or (None, None)
        expected = expected_count(page, pages, size, total)
        return count_mismatch(len(bodies), expected, "posts", f"page {page} of {pages} holds")
    if kind == "pm":
        area = first_by_id(root, "div", "ucpcontent")
        if area is not None and area.find(".//table") is not None and first_class(area, "div", "postcolor") is None:
            return "no message body (div.postcolor)"
    return None


def page_jump(root: Element) -> tuple[int, int] | None:
    """(posts per page, posts in all) from the page-jump script of a page of several pages."""
    for script in root.iter("script"):
        code = script.text or ""
        m = _PAGE_JUMP.search(code) if "ipb_pages_array" in code else None
        if m and int(m.group(1)) > 0:
            return int(m.group(1)), int(m.group(2))
    return None


def footer_now(root: Element, tz: tzinfo) -> datetime | None:
    """The page's own "now", printed in the footer (`Сейчас: 29.11.2026, 21:10`, `Time is now: ...`)."""
    footers = [t for t in root.iter("table") if t.get("id") == "gfooter"]
    if not footers:
        return None
    for text in reversed([text_of(td) for td in footers[0].iter("td")]):
        moment = parse_forum_date(text, tz)
        if moment is not None:
            return moment
    return None


# --- the readers the registry and the clients use ------------------------------------------


def page_kind(html: Page) -> PageKind | None:
    """The kind of an IPB 2 page (None: IPB 2 did not make it)."""
    root = parse_html(html)
    if version_of(root) != 2:
        return None
    bodies = list(iter_class(root, "div", "postcolor"))
    if any(re.fullmatch(r"post-\d+", body.get("id") or "") for body in bodies):
        return "topic"
    in_ucp = any(div.get("id") == "ucpcontent" for div in root.iter("div"))
    if in_ucp and bodies:
        return "pm"
    if any("CODE=03" in (a.get("href") or "") and "MSID=" in (a.get("href") or "") for a in root.iter("a")):
        return "pm_inbox"
    return wall_kind(root)


def page_now(html: Page, tz: tzinfo | None = None) -> datetime | None:
    """The page's own "now": IPB 2.x prints it in the footer (`Сейчас: 29.11.2026, 21:10`,
    `Time is now: ...`) in the viewer's offset. None when the page has none."""
    return footer_now(parse_html(html), zone(tz, None))


def parse_topic_page(
    html: Page,
    url: str | None = None,
    *,
    tz: tzinfo | None = None,
    now: datetime | None = None,
    on_body: BodyReader | None = None,
) -> TopicPage:
    """One page of a topic (`showtopic=T&st=N`); `on_body` sees each post's body with its element."""
    root = read_page(html, url)
    return checked_topic_page(root, url, lambda: topic_page(root, url, zone(tz, now), now, on_body))


def parse_pm_inbox(
    html: Page, url: str | None = None, *, tz: tzinfo | None = None, now: datetime | None = None
) -> tuple[list[PmSummary], str | None]:
    """The rows of a PM folder (`act=Msg&CODE=01`: one PM a row) and the next page's URL."""
    return inbox(read_page(html, url), url, zone(tz, now), now)


def parse_pm(
    html: Page, url: str | None = None, tz: tzinfo | None = None, *, now: datetime | None = None
) -> PrivateMessage:
    """One opened PM (`act=Msg&CODE=03&MSID=N`). Quoted lines are left out of body_text."""
    return pm(read_page(html, url), url, zone(tz, now), now)


# --- topic pages ----------------------------------------------------------------------------


def topic_page(
    root: Element, url: str | None, tz: tzinfo, now: datetime | None, on_body: BodyReader | None = None
) -> TopicPage:
    found = _page_parts(root)
    bodies = [div for div in found["postcolor"] if _POST_BODY_ID.fullmatch(div.get("id", "")) and _shown(div)]
    if not bodies:
        raise not_a(root, url, "topic page")
    clock = page_clock(footer_now(root, tz), now)
    page, page_count, next_href = pagination(root, found["pagecurrent"], found["pagelink"])
    topic_id = _topic_id(root, url)
    posts, problems = parse_each(
        bodies, lambda body: _post(body, topic_id, url, page, tz, clock, on_body), page_label(root, url)
    )
    if not posts:
        raise PostError(N_("no readable post: {names}"), names="; ".join(problems))
    return TopicPage(
        dialect=NAME,
        topic_id=topic_id,
        title=_title(root, found["maintitle"]),
        page=page,
        page_count=max(page_count, page),
        posts=posts,
        next_url=absolute(url, next_href),
        url=url,
        problems=problems,
    )


def _shown(body: Element) -> bool:
    """Not the placeholder IPB 2 prints for a post by an ignored member (`div#post-ignore-N`),
    which repeats the post's id; the post itself follows in its own table."""
    parent = body.getparent()
    return parent is None or not (parent.get("id") or "").startswith("post-ignore-")


def _page_parts(root: Element) -> dict[str, list[Element]]:
    """One pass over a page: post bodies, pager spans, title boxes."""
    found: dict[str, list[Element]] = {name: [] for name in _PAGE_CLASSES}
    for el in root.iter("div", "span", "table"):
        cls = el.get("class")
        if cls:
            for name in cls.split():
                if name in _PAGE_CLASSES:
                    found[name].append(el)
    return found


def _topic_id(root: Element, url: str | None) -> int | None:
    """`var ipb_input_t = "15821"` of the page's script, else the first findpost link, else the URL."""
    for script in root.iter("script"):
        code = script.text or ""
        m = _INPUT_T.search(code) if "ipb_input_t" in code else None
        if m:
            return int(m.group(1))
    links = [a.get("href") for a in root.iter("a") if "view=findpost" in (a.get("href") or "")]
    return first_topic_id([*links[:1], url])


def _title(root: Element, boxes: list[Element]) -> str:
    for box in boxes:
        bold = box.find(".//b")
        if bold is not None and box.find(".//table") is not None:
            return text_of(bold)
    title = collapse(root.findtext(".//title"))
    return title.rsplit(" - ", 1)[0] if " - " in title else title


def pagination(root: Element, current: list[Element], links: list[Element]) -> tuple[int, int, str | None]:
    label = text_of(current[0]) if current else ""
    page = int(label) if label.isdigit() else 1
    numbers = [page]
    next_href = None
    for span in links:
        for a in span.iter("a"):
            label = text_of(a)
            if label.isdigit():
                numbers.append(int(label))
            elif label in (">", "»", "›") and next_href is None:
                next_href = a.get("href")
    count = max(numbers)
    jump = page_jump(root)
    if jump is not None:
        count = max(count, math.ceil(jump[1] / jump[0]))
    return page, count, next_href


def _post(
    body: Element,
    topic_id: int | None,
    base: str | None,
    page: int,
    tz: tzinfo,
    clock: datetime | None,
    on_body: BodyReader | None = None,
) -> Post:
    post_id = int(body.get("id")[5:])
    table = next(body.iterancestors("table"), None)
    if table is None:
        raise PostError(N_("post {post_id}: its body is not inside a post table"), post_id=post_id)
    parts = _parts(table)
    author, author_id = _member(parts)
    link = parts.get("permalink")
    edited, cleaned = _edit(body, parts.get("span.edit"), parts.get("div.post-edit-reason"))
    return Post(
        post_id=post_id,
        topic_id=topic_id,
        author=author,
        author_id=author_id,
        time=when(text_of(parts.get("span.postdetails")), tz, clock, f"post {post_id}"),
        content_html=handed_over(cleaned, on_body),
        permalink=absolute(base, link.get("href") if link is not None else f"index.php?act=findpost&pid={post_id}")
        or "",
        page=page,
        visibility=_visibility(body),
        **edited,
    )


def _visibility(body: Element) -> Visibility:
    """A queued post's cell is `post1shaded` / `post2shaded` (moderators alone see it)."""
    cell = next(body.iterancestors("td"), None)
    classes = set((cell.get("class") or "").split()) if cell is not None else set()
    return "unapproved" if classes & _SHADED else "public"


def _parts(table: Element) -> dict[str, Element]:
    """One pass over a post table: the date (first `span.postdetails`), the author's
    `span.normalname` or `span.unreg` and profile link, the popup's full name (`strong` alone in a
    `div.popupmenu-item`, printed only for cut names), the edit line and reason, the findpost link."""
    parts: dict[str, Element] = {}
    for el in table.iter("div", "span", "a"):
        if el.tag == "a":
            href = el.get("href")
            if href:
                if "view=findpost" in href:
                    parts.setdefault("permalink", el)
                elif "showuser=" in href:
                    parts.setdefault("profile", el)
            continue
        cls = el.get("class")
        if not cls:
            continue
        for name in cls.split():
            if name in _PART_CLASSES:
                parts.setdefault(f"{el.tag}.{name}", el)
            elif name == "popupmenu-item" and len(el) == 1 and el[0].tag == "strong":
                parts.setdefault("fullname", el[0])
    return parts


def _member(parts: dict[str, Element]) -> tuple[str, int | None]:
    """(full name, member id) of a post or PM author; guests (`span.unreg`) and members shown
    without a profile link have no id."""
    shown = parts.get("span.normalname")
    if shown is None:
        return text_of(parts.get("span.unreg")), None
    full = parts.get("fullname")
    link = parts.get("profile")
    if link is not None and shown not in link.iterancestors("span"):
        link = None  # a profile link elsewhere in the post (a quote's), not the author's
    name = text_of(full if full is not None else link if link is not None else shown)
    return name, member_id(link.get("href")) if link is not None else None


def _edit(body: Element, line: Element | None, reason_box: Element | None) -> tuple[dict[str, object], Element]:
    """The edit line of a post and a copy of the body without it (the body as is when there is
    none). `span.edit`: "Сообщение отредактировал <b>X</b> - DATE" / "This post has been edited by
    <b>X</b>: DATE"; `div.post-edit-reason`: "Причина...: R"."""
    if line is None and reason_box is None:
        return {}, body
    info: dict[str, object] = {"edited": True}
    if line is not None:
        info.update(_edit_line(line))
    if reason_box is not None:
        info["edit_reason"] = text_of(reason_box).partition(":")[2].strip() or text_of(reason_box)
    return info, without(body, ("span", "edit"), ("div", "post-edit-reason"))


def _edit_line(line: Element) -> dict[str, object]:
    who = line.find("b")
    if who is not None:
        when_text = collapse(who.tail).lstrip("-:").strip()
        return {"edited_by": text_of(who), "edited_at": when_text or None}
    m = _EDIT.match(text_of(line))
    return {"edited_by": m.group("who"), "edited_at": m.group("when")} if m else {}


# --- private messages -----------------------------------------------------------------------


def inbox(root: Element, url: str | None, tz: tzinfo, now: datetime | None) -> tuple[list[PmSummary], str | None]:
    clock = page_clock(footer_now(root, tz), now)
    rows = []
    for link in root.iter("a"):
        href = link.get("href") or ""
        if "CODE=03" in href and "MSID=" in href:
            row = next(link.iterancestors("tr"), None)
            if row is not None:
                rows.append(_inbox_row(row, link, url, tz, clock))
    if not rows and not any(f.get("name") == "mutliact" for f in root.iter("form")):
        raise not_a(root, url, "PM folder")
    found = _page_parts(root)
    return rows, absolute(url, pagination(root, found["pagecurrent"], found["pagelink"])[2])


def pm_folder_pages(root: Element) -> int:
    """How many pages a PM folder has, as the pagination of one of them shows."""
    found = _page_parts(root)
    return pagination(root, found["pagecurrent"], found["pagelink"])[1]


def _inbox_row(tr: Element, link: Element, base: str | None, tz: tzinfo, clock: datetime | None) -> PmSummary:
    href = link.get("href") or ""
    sender = next((a for a in tr.iter("a") if "showuser=" in (a.get("href") or "")), None)
    cells = [td for td in tr if td.tag == "td"]
    time_text = text_of(cells[3]) if len(cells) > 3 else ""
    icon = next(tr.iter("img"), None)
    start, until = interval(time_text, tz, clock)
    return PmSummary(
        pm_id=query_int(href, "MSID") or 0,
        subject=text_of(link),
        sender=text_of(sender),
        sender_id=member_id(sender.get("href")) if sender is not None else None,
        time=start,
        time_until=until,
        time_text=time_text,
        unread=icon is not None and "f_norm_no" not in (icon.get("src") or "") and "f_norm" in icon.get("src", ""),
        url=absolute(base, href) or href,
    )


def pm(root: Element, url: str | None, tz: tzinfo, now: datetime | None) -> PrivateMessage:
    """One opened PM (`act=Msg&CODE=03&MSID=N`). Quoted lines are left out of body_text."""
    area: Element | None = next((div for div in root.iter("div") if div.get("id") == "ucpcontent"), None)
    body = first_class(area, "div", "postcolor") if area is not None else None
    if area is None or body is None:
        raise not_a(root, url, "private message page")
    table: Element = next(body.iterancestors("table"), area)
    parts = _parts(table)
    sender, sender_id = _member(parts)
    header = parts.get("span.postdetails")  # "<b>subject</b>, date"
    bold = header.find("b") if header is not None else None
    subject_el = first_class(area, "div", "formsubtitle")
    if subject_el is None:
        subject_el = bold
    time_text = collapse(bold.tail).lstrip(",").strip() if bold is not None else ""
    start, until = interval(time_text, tz, page_clock(footer_now(root, tz), now))
    return PrivateMessage(
        pm_id=query_int(url, "MSID") or _pm_id(root),
        sender=sender,
        sender_id=sender_id,
        time=start,
        time_until=until,
        time_text=time_text,
        subject=text_of(subject_el),
        body_html=serialize(body),
        body_text="\n".join(text_lines(body, skip=is_quote)),
        url=url,
    )


def _pm_id(root: Element) -> int:
    for a in root.iter("a"):
        found = query_int(a.get("href"), "MSID")
        if found is not None:
            return found
    return 0


# --- what the poster reads: a topic closed, a forum's topics, the next page of a list --------------


def topic_closed(html: str | Element) -> bool:
    """Whether the topic page shows the topic closed: its reply button is the `t_closed` image."""
    return any("t_closed" in (img.get("src") or "") for img in parse_html(html).iter("img"))


def forum_topics(html: str | Element) -> list[ForumTopicRow]:
    """The topics of a forum page (`showforum=F`), in the page's order: `a#tid-link-N` to the topic, the
    starter as the row's first member link."""
    rows: list[ForumTopicRow] = []
    for link in parse_html(html).iter("a"):
        m = re.fullmatch(r"tid-link-(\d+)", link.get("id") or "")
        row = next(link.iterancestors("tr"), None)
        if m is None or row is None:
            continue
        starter = next((a for a in row.iter("a") if "showuser=" in (a.get("href") or "")), None)
        rows.append(ForumTopicRow(int(m.group(1)), text_of(link), text_of(starter)))
    return rows


def next_page(html: str | Element) -> str | None:
    """The link to the next page (IPB 2's `&gt;` page link), if any."""
    for span in iter_class(parse_html(html), "span", "pagelink"):
        for a in span.iter("a"):
            if text_of(a) == ">" and a.get("href"):
                return str(a.get("href"))
    return None
