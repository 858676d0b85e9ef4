"""Writing to a phpBB 3.x board: new topics, replies, locking a topic, private messages, and finding
what was written after a crash (by a marker string written into the text).

    poster = PhpbbPoster(client)                      # a logged-in-on-demand PhpbbClient
    topic = poster.post_topic(4, "Mafia-1. День 2", body)
    poster.lock_topic(3)                              # False when the account may not lock
    poster.send_pm(["Alice"], "Mafia-1: ваша роль", text)
    poster.find_marker_in_forum(4, "Mafia-1. День 2", marker)   # the topic id, or None

Every request goes through the client's `ForumHttp` (login state, retries, error mapping); the pages are
read by the pure functions at the top of this module. What phpBB's forms want (see
/work/shared/phpbb/README.md, "Forms"):

- a fresh form for every submission (`form_token`, `creation_time`; a reply form also carries
  `topic_cur_post_id`), submitted more than a second after it was fetched, else "The submitted form was
  invalid" (then the form is fetched once more);
- a reply to a topic someone posted in since the form was fetched is shown for review, not posted: the
  form is fetched again and the reply submitted again;
- flood control ("You cannot make another post so soon after your last.", posts and PMs alike): wait the
  board's interval and submit again, never twice the same text: when a marker is given, the forum is
  searched for it before a new attempt, in case an earlier attempt went through unseen;
- PMs in two steps: `username_list` + `add_to` (the form comes back with `address_list[u][ID]=to` and
  fresh tokens), then `subject`, `message`, `post`;
- locking through the moderators' quick-mod link and its confirmation page; a refusal is `False`.

Errors: a refusal for permissions (or a locked topic) is `NoPermission`; an unknown PM recipient is a
`ForumError` naming the nick; any other answer that is neither a success nor a known refusal is a
`ForumError` quoting the forum's message.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

from forumbot.errors import ConfigError, ForumError, NoPermission, ParseError
from forumbot.forum import phpbb
from forumbot.forum.client import FORM_MIN_AGE, PhpbbClient
from forumbot.forum.http import Page
from forumbot.forum.markup import Element, first_class, form_fields, iter_class, parse_html, query_int, text_of
from forumbot.forum.models import PmSummary

__all__ = [
    "ForumTopicRow",
    "PhpbbPoster",
    "Poster",
    "confirm_form",
    "forum_message",
    "form_error",
    "has_post_review",
    "parse_forum_topics",
    "poster_for",
    "sent_pm_id",
]

FLOOD_INTERVAL = 15.0  # seconds: phpBB's default flood_interval, for posts and PMs alike
MAX_FLOOD_WAITS = 4
MAX_REVIEWS = 3  # replies shown for review in a row (a busy topic) before giving up
MAX_FOLDER_PAGES = 20
MAX_CANDIDATES = 40  # topics or PMs opened when looking for a marker

# phpBB's messages, English and Russian language packs.
_FLOOD = re.compile(r"so soon after your last|так скоро после|сразу после (вашего )?предыдущего", re.I)
_FORM_INVALID = re.compile(r"submitted form was invalid|форма недействительна|неверная форма", re.I)
_PM_SENT = re.compile(r"message has been sent successfully|сообщение (было )?успешно отправлено", re.I)
_NO_USERS = re.compile(r"users to be added do not exist|пользовател\w* не существу", re.I)
_NEEDS_APPROVAL = re.compile(r"need to be approved|approved by a moderator|одобрен\w* модератор", re.I)
_LOCKED_NOW = re.compile(r"topic has been locked|topic is already locked|тема (была )?закрыта|уже закрыта", re.I)
_REFUSED = re.compile(r"topic is locked|тема закрыта|not authori[sz]ed|нет (прав|доступа)|не авторизованы", re.I)


# --- pages -> data (pure) ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ForumTopicRow:
    """One topic in a forum's list (`viewforum.php`)."""

    topic_id: int
    title: str
    author: str  # who started it


