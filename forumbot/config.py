"""Settings and game config.

- `Settings`: the bot account and machine settings, only from the environment or `.env` (secrets never
  live in a game config). Every field is listed, commented, in `.env.example`.
- `GameConfig`: one game, from a TOML file, validated by pydantic; an error names the file and the field.
  The stored config remembers its file (`source`): an edit made after new-game is applied when every changed
  field may change mid-game, else refused naming the field (`config_changes`).
- The home (`FORUMBOT_HOME`, else `~/.forumbot` if it exists, else the platform's user data folder): a `.env`
  there is read after the current folder's, and a `forumbot.db` there is the state file when the current folder
  has none, so commands run from anywhere.
"""

from __future__ import annotations

import io
import os
import tomllib
import unicodedata
from datetime import time
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_settings import BaseSettings, SettingsConfigDict

from forumbot.engine.variants import VARIANTS, find_variant
from forumbot.errors import N_, ConfigError, RulesError
from forumbot.forum import registry
from forumbot.i18n import gettext, ngettext


class Settings(BaseSettings):
    """The bot's account and the machine's settings (`FORUMBOT_*` variables or `.env`)."""

    model_config = SettingsConfigDict(env_prefix="FORUMBOT_", env_file=".env", extra="ignore")

    username: str | None = None
    password: SecretStr | None = None
    base_url: str | None = None
    user_agent: str | None = None
    state: Path = Path("forumbot.db")
    concurrency: int = Field(default=4, ge=1, le=16)
    min_interval: float = Field(default=0.0, ge=0)  # spacing between request starts; concurrency bounds the load
    requests_per_minute: int = Field(default=120, ge=1)  # the request budget (a burst of 15 minutes of it)
    timeout: float = Field(default=20.0, gt=0)

    @field_validator("base_url")
    @classmethod
    def _web_address(cls, value: str | None) -> str | None:
        return web_address(value)

    def require_account(self) -> tuple[str, str]:
        """The login, or a ConfigError naming the missing setting."""
        if not self.username:
            raise ConfigError(N_("FORUMBOT_USERNAME is not set (in the environment or .env)"))
        if self.password is None or not self.password.get_secret_value():
            raise ConfigError(N_("FORUMBOT_PASSWORD is not set (in the environment or .env)"))
        return self.username, self.password.get_secret_value()


def forumbot_home() -> Path:
    """Where a host keeps what every game shares: `FORUMBOT_HOME` when it is set; else `~/.forumbot` where an
    earlier version made it; else the platform's folder for a user's data (platformdirs: `~/.local/share/forumbot`
    or `$XDG_DATA_HOME/forumbot` on Linux, `~/Library/Application Support/forumbot` on macOS, `%LOCALAPPDATA%`
    on Windows)."""
    explicit = os.environ.get("FORUMBOT_HOME")
    if explicit:
        return Path(explicit).expanduser()
    earlier = Path.home() / ".forumbot"
    if earlier.is_dir():
        return earlier
    from platformdirs import user_data_path

    return user_data_path("forumbot", appauthor=False)


def env_files() -> tuple[Path, ...]:
    """The `.env` files read, the later winning: the home's, then the current folder's."""
    return (forumbot_home() / ".env", Path(".env"))


def load_settings(env_file: Path | None = None) -> Settings:
    for path in (env_file,) if env_file is not None else env_files():
        check_env_file(path)
    try:
        settings = Settings(_env_file=env_file if env_file is not None else env_files())
    except ValidationError as exc:
        raise ConfigError(_first_error(exc, gettext("setting") + " FORUMBOT_")) from None
    if "state" not in settings.model_fields_set:
        settings = settings.model_copy(update={"state": default_state()})
    return settings


