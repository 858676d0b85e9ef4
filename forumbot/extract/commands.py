"""Commands a player sends the bot by PM besides orders: seed 000's server commands, adapted to a forum.

    Z                          send me my latest private report again
    O GENDER MALE|FEMALE|...   how the templates speak of me (убит / убита)
    O AFTERLIFE ON|OFF         whether I still get the bot's messages once dead
    Q                          leave the game at the next resolution (cancelled by any later message)
    помощь / help              send me the commands (the players' guide in short)
    #mail <nick> [---]         forward the rest of this PM to <nick>; with "---" without my name
    #mafia / #jakudza          forward the rest of this PM to every living member of that clan
    #wall                      forward the rest of this PM to every living player

A first line that is a relay makes the whole PM a letter (nothing in it is an order). Command lines are
matched case-insensitively; an unknown `O` setting or value is reported, never guessed. The kozanostra
server's passwords (`#mail <game> <nick> <game> <password>`, `#wall <game> <password>`, `#order ...`) are
removed before anything is read (`orders.strip_credentials`): a letter goes to `<nick>`, and nothing of the
password is kept.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from forumbot.extract.orders import Scrubbed, strip_credentials, within_limit

Gender = Literal["male", "female", "neuter", "plural"]
GENDERS: dict[str, Gender] = {
    "male": "male",
    "on": "male",
    "female": "female",
    "ona": "female",
    "ono": "neuter",
    "oni": "plural",
}
RelayKind = Literal["mail", "mafia", "yakuza", "wall"]

_MAIL = re.compile(r"#mail\s+(?P<nick>.+?)(?:\s+(?P<anon>-{3,}))?\s*$", re.IGNORECASE)
_CLAN = {"#mafia": "mafia", "#jakudza": "yakuza", "#yakuza": "yakuza", "#wall": "wall"}
_SETTING = re.compile(r"O\s+(?P<key>\S+)\s+(?P<value>\S+)\s*$", re.IGNORECASE)
HELP_WORDS = ("ПОМОЩЬ", "HELP")  # a line of its own, any case


@dataclass(frozen=True)
class Relay:
    kind: RelayKind
    body: str
    nick: str | None = None  # the addressee of #mail
    anonymous: bool = False


@dataclass(frozen=True)
class Setting:
    key: Literal["gender", "afterlife"]
    value: str  # a Gender, or "on"/"off"


@dataclass(frozen=True)
class PlayerCommands:
    """What one PM asks of the bot besides orders."""

    relay: Relay | None = None
    report: bool = False
    quit: bool = False
    settings: tuple[Setting, ...] = ()
    problems: tuple[str, ...] = ()  # command-like lines that could not be understood
    help: bool = False  # the player asks for the commands


def parse_commands(body_text: str) -> PlayerCommands:
    return commands_in(strip_credentials(body_text))


def commands_in(scrubbed: Scrubbed) -> PlayerCommands:
    """`parse_commands` of a text whose passwords are removed already (`strip_credentials`)."""
    lines = [line.strip() for line in scrubbed.text.splitlines()]
    first = next((i for i, line in enumerate(lines) if line), None)
    if first is None:
        return PlayerCommands()
    relay = _relay(lines[first], "\n".join(lines[first + 1 :]).strip())
    if relay is not None:
        return PlayerCommands(relay=relay)
    report = quit_game = asks_help = False
    settings: list[Setting] = []
    problems: list[str] = []
    for line in within_limit(lines)[0]:  # a letter is relayed whole; commands are read as orders are
        upper = line.upper()
        if upper == "Z":
            report = True
        elif upper == "Q":
            quit_game = True
        elif upper in HELP_WORDS:
            asks_help = True
        elif upper.startswith("O ") or upper == "O":
            found = _setting(line)
            if isinstance(found, Setting):
                settings.append(found)
            else:
                problems.append(found)
    return PlayerCommands(None, report, quit_game, tuple(settings), tuple(problems), asks_help)


def _relay(first_line: str, body: str) -> Relay | None:
    lowered = first_line.lower()
    for word, kind in _CLAN.items():
        if lowered == word or lowered.startswith(word + " "):
            return Relay(kind=kind, body=body)  # type: ignore[arg-type]
    match = _MAIL.match(first_line)
    if match is None:
        return None
    return Relay(kind="mail", body=body, nick=match["nick"].strip(), anonymous=match["anon"] is not None)


def _setting(line: str) -> Setting | str:
    match = _SETTING.match(line)
    if match is None:
        return f"{line!r}: an O command is 'O GENDER <value>' or 'O AFTERLIFE ON|OFF'"
    key, value = match["key"].lower(), match["value"].lower()
    if key == "gender" and value in GENDERS:
        return Setting("gender", GENDERS[value])
    if key == "afterlife" and value in ("on", "off"):
        return Setting("afterlife", value)
    if key in ("gender", "afterlife"):
        allowed = "MALE, FEMALE, ON, ONA, ONO, ONI" if key == "gender" else "ON, OFF"
        return f"{line!r}: {key.upper()} takes one of {allowed}"
    return f"{line!r}: unknown setting {match['key']!r} (GENDER or AFTERLIFE)"


def is_command_line(line: str) -> bool:
    """Whether a line is one of the commands above (Z, Q, O ..., помощь), not an order."""
    upper = line.strip().upper()
    return upper in ("Z", "Q", "O", *HELP_WORDS) or upper.startswith("O ")


def is_magic_word(body_text: str, word: str) -> bool:
    """A private game's signup: the PM says exactly the game's magic word (case matters, seed 000)."""
    return bool(word) and body_text.strip() == word