def parse_forum_topics(html: str | Element) -> list[ForumTopicRow]:
    """The topics listed on a `viewforum.php` page, in the page's order: `a.topictitle` to
    `viewtopic.php?t=N` in a `dl.row-item`, the starter in `div.topic-poster`."""
    root = parse_html(html)
    rows: list[ForumTopicRow] = []
    for dl in iter_class(root, "dl", "row-item"):
        link = first_class(dl, "a", "topictitle")
        topic_id = query_int(link.get("href"), "t") if link is not None else None
        if link is None or topic_id is None:
            continue
        poster = first_class(dl, "div", "topic-poster")
        name = next((el for el in (poster if poster is not None else dl).iter("a", "span") if _is_username(el)), None)
        rows.append(ForumTopicRow(topic_id, text_of(link), text_of(name)))
    return rows


def _is_username(el: Element) -> bool:
    return any(name in (el.get("class") or "").split() for name in ("username", "username-coloured"))


def form_error(html: str | Element) -> str | None:
    """The error phpBB printed above a posting or PM form (`p.error`), if any."""
    error = first_class(parse_html(html), "p", "error")
    text = text_of(error)
    return text or None


def forum_message(html: str | Element) -> str | None:
    """The text of a phpBB message page (`div#message`: information, refusals), if the page is one."""
    root = parse_html(html)
    panel = next((div for div in root.iter("div") if div.get("id") == "message"), None)
    return text_of(panel) if panel is not None else None


def has_post_review(html: str | Element) -> bool:
    """phpBB showed the posts made since the form was fetched, instead of posting the reply."""
    return any(div.get("id") == "post_review" for div in parse_html(html).iter("div"))


def confirm_form(html: str | Element) -> dict[str, str] | None:
    """The hidden fields and `_action` of a confirmation page (`form#confirm`), or None."""
    root = parse_html(html)
    form = next((f for f in root.iter("form") if f.get("id") == "confirm"), None)
    return form_fields(form, text_fields=False) if form is not None else None


def sent_pm_id(html: str | Element) -> int | None:
    """The id of the PM just sent, from the "view your message" link of the success page."""
    root = parse_html(html)
    panel = next((div for div in root.iter("div") if div.get("id") == "message"), root)
    for a in panel.iter("a"):
        href = a.get("href") or ""
        if "mode=view" in href:
            found = query_int(href, "p")
            if found is not None:
                return found
    return None


# --- the interface publishing needs ----------------------------------------------------------------


