"""Writing to an Invision Power Board 2.x (2.2 / 2.3): new topics, replies, closing a topic, private
messages, and finding what was written after a crash (by the marker written into the text).

    poster = Ipb2Poster(client)                        # a logged-in-on-demand IpbClient
    topic = poster.post_topic(14, "Мафия-7. День 2", body)
    poster.lock_topic(15821)                           # a LockResult; a refusal is a result, not an error
    poster.send_pm(["Лиса"], "Мафия-7: ваша роль", text)

It is the `Poster` (`forumbot.forum.poster`) for IPB 2 boards. What IPB 2's forms want (its public
sources: `sources/classes/post/class_post*.php`, `sources/action_public/messenger.php` and `moderate.php`):

- every form carries the member's `auth_key` (the md5 also in `ipb_md5_check`); each is fetched fresh
  and submitted as served (hidden fields, ticked boxes, the one submit button with its own value), in
  the board's charset; no word of the board's language is written here;
- a new topic is `act=Post&CODE=01` (`TopicTitle`, `Post`), a reply `CODE=03`; the board answers with a
  redirect to the topic (`showtopic=T`, a reply's `gopid=P`), which gives the new id;
- a second submission within 2 s of the last is dropped without a word, so submissions keep
  `min_gap` seconds apart; flood control answers with an error page naming the seconds to wait: the
  poster waits them, looks for the marker (an earlier attempt may have gone through) and submits again;
- closing is the moderators' form on the topic page (`form[name=modform]`, `act=Mod`, `CODE=00`); the
  topic says whether it is closed (its reply button becomes `t_closed`), so it is read before and after;
- a PM is `act=Msg&CODE=04` to one recipient (`entered_name`), with `add_sent=1` so that a copy stays in
  «Отправленные»: the board never shows the new PM's id, so the id is the sent copy's, found by its
  marker. IPB 2 cuts a PM's subject to 40 characters; the poster cuts it the same way.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence

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
from forumbot.forum.http import Page
from forumbot.forum.invision.writer import InvisionPoster
from forumbot.forum.ipb2 import answers, forms, pages
from forumbot.forum.ipb2.reader import IpbClient
from forumbot.forum.markup import browser_fields, submit_buttons
from forumbot.forum.outcome import Outcome, RefusedForGood, RefusedForNow, Stored
from forumbot.forum.poster import FLOOD_INTERVAL, MAX_CANDIDATES, MAX_FOLDER_PAGES, Fields, ForumTopicRow, fill
from forumbot.posts import PmSummary, Preferences

__all__ = ["MIN_GAP", "PM_SUBJECT_MAX", "Ipb2Poster", "writer_for"]

MIN_GAP = 2.1  # seconds between two submissions: IPB 2 drops a second one within 2 s silently
PM_SUBJECT_MAX = 40  # IPB 2 keeps the first 40 characters of a PM's subject


class Ipb2Poster(InvisionPoster[IpbClient]):
    """Posts, closes and PMs as the client's account on an IPB 2 board. `flood_interval` is the group's
    flood control (how long to wait when the board says "too soon" without saying how long)."""

    default_min_gap = MIN_GAP

    # -- posts ------------------------------------------------------------------------------------

    def post_topic(self, forum_id: int, subject: str, message: str, *, marker: str | None = None) -> int:
        """A new topic in forum `forum_id`; returns its id."""
        form_url = self.http.url(f"index.php?act=Post&CODE=00&f={forum_id}")
        seen = (lambda: self.find_marker_in_forum(forum_id, subject, marker)) if marker else None
        return self._post(form_url, {"TopicTitle": subject, "Post": message}, "showtopic", seen)

    def post_reply(self, topic: int | str, subject: str, message: str, *, marker: str | None = None) -> int:
        """A reply in `topic` (an id or a topic URL); returns the post's id. IPB 2 replies have no subject."""
        topic_id = self.client.topic_id(topic)
        forum_id = self._forum_of(topic_id)
        form_url = self.http.url(f"index.php?act=Post&CODE=02&f={forum_id}&t={topic_id}")
        seen = (lambda: self.find_marker_in_topic(topic_id, marker)) if marker else None
        return self._post(form_url, {"Post": message}, "gopid", seen)

    def _forum_of(self, topic_id: int) -> int:
        """The topic's forum, from its page's quick reply or moderators' form (IPB 2 wants both ids)."""
        page = self.http.get(self.http.url(f"index.php?showtopic={topic_id}"))
        for name in ("REPLIER", "modform"):
            form = forms.named_form(page.text, name)
            found = dict(browser_fields(form)).get("f", "") if form is not None else ""
            if found.isdigit():
                return int(found)
        m = re.search(r'ipb_input_f\s*=\s*"(\d+)"', page.text)
        if m is None:
            raise ForumError(N_("{url}: the topic page names no forum to reply in"), url=page.url)
        return int(m.group(1))

    def _post(self, form_url: str, values: dict[str, str], id_param: str, seen: Callable[[], int | None] | None) -> int:
        for _ in range(self.max_flood_waits + 1):
            page = self.http.get(form_url)
            action, fields = self._served(page, form_url, "REPLIER")
            answer = self._submit_once(action, fill(fields, values), page.charset, seen)
            if isinstance(answer, int):
                return answer
            outcome = answers.post_answer(answer.url, answer.text, id_param)
            if isinstance(outcome, Stored) and outcome.remote_id is not None:
                return outcome.remote_id
            if isinstance(outcome, RefusedForGood):
                raise ForumError(N_("{form_url}: the forum refused it: {said}"), form_url=form_url, said=outcome.said)
            found = self._unmade(outcome, seen)
            if found is not None:
                return found
        raise ForumError(
            N_("{form_url}: the forum took none of {value} attempts"), form_url=form_url, value=self.max_flood_waits + 1
        )

    def _unmade(self, outcome: Outcome, seen: Callable[[], int | None] | None) -> int | None:
        """An answer that names nothing made: flood control (wait what it asks) or a silent drop (a
        submission too soon after another one, maybe of an earlier run). Before another attempt, the
        marker tells whether it was made after all: the id found, or None to try again."""
        found = self._look(seen)
        if found is None:
            wait = outcome.wait if isinstance(outcome, RefusedForNow) else None
            self.http.clock.sleep(max(wait or 0.0, self.min_gap))
        return found

    # -- private messages ---------------------------------------------------------------------------

    def send_pm(
        self, recipients: Sequence[str], subject: str, message: str, *, marker: str | None = None
    ) -> int | None:
        """One PM to one recipient; returns the id of its copy in «Отправленные» when a marker finds it
        (IPB 2 never shows the new PM's id), else None."""
        names = [name for name in recipients if name.strip()]
        if len(names) != 1:
            raise TooManyRecipients(N_("IPB 2 PMs go to one recipient each, not {n}; PM not sent"), 1, n=len(names))
        subject = subject[:PM_SUBJECT_MAX]
        values = {"entered_name": names[0], "msg_title": subject, "Post": message, "add_sent": "1"}
        compose = self.http.url("index.php?act=Msg&CODE=04")
        seen = (lambda: self.find_marker_in_sent(marker, subject=subject, recipients=names)) if marker else None
        for _ in range(self.max_flood_waits + 1):
            page = self.http.get(compose)
            action, fields = self._served(page, compose, "REPLIER")
            answer = self._submit_once(action, fill(fields, values), page.charset, seen)
            if isinstance(answer, int):
                return answer
            outcome = answers.pm_answer(answer.text)
            if isinstance(outcome, RefusedForGood) and outcome.why == "unknown_recipient":
                raise UnknownRecipient(
                    N_("no member of the forum is called {value!r}: PM not sent ({said})"),
                    value=names[0],
                    said=outcome.said,
                )
            if isinstance(outcome, RefusedForGood):
                raise ForumError(
                    N_("{compose}: the forum did not send the PM: {said}"), compose=compose, said=outcome.said
                )
            if seen is None:
                return None  # sent, as far as the answer tells; without a marker there is no copy to find
            found = self._unmade(outcome, seen)
            if found is not None:
                return found
        raise ForumError(
            N_("{compose}: the forum took none of {value} attempts"), compose=compose, value=self.max_flood_waits + 1
        )

    # -- closing a topic --------------------------------------------------------------------------

    def _closed(self, html: str) -> bool:
        return pages.topic_closed(html)

    def _close(self, page: Page) -> str:
        """Submit the page's moderators' form set to close the topic (`CODE=00`); what the board said, if
        anything."""
        form = forms.named_form(page.text, "modform")
        if form is None:
            return "the topic page offers this account no moderators' tools"
        if not any(o.get("value") == "00" for o in form.iter("option")):
            return "the moderators' tools offer no way to close the topic"
        buttons = submit_buttons(form)
        fields = fill(browser_fields(form, press=next(iter(buttons), None)), {"CODE": "00"})
        action = self.http.rebase(form.get("action") or page.url)
        try:
            self._wait_gap()
            answer = self.http.post(action, fields, charset=page.charset, content=True)
        except (NoPermission, ParseError) as exc:
            return str(exc)
        finally:
            self._last_submit = self.http.clock.time()
        return answers.error_text(answer.text) or ""

    def set_date_format(self, dateformat: str) -> Preferences:
        """IPB 2 has no per-member date format (the board's `clock_long` applies to everyone)."""
        raise ConfigError(
            N_("{forum}: IPB 2 prints every date in the board's own format; nothing to set"), forum=self.client.forum
        )

    # -- finding what was written -----------------------------------------------------------------

    def find_marker_in_forum(self, forum_id: int, subject: str, marker: str) -> int | None:
        """The topic of this account whose first post holds `marker`, among the forum's topics; those
        titled `subject` are opened first."""
        me, wanted = self.username.casefold(), " ".join(subject.split())
        mine: list[ForumTopicRow] = []
        for page in self._pages(self.http.url(f"index.php?showforum={forum_id}")):
            mine += [row for row in pages.forum_topics(page.text) if row.author.casefold() == me]
            if any(" ".join(row.title.split()) == wanted for row in mine):
                break
        mine.sort(key=lambda row: " ".join(row.title.split()) != wanted)
        for row in mine[:MAX_CANDIDATES]:
            first = next(iter(self.client.fetch_topic(row.topic_id)), None)
            post = first.posts[0] if first is not None and first.posts and first.page == 1 else None
            if post is not None and post.author.casefold() == me and marker in post.content_html:
                return row.topic_id
        return None

    def find_marker_in_sent(
        self, marker: str, *, subject: str | None = None, recipients: Sequence[str] = ()
    ) -> int | None:
        """A PM of this account in «Отправленные» holding `marker`, addressed to one of `recipients`
        (when given); the ones with that subject are opened first."""
        names = {name.casefold() for name in recipients}
        rows = [row for row in self._sent() if not names or row.sender.casefold() in names]
        wanted = " ".join((subject or "")[:PM_SUBJECT_MAX].split())
        rows.sort(key=lambda row: not wanted or " ".join(row.subject.split()) != wanted)
        for row in rows[:MAX_CANDIDATES]:
            page = self.http.get(self.http.url(f"index.php?act=Msg&CODE=03&VID=sent&MSID={row.pm_id}"))
            if marker in pages.parse_pm(page.text, url=page.url).body_html:
                return row.pm_id
        return None

    def _sent(self) -> Iterator[PmSummary]:
        """The rows of «Отправленные» (the member column names the recipient)."""
        for page in self._pages(self.http.url("index.php?act=Msg&CODE=01&VID=sent")):
            try:
                rows, _ = pages.parse_pm_inbox(page.text, url=page.url)
            except ParseError:
                return
            yield from rows

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

    def _served(self, page: Page, url: str, name: str) -> tuple[str, Fields]:
        """The page's form `name` as a browser submits it with its first submit button; an error page
        instead is the forum's refusal."""
        form = forms.served(page.text, name)
        if form is not None:
            action, fields = form
            return self.http.rebase(action or url), fields
        refused = answers.form_missing(page.text)
        if refused.why == "no_permission":
            raise NoPermission(N_("{url}: {said}"), url=url, said=refused.said)
        raise ForumError(N_("{url}: no form to fill in: {said}"), url=url, said=refused.said)

    def _submit_once(
        self, action: str, fields: Fields, charset: str, seen: Callable[[], int | None] | None
    ) -> Page | int:
        """POST the form once, `min_gap` after the last submission; when the board may have acted without
        saying so (`MaybeSent`), what it made, found by its marker, else the doubt stands."""
        self._wait_gap()
        try:
            return self.http.post(action, fields, charset=charset, content=True, idempotent=False)
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
            self._last_submit = self.http.clock.time()


def writer_for(client: ForumClient, flood_interval: float = FLOOD_INTERVAL) -> Ipb2Poster:
    """The poster of an IPB 2 client (the registry's writer factory)."""
    if not isinstance(client, IpbClient):
        raise ConfigError(N_("{forum}: not read as an IPB 2 board, so not written as one"), forum=client.forum)
    return Ipb2Poster(client, flood_interval=flood_interval)
