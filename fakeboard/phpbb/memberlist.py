"""memberlist.php?mode=viewprofile&u=N: a member's profile, as members see it (guests get the login box)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote

from fakeboard.phpbb.frame import PhpbbFrame
from fakeboard.phpbb.language import count_text
from fakeboard.phpbb.texts import LOGIN_VIEWPROFILE, NO_USER
from fakeboard.server import Request, Response, not_found, number
from fakeboard.state import Post

_DAY = 86_400


class MemberPages(PhpbbFrame):
    """The member's profile."""

    def _memberlist(self, request: Request) -> Response:
        """The profile: name, group, the PM link, when it joined and was last seen, how many posts (its share
        of the board's, per day since it joined) and where it posts most."""
        if request.query.get("mode") != "viewprofile":
            return not_found()
        if request.user is None:
            return self._login_wall(request, LOGIN_VIEWPROFILE)
        viewer = self._v(request)
        member = self._member(number(request.query.get("u")) or 0)
        if member is None:
            return self._message(request, NO_USER, status=404)
        with self.board.lock:
            everyone = [p for p in self.board._posts.values() if p.visible]
            mine = [p for p in everyone if p.author == member.name and not p.guest]
            topics = {p.topic_id: self.board._topics[p.topic_id] for p in mine}
            forums = {t.forum_id: self.board._forums[t.forum_id] for t in topics.values()}
            by_topic = _most(mine, lambda p: p.topic_id)
            by_forum = _most(mine, lambda p: topics[p.topic_id].forum_id)
            jump = self._jump_forums()
        with self._state:
            seen = self._last_seen.get(member.user_id)
        days = max(1.0, (viewer.now - member.joined).total_seconds() / _DAY)
        values: dict[str, Any] = {
            "member": member,
            "online": member.user_id in self._online_ids(),
            "name_query": quote(member.name, safe=""),
            "joined_text": viewer.date(member.joined),
            "last_visit_text": viewer.date(datetime.fromtimestamp(seen, UTC)) if seen is not None else "-",
            "moderator": self._moderates_any(request.user),
            "posts": len(mine),
            "share": f"{len(mine) * 100 / max(1, len(everyone)):.2f}",
            "per_day": f"{len(mine) / days:.2f}",
            "active_forum": None,
            "active_topic": None,
        }
        if by_forum is not None and by_topic is not None:
            forum_id, in_forum = by_forum
            topic_id, in_topic = by_topic
            values["active_forum"] = {
                "forum_id": forum_id,
                "name": forums[forum_id].name,
                "posts_text": count_text(viewer.lang, in_forum, "posts"),
                "share": f"{in_forum * 100 / len(mine):.2f}",
            }
            values["active_topic"] = {
                "topic_id": topic_id,
                "title": topics[topic_id].title,
                "posts_text": count_text(viewer.lang, in_topic, "posts"),
                "share": f"{in_topic * 100 / len(mine):.2f}",
            }
        crumbs = [
            {"forum_id": None, "href": "./memberlist.php", "name": viewer.t("Members")},
            {"forum_id": None, "href": f"./memberlist.php?mode=viewprofile&u={member.user_id}", "name": member.name},
        ]
        title = viewer.t("Viewing profile - {}", member.name)
        return self._render(
            request, "memberlist_view.html", title=title, section="memberlist", crumbs=crumbs, forums=jump, **values
        )


def _most(posts: list[Post], key: Callable[[Post], int]) -> tuple[int, int] | None:
    """The key most of the posts share and how many do (the lowest key of a tie)."""
    counts: dict[int, int] = {}
    for post in posts:
        counts[key(post)] = counts.get(key(post), 0) + 1
    if not counts:
        return None
    best = max(sorted(counts), key=lambda k: counts[k])
    return best, counts[best]
