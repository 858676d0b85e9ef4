"""IPB 3.x pages (3.3 and 3.4 compiled skins) -> data. Pure functions, no I/O.

Every `parse_*` takes the page as text, bytes or a parsed tree; `tz` is the zone plain-text dates (PMs,
folders) are printed in (default: the zone of `now`, else UTC); post times are exact, from the markup.

- a post is `div.post_block#post_id_N`; author `span.author.vcard a` (`hovercard-id`), or the plain
  name alone when the viewer's group may not view profiles (no id then); time `abbr.published[title]`
  (ISO 8601, exact, whatever its text says: "Сегодня, 10:15", "3 часов назад"); body
  `div.post.entry-content` with the edit notice `p.edit` (and `span.reason`) inside it, cut out.
- a moderator also sees posts players do not: a `post_block ... moderated` waits for approval; a
  soft-deleted one adds `div#postsDelete_N` (the notice "Сообщение удалено ...", shown) and
  `div#postsDeleteShow_N` (the post itself, hidden): its body and time are read from the latter.
- pagination `div.pagination` (`li.page.active`, `li.pagejump` "Страница 1 из 2", `li.next a[rel=next]`);
  3.4 addresses pages by `page=N`, 3.3 by `st=N` (offsets): the page-jump script's `stKey` and the
  links say which.
- private messages are conversations: `div#conversation` holds a `div.post_block#post_id_<message id>`
  per message with `p.posted_info` "Отправлено <date>" (text only, often relative), 20 to a page; a
  folder (`table#message_table`) has a row per conversation (`tr#<conversation id>`) naming its
  starter, its last message's author and id, and that message's date.
- a whole page reaches `</html>` and holds the board's footer (`div#footer_utilities`, or the copyright
  `#copyright`); a topic page may show, instead, the topic's bottom controls (`div.topic_controls` after its
  last post: the captured 3.3 page has no board shell). A topic page before the last holds at least the page
  size of posts (`perPage` of the page-jump script; a moderator sees more: the posts waiting and the hidden
  ones), a conversation page before the last its 20 messages. 3.x prints no time of its own: its relative
  dates are read against the board's clock as its answer told it (the `Date` header).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, tzinfo

from forumbot.errors import N_
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
from forumbot.forum.ipb3 import NAME
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
from forumbot.forum.poster import ForumTopicRow
from forumbot.posts import ConversationPage, PmSummary, Post, PrivateMessage, TopicPage, Visibility

_POST_BLOCK_ID = re.compile(r"post_id_(\d+)")
_OF_PAGES = re.compile(r"(\d+)\D+(\d+)")
_TOPIC_ID = re.compile(r"ipb\.topic\.topic_id\s*=\s*(\d+)")
_VIEWER_ID = re.compile(r"ipb\.vars\['member_id'\]\s*=\s*parseInt\(\s*(\d+)\s*\)")
_CLOCK = re.compile(r"(?<!\d)(\d{1,2}):(\d{2})(?:\s*([AaPp])\.?[Mm])?")
_PAGE_JUMP = re.compile(r"stKey:\s*'(\w+)',\s*perPage:\s*(\d+)")
_EDITS = (
    re.compile(r"Edited by (?P<who>.+?), (?P<when>.+?)\.?$"),
    re.compile(r"отредактировал (?P<who>.+?): (?P<when>.+)$"),
)
FINDPOST = "index.php?app=forums&module=forums&section=findpost&pid={pid}"
MESSAGES_PER_PAGE = 20  # a conversation's page; IPB 3 has no setting for it


class Pager:
    """What a page's own pagination says: where it is, how many pages, how pages are addressed."""

    def __init__(self, root: Element) -> None:
        self.page, self.count, self.next_href = 1, 1, None
        self.param: str | None = None
        self.per_page: int | None = None
        box = first_class(root, "div", "pagination")
        if box is not None:
            self._read(box)
        self._read_jump(root)

    def _read(self, box: Element) -> None:
        numbers = [1]
        for li in box.iter("li"):
            label = text_of(li)
            if has_class(li, "page") and label.isdigit():
                numbers.append(int(label))
                if has_class(li, "active"):
                    self.page = int(label)
            elif has_class(li, "pagejump"):
                m = _OF_PAGES.search(label)
                if m:
                    numbers.append(int(m.group(2)))
            elif has_class(li, "next") and self.next_href is None:
                a = li.find(".//a")
                self.next_href = a.get("href") if a is not None else None
        self.count = max(max(numbers), self.page)
        if self.next_href:
            self.param = next((p for p in ("page", "st") if query_int(self.next_href, p) is not None), None)

    def _read_jump(self, root: Element) -> None:
        """`ipb.global.registerPageJump(..., { stKey: 'page', perPage: 6, ... })`."""
        for script in root.iter("script"):
            m = _PAGE_JUMP.search(script.text or "")
            if m:
                self.param = self.param or m.group(1)
                self.per_page = int(m.group(2))
                return


