"""What every command shares: the consoles, one-line failures, the clock, the state file, the forum client.

Kept light on purpose: nothing here imports a subsystem (httpx, lxml, jinja2, pydantic, the engine, the
forum clients) at module level, so `forumbot --help` starts fast; each helper imports what it needs.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.markup import escape as escape_markup

from forumbot.errors import ForumbotError
from forumbot.i18n import N_, _

if TYPE_CHECKING:
    from zoneinfo import ZoneInfo

    from forumbot.config import GameConfig
    from forumbot.forum.client import ClientSettings, ForumClient
    from forumbot.store import GameRow, Store

out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)

StateOption = Annotated[
    Path | None,
    typer.Option(
        "--state",
        help="The state file. Default: FORUMBOT_STATE (environment or .env), else forumbot.db in the current folder, "
        "else the home's forumbot.db when the current folder has none. Only new-game creates one.",
    ),
]
NowOption = Annotated[
    str | None,
    typer.Option(
        "--now",
        help="Act as if it were this moment (ISO; the game's zone if no offset): what the command decides and the "
        "times it records.",
    ),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print the result as JSON.")]


# The exit codes (docs/install.md lists them for cron and systemd): 0 done; 1 a check failed or the host said
# no; 2 the host must act (bad input or config, an unknown nick, the board refusing for good); 75, EX_TEMPFAIL
# of sysexits.h, a fault that passes (the board down or refusing for now, the game busy): run it again later.
EXIT_CHECK_FAILED = 1
EXIT_HOST = 2
EXIT_TEMPFAIL = 75


def exit_code(exc: ForumbotError) -> int:
    """The exit code of an expected failure, from its place in the exception tree (`forumbot.errors`). A
    forum error passes unless the board has refused for good; a game another forumbot holds passes too."""
    from forumbot.errors import (
        ForumError,
        GameBusy,
        HeldForApproval,
        LoginFailed,
        NoPermission,
        TooManyRecipients,
        UnknownRecipient,
    )

    for_good = (LoginFailed, NoPermission, HeldForApproval, UnknownRecipient, TooManyRecipients)
    if isinstance(exc, GameBusy) or (isinstance(exc, ForumError) and not isinstance(exc, for_good)):
        return EXIT_TEMPFAIL
    return EXIT_HOST


def fail(message: str, code: int = EXIT_HOST) -> NoReturn:
    err.print(f"[red]{escape_markup(_('error:'))}[/red] {escape_markup(message)}", markup=True)
    raise typer.Exit(code)


def fail_on(exc: ForumbotError) -> NoReturn:
    """An expected failure as one line, with its exit code."""
    fail(str(exc), exit_code(exc))


@contextmanager
def host_errors() -> Iterator[None]:
    """Every expected failure of the host's commands: one line, its exit code, no traceback."""
    try:
        yield
    except ForumbotError as exc:
        fail_on(exc)


def set_verbosity(verbose: int, quiet: bool) -> None:
    """`-q`: the host's console prints nothing but what goes to stderr (warnings, errors) and --json; `-v`:
    each request to the forum logged on stderr with its date and time (`-vv`: the connections too)."""
    out.quiet = quiet
    if verbose:
        import logging

        handler = logging.StreamHandler()  # stderr, as it is when the log is written
        handler.setFormatter(logging.Formatter("%(asctime)s %(name)s: %(message)s", "%Y-%m-%d %H:%M:%S"))
        for name, level in (("httpx", logging.INFO), ("httpcore", logging.DEBUG if verbose > 1 else logging.WARNING)):
            logger = logging.getLogger(name)
            logger.handlers = [handler]
            logger.setLevel(level)


def print_json(data: Any) -> None:
    import json  # here: json and zoneinfo are no part of --help

    typer.echo(json.dumps(data, ensure_ascii=False, indent=2, default=str))


def print_json_streamed(fields: dict[str, Any]) -> None:
    """An object printed as `print_json` prints it, byte for byte, but a field whose value is an iterator (not
    a list) is written one element at a time: a day's 20,000 vote records are never all in memory as JSON."""
    write = sys.stdout.write
    write("{")
    for n, (key, value) in enumerate(fields.items()):
        write(("," if n else "") + f"\n  {_dumped(key)}: ")
        if isinstance(value, Iterator):
            _write_array(write, value)
        else:
            write(_dumped(value).replace("\n", "\n  "))
    write("\n}\n" if fields else "}\n")
    sys.stdout.flush()


