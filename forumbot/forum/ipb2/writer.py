"""Writing to an Invision Power Board 2.x (2.2 / 2.3): new topics, replies, closing a topic, private
messages, and finding what was written after a crash (by the marker written into the text).

    poster = Ipb2Poster(client)                        # a logged-in-on-demand IpbClient
    topic = poster.post_topic(14, "Мафия-8. День 3", body)
    poster.lock_topic(16290)                           # a LockResult; a refusal for good is a result
    poster.send_pm(["Лиса"], "Мафия-8: ваша роль", text)

It is the `Poster` (`forumbot.forum.poster`) for IPB 2 boards; how a write is carried to its outcome is
`forumbot.forum.invision.writer`'s. What IPB 2.2 wants (checked on what its own code answers,
`fixtures/ipb-real/ipb22/`):

- the forms as served (`forms.py`), in the board's charset, urlencoded: the posting form with its
  `dosubmit`, the PM form with no button field (its send button has no name), the login form;
- flood control is checked already when the posting form is asked for (and again on its submission):
  the error page names the group's whole interval, which is waited and then kept between posts;
- a new topic's answer is a 302 to `showtopic=T`, a reply's to `…gopid=P&#entryP`; a second submission
  within 2 s of a first is answered by the double-post guard with a 302 that stores nothing (the forum's
  newest topic, the topic's last post): the new topic's first post must show the marker, and
  submissions keep `min_gap` apart;
- a PM is the form of `act=Msg&CODE=04`, one recipient in `entered_name` and, where the account's group
  may send copies, the others in `carbon_copy` (as many as the form says); it keeps a copy in
  «Отправленные» (`add_sent`), which is how its id is found (the board's redirect screen names none). The
  board keeps a PM subject's first 40 characters (the field's maxlength);
- closing is the topic page's `form[name=modform2]` with `CODE=00`; the board answers with a redirect
  screen, the same when the topic was closed already, so the topic is read before and after.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from types import ModuleType
from typing import ClassVar, Literal

from forumbot.errors import N_, ConfigError, ForumError, ParseError
from forumbot.forum.client import ForumClient
from forumbot.forum.http import Page, RefusedPage
from forumbot.forum.invision.writer import InvisionPoster, Made, Submission
from forumbot.forum.ipb2 import answers, forms, pages
from forumbot.forum.ipb2.reader import IpbClient
from forumbot.forum.markup import browser_fields
from forumbot.forum.outcome import Outcome, RefusedForGood
from forumbot.forum.poster import FLOOD_INTERVAL, MAX_CANDIDATES, same_title
from forumbot.posts import PmSummary, Preferences

__all__ = ["MIN_GAP", "PM_SUBJECT_MAX", "Ipb2Poster", "writer_for"]

MIN_GAP = 2.1  # seconds between two submissions: the double-post guard drops a second one within 2 s
PM_SUBJECT_MAX = 40  # the PM form's msg_title maxlength


class Ipb2Poster(InvisionPoster[IpbClient]):
    """Posts, closes and PMs as the client's account on an IPB 2 board (see the module's doc)."""

    default_min_gap = MIN_GAP
    flood_names_left = False  # IPB 2's flood message names the group's whole interval
    pages: ClassVar[ModuleType] = pages

    # -- where the forms are ------------------------------------------------------------------------

    def _new_topic_url(self, forum_id: int) -> str:
        return self.http.url(f"index.php?act=Post&CODE=00&f={forum_id}")

    def _reply_url(self, topic_id: int) -> str:
        return self.http.url(f"index.php?act=Post&CODE=02&f={self._forum_of(topic_id)}&t={topic_id}")

    def _compose_url(self) -> str:
        return self.http.url("index.php?act=Msg&CODE=04")

    def _forum_of(self, topic_id: int) -> int:
        """The topic's forum, from its page's forms or script (IPB 2's reply form wants both ids)."""
        page = self._topic_page(topic_id)
        for name in ("REPLIER", "modform2", "modform"):
            form = forms.named_form(page.text, name)
            found = dict(browser_fields(form)).get("f", "") if form is not None else ""
            if found.isdigit():
                return int(found)
        m = re.search(r'ipb_input_f\s*=\s*"(\d+)"', page.text)
        if m is None or m.group(1) == "0":
            raise ForumError(f"{page.url}: the topic page names no forum to reply in")
        return int(m.group(1))

    # -- the forms and their answers ----------------------------------------------------------------

    def _posting(self, page: Page, values: dict[str, str]) -> Submission | None:
        return forms.posting_form(page.text, values)

    def _post_outcome(self, answer: Page, made: Made) -> Outcome:
        return answers.post_answer(answer.locations, answer.text, made)

    def _form_missing(self, page: Page) -> Outcome:
        return answers.form_missing(page.text)

    def _invites(self, page: Page) -> int:
        return forms.copies_allowed(page.text)

    def _composing(self, page: Page, names: Sequence[str], subject: str, message: str) -> Submission | None:
        return forms.compose_form(page.text, names, subject, message)

    def _pm_outcome(self, answer: Page, invited: int) -> Outcome:
        return answers.pm_answer(answer.text)

    def _close(self, page: Page) -> Outcome:
        """The moderators' topic tools (`modform2`) set to close the topic, submitted as served."""
        submission = forms.close_form(page.text)
        if submission is None:
            return RefusedForGood("the topic page offers this account no moderators' tool to close it", "no_permission")
        self._wait_gap(post=False)
        action = self.http.rebase(submission[0] or page.url)
        try:
            answer = self.http.post(action, submission[1], charset=page.charset, content=False, idempotent=False)
        except RefusedPage as exc:
            answer = exc.page
        finally:
            self._last_submit = self.http.clock.time()
        return answers.close_answer(answer.text)

    def set_date_format(self, dateformat: str) -> Preferences:
        """IPB 2 has no per-member date format (the board's `clock_long` applies to everyone)."""
        raise ConfigError(
            N_("{forum}: IPB 2 prints every date in the board's own format; nothing to set"), forum=self.client.forum
        )

    # -- finding what was written -------------------------------------------------------------------

    def find_marker_in_sent(
        self, marker: str, *, subject: str | None = None, recipients: Sequence[str] = ()
    ) -> int | None:
        """A PM of this account in «Отправленные» holding `marker`, addressed to one of `recipients` (when
        given); the ones with that subject are opened first."""
        names = {name.casefold() for name in recipients}
        rows = [row for row in self._sent() if not names or row.sender.casefold() in names]
        wanted = (subject or "")[:PM_SUBJECT_MAX]
        rows.sort(key=lambda row: not wanted or not same_title(row.subject, wanted))
        for row in rows[:MAX_CANDIDATES]:
            page = self.client.whole(self.http.url(f"index.php?act=Msg&CODE=03&VID=sent&MSID={row.pm_id}"), "pm")
            if marker in pages.parse_pm(page.text, url=page.url).body_html:
                return row.pm_id
        return None

    def _sent(self) -> Iterator[PmSummary]:
        """The rows of «Отправленные» (the member column names the recipient)."""
        for page in self._pages(self.http.url("index.php?act=Msg&CODE=01&VID=sent"), "pm_inbox"):
            try:
                rows, _ = pages.parse_pm_inbox(page.text, url=page.url)
            except ParseError:
                return
            yield from rows

    def _multipart(self, page: Page, form: Literal["post", "pm"]) -> bool:
        return False  # IPB 2's posting and PM forms are urlencoded


def writer_for(client: ForumClient, flood_interval: float = FLOOD_INTERVAL) -> Ipb2Poster:
    """The poster of an IPB 2 client (the registry's writer factory)."""
    if not isinstance(client, IpbClient):
        raise ConfigError(N_("{forum}: not read as an IPB 2 board, so not written as one"), forum=client.forum)
    return Ipb2Poster(client, flood_interval=flood_interval)