def unproven(html: Page, kind: PageKind, *, source: str | bytes | None = None, url: str | None = None) -> str | None:
    """What keeps a page read as `kind` from proving it came whole (None: it proves it): its text (`source`,
    when given) reaches `</html>`, it holds the board's footer (a topic page: or its bottom controls after its
    last post), a topic page before the last at least its page size of posts, a conversation page before the
    last its 20 messages. A page of another kind is left to its parser."""
    if source is not None and not closes_html(source):
        return NO_END
    root = parse_html(html)
    blocks = [div for div in iter_class(root, "div", "post_block") if _POST_BLOCK_ID.fullmatch(div.get("id", ""))]
    footer = first_by_id(root, "div", "footer_utilities") is not None or bool(root.xpath("//*[@id='copyright']"))
    if not footer and kind != "topic":
        return "no footer (div#footer_utilities, #copyright)"
    if not footer and not (blocks and _controls_after(root, blocks[-1])):
        return "no footer (div#footer_utilities, #copyright) nor the topic's controls after its last post"
    if kind not in ("topic", "pm") or not blocks:
        return None
    pager = Pager(root)
    size = pager.per_page if kind == "topic" else MESSAGES_PER_PAGE
    expected = expected_count(pager.page, pager.count, size, None)
    what = "posts" if kind == "topic" else "messages"
    return count_mismatch(len(blocks), expected, what, f"page {pager.page} of {pager.count} holds", exact=False)


def _controls_after(root: Element, last_post: Element) -> bool:
    """Whether a `div.topic_controls` (the pagination and buttons under a topic) follows the last post."""
    seen = False
    for div in root.iter("div"):
        if div is last_post:
            seen = True
        elif seen and has_class(div, "topic_controls"):
            return True
    return False


def _printed_offset(root: Element) -> timedelta | None:
    """The viewer's offset from UTC as the page shows it: a clock time printed for a post or message
    ("Сегодня, 20:55") against the exact instant the page also gives for it (`abbr.published[title]`,
    or a quote's `data-time` of a message on the page): +3 h, to the quarter hour. None when no pair
    with a clock time is on the page ("15 минут назад" has none)."""
    for printed, instant in _printed_and_exact(root):
        m = _CLOCK.search(printed)
        if m is None:
            continue
        at = instant.astimezone(UTC)
        minutes = (_minute_of_day(int(m.group(1)), int(m.group(2)), m.group(3)) - at.hour * 60 - at.minute) % 1440
        return timedelta(minutes=round((minutes - 1440 if minutes > 14 * 60 else minutes) / 15) * 15)
    return None


def _printed_and_exact(root: Element) -> Iterator[tuple[str, datetime]]:
    for stamp in iter_class(root, "abbr", "published"):
        if stamp.get("title"):
            yield text_of(stamp), datetime.fromisoformat(stamp.get("title"))
    blocks = {div.get("id"): div for div in iter_class(root, "div", "post_block")}
    for quote in root.iter("blockquote"):
        cid, seconds = quote.get("data-cid") or "", quote.get("data-time") or ""
        block = blocks.get(f"post_id_{cid}")
        info = first_class(block, "p", "posted_info") if block is not None else None
        if info is not None and seconds.isdigit():
            yield _sent_text(info), datetime.fromtimestamp(int(seconds), UTC)


def _minute_of_day(hour: int, minute: int, half: str | None) -> int:
    """Minutes since midnight of a printed clock time, 12-hour ones ("08:31 PM") included."""
    if half:
        hour = hour % 12 + (12 if half.lower() == "p" else 0)
    return hour * 60 + minute


