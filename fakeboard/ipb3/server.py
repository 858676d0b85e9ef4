"""A fake Invision Power Board 3.4 (the Russian skin) over the shared `Board` state, for tests.

    board = Board(language="ru", timezone="Europe/Moscow")
    board.add_user("Ведущий", "secret", moderator=True)
    with Ipb3Server(board) as server:
        client = Ipb3Client(server.url, username="Ведущий", password="secret")

Pages are rendered from skeletons cut out of pages IPB 3.4.6's compiled Russian skin produced
(`skeletons/`): `index.php?showtopic=T&page=N`, `showforum=F&page=N`, the sign-in page
(`app=core&module=global&section=login`), the posting form (`app=forums&module=post&section=post`,
`do=new_post|reply_post`, submitted as `new_post_do|reply_post_do`), the moderators' links
(`app=forums&module=moderate&section=moderate&do=00|01&auth_key=`), the Messenger
(`app=members&module=messaging`: the `myconvo` folder, conversations with pages, the compose form, replies).
What it emulates, as IPB 3.4 does it:

- sessions in cookies (`session_id`, `member_id`, `pass_hash`); a guest gets the sign-in page where a
  member is needed; every form and moderators' link carries the member's form hash (`auth_key`, the
  Messenger's replies `authKey`) and a wrong one is refused;
- post times as `abbr.published[title]` (UTC) with the printed date in the board's zone («Сегодня, 10:00»,
  «Вчера, 12:00», «29 ноября 2026 - 20:31»), folder rows dated without the time unless today or yesterday;
  BBCode stored as the 3.4 editor stores it (`<strong class='bbc'>`, `<span style='color: red'>`,
  `blockquote.ipsBlockquote`);
- error pages with IPB 3's statuses (its showError sends 401 unless told otherwise: 403 for flood control,
  a wrong form hash or a refusal, 404 for a missing topic), in its words where the captured exchanges
  (`fixtures/ipb-real/ipb34/`, replayed by `tests/fakeboard/ipb3/test_conformance.py`) show them; a
  guest's error page carries the sign-in form;
- every success is a silent 302: a new topic to `showtopic=T`, a reply to `showtopic=T&p=P`, with friendly
  URLs (`friendly_urls`, on by default as in a fresh install) `index.php?/topic/T-slug/` and `…/?p=P`, and
  the pages' own links friendly too; a new conversation to `…do=findMessage&topicID=C&msgID=M`; the sign-in
  to the referer; the moderators' close or open to the forum;
- flood control (posts: the error page naming the seconds left, «Стоит делать передышку в N секунд…», on
  the form and on its submission) and the double-post guard: a post within `double_post` seconds of the
  member's last one is not made, the answer redirects to the forum's newest topic (a new topic) or to the
  topic's last post (a reply);
- a closed topic refuses replies («Вы не можете оставлять сообщения в закрытых темах»), a moderator's too
  unless `moderators_post_closed`;
- private messages are conversations: a new one per sent form, its first recipient in `entered_name` and,
  where the members' group may invite (`invites`, g_max_mass_pm), up to that many others in `inviteUsers`;
  an unknown name is the form again with its error box; replies inside it by any participant
  (`reply_in_conversation` for tests), 20 messages a page; a PM put on the board directly (`Board.send_pm`)
  is a conversation of its own; the Messenger's own flood control between new conversations
  (`pm_flood_interval`);
- closing and opening a topic by the moderators' links, refused to members who do not moderate the forum.

Faults are every fake board's (`fail_after_acting`, a `#field=value` suffix picking a request by its form or
query fields, `"GET index.php#do=00"`).
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, tzinfo
from pathlib import Path
from typing import Any, ClassVar, Unpack
from urllib.parse import quote

from markupsafe import Markup

from fakeboard.invision.server import InvisionServer, LockRefusal, day_word, whole_seconds
from fakeboard.ipb3.bbcode import ipb3_bbcode
from fakeboard.server import Request, Response, ServerOptions, number, redirect
from fakeboard.state import Board, Forum, Post, PrivateMessage, Topic, User, moderates

__all__ = ["Conversation", "Ipb3Server", "ipb3_date"]

# IPB 3.4's own words (the Russian pack), as its templates printed them (fixtures/ipb-real/ipb34/)
FLOOD_ERROR = "Стоит делать передышку в {} секунд между отправками новых тем и сообщений."
BAD_KEY = (
    "Ваш ключ безопасности, использующийся для проверки того, что именно вы отправляете данные формы не совпал "
    "с отправленным. Пожалуйста, вернитесь назад, обновите страницу и попробуйте отправить снова."
)
LOCKED_TOPIC = "Вы не можете оставлять сообщения в закрытых темах"
NO_REPLY_PERM = "У Вас нет прав оставлять сообщения в этой теме."
NO_PERMISSION = (
    "К сожалению вы не можете воспользоваться этой возможностью. Если вы еще не вошли на форум, возможно, "
    "сделав это вы сможете воспользоваться ей."
)
NO_SUCH_MEMBER = "Необходимо вручную ввести полное имя пользователя, либо выбрать его из вашего списка контактов."
# not among the captured answers: the fake's own words for them
PM_FLOOD_ERROR = "Вы должны подождать {} секунд, прежде чем отправить новое личное сообщение."
TOO_MANY_INVITES = "Вы можете пригласить не более {} пользователей."
NO_START_PERM = "У Вас нет прав создавать темы в этом форуме."
NO_TITLE = "Вы должны ввести заголовок длиной не менее 2 символов."
NO_POST = "Вы должны ввести сообщение."
NO_TOPIC = "Запрашиваемая тема не существует."
NO_FORUM = "Запрашиваемый форум не существует."
NOT_MODERATOR = "У вас нет прав для выполнения этого действия."
NO_CONVERSATION = "Переписка не найдена или у вас нет прав для ее просмотра."
WRONG_LOGIN = "Имя пользователя или пароль неверны. Пожалуйста, попробуйте снова."
BAD_ACTION = "Неверное действие."
PM_TITLE_MAX = 40  # the compose form's maxlength
TITLE_MAX = 150  # a topic title is cut to this
TOPICS_PER_PAGE = 25
ROWS_PER_PAGE = 25
MESSAGES_PER_PAGE = 20
_MONTHS = ("января февраля марта апреля мая июня июля августа сентября октября ноября декабря").split()
_SHORT_MONTHS = ("Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec").split()
LOCK_REFUSALS = {  # the error page's text, code and status
    LockRefusal.NO_TOPIC: (NO_TOPIC, "10340", 404),
    LockRefusal.NOT_MODERATOR: (NOT_MODERATOR, "103136", 403),
    LockRefusal.BAD_ACTION: (BAD_ACTION, "103137", 401),
}
SKELETONS = Path(__file__).with_name("skeletons")
_FRIENDLY = re.compile(r"^/(topic|forum|user)/(\d+)-[^/?]*/?(?:page-(\d+))?")
_SEO_DROP = re.compile(r"[^\w\s-]+")
_SEO_SPACE = re.compile(r"[\s_-]+")


def seo_title(title: str) -> str:
    """A title as IPB 3 writes it in a friendly URL (makeSeoTitle): lower case, words joined by hyphens."""
    return _SEO_SPACE.sub("-", _SEO_DROP.sub("", title.lower())).strip("-") or "-"


def ipb3_date(moment: datetime, tz: tzinfo, now: datetime, *, with_time: bool = True) -> str:
    """IPB 3.4's Russian date: «Сегодня, 10:00», «Вчера, 12:00», else «29 ноября 2026 - 20:31»; the DATE
    format of folder rows (`with_time=False`) prints older days as «29 Nov 2026»."""
    local = moment.astimezone(tz)
    clock = f"{local.hour:02d}:{local.minute:02d}"
    day = day_word(local, now.astimezone(tz))
    if day:
        return f"{day}, {clock}"
    if not with_time:
        return f"{local.day:02d} {_SHORT_MONTHS[local.month - 1]} {local.year}"
    return f"{local.day} {_MONTHS[local.month - 1]} {local.year} - {clock}"


# --- conversations ----------------------------------------------------------------------------------------


@dataclass
class Conversation:
    """A Messenger conversation: its messages are the board's PMs, oldest first."""

    conversation_id: int
    title: str
    starter: str
    participants: tuple[str, ...]
    messages: list[int] = field(default_factory=list)


