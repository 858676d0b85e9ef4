"""Reading an IPB 2.x board: its URL table, its login, its pages through `pages.py`, the viewer's offset."""

from __future__ import annotations

from datetime import UTC, tzinfo

from forumbot.errors import N_, LoginFailed
from forumbot.forum.client import login_error, offset_between
from forumbot.forum.dialect import PageKind, UrlTable
from forumbot.forum.http import ForumHttp, Page
from forumbot.forum.invision.pages import is_login_wall
from forumbot.forum.invision.reader import InvisionClient
from forumbot.forum.ipb2 import NAME, answers, forms, pages
from forumbot.forum.markup import BodyReader
from forumbot.posts import PmSummary, PrivateMessage, TopicPage


class IpbClient(InvisionClient):
    """Invision Power Board 2.x (`index.php?act=...` URLs, often windows-1251)."""

    dialect = NAME
    offset_param = "st"
    urls = UrlTable(
        login_form="index.php?act=Login&CODE=00",
        login="index.php?act=Login&CODE=01",
        topic="index.php?showtopic={topic}",
        page_param="st",
        inbox="index.php?act=Msg&CODE=01",
        pm="index.php?act=Msg&CODE=03&VID=in&MSID={pm}",
        topic_params=("showtopic", "t"),
    )

    def _unproven(self, page: Page, kind: PageKind) -> str | None:
        return pages.unproven(self._tree(page.text), kind, source=page.text, url=page.url)

    def _parse_topic(self, page: Page, on_body: BodyReader | None = None) -> TopicPage:
        tz, now = self._zone_of(page), self._board_now(page)
        root = self._tree(page.text, last_use=True)
        return pages.parse_topic_page(root, url=page.url, tz=tz, now=now, on_body=on_body)

    def _parse_inbox(self, page: Page) -> tuple[list[PmSummary], str | None]:
        tz, now = self._zone_of(page), self._board_now(page)
        return pages.parse_pm_inbox(self._tree(page.text, last_use=True), url=page.url, tz=tz, now=now)

    def _inbox_page_count(self, page: Page) -> int:
        return pages.pm_folder_pages(self._tree(page.text))

    def _parse_pm(self, page: Page) -> PrivateMessage:
        tz, now = self._zone_of(page), self._board_now(page)
        return pages.parse_pm(self._tree(page.text, last_use=True), url=page.url, tz=tz, now=now)

    def _zone_of(self, page: Page) -> tzinfo:
        """The viewer's offset: configured, else the footer's "now" against the board's clock (its answer's
        `Date`), never against ours, which may be hours off.

        IPB prints every date in the member's own offset (profile, board default, DST flag), which the
        host rarely knows; the footer ("Сейчас: 29.11.2026, 21:10") shows it against the board's clock.
        """
        if self.tz is None:
            shown = pages.page_now(self._tree(page.text), UTC)
            self.tz = offset_between(shown, self._board_now(page)) if shown is not None else None
        return self.tz or UTC

    def _authenticate(self, http: ForumHttp) -> None:
        """IPB 2.x: the login page first, which IPB serves to members too: when its member bar shows the
        account (a kept session the board still knows, or one it made again from the remembered-login
        cookies), nothing is posted. Else its login form as served (its `referer`), the name and password
        typed, "remember me" ticked, its button pressed, in the board's charset. Success is a redirect
        screen (200, a meta refresh), whose page is then asked for as a browser does: it shows the account
        as the board prints him; a wrong password is the login form again."""
        username, password = self._credentials_or_fail()
        form_page = http.get(http.url(self.urls.login_form), content=False)
        root = self._tree(form_page.text)
        if self._session_proven(root):
            return
        submission = forms.login_form(root, username, password)
        if submission is None and not is_login_wall(root):
            return
        if submission is None:
            raise LoginFailed(N_("{forum}: the login page has no login form (form[name=LOGIN])"), forum=self.forum)
        action = http.rebase(submission[0] or self.urls.login)
        answer = http.post(action, submission[1], charset=form_page.charset)
        if is_login_wall(answer.text):
            said = answers.login_refusal(answer.text) or login_error(answer) or "the forum refused the login"
            raise LoginFailed(N_("{forum}: {value}"), forum=self.forum, value=said)
        screen = answers.redirect_screen(answer.text)
        landed = http.get(http.rebase(screen.url), content=False) if screen is not None and screen.url else answer
        self._learn_viewer(self._tree(landed.text, last_use=True))
