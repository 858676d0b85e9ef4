"""A fake Invision Power Board 2.2 (the IBResource Russian build) over the shared `Board` state, for tests.

    board = Board(language="ru", timezone="Europe/Moscow")
    board.add_user("Ведущий", "secret", moderator=True)
    with Ipb2Server(board, charset="windows-1251") as server:
        client = IpbClient(server.url, username="Ведущий", password="secret")

Pages are rendered from skeletons cut out of pages IPB 2.2.2's own code printed (`skeletons/`; the captured
exchanges are `fixtures/ipb-real/ipb22/`, and `tests/fakeboard/ipb2/test_conformance.py` replays each of them
here): `index.php?showtopic=T&st=N`, `showforum=F`, `act=Login`, `act=Post` (the posting form),
`act=Mod` (the moderators' topic tools of `form[name=modform2]`: close and open), `act=Msg` (folders
`VID=in|sent`, one message, the compose form). What it answers, as IPB 2.2 does:

- sessions in cookies (`session_id`, `member_id`, `pass_hash`); a member may log in with a name of his own
  (`logins`) while the board prints his display name; the login's success is a redirect screen (200, a
  meta refresh); a dead session is a guest's, whose posts are refused (`no_replies`) on an error page that
  carries the log-in form;
- every form carries the member's `auth_key`; a stale one is the error page `del_post` («Неверная
  авторизация…»); errors are 200 pages (skin_global Error), a POST's keeping its text in a textarea;
- flood control (`flood_interval`) already when the posting form is asked for (CODE 00 and 02) and again on
  its submission, the error naming the whole interval; PMs have none;
- the double-post guard: a submission following the session's previous one of the same kind within 2 s
  stores nothing and answers with a 302 to the topic's last post (`view=getlastpost`) or, for a new topic,
  to the forum's newest topic;
- a new topic answers a 302 to `showtopic=T`, a reply to `showtopic=T&st=S&gopid=P&#entryP`; the named
  `preview` button shows the form again with the preview; an empty post is the error page `no_post`; more
  than `max_quotes` quotes is the form again with its error box;
- a closed topic refuses replies (`locked_topic`), a moderator's too unless `moderators_post_closed`; the
  forums of `posting_refused` refuse every post (`no_starting`, `no_replies`);
- a PM (`act=Msg&CODE=04`): the send button has no name; `entered_name`, and `carbon_copy` (one name per
  line) when the members' group may send copies (`copies`, g_max_mass_pm: the form says how many); an
  unknown name or too many copies is the form again with its error box; a sent PM is a redirect screen; a
  copy stays in «Отправленные» only when `add_sent` is ticked; its subject is cut to 40 characters;
- the moderators' close (`act=Mod`, `CODE=00`, or `01` to open) answers a redirect screen to the forum,
  the same when the topic was closed already.

Faults are every fake board's (`fail_after_acting`); since every IPB form posts to `index.php`, a POST is
picked by its form's content (`"POST index.php#act=Msg"`).
"""

from __future__ import annotations

import re
import secrets
from datetime import datetime, tzinfo
from pathlib import Path
from typing import Any, ClassVar, Unpack

from markupsafe import Markup

from fakeboard.invision.server import InvisionServer, LockRefusal, day_word
from fakeboard.ipb2.bbcode import ipb2_bbcode
from fakeboard.server import Request, Response, ServerOptions, number
from fakeboard.state import Board, Forum, Post, PrivateMessage, Topic, User, moderates

__all__ = ["Ipb2Server", "ipb2_date"]