def check_env_file(path: Path) -> None:
    """A `.env` line that does not read as KEY=VALUE, or a FORUMBOT_ name that is no setting, refused naming the
    file and the line (the line itself is never shown: it may hold the password)."""
    from dotenv.parser import parse_stream

    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        return
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(N_("{path}: cannot read: {error}"), path=path, error=exc) from None
    known = {f"FORUMBOT_{name.upper()}" for name in Settings.model_fields}
    for binding in parse_stream(io.StringIO(text)):
        written = binding.original.string
        line = binding.original.line + written[: len(written) - len(written.lstrip())].count("\n")
        key = binding.key or ""
        if binding.error or (key.upper().startswith("FORUMBOT_") and binding.value is None):
            raise ConfigError(
                N_("{path}:{line}: not a KEY=VALUE line (e.g. FORUMBOT_USERNAME=Ведущий)"), path=path, line=line
            )
        if key.upper().startswith("FORUMBOT_") and key.upper() not in known and key.upper() != "FORUMBOT_HOME":
            raise ConfigError(
                N_("{path}:{line}: {key} is no setting of forumbot (known: {names})"),
                path=path,
                line=line,
                key=key,
                names=", ".join(sorted(known)),
            )


def default_state() -> Path:
    """The state file when FORUMBOT_STATE names none: `forumbot.db` here, else the home's if it exists."""
    here, home = Path("forumbot.db"), forumbot_home() / "forumbot.db"
    return home if not here.exists() and home.is_file() else here


def web_address(value: str | None) -> str | None:
    """A forum's address: http or https, with a host (`ftp://x/`, `forum.example` or `http:///` name none)."""
    if value is None:
        return None
    parts = urlsplit(value.strip())
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        said = gettext("{value!r} is not a forum's web address: give http://… or https://… with the host")
        raise ValueError(said.format(value=value))
    return value.strip()


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ForumConfig(Strict):
    engine: str = registry.DEFAULT  # a forum engine's name, as the registry knows it
    base_url: str | None = None  # falls back to FORUMBOT_BASE_URL
    saved_pages: Path | None = None  # a folder of saved pages (engine "saved")
    forum_id: int | None = None  # where the day topics are posted
    signup_topic: str | None = None
    # The time zone of the bot account's forum profile: phpBB prints PM and edit dates in it as plain text
    # (post times carry UTC in the markup). None: phpBB UTC; IPB 2.x infers it from the page footer.
    timezone: str | None = None
    # The request budget on this board, per minute on average: overrides FORUMBOT_REQUESTS_PER_MINUTE.
    requests_per_minute: int | None = Field(default=None, ge=1)
    # The board's flood interval in seconds (phpBB: the "flood interval" of its posting settings), kept between
    # two posts or PMs of the bot. None: learned from the board's own answers.
    flood_interval: float | None = Field(default=None, gt=0, le=3600)

    @field_validator("engine")
    @classmethod
    def _known_engine(cls, value: str) -> str:
        return registry.check_engine(value)

    @field_validator("base_url")
    @classmethod
    def _web_address(cls, value: str | None) -> str | None:
        return web_address(value)

    @field_validator("timezone")
    @classmethod
    def _forum_zone(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                ZoneInfo(value)
            except (ZoneInfoNotFoundError, ValueError):
                raise ValueError(gettext("unknown time zone {value!r}").format(value=value)) from None
        return value

    @model_validator(mode="after")
    def _source(self) -> ForumConfig:
        if not registry.dialect(self.engine).network and self.saved_pages is None:
            said = gettext("engine {engine!r} needs saved_pages (a folder of .html files)")
            raise ValueError(said.format(engine=self.engine))
        return self


class TemplatesConfig(Strict):
    day: Path | None = None
    vote_count: Path | None = None
    role: Path | None = None
    report: Path | None = None  # the personal morning report ([game] morning_reports)


class GameSection(Strict):
    name: str
    variant: str
    players: list[str] = Field(default_factory=list)
    moderators: list[str] = Field(default_factory=list)
    # A moderator receives every order and check in the draft: one who also plays is refused unless the host
    # says so here (a small game whose moderator plays, knowing what he sees).
    moderators_may_play: bool = False
    timezone: str = "Europe/Moscow"
    deadline: time = time(23, 0)
    options: dict[str, Any] = Field(default_factory=dict)
    # seed 000's «утренняя газета»: a personal PM to every living player with each day's publication
    # (what he may know, the votes, his clan's or his checks' section); off: it costs a PM per player a day.
    morning_reports: bool = False

    @field_validator("name")
    @classmethod
    def _one_line_name(cls, value: str, info: ValidationInfo) -> str:
        if _stored(info):
            return value
        if not value.strip():
            raise ValueError(gettext("the game's name is empty"))
        if value != value.strip():
            raise ValueError(gettext("{value!r} has spaces around it: write the name without them").format(value=value))
        if not one_line(value):
            raise ValueError(
                gettext("{value!r} is not one line of text: give the name on one line").format(value=value)
            )
        return value

    @field_validator("deadline", mode="before")
    @classmethod
    def _deadline_is_a_time(cls, value: Any) -> Any:
        """A TOML integer would be read as seconds after midnight (23 -> 00:00:23): refused, not guessed."""
        if isinstance(value, int | float) and not isinstance(value, bool):
            hint = f"{value:02d}:00" if isinstance(value, int) and 0 <= value < 24 else "HH:MM"
            raise ValueError(
                f"{value!r} is a number, not a time of day (it would read as {value} seconds after midnight): "
                f'write deadline = "{hint}"'
            )
        return value

    @field_validator("variant")
    @classmethod
    def _known_variant(cls, value: str) -> str:
        if value not in VARIANTS:
            raise ValueError(
                gettext("unknown variant {value!r}; known: {known}").format(value=value, known=", ".join(VARIANTS))
            )
        return value

    @field_validator("timezone")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError):
            raise ValueError(gettext("unknown time zone {value!r}").format(value=value)) from None
        return value

    @field_validator("players", "moderators")
    @classmethod
    def _distinct(cls, value: list[str], info: ValidationInfo) -> list[str]:
        if _stored(info):
            return value
        problem = roster_problem(value, N_("player") if info.field_name == "players" else N_("moderator"))
        if problem is not None:
            raise ValueError(problem)
        return value

    @model_validator(mode="after")
    def _moderators_apart(self, info: ValidationInfo) -> GameSection:
        both = playing_moderators(self.players, self.moderators)
        if both and not self.moderators_may_play and not _stored(info):
            raise ValueError(
                f"moderators: {', '.join(map(repr, both))} also play, and a moderator receives every order and "
                "check: list him in one place, or set moderators_may_play = true"
            )
        return self

    @field_validator("options")
    @classmethod
    def _options_valid(cls, value: dict[str, Any], info: ValidationInfo) -> dict[str, Any]:
        """The variant's own checks of its options (values outside their sense are refused, field named)."""
        variant = info.data.get("variant")
        if variant is None:  # unknown: already reported on `variant`
            return value
        try:
            find_variant(variant).parse_options(value)
        except RulesError as exc:
            raise ValueError(str(exc)) from None
        return value

    @property
    def zone(self) -> ZoneInfo:
        return ZoneInfo(self.timezone)


