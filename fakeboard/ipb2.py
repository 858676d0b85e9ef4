"""A fake Invision Power Board 2.2 (the IBResource Russian build) over the shared `Board` state, for tests.

    board = Board(language="ru", timezone="Europe/Moscow")
    board.add_user("Ведущий", "secret", moderator=True)
    with Ipb2Server(board, charset="windows-1251") as server:
        client = IpbClient(server.url, username="Ведущий", password="secret")

Pages are rendered from skeletons cut out of pages IPB 2.2.2's own code produced (`skeletons/ipb2_*.html`):
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

Faults are the phpBB server's (`fail_after_acting`), with one addition: the substring may end in
`#field=value` to pick a POST by its form's content (`"POST index.php#act=Msg"`), since every IPB form
posts to `index.php`.
"""

from __future__ import annotations

import hashlib
import html
import re
import secrets
from datetime import UTC, datetime, timedelta, tzinfo
from typing import Any
from urllib.parse import parse_qsl, quote

from markupsafe import Markup

from fakeboard.board import (
    ANONYMOUS,
    Board,
    BoardServer,
    Forum,
    Post,
    PrivateMessage,
    Topic,
    User,
    _Request,
    _Response,
    _Session,
)

__all__ = ["Ipb2Server", "ipb2_bbcode", "ipb2_date"]

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
PM_SUBJECT_MAX = 40
TOPICS_PER_PAGE = 25
PMS_PER_PAGE = 50


def ipb2_date(moment: datetime, tz: tzinfo, now: datetime) -> str:
    """IPB 2's LONG date in the Russian build (`j.n.Y, G:i`), «Сегодня» / «Вчера» for today and yesterday."""
    local, today = moment.astimezone(tz), now.astimezone(tz).date()
    clock = f"{local.hour}:{local.minute:02d}"
    if local.date() == today:
        return f"Сегодня, {clock}"
    if local.date() == today - timedelta(days=1):
        return f"Вчера, {clock}"
    return f"{local.day}.{local.month}.{local.year}, {clock}"


# --- BBCode as IPB 2.2 stores it (class_bbcode pre_db_parse) -------------------------------------------

_SIMPLE = {"b": "b", "i": "i", "u": "u", "s": "strike"}
_SIZES = {"1": "8", "2": "10", "3": "12", "4": "14", "5": "18", "6": "24", "7": "36"}
_TAG = re.compile(r"\[(/?)(\w+)(?:=([^\]]*))?\]")


def _escape(text: str) -> str:
    """The editor's cleaning: HTML escaped, `!`, `'` and `$` as entities, newlines as `<br />`."""
    text = html.escape(text, quote=False).replace('"', "&quot;")
    text = text.replace("!", "&#33;").replace("'", "&#39;").replace("$", "&#036;")
    return text.replace("\n", "<br />")


def _open(tag: str, value: str | None) -> str | None:
    if tag in _SIMPLE:
        return f"<{_SIMPLE[tag]}>"
    if tag == "color" and value:
        clean = re.sub(r"[^\w#\s]", "", value.strip("\"'"))
        return f'<!--coloro:{clean}--><span style="color:{clean}"><!--/coloro-->'
    if tag == "size" and value:
        points = _SIZES.get(value.strip("\"'"), "12")
        return f'<!--sizeo:{value}--><span style="font-size:{points}pt;line-height:100%"><!--/sizeo-->'
    if tag == "quote":
        name = (value or "").strip("\"'")
        top = f"Цитата({_escape(name)})" if name else "Цитата"
        return f"<!--quoteo--><div class='quotetop'>{top}</div><div class='quotemain'><!--quotec-->"
    if tag == "url" and value:
        return f'<a href="{html.escape(value.strip(chr(34) + chr(39)))}" target="_blank">'
    if tag == "list":
        return "<ol type='1'>" if value else "<ul>"
    if tag == "code":
        return "<!--c1--><div class='codetop'>Код</div><div class='codemain'><!--ec1-->"
    return None


