"""index.php, viewforum.php and viewtopic.php: the board's forums, a forum's topics and a topic's posts, each
counted and paged as the viewer sees them (its moderators see the queued and the soft-deleted posts)."""

from __future__ import annotations

import dataclasses
from typing import Any
from urllib.parse import quote

from markupsafe import Markup, escape

from fakeboard.phpbb.frame import PhpbbFrame, page_link
from fakeboard.phpbb.language import count_text, iso
from fakeboard.phpbb.pagination import pagination, validate_start
from fakeboard.phpbb.texts import LOGIN_VIEWFORUM, NO_FORUM, NO_POST, NO_TOPIC
from fakeboard.server import Request, Response, number
from fakeboard.state import Forum, Post, Topic, moderates


class ReadingPages(PhpbbFrame):
    """The pages that read the board."""

    def _can_read(self, request: Request, forum: Forum) -> bool:
        return forum.public or request.user is not None

    def _index(self, request: Request) -> Response:
        t = self._v(request).t
        with self.board.lock:
            rows = []
            for forum in self.board._forums.values():
                if not self._can_read(request, forum):
                    continue
                sees = self._sees(request.user, forum)
                in_forum = (topic for topic in self.board._topics.values() if topic.forum_id == forum.forum_id)
                shown = [posts for posts in ([p for p in topic.posts if sees(p)] for topic in in_forum) if posts]
                last_post = max((posts[-1] for posts in shown), key=lambda p: (p.time, p.post_id), default=None)
                rows.append(
                    {
                        "forum": forum,
                        "topics": len(shown),
                        "posts": sum(len(posts) for posts in shown),
                        "last": self._post_summary(request, last_post) if last_post else None,
                    }
                )
            online = self._online()
        return self._render(
            request,
            "index_body.html",
            title=t("Index page"),
            forums=rows,
            online_users=online,
            now_text=self._date(request, self._now(), absolute=True),
        )

    def _topic_print(self, request: Request, topic: Topic, shown: list[Post], start: int) -> Response:
        """viewtopic.php?view=print: the page's posts with their absolute dates (the caller holds the lock)."""
        viewer = self._v(request)
        posts = [
            {
                "subject": post.subject,
                "author": post.author,
                "time_text": viewer.date(post.time, absolute=True),
                "html": Markup(self._post_html(request, post)),
            }
            for post in shown[start : start + self.posts_per_page]
        ]
        values = {
            "topic_print": True,
            "topic_link": f"{request.base_url}viewtopic.php?t={topic.topic_id}",
            "pages": pagination(f"./viewtopic.php?t={topic.topic_id}", len(shown), self.posts_per_page, start),
            "posts": posts,
        }
        return self._print_page(request, "viewtopic_print.html", topic.title, topic.title, values)

    def _post_summary(self, request: Request, post: Post) -> dict[str, Any]:
        return {
            "post_id": post.post_id,
            "subject": post.subject,
            "author": self._userref(post.author, post.guest),
            "time_iso": iso(post.time),
            "time_text": self._date(request, post.time),
        }

    def _viewforum(self, request: Request) -> Response:
        user = request.user
        viewer = self._v(request)
        with self.board.lock:
            forum = self.board._forums.get(number(request.query.get("f")) or 0)
            if forum is None:
                return self._message(request, NO_FORUM, status=404)
            if not self._can_read(request, forum):
                return self._login_wall(request, LOGIN_VIEWFORUM)
            sees = self._sees(user, forum)
            moderator = moderates(user, forum)
            listed = []
            for topic in self.board._topics.values():
                shown = [p for p in topic.posts if sees(p)]
                if topic.forum_id == forum.forum_id and shown:
                    listed.append((topic, shown))
            listed.sort(key=lambda item: (item[1][-1].time, item[1][-1].post_id), reverse=True)
            per = self.topics_per_page
            start = validate_start(number(request.query.get("start")) or 0, per, len(listed))
            base = f"./viewforum.php?f={forum.forum_id}"
            rows = []
            for k, (topic, shown) in enumerate(listed[start : start + per]):
                pages = pagination(
                    f"./viewtopic.php?t={topic.topic_id}", len(shown), self.posts_per_page, 1, reverse=True
                )
                links = [
                    {"number": it.number, "url": it.url, "ellipsis": it.kind == "ellipsis"}
                    for it in pages.items
                    if it.kind in ("page", "ellipsis")
                ]
                mine = user is not None and any(p.author == user.name and not p.guest for p in shown)
                rows.append(
                    {
                        "row_class": "bg1" if k % 2 == 0 else "bg2",
                        "mine": mine,
                        "topic": topic,
                        "first": self._post_summary(request, shown[0]),
                        "last": self._post_summary(request, shown[-1]),
                        "replies": len(shown) - 1,
                        "page_links": links,
                        "unapproved": moderator and any(not p.approved for p in topic.posts),
                    }
                )
            online = self._online()
            forums = self._jump_forums()
            crumbs = self._crumbs(forum)
        permissions = [
            ("post new topics", user is not None),
            ("reply to topics", user is not None),
            ("edit your posts", user is not None),
            ("delete your posts", user is not None),
            ("post attachments", user is not None),
        ]
        return self._render(
            request,
            "viewforum_body.html",
            title=forum.name,
            kind="forum",
            section="viewforum",
            canonical=f"{request.base_url}viewforum.php?f={forum.forum_id}" + (f"&start={start}" if start else ""),
            feed_forum=forum,
            crumbs=crumbs,
            forum=forum,
            rows=rows,
            pages=pagination(base, len(listed), per, start),
            total_text=count_text(viewer.lang, len(listed), "topics"),
            forums=forums,
            online_users=online,
            permissions=permissions,
            now_unix=int(self.clock()),
        )

    def _deleted_view(self, request: Request, post: Post) -> dict[str, Any]:
        """What a moderator reads about a soft-deleted post: the `div.ignore` line and the notice."""
        t = self._v(request).t
        when = self._date(request, post.deleted_at or post.time, absolute=True)
        by = self._username_html(post.deleted_by or "")
        author = self._username_html(post.author, post.guest)
        strong = Markup("<strong>{}</strong>")
        if post.delete_reason:
            line = Markup(escape(t("{} deleted the post by {} on {} for the following reason: {}"))).format(
                strong.format(by), strong.format(author), when, post.delete_reason
            )
        else:
            line = Markup(escape(t("{} deleted the post by {} on {}."))).format(
                strong.format(by), strong.format(author), when
            )
        notice = Markup(escape(t("Deleted by {} on {}"))).format(by, when)
        return {"hidden_notice": line, "notice": notice, "reason": post.delete_reason}

    def _edit_notice(self, request: Request, post: Post) -> dict[str, Any] | None:
        if not (post.edit_count > 0 or post.edit_reason):
            return None
        viewer = self._v(request)
        when = viewer.date(post.edited_at or post.time, absolute=True)
        text = Markup(escape(viewer.t("Last edited by {} on {}, {}"))).format(
            self._username_html(post.edited_by or post.author), when, count_text(viewer.lang, post.edit_count, "edited")
        )
        return {"text": text, "reason": post.edit_reason}

    def _viewtopic(self, request: Request) -> Response:
        user = request.user
        viewer = self._v(request)
        t = viewer.t
        with self.board.lock:
            post_id = number(request.query.get("p"))
            topic_id = number(request.query.get("t"))
            target = None
            if post_id is not None:
                target = self.board._posts.get(post_id)
                if target is None:
                    return self._message(request, NO_POST, status=404)
                topic_id = target.topic_id
            topic = self.board._topics.get(topic_id or 0)
            if topic is None or not topic.posts:
                return self._message(request, NO_TOPIC, status=404)
            forum = self.board._forums[topic.forum_id]
            if not self._can_read(request, forum):
                return self._login_wall(request, LOGIN_VIEWFORUM)
            sees = self._sees(user, forum)
            shown = [p for p in topic.posts if sees(p)]
            if not shown:
                return self._message(request, NO_TOPIC, status=404)
            if target is not None and not sees(target):
                return self._message(request, NO_POST, status=404)
            per = self.posts_per_page
            total = len(shown)
            if target is not None:
                index = next(k for k, p in enumerate(shown) if p.post_id == target.post_id)
                start = index // per * per
            else:
                start = validate_start(number(request.query.get("start")) or 0, per, total)
            topic.views += 1
            if request.query.get("view") == "print":
                return self._topic_print(request, topic, shown, start)
            base = f"./viewtopic.php?t={topic.topic_id}"
            topic_url = base + (f"&start={start}" if start else "")
            last_public = next((p for p in reversed(topic.posts) if p.visible), shown[-1])
            last_any = shown[-1]
            online_ids = self._online_ids()
            moderator = moderates(user, forum)
            posts = []
            for k, post in enumerate(shown[start : start + per]):
                author = self._userref(post.author, post.guest)
                member = None if post.guest else self.board._users.get(post.author.lower())
                own = user is not None and member is not None and member.user_id == user.user_id
                redirect_back = quote(f"./viewtopic.php?t={topic.topic_id}&p={post.post_id}#p{post.post_id}", safe="")
                posts.append(
                    {
                        "post_id": post.post_id,
                        "row_class": "bg2" if k % 2 == 0 else "bg1",
                        "online": member is not None and member.user_id in online_ids,
                        "author": author,
                        "author_posts": self.board._post_counts.get(post.author, 0),
                        "author_joined": viewer.date(member.joined) if member else "",
                        "subject": post.subject,
                        "can_edit": moderator or (own and not topic.locked),
                        "can_delete": moderator or (own and not topic.locked and post is last_any),
                        "can_quote": post.visible,
                        "moderator_info": moderator,
                        "deleted": self._deleted_view(request, post) if post.deleted else None,
                        "unapproved": not post.approved and not post.deleted,
                        "queue_redirect": redirect_back,
                        "time_iso": iso(post.time),
                        "time_text": viewer.date(post.time),
                        "html": Markup(self._post_html(request, post)),
                        "notice": self._edit_notice(request, post),
                    }
                )
            quick_reply = None
            if self.board.quick_reply and user is not None and (not topic.locked or moderator):
                quick_reply = {
                    "tokens": self._tokens(request, "posting"),
                    "fields": [
                        ("topic_cur_post_id", str(last_public.post_id)),
                        ("topic_id", str(topic.topic_id)),
                        ("forum_id", str(forum.forum_id)),
                        ("attach_sig", "1"),
                    ],
                }
            quickmod = None
            if moderator and request.session is not None:
                back = quote(f"./viewtopic.php?t={topic.topic_id}", safe="")
                prefix = f"./mcp.php?f={forum.forum_id}&t={topic.topic_id}&start={start}&quickmod=1&redirect={back}"
                sid = request.session.sid
                actions = [
                    ("unlock" if topic.locked else "lock", "Unlock topic" if topic.locked else "Lock topic", True),
                    ("delete_topic", "Delete topic", True),
                    ("move", "Move topic", False),
                    ("split", "Split topic", False),
                    ("merge", "Merge posts", False),
                    ("merge_topic", "Merge topic", False),
                    ("fork", "Copy topic", False),
                    ("topic_logs", "View logs", False),
                ]
                quickmod = [
                    {"url": f"{prefix}&action={action}&sid={sid}", "title": t(label), "ajax": ajax}
                    for action, label, ajax in actions
                ]
            online = self._online()
            forums = self._jump_forums()
            crumbs = self._crumbs(forum)
            forum_moderators = [self._userref(name) for name in forum.moderators]
            topic_copy = dataclasses.replace(topic, posts=[])
        pages = pagination(base, total, per, start)
        page_title = topic.title + (f" - {t('Page')} {pages.current}" if pages.current > 1 else "")
        return self._render(
            request,
            "viewtopic_body.html",
            title=page_title,
            kind="topic",
            section="viewtopic",
            canonical=f"{request.base_url}viewtopic.php?t={topic.topic_id}" + (f"&start={start}" if start else ""),
            feed_forum=forum,
            feed_topic=topic_copy,
            crumbs=crumbs,
            login_redirect=quote(page_link(request).removeprefix("./"), safe=""),
            topic=topic_copy,
            forum=forum,
            forum_moderators=forum_moderators,
            topic_url=topic_url,
            start=start,
            pages=pages,
            total_posts_text=count_text(viewer.lang, total, "posts"),
            posts=posts,
            quick_reply=quick_reply,
            quickmod=quickmod,
            forums=forums,
            online_users=online,
        )

    # -- ucp.php: login, logout, preferences, private messages -------------------------------------------
