"""A fake Invision Power Board 2.2 (the IBResource Russian build) over the shared `Board` state, for tests.

    board = Board(language="ru", timezone="Europe/Moscow")
    board.add_user("Ведущий", "secret", moderator=True)
    with Ipb2Server(board, charset="windows-1251") as server:
        client = IpbClient(server.url, username="Ведущий", password="secret")

Pages are rendered from skeletons cut out of pages IPB 2.2.2's own code produced (`skeletons/`):
`index.php?showtopic=T&st=N`, `showforum=F`, `act=Login`, `act=Post` (forms with the member's `auth_key`),
`act=Mod` (the moderators' topic form: close and open), `act=Msg` (folders `VID=in|sent`, one message,
the compose form). What it emulates, as IPB 2.2 does it:

- sessions in cookies (`session_id`, `member_id`, `pass_hash`); a guest gets the login form where a member
  is needed; every form carries the member's `auth_key` and a wrong one is refused ("ключ авторизации не
  соответствует");
- dates in the board's offset, `j.n.Y, G:i`, relative as «Сегодня, 9:30» / «Вчера, 23:58», the footer's
  «Сейчас: …»; BBCode stored as IPB 2.1+ renders it (`<!--coloro:red-->`, `<b>`, `div.quotemain`);
- the board's charset (`gb_char_set`: UTF-8 or windows-1251) for pages and for the forms posted back;
- flood control on posts (the error page naming the seconds to wait), and a submission arriving less than
  `double_submit` seconds after the member's last one silently dropped (answered as a success, nothing
  stored), as a real IPB 2 install behind its duplicate-post guard does;
- a PM kept in the sender's «Отправленные» only when the form's `add_sent` box is ticked; a PM subject cut
  to 40 characters; one recipient per PM unless `carbon_copy` names more;
- locking by the moderators' form (`act=Mod&CODE=00`), refused to members who do not moderate the forum.

Faults are every fake board's (`fail_after_acting`); since every IPB form posts to `index.php`, a POST is
picked by its form's content (`"POST index.php#act=Msg"`).
"""

from __future__ import annotations

import secrets
from datetime import datetime, tzinfo
from pathlib import Path
from typing import Any, ClassVar, Unpack
from urllib.parse import quote

from markupsafe import Markup

from fakeboard.invision.server import InvisionServer, LockRefusal, day_word
from fakeboard.ipb2.bbcode import ipb2_bbcode
from fakeboard.server import Request, Response, ServerOptions, number
from fakeboard.state import Board, Forum, Post, PrivateMessage, Topic, User, moderates

__all__ = ["Ipb2Server", "ipb2_date"]

FLOOD_ERROR = (
    "На форуме включена блокировка массовых сообщений (для предотвращения возможных атак на сервер), "
    "необходимо подождать {} секунд для публикации повторного ответа в тему или открытия новой темы"
)
AUTH_KEY_WRONG = "Извините, ключ авторизации не соответствует"
NO_SUCH_MEMBER = "Такого пользователя не обнаружено в базе данных. Проверьте орфографию введенного имени."
LOCKED_TOPIC = "Эта тема закрыта"
NOT_ALLOWED = "Вам запрещено использование этой функции"
NO_PERMISSION = "У вас нет доступа к этой странице или функции."
WRONG_LOGIN = "Ошибка авторизации. Неверное имя пользователя или пароль."
NO_TOPIC = "Тема, соответствующая введенному вами URL, не обнаружена в базе данных."
NO_TITLE = "Вы должны ввести название темы"
NO_POST = "Вы должны ввести сообщение"
BAD_REQUEST = "Некорректный запрос. Вернитесь назад и попробуйте снова"
PM_SUBJECT_MAX = 40
TITLE_MAX = 50  # a topic title is cut to this
TOPICS_PER_PAGE = 25
PMS_PER_PAGE = 50


