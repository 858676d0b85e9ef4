"""What the readers of IPB 2 and IPB 3 share: how their pages say "log in" or "not allowed", and their
login form."""

from __future__ import annotations

from forumbot.forum.client import HttpForumClient
from forumbot.forum.http import Page
from forumbot.forum.invision import pages


class InvisionClient(HttpForumClient):
    """What the clients of IPB 2 and IPB 3 share: how their pages say "log in" or "not allowed", and
    their login form."""

    def is_login_wall(self, html: str) -> bool:
        return pages.is_login_wall(self._tree(html))

    def is_no_permission(self, html: str) -> bool:
        return pages.is_no_permission(self._tree(html))

    def _parse_login_form(self, page: Page) -> dict[str, str]:
        return pages.parse_login_form(page.text)