# IPB 2.2's own words (lang_error, lang_post, lang_msg, lang_login, lang_mod of the Russian build), as its pages
# printed them (fixtures/ipb-real/ipb22/).
FLOOD_ERROR = (
    "На форуме включена блокировка массовых сообщений (для предотвращения возможных атак на сервер), "
    "необходимо подождать {} секунд для публикации повторного ответа в тему или открытия новой темы"
)
DEL_POST = (
    "Неверная авторизация. Вернитесь назад и попробуйте снова. Если вы неправильно обратились к данной функции, "
    "исправьте ошибку и используйте соответствующий этой функции метод."
)
NO_STARTING = "У вас нет прав открытия тем в этом форуме"
NO_REPLIES = "У вас нет прав публиковать ответ в эту тему"
LOCKED_TOPIC = "Эта тема закрыта"
NO_POST = "Вы должны ввести сообщение"
TOO_MANY_QUOTES = "Вы ввели слишком много блоков с цитатой"
NO_SUCH_MEMBER = "Нет такого пользователя. Проверьте введенное имя и повторите попытку."
TOO_MANY_COPIES = (
    "Вы не имеете прав отправки копии личных сообщений нескольким пользователям. Сократите список и попробуйте снова."
)
WRONG_LOGIN = "Имя пользователя и пароль неверны"
PM_SENT = (
    "Ваше сообщение с заголовком &laquo;{}&raquo; успешно отправлено. "
    "Пользователь будет уведомлен о новом личном сообщении от вас."
)
LOGGED_IN = "вы вошли как: {}"
CLOSED, OPENED = "Тема закрыта", "Тема открыта"
# not among the captured answers: the fake's own words for them
NO_TITLE = "Вы должны ввести название темы"
NO_PM_TEXT = "Вы должны ввести заголовок и текст сообщения"
NO_TOPIC = "Тема, соответствующая введенному вами URL, не обнаружена в базе данных."
NO_PERMISSION = "У вас нет доступа к этой странице или функции."
NOT_ALLOWED = "Вам запрещено использование этой функции"
BAD_REQUEST = "Некорректный запрос. Вернитесь назад и попробуйте снова"
NO_MESSAGE = "Такого сообщения не существует"
LOGGED_OUT = "Вы вышли"

PM_SUBJECT_MAX = 40
TITLE_MAX = 150  # the topic title's maxlength
TOPICS_PER_PAGE = 25
PMS_PER_PAGE = 50
DOUBLE_POST = 2.0  # seconds: post.php's double-post guard
MAX_QUOTES = 10  # max_quotes_per_post
CONTENT_TYPE = "text/html;charset={}"  # as class_display sends it
LOCK_REFUSALS = {
    LockRefusal.NO_TOPIC: NO_TOPIC,
    LockRefusal.NOT_MODERATOR: NOT_ALLOWED,
    LockRefusal.BAD_ACTION: BAD_REQUEST,
}
SKELETONS = Path(__file__).with_name("skeletons")
_QUOTE = re.compile(r"\[quote", re.I)
_CODES = {"new_post": "00", "reply_post": "02"}  # the topic page's links name the form by `do`


def ipb2_date(moment: datetime, tz: tzinfo, now: datetime) -> str:
    """IPB 2's LONG date in the Russian build (`j.n.Y, G:i`), «Сегодня» / «Вчера» for today and yesterday."""
    local = moment.astimezone(tz)
    clock = f"{local.hour}:{local.minute:02d}"
    day = day_word(local, now.astimezone(tz))
    return f"{day}, {clock}" if day else f"{local.day}.{local.month}.{local.year}, {clock}"


