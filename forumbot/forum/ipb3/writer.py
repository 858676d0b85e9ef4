"""Writing to an Invision Power Board 3.x (3.3 / 3.4): new topics, replies, closing a topic, private
messages (a new Messenger conversation per letter), and finding what was written after a crash (by the
marker written into the text).

    poster = Ipb3Poster(client)                        # a logged-in-on-demand Ipb3Client
    topic = poster.post_topic(14, "Мафия-8. День 2", body)
    poster.lock_topic(16002)                           # a LockResult; a refusal for good is a result
    poster.send_pm(["Лиса"], "Мафия-8: ваша роль", text)

It is the `Poster` (`forumbot.forum.poster`) for IPB 3 boards; how a write is carried to its outcome is
`forumbot.forum.invision.writer`'s. What IPB 3.4 wants (`fixtures/ipb-real/ipb34/`: its templates, and
what its handlers answer):

- the forms as served (`forms.py`), `multipart/form-data` as their `enctype` says, each with the member's
  form hash `auth_key`: a new topic is `form#postingform` of `do=new_post`, a reply the same of
  `do=reply_post` (`f` and `t`);
- every success is a silent 302 that names what was made: a new topic `showtopic=T`, a reply
  `showtopic=T&p=P`, with friendly URLs (on by default) `index.php?/topic/T-slug/` and `…/?p=P`; a new
  conversation `…do=findMessage&topicID=C&msgID=M`; the close, the forum;
- flood control is an error page (403) naming the seconds left, for the form and for its submission
  alike: waited, and the interval kept between posts from then on; a post within a few seconds of the
  member's last one is not made at all (the double-post guard), yet the answer redirects to the forum's
  newest topic or the topic's last post: submissions keep `min_gap` apart, and a new topic's id is
  believed once its first post shows the marker;
- closing is the moderators' link of the topic page (`a.modlink_00`, `do=00` with `auth_key`), which
  answers with a redirect to the forum, the same when the topic was closed already: the topic is read
  before and after;
- a PM is a new conversation (`form#msgForm`): the first recipient in `entered_name`, the others invited
  (`inviteUsers`, as many as the form says the group may); its subject is cut to the field's 40
  characters.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from types import ModuleType
from typing import ClassVar, Literal

from forumbot.errors import N_, ConfigError, ForumError, ParseError
from forumbot.forum.client import ForumClient
from forumbot.forum.http import Page, RefusedPage
from forumbot.forum.invision.writer import InvisionPoster, Made, Submission
from forumbot.forum.ipb3 import answers, forms, pages
from forumbot.forum.ipb3.reader import Ipb3Client
from forumbot.forum.outcome import Outcome, RefusedForGood
from forumbot.forum.poster import FLOOD_INTERVAL, MAX_CANDIDATES, same_title
from forumbot.posts import PmSummary, Preferences, PrivateMessage

__all__ = ["COMPOSE", "CONVERSATION", "FOLDER", "MIN_GAP", "PM_SUBJECT_MAX", "Ipb3Poster", "writer_for"]

MIN_GAP = 5.1  # seconds between two submissions: IPB 3 makes nothing of a post within 4 s of the member's last
PM_SUBJECT_MAX = 40  # the compose form's msg_title maxlength
FOLDER = "index.php?app=members&module=messaging&section=view&do=showFolder&folderID=myconvo"
COMPOSE = "index.php?app=members&module=messaging&section=send&do=form"
CONVERSATION = "index.php?app=members&module=messaging&section=view&do=showConversation&topicID="


class Ipb3Poster(InvisionPoster[Ipb3Client]):
    """Posts, closes and PMs as the client's account on an IPB 3 board (see the module's doc)."""

    default_min_gap = MIN_GAP
    flood_names_left = True  # IPB 3's flood message names the seconds left
    pages: ClassVar[ModuleType] = pages

    # -- where the forms are ------------------------------------------------------------------------

    def _new_topic_url(self, forum_id: int) -> str:
        return self.http.url(f"index.php?app=forums&module=post&section=post&do=new_post&f={forum_id}")

    def _reply_url(self, topic_id: int) -> str:
        page = self._topic_page(topic_id)
        forum_id = pages.forum_of(page.text)
        if forum_id is None:
            raise ForumError(f"{page.url}: the topic page names no forum to reply in")
        return self.http.url(f"index.php?app=forums&module=post&section=post&do=reply_post&f={forum_id}&t={topic_id}")

    def _compose_url(self) -> str:
        return self.http.url(COMPOSE)

    # -- the forms and their answers ----------------------------------------------------------------

    def _posting(self, page: Page, values: dict[str, str]) -> Submission | None:
        return forms.posting_form(page.text, values)

    def _post_outcome(self, answer: Page, made: Made) -> Outcome:
        return answers.post_answer(answer.locations, answer.text, made)

    def _form_missing(self, page: Page) -> Outcome:
        return answers.form_missing(page.text)

    def _multipart(self, page: Page, form: Literal["post", "pm"]) -> bool:
        return forms.multipart(page.text, "postingform" if form == "post" else "msgForm")

    def _invites(self, page: Page) -> int:
        return forms.invites_allowed(page.text)

    def _composing(self, page: Page, names: Sequence[str], subject: str, message: str) -> Submission | None:
        return forms.compose_form(page.text, names, subject, message)

    def _pm_outcome(self, answer: Page, invited: int) -> Outcome:
        return answers.pm_answer(answer.locations, answer.text, invited)

    def _close(self, page: Page) -> Outcome:
        """Follow the page's moderators' link that closes the topic (`do=00`), as a browser does."""
        link = pages.mod_link(page.text, "00")
        if link is None:
            return RefusedForGood("the topic page offers this account no moderators' link to close it", "no_permission")
        self._wait_gap(post=False)
        try:
            answer = self.http.get(self.http.rebase(link), content=False)
        except RefusedPage as exc:
            answer = exc.page
        finally:
            self._last_submit = self.http.clock.time()
        return answers.close_answer(answer.locations, answer.text)

    def set_date_format(self, dateformat: str) -> Preferences:
        """IPB 3 prints dates in the board's own formats (only the member's offset is his)."""
        raise ConfigError(
            N_("{forum}: IPB 3 prints every date in the board's own format; nothing to set"), forum=self.client.forum
        )

    # -- finding what was written -------------------------------------------------------------------

    def find_marker_in_sent(
        self, marker: str, *, subject: str | None = None, recipients: Sequence[str] = ()
    ) -> int | None:
        """The first message of a conversation this account started holding `marker`, sent to one of
        `recipients` (when given); the conversations with that subject are opened first."""
        names = {name.casefold() for name in recipients}
        rows = [
            row
            for row, to in self._folder()
            if self.client.is_me(row.starter or "") and (not names or names & {n.casefold() for n in to})
        ]
        wanted = (subject or "")[:PM_SUBJECT_MAX]
        rows.sort(key=lambda row: not wanted or not same_title(row.subject, wanted))
        for row in rows[:MAX_CANDIDATES]:
            first = self._first_message(row)
            if first is not None and marker in first.body_html and self.client.is_me(first.sender, first.sender_id):
                return first.pm_id
        return None

    def _first_message(self, row: PmSummary) -> PrivateMessage | None:
        conversation = row.conversation_id if row.conversation_id is not None else row.pm_id
        page = self.client.whole(self.http.url(f"{CONVERSATION}{conversation}"), "pm")
        messages = pages.parse_conversation(page.text, url=page.url)
        return messages[0] if messages else None

    def _folder(self) -> Iterator[tuple[PmSummary, list[str]]]:
        """The rows of the Messenger's folder, one per conversation, each with whom it was sent to."""
        for page in self._pages(self.http.url(FOLDER), "pm_inbox"):
            try:
                rows, _ = pages.parse_pm_inbox(page.text, url=page.url)
            except ParseError:
                return
            to = pages.folder_recipients(page.text)
            yield from ((row, to.get(row.conversation_id or row.pm_id, [])) for row in rows)


def writer_for(client: ForumClient, flood_interval: float = FLOOD_INTERVAL) -> Ipb3Poster:
    """The poster of an IPB 3 client (the registry's writer factory)."""
    if not isinstance(client, Ipb3Client):
        raise ConfigError(N_("{forum}: not read as an IPB 3 board, so not written as one"), forum=client.forum)
    return Ipb3Poster(client, flood_interval=flood_interval)