def _stored(info: ValidationInfo) -> bool:
    """A config stored by an earlier forumbot is read as it was accepted then: the checks made since apply to
    a config file when it is read (`load_game_config`), not to a game already under way."""
    return bool(info.context and info.context.get("stored"))


STORED = {"stored": True}  # the validation context of a config read back from the state file


def one_line(text: str) -> bool:
    """No line break, tab or other control character (format characters such as a direction mark are text)."""
    return not any(unicodedata.category(c) in ("Cc", "Zl", "Zp") for c in text)


def account_key(nick: str) -> str:
    """The board's account a nick names: a board ignores case and repeated spaces in a user name."""
    return " ".join(nick.split()).casefold()


def roster_problem(nicks: list[str], what: str) -> str | None:
    """What is wrong with a list of nicks as a board's accounts: an empty one, spaces around one, a line
    break in one, or two that name one account ("Alice", "alice", "Alice  Smith" and "Alice Smith"); `what`
    names them ("player", "moderator"), said in the host's language."""
    what = gettext(what)
    seen: dict[str, str] = {}
    for nick in nicks:
        if not nick.strip():
            return gettext("a {what} nick is empty").format(what=what)
        if nick != nick.strip():
            return gettext("{what} {nick!r} has spaces around it: a board's nick has none").format(what=what, nick=nick)
        if not one_line(nick):
            return gettext("{what} {nick!r} is not one line of text").format(what=what, nick=nick)
        key = account_key(nick)
        if key in seen:
            said = (
                gettext("{what} {nick!r} is listed twice: list it once")
                if seen[key] == nick
                else gettext("{what} {nick!r} and {other!r} are one account on a board: list it once")
            )
            return said.format(what=what, nick=nick, other=seen[key])
        seen[key] = nick
    return None


