"""A rehearsal: a local fake board and the `forumbot` commands on one clock, the players scripted or typed.

    python -m fakeboard rehearse GAME.toml [SCRIPT] [--dir out/rehearsal]

The board (phpBB 3.3, Russian, the game's zone) is served on 127.0.0.1 with the accounts the game's config
names: the bot, every moderator and every player (one password, printed). Its clock is a `FakeClock`; the
forumbot commands run in this process on that same clock: each gets `--now` from it (where it takes one) and
its forum client sleeps on it, so the dates the board prints («Сегодня, 13:15»), the `Date` of its answers and
forumbot's own moment are one time, which moves only when the script moves it (`at`, `wait`).

The script's lines (docs/rehearsal.md) move the clock, make the players post, vote and write PMs, make the
moderators answer the draft PM, and run forumbot's commands; `expect` checks what the last one printed.
Without SCRIPT the same lines are read from the standard input (typed: one at a time, each answered).
"""

from __future__ import annotations

import io
import os
import re
import shlex
import shutil
import sys
import tomllib
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, time, timedelta
from pathlib import Path
from typing import TextIO
from zoneinfo import ZoneInfo

from fakeboard.clock import FakeClock
from fakeboard.state import Board
from forumbot.i18n import _

BOT = "Ведущий"
PASSWORD = "rehearsal"
DEFAULT_FORUM = 4
MARK = ".rehearsal"  # a work folder the rehearsal made: a new rehearsal may empty it
_NOISE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|[\u2500-\u257f]")  # colours and the lines of tables
_COMMENT = re.compile(r"\s#(?:\s.*)?$")  # " # why" ends a line; "#mail" (a relay) is no comment
_DURATION = re.compile(r"(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?")


class ScriptError(Exception):
    """A line of the script that cannot be done, or an expectation that does not hold: `where` names it."""

    def __init__(self, where: str, message: str) -> None:
        super().__init__(f"{where}: {message}")


@dataclass
class Game:
    """What the rehearsal needs of the game's config."""

    path: Path
    name: str
    zone: ZoneInfo
    board_zone: str
    players: list[str]
    moderators: list[str]
    forum_id: int

    @classmethod
    def load(cls, path: Path) -> Game:
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise ScriptError(str(path), _("cannot read the game's config: {error}").format(error=exc)) from None
        game, forum = data.get("game", {}), data.get("forum", {})
        if not isinstance(game.get("name"), str):
            raise ScriptError(str(path), _("[game] name is missing"))
        if forum.get("engine", "phpbb") != "phpbb":
            raise ScriptError(str(path), _('the rehearsal\'s board is phpBB: set [forum] engine = "phpbb"'))
        if forum.get("base_url"):
            raise ScriptError(
                str(path),
                _(
                    "[forum] base_url is set: leave it out for a rehearsal (the rehearsal's board gives "
                    "FORUMBOT_BASE_URL), so the game can never reach a real forum"
                ),
            )
        zone = str(game.get("timezone", "Europe/Moscow"))
        return cls(
            path=path.resolve(),
            name=game["name"],
            zone=ZoneInfo(zone),
            board_zone=str(forum.get("timezone") or zone),
            players=[str(p) for p in game.get("players", [])],
            moderators=[str(m) for m in game.get("moderators", [])],
            forum_id=int(forum.get("forum_id") or DEFAULT_FORUM),
        )


class _Tee(io.TextIOBase):
    """A stream that writes through to `target` and keeps a copy (what `expect` reads)."""

    def __init__(self, target: TextIO, copy: io.StringIO) -> None:
        self.target, self.copy = target, copy

    def write(self, text: str) -> int:
        self.copy.write(text)
        return self.target.write(text)

    def flush(self) -> None:
        self.target.flush()

    def isatty(self) -> bool:
        return self.target.isatty()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self.target, "encoding", "utf-8")