def _viewer_id(root: Element) -> int | None:
    """The member the page was rendered for (`ipb.vars['member_id'] = parseInt( 2 )`); None for guests."""
    for script in root.iter("script"):
        m = _VIEWER_ID.search(script.text or "")
        if m:
            return int(m.group(1)) or None
    return None


# --- the readers the registry and the clients use ------------------------------------------


def page_kind(html: Page) -> PageKind | None:
    """The kind of an IPB 3 page (None: IPB 3 did not make it)."""
    root = parse_html(html)
    if version_of(root) != 3:
        return None
    if any(div.get("id") == "conversation" for div in root.iter("div")):
        return "pm"
    if any(table.get("id") == "message_table" for table in root.iter("table")):
        return "pm_inbox"
    if any(re.fullmatch(r"post_id_\d+", div.get("id") or "") for div in iter_class(root, "div", "post_block")):
        return "topic"
    return wall_kind(root)


def printed_offset(html: Page) -> timedelta | None:
    """The viewer's offset from UTC as an IPB 3 page shows it (printed clock times against the exact
    ones); None for other pages."""
    root = parse_html(html)
    return _printed_offset(root) if version_of(root) == 3 else None


def viewer_id(html: Page) -> int | None:
    """The member an IPB 3 page was rendered for (None: a guest)."""
    return _viewer_id(parse_html(html))


def parse_topic_page(
    html: Page,
    url: str | None = None,
    *,
    tz: tzinfo | None = None,
    now: datetime | None = None,
    on_body: BodyReader | None = None,
) -> TopicPage:
    """One page of a topic (3.4 `showtopic=T&page=N`, 3.3 `&st=N`); `on_body` sees each post's body with
    its element. Post times are exact: `tz` and `now` are not needed."""
    root = read_page(html, url)
    return checked_topic_page(root, url, lambda: topic_page(root, url, on_body))


def parse_pm_inbox(
    html: Page, url: str | None = None, *, tz: tzinfo | None = None, now: datetime | None = None
) -> tuple[list[PmSummary], str | None]:
    """The rows of the Messenger's folder (one conversation a row) and the next page's URL."""
    return folder(read_page(html, url), url, zone(tz, now), now)


def parse_pm(
    html: Page, url: str | None = None, tz: tzinfo | None = None, *, now: datetime | None = None
) -> PrivateMessage:
    """The first message of a conversation page (`parse_conversation` gives them all)."""
    return parse_conversation_page(html, url, tz, now).messages[0]


def parse_conversation(
    html: Page, url: str | None = None, tz: tzinfo | None = None, *, now: datetime | None = None
) -> list[PrivateMessage]:
    """Every message of a conversation page, in order; pm_id is each message's own id."""
    return list(parse_conversation_page(html, url, tz, now).messages)


def parse_conversation_page(
    html: Page, url: str | None = None, tz: tzinfo | None = None, now: datetime | None = None
) -> ConversationPage:
    """One page of a conversation with its pagination and viewer."""
    return conversation(read_page(html, url), url, zone(tz, now), now)


# --- topic pages ----------------------------------------------------------------------------


def topic_page(root: Element, url: str | None, on_body: BodyReader | None = None) -> TopicPage:
    blocks = [div for div in iter_class(root, "div", "post_block") if _POST_BLOCK_ID.fullmatch(div.get("id", ""))]
    if not blocks:
        raise not_a(root, url, "topic page")
    pager = Pager(root)
    topic_id = _topic_id(root)
    parsed, problems = parse_each(
        blocks, lambda block: _post(block, topic_id, url, pager.page, on_body), page_label(root, url)
    )
    if not parsed:
        raise PostError(N_("no readable post: {names}"), names="; ".join(problems))
    posts = list(parsed)
    if topic_id is None:
        topic_id = first_topic_id([p.permalink for p in posts] + [url])
        posts = [p.model_copy(update={"topic_id": topic_id}) for p in posts]
    title = first_class(root, "h1", "ipsType_pagetitle")
    return TopicPage(
        dialect=NAME,
        topic_id=topic_id,
        title=text_of(title) if title is not None else collapse(root.findtext(".//title")),
        page=pager.page,
        page_count=pager.count,
        posts=tuple(posts),
        next_url=absolute(url, pager.next_href),
        url=url,
        problems=problems,
        page_param=pager.param,
        per_page=pager.per_page,
    )