def playing_moderators(players: list[str], moderators: list[str]) -> list[str]:
    """The moderators who are also players (as a board's accounts: case and spaces aside)."""
    playing = {account_key(p) for p in players}
    return [m for m in moderators if account_key(m) in playing]


def lookalike_warnings(players: list[str]) -> list[str]:
    """A warning for each pair of players whose nicks look alike (`extract.names.looks_alike`): both may be
    real accounts, but every reader, the host included, may take one for the other."""
    from forumbot.extract.names import looks_alike

    return [
        gettext(
            "players {a!r} and {b!r} look alike: make sure both are real accounts, and tell the players apart"
        ).format(a=a, b=b)
        for i, a in enumerate(players)
        for b in players[i + 1 :]
        if looks_alike(a, b)
    ]


class WatchConfig(Strict):
    """What `forumbot watch` does between day ends."""

    receipts: bool = True  # answer each order PM with a receipt
    count_every_minutes: int = Field(default=60, ge=1)  # interim vote count: at most this often...
    count_every_posts: int = Field(default=50, ge=1)  # ...or after this many new posts, if the count changed
    interim_counts: bool = True
    relays: bool = False  # #mail / #mafia / #jakudza / #wall (seed 000); off unless the game turns them on
    relay_limit: int = Field(default=10, ge=0)  # relays per player per day
    # A reply in the day topic this many hours before the deadline (0: none).
    reminder_hours: float = Field(default=0, ge=0, le=72)
    # Lock the day topic when the deadline passes, so late posts cannot confuse anyone (publish locks it anyway).
    lock_at_deadline: bool = False
    # With reminder_hours: also a PM to each living player whose vote has not arrived, where the rules make
    # a player who sends none pay for it (salon: he dies).
    remind_missing_votes: bool = False
    auto_publish: bool = False  # publish an approved draft by itself (else wait for `forumbot publish`)
    magic_word: str | None = None  # private games (seed 000's kozanostraXX): a PM with this word signs up
    max_players: int | None = Field(default=None, ge=2)  # the game starts when this many have signed up
    # When the day ends: at its deadline, or (seed 000's `duel`) as soon as every living player has moved.
    schedule: Literal["deadline", "duel"] = "deadline"


class GameConfig(Strict):
    game: GameSection
    forum: ForumConfig = ForumConfig()
    templates: TemplatesConfig = TemplatesConfig()
    watch: WatchConfig = WatchConfig()
    source: Path | None = None  # the file it was read from (set by forumbot, not written in the file)


# What may not change once a game exists ("" = from new-game on, "deal" = once the roles are dealt): the
# engine's state keeps its own copy of these, so an edit would be ignored, and that is refused instead.
FROZEN_FIELDS = {"game.name": "", "game.variant": "", "game.players": "deal", "game.options": "deal"}


def config_changes(stored: GameConfig, edited: GameConfig, *, dealt: bool) -> list[str]:
    """The fields the host changed, as "field: old -> new"; a ConfigError naming the first that may not change."""
    before, after = _flat(stored.model_dump(mode="json")), _flat(edited.model_dump(mode="json"))
    changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k) and k != "source")
    for key in changed:
        frozen = next(
            (when for field, when in FROZEN_FIELDS.items() if key == field or key.startswith(field + ".")), None
        )
        if frozen == "" or (frozen == "deal" and dealt):
            said = (
                N_(
                    "{path}: {key} cannot change once the roles are dealt (stored {stored!r}, "
                    "the file says {given!r}): put it back"
                )
                if frozen
                else N_(
                    "{path}: {key} cannot change after new-game (stored {stored!r}, "
                    "the file says {given!r}): put it back"
                )
            )
            raise ConfigError(said, path=edited.source, key=key, stored=before.get(key), given=after.get(key))
    return [f"{key}: {before.get(key)!r} -> {after.get(key)!r}" for key in changed]