@dataclass
class Rehearsal:
    """One board, one clock, the game's work folder; `do(line)` plays one line of a script."""

    game: Game
    workdir: Path
    clock: FakeClock
    board: Board
    url: str = ""
    say: Callable[[str], None] = print
    last_output: str = ""
    last_exit: int | None = None  # a failed command's code until a line expects it
    started: bool = False  # the clock has been set (by the first `at`) or used
    _now_commands: dict[tuple[str, ...], bool] = field(default_factory=dict)

    # -- the clock ----------------------------------------------------------------------------------

    def now(self) -> datetime:
        return datetime.fromtimestamp(self.clock.now, UTC)

    def shown(self, moment: datetime | None = None) -> str:
        local = (moment or self.now()).astimezone(self.game.zone)
        return local.strftime("%d.%m.%Y %H:%M:%S")

    def _move_to(self, moment: datetime, where: str) -> None:
        if not self.started:
            self.clock.now = moment.timestamp()
            self.started = True
            return
        if moment < self.now():
            raise ScriptError(where, _("the clock never goes back: it shows {now}").format(now=self.shown()))
        self.clock.at(moment)

    def _moment(self, text: str, where: str) -> datetime:
        """`2026-11-29 12:00` (the game's zone unless an offset is given), or `23:05`: its next one."""
        text = text.strip()
        if re.fullmatch(r"\d{1,2}:\d{2}(:\d{2})?", text):
            clock_time = time.fromisoformat(text.zfill(5) if len(text) == 4 else text)
            local = self.now().astimezone(self.game.zone)
            moment = datetime.combine(local.date(), clock_time, self.game.zone)
            return (
                moment
                if moment >= local
                else datetime.combine(local.date() + timedelta(days=1), clock_time, self.game.zone)
            )
        try:
            moment = datetime.fromisoformat(text)
        except ValueError:
            raise ScriptError(
                where, _("{text!r} is no moment (2026-11-29 12:00, or 23:05)").format(text=text)
            ) from None
        return moment if moment.tzinfo is not None else moment.replace(tzinfo=self.game.zone)

    # -- the lines ----------------------------------------------------------------------------------

    def do(self, line: str, where: str) -> None:
        text = _COMMENT.sub("", line).strip()
        if not text or text.startswith("#"):
            return
        verb, _sep, rest = text.partition(" ")
        rest = rest.strip()
        if self.last_exit is not None and not (verb == "expect" and rest.startswith("exit ")):
            code, self.last_exit = self.last_exit, None
            raise ScriptError(
                where, _("the command before failed (exit {code}); `expect exit {code}` if it should").format(code=code)
            )
        handler = {
            "at": self._at,
            "wait": self._wait,
            "forumbot": self._forumbot,
            "post": self._post,
            "vote": self._vote,
            "pm": self._pm,
            "reply": self._reply,
            "expect": self._expect,
            "show": self._show,
            "board": self._board,
        }.get(verb)
        if handler is None:
            raise ScriptError(where, _("{verb!r}: not a rehearsal line (see docs/rehearsal.md)").format(verb=verb))
        handler(rest, where)

    def _at(self, rest: str, where: str) -> None:
        self._move_to(self._moment(rest, where), where)
        self.say(f"── {self.shown()} ({self.game.zone.key}) ──")

    def _wait(self, rest: str, where: str) -> None:
        found = _DURATION.fullmatch(rest.replace(" ", ""))
        if not rest or found is None or not any(found.groups()):
            raise ScriptError(where, _("{text!r} is no duration (90s, 30m, 2h, 1d, 1h30m)").format(text=rest))
        days, hours, minutes, seconds = (int(g or 0) for g in found.groups())
        self.started = True
        self.clock.at(self.now() + timedelta(days=days, hours=hours, minutes=minutes, seconds=seconds))
        self.say(f"── {self.shown()} ({self.game.zone.key}) ──")

    def _said(self, rest: str, where: str) -> tuple[str, str]:
        """`NICK: TEXT` (`\\n` in TEXT is a new line): the member, who must exist, and what he writes."""
        nick, sep, text = rest.partition(":")
        nick = nick.strip()
        if not sep or not nick:
            raise ScriptError(where, _("write NICK: TEXT"))
        if self.board.user(nick) is None:
            raise ScriptError(
                where,
                _("{nick!r} has no account on the board (the game's players and moderators do)").format(nick=nick),
            )
        self.started = True
        return nick, text.strip().replace("\\n", "\n")

    def day_topic(self, where: str) -> int:
        """The newest topic the bot opened in the game's forum: the day being played."""
        mine = [t for t in self.board.topics if t.forum_id == self.game.forum_id and t.posts[0].author == BOT]
        if not mine:
            raise ScriptError(where, _("no day topic yet: `forumbot publish` opens it"))
        return max(mine, key=lambda t: t.topic_id).topic_id

    def _post(self, rest: str, where: str) -> None:
        nick, text = self._said(rest, where)
        topic = self.day_topic(where)
        post = self.board.add_post(topic, nick, text)
        self.say(
            _("   {nick} → topic {topic}, post {post}: {text}").format(nick=nick, topic=topic, post=post, text=text)
        )

    def _vote(self, rest: str, where: str) -> None:
        nick, target = self._said(rest, where)
        self._post(f"{nick}: Голосую: [color=red][b]{target}[/b][/color]", where)

    def _pm(self, rest: str, where: str) -> None:
        nick, text = self._said(rest, where)
        pm = self.board.send_pm(nick, BOT, self.game.name, text)
        self.say(_("   {nick} → PM {pm} to {bot}: {text}").format(nick=nick, pm=pm, bot=BOT, text=text))

    def _reply(self, rest: str, where: str) -> None:
        """An answer to the newest PM the bot sent the member, in its conversation ("Re: subject")."""
        nick, text = self._said(rest, where)
        received = [m for m in self.board.pms_to(nick) if m.sender == BOT]
        if not received:
            raise ScriptError(where, _("{bot} has sent {nick} no PM to answer").format(bot=BOT, nick=nick))
        subject = received[0].subject
        subject = subject if subject.startswith("Re: ") else f"Re: {subject}"
        pm = self.board.send_pm(nick, BOT, subject, text)
        self.say(
            _("   {nick} → PM {pm} to {bot} «{subject}»: {text}").format(
                nick=nick, pm=pm, bot=BOT, subject=subject, text=text
            )
        )

    def _show(self, rest: str, where: str) -> None:
        """`show topic`: the day topic's posts; `show pms NICK`: the PMs the bot sent the member."""
        what, _sep, nick = rest.partition(" ")
        lines: list[str] = []
        if what == "topic":
            for post in self.board.topic(self.day_topic(where)).posts:
                lines.append(f"[{self.shown(post.time)}] {post.author}: {post.body}")
        elif what == "pms" and nick.strip():
            nick = nick.strip()
            if self.board.user(nick) is None:
                raise ScriptError(where, _("{nick!r} has no account on the board").format(nick=nick))
            for pm in reversed(self.board.pms_to(nick)):
                if pm.sender == BOT:
                    lines.append(f"[{self.shown(pm.time)}] «{pm.subject}»\n{pm.body}")
        else:
            raise ScriptError(where, _("show topic | show pms NICK"))
        self.last_output = "\n".join(lines)
        self.say(self.last_output or _("   (nothing)"))

    def _board(self, rest: str, where: str) -> None:
        self.say(self.welcome())

    def _expect(self, rest: str, where: str) -> None:
        if rest.startswith("exit "):
            wanted = rest.removeprefix("exit ").strip()
            code, self.last_exit = self.last_exit, None
            if str(code or 0) != wanted:
                raise ScriptError(
                    where,
                    _("expected exit {wanted}, the command before ended with {code}").format(
                        wanted=wanted, code=code or 0
                    ),
                )
            return
        wanted = " ".join(rest.strip("\"'").split())
        if wanted not in " ".join(_NOISE.sub(" ", self.last_output).split()):
            raise ScriptError(where, _("expected {text!r} in what the line before printed").format(text=wanted))

    # -- forumbot -----------------------------------------------------------------------------------

    def _forumbot(self, rest: str, where: str) -> None:
        try:
            args = shlex.split(os.path.expandvars(rest))
        except ValueError as exc:
            raise ScriptError(where, _("cannot split the command: {error}").format(error=exc)) from None
        if "--now" in args:
            raise ScriptError(where, _("the rehearsal's clock gives --now: move it with `at` or `wait`"))
        if self._takes_now(args):
            args += ["--now", self.now().isoformat()]
        self.started = True
        self.say(f"$ forumbot {rest}")
        code, self.last_output = self.run_forumbot(args)
        if code:
            self.last_exit = code

    def _takes_now(self, args: list[str]) -> bool:
        import typer.main
        from typer._click import Command, Context

        import forumbot.cli as cli

        words = tuple(a for a in args[:2] if not a.startswith("-"))
        if words not in self._now_commands:
            command: Command = typer.main.get_command(cli.app)
            for word in words:
                group = getattr(command, "get_command", None)
                if group is None:
                    break
                found = group(Context(command), word)
                if found is None:
                    break
                command = found
            self._now_commands[words] = any("--now" in getattr(p, "opts", ()) for p in command.params)
        return self._now_commands[words]

    def run_forumbot(self, args: list[str]) -> tuple[int, str]:
        """One forumbot command in this process, its client on the rehearsal's clock; its exit code and output."""
        from typer._click.exceptions import ClickException
        from typer.exceptions import Abort, Exit

        import forumbot.cli as cli
        from forumbot.forum.registry import open_client

        copy = io.StringIO()
        own = vars(cli).get("open_client")  # the seam every command opens its client through (None: the default)
        cli.open_client = lambda settings: open_client(settings, clock=self.clock)
        real_out, real_err = sys.stdout, sys.stderr
        sys.stdout, sys.stderr = _Tee(real_out, copy), _Tee(real_err, copy)
        try:
            result = cli.app(args, prog_name="forumbot", standalone_mode=False)
            code = result if isinstance(result, int) else 0
        except ClickException as exc:
            exc.show()
            code = exc.exit_code
        except Exit as exc:
            code = exc.exit_code
        except Abort:
            code = 1
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        finally:
            sys.stdout, sys.stderr = real_out, real_err
            if own is None:
                del cli.open_client
            else:
                cli.open_client = own
        if code:
            print(_("   (exit {code})").format(code=code), file=sys.stderr)
        return code, copy.getvalue()

    # -- the board ----------------------------------------------------------------------------------

    def welcome(self) -> str:
        others = ", ".join([*self.game.moderators, *self.game.players])
        return _(
            "the board: {url} (phpBB 3.3, {zone}); every account's password: {password}\n"
            "   the bot: {bot}; the moderators and players: {others}\n"
            "   the work folder (state file, pages written): {folder}"
        ).format(
            url=self.url, zone=self.game.board_zone, password=PASSWORD, bot=BOT, others=others, folder=self.workdir
        )


