"""forumbot's exceptions, one tree. Only the command line (`forumbot.cli`) turns them into exit codes and messages.

    ForumbotError
    ├── ConfigError            bad host config or missing .env setting (our side; exit 2)
    ├── RulesError             engine input the rules cannot accept (unknown role/action, bad counts)
    │   └── DealError          no scheme for this number of players
    ├── ScenarioError          a malformed scenario file (file, line, reason)
    ├── StateError             the state file: unknown game, wrong phase, migration problem
    │   └── GameBusy           another forumbot process holds the game for now: wait, then again
    ├── ParseError             a page that is not what it should be (not a topic page, broken markup)
    └── ForumError             the forum's side
        ├── ForumUnavailable   network fault, timeout, 5xx after retries
        │   ├── MaybeSent      a form that may have reached the board: look for it before sending again
        │   │   └── Unproven   the board answered a write with a page that proves neither way
        │   ├── PageCutShort   a page that kept coming without its end: nothing of it is counted
        │   └── TryLater       the board refused a write for now (flood control, busy): `wait`, then again
        ├── LoginFailed        the forum refused our credentials
        ├── NotLoggedIn        a login wall was served where content was expected
        ├── NoPermission       the account may not see or do this
        ├── HeldForApproval    a post stored but held for a moderator: never post it again
        ├── UnknownRecipient   no member has a PM recipient's name: nothing sent
        ├── TooManyRecipients  more PM recipients than the board takes (`limit`): nothing sent
        ├── Rejected           any other refusal for good, in the board's words: nothing stored
        └── Outdated           a reply made from an earlier read of its topic, which has new posts: not posted

An error is said in the host's language when it is shown, not when it is raised (so the engine, which raises
some, reads no catalogue): it carries its message as a template marked for the catalogue and the values that
fill it in, `raise StateError(N_("{game}: unknown game"), game=name)`; `str(error)` translates the template
(`forumbot.i18n`) and fills it in. A message given without values is translated as it is, if the catalogue
knows it. `N_` is here too, for the engine, which imports nothing else of forumbot.
"""

from __future__ import annotations

from typing import Any

from forumbot.i18n import N_

__all__ = [
    "N_",
    "ConfigError",
    "DealError",
    "ForumError",
    "ForumUnavailable",
    "ForumbotError",
    "LoginFailed",
    "MaybeSent",
    "NoPermission",
    "NotLoggedIn",
    "ParseError",
    "RulesError",
    "ScenarioError",
    "StateError",
]


class ForumbotError(Exception):
    """Base of every error forumbot raises on purpose."""

    def __init__(self, message: str = "", /, *args: Any, **values: Any) -> None:
        super().__init__(message, *args)
        self.template = message
        self.values = values

    def __str__(self) -> str:
        from forumbot.i18n import gettext

        said = gettext(self.template)
        return said.format(**self.values) if self.values else said


class ConfigError(ForumbotError):
    pass


class RulesError(ForumbotError):
    pass


class DealError(RulesError):
    pass


class ScenarioError(ForumbotError):
    def __init__(self, path: str, line: int | None, reason: str, **values: Any) -> None:
        """`reason`: a template for the catalogue, filled in with `values` when shown."""
        self.path, self.line = path, line
        self.where = f"{path}:{line}" if line is not None else path
        super().__init__(reason, **values)

    @property
    def reason(self) -> str:
        """What is wrong, in the host's language (without the file and the line)."""
        return super().__str__()

    def __str__(self) -> str:
        return f"{self.where}: {self.reason}"


class StateError(ForumbotError):
    pass


class GameBusy(StateError):
    """Another forumbot process holds the game (a publish, a watch pass): a passing cause. A command says so
    and stops; the watch waits for its next pass."""


class ParseError(ForumbotError):
    pass


class ForumError(ForumbotError):
    pass


class ForumUnavailable(ForumError):
    pass


class MaybeSent(ForumUnavailable):
    """A post, PM or lock whose request may have reached the board (it answered 5xx or 429, or the
    connection broke after sending): sending it again could make it twice."""


class PageCutShort(ForumUnavailable):
    """A page that did not prove it came whole (its end, its footer, the posts or rows it promises), however
    often it was fetched again: the read stops, naming the page and what it lacks, and nothing of it counts."""


class Unproven(MaybeSent):
    """The board answered a write with a whole page that proves neither that it stored it nor that it
    refused it (an unknown message, quoted); its marker was looked for and is not on the board."""


class TryLater(ForumUnavailable):
    """The board refused a write for the moment (flood control that outlasted the waits, a 429 or 503):
    try again after `wait` seconds (None: it did not say). A busy server may have acted before it
    answered, so what it refused is looked for before it is sent again."""

    def __init__(self, message: str, wait: float | None = None, **values: Any) -> None:
        super().__init__(message, **values)
        self.wait = wait


class LoginFailed(ForumError):
    pass


class NotLoggedIn(ForumError):
    pass


class NoPermission(ForumError):
    pass


class HeldForApproval(ForumError):
    """The board stored the post but holds it for a moderator's approval: players do not see it, and
    posting it again would queue a second copy. Nothing to retry; a moderator must approve it."""


class UnknownRecipient(ForumError):
    """No member of the forum has one of the PM's recipients' names; nothing was sent."""


class TooManyRecipients(ForumError):
    """The board takes at most `limit` recipients in one PM; nothing was sent."""

    def __init__(self, message: str, limit: int, **values: Any) -> None:
        super().__init__(message, **values)
        self.limit = limit


class Rejected(ForumError):
    """The board refused a write for good, in its own words (an empty message, a topic that does not
    exist...): nothing was stored, and sending it again would be refused again."""


class Outdated(ForumError):
    """A reply made from an earlier read of its topic (a vote count), which has new posts since: not
    posted; it is made again from a fresh read."""