_CLOSE = {
    "color": "<!--colorc--></span><!--/colorc-->",
    "size": "<!--sizec--></span><!--/sizec-->",
    "quote": "<!--QuoteEnd--></div><!--QuoteEEnd-->",
    "url": "</a>",
    "code": "<!--c2--></div><!--ec2-->",
}


def ipb2_bbcode(source: str) -> str:
    """The HTML IPB 2.2 stores for a post written in BBCode (the tags forumbot and the tests write)."""
    out: list[str] = []
    stack: list[tuple[str, str | None]] = []
    pos = 0
    for m in _TAG.finditer(source):
        out.append(_escape(source[pos : m.start()]))
        pos = m.end()
        closing, tag, value = m.group(1), m.group(2).lower(), m.group(3)
        if tag == "*" or m.group(0) == "[*]":
            out.append("<li>")
            continue
        if closing and any(t == tag for t, _ in stack):
            while stack:
                open_tag, open_value = stack.pop()
                out.append(_closing(open_tag, open_value))
                if open_tag == tag:
                    break
            continue
        made = None if closing else _open(tag, value)
        if made is None:
            out.append(_escape(m.group(0)))
        else:
            out.append(made)
            stack.append((tag, value))
    out.append(_escape(source[pos:]))
    out.extend(_closing(tag, value) for tag, value in reversed(stack))
    return "".join(out).replace("[*]", "<li>")


def _closing(tag: str, value: str | None) -> str:
    if tag in _SIMPLE:
        return f"</{_SIMPLE[tag]}>"
    if tag == "list":
        return "</ol>" if value else "</ul>"
    return _CLOSE.get(tag, "")


# --- the server -----------------------------------------------------------------------------------------


