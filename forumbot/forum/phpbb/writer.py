"""Writing to a phpBB 3.x board: new topics, replies, locking a topic, private messages, and finding
what was written after a crash (by a marker string written into the text).

    poster = PhpbbPoster(client)                      # a logged-in-on-demand PhpbbClient
    topic = poster.post_topic(4, "Mafia-1. День 2", body)
    poster.lock_topic(3)                              # False when the account may not lock
    poster.send_pm(["Alice"], "Mafia-1: ваша роль", text)
    poster.find_marker_in_forum(4, "Mafia-1. День 2", marker)   # the topic id, or None

Every request goes through the client's `ForumHttp` (login state, retries, error mapping); the pages are
read by `pages.py`, the forms filled by `forms.py`, the board's answers read by `answers.py`. Every form
is submitted as the board served it: its hidden fields, checked boxes, selected options, and the one
submit button pressed with its own (localised) value; no word of the board's language is written here.
What phpBB's forms want (checked on the exchanges with a real phpBB 3.3.11 board in `fixtures/phpbb-ru/`,
Russian and English):

- a fresh form for every submission (`form_token`, `creation_time`; a reply form also carries
  `topic_cur_post_id`), submitted more than a second after it was fetched, else "The submitted form was
  invalid" (then the form is fetched once more);
- a reply to a topic someone posted in since the form was fetched is shown for review, not posted: the
  form is fetched again and the reply submitted again;
- flood control ("You cannot make another post so soon after your last.", posts and PMs alike): wait the
  board's interval and submit again, never twice the same text: when a marker is given, the forum is
  searched for it before a new attempt, in case an earlier attempt went through unseen;
- PMs in two steps: `username_list` + `add_to` (the form comes back with `address_list[u][ID]=to` and
  fresh tokens), then `subject`, `message`, `post`. Step one sends nothing and phpBB's tokens hold for
  hours, so `prepare_pms` does it for the next PMs while one waits out its second; a prepared form the
  board calls invalid is replaced by a fresh one;
- locking through the moderators' quick-mod link and its confirmation page (`form#confirm`, whose
  `confirm` button carries the viewer's localised "yes": phpBB compares the value, and a wrong one is a
  silent redirect). The topic itself says whether it is locked (the lock icon on its reply button), so
  the topic is read before (already locked: nothing to do) and after (did it take?);
- a PM goes to at most the board's recipient limit: above it phpBB keeps the first N in the form it
  returns and sends nothing, and it drops an unknown name silently when a known one comes with it, so
  the recipients the form comes back with are compared with the ones asked for before anything is sent.

Errors: a refusal for permissions (or a locked topic) is `NoPermission`; an unknown PM recipient is a
`ForumError` naming the nick; more recipients than the board takes is `TooManyRecipients` (with the
limit); any other answer that is neither a success nor a known refusal is a `ForumError` quoting the
forum's message.

The texts matched in the board's answers (flood control, an invalid form, too many recipients, unknown
recipients, a post held for approval, refusals) are phpBB's own, English and Russian language packs, and
each is tested against the real pages; successes are recognised by their structure, not their words.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

from forumbot.errors import (
    N_,
    ConfigError,
    ForumbotError,
    ForumError,
    HeldForApproval,
    MaybeSent,
    NoPermission,
    ParseError,
    TooManyRecipients,
    UnknownRecipient,
)
from forumbot.forum.client import ForumClient
from forumbot.forum.http import Page
from forumbot.forum.markup import browser_fields, find_form, iter_class, parse_html, text_of
from forumbot.forum.outcome import (
    LoggedOut,
    Outcome,
    RefusedForGood,
    RefusedForNow,
    Stored,
    Unknown,
    refusal_error,
)
from forumbot.forum.phpbb import pages
from forumbot.forum.phpbb.answers import (
    form_error,
    form_missing,
    forum_message,
    pm_answer,
    post_answer,
    recipients_trouble,
)
from forumbot.forum.phpbb.forms import FORM_MIN_AGE, PREFERENCES, addressed_recipients, confirm_form, pm_key, pm_names
from forumbot.forum.phpbb.pages import forum_pages, parse_forum_topics
from forumbot.forum.phpbb.reader import PhpbbClient
from forumbot.forum.poster import (
    FLOOD_INTERVAL,
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

__all__ = ["PhpbbPoster", "writer_for"]

MAX_REVIEWS = 3  # replies shown for review in a row (a busy topic) before giving up


@dataclass(frozen=True)
class _Addressed:
    """A compose form addressed ahead of its PM's turn (step one: it sends nothing), and when it was
    issued; `page` None: addressing it failed, and the PM's own turn starts afresh."""

    key: tuple[str, ...]
    page: Page | None
    fetched: float