def _topic_id(root: Element) -> int | None:
    for script in root.iter("script"):
        m = _TOPIC_ID.search(script.text or "")
        if m:
            return int(m.group(1))
    return None


def _post(block: Element, topic_id: int | None, base: str | None, page: int, on_body: BodyReader | None) -> Post:
    post_id = int(block.get("id")[8:])
    visibility = _visibility(block, post_id)
    hidden_copy = _deleted_original(block, post_id) if visibility == "deleted" else None
    shown = hidden_copy if hidden_copy is not None else block  # a notice alone when no copy is shown
    stamp = first_class(shown, "abbr", "published")
    body = _body(shown)
    if stamp is None or body is None or not stamp.get("title"):
        raise PostError(N_("post {post_id}: no abbr.published or no div.post.entry-content"), post_id=post_id)
    author, author_id = author_of(block)
    link = first_class(block, "span", "post_id")
    anchor = link.find(".//a") if link is not None else None
    href = anchor.get("href") if anchor is not None else None
    edited, cleaned = _edit(body)
    return Post(
        post_id=post_id,
        topic_id=topic_id,
        author=author,
        author_id=author_id,
        time=datetime.fromisoformat(stamp.get("title")),
        content_html=handed_over(cleaned, on_body),
        permalink=absolute(base, href or FINDPOST.format(pid=post_id)) or FINDPOST.format(pid=post_id),
        page=page,
        visibility=visibility,
        **edited,
    )


def _visibility(block: Element, post_id: int) -> Visibility:
    """`moderated` marks both kinds a moderator alone sees; the soft-deleted one shows its notice in
    `div#postsDelete_N` (and its hidden twin, when the viewer may see it, in `div#postsDeleteShow_N`)."""
    if not has_class(block, "moderated"):
        return "public"
    marks = {f"postsDelete_{post_id}", f"postsDeleteShow_{post_id}"}
    return "deleted" if any(div.get("id") in marks for div in block.iter("div")) else "unapproved"


def _deleted_original(block: Element, post_id: int) -> Element | None:
    wanted = f"postsDeleteShow_{post_id}"
    return next((div for div in block.iter("div") if div.get("id") == wanted), None)


def _body(block: Element) -> Element | None:
    return next((d for d in iter_class(block, "div", "entry-content") if has_class(d, "post")), None)


def author_of(block: Element) -> tuple[str, int | None]:
    """`span.author.vcard a` (a member's hover card), its plain text when profiles are hidden from
    the viewer, else a guest's name (the author pane's `span.hide`, or loose text in the h3)."""
    vcard = next((s for s in iter_class(block, "span", "author") if has_class(s, "vcard")), None)
    if vcard is not None:
        return text_of(vcard), _member_link_id(vcard.find(".//a"))
    pane = first_class(block, "div", "author_info")
    hidden = first_class(pane, "span", "hide") if pane is not None else None
    if hidden is not None:
        return text_of(hidden), None
    h3 = block.find(".//h3")  # a guest's name is plain text in the header, after the post link
    loose = [h3.text or ""] + [child.tail or "" for child in h3] if h3 is not None else []
    return collapse(" ".join(loose)), None


def _member_link_id(link: Element | None) -> int | None:
    if link is None:
        return None
    card = link.get("hovercard-id")
    return int(card) if card and card.isdigit() else member_id(link.get("href"))