LOCK_REFUSALS = {
    LockRefusal.NO_TOPIC: NO_TOPIC,
    LockRefusal.NOT_MODERATOR: NOT_ALLOWED,
    LockRefusal.BAD_ACTION: BAD_REQUEST,
}
SKELETONS = Path(__file__).with_name("skeletons")


def ipb2_date(moment: datetime, tz: tzinfo, now: datetime) -> str:
    """IPB 2's LONG date in the Russian build (`j.n.Y, G:i`), «Сегодня» / «Вчера» for today and yesterday."""
    local = moment.astimezone(tz)
    clock = f"{local.hour}:{local.minute:02d}"
    day = day_word(local, now.astimezone(tz))
    return f"{day}, {clock}" if day else f"{local.day}.{local.month}.{local.year}, {clock}"


class Ipb2Server(InvisionServer):
    """`board` served as IPB 2.2 would serve it (see the module's doc). `charset` is the board's
    `gb_char_set`; `flood_interval` the group's flood control in seconds (0: none); `double_submit` the
    window in which a member's second submission is dropped without a word."""

    skeletons = SKELETONS
    thread_name: ClassVar[str] = "ipb2-fake"

    def __init__(
        self, board: Board, *, charset: str = "utf-8", double_submit: float = 2.0, **options: Unpack[ServerOptions]
    ) -> None:
        super().__init__(board, charset=charset, **options)
        self.double_submit = double_submit
        self._last_submit: dict[int, float] = {}
        self._sent_copies: set[int] = set()  # PMs whose sender kept a copy in «Отправленные»

    def _answer(self, request: Request, q: dict[str, str]) -> Response:
        act = q.get("act", "").lower()
        if "showtopic" in q or act == "st":
            return self._topic_page(request, q)
        if "showforum" in q or act == "sf":
            return self._forum_page(request, q)
        routes = {"login": self._ipb_login, "post": self._post, "mod": self._moderate, "msg": self._messenger}
        route = routes.get(act)
        if route is not None:
            return route(request, q)
        return self._page(request, "message.html", "Форум", text="Добро пожаловать", refresh="")

    # -- rendering ----------------------------------------------------------------------------------

    def _page_values(self, request: Request) -> dict[str, Any]:
        return {
            "charset": self.charset,
            "sid": "",
            "st": "0",
            "input_f": "",
            "input_t": "",
            "md5": self.auth_key(request.user),
            "now_text": self._clock_text(),
        }

    def _clock_text(self) -> str:
        """The footer's «Сейчас: …»: the server's time in the board's offset, never relative."""
        local = self._now().astimezone(self.tz)
        return f"{local.day}.{local.month}.{local.year}, {local.hour}:{local.minute:02d}"

    def _error(self, request: Request, text: str) -> Response:
        return self._page(request, "message.html", "Ошибка", error=text)

    def _redirect_screen(self, request: Request, text: str, target: str) -> Response:
        link = f"{request.base_url}index.php?{target}"
        return self._page(request, "message.html", "Перенаправление", text=text, refresh=link)

    def _ipb_login_wall(self, request: Request, error: str = "") -> Response:
        referer = f"{request.base_url}index.php?{quote(request.path, safe='/')}"
        return self._page(request, "login.html", "Вход", error=error, referer=referer, nav=[("", "Вход")])

    def _date_text(self, moment: datetime) -> str:
        return ipb2_date(moment, self.tz, self._now())

    # -- topics and forums --------------------------------------------------------------------------

    def _topic_page(self, request: Request, q: dict[str, str]) -> Response:
        topic_id = number(q.get("showtopic") or q.get("t"))
        with self.board.lock:
            topic = self.board._topics.get(topic_id or 0)
            forum = self.board._forums.get(topic.forum_id) if topic is not None else None
            if topic is None or forum is None:
                return self._error(request, NO_TOPIC)
            if not forum.public and request.user is None:
                return self._ipb_login_wall(request)
            moderator = moderates(request.user, forum)
            posts = [p for p in topic.posts if p.visible or moderator]
            numbered = list(enumerate(posts, 1))
            per_page = self.posts_per_page
            if q.get("view") == "findpost" and q.get("p", "").isdigit():
                index = next((i for i, p in numbered if p.post_id == int(q["p"])), 1)
                start = (index - 1) // per_page * per_page
            else:
                start = number(q.get("st")) or 0
            start = min(start, max(0, (len(posts) - 1) // per_page * per_page))
            shown = [self._post_view(p, n) for n, p in numbered[start : start + per_page]]
            topic.views += 1
            values = {
                "topic": topic,
                "posts": shown,
                "moderator": moderator,
                "forum_name": forum.name,
                "per_page": per_page,
                "total": len(posts),
                "current": start // per_page + 1,
                "st": str(start),
                "input_f": str(forum.forum_id),
                "input_t": str(topic.topic_id),
                "nav": [(f"showforum={forum.forum_id}", forum.name)],
            }
        return self._page(request, "topic.html", f"{topic.title} - {self.board.name}", **values)

    def _post_view(self, post: Post, position: int) -> dict[str, Any]:
        edit = None
        if post.edited and post.edited_by and post.edited_at:
            edit = {"who": post.edited_by, "when": self._date_text(post.edited_at)}
        shaded = not post.visible
        css = ("post1shaded" if position % 2 else "post2shaded") if shaded else ("post1" if position % 2 else "post2")
        name = post.author if len(post.author) <= 16 else post.author[:16] + "..."
        return {
            "id": post.post_id,
            "author": post.author,
            "short_name": name,
            "author_id": self._named(post.author)[1],
            "date": self._date_text(post.time),
            "number": position,
            "body": Markup(post.body if post.html else ipb2_bbcode(post.body)),
            "edit": edit,
            "css": css,
        }

    def _forum_page(self, request: Request, q: dict[str, str]) -> Response:
        forum_id = number(q.get("showforum") or q.get("f"))
        with self.board.lock:
            forum = self.board._forums.get(forum_id or 0)
            if forum is None:
                return self._error(request, NO_PERMISSION)
            if not forum.public and request.user is None:
                return self._ipb_login_wall(request)
            topics = self._forum_topics(forum)
            start = number(q.get("st")) or 0
            rows = [self._topic_row(t) for t in topics[start : start + TOPICS_PER_PAGE]]
        values = {
            "forum": forum,
            "topics": rows,
            "per_page": TOPICS_PER_PAGE,
            "total": len(topics),
            "current": start // TOPICS_PER_PAGE + 1,
            "input_f": str(forum.forum_id),
            "nav": [("", forum.name)],
        }
        return self._page(request, "forum.html", f"{forum.name} - {self.board.name}", **values)

    # -- login --------------------------------------------------------------------------------------

    def _ipb_login(self, request: Request, q: dict[str, str]) -> Response:
        code = q.get("CODE", "00")
        if code == "03":
            self._sign_out(request, q.get("k"))
            return self._redirect_screen(request, "Вы вышли", "act=idx")
        if code != "01" or request.method != "POST":
            return self._ipb_login_wall(request)
        form = request.form
        user = self._sign_in(request, form.get("UserName", ""), form.get("PassWord", ""), form.get("CookieDate") == "1")
        if user is None:
            return self._ipb_login_wall(request, WRONG_LOGIN)
        return self._redirect_screen(request, f"Спасибо, {user.name}, вы вошли", "act=idx")

    # -- posting ------------------------------------------------------------------------------------

    def _post(self, request: Request, q: dict[str, str]) -> Response:
        user = request.user
        if user is None:
            return self._ipb_login_wall(request)
        code = q.get("CODE") or {"new_post": "00", "reply_post": "02"}.get(q.get("do", ""), "00")
        forum_id, topic_id = number(q.get("f")) or 0, number(q.get("t"))
        with self.board.lock:
            forum = self.board._forums.get(forum_id)
            topic = self.board._topics.get(topic_id or 0) if topic_id else None
            if forum is None or (topic_id and (topic is None or topic.forum_id != forum_id)):
                return self._error(request, NO_TOPIC)
            if topic is not None and topic.locked and not moderates(user, forum):
                return self._error(request, LOCKED_TOPIC)
        if request.method != "POST" or code in ("00", "02"):
            return self._ipb_posting_form(request, forum, topic)
        if request.form.get("auth_key") != self.auth_key(user):
            return self._error(request, AUTH_KEY_WRONG)
        return self._save_post(request, user, forum, topic)

    def _ipb_posting_form(
        self, request: Request, forum: Forum, topic: Topic | None, error: str = "", **typed: str
    ) -> Response:
        heading = f"Ответ в тему {topic.title}" if topic is not None else f"Открытие новой темы в {forum.name}"
        values = {
            "forum_id": forum.forum_id,
            "topic_id": topic.topic_id if topic else None,
            "heading": heading,
            "post_key": secrets.token_hex(16),
            "error": error,
            "subject": typed.get("subject", ""),
            "message": typed.get("message", ""),
            "button": "Отправить" if topic else "Открыть тему",
            "input_f": str(forum.forum_id),
            "nav": [(f"showforum={forum.forum_id}", forum.name)],
        }
        return self._page(request, "posting.html", heading, **values)

    def _save_post(self, request: Request, user: User, forum: Forum, topic: Topic | None) -> Response:
        text = request.form.get("Post", "")
        title = request.form.get("TopicTitle", "").strip()
        if topic is None and not title:
            return self._ipb_posting_form(request, forum, None, NO_TITLE, message=text)
        if not text.strip():
            return self._ipb_posting_form(request, forum, topic, NO_POST, subject=title)
        wait = self._flood_wait(user)
        if wait:
            return self._error(request, FLOOD_ERROR.format(wait))
        if self._double_submit(user):  # dropped: answered as if it were made
            target = f"showtopic={topic.topic_id}" if topic is not None else f"showforum={forum.forum_id}"
            return self._to(request, target)
        return self._store(request, user, forum, topic, title[:TITLE_MAX], text)

    def _double_submit(self, user: User) -> bool:
        """Whether this submission follows the member's last one within `double_submit` seconds; it
        becomes the last one either way."""
        now = self.clock()
        with self._state:
            last = self._last_submit.get(user.user_id)
            self._last_submit[user.user_id] = now
        return last is not None and now - last < self.double_submit

    # -- moderation -----------------------------------------------------------------------------------

    def _moderate(self, request: Request, q: dict[str, str]) -> Response:
        user = request.user
        if user is None:
            return self._ipb_login_wall(request)
        if request.method != "POST":
            return self._error(request, BAD_REQUEST)
        if request.form.get("auth_key") != self.auth_key(user):
            return self._error(request, AUTH_KEY_WRONG)
        code = request.form.get("CODE", "")
        done = self._close_or_open(user, number(request.form.get("t")) or 0, {"00": True, "01": False}.get(code))
        if isinstance(done, LockRefusal):
            return self._error(request, LOCK_REFUSALS[done])
        said = "Тема закрыта" if done.locked else "Тема открыта"
        return self._redirect_screen(request, said, f"showforum={done.forum_id}")

    # -- the Messenger --------------------------------------------------------------------------------

    def _messenger(self, request: Request, q: dict[str, str]) -> Response:
        user = request.user
        if user is None:
            return self._ipb_login_wall(request)
        code = q.get("CODE", "01")
        if code in ("4", "04"):
            if request.method == "POST":
                return self._send_pm(request, user)
            return self._compose(request, entered_name=q.get("MID", ""))
        if code == "03":
            return self._ipb_view_pm(request, user, q)
        return self._folder(request, user, q)

    def _folder(self, request: Request, user: User, q: dict[str, str]) -> Response:
        vid = "sent" if q.get("VID") == "sent" else "in"
        with self.board.lock:
            if vid == "sent":
                kept = [m for m in self.board._pms.values() if m.sender == user.name and m.pm_id in self._sent_copies]
            else:
                kept = [m for m in self.board._pms.values() if user.name in m.recipients]
            kept.sort(key=lambda m: (m.time, m.pm_id), reverse=True)
            start = number(q.get("st")) or 0
            rows = [self._pm_row(m, user, vid) for m in kept[start : start + PMS_PER_PAGE]]
        values = {
            "view": "folder",
            "vid": vid,
            "folder_name": "Отправленные" if vid == "sent" else "Входящие",
            "rows": rows,
            "per_page": PMS_PER_PAGE,
            "total": len(kept),
            "current": start // PMS_PER_PAGE + 1,
            "nav": [("act=Msg&amp;CODE=01", "Личный ящик")],
        }
        return self._page(request, "msg.html", "Личный ящик", **values)

    def _pm_row(self, message: PrivateMessage, user: User, vid: str) -> dict[str, Any]:
        other = message.recipients[0] if vid == "sent" else message.sender
        return {
            "id": message.pm_id,
            "subject": message.subject,
            "other": other,
            "other_id": self._named(other)[1],
            "date": self._date_text(message.time),
            "unread": vid == "in" and not message.is_read_by(user.name),
        }

    def _ipb_view_pm(self, request: Request, user: User, q: dict[str, str]) -> Response:
        pm_id = number(q.get("MSID")) or 0
        with self.board.lock:
            message = self.board._pms.get(pm_id)
            mine = message is not None and (
                user.name in message.recipients or (message.sender == user.name and pm_id in self._sent_copies)
            )
            if message is None or not mine:
                return self._error(request, "Такого сообщения не существует")
            if user.name in message.recipients:
                message.read_by.add(user.name)
            shown = {
                "id": message.pm_id,
                "subject": message.subject,
                "sender": message.sender,
                "sender_id": self._named(message.sender)[1],
                "date": self._date_text(message.time),
                "body": Markup(ipb2_bbcode(message.body)),
            }
        return self._page(request, "msg.html", message.subject, view="message", message=shown)

    def _compose(self, request: Request, error: str = "", **typed: str) -> Response:
        values = {
            "view": "compose",
            "error": error,
            "post_key": secrets.token_hex(16),
            "entered_name": typed.get("entered_name", ""),
            "msg_title": typed.get("msg_title", ""),
            "message_text": typed.get("message", ""),
            "nav": [("act=Msg&amp;CODE=01", "Личный ящик")],
        }
        return self._page(request, "msg.html", "Новое личное сообщение", **values)

    def _send_pm(self, request: Request, user: User) -> Response:
        form = request.form
        if form.get("auth_key") != self.auth_key(user):
            return self._error(request, AUTH_KEY_WRONG)
        names = [form.get("entered_name", "").strip()]
        names += [n.strip() for n in form.get("carbon_copy", "").splitlines() if n.strip()]
        typed = {"entered_name": names[0], "msg_title": form.get("msg_title", ""), "message": form.get("Post", "")}
        with self.board.lock:
            members = [self.board._users.get(name.lower()) for name in names if name]
        if not names[0] or any(m is None for m in members):
            return self._compose(request, NO_SUCH_MEMBER, **typed)
        subject = form.get("msg_title", "").strip()[:PM_SUBJECT_MAX]
        if not subject or not form.get("Post", "").strip():
            return self._compose(request, "Вы должны ввести текст письма", **typed)
        if self._double_submit(user):
            return self._redirect_screen(request, "Ваше сообщение отправлено", "act=Msg&CODE=01")
        now = self._now()
        for member in members:
            assert member is not None
            pm_id = self.board.send_pm(user.name, member.name, subject, form.get("Post", ""), now)
            if form.get("add_sent") == "1":
                self._sent_copies.add(pm_id)
        return self._redirect_screen(request, "Ваше сообщение отправлено", "act=Msg&CODE=01")