class Ipb2Server(InvisionServer):
    """`board` served as IPB 2.2 would serve it (see the module's doc). `charset` is the board's
    `gb_char_set`; `flood_interval` the group's flood control in seconds (0: none); `copies` how many names
    the members' group may put in a PM's `carbon_copy` (0: none); `moderators_post_closed` whether
    moderators may reply in closed topics; `posting_refused` forums nobody may post in; `logins` login
    names of members whose display name differs; `max_quotes` quotes a post may hold."""

    skeletons = SKELETONS
    thread_name: ClassVar[str] = "ipb2-fake"

    def __init__(
        self,
        board: Board,
        *,
        charset: str = "utf-8",
        copies: int = 0,
        moderators_post_closed: bool = False,
        posting_refused: frozenset[int] = frozenset(),
        logins: dict[str, str] | None = None,
        max_quotes: int = MAX_QUOTES,
        **options: Unpack[ServerOptions],
    ) -> None:
        super().__init__(board, charset=charset, logins=logins, **options)
        self.copies = copies
        self.moderators_post_closed = moderators_post_closed
        self.posting_refused = posting_refused
        self.max_quotes = max_quotes
        self._clicks: dict[str, tuple[str, float]] = {}  # session -> (its last request's location, when)
        self._sent_copies: set[int] = set()  # PMs whose sender kept a copy in «Отправленные»

    def _answer(self, request: Request, q: dict[str, str]) -> Response:
        act = q.get("act", "").lower()
        if "showtopic" in q or act == "st":
            answer = self._topic_page(request, q)
        elif "showforum" in q or act == "sf":
            answer = self._forum_page(request, q)
        else:
            routes = {"login": self._login, "post": self._post, "mod": self._moderate, "msg": self._messenger}
            route = routes.get(act)
            answer = route(request, q) if route is not None else self._index(request)
        self._clicked(request, q)
        return answer

    def _index(self, request: Request) -> Response:
        with self.board.lock:
            forums = [f for f in self.board._forums.values() if not f.category]
        return self._page(request, "index.html", self.board.name, forums=forums)

    def _clicked(self, request: Request, q: dict[str, str]) -> None:
        """The session's location and time as IPB keeps them for its next request (`Post,F,,CODE` on the
        posting pages)."""
        if request.session is None:
            return
        location = ""
        if q.get("act", "").lower() == "post":
            location = f"Post,{q.get('f', '')},,{self._code(q)}"
        with self._state:
            self._clicks[request.session.sid] = (location, self.clock())

    # -- rendering ----------------------------------------------------------------------------------

    def _page_values(self, request: Request) -> dict[str, Any]:
        return {
            "charset": self.charset,
            "st": "",
            "input_f": "",
            "input_t": "",
            "input_p": "",
            "md5": self.auth_key(request.user),
            "now_text": self._clock_text(),
            "menu_off": False,
        }

    def _content_type(self) -> str:
        return CONTENT_TYPE.format(self.charset)

    def _clock_text(self) -> str:
        """The footer's «Сейчас: …»: the server's time in the board's offset, never relative."""
        local = self._now().astimezone(self.tz)
        return f"{local.day}.{local.month}.{local.year}, {local.hour}:{local.minute:02d}"

    def _error(self, request: Request, text: str) -> Response:
        """skin_global Error: a guest's page carries the log-in form; a POST to the posting or PM forms keeps
        its text."""
        saved = request.form.get("Post", "") if request.method == "POST" else ""
        kept = saved if request.form.get("act", "").lower() in ("post", "msg") else ""
        return self._page(
            request, "error.html", "Сообщение форума", error=text, saved=kept, menu_off=request.user is None
        )

    def _redirect_screen(self, request: Request, text: str | Markup, target: str) -> Response:
        context = {"charset": self.charset, "text": text, "refresh": f"{request.base_url}index.php?{target}"}
        body = self._template("redirect.html", context).encode(self.charset, errors="xmlcharrefreplace")
        return Response(200, body, [("Content-Type", self._content_type())])

    def _login_page(self, request: Request, error: str = "") -> Response:
        asked = "&".join(f"{name}={value}" for name, value in request.query.items())
        referer = f"{request.base_url}index.php?{asked}" if asked else request.base_url
        return self._page(request, "login.html", "Вход", error=error, referer=referer, nav=[("", "Вход")])

    def _date_text(self, moment: datetime) -> str:
        return ipb2_date(moment, self.tz, self._now())

    def _made(self, request: Request, topic_id: int, post_id: int | None) -> Response:
        if post_id is None:
            return self._to(request, f"showtopic={topic_id}")
        with self.board.lock:
            count = len([p for p in self.board._topics[topic_id].posts if p.visible])
        start = max(0, count - 1) // self.posts_per_page * self.posts_per_page
        return self._to(request, f"showtopic={topic_id}&st={start}&gopid={post_id}&#entry{post_id}")

    # -- topics and forums --------------------------------------------------------------------------

    def _topic_page(self, request: Request, q: dict[str, str]) -> Response:
        topic_id = number(q.get("showtopic") or q.get("t"))
        with self.board.lock:
            topic = self.board._topics.get(topic_id or 0)
            forum = self.board._forums.get(topic.forum_id) if topic is not None else None
            if topic is None or forum is None:
                return self._error(request, NO_TOPIC)
            if not forum.public and request.user is None:
                return self._login_page(request)
            moderator = moderates(request.user, forum)
            posts = [p for p in topic.posts if p.visible or moderator]
            numbered = list(enumerate(posts, 1))
            per_page = self.posts_per_page
            if q.get("view") == "findpost" and q.get("p", "").isdigit():
                index = next((i for i, p in numbered if p.post_id == int(q["p"])), 1)
                start = (index - 1) // per_page * per_page
            elif q.get("view") == "getlastpost":
                start = max(0, len(posts) - 1) // per_page * per_page
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
                "input_p": "0",
                "nav": [(f"showforum={forum.forum_id}", forum.name)],
            }
        return self._page(request, "topic.html", f"{topic.title} - {self.board.name}", **values)

    def _post_view(self, post: Post, position: int) -> dict[str, Any]:
        edit = None
        if post.edited and post.edited_by and post.edited_at:
            edit = {"who": post.edited_by, "when": self._date_text(post.edited_at)}
        shaded = not post.visible
        css = ("post2" if position % 2 else "post1") + ("shaded" if shaded else "")
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
                return self._login_page(request)
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

    def _login(self, request: Request, q: dict[str, str]) -> Response:
        code = q.get("CODE", "00")
        if code == "03":
            self._sign_out(request, q.get("k"))
            return self._redirect_screen(request, LOGGED_OUT, "act=idx")
        if code != "01" or request.method != "POST":
            return self._login_page(request)
        form = request.form
        user = self._sign_in(request, form.get("UserName", ""), form.get("PassWord", ""), form.get("CookieDate") == "1")
        if user is None:
            return self._login_page(request, WRONG_LOGIN)
        if form.get("CookieDate") == "1":
            request.set_cookies.append("coppa=0; path=/")
        referer = form.get("referer", "").replace("act=Login", "")
        target = referer.split("index.php?", 1)[1] if "index.php?" in referer else ""
        return self._redirect_screen(request, LOGGED_IN.format(user.name), target)

    # -- posting ------------------------------------------------------------------------------------

    @staticmethod
    def _code(q: dict[str, str]) -> str:
        return q.get("CODE") or _CODES.get(q.get("do", ""), "00")

    def _post(self, request: Request, q: dict[str, str]) -> Response:
        """post.php: the forum's and the topic's checks, flood control (for the forms and their submissions
        alike), then the form or the submission."""
        user, code = request.user, self._code(q)
        new = code in ("00", "01")
        forum_id, topic_id = number(q.get("f")) or 0, number(q.get("t"))
        with self.board.lock:
            forum = self.board._forums.get(forum_id)
            topic = None if new else self.board._topics.get(topic_id or 0)
            if forum is None or (not new and (topic is None or topic.forum_id != forum_id)):
                return self._error(request, NO_TOPIC)
        if user is None or forum_id in self.posting_refused:
            return self._error(request, NO_STARTING if new else NO_REPLIES)
        wait = self._flood_wait(user)
        if wait and code in ("00", "01", "02", "03"):
            return self._error(request, FLOOD_ERROR.format(round(self.flood_interval)))
        if topic is not None and topic.locked and not (self.moderators_post_closed and moderates(user, forum)):
            return self._error(request, LOCKED_TOPIC)
        if request.method != "POST" or code in ("00", "02"):
            return self._posting_form(request, forum, topic)
        if request.form.get("auth_key") != self.auth_key(user):
            return self._error(request, DEL_POST)
        guard = self._double_post(request, forum, topic, code)
        if guard is not None:
            return guard
        return self._save_post(request, user, forum, topic)

    def _double_post(self, request: Request, forum: Forum, topic: Topic | None, code: str) -> Response | None:
        """post.php's double-post guard: the session's previous request a submission of the same form in the
        same forum, less than 2 s ago: nothing is stored, and the answer is a redirect all the same."""
        sid = request.session.sid if request.session is not None else ""
        with self._state:
            last = self._clicks.get(sid)
        if last is None or last[0] != f"Post,{forum.forum_id},,{code}" or self.clock() - last[1] >= DOUBLE_POST:
            return None
        if topic is not None:
            return self._to(request, f"showtopic={topic.topic_id}&view=getlastpost")
        with self.board.lock:
            newest = self._forum_topics(forum)
        return self._to(request, f"showtopic={newest[0].topic_id if newest else 0}")

    def _posting_form(
        self,
        request: Request,
        forum: Forum,
        topic: Topic | None,
        *,
        error: str = "",
        preview: str = "",
        shown_again: bool = False,
    ) -> Response:
        heading = f"Ответ в {topic.title}" if topic is not None else f"Создание новой темы в:  {forum.name}"
        title = f"{self.board.name} -> " + (f"Ответ в {topic.title}" if topic is not None else "Создание новой темы")
        nav = [(f"showforum={forum.forum_id}", forum.name)]
        if topic is not None:
            nav.append((f"showtopic={topic.topic_id}", topic.title))
        values = {
            "forum_id": forum.forum_id,
            "topic_id": topic.topic_id if topic is not None else None,
            "heading": heading,
            "post_key": secrets.token_hex(16),
            "error": error,
            "preview": Markup(ipb2_bbcode(preview.replace("\r\n", "\n"))) if preview else "",
            "shown_again": shown_again,
            "subject": request.form.get("TopicTitle", "") if shown_again else "",
            "message": request.form.get("Post", "") if shown_again else "",
            "button": "Отправить" if topic is not None else "Создать тему",
            "side_panel": "0",
            "st": "0",
            "input_f": str(forum.forum_id),
            "input_t": str(topic.topic_id) if topic is not None else "0",
            "input_p": "0",
            "nav": nav,
        }
        request.set_cookies.append("mqtids=%2C; path=/")
        return self._page(request, "posting.html", title, **values)

    def _save_post(self, request: Request, user: User, forum: Forum, topic: Topic | None) -> Response:
        text = request.form.get("Post", "")
        title = request.form.get("TopicTitle", "").strip()
        if "preview" in request.form:
            return self._posting_form(request, forum, topic, preview=text, shown_again=True)
        if not text.strip():
            return self._error(request, NO_POST)
        if topic is None and not title:
            return self._error(request, NO_TITLE)
        if len(_QUOTE.findall(text)) > self.max_quotes:
            return self._posting_form(request, forum, topic, error=TOO_MANY_QUOTES, shown_again=True)
        return self._store(request, user, forum, topic, title[:TITLE_MAX], text)

    # -- moderation -----------------------------------------------------------------------------------

    def _moderate(self, request: Request, q: dict[str, str]) -> Response:
        """moderate.php, as `form[name=modform2]` posts to it: CODE 00 closes the topic, 01 opens it."""
        user = request.user
        if user is None:
            return self._error(request, NO_PERMISSION)
        if request.method != "POST":
            return self._error(request, BAD_REQUEST)
        if request.form.get("auth_key") != self.auth_key(user):
            return self._error(request, DEL_POST)
        code = request.form.get("CODE", "")
        done = self._close_or_open(user, number(request.form.get("t")) or 0, {"00": True, "01": False}.get(code))
        if isinstance(done, LockRefusal):
            return self._error(request, LOCK_REFUSALS[done])
        return self._redirect_screen(request, CLOSED if done.locked else OPENED, f"showforum={done.forum_id}")

    # -- the Messenger --------------------------------------------------------------------------------

    def _messenger(self, request: Request, q: dict[str, str]) -> Response:
        user = request.user
        if user is None:
            return self._error(request, NO_PERMISSION)
        code = q.get("CODE", "01")
        if code in ("4", "04"):
            if request.method == "POST":
                return self._send_pm(request, user)
            return self._compose(request, entered_name=self._named_member(q.get("MID", "")))
        if code == "03":
            return self._view_pm(request, user, q)
        return self._folder(request, user, q)

    def _named_member(self, member_id: str) -> str:
        found = number(member_id)
        with self.board.lock:
            user = self.board._users_by_id.get(found or 0)
            return user.name if user is not None else ""

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
            "nav": [("act=UserCP&amp;CODE=00", "Ваш Личный Ящик")],
        }
        return self._page(request, "msg.html", "Добро пожаловать в личный ящик", **values)

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

    def _view_pm(self, request: Request, user: User, q: dict[str, str]) -> Response:
        pm_id = number(q.get("MSID")) or 0
        with self.board.lock:
            message = self.board._pms.get(pm_id)
            mine = message is not None and (
                user.name in message.recipients or (message.sender == user.name and pm_id in self._sent_copies)
            )
            if message is None or not mine:
                return self._error(request, NO_MESSAGE)
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
        return self._page(request, "msg.html", "Добро пожаловать в личный ящик", view="message", message=shown)

    def _compose(self, request: Request, *, error: str = "", preview: str = "", **typed: str) -> Response:
        values = {
            "view": "compose",
            "error": error,
            "preview": Markup(ipb2_bbcode(preview.replace("\r\n", "\n"))) if preview else "",
            "post_key": secrets.token_hex(16),
            "copies": self.copies,
            "entered_name": typed.get("entered_name", ""),
            "carbon_copy": typed.get("carbon_copy", ""),
            "msg_title": typed.get("msg_title", ""),
            "message": typed.get("message", ""),
            "side_panel": "1",
            "nav": [("act=UserCP&amp;CODE=00", "Ваш Личный Ящик")],
        }
        return self._page(request, "msg.html", "Добро пожаловать в личный ящик", **values)

    def _send_pm(self, request: Request, user: User) -> Response:
        """messenger.php's send: the named buttons `preview` and `save` send nothing; the names are checked
        (the copies' count first), then each recipient gets the PM."""
        form = request.form
        if form.get("auth_key") != self.auth_key(user):
            return self._error(request, DEL_POST)
        main = form.get("entered_name", "").strip()
        copies = [n.strip() for n in form.get("carbon_copy", "").splitlines() if n.strip()] if self.copies else []
        text = form.get("Post", "").replace("\r\n", "\n")
        typed = {
            "entered_name": main,
            "carbon_copy": form.get("carbon_copy", "") if self.copies else "",
            "msg_title": form.get("msg_title", ""),
            "message": form.get("Post", ""),
        }
        if "preview" in form or "save" in form:
            return self._compose(request, preview=text, **typed)
        if len(copies) > self.copies:
            return self._compose(request, error=TOO_MANY_COPIES, **typed | {"entered_name": user.name})
        names = [main, *copies]
        with self.board.lock:
            members = [self.board._users.get(name.lower()) for name in names]
        if not main or any(m is None for m in members):
            return self._compose(request, error=NO_SUCH_MEMBER, **typed)
        subject = form.get("msg_title", "").strip()[:PM_SUBJECT_MAX]
        if not subject or not text.strip():
            return self._compose(request, error=NO_PM_TEXT, **typed)
        now = self._now()
        for member in dict.fromkeys(m.name for m in members if m is not None):
            pm_id = self.board.send_pm(user.name, member, subject, text, now)
            if form.get("add_sent"):
                self._sent_copies.add(pm_id)
        return self._redirect_screen(request, Markup(PM_SENT).format(subject), "&act=Msg&CODE=01")
