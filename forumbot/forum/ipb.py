"""Invision Power Board pages -> data: IPB 2.x (2.2 / 2.3 skins) and IPB 3.x. Pure functions, no I/O.

IPB 2.x (checked on pages rendered by IPB 2.2.2's own code, fixtures/ipb/):
- a post is a `table.ipbtable` holding `div.postcolor#post-N`; the author is `div#post-member-N
  span.normalname a` (cut to 16 characters + "..."; the full name is then in the popup menu
  `#post-member-N_menu div.popupmenu-item strong`), guests `span.unreg`; the date is the first
  `span.postdetails` of the post, plain text (`j.n.Y, G:i`, `Сегодня, 9:30`, `Today, 11:15 PM`)
  in the viewer's offset; relative dates resolve against the footer's "Сейчас: 29.11.2026, 21:10".
- the edit line `span.edit` and `div.post-edit-reason` sit inside `div.postcolor`: they are cut out
  of `content_html`.
- pages are `&st=N`: `span.pagecurrent`, `span.pagelink a`, and the page-jump script gives
  (posts per page, post count).
IPB 3.x (hand-made fixtures mirroring 3.4 compiled skins, fixtures/ipb3/):
- a post is `div.post_block#post_id_N`; author `span.author.vcard a` (`hovercard-id`); time
  `abbr.published[title]` (ISO 8601); body `div.post.entry-content` with the edit notice `p.edit`
  (and `span.reason`) inside it, cut out of `content_html`; pagination `div.pagination`
  (`li.page.active`, `li.pagejump` "Page 1 of 2", `li.next a[rel=next]`).
Every `parse_*` takes the page as text, bytes (any charset the page declares, windows-1251
included) or an already parsed lxml tree. `tz` is the zone plain-text dates are printed in
(default: the zone of `now`, else UTC); `now` is when the page was fetched.
"""

from __future__ import annotations

import copy
import math
import re
from collections.abc import Sequence
from datetime import UTC, datetime, tzinfo
from typing import Literal

from forumbot.errors import ParseError
from forumbot.forum.dates import is_relative, parse_forum_date
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
    page_problems,
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
    "dialect_of",
    "is_login_wall",
    "is_no_permission",
    "page_now",
    "parse_conversation",
    "parse_login_form",
    "parse_pm",
    "parse_pm_inbox",
    "parse_posting_form",
    "parse_topic_page",
]

IpbDialect = Literal["ipb2", "ipb3"]

_POST_BODY_ID = re.compile(r"post-(\d+)")
_POST_BLOCK_ID = re.compile(r"post_id_(\d+)")
_SHOWUSER = re.compile(r"showuser=(\d+)|/user/(\d+)-")
_SHOWTOPIC = re.compile(r"showtopic=(\d+)|[?&;]t=(\d+)|/topic/(\d+)-")
_INPUT_T = re.compile(r'ipb_input_t\s*=\s*"(\d+)"')
_PAGE_JUMP = re.compile(r"new Array\(\s*'[^']*'\s*,\s*(\d+)\s*,\s*(\d+)\s*\)")
_OF_PAGES = re.compile(r"(\d+)\D+(\d+)")
_IPB2_EDIT = re.compile(r"^(?P<label>.*?)(?P<who>\S.*?)\s*(?: - |: )(?P<when>.+)$")
_IPB3_EDIT = (
    re.compile(r"Edited by (?P<who>.+?), (?P<when>.+?)\.?$"),
    re.compile(r"отредактировал (?P<who>.+?): (?P<when>.+)$"),
)
_NO_PERMISSION = re.compile(
    r"permission|not permitted|not allowed|"
    r"нет прав|не имеете прав|нет доступа|запрещ|не разрешено|недостаточно прав",
    re.I,
)
_V2_PART_CLASSES = frozenset({"postdetails", "edit", "post-edit-reason", "normalname", "unreg"})
_V2_PAGE_CLASSES = frozenset({"postcolor", "pagecurrent", "pagelink", "maintitle"})
_QUOTE_CLASSES = frozenset({"quotetop", "quotemain", "citation", "ipsBlockquote", "blockquote"})


class _PostError(ParseError):
    """A post the parser cannot read; re-raised naming the page."""


# --- dialect and page kinds -----------------------------------------------------------------


