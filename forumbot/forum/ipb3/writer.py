"""Writing to an Invision Power Board 3.x (3.3 / 3.4): new topics, replies, closing a topic, private
messages (a new Messenger conversation per letter), and finding what was written after a crash (by the
marker written into the text).

    poster = Ipb3Poster(client)                        # a logged-in-on-demand Ipb3Client
    topic = poster.post_topic(14, "Мафия-8. День 2", body)
    poster.lock_topic(16002)                           # a LockResult; a refusal is a result, not an error
    poster.send_pm(["Лиса"], "Мафия-8: ваша роль", text)

It is the `Poster` (`forumbot.forum.poster`) for IPB 3 boards. What IPB 3's forms want (its public
sources: `admin/applications/forums/modules_public/post/post.php`, `.../moderate/moderate.php`,
`admin/applications/members/modules_public/messaging/send.php`, and the skin templates):

- every form carries the member's form hash (`auth_key`); each form is fetched fresh and submitted as
  served (hidden fields, ticked boxes, the one submit button with its own value); no word of the
  board's language is written here;
- a new topic is `form#postingform` of `do=new_post` (`TopicTitle`, the editor's `Post`), a reply the
  same form of `do=reply_post` (`f` and `t`); the board answers with a redirect to the topic
  (`showtopic=T`, a reply's `gopid=P`), which gives the new id;
- flood control is an error page naming the seconds left, served for the form and for its submission
  alike (with HTTP 403): the poster waits them, looks for the marker and submits again; a post within
  4 s of the member's last one is not made at all (checkDoublePost), yet the answer redirects to the
  forum's newest topic or to the topic's last post: submissions keep `min_gap` seconds apart, and a
  new topic's id is believed only once its first post shows the marker;
- closing is the moderators' link of the topic page (`a.modlink_00`, `do=00` with `auth_key`); the
  topic says whether it is closed (its reply button becomes the `li.important` with the lock), so it
  is read before and after; an error page instead is the board's refusal, reported;
- a PM is the Messenger's compose form (`form#msgForm`: `entered_name`, `msg_title`, `Post`), a new
  conversation to one recipient; the board answers with a redirect screen that names nothing, so the
  PM's id is its conversation's first message, found in the folder by its marker. The subject is cut
  to the form's `maxlength` (40).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Literal

from forumbot.errors import (
    N_,
    ConfigError,
    ForumbotError,
    ForumError,
    MaybeSent,
    NoPermission,
    ParseError,
    TooManyRecipients,
    UnknownRecipient,
)
from forumbot.forum.client import ForumClient
from forumbot.forum.http import Page, RefusedPage
from forumbot.forum.invision.writer import InvisionPoster
from forumbot.forum.ipb3 import answers, forms, pages
from forumbot.forum.ipb3.reader import Ipb3Client
from forumbot.forum.outcome import RefusedForGood, RefusedForNow, Stored, Unknown
from forumbot.forum.poster import (
    FLOOD_INTERVAL,
    MAX_CANDIDATES,
    MAX_FOLDER_PAGES,
    Fields,
    ForumTopicRow,
    fill,
    same_title,
)
from forumbot.posts import PmSummary, Preferences, PrivateMessage

__all__ = ["COMPOSE", "CONVERSATION", "FOLDER", "MIN_GAP", "PM_SUBJECT_MAX", "Ipb3Poster", "writer_for"]

MIN_GAP = 5.1  # seconds between two posts: IPB 3 makes nothing of a post within 4 s of the member's last one
PM_SUBJECT_MAX = 40  # the compose form's msg_title maxlength
FOLDER = "index.php?app=members&module=messaging&section=view&do=showFolder&folderID=myconvo"
COMPOSE = "index.php?app=members&module=messaging&section=send&do=form"
CONVERSATION = "index.php?app=members&module=messaging&section=view&do=showConversation&topicID="


class Ipb3Poster(InvisionPoster[Ipb3Client]):
    """Posts, closes and PMs as the client's account on an IPB 3 board. IPB 3's flood control always
    names the seconds left, which are what is waited; `flood_interval` (the group's setting) is kept
    for `poster_for`, which gives every poster the same options. `min_gap`: seconds between two posts."""

    default_min_gap = MIN_GAP

    # -- posts ------------------------------------------------------------------------------------

    def post_topic(self, forum_id: int, subject: str, message: str, *, marker: str | None = None) -> int:
        """A new topic in forum `forum_id`; returns its id."""
        form_url = self.http.url(f"index.php?app=forums&module=post&section=post&do=new_post&f={forum_id}")
        seen = (lambda: self.find_marker_in_forum(forum_id, subject, marker)) if marker else None

        def believed(topic_id: int) -> bool:
            return marker is None or self._first_post_holds(topic_id, marker)

        return self._post(form_url, {"TopicTitle": subject, "Post": message}, "topic", seen, believed)

    def post_reply(self, topic: int | str, subject: str, message: str, *, marker: str | None = None) -> int:
        """A reply in `topic` (an id or a topic URL); returns the post's id. IPB 3 replies have no subject."""
        topic_id = self.client.topic_id(topic)
        page = self.http.get(self.http.url(f"index.php?showtopic={topic_id}"))
        forum_id = pages.forum_of(page.text)
        if forum_id is None:
            raise ForumError(N_("{url}: the topic page names no forum to reply in"), url=page.url)
        form_url = self.http.url(
            f"index.php?app=forums&module=post&section=post&do=reply_post&f={forum_id}&t={topic_id}"
        )
        seen = (lambda: self.find_marker_in_topic(topic_id, marker)) if marker else None
        return self._post(form_url, {"Post": message}, "reply", seen)

    def _first_post_holds(self, topic_id: int, marker: str) -> bool:
        first = next(iter(self.client.fetch_topic(topic_id)), None)
        post = first.posts[0] if first is not None and first.posts and first.page == 1 else None
        return post is not None and post.author.casefold() == self.username.casefold() and marker in post.content_html

    def _post(
        self,
        form_url: str,
        values: dict[str, str],
        made: Literal["topic", "reply"],
        seen: Callable[[], int | None] | None,
        believed: Callable[[int], bool] = lambda _: True,
    ) -> int:
        for _ in range(self.max_flood_waits + 1):
            self._wait_gap()
            served = self._form(form_url, "postingform", seen)
            if isinstance(served, int):
                return served
            if served is not None:
                action, fields, charset = served
                answer = self._submit_once(action, fill(fields, values), charset, seen, post=True)
                if isinstance(answer, int):
                    return answer
                outcome = answers.post_answer(answer.url, answer.text, made) if isinstance(answer, Page) else None
                if isinstance(outcome, Stored) and outcome.remote_id is not None and believed(outcome.remote_id):
                    return outcome.remote_id
                if isinstance(outcome, RefusedForGood):
                    raise ForumError(
                        N_("{form_url}: the forum refused it: {said}"), form_url=form_url, said=outcome.said
                    )
            found = self._look(seen)
            if found is not None:
                return found
            self.http.clock.sleep(MIN_GAP)  # an answer that named nothing: maybe the double-post guard's
        raise ForumError(
            N_("{form_url}: the forum took none of {value} attempts"), form_url=form_url, value=self.max_flood_waits + 1
        )

    # -- private messages ---------------------------------------------------------------------------

    def send_pm(
        self, recipients: Sequence[str], subject: str, message: str, *, marker: str | None = None
    ) -> int | None:
        """One PM to one recipient, a conversation of its own; returns the id of its first message when a
        marker finds it in the folder (IPB 3 never shows the new conversation's id), else None."""
        names = [name for name in recipients if name.strip()]
        if len(names) != 1:
            raise TooManyRecipients(
                N_("IPB 3 conversations go to one recipient each, not {n}; not sent"), 1, n=len(names)
            )
        subject = subject[:PM_SUBJECT_MAX]
        values = {"entered_name": names[0], "msg_title": subject, "Post": message}
        compose = self.http.url(COMPOSE)
        seen = (lambda: self.find_marker_in_sent(marker, subject=subject, recipients=names)) if marker else None
        for _ in range(self.max_flood_waits + 1):
            served = self._form(compose, "msgForm", seen)
            if isinstance(served, int):
                return served
            if served is not None:
                action, fields, charset = served
                answer = self._submit_once(action, fill(fields, values), charset, seen, post=False)
                if isinstance(answer, int):
                    return answer
                outcome = answers.pm_answer(answer.text) if isinstance(answer, Page) else None
                if isinstance(outcome, Unknown):
                    return self._look(seen)  # sent; without a marker there is nothing to find it by
                if isinstance(outcome, RefusedForNow):
                    self.http.clock.sleep(outcome.wait or 0.0)
                elif isinstance(outcome, RefusedForGood) and outcome.why == "unknown_recipient":
                    raise UnknownRecipient(
                        N_("no member of the forum is called {value!r}: PM not sent ({said})"),
                        value=names[0],
                        said=outcome.said,
                    )
                elif isinstance(outcome, RefusedForGood) and isinstance(answer, Page):
                    raise ForumError(
                        N_("{url}: the forum did not send the PM: {said}"), url=answer.url, said=outcome.said
                    )
            found = self._look(seen)
            if found is not None:
                return found
        raise ForumError(
            N_("{compose}: the forum took none of {value} attempts"), compose=compose, value=self.max_flood_waits + 1
        )

    # -- closing a topic --------------------------------------------------------------------------

    def _closed(self, html: str) -> bool:
        return pages.topic_closed(html)

    def _close(self, page: Page) -> str:
        """Follow the page's moderators' link that closes the topic (`do=00`); what the board said."""
        link = pages.mod_link(page.text, "00")
        return self._follow(link) if link else "the topic page offers this account no way to close it"

    def _follow(self, link: str) -> str:
        """Follow a moderators' link as a browser does; what the board said when it refused."""
        try:
            answer = self.http.get(self.http.rebase(link))
        except RefusedPage as exc:
            return answers.error_text(exc.page.text) or str(exc)
        except (NoPermission, ParseError) as exc:
            return str(exc)
        return answers.error_text(answer.text) or ""

    def set_date_format(self, dateformat: str) -> Preferences:
        """IPB 3 prints dates in the board's own formats (only the member's offset is his)."""
        raise ConfigError(
            N_("{forum}: IPB 3 prints every date in the board's own format; nothing to set"), forum=self.client.forum
        )

    # -- finding what was written -----------------------------------------------------------------

    def find_marker_in_forum(self, forum_id: int, subject: str, marker: str) -> int | None:
        """The topic of this account whose first post holds `marker`, among the forum's topics; those
        titled `subject` are opened first."""
        me = self.username.casefold()
        mine: list[ForumTopicRow] = []
        for page in self._pages(self.http.url(f"index.php?showforum={forum_id}")):
            mine += [row for row in pages.forum_topics(page.text) if row.author.casefold() == me]
            if any(same_title(row.title, subject) for row in mine):
                break
        mine.sort(key=lambda row: not same_title(row.title, subject))
        return next(
            (row.topic_id for row in mine[:MAX_CANDIDATES] if self._first_post_holds(row.topic_id, marker)), None
        )

    def find_marker_in_sent(
        self, marker: str, *, subject: str | None = None, recipients: Sequence[str] = ()
    ) -> int | None:
        """The first message of a conversation this account started holding `marker`, sent to one of
        `recipients` (when given); the conversations with that subject are opened first."""
        me = self.username.casefold()
        names = {name.casefold() for name in recipients}
        rows = [
            row
            for row, to in self._folder()
            if (row.starter or "").casefold() == me and (not names or names & {n.casefold() for n in to})
        ]
        wanted = (subject or "")[:PM_SUBJECT_MAX]
        rows.sort(key=lambda row: not wanted or not same_title(row.subject, wanted))
        for row in rows[:MAX_CANDIDATES]:
            first = self._first_message(row)
            if first is not None and first.sender.casefold() == me and marker in first.body_html:
                return first.pm_id
        return None

    def _first_message(self, row: PmSummary) -> PrivateMessage | None:
        conversation = row.conversation_id if row.conversation_id is not None else row.pm_id
        page = self.http.get(self.http.url(f"{CONVERSATION}{conversation}"))
        messages = pages.parse_conversation(page.text, url=page.url)
        return messages[0] if messages else None

    def _folder(self) -> Iterator[tuple[PmSummary, list[str]]]:
        """The rows of the Messenger's folder, one per conversation, each with whom it was sent to."""
        for page in self._pages(self.http.url(FOLDER)):
            try:
                rows, _ = pages.parse_pm_inbox(page.text, url=page.url)
            except ParseError:
                return
            to = pages.folder_recipients(page.text)
            yield from ((row, to.get(row.conversation_id or row.pm_id, [])) for row in rows)

    def _pages(self, url: str) -> Iterator[Page]:
        visited: set[str] = set()
        following: str | None = url
        while following is not None and following not in visited and len(visited) < MAX_FOLDER_PAGES:
            visited.add(following)
            page = self.http.get(following)
            yield page
            link = pages.next_page(page.text)
            following = self.http.rebase(link) if link else None

    # -- helpers ----------------------------------------------------------------------------------

    def _form(
        self, url: str, form_id: str, seen: Callable[[], int | None] | None
    ) -> tuple[str, Fields, str] | int | None:
        """The form `form_id` of the page at `url` as a browser submits it with its first submit button.
        Flood control instead: its seconds waited out, then what an earlier attempt made (an id) or None
        to try again; any other error page is the board's refusal."""
        try:
            page = self.http.get(url)
        except RefusedPage as exc:
            refused = answers.refused_page(exc.page.text)
            if isinstance(refused, RefusedForGood):
                raise NoPermission(N_("{url}: {value}"), url=url, value=refused.said or exc) from exc
            self.http.clock.sleep(refused.wait or 0.0)
            return self._look(seen)
        form = forms.served(page.text, form_id)
        if form is None:
            missing = answers.form_missing(page.text)
            if isinstance(missing, RefusedForGood):
                raise ForumError(N_("{url}: no form to fill in: {said}"), url=url, said=missing.said)
            self.http.clock.sleep(missing.wait or 0.0)
            return self._look(seen)
        action, fields = form
        return self.http.rebase(action or url), fields, page.charset

    def _submit_once(
        self, action: str, fields: Fields, charset: str, seen: Callable[[], int | None] | None, *, post: bool
    ) -> Page | int | None:
        """POST the form once (`post`: a topic or a reply, which keeps `min_gap` from the next); when the
        board may have acted without saying so (`MaybeSent`), what it made, found by its marker, else the
        doubt stands. Flood control on the submission: its seconds waited out, None (to try again)."""
        try:
            return self.http.post(action, fields, charset=charset, content=True, idempotent=False)
        except RefusedPage as exc:
            refused = answers.refused_page(exc.page.text)
            if isinstance(refused, RefusedForGood):
                raise NoPermission(N_("{action}: {value}"), action=action, value=refused.said or exc) from exc
            self.http.clock.sleep(refused.wait or 0.0)
            return None
        except MaybeSent as exc:
            try:
                found = seen() if seen is not None else None
            except ForumbotError as lookup:
                raise MaybeSent(
                    N_("{error}; looking for its marker failed ({lookup}): nothing was sent again"),
                    error=exc,
                    lookup=lookup,
                ) from exc
            if found is not None:
                return found
            raise MaybeSent(N_("{error}: nothing was sent again"), error=exc) from exc
        finally:
            if post:
                self._last_submit = self.http.clock.time()


def writer_for(client: ForumClient, flood_interval: float = FLOOD_INTERVAL) -> Ipb3Poster:
    """The poster of an IPB 3 client (the registry's writer factory)."""
    if not isinstance(client, Ipb3Client):
        raise ConfigError(N_("{forum}: not read as an IPB 3 board, so not written as one"), forum=client.forum)
    return Ipb3Poster(client, flood_interval=flood_interval)