class Poster(Protocol):
    """What `forumbot.publish` asks of a forum it writes to (phpBB's `PhpbbPoster` is the one there is)."""

    @property
    def username(self) -> str: ...

    def post_topic(self, forum_id: int, subject: str, message: str, *, marker: str | None = None) -> int: ...

    def post_reply(self, topic: int | str, subject: str, message: str, *, marker: str | None = None) -> int: ...

    def lock_topic(self, topic_id: int, forum_id: int | None = None) -> bool: ...

    def send_pm(
        self, recipients: Sequence[str], subject: str, message: str, *, marker: str | None = None
    ) -> int | None: ...

    def find_marker_in_forum(self, forum_id: int, subject: str, marker: str) -> int | None: ...

    def find_marker_in_topic(self, topic_id: int, marker: str) -> int | None: ...

    def find_marker_in_sent(
        self, marker: str, *, subject: str | None = None, recipients: Sequence[str] = ()
    ) -> int | None: ...


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

    @property
    def username(self) -> str:
        """The account's name on the forum: what is looked for is what this account wrote."""
        return self._username

    # -- posts ------------------------------------------------------------------------------------

    def post_topic(self, forum_id: int, subject: str, message: str, *, marker: str | None = None) -> int:
        """A new topic in forum `forum_id`; returns its id."""
        form = self.http.url(f"posting.php?mode=post&f={forum_id}")
        seen = (lambda: self.find_marker_in_forum(forum_id, subject, marker)) if marker else None
        return self._post(form, {"subject": subject, "message": message}, self._topic_of, seen)

    def post_reply(self, topic: int | str, subject: str, message: str, *, marker: str | None = None) -> int:
        """A reply in `topic` (an id or a topic URL; an empty subject keeps phpBB's "Re: ..."); returns the
        post's id."""
        topic_id = self.client.topic_id(topic)
        form = self.http.url(f"posting.php?mode=reply&t={topic_id}")
        values = {"message": message} | ({"subject": subject} if subject else {})
        seen = (lambda: self.find_marker_in_topic(topic_id, marker)) if marker else None
        return self._post(form, values, self._post_of, seen)

    def _post(
        self,
        form_url: str,
        values: dict[str, str],
        result: Callable[[Page], int],
        seen: Callable[[], int | None] | None,
    ) -> int:
        invalid = floods = reviews = 0
        while True:
            page = self.http.get(form_url)
            fetched = self.http.clock.time()
            fields = self._form(page, form_url)
            action = self.http.rebase(fields.pop("_action") or form_url)
            fields.update(values)
            fields["post"] = "Submit"
            answer = self._submit(action, fields, page.charset, fetched)
            if "viewtopic.php" in answer.url:
                return result(answer)
            error = form_error(answer.text)
            if error and _FLOOD.search(error):
                floods += 1
                found = self._after_flood(floods, form_url, seen)
                if found is not None:
                    return found
            elif error and _FORM_INVALID.search(error):
                invalid += 1
                if invalid > 1:
                    raise ForumError(f"{form_url}: the forum refused the form twice: {error}")
            elif error:
                raise ForumError(f"{form_url}: the forum did not post: {error}")
            elif has_post_review(answer.text):
                reviews += 1
                if reviews > MAX_REVIEWS:
                    raise ForumError(f"{form_url}: others keep posting; the reply was shown for review {reviews} times")
            else:
                raise self._unexpected(form_url, answer)

    def _topic_of(self, page: Page) -> int:
        found = query_int(page.url, "t")
        if found is None:
            found = phpbb.parse_topic_page(page.text, url=page.url).topic_id
        if found is None:
            raise ParseError(f"{page.url}: posted, but the topic's id is not in the answer")
        return found

    def _post_of(self, page: Page) -> int:
        found = query_int(page.url, "p")
        if found is None:
            raise ParseError(f"{page.url}: posted, but the post's id is not in the answer")
        return found

    # -- private messages -------------------------------------------------------------------------

    def send_pm(
        self, recipients: Sequence[str], subject: str, message: str, *, marker: str | None = None
    ) -> int | None:
        """One PM to `recipients` (their forum names); returns its id when the forum says it."""
        names: list[str] = []  # phpBB's names ignore case: one address per member
        for name in (n.strip() for n in recipients):
            if name and name.casefold() not in {known.casefold() for known in names}:
                names.append(name)
        if not names:
            raise ValueError("a PM needs at least one recipient")
        compose = self.http.url("ucp.php?i=pm&mode=compose")
        seen = (lambda: self.find_marker_in_sent(marker, subject=subject, recipients=names)) if marker else None
        invalid = floods = 0
        while True:
            form, fetched, charset = self._addressed(compose, names)
            action = self.http.rebase(form.pop("_action") or compose)
            form.update(subject=subject, message=message, post="Submit")
            answer = self._submit(action, form, charset, fetched)
            text = forum_message(answer.text)
            if text is not None and _PM_SENT.search(text):
                return sent_pm_id(answer.text)
            error = form_error(answer.text)
            if error and _FLOOD.search(error):
                floods += 1
                found = self._after_flood(floods, compose, seen)
                if found is not None:
                    return found
            elif error and _FORM_INVALID.search(error):
                invalid += 1
                if invalid > 1:
                    raise ForumError(f"{compose}: the forum refused the PM form twice: {error}")
            elif error:
                raise ForumError(f"{compose}: the PM to {', '.join(names)} was not sent: {error}")
            else:
                raise self._unexpected(compose, answer)

    def _addressed(self, compose: str, names: list[str]) -> tuple[dict[str, str], float, str]:
        """A fresh compose form with the recipients added (step one); its fields, when its tokens were
        issued, and its charset."""
        page = self.http.get(compose)
        fields = self._form(page, compose)
        action = self.http.rebase(fields.pop("_action") or compose)
        fields = {k: v for k, v in fields.items() if not k.startswith("address_list")}
        fields.update(username_list="\n".join(names), add_to="Add")
        added = self.http.post(action, fields, charset=page.charset, content=True)
        fetched = self.http.clock.time()
        error = form_error(added.text)
        if error and _NO_USERS.search(error):
            unknown = self._unknown(compose, names) or names
            raise ForumError(f"no member of the forum is called {', '.join(map(repr, unknown))}: PM not sent")
        step2 = self._form(added, compose)
        addressed = [k for k, v in step2.items() if k.startswith("address_list[") and v in ("to", "bcc")]
        if len(addressed) < len(names):
            why = f": {error}" if error else ""
            raise ForumError(f"the forum took {len(addressed)} of the PM's recipients {', '.join(names)}{why}")
        step2.pop("username_list", None)
        return step2, fetched, added.charset

    def _unknown(self, compose: str, names: list[str]) -> list[str]:
        """Which of `names` the forum does not know (one "add" per name: phpBB does not say which)."""
        unknown: list[str] = []
        for name in names:
            page = self.http.get(compose)
            fields = self._form(page, compose)
            action = self.http.rebase(fields.pop("_action") or compose)
            fields.update(username_list=name, add_to="Add")
            answer = self.http.post(action, fields, charset=page.charset, content=True)
            error = form_error(answer.text)
            if error and _NO_USERS.search(error):
                unknown.append(name)
        return unknown

    # -- locking ----------------------------------------------------------------------------------

    def lock_topic(self, topic_id: int, forum_id: int | None = None) -> bool:
        """Lock the topic through the moderators' quick-mod tool and its confirmation. True when it is
        locked (now or already); False when the forum says the account may not."""
        where = f"f={forum_id}&" if forum_id is not None else ""
        url = self.http.url(f"mcp.php?{where}t={topic_id}&quickmod=1&action=lock")
        try:
            for _ in range(2):  # a confirmation made in a session that expired meanwhile is asked again
                page = self.http.get(url)
                fields = confirm_form(page.text)
                if fields is None:
                    return self._locked(url, page)
                action = self.http.rebase(fields.pop("_action") or url)
                fields["confirm"] = "Yes"
                answer = self.http.post(action, fields, charset=page.charset, content=True)
                if confirm_form(answer.text) is None:
                    return self._locked(url, answer)
        except NoPermission:
            return False
        raise ForumError(f"{url}: the forum asked for confirmation again and again; topic {topic_id} not locked")

    def _locked(self, url: str, page: Page) -> bool:
        text = forum_message(page.text) or ""
        if _LOCKED_NOW.search(text):
            return True
        if _REFUSED.search(text):
            return False
        raise ForumError(f"{url}: the topic was not locked: {text or 'unexpected answer'}")

    # -- finding what was written -----------------------------------------------------------------

    def find_marker_in_forum(self, forum_id: int, subject: str, marker: str) -> int | None:
        """The topic on the forum's first page, started by this account, whose first post holds
        `marker`; topics titled `subject` are opened first. None if there is none."""
        page = self.http.get(self.http.url(f"viewforum.php?f={forum_id}"))
        me = self.username.casefold()
        mine = [row for row in parse_forum_topics(page.text) if row.author.casefold() == me]
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
        """The last post of this account in the topic that holds `marker` (quotes of it by others do not
        count), or None."""
        me = self.username.casefold()
        found: int | None = None
        for page in self.client.fetch_topic(topic_id):
            for post in page.posts:
                if post.author.casefold() == me and marker in post.content_html:
                    found = post.post_id
        return found

    def find_marker_in_sent(
        self, marker: str, *, subject: str | None = None, recipients: Sequence[str] = ()
    ) -> int | None:
        """A PM of this account, in its outbox (not yet delivered) or its sent messages, holding `marker`;
        the ones with that subject and recipient are opened first. None if there is none."""
        rows: list[tuple[int, str, str, int]] = []  # pm id, subject, first recipient, folder id
        for folder, folder_id in (("outbox", -2), ("sentbox", -1)):
            rows += [(s.pm_id, s.subject, s.sender, folder_id) for s in self._folder(folder)]
        wanted = " ".join((subject or "").split())
        names = {name.casefold() for name in recipients}

        def rank(row: tuple[int, str, str, int]) -> int:
            same_subject = bool(wanted) and " ".join(row[1].split()) == wanted
            same_to = bool(names) and row[2].casefold() in names
            return 0 if same_subject and same_to else 1 if same_subject else 2 if same_to else 3

        candidates = sorted((row for row in rows if rank(row) < 3 or not (wanted or names)), key=rank)
        for pm_id, _, _, folder_id in candidates[:MAX_CANDIDATES]:
            page = self.http.get(self.http.url(f"ucp.php?i=pm&mode=view&f={folder_id}&p={pm_id}"))
            if marker in phpbb.parse_pm(page.text, url=page.url).body_html:
                return pm_id
        return None

    def _folder(self, folder: str) -> Iterator[PmSummary]:
        url: str | None = self.http.url(f"ucp.php?i=pm&folder={folder}")
        visited: set[str] = set()
        while url is not None and url not in visited and len(visited) < MAX_FOLDER_PAGES:
            visited.add(url)
            page = self.http.get(url)
            summaries, next_link = phpbb.parse_pm_inbox(page.text, url=page.url)
            yield from summaries
            url = self.http.rebase(next_link) if next_link else None

    # -- helpers ----------------------------------------------------------------------------------

    def _form(self, page: Page, url: str) -> dict[str, str]:
        """The posting / compose form of the page; a message page instead is the forum's refusal."""
        root = parse_html(page.text)
        if any(form.get("id") == "postform" for form in root.iter("form")):
            return phpbb.parse_posting_form(root)
        text = forum_message(root)
        if text is not None and _REFUSED.search(text):
            raise NoPermission(f"{url}: {text}")
        raise ForumError(f"{url}: no form to fill in: {text or 'unexpected page'}")

    def _submit(self, action: str, fields: dict[str, str], charset: str, fetched: float) -> Page:
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

    def _after_flood(self, floods: int, url: str, seen: Callable[[], int | None] | None) -> int | None:
        """After "too soon": what an earlier attempt may have posted after all, else wait and return None."""
        self._flooded = True
        if floods > self.max_flood_waits:
            raise ForumError(f"{url}: flood control refused {floods} attempts {self.flood_interval:g} s apart")
        if seen is not None:
            found = seen()
            if found is not None:
                return found
        clock = self.http.clock
        since = self._last_submit if self._last_submit is not None else clock.time()
        clock.sleep(max(0.0, since + self.flood_interval - clock.time()))
        return None

    def _unexpected(self, url: str, answer: Page) -> ForumError:
        text = forum_message(answer.text)
        if text is not None and _NEEDS_APPROVAL.search(text):
            return ForumError(f"{url}: the forum holds the post for a moderator's approval: {text}")
        if text is not None and _REFUSED.search(text):
            return NoPermission(f"{url}: {text}")
        return ForumError(f"{url}: unexpected answer ({answer.url}): {text or 'no message'}")


def poster_for(client: object, *, flood_interval: float = FLOOD_INTERVAL) -> PhpbbPoster:
    """The poster for a forum client: phpBB boards only (IPB and saved pages are read, never written)."""
    if isinstance(client, PhpbbClient):
        return PhpbbPoster(client, flood_interval=flood_interval)
    forum = getattr(client, "forum", "this forum")
    dialect = getattr(client, "dialect", "?")
    raise ConfigError(f"{forum}: forumbot posts on phpBB boards only (this forum is read as {dialect})")
