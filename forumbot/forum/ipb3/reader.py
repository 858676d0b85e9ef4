"""Reading an IPB 3.x board: its URL table, its login, its topic pages and its Messenger's conversations."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from datetime import datetime, timezone
from typing import Any

from forumbot.errors import N_, ForumbotError, ForumError, LoginFailed, PageCutShort, ParseError
from forumbot.forum.client import MAX_INBOX_PAGES, login_error, or_error
from forumbot.forum.dialect import PageKind, UrlTable
from forumbot.forum.http import ForumHttp, Page
from forumbot.forum.invision.pages import is_login_wall, message_row
from forumbot.forum.invision.reader import InvisionClient
from forumbot.forum.ipb3 import NAME, forms, pages
from forumbot.forum.markup import BodyReader, Element
from forumbot.posts import ConversationPage, PmSummary, PrivateMessage, TopicPage

REPLY_FORM = "index.php?app=members&module=messaging&section=send&do=replyForm"


class Ipb3Client(InvisionClient):
    """Invision Power Board 3.x (3.3 and 3.4 skins, UTF-8 as a rule).

    Pages are addressed as the board's own links address them: 3.4 by page number (`page=N`), 3.3 by
    offset (`st=N`); until a page has said which, a later page is asked for both ways, which either
    version reads. The Messenger keeps conversations: the inbox is every message of every conversation
    in the folder that the account did not write itself, each under its own id, all pages read; a
    conversation is read again only when its row names a newer last message."""

    dialect = NAME
    offset_param = "st"
    urls = UrlTable(
        login_form="index.php?app=core&module=global&section=login",
        login="index.php?app=core&module=global&section=login&do=process",
        topic="index.php?showtopic={topic}",
        page_param="page",
        inbox="index.php?app=members&module=messaging&section=view&do=showFolder&folderID=myconvo",
        pm="index.php?app=members&module=messaging&section=view&do=showConversation&topicID={pm}",
        topic_params=("showtopic", "t"),
    )

    def __init__(self, base_url: str, **options: Any) -> None:
        super().__init__(base_url, **options)
        self._viewer_id: int | None = None  # the account's member id, as the conversation pages say
        self._page_param: str | None = None  # learned from the first topic page's links
        self._conversations: dict[int, tuple[int | None, list[PrivateMessage]]] = {}
        self._messages: dict[int, PrivateMessage] = {}
        self._read_lock = threading.Lock()

    def _unproven(self, page: Page, kind: PageKind) -> str | None:
        return pages.unproven(self._tree(page.text), kind, source=page.text, url=page.url)

    def _parse_topic(self, page: Page, on_body: BodyReader | None = None) -> TopicPage:
        root = self._learn_zone_from(self._tree(page.text, last_use=True))
        now = self._board_now(page)
        parsed = pages.parse_topic_page(root, url=page.url, tz=self.tz, now=now, on_body=on_body)
        self._page_param = self._page_param or parsed.page_param
        return parsed

    def _learn_zone_from(self, root: Element) -> Element:
        """IPB 3 prints no "now" and no zone: unless one is configured, the viewer's offset is what a page
        prints for a post or message whose exact instant it also gives (see `pages.printed_offset`)."""
        if self.tz is None:
            offset = pages.printed_offset(root)
            self.tz = timezone(offset) if offset is not None else None
        return root

    def _topic_url(self, topic: int, number: int, size: int) -> str:
        base = self.urls.topic.format(topic=topic)
        if number > 1:
            offset = f"st={(number - 1) * size}"
            by = {"page": f"page={number}", "st": offset}.get(self._page_param or "", f"page={number}&{offset}")
            base = f"{base}&{by}"
        return self.http.url(base)

    def _parse_inbox(self, page: Page) -> tuple[list[PmSummary], str | None]:
        now = self._board_now(page)
        return pages.parse_pm_inbox(self._tree(page.text, last_use=True), url=page.url, tz=self.tz, now=now)

    def _inbox_page_count(self, page: Page) -> int:
        return pages.Pager(self._tree(page.text)).count

    def _parse_pm(self, page: Page) -> PrivateMessage:
        now = self._board_now(page)
        return pages.parse_pm(self._tree(page.text, last_use=True), url=page.url, tz=self.tz, now=now)

    def _authenticate(self, http: ForumHttp) -> None:
        """The login page first, which IPB serves to members too: when its user bar shows the account (a kept
        session the board still knows, or one it made again from the remembered-login cookies), nothing is
        posted. Else its login form as served (`auth_key`, `referer`, remember me), with the account's name
        and password, sent with its button; success is a silent 302 to the board, whose page shows the
        account as the board prints him."""
        username, password = self._credentials_or_fail()
        form_page = http.get(http.url(self.urls.login_form), content=False)
        root = self._tree(form_page.text)
        if self._session_proven(root):
            return
        submission = forms.login_form(root, username, password)
        if submission is None and not is_login_wall(root):
            return
        if submission is None:
            raise LoginFailed(N_("{forum}: the login page has no login form (form#login)"), forum=self.forum)
        answer = http.post(http.rebase(submission[0] or self.urls.login), submission[1], charset=form_page.charset)
        if is_login_wall(answer.text):
            raise LoginFailed(
                N_("{forum}: {value}"), forum=self.forum, value=login_error(answer) or "the forum refused the login"
            )
        self._learn_viewer(self._tree(answer.text, last_use=True))

    # -- the Messenger ----------------------------------------------------------------------------

    def fetch_inbox(self) -> list[PmSummary]:
        """Every message written to the account in the folder's conversations, oldest first by id."""
        rows = super().fetch_inbox()
        changed = [row for row in rows if self._stale(row)]
        unread: list[PmSummary] = []  # a conversation that would not open stays a row: its error is reported
        for row, messages in zip(changed, self._read_conversations(changed), strict=True):
            if isinstance(messages, ForumbotError):
                unread.append(row)
            else:
                self._remember(row, messages)
        found = [
            message_row(message)
            for row in rows
            for message in self._conversations.get(_conversation_of(row), (None, []))[1]
            if not self._written_by_us(message)
        ]
        return sorted(found, key=lambda m: m.pm_id) + unread

    def fetch_pm(self, pm: PmSummary | int) -> PrivateMessage:
        """One message, by its id or its inbox row (a conversation's row reads the whole conversation)."""
        pm_id = pm.pm_id if isinstance(pm, PmSummary) else int(pm)
        if pm_id not in self._messages and isinstance(pm, PmSummary) and pm.conversation_id is not None:
            self._remember(pm, self._read_conversation(pm.conversation_id))
        if pm_id not in self._messages:  # an id of no message read so far, or a conversation's that opened late
            raise ParseError(
                N_("{forum}: no message {pm_id} in the conversations read: the next inbox reads it"),
                forum=self.forum,
                pm_id=pm_id,
            )
        return self._messages[pm_id]

    def exact_pm_time(self, pm_id: int) -> datetime | None:
        """The message's send time to the second: its reply form quotes it with its unix time (the form is
        only shown, never sent); None where the board does not say."""
        held = self._messages.get(pm_id)
        if held is None or held.conversation_id is None:
            return None
        url = self.http.url(f"{REPLY_FORM}&topicID={held.conversation_id}&msgID={pm_id}")
        try:
            return pages.quoted_time(self.http.get(url).text)
        except (ParseError, ForumError):
            return None

    def fetch_pms(self, pms: Sequence[PmSummary]) -> Iterator[PrivateMessage | ForumbotError]:
        return (or_error(self.fetch_pm, pm) for pm in pms)

    def _written_by_us(self, message: PrivateMessage) -> bool:
        if self._viewer_id is not None and message.sender_id is not None:
            return message.sender_id == self._viewer_id
        return bool(self.account) and message.sender.casefold() == (self.account or "").casefold()

    def _stale(self, row: PmSummary) -> bool:
        held = self._conversations.get(_conversation_of(row))
        return held is None or row.last_message_id is None or held[0] != row.last_message_id

    def _remember(self, row: PmSummary, messages: list[PrivateMessage]) -> None:
        with self._read_lock:
            last = row.last_message_id or max((m.pm_id for m in messages), default=None)
            self._conversations[_conversation_of(row)] = (last, messages)
            self._messages.update((m.pm_id, m) for m in messages)

    def _read_conversations(self, rows: Sequence[PmSummary]) -> Iterator[list[PrivateMessage] | ForumbotError]:
        """The conversations' first pages `concurrency` at a time, then each one's further pages."""
        urls = [self._conversation_url(_conversation_of(row)) for row in rows]
        for url, fetched in zip(urls, self.http.get_each(urls), strict=True):
            try:
                yield self._rest_of(self._conversation_page(self.whole(url, "pm", fetched)))
            except PageCutShort:
                raise
            except (ParseError, ForumError) as exc:
                yield exc

    def _read_conversation(self, conversation_id: int) -> list[PrivateMessage]:
        url = self._conversation_url(conversation_id)
        return self._rest_of(self._conversation_page(self.whole(url, "pm")))

    def _rest_of(self, first: ConversationPage) -> list[PrivateMessage]:
        """Every message of the conversation: its pages followed by their own next links."""
        messages, page, visited = list(first.messages), first, {first.url}
        while page.next_url and page.next_url not in visited and len(visited) < MAX_INBOX_PAGES:
            visited.add(page.next_url)
            page = self._conversation_page(self.whole(self.http.rebase(page.next_url), "pm"))
            messages += [m for m in page.messages if m.pm_id not in {held.pm_id for held in messages}]
        return messages

    def _conversation_page(self, page: Page) -> ConversationPage:
        root = self._learn_zone_from(self._tree(page.text, last_use=True))
        parsed = pages.parse_conversation_page(root, page.url, self.tz, now=self._board_now(page))
        self._viewer_id = self._viewer_id or parsed.viewer_id
        return parsed

    def _conversation_url(self, conversation_id: int) -> str:
        return self.http.url(self.urls.pm.format(pm=conversation_id))


def _conversation_of(row: PmSummary) -> int:
    return row.conversation_id if row.conversation_id is not None else row.pm_id