class PhpbbPoster:
    """Posts, locks and PMs as the client's account. `flood_interval` is the board's flood control
    setting (phpBB's default 15 s): how long to wait after the forum says "too soon"; once it has said
    so, later submissions keep that distance by themselves."""

    def __init__(
        self,
        client: PhpbbClient,
        *,
        flood_interval: float = FLOOD_INTERVAL,
        max_flood_waits: int = MAX_FLOOD_WAITS,
    ) -> None:
        self.client = client
        self.http = client.http
        self._username = client._credentials_or_fail()[0]
        self.flood_interval = flood_interval
        self.max_flood_waits = max_flood_waits
        self._flooded = False  # the board has flood control: keep the interval between submissions
        self._last_submit: float | None = None
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
        post's id."""
        topic_id = self.client.topic_id(topic)
        form = self.http.url(f"posting.php?mode=reply&t={topic_id}")
        values = {"message": message} | ({"subject": subject} if subject else {})
        seen = (lambda: self.find_marker_in_topic(topic_id, marker)) if marker else None
        return self._post(form, values, "reply", seen)

    def _post(
        self,
        form_url: str,
        values: dict[str, str],
        made: Literal["topic", "reply"],
        seen: Callable[[], int | None] | None,
    ) -> int:
        invalid = floods = reviews = 0
        page = self.http.get(form_url)
        while True:
            fetched = self.http.clock.time()
            action, fields = self._served(page, form_url, press="post")
            answer = self._submit_once(action, fill(fields, values), page.charset, fetched, seen)
            if isinstance(answer, int):
                return answer
            outcome = post_answer(answer.url, answer.text, made)
            if isinstance(outcome, Stored):
                if outcome.remote_id is None:
                    if made == "topic":
                        raise ParseError(N_("{url}: posted, but the topic's id is not in the answer"), url=answer.url)
                    raise ParseError(N_("{url}: posted, but the post's id is not in the answer"), url=answer.url)
                return outcome.remote_id
            if not isinstance(outcome, RefusedForNow):
                raise self._refused(form_url, answer, outcome, "the forum did not post")
            if outcome.why == "flood":
                floods += 1
                found = self._after_flood(floods, form_url, seen)
                if found is not None:
                    return found
                page = self.http.get(form_url)
            elif outcome.why == "form_invalid":
                invalid += 1
                if invalid > 1:
                    raise ForumError(
                        N_("{form_url}: the forum refused the form twice: {said}"), form_url=form_url, said=outcome.said
                    )
                page = self.http.get(form_url)
            else:
                # Someone posted since the form was issued: phpBB stored nothing and served the form again
                # with the new topic_cur_post_id; submitting that form as it is posts the reply.
                reviews += 1
                if reviews > MAX_REVIEWS:
                    raise ForumError(
                        N_("{form_url}: others keep posting; the reply was shown for review {reviews} times"),
                        form_url=form_url,
                        reviews=reviews,
                    )
                page = answer

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
        invalid = floods = 0
        ahead = self._take_prepared(names)
        while True:
            addressed, fetched = self._addressed(compose, names, ahead)
            ahead = None  # a second attempt always starts from a fresh form
            action, fields = self._served(addressed, compose, press="post")
            fields = [(k, v) for k, v in fields if k != "username_list"]
            fields = fill(fields, {"subject": subject, "message": message})
            answer = self._submit_once(action, fields, addressed.charset, fetched, seen)
            if isinstance(answer, int):
                return answer
            outcome = pm_answer(answer.text)
            if isinstance(outcome, Stored):
                return outcome.remote_id  # None: a message page with no error and no form, its id not shown
            if not isinstance(outcome, RefusedForNow):
                raise self._refused(compose, answer, outcome, f"the PM to {', '.join(names)} was not sent")
            if outcome.why == "flood":
                floods += 1
                found = self._after_flood(floods, compose, seen)
                if found is not None:
                    return found
            else:
                invalid += 1
                self._prepared.clear()  # forms addressed as long ago as this one are suspect too
                if invalid > 1:
                    raise ForumError(
                        N_("{compose}: the forum refused the PM form twice: {said}"), compose=compose, said=outcome.said
                    )

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
        raise ForumError(
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
        board returns."""
        page = self.http.get(compose)
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
        answers a lock it did not make with a plain redirect). A refusal is a result, not an error."""
        if self.topic_locked(topic_id):
            return LockResult(locked=True, already=True)
        where = f"f={forum_id}&" if forum_id is not None else ""
        url = self.http.url(f"mcp.php?{where}t={topic_id}&quickmod=1&action=lock")
        said = ""
        try:
            page = self.http.get(url)
            confirm = confirm_form(page.text)
            if confirm is None:
                said = forum_message(page.text) or "no confirmation form"
            else:
                action, fields = confirm
                answer = self.http.post(self.http.rebase(action or url), fields, charset=page.charset, content=True)
                said = forum_message(answer.text) or ""
        except NoPermission as exc:
            said = str(exc)
        except ParseError as exc:
            said = str(exc)
        if self.topic_locked(topic_id):
            return LockResult(locked=True)
        return LockResult(locked=False, reason=said or "the board did not lock it")

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
            page = self.http.get(url)
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
            page = self.http.get(self.http.url(f"ucp.php?i=pm&mode=view&f={folder_id}&p={pm_id}"))
            if marker in pages.parse_pm(page.text, url=page.url).body_html:
                return pm_id
        return None

    def _folder(self, folder: str) -> Iterator[PmSummary]:
        url: str | None = self.http.url(f"ucp.php?i=pm&folder={folder}")
        visited: set[str] = set()
        while url is not None and url not in visited and len(visited) < MAX_FOLDER_PAGES:
            visited.add(url)
            page = self.http.get(url)
            summaries, next_link = pages.parse_pm_inbox(page.text, url=page.url)
            yield from summaries
            url = self.http.rebase(next_link) if next_link else None

    # -- helpers ----------------------------------------------------------------------------------

    def _served(self, page: Page, url: str, *, press: str) -> tuple[str, Fields]:
        """The posting / compose form of the page as a browser would submit it with button `press`;
        a message page instead is the forum's refusal."""
        root = parse_html(page.text)
        form = find_form(root, "postform")
        if form is not None:
            return self.http.rebase(form.get("action") or url), browser_fields(form, press=press)
        refused = form_missing(page.text)
        if refused.why == "no_permission":
            raise NoPermission(N_("{url}: {said}"), url=url, said=refused.said)
        raise ForumError(N_("{url}: no form to fill in: {said}"), url=url, said=refused.said)

    def _submit(self, action: str, fields: Fields, charset: str, fetched: float) -> Page:
        """POST a filled form once: no sooner than phpBB's one second after the form was issued, nor than
        the flood interval after the last submission once the board has shown it keeps one."""
        clock = self.http.clock
        ready = fetched + FORM_MIN_AGE
        if self._flooded and self._last_submit is not None:
            ready = max(ready, self._last_submit + self.flood_interval)
        clock.sleep(max(0.0, ready - clock.time()))
        try:
            return self.http.post(action, fields, charset=charset, content=True, idempotent=False)
        finally:
            self._last_submit = clock.time()

    def _submit_once(
        self, action: str, fields: Fields, charset: str, fetched: float, seen: Callable[[], int | None] | None
    ) -> Page | int:
        """`_submit`, and when the board may have acted on it without saying so (`MaybeSent`), what it
        made: the id found by its marker. Without a marker, or not found yet, the error stands: the run
        that tries again looks for the marker before sending (a board may act after the answer failed)."""
        try:
            return self._submit(action, fields, charset, fetched)
        except MaybeSent as exc:
            try:
                found = seen() if seen is not None else None
            except ForumbotError as lookup:  # the search failed too: the original doubt stands
                raise MaybeSent(
                    N_("{error}; looking for its marker failed ({lookup}): nothing was sent again"),
                    error=exc,
                    lookup=lookup,
                ) from exc
            if found is not None:
                return found
            hint = "; its marker is not on the board yet" if seen is not None else ""
            raise MaybeSent(N_("{error}{hint}: nothing was sent again"), error=exc, hint=hint) from exc

    def _after_flood(self, floods: int, url: str, seen: Callable[[], int | None] | None) -> int | None:
        """After "too soon": what an earlier attempt may have posted after all, else wait and return None."""
        self._flooded = True
        if floods > self.max_flood_waits:
            raise ForumError(
                N_("{url}: flood control refused {floods} attempts {flood_interval:g} s apart"),
                url=url,
                floods=floods,
                flood_interval=self.flood_interval,
            )
        if seen is not None:
            found = seen()
            if found is not None:
                return found
        clock = self.http.clock
        since = self._last_submit if self._last_submit is not None else clock.time()
        clock.sleep(max(0.0, since + self.flood_interval - clock.time()))
        return None

    def _refused(self, url: str, answer: Page, outcome: Outcome, failed: str) -> ForumError:
        """The error for an answer that stored nothing (`failed` says what, for the board's own error)."""
        if isinstance(outcome, RefusedForGood) and outcome.why == "rejected":
            return ForumError(f"{url}: {failed}: {outcome.said}")
        if isinstance(outcome, RefusedForGood) and outcome.why == "too_many_recipients":
            kept = outcome.limit or 0
            return TooManyRecipients(f"{url}: {outcome.said} (the board kept {kept}); PM not sent", kept)
        if isinstance(outcome, RefusedForGood) and outcome.why == "held_for_approval":
            return HeldForApproval(f"{url}: the forum holds the post for a moderator's approval: {outcome.said}")
        if isinstance(outcome, RefusedForGood | LoggedOut):
            return refusal_error(outcome, f"{url}: {outcome.said}")
        said = outcome.said if isinstance(outcome, Unknown) else ""
        return ForumError(f"{url}: unexpected answer ({answer.url}): {said or 'no message'}")


def writer_for(client: ForumClient, flood_interval: float = FLOOD_INTERVAL) -> PhpbbPoster:
    """The poster of a phpBB client (the registry's writer factory)."""
    if not isinstance(client, PhpbbClient):
        raise ConfigError(N_("{forum}: not read as a phpBB board, so not written as one"), forum=client.forum)
    return PhpbbPoster(client, flood_interval=flood_interval)