class Ipb3Server(InvisionServer):
    """`board` served as IPB 3.4 would serve it (see the module's doc). `flood_interval` is the group's
    flood control between posts (0: none), `double_post` the window of the double-post guard,
    `pm_flood_interval` the time a member waits between two new conversations (0: none), `friendly_urls`
    the board's setting, `invites` how many others a conversation may invite (g_max_mass_pm, 0: none),
    `moderators_post_closed` whether moderators may reply in closed topics, `posting_refused` forums nobody
    may post in, `logins` login names of members whose display name differs."""

    skeletons = SKELETONS
    thread_name: ClassVar[str] = "ipb3-fake"

    def __init__(
        self,
        board: Board,
        *,
        double_post: float = 4.0,
        pm_flood_interval: float = 0.0,
        friendly_urls: bool = True,
        invites: int = 0,
        moderators_post_closed: bool = False,
        posting_refused: frozenset[int] = frozenset(),
        logins: dict[str, str] | None = None,
        **options: Unpack[ServerOptions],
    ) -> None:
        super().__init__(board, charset="utf-8", logins=logins, **options)
        self.posting_refused = posting_refused
        self.double_post = double_post
        self.pm_flood_interval = pm_flood_interval
        self.friendly_urls = friendly_urls
        self.invites = invites
        self.moderators_post_closed = moderators_post_closed
        self._conversations: dict[int, Conversation] = {}
        self._conversation_of: dict[int, int] = {}  # PM id -> conversation id
        self._next_conversation = 80
        self._last_conversation: dict[int, float] = {}  # member id -> when he last started one

    def _answer(self, request: Request, q: dict[str, str]) -> Response:
        q = self._unfriendly(q)
        if "showtopic" in q:
            return self._topic_page(request, q)
        if "showforum" in q:
            return self._forum_page(request, q)
        routes: dict[tuple[str, str], Callable[[Request, dict[str, str]], Response]] = {
            ("core", "global"): self._login,
            ("forums", "post"): self._post,
            ("forums", "moderate"): self._moderate,
            ("members", "messaging"): self._messenger,
            ("forums", "messaging"): self._messenger,  # the compose form's action as its template prints it
        }
        route = routes.get((q.get("app", ""), q.get("module", "")))
        if route is not None:
            return route(request, q)
        return self._page(request, "message.html", self.board.name, text="Добро пожаловать")

    @staticmethod
    def _unfriendly(q: dict[str, str]) -> dict[str, str]:
        """A friendly URL's query (`index.php?/topic/T-slug/page-2`, `…/?p=P`, `/forum/F-slug/`) as the
        plain one it stands for."""
        for key, value in q.items():
            m = _FRIENDLY.match(key)
            if m is None:
                continue
            kind, number_, page = m.groups()
            plain = {"topic": "showtopic", "forum": "showforum", "user": "showuser"}[kind]
            found = {plain: number_} | ({"page": page} if page else {})
            if key.endswith("?p"):
                found["p"] = value
            rest = {k: v for k, v in q.items() if k != key}
            return rest | found
        return q

    # -- links as the board writes them -------------------------------------------------------------

    def topic_link(self, base: str, topic_id: int, title: str, page: int = 1) -> str:
        """A topic's address as the board's links write it (friendly or plain)."""
        if self.friendly_urls:
            return f"{base}index.php?/topic/{topic_id}-{quote(seo_title(title))}/" + (
                f"page-{page}" if page > 1 else ""
            )
        return f"{base}index.php?showtopic={topic_id}" + (f"&page={page}" if page > 1 else "")

    def post_link(self, base: str, topic_id: int, title: str, post_id: int) -> str:
        """A post's permalink: its topic's address with `p=`."""
        return self.topic_link(base, topic_id, title) + (f"?p={post_id}" if self.friendly_urls else f"&p={post_id}")

    def forum_link(self, base: str, forum_id: int, name: str) -> str:
        if self.friendly_urls:
            return f"{base}index.php?/forum/{forum_id}-{quote(seo_title(name))}/"
        return f"{base}index.php?showforum={forum_id}"

    def _made(self, request: Request, topic_id: int, post_id: int | None) -> Response:
        """post.php's silent redirect: to the new topic, or to the reply by `p=`."""
        with self.board.lock:
            title = self.board._topics[topic_id].title
        if post_id is None:
            return redirect(self.topic_link(request.base_url, topic_id, title))
        return redirect(self.post_link(request.base_url, topic_id, title, post_id))

    # -- rendering ----------------------------------------------------------------------------------

    def _page_values(self, request: Request) -> dict[str, Any]:
        base = request.base_url
        return {
            "secure_hash": self.auth_key(request.user),
            "code": "",
            "root_link": base.rstrip("/"),
            "topic_link": lambda topic_id, title, page=1: self.topic_link(base, topic_id, title, page),
            "forum_link": lambda forum_id, name: self.forum_link(base, forum_id, name),
            "post_link": lambda topic_id, title, post_id: self.post_link(base, topic_id, title, post_id),
        }

    def _content_type(self) -> str:
        return "text/html; charset=UTF-8"

    def _error(self, request: Request, text: str, code: str = "10333", status: int = 401) -> Response:
        """skin_global_other Error; a guest's page carries the sign-in form (htmlOutput::displayError)."""
        values = {"error": text, "code": code, "referer": self._referer(request)}
        return self._page_as(status, request, "message.html", "Ошибка", values)

    def _referer(self, request: Request) -> str:
        asked = "&".join(f"{quote(k)}={quote(v)}" for k, v in request.query.items())
        return f"{request.base_url}index.php?{asked}"

    def _login_wall(self, request: Request, error: str = "") -> Response:
        referer = self._referer(request)
        return self._page(request, "login.html", "Вход", error=error, referer=referer, nav=[("", "Вход")])

    def _date_text(self, moment: datetime, *, with_time: bool = True) -> str:
        return ipb3_date(moment, self.tz, self._now(), with_time=with_time)

    # -- sign in ------------------------------------------------------------------------------------

    def _login(self, request: Request, q: dict[str, str]) -> Response:
        if q.get("section") != "login":
            return self._error(request, BAD_ACTION)
        action = q.get("do", "")
        if action == "logout":
            self._sign_out(request, q.get("k"))
            return self._to(request, "act=idx")
        if action != "process" or request.method != "POST":
            return self._login_wall(request)
        if request.form.get("auth_key") != self.auth_key(request.user):  # the visitor's own form hash, a guest's or not
            return self._error(request, BAD_KEY, "2010")
        form = request.form
        remember = form.get("rememberMe") == "1"
        if self._sign_in(request, form.get("ips_username", ""), form.get("ips_password", ""), remember):
            referer = form.get("referer", "")
            ours = referer.startswith(request.base_url) and "section=login" not in referer
            return redirect(referer if ours else f"{request.base_url}index.php")  # a silent 302 (login.php)
        return self._login_wall(request, WRONG_LOGIN)

    # -- topics and forums --------------------------------------------------------------------------

    def _topic_page(self, request: Request, q: dict[str, str]) -> Response:
        topic_id = number(q.get("showtopic")) or 0
        with self.board.lock:
            topic = self.board._topics.get(topic_id)
            forum = self.board._forums.get(topic.forum_id) if topic is not None else None
            if topic is None or forum is None:
                return self._error(request, NO_TOPIC, "10340", status=404)
            if not forum.public and request.user is None:
                return self._login_wall(request)
            moderator = moderates(request.user, forum)
            posts = [p for p in topic.posts if p.visible or moderator]
            per_page = self.posts_per_page
            count = max(1, (len(posts) + per_page - 1) // per_page)
            current = self._page_number(q, per_page, count, posts)
            start = (current - 1) * per_page
            shown = [self._post_view(p, n) for n, p in enumerate(posts[start : start + per_page], start + 1)]
            topic.views += 1
            title = topic.title
            first = topic.posts[0] if topic.posts else None
            starter = {"name": "", "id": 0, "date": ""}
            if first is not None:
                name, uid = self._named(first.author)
                starter = {"name": name, "id": uid, "date": self._date_text(first.time)}
            values = {
                "topic": topic,
                "posts": shown,
                "starter": starter,
                "moderator": moderator,
                "mod_links": [
                    ("01", "Открыть тему") if topic.locked else ("00", "Закрыть тему"),
                    ("02", "Переместить тему"),
                    ("05", "Изменить название"),
                    ("15", "Закрепить тему"),
                ],
                "forum_name": forum.name,
                "per_page": per_page,
                "total": len(posts),
                "current": current,
                "count": count,
                "page_link": lambda n: self.topic_link(request.base_url, topic_id, title, n),
                "nav": [(f"showforum={forum.forum_id}", forum.name), ("", topic.title)],
            }
        return self._page(request, "topic.html", f"{topic.title} - {self.board.name}", **values)

    @staticmethod
    def _page_number(q: dict[str, str], per_page: int, count: int, posts: list[Post]) -> int:
        """The page asked for: `page=N` (3.4's own links), an `st=` offset, or the page of a post."""
        if q.get("view") == "findpost" and (number(q.get("p")) or 0):
            index = next((i for i, p in enumerate(posts) if p.post_id == int(q["p"])), 0)
            return index // per_page + 1
        if q.get("view") == "getlastpost":
            return count
        if number(q.get("page")):
            return min(max(1, int(q["page"])), count)
        return min((number(q.get("st")) or 0) // per_page + 1, count)

    def _post_view(self, post: Post, position: int) -> dict[str, Any]:
        name, uid = self._named(post.author)
        edit = None
        if post.edited and post.edited_by and post.edited_at:
            edit = {"who": post.edited_by, "when": self._date_text(post.edited_at), "reason": post.edit_reason}
        deleted = f"{post.deleted_by}, {self._date_text(post.deleted_at)}" if post.deleted and post.deleted_at else ""
        return {
            "id": post.post_id,
            "number": position,
            "author": name,
            "author_id": uid,
            "author_posts": self.board._post_counts.get(post.author, 0),
            "iso": post.time.astimezone(UTC).replace(microsecond=0).isoformat(),
            "date": self._date_text(post.time),
            "body": Markup(post.body if post.html else ipb3_bbcode(post.body)),
            "edit": edit,
            "hidden": not post.visible,
            "deleted": deleted,
        }

    def _forum_page(self, request: Request, q: dict[str, str]) -> Response:
        forum_id = number(q.get("showforum")) or 0
        with self.board.lock:
            forum = self.board._forums.get(forum_id)
            if forum is None:
                return self._error(request, NO_FORUM, "10332", status=404)
            if not forum.public and request.user is None:
                return self._login_wall(request)
            topics = self._forum_topics(forum)
            count = max(1, (len(topics) + TOPICS_PER_PAGE - 1) // TOPICS_PER_PAGE)
            current = min(max(1, number(q.get("page")) or 1), count)
            start = (current - 1) * TOPICS_PER_PAGE
            rows = [self._topic_row(t) for t in topics[start : start + TOPICS_PER_PAGE]]
        values = {
            "forum": forum,
            "topics": rows,
            "per_page": TOPICS_PER_PAGE,
            "current": current,
            "count": count,
            "page_link": lambda n: (
                self.forum_link(request.base_url, forum_id, forum.name) + (f"page-{n}" if n > 1 else "")
                if self.friendly_urls
                else f"{request.base_url}index.php?showforum={forum_id}" + (f"&page={n}" if n > 1 else "")
            ),
            "nav": [("", forum.name)],
        }
        return self._page(request, "forum.html", f"{forum.name} - {self.board.name}", **values)

    # -- posting ------------------------------------------------------------------------------------

    def _post(self, request: Request, q: dict[str, str]) -> Response:
        user = request.user
        if user is None:
            return self._error(request, NO_PERMISSION, "2", status=403)
        action = q.get("do", "")
        if action not in ("new_post", "new_post_do", "reply_post", "reply_post_do"):
            return self._error(request, BAD_ACTION, "103125")
        forum_id, topic_id = number(q.get("f")) or 0, number(q.get("t")) or 0
        replying = action.startswith("reply")
        with self.board.lock:
            forum = self.board._forums.get(forum_id)
            topic = self.board._topics.get(topic_id) if replying else None
            if forum is None or (replying and (topic is None or topic.forum_id != forum_id)):
                return self._error(request, NO_TOPIC, "10340", status=404)
            if forum_id in self.posting_refused:
                return self._error(request, NO_REPLY_PERM if replying else NO_START_PERM, "103134", status=403)
            if topic is not None and topic.locked and not (self.moderators_post_closed and moderates(user, forum)):
                return self._error(request, LOCKED_TOPIC, "103134", status=403)
        wait = self._flood_wait(user)
        if wait:
            return self._error(request, FLOOD_ERROR.format(wait), "103128", status=403)
        if request.method != "POST" or not action.endswith("_do") or q.get("preview"):
            return self._posting_form(request, forum, topic, message=request.form.get("Post", ""))
        if request.form.get("auth_key") != self.auth_key(user):
            return self._error(request, BAD_KEY, "20310", status=403)
        guarded = self._double_post_guard(request, user, forum, topic)
        return guarded if guarded is not None else self._save_post(request, user, forum, topic)

    def _posting_form(
        self, request: Request, forum: Forum, topic: Topic | None, error: str = "", **typed: str
    ) -> Response:
        heading = f"Ответ в тему {topic.title}" if topic is not None else f"Создание новой темы в {forum.name}"
        cancel = f"showtopic={topic.topic_id}" if topic is not None else f"showforum={forum.forum_id}"
        values = {
            "heading": heading,
            "forum_id": forum.forum_id,
            "topic_id": topic.topic_id if topic is not None else None,
            "do_code": "reply_post_do" if topic is not None else "new_post_do",
            "post_key": secrets.token_hex(16),
            "editor_id": secrets.token_hex(4),
            "error": error,
            "subject": typed.get("subject", ""),
            "message": typed.get("message", ""),
            "button": "Добавить ответ" if topic is not None else "Создать тему",
            "cancel": cancel,
            "nav": [(f"showforum={forum.forum_id}", forum.name)],
        }
        return self._page(request, "posting.html", heading, **values)

    def _double_post_guard(self, request: Request, user: User, forum: Forum, topic: Topic | None) -> Response | None:
        """IPB 3's checkDoublePost: within `double_post` seconds of the member's last post nothing is made;
        a new topic is answered with the forum's newest topic, a reply (to the same topic) with its last post."""
        with self._state:
            last = self._last_post.get(user.user_id)
        if last is None or self.clock() - last > self.double_post:
            return None
        with self.board.lock:
            if topic is None:
                newest = self._forum_topics(forum)
                return self._to(request, f"showtopic={newest[0].topic_id if newest else 0}")
            mine = [p for p in self.board._posts.values() if p.author == user.name]
            latest = max(mine, key=lambda p: (p.time, p.post_id), default=None)
        if latest is not None and latest.topic_id == topic.topic_id:
            return self._to(request, f"showtopic={topic.topic_id}&view=getlastpost")
        return None

    def _save_post(self, request: Request, user: User, forum: Forum, topic: Topic | None) -> Response:
        text = request.form.get("Post", "")
        title = request.form.get("TopicTitle", "").strip()
        if topic is None and len(title) < 2:
            return self._posting_form(request, forum, None, NO_TITLE, message=text)
        if not text.strip():
            return self._posting_form(request, forum, topic, NO_POST, subject=title)
        return self._store(request, user, forum, topic, title[:TITLE_MAX], text)

    # -- moderation ---------------------------------------------------------------------------------

    def _moderate(self, request: Request, q: dict[str, str]) -> Response:
        user = request.user
        if user is None:
            return self._error(request, NO_PERMISSION, "2", status=403)
        if q.get("auth_key") != self.auth_key(user):
            return self._error(request, BAD_KEY, "2030", status=403)
        done = self._close_or_open(user, number(q.get("t")) or 0, {"00": True, "01": False}.get(q.get("do", "")))
        if isinstance(done, LockRefusal):
            text, code, status = LOCK_REFUSALS[done]
            return self._error(request, text, code, status=status)
        with self.board.lock:
            forum_name = self.board._forums[done.forum_id].name
        return redirect(self.forum_link(request.base_url, done.forum_id, forum_name))  # the close's silent 302

    # -- the Messenger ------------------------------------------------------------------------------

    def conversation_of(self, pm_id: int) -> int:
        """The conversation a PM of the board is a message of."""
        with self.board.lock:
            self._sync_conversations()
            return self._conversation_of[pm_id]

    def conversation(self, conversation_id: int) -> Conversation:
        with self.board.lock:
            self._sync_conversations()
            held = self._conversations[conversation_id]
            return Conversation(held.conversation_id, held.title, held.starter, held.participants, list(held.messages))

    def reply_in_conversation(self, conversation_id: int, author: str, body: str, time: datetime | None = None) -> int:
        """A reply by a participant in a conversation, to all the others; returns the message's id."""
        with self.board.lock:
            self._sync_conversations()
            held = self._conversations[conversation_id]
            name = self.board._user(author).name
            if name not in held.participants:
                raise ValueError(f"{author!r} takes no part in conversation {conversation_id}")
            others = [p for p in held.participants if p != name]
            pm_id = self.board.send_pm(name, others, held.title, body, time)
            held.messages.append(pm_id)
            self._conversation_of[pm_id] = conversation_id
            return pm_id

    def _sync_conversations(self) -> None:
        """A PM put on the board directly is a conversation of its own (the caller holds the board's lock)."""
        for pm_id in sorted(set(self.board._pms) - set(self._conversation_of)):
            message = self.board._pms[pm_id]
            self._new_conversation(message.subject, message.sender, message.recipients, pm_id)

    def _new_conversation(self, title: str, starter: str, to: tuple[str, ...], pm_id: int) -> Conversation:
        made = Conversation(self._next_conversation, title, starter, (starter, *to), [pm_id])
        self._next_conversation += 1
        self._conversations[made.conversation_id] = made
        self._conversation_of[pm_id] = made.conversation_id
        return made

    def _messenger(self, request: Request, q: dict[str, str]) -> Response:
        user = request.user
        if user is None:
            return self._error(request, NO_PERMISSION, "2", status=403)
        section, action = q.get("section", "view"), q.get("do", "")
        if section == "send":
            sends: dict[str, Callable[[Request, User, dict[str, str]], Response]] = {
                "send": self._send_pm,
                "sendReply": self._send_reply,
            }
            if request.method == "POST" and action in sends:
                return sends[action](request, user, q)
            if action == "replyForm":
                return self._reply_form(request, user, q)
            return self._compose(request, user)
        if action == "showConversation":
            return self._conversation(request, user, q)
        if action == "findMessage":
            return self._find_message(request, user, q)
        return self._folder(request, user, q)

    def _mine(self, user: User) -> list[Conversation]:
        self._sync_conversations()
        return [c for c in self._conversations.values() if user.name in c.participants]

    def _folder(self, request: Request, user: User, q: dict[str, str]) -> Response:
        with self.board.lock:
            mine = self._mine(user)
            mine.sort(key=lambda c: (self.board._pms[c.messages[-1]].time, c.messages[-1]), reverse=True)
            count = max(1, (len(mine) + ROWS_PER_PAGE - 1) // ROWS_PER_PAGE)
            current = min((number(q.get("st")) or 0) // ROWS_PER_PAGE + 1, count)
            start = (current - 1) * ROWS_PER_PAGE
            rows = [self._folder_row(c, user) for c in mine[start : start + ROWS_PER_PAGE]]
        folder = f"{request.base_url}index.php?app=members&module=messaging&section=view&do=showFolder&folderID=myconvo"
        values = {
            "view": "folder",
            "rows": rows,
            "total_conversations": len(mine),
            "per_page": ROWS_PER_PAGE,
            "current": current,
            "count": count,
            "page_link": lambda n: folder + (f"&st={(n - 1) * ROWS_PER_PAGE}" if n > 1 else ""),
            "nav": [("app=members&amp;module=messaging", "Личные сообщения")],
        }
        return self._page(request, "msg.html", "Личные сообщения", **values)

    def _folder_row(self, conversation: Conversation, user: User) -> dict[str, Any]:
        messages = [self.board._pms[m] for m in conversation.messages]
        last = messages[-1]
        starter, starter_id = self._named(conversation.starter)
        last_name, last_id = self._named(last.sender)
        return {
            "id": conversation.conversation_id,
            "title": conversation.title,
            "starter": starter,
            "starter_id": starter_id,
            "to": [self._named(p) for p in conversation.participants if p != conversation.starter],
            "replies": len(messages) - 1,
            "last_name": last_name,
            "last_id": last_id,
            "last_msg": last.pm_id,
            "date": self._date_text(last.time, with_time=False),
            "unread": any(user.name in m.recipients and not m.is_read_by(user.name) for m in messages),
        }

    def _conversation(self, request: Request, user: User, q: dict[str, str]) -> Response:
        conversation_id = number(q.get("topicID")) or 0
        with self.board.lock:
            held = next((c for c in self._mine(user) if c.conversation_id == conversation_id), None)
            if held is None:
                return self._error(request, NO_CONVERSATION, "10229", status=403)
            count = max(1, (len(held.messages) + MESSAGES_PER_PAGE - 1) // MESSAGES_PER_PAGE)
            current = min((number(q.get("st")) or 0) // MESSAGES_PER_PAGE + 1, count)
            start = (current - 1) * MESSAGES_PER_PAGE
            shown = [self.board._pms[m] for m in held.messages[start : start + MESSAGES_PER_PAGE]]
            for message in shown:
                if user.name in message.recipients:
                    message.read_by.add(user.name)
            messages = [self._message_view(m) for m in shown]
        link = f"{request.base_url}index.php?app=members&module=messaging&section=view&do=showConversation"
        link += f"&topicID={conversation_id}"
        values = {
            "view": "conversation",
            "conversation": {"id": conversation_id, "title": held.title},
            "messages": messages,
            "total_conversations": len(self._mine(user)),
            "per_page": MESSAGES_PER_PAGE,
            "current": current,
            "count": count,
            "page_link": lambda n: link + (f"&st={(n - 1) * MESSAGES_PER_PAGE}" if n > 1 else ""),
            "nav": [("app=members&amp;module=messaging", "Личные сообщения"), ("", held.title)],
        }
        return self._page(request, "msg.html", held.title, **values)

    def _message_view(self, message: PrivateMessage) -> dict[str, Any]:
        name, uid = self._named(message.sender)
        return {
            "id": message.pm_id,
            "author": name,
            "author_id": uid,
            "date": self._date_text(message.time),
            "body": Markup(ipb3_bbcode(message.body)),
        }

    def _find_message(self, request: Request, user: User, q: dict[str, str]) -> Response:
        """`do=findMessage&topicID=C&msgID=M`: the conversation's page holding the message."""
        conversation_id, msg_id = number(q.get("topicID")) or 0, number(q.get("msgID")) or 0
        with self.board.lock:
            held = next((c for c in self._mine(user) if c.conversation_id == conversation_id), None)
            if held is None:
                return self._error(request, NO_CONVERSATION, "10229", status=403)
            index = held.messages.index(msg_id) if msg_id in held.messages else len(held.messages) - 1
        start = index // MESSAGES_PER_PAGE * MESSAGES_PER_PAGE
        target = f"app=members&module=messaging&section=view&do=showConversation&topicID={conversation_id}"
        return self._to(request, f"{target}&st={start}#msg{msg_id}")

    def _pm_flood_wait(self, user: User) -> int:
        """Whole seconds the member must still wait before starting another conversation (0: none)."""
        with self._state:
            last = self._last_conversation.get(user.user_id)
        return whole_seconds(self._wait_left(last, self.pm_flood_interval))

    def _compose(self, request: Request, user: User, error: str = "", **typed: str) -> Response:
        wait = self._pm_flood_wait(user)
        if wait and not error:
            return self._error(request, PM_FLOOD_ERROR.format(wait), "010271")
        values = {
            "view": "compose",
            "error": error,
            "post_key": secrets.token_hex(16),
            "editor_id": secrets.token_hex(4),
            "entered_name": typed.get("entered_name", ""),
            "invites": self.invites,
            "invite_users": typed.get("invite_users", ""),
            "msg_title": typed.get("msg_title", ""),
            "message_text": "",  # the form comes back without the text (fixtures/ipb-real/ipb34/13)
            "title_max": PM_TITLE_MAX,
            "total_conversations": 0,
            "nav": [("app=members&amp;module=messaging", "Личные сообщения")],
        }
        return self._page(request, "msg.html", "Создать новое сообщение", **values)

    def _send_pm(self, request: Request, user: User, q: dict[str, str]) -> Response:
        """send.php: a new conversation to `entered_name` and the names invited (`inviteUsers`, by commas:
        all in one conversation, or `sendType=copy` one each), answered with a silent 302 to its first
        message; the named `preview` and `save` buttons send nothing."""
        form = request.form
        invited = [n.strip() for n in form.get("inviteUsers", "").split(",") if n.strip()] if self.invites else []
        typed = {"entered_name": form.get("entered_name", ""), "invite_users": form.get("inviteUsers", ""),
                 "msg_title": form.get("msg_title", ""), "message": form.get("Post", "")}  # fmt: skip
        title = form.get("msg_title", "").strip()
        text = form.get("Post", "").replace("\r\n", "\n")
        if "preview" in form or "save" in form:
            return self._compose(request, user, **typed)
        if len(title) < 2:
            return self._compose(request, user, NO_TITLE, **typed)
        if len(text.strip()) < 3:
            return self._compose(request, user, NO_POST, **typed)
        if form.get("auth_key") != self.auth_key(user):
            return self._error(request, BAD_KEY, "2024", status=403)
        wait = self._pm_flood_wait(user)
        if wait:
            return self._error(request, PM_FLOOD_ERROR.format(wait), "010271")
        if len(invited) > self.invites:
            return self._compose(request, user, TOO_MANY_INVITES.format(self.invites), **typed)
        with self.board.lock:
            members = [self.board._users.get(name.lower()) for name in [form.get("entered_name", "").strip(), *invited]]
            if any(member is None for member in members):
                return self._compose(request, user, NO_SUCH_MEMBER, **typed)
            names = tuple(dict.fromkeys(m.name for m in members if m is not None))
            groups = [(name,) for name in names] if form.get("sendType") == "copy" else [names]
            now = self._now()
            made = []
            for to in groups:
                pm_id = self.board.send_pm(user.name, list(to), title[:PM_TITLE_MAX], text, now)
                made.append((self._new_conversation(title[:PM_TITLE_MAX], user.name, to, pm_id), pm_id))
        with self._state:
            self._last_conversation[user.user_id] = self.clock()
        conversation, msg_id = made[0]
        target = f"app=members&module=messaging&section=view&do=findMessage&topicID={conversation.conversation_id}"
        return self._to(request, f"{target}&msgID={msg_id}")

    def _reply_form(self, request: Request, user: User, q: dict[str, str]) -> Response:
        """A message's "reply" link (`do=replyForm&topicID=C&msgID=M`): the reply form quoting it, the quote
        naming its author and its unix time as IPB's quotes keep them."""
        conversation_id, msg_id = number(q.get("topicID")) or 0, number(q.get("msgID")) or 0
        with self.board.lock:
            held = next((c for c in self._mine(user) if c.conversation_id == conversation_id), None)
            if held is None or msg_id not in held.messages:
                return self._error(request, NO_CONVERSATION, "10229", status=403)
            quoted = self.board._pms[msg_id]
            stamp = int(quoted.time.timestamp())
            text = f"[quote name='{quoted.sender}' timestamp='{stamp}' msg='{msg_id}']{quoted.body}[/quote]\n"
        values = {"view": "reply", "conversation": {"id": conversation_id, "title": held.title}, "message_text": text,
                  "editor_id": secrets.token_hex(4), "total_conversations": 0,
                  "nav": [("app=members&amp;module=messaging", "Личные сообщения")]}  # fmt: skip
        return self._page(request, "msg.html", held.title, **values)

    def _send_reply(self, request: Request, user: User, q: dict[str, str]) -> Response:
        if request.form.get("authKey") != self.auth_key(user):
            return self._error(request, BAD_KEY, "2024", status=403)
        conversation_id = number(q.get("topicID")) or 0
        with self.board.lock:
            held = next((c for c in self._mine(user) if c.conversation_id == conversation_id), None)
        text = request.form.get("msgContent", "")
        if held is None:
            return self._error(request, NO_CONVERSATION, "10229", status=403)
        if len(text.strip()) < 2:
            return self._error(request, NO_POST, "10230")
        now = self._now()
        msg_id = self.reply_in_conversation(conversation_id, user.name, text, now)
        target = f"app=members&module=messaging&section=view&do=findMessage&topicID={conversation_id}&msgID={msg_id}"
        return self._to(request, target)