def make_board(game: Game, clock: FakeClock) -> Board:
    """The game's board: the bot (a moderator of the game's forum), the moderators and the players."""
    board = Board(
        "Форум мафии (репетиция)",
        "Local rehearsal board",
        now=lambda: datetime.fromtimestamp(clock.now, UTC),
        language="ru",
        timezone=game.board_zone,
    )
    for nick in dict.fromkeys([BOT, *game.moderators, *game.players]):
        board.add_user(nick, PASSWORD)
    board.add_forum("Мафия", forum_id=game.forum_id, public=True, moderators=[BOT])
    return board


def prepare_workdir(path: Path) -> Path:
    """The work folder, emptied if an earlier rehearsal made it; any other folder with files is refused."""
    if path.exists() and any(path.iterdir()):
        if not (path / MARK).is_file():
            raise ScriptError(str(path), _("the work folder holds files no rehearsal made: give another --dir"))
        shutil.rmtree(path)
    path.mkdir(parents=True, exist_ok=True)
    (path / MARK).write_text("made by python -m fakeboard rehearse: emptied by the next rehearsal\n", "utf-8")
    return path.resolve()


@contextmanager
def environment(values: dict[str, str], folder: Path) -> Iterator[None]:
    """forumbot's settings for the rehearsal (the bot's account, the board, the state file) and the work folder
    as the current one (what a command writes lands there), put back after."""
    saved = {key: os.environ.get(key) for key in values}
    os.environ.update(values)
    here = Path.cwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(here)
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def script_lines(path: Path | None, stdin: TextIO) -> Iterable[tuple[str, str]]:
    """Each line to play and where it stands: the script's `file:line` (read at once, named as given), or
    the standard input's, read as they come."""
    if path is None:
        return _typed(stdin)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ScriptError(str(path), _("cannot read the script: {error}").format(error=exc)) from None
    return [(line, f"{path}:{number}") for number, line in enumerate(text.splitlines(), 1)]