def _edit(body: Element) -> tuple[dict[str, object], Element]:
    """`p.edit` inside the body: "<strong>Edited by X, DATE.</strong>" / "Сообщение
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
    for phrase in _EDITS:
        m = phrase.search(line)
        if m:
            info.update(edited_by=m.group("who"), edited_at=m.group("when"))
            break
    return info, without(body, ("p", "edit"))


# --- the Messenger --------------------------------------------------------------------------


def folder(root: Element, url: str | None, tz: tzinfo, now: datetime | None) -> tuple[list[PmSummary], str | None]:
    table = next((t for t in root.iter("table") if t.get("id") == "message_table"), None)
    if table is None:
        raise not_a(root, url, "PM folder")
    rows = []
    for tr in table.iter("tr"):
        link = next((a for a in tr.iter("a") if "do=showConversation" in (a.get("href") or "")), None)
        if link is not None and (tr.get("id") or "").isdigit():
            rows.append(_folder_row(tr, link, url, tz, now))
    return rows, absolute(url, Pager(root).next_href)


def _folder_row(tr: Element, link: Element, base: str | None, tz: tzinfo, now: datetime | None) -> PmSummary:
    """A conversation's row: `sender` is its last message's author (`ul.last_post`), `starter` the
    member who began it (the subject cell); the date and `last_message_id` are the last message's."""
    cell = first_class(tr, "td", "col_m_subject")
    starter = next((a for a in (cell if cell is not None else tr).iter("a") if a.get("hovercard-id")), None)
    last = first_class(tr, "td", "col_f_post")
    last_author = next((a for a in last.iter("a") if a.get("hovercard-id")), None) if last is not None else None
    stamp = first_class(last, "li", "desc") if last is not None else None
    stamp_link = stamp.find(".//a") if stamp is not None else None
    time_text = text_of(stamp)
    start, until = interval(time_text, tz, now)
    href = link.get("href") or ""
    author = last_author if last_author is not None else starter
    return PmSummary(
        pm_id=int(tr.get("id")),
        subject=text_of(link),
        sender=text_of(author),
        sender_id=_member_link_id(author),
        time=start,
        time_until=until,
        time_text=time_text,
        unread=has_class(tr, "unread"),
        url=absolute(base, href) or href,
        conversation_id=int(tr.get("id")),
        starter=text_of(starter),
        last_message_id=query_int(stamp_link.get("href"), "msgID") if stamp_link is not None else None,
        replies=_replies(tr),
    )


def _replies(tr: Element) -> int | None:
    cell = first_class(tr, "td", "col_m_replies")
    m = re.search(r"\d+", text_of(cell)) if cell is not None else None
    return int(m.group(0)) if m else None


def conversation(root: Element, url: str | None, tz: tzinfo, now: datetime | None) -> ConversationPage:
    """One page of a conversation: every message on it, each with its own id."""
    box = next((d for d in root.iter("div") if d.get("id") == "conversation"), None)
    if box is None:
        raise not_a(root, url, "private message page")
    title = first_class(box, "h2", "maintitle")
    conversation_id = query_int(url, "topicID") or _conversation_id(box)
    pager = Pager(root)
    quoted = _quoted_times(box)
    messages = []
    for block in iter_class(box, "div", "post_block"):
        m = _POST_BLOCK_ID.fullmatch(block.get("id") or "")
        body = _body(block) if m is not None else None
        if m is None or body is None:
            continue
        sender, sender_id = author_of(block)
        time_text = _sent_text(first_class(block, "p", "posted_info"))
        exact = quoted.get(int(m.group(1)))
        start, until = (exact.astimezone(tz), None) if exact is not None else interval(time_text, tz, now)
        messages.append(
            PrivateMessage(
                pm_id=int(m.group(1)),
                sender=sender,
                sender_id=sender_id,
                time=start,
                time_until=until,
                time_text=time_text,
                subject=text_of(title),
                body_html=serialize(body),
                body_text="\n".join(text_lines(body, skip=is_quote)),
                url=url,
                conversation_id=conversation_id,
            )
        )
    if not messages:
        raise not_a(root, url, "private message page")
    return ConversationPage(
        conversation_id=conversation_id,
        subject=text_of(title),
        messages=tuple(messages),
        page=pager.page,
        page_count=pager.count,
        next_url=absolute(url, pager.next_href),
        url=url,
        viewer_id=_viewer_id(root),
    )


def _quoted_times(box: Element) -> dict[int, datetime]:
    """Exact send times of the messages a reply on the page quotes: IPB's quote keeps the quoted
    message's id and unix time (`blockquote[data-cid][data-time]`), where the message itself prints
    only "Вчера, 12:00"."""
    found: dict[int, datetime] = {}
    for quote in box.iter("blockquote"):
        cid, seconds = quote.get("data-cid") or "", quote.get("data-time") or ""
        if cid.isdigit() and seconds.isdigit():
            found.setdefault(int(cid), datetime.fromtimestamp(int(seconds), UTC))
    return found