def dialect_of(html: Page) -> IpbDialect | None:
    """Which IPB made the page: "ipb3" (`body#ipboard_body`, `ipb.vars`), "ipb2"
    (`div#ipbwrapper` without the 3.x body, `ipb_var_base_url`), or None."""
    root = parse_html(html)
    body = root.find("body")
    if body is not None and body.get("id") == "ipboard_body":
        return "ipb3"
    if any(el.get("id") == "ipbwrapper" for el in root.iter("div")):
        return "ipb2"
    for script in root.iter("script"):
        code = script.text or ""
        if "ipb_var_base_url" in code:
            return "ipb2"
        if "ipb.vars[" in code:
            return "ipb3"
    return None


def detect(html: Page) -> bool:
    """Whether the page was made by Invision Power Board (2.x or 3.x)."""
    return dialect_of(html) is not None


def _logged_in(root: Element) -> bool:
    """Pages for members carry a logout link (2.x `act=Login&CODE=03`, 3.x `do=logout`)."""
    for a in root.iter("a"):
        href = a.get("href") or ""
        if "do=logout" in href or ("act=Login" in href and "CODE=03" in href):
            return True
    return False


def _login_form(root: Element) -> Element | None:
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


def is_login_wall(html: Page) -> bool:
    """A guest's page whose business is logging in: a login form (2.x `form[name=LOGIN]` or the
    error page's login form, 3.x `form#login`), or a guest's "no permission" page."""
    root = parse_html(html)
    if _logged_in(root):
        return False
    return _login_form(root) is not None or _refusal(root) is not None


def is_no_permission(html: Page) -> bool:
    """IPB's error page saying the account may not see this (2.x `div.errorwrap` / the
    error block, 3.x `p.ipsType_sectiontitle` of the error box)."""
    return _refusal(parse_html(html)) is not None


def _refusal(root: Element) -> str | None:
    """The text of an IPB error message about permissions, if the page is one."""
    candidates = list(iter_class(root, "div", "errorwrap"))
    candidates += [p for p in iter_class(root, "p", "ipsType_sectiontitle")]
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


def _not_a(root: Element, url: str | None, kind: str) -> ParseError:
    where = page_label(root, url)
    refusal = _refusal(root)
    if refusal:
        return ParseError(f"{where}: IPB refused access ({refusal}), not a {kind}")
    if not _logged_in(root) and _login_form(root) is not None:
        return ParseError(f"{where}: a login page was served, not an IPB {kind}")
    return ParseError(f"{where}: not an IPB {kind}")


def _zone(tz: tzinfo | None, now: datetime | None) -> tzinfo:
    if tz is not None:
        return tz
    if now is not None and now.tzinfo is not None:
        return now.tzinfo
    return UTC


def page_now(html: Page, tz: tzinfo | None = None) -> datetime | None:
    """The page's own "now": IPB 2.x prints it in the footer (`Сейчас: 29.11.2026, 21:10`,
    `Time is now: ...`) in the viewer's offset. None when the page has none (IPB 3.x)."""
    root = parse_html(html)
    return _footer_now([t for t in root.iter("table") if t.get("id") == "gfooter"], _zone(tz, None))


def _footer_now(footers: list[Element], tz: tzinfo) -> datetime | None:
    if not footers:
        return None
    cells = [text_of(td) for td in footers[0].iter("td")]
    for text in reversed(cells):
        moment = parse_forum_date(text, tz)
        if moment is not None:
            return moment
    return None


def _clock(root: Element, tz: tzinfo, now: datetime | None) -> datetime | None:
    """The reference for relative dates: the page's footer, else `now`."""
    return page_now(root, tz) or now


def _when(text: str, tz: tzinfo, now: datetime | None, what: str) -> datetime:
    moment = parse_forum_date(text, tz, now)
    if moment is None:
        if is_relative(text):
            raise _PostError(f"{what}: relative date {text!r} needs the page's 'now' (footer) or now=")
        raise _PostError(f"{what}: unrecognised date {text!r}")
    return moment


# --- topic pages ----------------------------------------------------------------------------


