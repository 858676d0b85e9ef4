"""What the readers of IPB 2 and IPB 3 share: how their pages say "log in" or "not allowed", their login
form, and who the account is as the board prints him (his display name, which may differ from the name he
logs in with)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from forumbot.forum.client import HttpForumClient
from forumbot.forum.http import Page
from forumbot.forum.invision import pages
from forumbot.forum.invision.pages import Viewer
from forumbot.forum.markup import Element

REMEMBERED_MEMBER = "member_id"  # the cookie IPB's remembered login names the member by, after the board's prefix


def remembered_members(cookies: Iterable[Sequence[str]]) -> Iterator[int]:
    """The member ids the `member_id` cookies among `cookies` (name, value, ...) name; IPB sets 0 or -1 there
    when it logs a member out."""
    for name, value, *_ in cookies:
        if name.endswith(REMEMBERED_MEMBER) and value.isdigit() and int(value) > 0:
            yield int(value)


class InvisionClient(HttpForumClient):
    """What the clients of IPB 2 and IPB 3 share: how their pages say "log in" or "not allowed", their
    login form, and the account as the board prints him (learned from the member bar of the pages read)."""

    # A kept session is worth resuming: the login page a browser asks for first shows, in the board's own
    # member bar, whom the board takes us for; when that is the account, nothing is posted.
    resumes_sessions = True
    _viewer: Viewer | None = None

    def is_login_wall(self, html: str) -> bool:
        root = self._tree(html)
        self._learn_viewer(root)
        return pages.is_login_wall(root)

    def is_no_permission(self, html: str) -> bool:
        return pages.is_no_permission(self._tree(html))

    def _parse_login_form(self, page: Page) -> dict[str, str]:
        return pages.parse_login_form(page.text)

    @property
    def account(self) -> str | None:
        """The account's name as the board prints it on his posts and PMs (his display name, once a page
        has shown it), else the name he logs in with."""
        if self._viewer is not None:
            return self._viewer.name
        return self._credentials[0] if self._credentials else None

    @property
    def account_id(self) -> int | None:
        """The account's member id, once a page has shown it."""
        return self._viewer.member_id if self._viewer is not None else None

    def viewer(self) -> Viewer:
        """The account as the board prints him; the board's index is read for it when no page has shown
        him yet."""
        if self._viewer is None:
            self.http.get(self.http.url("index.php"))
        if self._viewer is None:
            name = self._credentials[0] if self._credentials else ""
            return Viewer(name, None)
        return self._viewer

    def is_me(self, name: str, member_id: int | None = None) -> bool:
        """Whether a post's or a PM's author (as printed, with his member id when the page gives it) is this
        account: by id where both are known, else by the name the board prints for him."""
        me = self.viewer()
        if me.member_id is not None and member_id is not None:
            return me.member_id == member_id
        return name.casefold() == me.name.casefold()

    def _session_proven(self, root: Element) -> bool:
        """Whether the board served `root` to this account: the member its member bar names (2.x
        `div#userlinks`, 3.x `a#user_link`, by his member id) is the one the session's remembered-login cookie
        (`member_id`, which the board set at the account's login) names, or the account as a page of this run
        has shown him. A guest's page, or another member's, proves nothing (the login form is then posted)."""
        shown = pages.viewer(root)
        if shown is None or shown.member_id is None or self._credentials is None:
            return False
        ours = set(remembered_members(self.http.session_cookies()))
        if self._viewer is not None and self._viewer.member_id is not None:
            ours.add(self._viewer.member_id)
        if shown.member_id not in ours:
            return False
        self._viewer = shown
        return True

    def _learn_viewer(self, root: Element) -> None:
        found = pages.viewer(root)
        if found is not None and self._credentials is not None:
            self._viewer = found