class Ipb2Server(BoardServer):
    """`board` served as IPB 2.2 would serve it (see the module's doc). `charset` is the board's
    `gb_char_set`; `flood_interval` the group's flood control in seconds (0: none); `double_submit` the
    window in which a member's second submission is dropped without a word."""

    def __init__(
        self,
        board: Board,
        *,
        charset: str = "utf-8",
        double_submit: float = 2.0,
        **options: Any,
    ) -> None:
        super().__init__(board, **options)
        self.charset = charset
        self.double_submit = double_submit
        self.cookie_prefix = ""
        self._last_submit: dict[int, float] = {}
        self._sent_copies: set[int] = set()  # PMs whose sender kept a copy in «Отправленные»

    # -- requests ---------------------------------------------------------------------------------

    def _request(self, handler: Any, path: str, query: str, raw: bytes) -> _Request:
        request = super()._request(handler, path, query, raw)
        if handler.command == "POST" and self.charset.lower() != "utf-8":
            # PHP takes the bytes as they come: the form's percent-escapes are in the board's charset
            pairs = parse_qsl(raw.decode("latin-1"), keep_blank_values=True, encoding=self.charset, errors="replace")
            request.form = dict(pairs)
        return request

    def _take_after_acting(self, method: str, target: str, raw: bytes) -> str | None:
        fields = dict(parse_qsl(raw.decode("latin-1"), keep_blank_values=True)) if raw else {}
        with self._state:
            for i, (substr, fault) in enumerate(self._after_acting):
                wanted_method, _, wanted = substr.rpartition(" ")
                wanted, _, condition = wanted.partition("#")
                name, _, value = condition.partition("=")
                if condition and (name not in fields or (value and fields[name] != value)):
                    continue
                if wanted in target and (not wanted_method or wanted_method == method):
                    del self._after_acting[i]
                    return fault
        return None

    def _begin_session(self, request: _Request) -> None:
        """IPB 2's sessions: the `session_id` cookie (else `s=`), else the remembered member from
        `member_id` + `pass_hash`, else a new guest session."""
        agent = (request.headers.get("User-Agent") or "")[:149]
        sid = request.cookies.get("session_id") or request.query.get("s", "")
        with self._state:
            session = self._sessions.get(sid)
        if session is None or session.user_agent != agent:
            member = self._remembered(request)
            session = self._open_session(request, member.user_id if member is not None else ANONYMOUS)
        request.session = session
        with self.board.lock:
            user = self.board._users_by_id.get(session.user_id)
        request.user = user
        request.viewer = self._viewer(user)

    def _remembered(self, request: _Request) -> User | None:
        member_id = request.cookies.get("member_id", "")
        with self.board.lock:
            user = self.board._users_by_id.get(int(member_id)) if member_id.isdigit() else None
        if user is not None and request.cookies.get("pass_hash") == self._pass_hash(user):
            return user
        return None

    def _open_session(self, request: _Request, user_id: int) -> _Session:
        session = _Session(secrets.token_hex(16), user_id, (request.headers.get("User-Agent") or "")[:149])
        with self._state:
            self._sessions[session.sid] = session
        request.set_cookies.append(f"session_id={session.sid}; path=/; HttpOnly")
        request.new_session = True
        return session

    def _pass_hash(self, user: User) -> str:
        return hashlib.md5(f"{user.user_id}:{self._salt(user.user_id)}".encode()).hexdigest()

    def auth_key(self, user: User | None) -> str:
        """The member's form key (IPB 2's md5 check); guests share one."""
        if user is None:
            return hashlib.md5(b"this is only here to prevent it breaking on guests").hexdigest()
        return hashlib.md5(f"{user.user_id}:{self._salt(user.user_id)}:key".encode()).hexdigest()

    def _dispatch(self, request: _Request) -> _Response:
        script = request.path.rsplit("/", 1)[-1] or "index.php"
        if script != "index.php" or request.path.count("/") > 1:
            return _Response(404, b"<h1>Not Found</h1>")
        q = request.query | (request.form if request.method == "POST" else {})
        act = q.get("act", "").lower()
        if "showtopic" in q or act == "st":
            return self._topic_page(request, q)
        if "showforum" in q or act == "sf":
            return self._forum_page(request, q)
        routes = {"login": self._ipb_login, "post": self._post, "mod": self._moderate, "msg": self._messenger}
        route = routes.get(act)
        if route is not None:
            return route(request, q)
        return self._page(request, "ipb2_message.html", "Форум", text="Добро пожаловать", refresh="")

    # -- rendering ----------------------------------------------------------------------------------

    def _page(self, request: _Request, template: str, title: str, **values: Any) -> _Response:
        user = request.user
        base = f"{request.base_url}index.php?"
        with self.board.lock:
            mine = [m for m in self.board._pms.values() if user is not None and user.name in m.recipients]
            new_pms = sum(1 for m in mine if user is not None and not m.is_read_by(user.name))
        context: dict[str, Any] = {
            "charset": self.charset,
            "title": title,
            "root": request.base_url,
            "base": base,
            "sid": "",
            "st": "0",
            "input_f": "",
            "input_t": "",
            "md5": self.auth_key(user),
            "member": {"id": user.user_id, "name": user.name} if user is not None else None,
            "new_pms": new_pms,
            "board_name": self.board.name,
            "nav": [],
            "now_text": self._clock_text(),
            "refresh": None,
            "error": "",
            "text": "",
        }
        context.update(values)
        body = self._env.get_template(template).render(**context)
        return _Response(
            200,
            body.encode(self.charset, errors="xmlcharrefreplace"),
            [("Content-Type", f"text/html; charset={self.charset}")],
        )

    def _clock_text(self) -> str:
        """The footer's «Сейчас: …»: the server's time in the board's offset, never relative."""
        local = self._now().astimezone(self.tz)
        return f"{local.day}.{local.month}.{local.year}, {local.hour}:{local.minute:02d}"

    def _error(self, request: _Request, text: str) -> _Response:
        return self._page(request, "ipb2_message.html", "Ошибка", error=text)

    def _redirect_screen(self, request: _Request, text: str, target: str) -> _Response:
        link = f"{request.base_url}index.php?{target}"
        return self._page(request, "ipb2_message.html", "Перенаправление", text=text, refresh=link)

    def _ipb_login_wall(self, request: _Request, error: str = "") -> _Response:
        referer = f"{request.base_url}index.php?{quote(request.path, safe='/')}"
        return self._page(request, "ipb2_login.html", "Вход", error=error, referer=referer, nav=[("", "Вход")])

    def _ipb_date(self, moment: datetime) -> str:
        return ipb2_date(moment, self.tz, self._now())

    # -- topics and forums --------------------------------------------------------------------------

    def _topic_page(self, request: _Request, q: dict[str, str]) -> _Response:
        topic_id = _number(q.get("showtopic") or q.get("t"))
        with self.board.lock:
            topic = self.board._topics.get(topic_id or 0)
            forum = self.board._forums.get(topic.forum_id) if topic is not None else None
            if topic is None or forum is None:
                return self._error(request, NO_TOPIC)
            if not forum.public and request.user is None:
                return self._ipb_login_wall(request)
            moderator = self._moderates(request.user, forum)
            posts = [p for p in topic.posts if p.visible or moderator]
            numbered = list(enumerate(posts, 1))
            per_page = self.posts_per_page
            if q.get("view") == "findpost" and q.get("p", "").isdigit():
                index = next((i for i, p in numbered if p.post_id == int(q["p"])), 1)
                start = (index - 1) // per_page * per_page
            else:
                start = _number(q.get("st")) or 0
            start = min(start, max(0, (len(posts) - 1) // per_page * per_page))
            shown = [self._post_view(request, p, n) for n, p in numbered[start : start + per_page]]
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
        return self._page(request, "ipb2_topic.html", f"{topic.title} - {self.board.name}", **values)

    def _post_view(self, request: _Request, post: Post, number: int) -> dict[str, Any]:
        author = self.board._users.get(post.author.lower())
        edit = None
        if post.edited and post.edited_by and post.edited_at:
            edit = {"who": post.edited_by, "when": self._ipb_date(post.edited_at)}
        shaded = not post.visible
        css = ("post1shaded" if number % 2 else "post2shaded") if shaded else ("post1" if number % 2 else "post2")
        name = post.author if len(post.author) <= 16 else post.author[:16] + "..."
        return {
            "id": post.post_id,
            "author": post.author,
            "short_name": name,
            "author_id": author.user_id if author else 0,
            "date": self._ipb_date(post.time),
            "number": number,
            "body": Markup(post.body if post.html else ipb2_bbcode(post.body)),
            "edit": edit,
            "css": css,
        }

    def _forum_page(self, request: _Request, q: dict[str, str]) -> _Response:
        forum_id = _number(q.get("showforum") or q.get("f"))
        with self.board.lock:
            forum = self.board._forums.get(forum_id or 0)
            if forum is None:
                return self._error(request, NO_PERMISSION)
            if not forum.public and request.user is None:
                return self._ipb_login_wall(request)
            topics = [t for t in self.board._topics.values() if t.forum_id == forum.forum_id and t.posts]
            topics.sort(key=lambda t: (t.posts[-1].time, t.topic_id), reverse=True)
            start = _number(q.get("st")) or 0
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
        return self._page(request, "ipb2_forum.html", f"{forum.name} - {self.board.name}", **values)

    def _topic_row(self, topic: Topic) -> dict[str, Any]:
        first, last = topic.posts[0], topic.posts[-1]

        def uid(name: str) -> int:
            user = self.board._users.get(name.lower())
            return user.user_id if user else 0

        return {
            "topic_id": topic.topic_id,
            "title": topic.title,
            "locked": topic.locked,
            "replies": len(topic.posts) - 1,
            "views": topic.views,
            "started": self._ipb_date(first.time),
            "starter": first.author,
            "starter_id": uid(first.author),
            "last_date": self._ipb_date(last.time),
            "last_name": last.author,
            "last_id": uid(last.author),
        }

    # -- login --------------------------------------------------------------------------------------

    def _ipb_login(self, request: _Request, q: dict[str, str]) -> _Response:
        code = q.get("CODE", "00")
        if code == "03":
            if request.user is not None and q.get("k") == self.auth_key(request.user):
                with self._state:
                    self._sessions.pop(request.session.sid if request.session else "", None)
            return self._redirect_screen(request, "Вы вышли", "act=idx")
        if code != "01" or request.method != "POST":
            return self._ipb_login_wall(request)
        with self.board.lock:
            user = self.board._users.get(request.form.get("UserName", "").lower())
        if (
            user is None
            or user.password is None
            or not secrets.compare_digest(user.password.encode(), request.form.get("PassWord", "").encode())
        ):
            return self._ipb_login_wall(request, WRONG_LOGIN)
        request.session = self._open_session(request, user.user_id)
        request.user = user
        if request.form.get("CookieDate") == "1":
            request.set_cookies.append(f"member_id={user.user_id}; path=/; HttpOnly")
            request.set_cookies.append(f"pass_hash={self._pass_hash(user)}; path=/; HttpOnly")
        return self._redirect_screen(request, f"Спасибо, {user.name}, вы вошли", "act=idx")

    # -- posting ------------------------------------------------------------------------------------

    def _post(self, request: _Request, q: dict[str, str]) -> _Response:
        user = request.user
        if user is None:
            return self._ipb_login_wall(request)
        code = q.get("CODE") or {"new_post": "00", "reply_post": "02"}.get(q.get("do", ""), "00")
        forum_id, topic_id = _number(q.get("f")) or 0, _number(q.get("t"))
        with self.board.lock:
            forum = self.board._forums.get(forum_id)
            topic = self.board._topics.get(topic_id or 0) if topic_id else None
            if forum is None or (topic_id and (topic is None or topic.forum_id != forum_id)):
                return self._error(request, NO_TOPIC)
            moderator = self._moderates(user, forum)
            if topic is not None and topic.locked and not moderator:
                return self._error(request, LOCKED_TOPIC)
        if request.method != "POST" or code in ("00", "02"):
            return self._ipb_posting_form(request, forum, topic)
        if request.form.get("auth_key") != self.auth_key(user):
            return self._error(request, AUTH_KEY_WRONG)
        return self._save_post(request, user, forum, topic)

    def _ipb_posting_form(
        self, request: _Request, forum: Forum, topic: Topic | None, error: str = "", **typed: str
    ) -> _Response:
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
        return self._page(request, "ipb2_posting.html", heading, **values)

    def _save_post(self, request: _Request, user: User, forum: Forum, topic: Topic | None) -> _Response:
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
            return _Response(302, b"", [("Location", f"{request.base_url}index.php?{target}")])
        now = datetime.fromtimestamp(self.clock(), UTC)
        approved = not user.needs_approval
        if topic is None:
            topic_id = self.board.add_topic(forum.forum_id, title[:50], user.name, text, now)
            self._posted(user)
            return _Response(302, b"", [("Location", f"{request.base_url}index.php?showtopic={topic_id}")])
        post_id = self.board.add_post(topic.topic_id, user.name, text, now, approved=approved)
        self._posted(user)
        count = len(self.board.posts_of(topic.topic_id))
        start = (count - 1) // self.posts_per_page * self.posts_per_page
        target = f"showtopic={topic.topic_id}&st={start}&gopid={post_id}&#entry{post_id}"
        return _Response(302, b"", [("Location", f"{request.base_url}index.php?{target}")])

    def _flood_wait(self, user: User) -> int:
        """Seconds the member must still wait under flood control (0: may post)."""
        with self._state:
            last = self._last_post.get(user.user_id)
        interval = self.flood_interval
        if last is None or interval <= 0 or self.clock() - last >= interval:
            return 0
        return max(1, round(interval - (self.clock() - last)))

    def _double_submit(self, user: User) -> bool:
        """Whether this submission follows the member's last one within `double_submit` seconds; it
        becomes the last one either way."""
        now = self.clock()
        with self._state:
            last = self._last_submit.get(user.user_id)
            self._last_submit[user.user_id] = now
        return last is not None and now - last < self.double_submit

    # -- moderation -----------------------------------------------------------------------------------

    def _moderate(self, request: _Request, q: dict[str, str]) -> _Response:
        user = request.user
        if user is None:
            return self._ipb_login_wall(request)
        if request.method != "POST":
            return self._error(request, "Некорректный запрос. Вернитесь назад и попробуйте снова")
        if request.form.get("auth_key") != self.auth_key(user):
            return self._error(request, AUTH_KEY_WRONG)
        topic_id = _number(request.form.get("t")) or 0
        with self.board.lock:
            topic = self.board._topics.get(topic_id)
            forum = self.board._forums.get(topic.forum_id) if topic is not None else None
            if topic is None or forum is None:
                return self._error(request, NO_TOPIC)
            if not self._moderates(user, forum):
                return self._error(request, NOT_ALLOWED)
            code = request.form.get("CODE", "")
            if code not in ("00", "01"):
                return self._error(request, "Некорректный запрос. Вернитесь назад и попробуйте снова")
            topic.locked = code == "00"
        said = "Тема закрыта" if code == "00" else "Тема открыта"
        return self._redirect_screen(request, said, f"showforum={forum.forum_id}")

    # -- the Messenger --------------------------------------------------------------------------------

    def _messenger(self, request: _Request, q: dict[str, str]) -> _Response:
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

    def _folder(self, request: _Request, user: User, q: dict[str, str]) -> _Response:
        vid = "sent" if q.get("VID") == "sent" else "in"
        with self.board.lock:
            if vid == "sent":
                kept = [m for m in self.board._pms.values() if m.sender == user.name and m.pm_id in self._sent_copies]
            else:
                kept = [m for m in self.board._pms.values() if user.name in m.recipients]
            kept.sort(key=lambda m: (m.time, m.pm_id), reverse=True)
            start = _number(q.get("st")) or 0
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
        return self._page(request, "ipb2_msg.html", "Личный ящик", **values)

    def _pm_row(self, message: PrivateMessage, user: User, vid: str) -> dict[str, Any]:
        other = message.recipients[0] if vid == "sent" else message.sender
        member = self.board._users.get(other.lower())
        return {
            "id": message.pm_id,
            "subject": message.subject,
            "other": other,
            "other_id": member.user_id if member else 0,
            "date": self._ipb_date(message.time),
            "unread": vid == "in" and not message.is_read_by(user.name),
        }

    def _ipb_view_pm(self, request: _Request, user: User, q: dict[str, str]) -> _Response:
        pm_id = _number(q.get("MSID")) or 0
        with self.board.lock:
            message = self.board._pms.get(pm_id)
            mine = message is not None and (
                user.name in message.recipients or (message.sender == user.name and pm_id in self._sent_copies)
            )
            if message is None or not mine:
                return self._error(request, "Такого сообщения не существует")
            if user.name in message.recipients:
                message.read_by.add(user.name)
            sender = self.board._users.get(message.sender.lower())
            shown = {
                "id": message.pm_id,
                "subject": message.subject,
                "sender": message.sender,
                "sender_id": sender.user_id if sender else 0,
                "date": self._ipb_date(message.time),
                "body": Markup(ipb2_bbcode(message.body)),
            }
        return self._page(request, "ipb2_msg.html", message.subject, view="message", message=shown)

    def _compose(self, request: _Request, error: str = "", **typed: str) -> _Response:
        values = {
            "view": "compose",
            "error": error,
            "post_key": secrets.token_hex(16),
            "entered_name": typed.get("entered_name", ""),
            "msg_title": typed.get("msg_title", ""),
            "message_text": typed.get("message", ""),
            "nav": [("act=Msg&amp;CODE=01", "Личный ящик")],
        }
        return self._page(request, "ipb2_msg.html", "Новое личное сообщение", **values)

    def _send_pm(self, request: _Request, user: User) -> _Response:
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
        now = datetime.fromtimestamp(self.clock(), UTC)
        for member in members:
            assert member is not None
            pm_id = self.board.send_pm(user.name, member.name, subject, form.get("Post", ""), now)
            if form.get("add_sent") == "1":
                self._sent_copies.add(pm_id)
        return self._redirect_screen(request, "Ваше сообщение отправлено", "act=Msg&CODE=01")


def _number(value: str | None) -> int | None:
    return int(value) if value is not None and value.strip().isdigit() else None
