"""Writing to a phpBB 3.x board: new topics, replies, locking a topic, private messages, and finding
what was written after a crash (by a marker string written into the text).

    poster = PhpbbPoster(client)                      # a logged-in-on-demand PhpbbClient
    topic = poster.post_topic(4, "Mafia-1. День 2", body, marker=marker)
    poster.lock_topic(3)                              # a LockResult: locked, already, refused, reason
    poster.send_pm(["Alice"], "Mafia-1: ваша роль", text, marker=marker)
    poster.find_marker_in_forum(4, "Mafia-1. День 2", marker)   # the topic id, or None

Every request goes through the client's `ForumHttp`; the pages are read by `pages.py`, the forms filled
by `forms.py`, and every answer to a write is read by `answers.py` into one outcome
(`forumbot.forum.outcome`), which is all this module acts on:

- stored: the id is returned;
- refused for good (the board's words): the error of the tree (`NoPermission` for a locked topic or an
  account that may not, `UnknownRecipient`, `TooManyRecipients` with the limit, `HeldForApproval`,
  `Rejected` for the rest), nothing sent again;
- refused for now: flood control is waited out and the write submitted again with a fresh form (posts
  and PMs share one flood clock); the board's interval is the config's, else learned from its answers
  (phpBB's flood answer does not say how long: the waits grow from one second until a submission is
  taken, and that distance is kept between the submissions that follow); a reply shown for review
  (someone posted since its form was fetched) is submitted again with the form the board handed back,
  unless it was made from the topic as read (`post_reply_if_current`: a vote count), which is then
  `Outdated`; a busy server (429 or 503) is waited out when it says how long, briefly, else `TryLater`;
- logged out (a login page in answer to a write), an invalid form, any unknown answer: maybe sent. The
  writer logs in again if it must and looks for the marker before anything is sent again; a write found
  is returned as stored. An unknown answer or a transport fault (timeout, reset, an answer cut short)
  that its marker does not settle stays `MaybeSent` (`Unproven` for a whole page that proves nothing):
  the board may still act, and the next run looks again before sending.

What phpBB's forms want (checked on the exchanges with a real phpBB 3.3.11 board in `fixtures/phpbb-ru/`,
Russian and English):

- a fresh form for every submission (`form_token`, `creation_time`; a reply form also carries
  `topic_cur_post_id`), submitted more than a second after it was fetched, else "The submitted form was
  invalid";
- PMs in two steps: `username_list` + `add_to` (the form comes back with `address_list[u][ID]=to` and
  fresh tokens), then `subject`, `message`, `post`. Step one sends nothing and phpBB's tokens hold for
  hours, so `prepare_pms` does it for the next PMs while one waits out its second; a prepared form the
  board calls invalid is replaced by a fresh one;
- locking through the moderators' quick-mod link and its confirmation page (`form#confirm`, whose
  `confirm` button carries the viewer's localised "yes": phpBB compares the value, and a wrong one is a
  silent redirect). The topic itself says whether it is locked (the lock icon on its reply button), so
  the topic is read before (already locked: nothing to do) and after (did it take?); a lock not made is
  refused for good only when the board said the account may not;
- a PM goes to at most the board's recipient limit: above it phpBB keeps the first N in the form it
  returns and sends nothing, and it drops an unknown name silently when a known one comes with it, so
  the recipients the form comes back with are compared with the ones asked for before anything is sent.

No word of the board's language is written here: the texts matched are `answers.py`'s.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Literal, NoReturn

from forumbot.errors import (
    N_,
    ConfigError,
    ForumbotError,
    ForumError,
    HeldForApproval,
    MaybeSent,
    NoPermission,
    NotLoggedIn,
    Outdated,
    ParseError,
    Rejected,
    TooManyRecipients,
    TryLater,
    UnknownRecipient,
    Unproven,
)
from forumbot.forum.client import ForumClient
from forumbot.forum.http import BoardBusy, LoggedOutAnswer, Page, RefusedPage
from forumbot.forum.markup import browser_fields, find_form, iter_class, parse_html, text_of
from forumbot.forum.outcome import LoggedOut, Outcome, RefusedForGood, RefusedForNow, Stored, Unknown
from forumbot.forum.phpbb import pages
from forumbot.forum.phpbb.answers import (
    form_error,
    form_missing,
    forum_message,
    lock_answer,
    pm_answer,
    post_answer,
    recipients_trouble,
)
from forumbot.forum.phpbb.forms import FORM_MIN_AGE, PREFERENCES, addressed_recipients, confirm_form, pm_key, pm_names
from forumbot.forum.phpbb.pages import forum_pages, parse_forum_topics
from forumbot.forum.phpbb.reader import PhpbbClient
from forumbot.forum.poster import (
    MAX_CANDIDATES,
    MAX_FLOOD_WAITS,
    MAX_FOLDER_PAGES,
    Fields,
    ForumTopicRow,
    LockResult,
    fill,
    own_post_with,
)
from forumbot.posts import PmSummary, Preferences

__all__ = ["FLOOD_PROBES", "MAX_BUSY_WAIT", "PhpbbPoster", "writer_for"]

MAX_REVIEWS = 3  # replies shown for review in a row (a busy topic) before giving up
MAX_INVALID = 2  # "the form was invalid" answers to one write before giving up for this run
MAX_LOGINS = 1  # logins again within one write (a login page in answer to it)
MAX_BUSY = 2  # 429 / 503 answers to one write waited out before giving up for this run
MAX_BUSY_WAIT = 30.0  # seconds of a busy server's Retry-After waited here; longer: TryLater, for the next run
# Learning the board's flood interval (its answer does not say it): the seconds after the last post the
# next attempts are made at, until one is taken.
FLOOD_PROBES = (1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0)

Look = Callable[[], int | None]
Classify = Callable[[Page], Outcome]


@dataclass(frozen=True)
class _Addressed:
    """A compose form addressed ahead of its PM's turn (step one: it sends nothing), and when it was
    issued; `page` None: addressing it failed, and the PM's own turn starts afresh."""

    key: tuple[str, ...]
    page: Page | None
    fetched: float