def _write_array(write: Callable[[str], object], items: Iterator[Any]) -> None:
    first = True
    for item in items:
        write(("[" if first else ",") + "\n    " + _dumped(item).replace("\n", "\n    "))
        first = False
    write("[]" if first else "\n  ]")


def _dumped(value: Any) -> str:
    import json

    return json.dumps(value, ensure_ascii=False, indent=2, default=str)


def import_meanwhile(name: str) -> Callable[[], None]:
    """Start importing module `name` in a thread of its own; the function returned waits until it is imported
    (and raises what the import raised). A command starts its heavy subsystems this way and logs in
    meanwhile: the board's form rule makes the login wait a second, in which the import goes on. The modules
    a login imports are the forum layer's, which never import the layers above it (tests/layout): the two
    threads never wait on each other's modules in a circle."""
    import importlib
    import threading

    failed: list[BaseException] = []

    def run() -> None:
        try:
            importlib.import_module(name)
        except BaseException as exc:  # handed to the waiting command: it fails as the import would have
            failed.append(exc)

    thread = threading.Thread(target=run, name=f"import {name}", daemon=True)
    thread.start()

    def wait() -> None:
        thread.join()
        if failed:
            raise failed[0]

    return wait


def return_big_blocks() -> None:
    """Have the C allocator give every block of 64 KB or more back to the system when it is freed (glibc's
    `mallopt(M_MMAP_THRESHOLD)`; elsewhere nothing). A topic read allocates and frees a few such blocks a
    page (the answer, its text, the page as stored); by default glibc raises that threshold after the first
    free and serves the rest from a heap that never shrinks: some 40 MB more at 35,000 posts."""
    import ctypes

    m_mmap_threshold = -3
    try:
        ctypes.CDLL(None).mallopt(m_mmap_threshold, 64 * 1024)
    except (AttributeError, OSError):  # not glibc: its own allocator's ways apply
        pass


def read_nicks(path: Path) -> list[str]:
    """One nick per line; blank lines and lines starting with # are skipped; spaces inside a nick kept."""
    try:
        lines = path.read_text(encoding="utf-8-sig").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        fail(_("cannot read player list {path}: {error}").format(path=path, error=exc))
    return [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]


def parse_option_pairs(pairs: list[str]) -> dict[str, Any]:
    import json

    options: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            fail(_("option {pair!r} is not KEY=VALUE").format(pair=pair))
        try:
            options[key.strip()] = json.loads(value)
        except json.JSONDecodeError:
            options[key.strip()] = value
    return options


def parse_every(text: str) -> timedelta:
    """ "10m", "90s", "1h" -> a duration."""
    units = {"s": 1, "m": 60, "h": 3600}
    number, unit = text[:-1], text[-1:].lower()
    if unit not in units or not number.isdigit() or int(number) == 0:
        fail(_("--every {text!r}: a number followed by s, m or h (e.g. 10m)").format(text=text))
    return timedelta(seconds=int(number) * units[unit])


# --- time -------------------------------------------------------------------------------------------


def parse_moment(text: str | None, zone: ZoneInfo, what: str) -> datetime | None:
    """An ISO date-time; one without an offset is in the game's time zone."""
    if text is None:
        return None
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        fail(_("{what} {text!r} is not an ISO date-time (e.g. 2026-11-29T23:00)").format(what=what, text=text))
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=zone)


def load_zone(name: str) -> ZoneInfo:
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        fail(_("unknown time zone {name!r}").format(name=name))


def current_time(text: str | None, zone: ZoneInfo | None = None) -> datetime:
    """Now, or the moment `--now` gives (without an offset: in `zone`, the game's, else UTC). A `--now` is
    also the time the state file records for the rest of the command (a draft, an approval, an override)."""
    if text is None:
        return datetime.now(UTC)
    from zoneinfo import ZoneInfo

    from forumbot.store import record_at

    moment = parse_moment(text, zone or ZoneInfo("UTC"), "--now")
    assert moment is not None
    record_at(moment)
    return moment