def _typed(stdin: TextIO) -> Iterator[tuple[str, str]]:
    for number, line in enumerate(stdin, 1):
        if line.strip() in ("quit", "exit"):
            return
        yield line, f"<stdin>:{number}"


def rehearse(config: Path, script: Path | None, workdir: Path, *, stdin: TextIO = sys.stdin) -> int:
    """Play a rehearsal; 0 when every line was done and held, 1 at the first that did not (named)."""
    from fakeboard.phpbb import BoardServer

    try:
        game = Game.load(config)
        lines = script_lines(script, stdin)  # before the work folder becomes the current one
        folder = prepare_workdir(workdir)
    except ScriptError as exc:
        print(_("error:"), exc, file=sys.stderr)
        return 2
    clock = FakeClock(datetime.now(UTC).replace(microsecond=0))
    board = make_board(game, clock)
    typed = script is None and stdin.isatty()
    with BoardServer(board, clock=clock) as server:
        play = Rehearsal(game, folder, clock, board, url=server.url)
        settings = {
            "FORUMBOT_BASE_URL": server.url,
            "FORUMBOT_USERNAME": BOT,
            "FORUMBOT_PASSWORD": PASSWORD,
            "FORUMBOT_STATE": str(folder / "state.db"),
            "FORUMBOT_HOME": str(folder),
            "CONFIG": str(game.path),
            "GAME": game.name,
        }
        print(play.welcome())
        with environment(settings, folder):
            return _play(play, lines, typed, server.errors)


