"""Reading a phpBB 3.x board: its URL table, its login, its pages through `pages.py`, the account's zone."""

from __future__ import annotations

from datetime import UTC, datetime, tzinfo

from forumbot.errors import N_, ConfigError, ForumError, LoginFailed, ParseError
from forumbot.forum.client import HttpForumClient, login_error, offset_text, zone_named
from forumbot.forum.dialect import PageKind, UrlTable
from forumbot.forum.http import ForumHttp, Page
from forumbot.forum.markup import BodyReader, browser_fields, find_form, may_hold, submit_buttons
from forumbot.forum.phpbb import NAME, pages
from forumbot.forum.phpbb.forms import FORM_MIN_AGE, PREFERENCES
from forumbot.posts import PmSummary, Preferences, PrivateMessage, TopicPage


class PhpbbClient(HttpForumClient):
    """phpBB 3.x (prosilver and its descendants)."""

    dialect = NAME
    offset_param = "start"
    resumes_sessions = True  # the login page of a session the board knows is its index: nothing is posted
    urls = UrlTable(
        login_form="ucp.php?mode=login",
        login="ucp.php?mode=login",
        topic="viewtopic.php?t={topic}",
        page_param="start",
        inbox="ucp.php?i=pm&folder=inbox",
        pm="ucp.php?i=pm&mode=view&f=0&p={pm}",
        topic_params=("t",),
    )

    # Asked of every page: the page's id table tells at once whether it holds the element each check reads.
    def is_login_wall(self, html: str) -> bool:
        root = self._tree(html)
        return may_hold(root, "form", "login") and pages.is_login_wall(root)

    def is_no_permission(self, html: str) -> bool:
        root = self._tree(html)
        return may_hold(root, "div", "message") and pages.is_no_permission(root)

    def _unproven(self, page: Page, kind: PageKind) -> str | None:
        return pages.unproven(self._tree(page.text), kind, source=page.text, url=page.url)

    def _parse_topic(self, page: Page, on_body: BodyReader | None = None) -> TopicPage:
        now = self._board_now(page)
        root = self._tree(page.text, last_use=True)
        return pages.parse_topic_page(root, url=page.url, tz=self.tz or UTC, now=now, on_body=on_body)

    def _parse_inbox(self, page: Page) -> tuple[list[PmSummary], str | None]:
        tz, now = self.account_zone(page), self._board_now(page)
        root = self._tree(page.text, last_use=True)
        return pages.parse_pm_inbox(root, url=page.url, tz=tz, now=now)

    def _inbox_page_count(self, page: Page) -> int:
        return pages.pm_folder_pages(self._tree(page.text))

    def _parse_pm(self, page: Page) -> PrivateMessage:
        tz, now = self.account_zone(page), self._board_now(page)
        return pages.parse_pm(self._tree(page.text, last_use=True), url=page.url, tz=tz, now=now)

    def exact_pm_time(self, pm_id: int) -> datetime | None:
        """The PM's send time to the second: phpBB's quote form cites it as a unix time
        (`[quote=Вера msg_id=67 time=1796114954 user_id=60]`). The form is only shown, never sent."""
        try:
            page = self.http.get(self.http.url(f"ucp.php?i=pm&mode=compose&action=quote&p={pm_id}"))
            stamp = pages.parse_quote_stamp(page.text)
        except (ParseError, ForumError):
            return None
        return stamp.time if stamp is not None else None

    def preferences(self) -> Preferences:
        """The account's board preferences as the board shows them: language, zone, date format."""
        return pages.parse_preferences(self.http.get(self.http.url(PREFERENCES)).text)

    def relative_format(self, dateformat: str) -> bool:
        return pages.is_relative_format(dateformat)

    def account_zone(self, page: Page | None = None) -> tzinfo:
        """The zone the board prints this account's plain-text dates in (PM dates, edit notices), as the
        board says: the account's preferences, else the footer's offset ("Часовой пояс: UTC+03:00").
        A configured zone (`[forum] timezone`) that disagrees is an error naming both."""
        with self._zone_lock:
            if self._account_zone is None:
                self._account_zone = self._learn_zone(page)
            return self._account_zone

    def _learn_zone(self, page: Page | None) -> tzinfo:
        footer = pages.parse_board_zone(self._tree(page.text)) if page is not None else None
        named: tzinfo | None = None
        name = ""
        if self._credentials is not None:
            try:
                name = self.preferences().tz or ""
                named = zone_named(name) if name else None
            except (ParseError, ForumError, ConfigError):
                named = None
        board: tzinfo | None = named or (footer.offset if footer is not None else None)
        if board is None:
            return self.tz or UTC
        if self.tz is not None:
            now = self._now()
            if self.tz.utcoffset(now) != board.utcoffset(now):
                told = f"{name} ({offset_text(board, now)})" if name else offset_text(board, now)
                raise ConfigError(
                    N_(
                        "[forum] timezone = {tz} ({offset_text}), but the board prints the dates of {value} in "
                        "{told}: set [forum] timezone to the board's zone, or change the account's zone on the "
                        "board"
                    ),
                    tz=self.tz,
                    offset_text=offset_text(self.tz, now),
                    value=self.account or "this account",
                    told=told,
                )
            return self.tz
        return board

    def _parse_login_form(self, page: Page) -> dict[str, str]:
        return pages.parse_login_form(page.text)

    def _authenticate(self, http: ForumHttp) -> None:
        """The login form dance: fetch the form (sid, form_token, creation_time), wait, post it back."""
        username, password = self._credentials_or_fail()
        form_page = http.get(http.url(self.urls.login_form), content=False)
        fetched_at = http.clock.time()
        if not pages.is_login_wall(form_page.text):  # the forum already knows us: it sent the index
            return
        form = find_form(self._tree(form_page.text), "login")
        if form is None:
            raise LoginFailed(N_("{forum}: the login page has no login form (form#login)"), forum=self.forum)
        action = http.rebase(form.get("action") or self.urls.login)
        # As served, with the login button's own (localised) value; the account's name and password filled in.
        served = browser_fields(form, press="login") if "login" in submit_buttons(form) else browser_fields(form)
        given = {"username": username, "password": password, "autologin": "on"}
        fields = [(name, given.pop(name)) if name in given else (name, value) for name, value in served]
        fields += list(given.items())
        # Measured on our own clock since the form arrived, not against creation_time itself: the
        # server's clock and ours need not agree, and a second after arrival is past creation_time + 1.
        http.clock.sleep(max(0.0, fetched_at + FORM_MIN_AGE - http.clock.time()))
        answer = http.post(action, fields, charset=form_page.charset)
        if pages.is_login_wall(answer.text):
            raise LoginFailed(
                N_("{forum}: {value}"), forum=self.forum, value=login_error(answer) or "the forum refused the login"
            )