_QUOTE_STAMP = re.compile(r"\[quote\b[^\]]*?\btimestamp=['\"]?(\d+)", re.I)


def quoted_time(html: Page) -> datetime | None:
    """The unix time a message's reply form cites in its quote (`[quote name='…' timestamp='…']`, in the
    form's textarea): the message's exact send time, which its own page prints only to the minute."""
    for area in parse_html(html).iter("textarea"):
        m = _QUOTE_STAMP.search(area.text or "")
        if m:
            return datetime.fromtimestamp(int(m.group(1)), UTC)
    return None


def _conversation_id(box: Element) -> int:
    for a in box.iter("a"):
        found = query_int(a.get("href"), "topicID")
        if found is not None:
            return found
    return 0


def _sent_text(info: Element | None) -> str:
    """ "Sent 29 November 2026 - 08:31 PM" / "Отправлено Сегодня, 20:31" -> the date part."""
    text = text_of(info)
    words = text.split(" ", 1)
    return words[1] if len(words) == 2 and not words[0][:1].isdigit() else text


# --- what the poster reads: a topic closed, its forum, a forum's topics, the Messenger's folder -----

_FORUM_ID = re.compile(r"ipb\.topic\.forum_id\s*=\s*(\d+)")


def topic_closed(html: str | Element) -> bool:
    """Whether the topic page shows the topic closed: its reply button is the `li.important` of the topic
    buttons, with the lock icon (a moderator's still links to the form, a member's is plain text); or the
    moderators' menu offers to open it and not to close it."""
    root = parse_html(html)
    for buttons in iter_class(root, "ul", "topic_buttons"):
        if any(has_class(li, "important") and li.find(".//img") is not None for li in buttons.iter("li")):
            return True
    return mod_link(root, "01") is not None and mod_link(root, "00") is None


def mod_link(html: str | Element, option: str) -> str | None:
    """The moderators' link `a.modlink_<option>` of a topic page (`00` closes, `01` opens), if offered."""
    return next((str(a.get("href")) for a in iter_class(parse_html(html), "a", f"modlink_{option}")), None)


def forum_of(html: str | Element) -> int | None:
    """The forum a topic page belongs to: its script's `ipb.topic.forum_id`, else its reply links' `f`."""
    root = parse_html(html)
    for script in root.iter("script"):
        m = _FORUM_ID.search(script.text or "")
        if m:
            return int(m.group(1))
    for a in root.iter("a"):
        href = a.get("href") or ""
        if "do=reply_post" in href and query_int(href, "f"):
            return query_int(href, "f")
    return None


def forum_topics(html: str | Element) -> list[ForumTopicRow]:
    """The topics of a forum page (`showforum=F`), in the page's order: `a#tid-link-N` to the topic, the
    starter as the first member link of its cell (the last poster's is in `td.col_f_post`)."""
    rows: list[ForumTopicRow] = []
    for link in parse_html(html).iter("a"):
        m = re.fullmatch(r"tid-link-(\d+)", link.get("id") or "")
        cell = next(link.iterancestors("td"), None)
        if m is None or cell is None:
            continue
        starter = next((a for a in cell.iter("a") if a.get("hovercard-id")), None)
        rows.append(ForumTopicRow(int(m.group(1)), text_of(link), text_of(starter)))
    return rows


def folder_recipients(html: str | Element) -> dict[int, list[str]]:
    """Whom each conversation of a Messenger folder page was sent to: the member links of its subject
    cell after the starter's (`tr#<conversation id>`, «Автор X, отправлено Y»)."""
    found: dict[int, list[str]] = {}
    for tr in parse_html(html).iter("tr"):
        cell = first_class(tr, "td", "col_m_subject")
        if cell is None or not (tr.get("id") or "").isdigit():
            continue
        members = [text_of(a) for a in cell.iter("a") if a.get("hovercard-id")]
        found[int(tr.get("id"))] = members[1:]
    return found


def next_page(html: str | Element) -> str | None:
    """The link to the next page of a list (the pagination's `li.next a`), if any."""
    for box in iter_class(parse_html(html), "div", "pagination"):
        for li in iter_class(box, "li", "next"):
            a = li.find(".//a")
            if a is not None and a.get("href"):
                return str(a.get("href"))
    return None
