"""What the posters of IPB 2 and IPB 3 share: the account as the board prints him, the gaps kept between
two submissions, every write carried to an outcome the board's answer proves, finding what the account
wrote by its marker, and closing a topic (read before and after). Each version says where its forms are,
how they are filled (`forms.py`) and how its answers read (`answers.py`).

A write goes as a browser would: the form fetched fresh, filled, sent once with its send button, and the
board's answer read into one outcome (`forumbot.forum.outcome`):
- stored: the id the answer names (a new topic's is believed once its first post shows the marker);
- refused for now: flood control (its seconds waited out, and the interval it shows kept from then on),
  a stale form (fetched again, once): the marker is looked for (the answer may be a replay's, the first
  request taken), then the form is asked for again;
- logged out (a dead session is answered as a guest's): log in, once, look for the marker (a guest's page
  may stand in for the answer to a request the board took), then ask again;
- refused for good: the error of the tree (no permission or a locked topic `NoPermission`, no such member
  `UnknownRecipient`, too many recipients `TooManyRecipients`), nothing sent again;
- unknown (the double-post guard's redirect, a page that proves nothing): the marker decides; not found,
  it is `MaybeSent` and nothing is sent again (the next run looks first).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import ClassVar, Generic, Literal, TypeVar

from forumbot.errors import ForumbotError, ForumError, MaybeSent, NotLoggedIn, ParseError, TooManyRecipients
from forumbot.forum.dialect import PageKind
from forumbot.forum.http import Page, RefusedPage
from forumbot.forum.invision.reader import InvisionClient
from forumbot.forum.outcome import (
    LoggedOut,
    Outcome,
    RefusedForGood,
    RefusedForNow,
    Stored,
    Unknown,
    refusal_error,
)
from forumbot.forum.poster import (
    FLOOD_INTERVAL,
    MAX_CANDIDATES,
    MAX_FLOOD_WAITS,
    MAX_FOLDER_PAGES,
    Fields,
    ForumTopicRow,
    LockResult,
    same_title,
)

__all__ = ["Found", "InvisionPoster", "Submission"]

Client = TypeVar("Client", bound=InvisionClient)
Submission = tuple[str | None, Fields]  # a form's action (None: the page's own address) and its fields
Seen = Callable[[], int | None] | None  # looks for the letter's marker on the board: what it made, or None
Made = Literal["topic", "reply"]


@dataclass(frozen=True)
class Found:
    """What an attempt made after all, found by its marker when its answer was lost."""

    remote_id: int


class InvisionPoster(Generic[Client]):
    """What the posters of IPB 2 and IPB 3 share (see the module's doc). `flood_interval` is what the
    config says of the board's flood control, kept between two posts once the board has shown it keeps
    one (then as long as the board says); `min_gap` the seconds between any two submissions."""

    default_min_gap: ClassVar[float]  # seconds between two submissions, the version's own
    flood_names_left: ClassVar[bool]  # the board's flood message names the seconds left (else its interval)
    pages: ClassVar[ModuleType]  # the version's pages.py: forum_topics, next_page, topic_closed

    def __init__(
        self,
        client: Client,
        *,
        flood_interval: float = FLOOD_INTERVAL,
        max_flood_waits: int = MAX_FLOOD_WAITS,
        min_gap: float | None = None,
    ) -> None:
        self.client = client
        self.http = client.http
        client._credentials_or_fail()
        self.flood_interval = flood_interval
        self.max_flood_waits = max_flood_waits
        self.min_gap = self.default_min_gap if min_gap is None else min_gap
        self._flooded = False  # the board has shown flood control: keep `flood_interval` between posts
        self._last_submit: float | None = None
        self._last_post: float | None = None

    @property
    def username(self) -> str:
        """The account's name as the board prints it on what he writes (his display name)."""
        return self.client.account or ""

    # -- the version's own --------------------------------------------------------------------------

    def _new_topic_url(self, forum_id: int) -> str:
        raise NotImplementedError

    def _reply_url(self, topic_id: int) -> str:
        raise NotImplementedError

    def _compose_url(self) -> str:
        raise NotImplementedError

    def _posting(self, page: Page, values: dict[str, str]) -> Submission | None:
        raise NotImplementedError

    def _post_outcome(self, answer: Page, made: Made) -> Outcome:
        raise NotImplementedError

    def _form_missing(self, page: Page) -> Outcome:
        raise NotImplementedError

    def _multipart(self, page: Page, form: Literal["post", "pm"]) -> bool:
        return False

    def _invites(self, page: Page) -> int:
        """How many recipients besides the first the PM form takes (0: one recipient a PM)."""
        raise NotImplementedError

    def _composing(self, page: Page, names: Sequence[str], subject: str, message: str) -> Submission | None:
        raise NotImplementedError

    def _pm_outcome(self, answer: Page, invited: int) -> Outcome:
        raise NotImplementedError

    def _pm_found(self, stored: Stored, seen: Seen) -> int | None:
        """The PM's id once the board stored it: the one its answer names, else its copy found by the marker."""
        if stored.remote_id is not None or seen is None:
            return stored.remote_id
        return seen()

    def find_marker_in_sent(
        self, marker: str, *, subject: str | None = None, recipients: Sequence[str] = ()
    ) -> int | None:
        """The account's PM holding `marker` (the version's sent folder or conversations), or None."""
        raise NotImplementedError

    def _close(self, page: Page) -> Outcome:
        """Close the topic with the tools its page offers: what the board's answer proves."""
        raise NotImplementedError

    def _closed(self, html: str) -> bool:
        """Whether a topic page shows the topic closed (the version's own markup)."""
        return bool(self.pages.topic_closed(html))

    # -- posts --------------------------------------------------------------------------------------

    def post_topic(self, forum_id: int, subject: str, message: str, *, marker: str | None = None) -> int:
        """A new topic in forum `forum_id`; returns its id."""
        url = self._new_topic_url(forum_id)
        seen = (lambda: self.find_marker_in_forum(forum_id, subject, marker)) if marker else None

        def attempt() -> Outcome | Found:
            return self._post_once(url, {"TopicTitle": subject, "Post": message}, "topic", seen, marker)

        return self._made(self._settle(url, "the topic", attempt, seen), url)

    def post_reply(self, topic: int | str, subject: str, message: str, *, marker: str | None = None) -> int:
        """A reply in `topic` (an id or a topic URL); returns the post's id. IPB replies have no subject."""
        topic_id = self.client.topic_id(topic)
        url = self._reply_url(topic_id)
        seen = (lambda: self.find_marker_in_topic(topic_id, marker)) if marker else None

        def attempt() -> Outcome | Found:
            return self._post_once(url, {"Post": message}, "reply", seen, marker)

        return self._made(self._settle(url, "the reply", attempt, seen), url)

    @staticmethod
    def _made(remote_id: int | None, url: str) -> int:
        if remote_id is None:
            raise ParseError(f"{url}: posted, but the answer names no id")
        return remote_id

    def _post_once(
        self, url: str, values: dict[str, str], made: Made, seen: Seen, marker: str | None
    ) -> Outcome | Found:
        """One attempt: the form fetched, filled, sent; the answer read (a new topic's id checked)."""
        self._wait_gap(post=True)
        page = self._form_page(url)
        submission = self._posting(page, values)
        if submission is None:
            return self._missing(url, page)
        answer = self._submit(page, submission, seen, post=True, multipart=self._multipart(page, "post"))
        if isinstance(answer, Found):
            return answer
        outcome = self._post_outcome(answer, made)
        if made == "topic" and isinstance(outcome, Stored) and outcome.remote_id is not None and marker:
            if not self._first_post_holds(outcome.remote_id, marker, answer):
                return Unknown(f"the board sent us to topic {outcome.remote_id}, whose first post is not this one")
        return outcome

    # -- private messages ---------------------------------------------------------------------------

    def send_pm(
        self, recipients: Sequence[str], subject: str, message: str, *, marker: str | None = None
    ) -> int | None:
        """One PM to `recipients` (their names as the board prints them), all in one where the board lets
        the account send copies (they see each other's names: send only to those who may know of each
        other); more than the board takes in one is `TooManyRecipients` with the number it takes. Returns
        its id where the answer names it or its copy is found by the marker, else None."""
        names = [name.strip() for name in recipients if name.strip()]
        if not names:
            raise ValueError("a PM needs at least one recipient")
        url = self._compose_url()
        seen = (lambda: self.find_marker_in_sent(marker, subject=subject, recipients=names)) if marker else None

        def attempt() -> Outcome | Found:
            return self._pm_once(url, names, subject, message, seen)

        return self._settle(url, f"the PM to {', '.join(names)}", attempt, seen)

    def _pm_once(self, url: str, names: list[str], subject: str, message: str, seen: Seen) -> Outcome | Found:
        self._wait_gap(post=False)
        page = self._form_page(url)
        submission = self._composing(page, names[:1], subject, message)
        if submission is None:
            return self._missing(url, page)
        takes = self._invites(page) + 1
        if len(names) > takes:
            raise TooManyRecipients(
                f"{url}: the board takes {takes} recipient(s) in one PM, not {len(names)}; PM not sent", takes
            )
        submission = self._composing(page, names, subject, message) if len(names) > 1 else submission
        assert submission is not None
        answer = self._submit(page, submission, seen, post=False, multipart=self._multipart(page, "pm"))
        if isinstance(answer, Found):
            return answer
        outcome = self._pm_outcome(answer, len(names) - 1)
        if isinstance(outcome, Stored):
            found = self._pm_found(outcome, seen)
            return Found(found) if found is not None else outcome
        return outcome

    # -- carrying a write to its outcome ------------------------------------------------------------

    def _settle(self, url: str, what: str, attempt: Callable[[], Outcome | Found], seen: Seen) -> int | None:
        """Attempts until the board's answer proves an outcome: stored (the id), refused for now (waited,
        tried again, within bounds), logged out (log in, once), refused for good (its error), unknown (the
        marker decides, else `MaybeSent`: nothing is sent again)."""
        floods = invalid = logouts = 0
        while True:
            outcome = attempt()
            if isinstance(outcome, Found):
                return outcome.remote_id
            if isinstance(outcome, Stored):
                return outcome.remote_id
            if isinstance(outcome, RefusedForNow):
                if outcome.why == "flood":
                    floods += 1
                    if floods > self.max_flood_waits:
                        raise ForumError(f"{url}: flood control refused {what} {floods} times: {outcome.said}")
                    self._after_flood(outcome.wait)
                else:
                    invalid += 1
                    if invalid > 1:
                        raise ForumError(f"{url}: the board refused the form for {what} twice: {outcome.said}")
                    found = self._look(seen)  # a stale form's answer may be a replay's: the first may have gone
                    if found is not None:
                        return found
                continue
            if isinstance(outcome, LoggedOut):
                logouts += 1
                if logouts > 1:
                    raise NotLoggedIn(f"{url}: the board took the account for a guest twice: {outcome.said}")
                self.http.login()
                found = self._look(seen)  # a guest's page may answer a request the board took before: look first
                if found is not None:
                    return found
                continue
            if isinstance(outcome, RefusedForGood):
                raise refusal_error(outcome, f"{url}: the board refused {what}: {outcome.said}")
            found = self._look(seen)
            if found is not None:
                return found
            hint = "its marker is not on the board" if seen is not None else "there is no marker to look for"
            raise MaybeSent(
                f"{url}: the answer to {what} proves nothing ({outcome.said}); {hint}: nothing was sent again"
            )

    def _missing(self, url: str, page: Page) -> Outcome:
        """The form's page served without the form: the board's reason; an unexpected page stops here
        (nothing was sent, the next run asks again)."""
        outcome = self._form_missing(page)
        if isinstance(outcome, Unknown):
            raise ForumError(f"{url}: no form to fill in: {outcome.said or 'an unexpected page'}")
        return outcome

    def _form_page(self, url: str) -> Page:
        """The form's page; a refusal served instead (an IPB 3 error page comes with 403) is the page too."""
        try:
            return self.http.get(url)
        except RefusedPage as exc:
            return exc.page

    def _submit(self, page: Page, submission: Submission, seen: Seen, *, post: bool, multipart: bool) -> Page | Found:
        """POST the filled form once, in the page's charset. The answer is read by the caller whatever it
        is (a refusal sent with 403 included); when the board may have acted without answering
        (`MaybeSent`), what it made is looked for by its marker, else the doubt stands."""
        action = self.http.rebase(submission[0] or page.url)
        try:
            return self.http.post(
                action, submission[1], charset=page.charset, content=False, idempotent=False, multipart=multipart
            )
        except RefusedPage as exc:
            return exc.page
        except MaybeSent as exc:
            try:
                found = seen() if seen is not None else None
            except ForumbotError as lookup:
                raise MaybeSent(f"{exc}; looking for its marker failed ({lookup}): nothing was sent again") from exc
            if found is not None:
                return Found(found)
            raise MaybeSent(f"{exc}: nothing was sent again") from exc
        finally:
            now = self.http.clock.time()
            self._last_submit = now
            if post:
                self._last_post = now

    def _wait_gap(self, *, post: bool) -> None:
        """`min_gap` since the last submission; before a post, the flood interval since the last post once
        the board has shown it keeps one."""
        clock = self.http.clock
        ready = (self._last_submit + self.min_gap) if self._last_submit is not None else clock.time()
        if post and self._flooded and self._last_post is not None:
            ready = max(ready, self._last_post + self.flood_interval)
        clock.sleep(max(0.0, ready - clock.time()))

    def _after_flood(self, named: float | None) -> None:
        """Flood control said no: wait what it names (IPB 2 its whole interval, IPB 3 the seconds left, rounded
        down: one more), and keep the interval between posts from now on."""
        clock = self.http.clock
        if named is None:
            wait = self.flood_interval
        elif self.flood_names_left:
            wait = named + 1.0
            since = clock.time() - self._last_post if self._last_post is not None else 0.0
            self.flood_interval = max(self.flood_interval if self._flooded else 0.0, since + wait)
        else:
            wait = named
            self.flood_interval = named
        self._flooded = True
        clock.sleep(wait)

    def _look(self, seen: Seen) -> int | None:
        """What an earlier attempt made after all, found by its marker."""
        return seen() if seen is not None else None

    # -- closing a topic ----------------------------------------------------------------------------

    def topic_locked(self, topic_id: int) -> bool:
        return self._closed(self._topic_page(topic_id).text)

    def lock_topic(self, topic_id: int, forum_id: int | None = None) -> LockResult:
        """Close the topic with the moderators' tools of its page. The topic is read before (closed already:
        done) and after. A refusal for good is a result (with the board's words); a passing one (a stale form,
        a dead session: tried once more) that leaves it open, or an answer that never came, is an error: the
        next run tries again."""
        page = self._topic_page(topic_id)
        if self._closed(page.text):
            return LockResult(locked=True, already=True)
        outcome: Outcome = Unknown()
        for attempt in range(2):
            try:
                outcome = self._close(page)
            except ForumError as exc:  # the answer failed: closing twice is harmless, the topic says if it took
                outcome = Unknown(str(exc))
            if attempt == 0 and isinstance(outcome, RefusedForNow | LoggedOut):
                if isinstance(outcome, LoggedOut):
                    self.http.login()
                page = self._topic_page(topic_id)
                if self._closed(page.text):
                    return LockResult(locked=True)
                continue
            break
        if self.topic_locked(topic_id):
            return LockResult(locked=True)
        if isinstance(outcome, RefusedForGood):
            return LockResult(locked=False, reason=outcome.said)
        said = getattr(outcome, "said", "") or "no answer"
        raise ForumError(f"topic {topic_id} is still open ({said}); the next run tries again")

    def _topic_page(self, topic_id: int) -> Page:
        return self.client.whole(self.http.url(f"index.php?showtopic={topic_id}"), "topic")

    # -- finding what was written -------------------------------------------------------------------

    def find_marker_in_topic(self, topic_id: int, marker: str) -> int | None:
        """The last post of this account in the topic that holds `marker` (quotes of it by others do not
        count), or None."""
        found: int | None = None
        for page in self.client.fetch_topic(topic_id):
            for post in page.posts:
                if marker in post.content_html and self.client.is_me(post.author, post.author_id):
                    found = post.post_id
        return found

    def find_marker_in_forum(self, forum_id: int, subject: str, marker: str) -> int | None:
        """The topic of this account whose first post holds `marker`, among the forum's topics; those titled
        `subject` are opened first."""
        mine: list[ForumTopicRow] = []
        for page in self._pages(self.http.url(f"index.php?showforum={forum_id}"), "unknown"):
            mine += [row for row in self.pages.forum_topics(page.text) if self.client.is_me(row.author)]
            if any(same_title(row.title, subject) for row in mine):
                break
        mine.sort(key=lambda row: not same_title(row.title, subject))
        return next(
            (row.topic_id for row in mine[:MAX_CANDIDATES] if self._first_post_holds(row.topic_id, marker)), None
        )

    def _first_post_holds(self, topic_id: int, marker: str, shown: Page | None = None) -> bool:
        """Whether the topic's first post is this account's and holds `marker` (read from `shown`, its first
        page, when the board has just sent it)."""
        first = None
        if shown is not None:
            try:
                first = self.client._parse_topic(shown)
            except ParseError:
                first = None
            if first is not None and (first.topic_id != topic_id or first.page != 1):
                first = None
        if first is None:
            first = next(iter(self.client.fetch_topic(topic_id)), None)
        post = first.posts[0] if first is not None and first.posts and first.page == 1 else None
        return post is not None and marker in post.content_html and self.client.is_me(post.author, post.author_id)

    def _pages(self, url: str, kind: PageKind) -> Iterator[Page]:
        """A list's pages, each followed by its next-page link, each whole (a list cut short could hide the
        marker looked for, and the letter would be sent twice)."""
        visited: set[str] = set()
        following: str | None = url
        while following is not None and following not in visited and len(visited) < MAX_FOLDER_PAGES:
            visited.add(following)
            page = self.client.whole(following, kind)
            yield page
            link = self.pages.next_page(page.text)
            following = self.http.rebase(link) if link else None
