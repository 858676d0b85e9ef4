"""posting.php: a new topic, a reply, a quote, an edit; the form as phpBB serves it, and its answers: the
302 to the stored post, the queue's message, the form again with the errors, or with the posts made meanwhile."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from markupsafe import Markup

from fakeboard.phpbb.bbcode import QUOTE_DEPTH, quote_depth, quote_text, source_as_html
from fakeboard.phpbb.confirm import ConfirmBox
from fakeboard.phpbb.texts import (
    DELETE_REFUSED,
    EMPTY_SUBJECT,
    FLOOD_ERROR,
    FORM_INVALID,
    LOGIN_EXPLAIN,
    LOGIN_POST,
    NO_FORUM,
    NO_POST,
    NO_TOPIC,
    POST_DELETED,
    POST_STORED_MOD,
    TOO_FEW_CHARS,
    TOPIC_LOCKED,
    USER_CANNOT_EDIT,
)
from fakeboard.server import Request, Response, number, redirect
from fakeboard.state import Forum, Post, Topic, User, moderates


@dataclass(frozen=True)
class Writing:
    """What a posting.php request writes: its mode and the forum, the topic and the post it is about."""

    mode: str  # post, reply, quote, edit
    forum: Forum
    topic: Topic | None = None
    post: Post | None = None


class PostingPages(ConfirmBox):
    """The posting form and its answers, and a post's deletion."""

    def _posting(self, request: Request) -> Response:
        """posting.php: new topic, reply, quote, edit. phpBB looks for the `post` button's name (isset), not
        its value. A locked topic refuses members (a message page, also for a form fetched earlier) but not
        its moderators; a stale `topic_cur_post_id` brings the form back with the new posts to review."""
        user = request.user
        mode = request.query.get("mode", "")
        if user is None:
            return self._login_wall(request, LOGIN_EXPLAIN.get(mode, LOGIN_POST))
        if mode == "delete":
            return self._delete(request, user)
        post: Post | None = None
        topic: Topic | None = None
        with self.board.lock:
            if mode == "post":
                forum = self.board._forums.get(number(request.query.get("f")) or 0)
                if forum is None:
                    return self._message(request, NO_FORUM, status=404)
            elif mode in ("reply", "quote", "edit"):
                if mode == "reply" and request.query.get("t"):
                    topic = self.board._topics.get(number(request.query.get("t")) or 0)
                    if topic is None or not topic.posts:
                        return self._message(request, NO_TOPIC, status=404)
                else:
                    post = self.board._posts.get(number(request.query.get("p")) or 0)
                    if post is None:
                        return self._message(request, NO_POST, status=404)
                    topic = self.board._topics[post.topic_id]
                forum = self.board._forums[topic.forum_id]
                sees = self._sees(user, forum)
                if not any(sees(p) for p in topic.posts):
                    return self._message(request, NO_TOPIC, status=404)
                if post is not None and not sees(post):
                    return self._message(request, NO_POST, status=404)
            else:
                return self._message(request, "No post mode specified.")
            moderator = moderates(user, forum)
            if topic is not None and topic.locked and not moderator:
                return self._message(request, TOPIC_LOCKED)
            if mode == "edit" and post is not None and not moderator:
                if post.guest or post.author.lower() != user.name.lower():
                    return self._message(request, USER_CANNOT_EDIT, status=403)
        form = request.form
        t = self._v(request).t
        errors: list[str] = []
        review: list[Post] | None = None
        if request.method == "POST" and "post" in form:
            subject = form.get("subject", "").strip()
            message = form.get("message", "")
            if not self._check_form(request, "posting"):
                errors.append(t(FORM_INVALID))
            if mode != "edit" and self._flooding(user):
                errors.append(t(FLOOD_ERROR))
            if mode == "post" and not subject:
                errors.append(t(EMPTY_SUBJECT))
            if not message.strip():
                errors.append(t(TOO_FEW_CHARS))
            if quote_depth(message) > QUOTE_DEPTH:
                errors.append(t("You may embed only {} quotes within each other.", QUOTE_DEPTH))
            if not errors and topic is not None and mode in ("reply", "quote"):
                seen = number(form.get("topic_cur_post_id"))
                with self.board.lock:
                    sees = self._sees(user, forum)
                    later = [p for p in topic.posts if seen and p.post_id > seen and sees(p)]
                if seen and later:
                    review = later
            if not errors and review is None:
                return self._submit(request, user, Writing(mode, forum, topic, post), subject, message)
        return self._posting_form(request, user, Writing(mode, forum, topic, post), errors, review)

    def _submit(self, request: Request, user: User, writing: Writing, subject: str, message: str) -> Response:
        mode, forum, topic, post = writing.mode, writing.forum, writing.topic, writing.post
        now = self._now()
        moderator = moderates(user, forum)
        queued = user.needs_approval and not moderator
        if mode == "post":
            topic_id = self.board.add_topic(forum.forum_id, subject, user.name, message, now)
            self._posted(user)
            if moderator and "lock_topic" in request.form:
                self.board.lock_topic(topic_id)
            if queued:
                first = self.board.posts_of(topic_id)[0]
                self.board.approve_post(first.post_id, False)
                return self._queued(request, forum, f"./viewforum.php?f={forum.forum_id}")
            return redirect(self._absolute(request, f"./viewtopic.php?t={topic_id}"))
        assert topic is not None
        if moderator and mode in ("reply", "quote", "edit"):  # the "Lock topic" box of the form decides
            self.board.lock_topic(topic.topic_id, "lock_topic" in request.form)
        if mode in ("reply", "quote"):
            post_id = self.board.add_post(
                topic.topic_id,
                user.name,
                message,
                now,
                subject=subject or f"Re: {topic.title}",
                approved=not queued,
            )
            self._posted(user)
            if queued:
                return self._queued(request, forum, f"./viewtopic.php?t={topic.topic_id}")
            return redirect(self._absolute(request, f"./viewtopic.php?p={post_id}#p{post_id}"))
        assert post is not None
        reason = request.form.get("edit_reason", "").strip() if moderator else ""
        self.board.edit_post_as(
            post.post_id, user.name, message, reason=reason or None, time=now, subject=subject or post.subject
        )
        return redirect(self._absolute(request, f"./viewtopic.php?p={post.post_id}#p{post.post_id}"))

    def _delete(self, request: Request, user: User) -> Response:
        """posting.php?mode=delete&p=N, asked in a confirm box (its moderators may tick "delete permanently"
        and give a reason): a moderator of the forum deletes any post, a member its own topic's last post
        while the topic is open. A yes soft-deletes it (or deletes it for good) and answers with a message
        pointing to the post after it; anything else goes back to the post."""
        with self.board.lock:
            post = self.board._posts.get(number(request.query.get("p")) or 0)
            topic = self.board._topics.get(post.topic_id) if post is not None else None
            if post is None or topic is None or not self._sees(user, self.board._forums[topic.forum_id])(post):
                return self._message(request, NO_POST, status=404)
            forum = self.board._forums[topic.forum_id]
            moderator = moderates(user, forum)
            shown = [p for p in topic.posts if p.visible]
            own_last = post.author == user.name and not topic.locked and bool(shown) and shown[-1] is post
            after = next((p for p in topic.posts if p.visible and p.time > post.time), None)
            before = next((p for p in reversed(topic.posts) if p.visible and p.time < post.time), None)
        if not (moderator or own_last):
            return self._message(request, DELETE_REFUSED, status=403)
        back = f"./viewtopic.php?p={post.post_id}#p{post.post_id}"
        if request.method == "POST" and "confirm" in request.form:
            if not self._confirmed(request):
                return redirect(self._absolute(request, back))
            reason = request.form.get("delete_reason", "").strip()
            if moderator and request.form.get("delete_permanent"):
                self.board.delete_post(post.post_id)
            else:
                self.board.soft_delete_post(post.post_id, user.name, reason, self._now())
            near = after or before
            to_topic = (
                f"./viewtopic.php?p={near.post_id}#p{near.post_id}" if near else f"./viewforum.php?f={forum.forum_id}"
            )
            return self._message(
                request,
                POST_DELETED,
                refresh=(3, to_topic),
                links=[
                    ("Return to the topic", to_topic),
                    ("Return to the forum", f"./viewforum.php?f={forum.forum_id}"),
                ],
            )
        if request.method == "POST" and "cancel" in request.form:
            return redirect(self._absolute(request, back))
        fields = [("p", str(post.post_id)), ("f", str(forum.forum_id)), ("mode", "delete")]
        action = f"./posting.php?mode=delete&p={post.post_id}"
        return self._ask(
            request,
            "Delete post",
            "Are you sure you want to delete this post?",
            action,
            fields,
            section="posting",
            delete_box=True,
            delete_permanent_box=moderator,
            confirm_class="button1",
        )

    def _queued(self, request: Request, forum: Forum, refresh_to: str) -> Response:
        """The answer to a post that waits for a moderator: 200, a message and a refresh (phpBB's 10 s)."""
        return self._message(
            request,
            POST_STORED_MOD,
            refresh=(10, refresh_to),
            links=[("Return to the forum", f"./viewforum.php?f={forum.forum_id}")],
        )

    def _posting_form(
        self, request: Request, user: User, writing: Writing, errors: list[str], review: list[Post] | None
    ) -> Response:
        mode, forum, topic, post = writing.mode, writing.forum, writing.topic, writing.post
        form = request.form
        submitted = request.method == "POST"
        t = self._v(request).t
        with self.board.lock:
            moderator = moderates(user, forum)
            sees = self._sees(user, forum)
            if mode == "post":
                action = f"./posting.php?mode=post&f={forum.forum_id}"
                heading, subject, message = "Post a new topic", "", ""
            elif mode == "edit":
                assert post is not None
                action = f"./posting.php?mode=edit&p={post.post_id}"
                heading, subject, message = "Edit post", post.subject, post.body
            else:
                assert topic is not None
                action = f"./posting.php?mode={mode}&" + (
                    f"p={post.post_id}" if mode == "quote" and post else f"t={topic.topic_id}"
                )
                heading, subject, message = "Post a reply", f"Re: {topic.title}", ""
                if mode == "quote" and post is not None and not submitted:
                    member = self.board._users.get(post.author.lower())
                    message = quote_text(post, member) + "\n\n"
            if submitted:
                subject, message = form.get("subject", subject), form.get("message", message)
            fields: list[tuple[str, str]] = []
            topic_review = None
            if mode in ("reply", "quote") and topic is not None:
                public = [p for p in topic.posts if p.visible] or topic.posts
                fields.append(("topic_cur_post_id", str(public[-1].post_id)))
                newest = [p for p in reversed(topic.posts) if sees(p)][: self.posts_per_page]
                topic_review = [self._review_row(request, k, p) for k, p in enumerate(newest)]
            if mode == "edit" and post is not None:
                fields += [
                    ("edit_post_message_checksum", hashlib.md5(post.body.encode()).hexdigest()),
                    ("edit_post_subject_checksum", hashlib.md5(post.subject.encode()).hexdigest()),
                ]
            post_review = [self._review_row(request, k, p) for k, p in enumerate(review)] if review else None
            if topic is not None:
                title_href, title_text = f"./viewtopic.php?t={topic.topic_id}", topic.title
            else:
                title_href, title_text = f"./viewforum.php?f={forum.forum_id}", forum.name
            edit_reason = form.get("edit_reason", post.edit_reason or "" if post else "")
            crumbs = self._crumbs(forum)
        return self._render(
            request,
            "posting_body.html",
            title=t(heading),
            section="posting",
            crumbs=crumbs,
            posting_page=True,
            plupload_url=Markup(action),
            title_href=title_href,
            title_text=title_text,
            form_action=action,
            pm_mode=False,
            heading=t(heading),
            error=Markup("<br />").join(errors) if errors else None,
            icon_label="Topic icon" if mode == "post" else "Post icon",
            subject=subject,
            subject_maxlength=120 if mode == "post" else 124,
            message=message,
            fields=fields,
            can_save_draft=mode != "edit",
            edit_reason_field=mode == "edit" and moderator,
            edit_reason=edit_reason,
            lock_field=moderator,
            lock_checked=bool(topic is not None and topic.locked),
            tokens=self._tokens(request, "posting"),
            review=topic_review,
            post_review=post_review,
            topic_title=topic.title if topic else "",
        )

    def _review_row(self, request: Request, k: int, post: Post) -> dict[str, Any]:
        name = post.author
        return {
            "row_class": "bg2" if k % 2 == 0 else "bg1",
            "post_id": post.post_id,
            "subject": post.subject,
            "author": self._userref(name, post.guest),
            "author_js": Markup("'{}'").format(name.replace("\\", "\\\\").replace("'", "\\'")),
            "unix_time": int(post.time.timestamp()),
            "time_text": self._date(request, post.time),
            "html": Markup(self._post_html(request, post)),
            "source_html": Markup(source_as_html(post.body)) if not post.html else "",
        }

    # -- mcp.php (quick-mod lock / unlock, with phpBB's confirmation step) ----------------------------