@dataclass
class _Write:
    """One write's attempts: what they met, and whether one may have been stored (then its marker is
    looked for before anything is sent again)."""

    seen: Look | None
    doubt: ForumbotError | None = None  # why an earlier attempt may have been stored (None: none may have)
    floods: int = 0
    invalid: int = 0
    logins: int = 0
    busy: int = 0
    reviews: int = 0
    said: list[str] = field(default_factory=list)

    def look(self) -> int | None:
        """After an attempt that may have been stored: its id if the board shows it, else None (it is not
        there, and the board has finished answering: another attempt may go). No marker: no other attempt."""
        if self.doubt is None:
            return None
        if self.seen is None:
            raise MaybeSent(N_("{error}; no marker to look for: nothing was sent again"), error=self.doubt)
        try:
            found = self.seen()
        except ForumbotError as exc:
            raise MaybeSent(
                N_("{error}; looking for its marker failed ({lookup}): nothing was sent again"),
                error=self.doubt,
                lookup=exc,
            ) from exc
        self.doubt = None
        return found


class PhpbbPoster:
    """Posts, locks and PMs as the client's account. `flood_interval`: the board's flood control setting
    in seconds, when the config knows it; None: learned from the board's answers (see the module)."""

    def __init__(
        self,
        client: PhpbbClient,
        *,
        flood_interval: float | None = None,
        max_flood_waits: int = MAX_FLOOD_WAITS,
    ) -> None:
        self.client = client
        self.http = client.http
        self._username = client._credentials_or_fail()[0]
        self.flood_interval = flood_interval
        self.interval_known = flood_interval is not None  # else learned: `flood_interval` is the upper bound seen
        self.max_flood_waits = max_flood_waits
        # the board has flood control: keep the interval between submissions (known from the config at once,
        # else from its first refusal)
        self._flooded = bool(flood_interval)
        self._last_stored: float | None = None  # when this account's last write was taken (the flood clock)
        self._probing: float | None = None  # while learning the interval: when the flood clock started
        self._too_short = 0.0  # while learning again: the interval learned before, which proved too short
        self._prepared: list[_Addressed] = []  # compose forms addressed ahead, in the order of their PMs

    @property
    def username(self) -> str:
        """The account's name on the forum: what is looked for is what this account wrote."""
        return self._username

    # -- posts ------------------------------------------------------------------------------------

    def post_topic(self, forum_id: int, subject: str, message: str, *, marker: str | None = None) -> int:
        """A new topic in forum `forum_id`; returns its id."""
        form = self.http.url(f"posting.php?mode=post&f={forum_id}")
        seen = (lambda: self.find_marker_in_forum(forum_id, subject, marker)) if marker else None
        return self._post(form, {"subject": subject, "message": message}, "topic", seen)

    def post_reply(self, topic: int | str, subject: str, message: str, *, marker: str | None = None) -> int:
        """A reply in `topic` (an id or a topic URL; an empty subject keeps phpBB's "Re: ..."); returns the
        post's id. A reply shown for review (others posted since its form was fetched) is submitted again
        with the form the board handed back."""
        return self._reply(topic, subject, message, marker, current=False)

    def post_reply_if_current(self, topic: int | str, subject: str, message: str, *, marker: str | None = None) -> int:
        """`post_reply` for a reply made from the topic as read (a vote count): if the board shows posts
        made since its form was fetched, it is not posted (`Outdated`): it must be made again."""
        return self._reply(topic, subject, message, marker, current=True)

    def _reply(self, topic: int | str, subject: str, message: str, marker: str | None, *, current: bool) -> int:
        topic_id = self.client.topic_id(topic)
        form = self.http.url(f"posting.php?mode=reply&t={topic_id}")
        values = {"message": message} | ({"subject": subject} if subject else {})
        seen = (lambda: self.find_marker_in_topic(topic_id, marker)) if marker else None
        return self._post(form, values, "reply", seen, current=current)

    def _post(
        self,
        form_url: str,
        values: dict[str, str],
        made: Literal["topic", "reply"],
        seen: Look | None,
        *,
        current: bool = False,
    ) -> int:
        write = _Write(seen)
        handed: Page | None = None  # the form the board handed back for review, submitted as it is
        while True:
            found = write.look()
            if found is not None:
                return self._stored(found)
            page = handed or self._form(form_url)
            handed = None
            fetched = self.http.clock.time()
            action, fields = self._served(page, form_url, press="post")
            outcome, answer = self._attempt(
                action, fill(fields, values), page.charset, fetched, write, lambda a: post_answer(a.url, a.text, made)
            )
            if isinstance(outcome, Stored):
                if outcome.remote_id is None:
                    if made == "topic":
                        raise ParseError(N_("{url}: posted, but the topic's id is not in the answer"), url=answer.url)
                    raise ParseError(N_("{url}: posted, but the post's id is not in the answer"), url=answer.url)
                return self._stored(outcome.remote_id)
            if isinstance(outcome, RefusedForNow) and outcome.why == "review":
                # Someone posted since the form was issued: phpBB stored nothing and handed the form back
                # with the new topic_cur_post_id; that form as it is posts the reply (`current`: not this one)
                if current:
                    raise Outdated(N_("{url}: others posted since the reply was made; it was not posted"), url=form_url)
                write.reviews += 1
                if write.reviews > MAX_REVIEWS:
                    raise TryLater(
                        N_("{form_url}: others keep posting; the reply was shown for review {reviews} times"),
                        form_url=form_url,
                        reviews=write.reviews,
                    )
                handed = answer
                continue
            found = self._settle(outcome, write, form_url)
            if found is not None:
                return self._stored(found)

    # -- private messages -------------------------------------------------------------------------

    def send_pm(
        self, recipients: Sequence[str], subject: str, message: str, *, marker: str | None = None
    ) -> int | None:
        """One PM to `recipients` (their forum names); returns its id when the forum says it. More names
        than the board takes in one PM is `TooManyRecipients`: send to fewer at a time. A compose form
        addressed ahead by `prepare_pms` is used when there is one (then it is old enough already)."""
        names = pm_names(recipients)
        if not names:
            raise ValueError("a PM needs at least one recipient")
        compose = self.http.url("ucp.php?i=pm&mode=compose")
        seen = (lambda: self.find_marker_in_sent(marker, subject=subject, recipients=names)) if marker else None
        write = _Write(seen)
        ahead = self._take_prepared(names)
        while True:
            found = write.look()
            if found is not None:
                return self._stored(found)
            addressed, fetched = self._addressed(compose, names, ahead)
            ahead = None  # a second attempt always starts from a fresh form
            action, fields = self._served(addressed, compose, press="post")
            fields = [(k, v) for k, v in fields if k != "username_list"]
            fields = fill(fields, {"subject": subject, "message": message})
            outcome, _ = self._attempt(action, fields, addressed.charset, fetched, write, lambda a: pm_answer(a.text))
            if isinstance(outcome, Stored):
                self._took()
                return outcome.remote_id  # None: the board said it was sent, its id cut off
            if isinstance(outcome, Unknown) and outcome.why == "form_invalid":
                self._prepared.clear()  # forms addressed as long ago as this one are suspect too
            found = self._settle(outcome, write, compose)
            if found is not None:
                return self._stored(found)

    def prepare_pms(self, upcoming: Sequence[Sequence[str]]) -> None:
        """Address, in order, the compose forms of the PMs to be sent next (step one only: nothing is
        sent), so that each is past phpBB's one-second rule when its `send_pm` comes. Forms addressed
        earlier for these recipients are kept, the others dropped. A failure stops here, and that PM is
        addressed afresh at its own turn, where its error (an unknown name, a refusal) shows."""
        compose = self.http.url("ucp.php?i=pm&mode=compose")
        pool, kept, failed = self._prepared, [], False
        for names in filter(None, map(pm_names, upcoming)):
            key = pm_key(names)
            match = next((form for form in pool if form.key == key), None)
            if match is not None:
                pool.remove(match)
                kept.append(match)
            elif not failed:
                try:
                    kept.append(_Addressed(key, self._add_recipients(compose, names), self.http.clock.time()))
                except ForumbotError:
                    kept.append(_Addressed(key, None, 0.0))  # not tried again before its turn
                    failed = True  # the board may be down: no more requests for later PMs now
        self._prepared = kept

    def _take_prepared(self, names: list[str]) -> _Addressed | None:
        key = pm_key(names)
        match = next((form for form in self._prepared if form.key == key), None)
        if match is not None:
            self._prepared.remove(match)
        return match

    def _addressed(self, compose: str, names: list[str], ahead: _Addressed | None = None) -> tuple[Page, float]:
        """A compose form with exactly the recipients `names` added (step one: `ahead`'s, addressed
        earlier, else a fresh one), and when it was issued. The board's answer is checked: a name it
        dropped (unknown, or over its recipient limit) stops the PM before anything is sent."""
        if ahead is not None and ahead.page is not None:
            added, fetched = ahead.page, ahead.fetched
        else:
            added = self._add_recipients(compose, names)
            fetched = self.http.clock.time()
        if find_form(parse_html(added.text), "postform") is None:
            self._not_a_form(compose, added)
        error = form_error(added.text)
        kept = addressed_recipients(added.text)
        taken = {name.casefold() for name in kept.values()}
        missing = [name for name in names if name.casefold() not in taken] if all(kept.values()) else []
        if not missing and len(kept) == len(names):
            return added, fetched
        trouble = recipients_trouble(error)
        if trouble == "too_many_recipients":
            raise TooManyRecipients(
                N_("{compose}: {error} The board takes {n} recipients in one PM, not {n2}; PM not sent"),
                len(kept),
                compose=compose,
                error=error,
                n=len(kept),
                n2=len(names),
            )
        if trouble == "unknown_recipient":
            # phpBB names no one: when some names exist it drops the unknown ones without a word
            unknown = (self._unknown(compose, missing) if len(names) > 1 else missing) or missing or names
            raise UnknownRecipient(
                N_("no member of the forum is called {names}: PM not sent"), names=", ".join(map(repr, unknown))
            )
        raise Rejected(
            N_("{compose}: the forum took {n} of the PM's recipients {names}: {error}"),
            compose=compose,
            n=len(kept),
            names=", ".join(names),
            error=error,
        )

    def _unknown(self, compose: str, names: list[str]) -> list[str]:
        """Which of `names` the forum does not know (one "add" per name: phpBB does not say which)."""
        return [name for name in names if not addressed_recipients(self._add_recipients(compose, [name]).text)]

    def _add_recipients(self, compose: str, names: list[str]) -> Page:
        """Step one of a PM: a fresh compose form, its "add" button pressed with `names`; the form the
        board returns. It sends nothing, so the client may ask it again (after a login page, say)."""
        page = self._form(compose)
        action, fields = self._served(page, compose, press="add_to")
        fields = [(k, v) for k, v in fields if not k.startswith("address_list")]
        return self.http.post(
            action, fill(fields, {"username_list": "\n".join(names)}), charset=page.charset, content=True
        )

    # -- locking ----------------------------------------------------------------------------------

    def topic_locked(self, topic_id: int) -> bool:
        """Whether the topic is locked, as its first page shows (the lock on its reply button)."""
        first = next(iter(self.client.fetch_topic(topic_id)), None)
        return bool(first is not None and first.locked)

    def lock_topic(self, topic_id: int, forum_id: int | None = None) -> LockResult:
        """Lock the topic through the moderators' quick-mod tool and its confirmation, pressing the
        confirmation's own button. The topic is read first (already locked: done) and after (the board
        answers a confirmation it did not take with a plain redirect). A lock not made is a result, not
        an error: `refused` when the board said the account may not (for good), else it may be tried
        again (locking twice is harmless, so a login page in answer is met with one more try)."""
        if self.topic_locked(topic_id):
            return LockResult(locked=True, already=True)
        where = f"f={forum_id}&" if forum_id is not None else ""
        url = self.http.url(f"mcp.php?{where}t={topic_id}&quickmod=1&action=lock")
        outcome: Outcome = Unknown()
        for _ in range(1 + MAX_LOGINS):
            outcome = self._lock_once(url)
            if not isinstance(outcome, LoggedOut):
                break
            self.http.login()
        if self.topic_locked(topic_id):
            return LockResult(locked=True)
        refused = isinstance(outcome, RefusedForGood)
        said = outcome.said if isinstance(outcome, RefusedForGood | RefusedForNow | LoggedOut | Unknown) else ""
        return LockResult(locked=False, reason=said or "the board did not lock it and said nothing", refused=refused)

    def _lock_once(self, url: str) -> Outcome:
        """One lock: the confirmation box fetched and confirmed; what the board answered."""
        try:
            page = self.http.get(url)
        except RefusedPage as exc:
            return form_missing(exc.page.text)
        confirm = confirm_form(page.text)
        if confirm is None:
            return form_missing(page.text)
        action, fields = confirm
        try:
            answer = self.http.post(
                self.http.rebase(action or url), fields, charset=page.charset, content=True, idempotent=False
            )
        except (LoggedOutAnswer, RefusedPage) as exc:
            return form_missing(exc.page.text)
        except MaybeSent as exc:
            return Unknown(str(exc))
        return lock_answer(answer.text)

    # -- the account's own preferences ----------------------------------------------------------

    def set_date_format(self, dateformat: str) -> Preferences:
        """Store `dateformat` (PHP's date() letters, e.g. `d.m.Y H:i:s`) as this account's date format,
        through its preferences form submitted as served with only the format changed; returns the
        preferences as the board shows them afterwards. Only ever on the host's request."""
        url = self.http.url(PREFERENCES)
        page = self.http.get(url)
        fetched = self.http.clock.time()
        form = find_form(parse_html(page.text), "ucp")
        if form is None:
            raise ForumError(
                N_("{url}: no preferences form: {value}"), url=url, value=forum_message(page.text) or "unexpected page"
            )
        fields = browser_fields(form, press="submit")
        options = {value for name, value in fields if name == "dateoptions"}
        preset = any(o.get("value") == dateformat for o in form.iter("option"))
        changes = {"dateformat": dateformat} | ({"dateoptions": dateformat if preset else "custom"} if options else {})
        action = self.http.rebase(form.get("action") or url)
        answer = self._submit(action, fill(fields, changes), page.charset, fetched)
        error = form_error(answer.text) or next(
            (text_of(d) for d in iter_class(parse_html(answer.text), "div", "error")), None
        )
        if error:
            raise ForumError(N_("{url}: the board kept the old date format: {error}"), url=url, error=error)
        after = pages.parse_preferences(self.http.get(url).text)
        if after.dateformat != dateformat:
            raise ForumError(
                N_("{url}: the board kept the date format {dateformat!r}, not {dateformat2!r}"),
                url=url,
                dateformat=after.dateformat,
                dateformat2=dateformat,
            )
        return after

    # -- finding what was written -----------------------------------------------------------------

    def find_marker_in_forum(self, forum_id: int, subject: str, marker: str) -> int | None:
        """The topic of this account whose first post holds `marker`, among the forum's topics (its list,
        up to MAX_FOLDER_PAGES pages); topics titled `subject` are opened first. None if there is none."""
        url: str | None = self.http.url(f"viewforum.php?f={forum_id}")
        me = self.username.casefold()
        mine: list[ForumTopicRow] = []
        visited: set[str] = set()
        while url is not None and url not in visited and len(visited) < MAX_FOLDER_PAGES:
            visited.add(url)
            page = self.client.whole(url, "unknown")  # a list cut short could hide the topic: a double post
            mine += [row for row in parse_forum_topics(page.text) if row.author.casefold() == me]
            wanted = " ".join(subject.split())
            if any(" ".join(row.title.split()) == wanted for row in mine):
                break
            following = forum_pages(page.text)
            url = self.http.rebase(following) if following else None
        wanted = " ".join(subject.split())
        mine.sort(key=lambda row: " ".join(row.title.split()) != wanted)
        for row in mine[:MAX_CANDIDATES]:
            first = next(iter(self.client.fetch_topic(row.topic_id)), None)
            if first is not None and first.posts and first.page == 1:
                post = first.posts[0]
                if post.author.casefold() == me and marker in post.content_html:
                    return row.topic_id
        return None

    def find_marker_in_topic(self, topic_id: int, marker: str) -> int | None:
        return own_post_with(self.client, self.username, topic_id, marker)

    def find_marker_in_sent(
        self, marker: str, *, subject: str | None = None, recipients: Sequence[str] = ()
    ) -> int | None:
        """A PM of this account, in its outbox (not yet delivered) or its sent messages, holding `marker`
        and, when `recipients` are given, addressed to one of them (a letter the bot relayed to someone
        else proves nothing); the ones with that subject are opened first. None if there is none."""
        rows: list[tuple[int, str, tuple[str, ...], int]] = []  # pm id, subject, recipients, folder id
        for folder, folder_id in (("outbox", -2), ("sentbox", -1)):
            rows += [(s.pm_id, s.subject, s.recipients or (s.sender,), folder_id) for s in self._folder(folder)]
        wanted = " ".join((subject or "").split())
        names = {name.casefold() for name in recipients}
        if names:
            rows = [row for row in rows if names & {name.casefold() for name in row[2]}]
        rows.sort(key=lambda row: not wanted or " ".join(row[1].split()) != wanted)
        for pm_id, _, _, folder_id in rows[:MAX_CANDIDATES]:
            page = self.client.whole(self.http.url(f"ucp.php?i=pm&mode=view&f={folder_id}&p={pm_id}"), "pm")
            if marker in pages.parse_pm(page.text, url=page.url).body_html:
                return pm_id
        return None

    def _folder(self, folder: str) -> Iterator[PmSummary]:
        url: str | None = self.http.url(f"ucp.php?i=pm&folder={folder}")
        visited: set[str] = set()
        while url is not None and url not in visited and len(visited) < MAX_FOLDER_PAGES:
            visited.add(url)
            page = self.client.whole(url, "pm_inbox")  # a folder cut short could hide the marker
            summaries, next_link = pages.parse_pm_inbox(page.text, url=page.url)
            yield from summaries
            url = self.http.rebase(next_link) if next_link else None

    # -- one attempt, and what its outcome asks --------------------------------------------------

    def _served(self, page: Page, url: str, *, press: str) -> tuple[str, Fields]:
        """The posting / compose form of the page as a browser would submit it with button `press`; a
        page instead of the form is the board's answer (nothing was sent)."""
        form = find_form(parse_html(page.text), "postform")
        if form is None:
            self._not_a_form(url, page)
        return self.http.rebase(form.get("action") or url), browser_fields(form, press=press)

    def _form(self, url: str) -> Page:
        """The page of a form to fill in; a refusal served instead (a 403 page) read in the board's words."""
        try:
            return self.http.get(url)
        except RefusedPage as exc:
            self._not_a_form(url, exc.page)

    def _not_a_form(self, url: str, page: Page) -> NoReturn:
        """A page served where a form was asked for, as the error it is (nothing was sent)."""
        outcome = form_missing(page.text)
        if isinstance(outcome, RefusedForGood):
            raise self._refusal(url, outcome)
        if isinstance(outcome, LoggedOut):
            raise NotLoggedIn(N_("{url}: the forum asks to log in again: {said}"), url=url, said=outcome.said)
        said = outcome.said if isinstance(outcome, Unknown | RefusedForNow) else ""
        raise Unproven(N_("{url}: no form to fill in; the forum served «{said}»"), url=url, said=said or "…")

    def _attempt(
        self, action: str, fields: Fields, charset: str, fetched: float, write: _Write, classify: Classify
    ) -> tuple[Outcome, Page]:
        """Submit once and read the answer. A fault of the transport (a timeout, a reset, an answer that
        broke off) leaves the write maybe sent: its marker is looked for at once, and if the board does not
        show it the doubt stands (`MaybeSent`): the board may still act, the next run looks again."""
        try:
            answer = self._submit(action, fields, charset, fetched)
        except LoggedOutAnswer as exc:
            return classify(exc.page), exc.page
        except RefusedPage as exc:
            return classify(exc.page), exc.page
        except BoardBusy as exc:
            return RefusedForNow("busy", str(exc), exc.wait), Page(action, exc.status, b"", "", charset)
        except MaybeSent as exc:
            write.doubt = exc
            found = write.look()
            if found is not None:
                return Stored(found), Page(action, 0, b"", "", charset)
            raise MaybeSent(
                N_("{error}; its marker is not on the board yet: nothing was sent again"), error=exc
            ) from exc
        return classify(answer), answer

    def _settle(self, outcome: Outcome, write: _Write, url: str) -> int | None:
        """Act on an answer that stored nothing proven: raise, or wait, or log in, so that the next
        attempt may go (after `write.look()`, when this one may have been stored). An answer that proves
        nothing is settled by its marker at once: the id found, else the doubt stands (raised)."""
        if isinstance(outcome, RefusedForGood):
            raise self._refusal(url, outcome)
        if isinstance(outcome, RefusedForNow) and outcome.why == "flood":
            write.floods += 1
            self._wait_out_flood(write, url, outcome.said)
        elif isinstance(outcome, RefusedForNow) and outcome.why == "busy":
            write.busy += 1
            write.doubt = MaybeSent(outcome.said)  # a busy server may have acted before it said so
            if outcome.wait is not None and outcome.wait > MAX_BUSY_WAIT:
                raise TryLater(N_("{url}: {said}: nothing was sent again"), outcome.wait, url=url, said=outcome.said)
            if outcome.wait is None or write.busy > MAX_BUSY:  # it says not how long: settle it, send nothing
                found = write.look()
                if found is not None:
                    return found
                raise TryLater(
                    N_("{url}: {said}; it is not on the board: nothing was sent again"),
                    outcome.wait,
                    url=url,
                    said=outcome.said,
                )
            self.http.clock.sleep(outcome.wait)
        elif isinstance(outcome, LoggedOut):
            write.logins += 1
            write.doubt = MaybeSent(
                N_("{url}: the forum answered with its login page ({said})"), url=url, said=outcome.said
            )
            if write.logins > MAX_LOGINS:
                raise MaybeSent(N_("{error} again after a new login: nothing was sent again"), error=write.doubt)
            self.http.login()
        elif isinstance(outcome, Unknown) and outcome.why == "form_invalid":
            write.invalid += 1
            write.doubt = MaybeSent(N_("{url}: the forum called the form invalid ({said})"), url=url, said=outcome.said)
            if write.invalid > MAX_INVALID:
                raise Unproven(N_("{error} {n} times: nothing was sent again"), error=write.doubt, n=write.invalid)
        else:
            said = (outcome.said if isinstance(outcome, Unknown | RefusedForNow) else "") or "…"
            cut = isinstance(outcome, Unknown) and outcome.why == "cut"
            if cut:
                write.doubt = MaybeSent(N_("{url}: the answer broke off: «{said}»"), url=url, said=said)
            else:
                write.doubt = MaybeSent(N_("{url}: the answer proves nothing: «{said}»"), url=url, said=said)
            found = write.look()
            if found is not None:
                return found
            error = MaybeSent if cut else Unproven
            raise error(N_("{url}: the forum answered «{said}», and it is not on the board"), url=url, said=said)
        return None

    def _submit(self, action: str, fields: Fields, charset: str, fetched: float) -> Page:
        """POST a filled form once: no sooner than phpBB's one second after the form was issued, nor than
        the flood interval after the last write it took once the board has shown it keeps one."""
        clock = self.http.clock
        ready = fetched + FORM_MIN_AGE
        if self._flooded and self._last_stored is not None and self.flood_interval is not None:
            ready = max(ready, self._last_stored + self.flood_interval)
        clock.sleep(max(0.0, ready - clock.time()))
        return self.http.post(action, fields, charset=charset, content=True, idempotent=False)

    def _stored(self, remote_id: int) -> int:
        self._took()
        return remote_id

    def _took(self) -> None:
        """A write the board took: the flood clock restarts now; while the interval was being learned,
        the distance this write came at is it (rounded up to the board's whole seconds)."""
        now = self.http.clock.time()
        if self._probing is not None:
            self.flood_interval = float(math.ceil(now - self._probing))
            self._probing = None
        self._last_stored = now

    def _wait_out_flood(self, write: _Write, url: str, said: str) -> None:
        """Flood control refused the write ("too soon"): wait the board's interval since the last write it
        took; while the interval is learned, the next probe's distance (an interval learned before that
        proved too short now is learned again, from there)."""
        self._flooded = True
        clock = self.http.clock
        if self.interval_known and self.flood_interval is not None:
            if write.floods > self.max_flood_waits:
                raise TryLater(
                    N_("{url}: flood control refused {floods} attempts ({said})"),
                    self.flood_interval,
                    url=url,
                    floods=write.floods,
                    said=said,
                )
            since = self._last_stored if self._last_stored is not None else clock.time()
            wait = self.flood_interval
        else:
            if write.floods > len(FLOOD_PROBES):
                self._probing = None
                raise TryLater(
                    N_("{url}: flood control refused {floods} attempts ({said})"),
                    FLOOD_PROBES[-1],
                    url=url,
                    floods=write.floods,
                    said=said,
                )
            if self._probing is None:
                self._probing = self._last_stored if self._last_stored is not None else clock.time()
                self._too_short, self.flood_interval = self.flood_interval or 0.0, None
            since, wait = self._probing, max(FLOOD_PROBES[write.floods - 1], self._too_short)
        clock.sleep(max(0.0, since + wait - clock.time()))

    def _refusal(self, url: str, outcome: RefusedForGood) -> ForumError:
        """The error of the tree for a refusal for good, quoting the board."""
        if outcome.why == "too_many_recipients":
            kept = outcome.limit or 0
            return TooManyRecipients(
                N_("{url}: {said} (the board kept {kept}); PM not sent"), kept, url=url, said=outcome.said, kept=kept
            )
        if outcome.why == "held_for_approval":
            return HeldForApproval(
                N_("{url}: the forum holds it for a moderator's approval: {said}"), url=url, said=outcome.said
            )
        if outcome.why == "unknown_recipient":
            return UnknownRecipient(N_("{url}: {said}"), url=url, said=outcome.said)
        if outcome.why in ("no_permission", "locked"):
            return NoPermission(N_("{url}: {said}"), url=url, said=outcome.said)
        return Rejected(N_("{url}: {said}"), url=url, said=outcome.said)


def writer_for(client: ForumClient, flood_interval: float | None = None) -> PhpbbPoster:
    """The poster of a phpBB client (the registry's writer factory); `flood_interval` None: learned."""
    if not isinstance(client, PhpbbClient):
        raise ConfigError(N_("{forum}: not read as a phpBB board, so not written as one"), forum=client.forum)
    return PhpbbPoster(client, flood_interval=flood_interval)