# --- the state file and the forum ------------------------------------------------------------------


def state_path(path: Path | None) -> Path:
    """--state, else FORUMBOT_STATE (from the environment or the `.env` found as `load_settings` finds it)."""
    if path is not None:
        return path
    from forumbot.config import load_settings

    return load_settings().state


def open_store(path: Path | None, *, create: bool = False) -> Store:
    """The state file. Only `new-game` may `create` it: a mistyped path is refused, never answered with a
    new empty state file."""
    from forumbot.store import Store

    where = state_path(path)
    if not create and not where.is_file():
        if where.exists():
            raise_state(
                N_("{path}: the state file is not a file (a game's first state file is made by new-game)"), path=where
            )
        raise_state(
            N_("{path}: the state file does not exist (a game's first state file is made by new-game)"), path=where
        )
    return Store(where, create=create)


def load_game(store: Store, game: str) -> tuple[GameRow, GameConfig]:
    """The game and its config; an edit of the config's file since is applied and told, or refused."""
    from forumbot.host import games

    return games.load(store, game, on_change=lambda change: err.print(change, markup=False))


def raise_state(message: str, **values: Any) -> NoReturn:
    """A StateError: `message` a template for the catalogue, filled in with `values` when shown."""
    from forumbot.errors import StateError

    raise StateError(message, **values)


@contextmanager
def game_client(config: GameConfig, store: Store | None = None) -> Iterator[ForumClient]:
    """The game's forum client, closed however the command ends. With the state file (`store`), the board's
    session kept there is resumed and the one the command ends with is kept (`keeping_session`)."""
    from forumbot.config import load_settings
    from forumbot.forum.registry import client_settings, dialect

    settings = load_settings()
    if dialect(config.forum.engine).network:
        settings.require_account()
    client = client_opener()(client_settings(settings, config.forum))
    try:
        with keeping_session(client, store):
            yield client
    finally:
        client.close()


@contextmanager
def keeping_session(client: ForumClient, store: Store | None) -> Iterator[None]:
    """One login a game, not a command: the account's session on the board, kept in the state file (private
    like the rest of it), is resumed before the first request and used until the board refuses it (the login
    then finds the board not knowing us and logs in anew); the session the command ends with is kept."""
    from forumbot.errors import StateError
    from forumbot.forum.client import ResumesSessions

    if store is None or client.account is None or not isinstance(client, ResumesSessions):
        yield
        return
    forum, account = client.forum, client.account
    kept = store.board_session(forum, account)
    if kept is not None:
        client.resume_session(kept)
    try:
        yield
    finally:
        now = client.kept_session()
        if now is not None and now != kept:
            with suppress(StateError):  # a session not kept costs the next command a login, nothing more
                store.keep_board_session(forum, account, now)


def client_opener() -> Callable[[ClientSettings], ForumClient]:
    """`forumbot.cli.open_client`, looked up when a client is opened: a rehearsal may put its own there."""
    import forumbot.cli

    return_big_blocks()  # a command that opens a client reads pages
    opener: Callable[[ClientSettings], ForumClient] = getattr(forumbot.cli, "open_client")  # noqa: B009
    return opener


def checked_topic(topic: str | None, what: str = N_("topic")) -> str | None:
    """A topic as the host gives it: its number, or a topic URL (http or https) that names one
    (`viewtopic.php?t=N`, `index.php?showtopic=N`); anything else is refused here, not at the next read."""
    from urllib.parse import urlsplit

    from forumbot.errors import ConfigError
    from forumbot.forum.registry import topic_number

    if topic is None:
        return None
    text = topic.strip()
    if text.isdigit() and int(text) > 0:
        return text
    parts = urlsplit(text)
    if parts.scheme in ("http", "https") and parts.netloc and (topic_number(text) or 0) > 0:
        return text
    raise ConfigError(
        N_("{what} {topic!r}: not a topic number nor a topic URL (e.g. 1234, or …/viewtopic.php?t=1234)"),
        what=_(what),
        topic=topic,
    )


def write_private(path: Path, text: str) -> None:
    """Write a file only its owner may read (the draft shows the roles of the day's dead and the checks):
    mode 0600, whether the file is new or was there before."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as file:
        os.fchmod(file.fileno(), 0o600)
        file.write(text)