def parse_topic_page(
    html: Page, url: str | None = None, *, tz: tzinfo | None = None, now: datetime | None = None
) -> TopicPage:
    """One page of a topic (2.x `showtopic=T&st=N`, 3.x `showtopic=T&page=N` or friendly URLs)."""
    root = parse_html(html)
    damage = page_problems(root, url)
    try:
        if dialect_of(root) == "ipb3":
            page = _v3_topic_page(root, url)
        else:
            page = _v2_topic_page(root, url, _zone(tz, now), now)
    except _PostError as exc:
        raise ParseError("; ".join([*damage, f"{page_label(root, url)}: {exc}"])) from exc
    except ParseError as exc:
        if damage:  # the damage is why the page reads as no topic page at all
            raise ParseError(f"{'; '.join(damage)}; no post could be read") from exc
        raise
    return page.model_copy(update={"problems": damage + page.problems}) if damage else page


def _v2_topic_page(root: Element, url: str | None, tz: tzinfo, now: datetime | None) -> TopicPage:
    found = _v2_page_parts(root)
    bodies = [div for div in found["postcolor"] if _POST_BODY_ID.fullmatch(div.get("id", "")) and _shown(div)]
    if not bodies:
        raise _not_a(root, url, "topic page")
    clock = _footer_now(found["gfooter"], tz) or now
    page, page_count, next_href = _v2_pagination(root, found["pagecurrent"], found["pagelink"])
    topic_id = _v2_topic_id(root, url)
    posts, problems = parse_each(
        bodies, lambda body: _v2_post(body, topic_id, url, page, tz, clock), page_label(root, url)
    )
    if not posts:
        raise _PostError(f"no readable post: {'; '.join(problems)}")
    return TopicPage(
        dialect="ipb2",
        topic_id=topic_id,
        title=_v2_title(root, found["maintitle"]),
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


def _v2_page_parts(root: Element) -> dict[str, list[Element]]:
    """One pass over a 2.x page: post bodies, pager spans, title boxes, the footer table."""
    found: dict[str, list[Element]] = {name: [] for name in (*_V2_PAGE_CLASSES, "gfooter")}
    for el in root.iter("div", "span", "table"):
        cls = el.get("class")
        if cls:
            for name in cls.split():
                if name in _V2_PAGE_CLASSES:
                    found[name].append(el)
        if el.tag == "table" and el.get("id") == "gfooter":
            found["gfooter"].append(el)
    return found


def _first_topic_id(links: Sequence[str | None]) -> int | None:
    for link in links:
        m = _SHOWTOPIC.search(link or "")
        if m:
            return int(next(g for g in m.groups() if g))
    return None


def _v2_topic_id(root: Element, url: str | None) -> int | None:
    """`var ipb_input_t = "15821"` of the page's script, else the first findpost link, else the URL."""
    for script in root.iter("script"):
        code = script.text or ""
        m = _INPUT_T.search(code) if "ipb_input_t" in code else None
        if m:
            return int(m.group(1))
    links = [a.get("href") for a in root.iter("a") if "view=findpost" in (a.get("href") or "")]
    return _first_topic_id([*links[:1], url])


def _v2_title(root: Element, boxes: list[Element]) -> str:
    for box in boxes:
        bold = box.find(".//b")
        if bold is not None and box.find(".//table") is not None:
            return text_of(bold)
    title = collapse(root.findtext(".//title"))
    return title.rsplit(" - ", 1)[0] if " - " in title else title


def _v2_pagination(
    root: Element, current: list[Element], links: list[Element]
) -> tuple[int, int, str | None]:
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
    for script in root.iter("script"):
        code = script.text or ""
        m = _PAGE_JUMP.search(code) if "ipb_pages_array" in code else None
        if m and int(m.group(1)) > 0:
            count = max(count, math.ceil(int(m.group(2)) / int(m.group(1))))
            break
    return page, count, next_href


def _v2_post(
    body: Element, topic_id: int | None, base: str | None, page: int, tz: tzinfo, clock: datetime | None
) -> Post:
    post_id = int(body.get("id")[5:])
    table = next(body.iterancestors("table"), None)
    if table is None:
        raise _PostError(f"post {post_id}: its body is not inside a post table")
    parts = _v2_parts(table, post_id)
    author, author_id = _v2_member(parts)
    link = parts.get("permalink")
    edited, cleaned = _v2_edit(body, parts.get("span.edit"), parts.get("div.post-edit-reason"))
    return Post(
        post_id=post_id,
        topic_id=topic_id,
        author=author,
        author_id=author_id,
        time=_when(text_of(parts.get("span.postdetails")), tz, clock, f"post {post_id}"),
        content_html=serialize(cleaned),
        permalink=absolute(
            base, link.get("href") if link is not None else f"index.php?act=findpost&pid={post_id}"
        )
        or "",
        page=page,
        **edited,
    )


def _v2_parts(table: Element, post_id: int) -> dict[str, Element]:
    """One pass over a 2.x post table: the date (first `span.postdetails`), the author's
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
            if name in _V2_PART_CLASSES:
                parts.setdefault(f"{el.tag}.{name}", el)
            elif name == "popupmenu-item" and len(el) == 1 and el[0].tag == "strong":
                parts.setdefault("fullname", el[0])
    return parts


def _v2_member(parts: dict[str, Element]) -> tuple[str, int | None]:
    """(full name, member id) of a 2.x post or PM author; guests (`span.unreg`) have no id."""
    shown = parts.get("span.normalname")
    if shown is None:
        return text_of(parts.get("span.unreg")), None
    full = parts.get("fullname")
    link = parts.get("profile")
    name = text_of(full if full is not None else link if link is not None else shown)
    return name, _member_id(link.get("href")) if link is not None else None


def _member_id(href: str | None) -> int | None:
    m = _SHOWUSER.search(href or "")
    return int(next(g for g in m.groups() if g)) if m else None


def _v2_edit(
    body: Element, line: Element | None, reason_box: Element | None
) -> tuple[dict[str, object], Element]:
    """The edit line of a 2.x post and a copy of the body without it (the body as is when
    there is none). `span.edit`: "Сообщение отредактировал <b>X</b> - DATE" /
    "This post has been edited by <b>X</b>: DATE"; `div.post-edit-reason`: "Причина...: R"."""
    if line is None and reason_box is None:
        return {}, body
    info: dict[str, object] = {"edited": True}
    if line is not None:
        info.update(_v2_edit_line(line))
    if reason_box is not None:
        info["edit_reason"] = text_of(reason_box).partition(":")[2].strip() or text_of(reason_box)
    return info, _without(body, ("span", "edit"), ("div", "post-edit-reason"))


def _v2_edit_line(line: Element) -> dict[str, object]:
    who = line.find("b")
    if who is not None:
        when = collapse(who.tail).lstrip("-:").strip()
        return {"edited_by": text_of(who), "edited_at": when or None}
    m = _IPB2_EDIT.match(text_of(line))
    return {"edited_by": m.group("who"), "edited_at": m.group("when")} if m else {}


def _without(body: Element, *parts: tuple[str, str]) -> Element:
    """A copy of `body` without the given (tag, class) elements and the `<br>`s the edit
    template puts before them."""
    clone = copy.deepcopy(body)
    doomed = [el for tag, cls in parts for el in iter_class(clone, tag, cls)]
    for el in doomed:
        _drop_leading_breaks(el)
        _remove(el)
    return clone


def _drop_leading_breaks(el: Element) -> None:
    prev = el.getprevious()
    while prev is not None and prev.tag == "br" and not (prev.tail or "").strip():
        before = prev.getprevious()
        _remove(prev)
        prev = before


def _remove(el: Element) -> None:
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


def _v3_topic_page(root: Element, url: str | None) -> TopicPage:
    blocks = [
        div for div in iter_class(root, "div", "post_block") if _POST_BLOCK_ID.fullmatch(div.get("id", ""))
    ]
    if not blocks:
        raise _not_a(root, url, "topic page")
    page, page_count, next_href = _v3_pagination(root)
    topic_id = _v3_topic_id(root)
    parsed, problems = parse_each(blocks, lambda block: _v3_post(block, topic_id, url, page), page_label(root, url))
    if not parsed:
        raise _PostError(f"no readable post: {'; '.join(problems)}")
    posts = list(parsed)
    if topic_id is None:
        topic_id = _first_topic_id([p.permalink for p in posts] + [url])
        posts = [p.model_copy(update={"topic_id": topic_id}) for p in posts]
    title = first_class(root, "h1", "ipsType_pagetitle")
    return TopicPage(
        dialect="ipb3",
        topic_id=topic_id,
        title=text_of(title) if title is not None else collapse(root.findtext(".//title")),
        page=page,
        page_count=max(page_count, page),
        posts=tuple(posts),
        next_url=absolute(url, next_href),
        url=url,
        problems=problems,
    )


def _v3_topic_id(root: Element) -> int | None:
    for script in root.iter("script"):
        m = re.search(r"ipb\.topic\.topic_id\s*=\s*(\d+)", script.text or "")
        if m:
            return int(m.group(1))
    return None


def _v3_pagination(root: Element) -> tuple[int, int, str | None]:
    box = first_class(root, "div", "pagination")
    if box is None:
        return 1, 1, None
    page, numbers, next_href = 1, [1], None
    for li in box.iter("li"):
        label = text_of(li)
        if has_class(li, "page") and label.isdigit():
            numbers.append(int(label))
            if has_class(li, "active"):
                page = int(label)
        elif has_class(li, "pagejump"):
            m = _OF_PAGES.search(label)
            if m:
                numbers.append(int(m.group(2)))
        elif has_class(li, "next"):
            a = li.find(".//a")
            next_href = a.get("href") if a is not None else None
    return page, max(numbers), next_href


def _v3_post(block: Element, topic_id: int | None, base: str | None, page: int) -> Post:
    post_id = int(block.get("id")[8:])
    stamp = first_class(block, "abbr", "published")
    body = next((d for d in iter_class(block, "div", "entry-content") if has_class(d, "post")), None)
    if stamp is None or body is None or not stamp.get("title"):
        raise _PostError(f"post {post_id}: no abbr.published or no div.post.entry-content")
    author, author_id = _v3_author(block)
    link = next((a for a in iter_class(block, "span", "post_id")), None)
    href = link.find(".//a").get("href") if link is not None and link.find(".//a") is not None else None
    edited, cleaned = _v3_edit(body)
    return Post(
        post_id=post_id,
        topic_id=topic_id,
        author=author,
        author_id=author_id,
        time=datetime.fromisoformat(stamp.get("title")),
        content_html=serialize(cleaned),
        permalink=absolute(base, href)
        or f"index.php?app=forums&module=forums&section=findpost&pid={post_id}",
        page=page,
        **edited,
    )


def _v3_author(block: Element) -> tuple[str, int | None]:
    """`span.author.vcard a` (a member's hover card), else a guest's plain name in the h3."""
    vcard = next((s for s in iter_class(block, "span", "author") if has_class(s, "vcard")), None)
    if vcard is not None:
        link = vcard.find(".//a")
        member_id = _v3_member_id(link)
        return text_of(vcard), member_id
    pane = first_class(block, "div", "author_info")
    hidden = first_class(pane, "span", "hide") if pane is not None else None
    if hidden is not None:
        return text_of(hidden), None
    h3 = block.find(".//h3")  # a guest's name is plain text in the header, after the post link
    loose = [h3.text or ""] + [child.tail or "" for child in h3] if h3 is not None else []
    return collapse(" ".join(loose)), None


def _v3_member_id(link: Element | None) -> int | None:
    if link is None:
        return None
    card = link.get("hovercard-id")
    return int(card) if card and card.isdigit() else _member_id(link.get("href"))


def _v3_edit(body: Element) -> tuple[dict[str, object], Element]:
    """`p.edit` inside the 3.x body: "<strong>Edited by X, DATE.</strong>" / "Сообщение
    отредактировал X: DATE", with `span.reason` after a `<br />`."""
    notice = first_class(body, "p", "edit")
    if notice is None:
        return {}, body
    reason_el = first_class(notice, "span", "reason")
    reason = text_of(reason_el) if reason_el is not None else None
    line = text_of(notice)
    if reason:
        line = line.removesuffix(reason).strip()
    info: dict[str, object] = {"edited": True, "edit_reason": reason or None}
    for phrase in _IPB3_EDIT:
        m = phrase.search(line)
        if m:
            info.update(edited_by=m.group("who"), edited_at=m.group("when"))
            break
    return info, _without(body, ("p", "edit"))


# --- private messages -----------------------------------------------------------------------


def parse_pm_inbox(
    html: Page, url: str | None = None, *, tz: tzinfo | None = None, now: datetime | None = None
) -> tuple[list[PmSummary], str | None]:
    """The rows of a PM folder (2.x `act=Msg&CODE=01`, 3.x the messenger's folder view) and the
    next page's URL. 3.x folders print only the date of the last message (time stays None)."""
    root = parse_html(html)
    zone = _zone(tz, now)
    if dialect_of(root) == "ipb3":
        return _v3_inbox(root, url, zone, now)
    return _v2_inbox(root, url, zone, _clock(root, zone, now))


def _v2_inbox(
    root: Element, url: str | None, tz: tzinfo, clock: datetime | None
) -> tuple[list[PmSummary], str | None]:
    rows = []
    for link in root.iter("a"):
        href = link.get("href") or ""
        if "CODE=03" in href and "MSID=" in href:
            row = next(link.iterancestors("tr"), None)
            if row is not None:
                rows.append(_v2_inbox_row(row, link, url, tz, clock))
    if not rows and not any(f.get("name") == "mutliact" for f in root.iter("form")):
        raise _not_a(root, url, "PM folder")
    found = _v2_page_parts(root)
    return rows, absolute(url, _v2_pagination(root, found["pagecurrent"], found["pagelink"])[2])


def _v2_inbox_row(
    tr: Element, link: Element, base: str | None, tz: tzinfo, clock: datetime | None
) -> PmSummary:
    href = link.get("href") or ""
    sender = next((a for a in tr.iter("a") if "showuser=" in (a.get("href") or "")), None)
    cells = [td for td in tr if td.tag == "td"]
    time_text = text_of(cells[3]) if len(cells) > 3 else ""
    icon = next(tr.iter("img"), None)
    return PmSummary(
        pm_id=query_int(href, "MSID") or 0,
        subject=text_of(link),
        sender=text_of(sender),
        sender_id=_member_id(sender.get("href")) if sender is not None else None,
        time=parse_forum_date(time_text, tz, clock),
        time_text=time_text,
        unread=icon is not None
        and "f_norm_no" not in (icon.get("src") or "")
        and "f_norm" in icon.get("src", ""),
        url=absolute(base, href) or href,
    )


def _v3_inbox(
    root: Element, url: str | None, tz: tzinfo, now: datetime | None
) -> tuple[list[PmSummary], str | None]:
    table = next((t for t in root.iter("table") if t.get("id") == "message_table"), None)
    if table is None:
        raise _not_a(root, url, "PM folder")
    rows = []
    for tr in table.iter("tr"):
        link = next((a for a in tr.iter("a") if "do=showConversation" in (a.get("href") or "")), None)
        if link is not None and (tr.get("id") or "").isdigit():
            rows.append(_v3_inbox_row(tr, link, url, tz, now))
    return rows, absolute(url, _v3_pagination(root)[2])


def _v3_inbox_row(
    tr: Element, link: Element, base: str | None, tz: tzinfo, now: datetime | None
) -> PmSummary:
    cell = first_class(tr, "td", "col_m_subject")
    starter = next((a for a in (cell if cell is not None else tr).iter("a") if a.get("hovercard-id")), None)
    last = first_class(tr, "td", "col_f_post")
    stamp = first_class(last, "li", "desc") if last is not None else None
    time_text = text_of(stamp)
    href = link.get("href") or ""
    return PmSummary(
        pm_id=int(tr.get("id")),
        subject=text_of(link),
        sender=text_of(starter),
        sender_id=_v3_member_id(starter),
        time=parse_forum_date(time_text, tz, now),
        time_text=time_text,
        unread=has_class(tr, "unread"),
        url=absolute(base, href) or href,
    )


def parse_pm(
    html: Page, url: str | None = None, tz: tzinfo | None = None, *, now: datetime | None = None
) -> PrivateMessage:
    """One opened PM: 2.x `act=Msg&CODE=03&MSID=N`; 3.x a conversation, of which this is the
    first message (`parse_conversation` gives them all). Quoted lines are left out of body_text."""
    root = parse_html(html)
    zone = _zone(tz, now)
    if dialect_of(root) == "ipb3":
        messages = _v3_conversation(root, url, zone, now)
        if not messages:
            raise _not_a(root, url, "private message page")
        return messages[0]
    return _v2_pm(root, url, zone, _clock(root, zone, now))


def parse_conversation(
    html: Page, url: str | None = None, tz: tzinfo | None = None, *, now: datetime | None = None
) -> list[PrivateMessage]:
    """Every message of an IPB 3.x conversation page, in order; pm_id is each message's id.
    (An IPB 2.x PM page holds one message: a one-item list.)"""
    root = parse_html(html)
    zone = _zone(tz, now)
    if dialect_of(root) == "ipb3":
        return _v3_conversation(root, url, zone, now, own_ids=True)
    return [_v2_pm(root, url, zone, _clock(root, zone, now))]


def _v2_pm(root: Element, url: str | None, tz: tzinfo, clock: datetime | None) -> PrivateMessage:
    area: Element = next((div for div in root.iter("div") if div.get("id") == "ucpcontent"), None)
    body = first_class(area, "div", "postcolor") if area is not None else None
    if body is None:
        raise _not_a(root, url, "private message page")
    table: Element = next(body.iterancestors("table"), area)
    parts = _v2_parts(table, 0)
    sender, sender_id = _v2_member(parts)
    header = parts.get("span.postdetails")  # "<b>subject</b>, date"
    bold = header.find("b") if header is not None else None
    subject_el = first_class(area, "div", "formsubtitle")
    if subject_el is None:
        subject_el = bold
    time_text = collapse(bold.tail).lstrip(",").strip() if bold is not None else ""
    return PrivateMessage(
        pm_id=query_int(url, "MSID") or _v2_pm_id(root),
        sender=sender,
        sender_id=sender_id,
        time=parse_forum_date(time_text, tz, clock),
        time_text=time_text,
        subject=text_of(subject_el),
        body_html=serialize(body),
        body_text="\n".join(text_lines(body, skip=_is_quote)),
        url=url,
    )


def _v2_pm_id(root: Element) -> int:
    for a in root.iter("a"):
        found = query_int(a.get("href"), "MSID")
        if found is not None:
            return found
    return 0


def _v3_conversation(
    root: Element, url: str | None, tz: tzinfo, now: datetime | None, *, own_ids: bool = False
) -> list[PrivateMessage]:
    box = next((d for d in root.iter("div") if d.get("id") == "conversation"), None)
    if box is None:
        return []
    title = first_class(box, "h2", "maintitle")
    topic_id = query_int(url, "topicID") or _v3_conversation_id(box)
    messages = []
    for block in iter_class(box, "div", "post_block"):
        m = _POST_BLOCK_ID.fullmatch(block.get("id") or "")
        if m is None:
            continue
        body = next((d for d in iter_class(block, "div", "entry-content") if has_class(d, "post")), None)
        if body is None:
            continue
        sender, sender_id = _v3_author(block)
        info = first_class(block, "p", "posted_info")
        time_text = _v3_sent_text(info)
        messages.append(
            PrivateMessage(
                pm_id=int(m.group(1)) if own_ids else topic_id,
                sender=sender,
                sender_id=sender_id,
                time=parse_forum_date(time_text, tz, now),
                time_text=time_text,
                subject=text_of(title),
                body_html=serialize(body),
                body_text="\n".join(text_lines(body, skip=_is_quote)),
                url=url,
            )
        )
    return messages


def _v3_conversation_id(box: Element) -> int:
    for a in box.iter("a"):
        found = query_int(a.get("href"), "topicID")
        if found is not None:
            return found
    return 0


def _v3_sent_text(info: Element | None) -> str:
    """ "Sent 29 November 2026 - 08:31 PM" / "Отправлено Сегодня, 20:31" -> the date part."""
    text = text_of(info)
    words = text.split(" ", 1)
    return words[1] if len(words) == 2 and not words[0][:1].isdigit() else text


def _is_quote(el: Element) -> bool:
    if el.tag == "blockquote":
        return True
    cls = el.get("class")
    return bool(cls) and any(name in _QUOTE_CLASSES for name in cls.split())


# --- forms ----------------------------------------------------------------------------------


def parse_login_form(html: Page) -> dict[str, str]:
    """Hidden fields and checked boxes of the login form (2.x `form[name=LOGIN]`: referer,
    CookieDate; 3.x `form#login`: auth_key, referer...) plus `_action`."""
    root = parse_html(html)
    form = _login_form(root)
    if form is None:
        raise ParseError(f"{page_label(root, None)}: no IPB login form")
    return form_fields(form, text_fields=False)


def parse_posting_form(html: Page) -> dict[str, str]:
    """What a posting form would submit as served (2.x `form[name=REPLIER]`, 3.x
    `form#postingform`, else the first form carrying `auth_key`), plus `_action`."""
    root = parse_html(html)
    forms = list(root.iter("form"))
    form = next((f for f in forms if f.get("name") == "REPLIER" or f.get("id") == "postingform"), None)
    if form is None:
        form = next((f for f in forms if any(i.get("name") == "auth_key" for i in f.iter("input"))), None)
    if form is None:
        raise _not_a(root, None, "posting form")
    return form_fields(form, text_fields=True)