def _flat(data: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(value, dict) and key != "options":
            flat |= _flat(value, f"{prefix}{key}.")
        else:
            flat[f"{prefix}{key}"] = value
    return flat


def load_game_config(path: Path, *, stored: bool = False) -> GameConfig:
    """The game's config file, validated (a ConfigError names the file and the field). `stored`: only the
    checks a config already stored in the state file passed (see `_stored`)."""
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(N_("{path}: no such config file"), path=path) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(N_("{path}: cannot read: {error}"), path=path, error=exc) from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(N_("{path}: not valid TOML: {error}"), path=path, error=exc) from None
    if "source" in raw:
        raise ConfigError(N_("{path}: source: set by forumbot (the config's own file), not written in it"), path=path)
    try:
        config = GameConfig.model_validate(raw | {"source": str(path.resolve())}, context=STORED if stored else None)
    except ValidationError as exc:
        raise ConfigError(N_("{path}: {problem}"), path=path, problem=_first_error(exc)) from None
    resolved = _resolve_paths(config, path.resolve().parent)
    for key, template in resolved.templates.model_dump().items():
        if template is not None and not Path(template).is_file():
            raise ConfigError(
                N_("{path}: templates.{key}: no such template file {template}"), path=path, key=key, template=template
            )
    pages = resolved.forum.saved_pages
    if not stored and not registry.dialect(resolved.forum.engine).network and pages is not None and not pages.is_dir():
        what = "is not a folder" if pages.exists() else "no such folder"
        raise ConfigError(N_("{path}: forum.saved_pages: {what}: {pages}"), path=path, what=what, pages=pages)
    return resolved


def _resolve_paths(config: GameConfig, base: Path) -> GameConfig:
    """Relative paths in a config are relative to the config file."""
    forum = config.forum
    if forum.saved_pages is not None and not forum.saved_pages.is_absolute():
        forum = forum.model_copy(update={"saved_pages": base / forum.saved_pages})
    templates = {
        k: (base / v if v is not None and not v.is_absolute() else v) for k, v in config.templates.model_dump().items()
    }
    return config.model_copy(update={"forum": forum, "templates": TemplatesConfig(**templates)})


# pydantic's words for the problems a host's config most often has, in the host's language; the rest as
# pydantic says them. Each is filled in with the error's context (`ge`, `expected`...).
PYDANTIC_WORDS: dict[str, str] = {
    "missing": N_("missing"),
    "extra_forbidden": N_("not a known setting"),
    "int_parsing": N_("should be a whole number"),
    "int_type": N_("should be a whole number"),
    "float_parsing": N_("should be a number"),
    "float_type": N_("should be a number"),
    "bool_parsing": N_("should be true or false"),
    "bool_type": N_("should be true or false"),
    "string_type": N_("should be text"),
    "list_type": N_("should be a list"),
    "dict_type": N_("should be a table"),
    "model_type": N_("should be a table"),
    "greater_than_equal": N_("should be at least {ge}"),
    "greater_than": N_("should be more than {gt}"),
    "less_than_equal": N_("should be at most {le}"),
    "less_than": N_("should be less than {lt}"),
    "literal_error": N_("should be {expected}"),
    "time_parsing": N_("should be a time of day (23:00)"),
    "time_type": N_("should be a time of day (23:00)"),
}


def _first_error(exc: ValidationError, prefix: str = "") -> str:
    first = exc.errors()[0]
    where = ".".join(str(x) for x in first["loc"])
    words = PYDANTIC_WORDS.get(first["type"])
    context = first.get("ctx") or {}
    try:
        message = gettext(words).format(**context) if words else str(first["msg"]).removeprefix("Value error, ")
    except (KeyError, IndexError):
        message = str(first["msg"])
    count = len(exc.errors())
    more = ""
    if count > 1:
        more = " " + ngettext("(and {n} more problem)", "(and {n} more problems)", count - 1).format(n=count - 1)
    return f"{prefix}{where}: {message}{more}" if where else f"{message}{more}"