def _play(play: Rehearsal, lines: Iterable[tuple[str, str]], typed: bool, errors: list[str]) -> int:
    if typed:
        print(_("type the script's lines (docs/rehearsal.md); `quit` or Ctrl-D ends the rehearsal"))
    for line, where in _prompted(lines, play, typed):
        try:
            play.do(line, where)
        except ScriptError as exc:
            print(_("error:"), exc, file=sys.stderr)
            if not typed:
                return 1
            play.last_exit = None
        if errors:
            print(
                _("error:"),
                _("{where}: the fake board failed a request:").format(where=where),
                errors[-1],
                file=sys.stderr,
            )
            return 1
        if typed:
            play.last_exit = None  # typed: a failed command is seen at once, the next line is the host's answer
    if play.last_exit is not None:
        print(_("error:"), _("the last command failed (exit {code})").format(code=play.last_exit), file=sys.stderr)
        return 1
    print(
        _("the rehearsal is over at {moment}; its state file: {path}").format(
            moment=play.shown(), path=play.workdir / "state.db"
        )
    )
    return 0


def _prompted(lines: Iterable[tuple[str, str]], play: Rehearsal, typed: bool) -> Iterator[tuple[str, str]]:
    iterator = iter(lines)
    while True:
        if typed:
            print(f"[{play.shown()}] > ", end="", flush=True)
        found = next(iterator, None)
        if found is None:
            return
        yield found


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m fakeboard rehearse",
        description=_("A rehearsal of a game on a local fake phpBB board, the board and forumbot on one clock."),
    )
    parser.add_argument("config", type=Path, help=_("the game's config (TOML), without [forum] base_url"))
    parser.add_argument("script", type=Path, nargs="?", help=_("the rehearsal script; without it, lines from stdin"))
    parser.add_argument(
        "--dir", type=Path, default=Path("out/rehearsal"), help=_("the work folder (default: out/rehearsal)")
    )
    args = parser.parse_args(argv)
    return rehearse(args.config, args.script, args.dir)


__all__ = ["BOT", "PASSWORD", "Game", "Rehearsal", "ScriptError", "main", "make_board", "rehearse"]
