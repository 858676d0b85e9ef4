"""What the readers of IPB 2 and IPB 3 share: how their pages say "log in" or "not allowed", their login
form, and who the account is as the board prints him (his display name, which may differ from the name he
logs in with)."""

from __future__ import annotations

from forumbot.forum.client import HttpForumClient
from forumbot.forum.http import Page
from forumbot.forum.invision import pages
from forumbot.forum.invision.pages import Viewer
from forumbot.forum.markup import Element


class InvisionClient(HttpForumClient):
    """What the clients of IPB 2 and IPB 3 share: how their pages say "log in" or "not allowed", their
    login form, and the account as the board prints him (learned from the member bar of the pages read)."""

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

    def _learn_viewer(self, root: Element) -> None:
        found = pages.viewer(root)
        if found is not None and self._credentials is not None:
            self._viewer = found
