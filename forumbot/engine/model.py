"""The engine's value types: roles, actions, players, game state, a day's input and its outcome.

Every model is a frozen pydantic model, so a test builds a state in a line and nothing downstream can
change a resolved day by accident. The vocabulary (role, action, cause and winner ids) is
that of docs/rules/common.md, Vocabulary.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any, Literal, TypeVar, get_args

from pydantic import BaseModel, ConfigDict, Field

Role = Literal[
    "civilian",
    "mafia",
    "commissar",
    "sheriff",
    "doctor",
    "reanimator",
    "hetaera",
    "maniac",
    "lawyer",
    "yakuza",
    "ninja",
]
ROLES: tuple[Role, ...] = get_args(Role)

Action = Literal["vote", "kill", "check", "heal", "sleep", "assault", "special"]
ACTIONS: tuple[Action, ...] = get_args(Action)

Cause = Literal["executed", "mafia", "yakuza", "maniac", "sheriff", "inactive"]
# When several causes would kill one player at once, the first of these is recorded (docs/rules/common.md).
CAUSE_PRIORITY: tuple[Cause, ...] = ("executed", "mafia", "yakuza", "maniac", "sheriff", "inactive")

Winner = Literal["none", "town", "mafia", "yakuza", "maniac", "draw"]
WINNERS: tuple[Winner, ...] = get_args(Winner)

Faction = Literal["town", "mafia", "yakuza", "maniac"]
FACTION_OF: dict[Role, Faction] = {
    "civilian": "town",
    "commissar": "town",
    "sheriff": "town",
    "doctor": "town",
    "reanimator": "town",
    "hetaera": "town",
    "mafia": "mafia",
    "lawyer": "mafia",
    "maniac": "maniac",
    "yakuza": "yakuza",
    "ninja": "yakuza",
}

# What a checker is told: a role id (kozanostra), `mafia`/`maniac`/`not_mafia` (gameru-3.3, salon), or `miss`.
CheckResult = str


def copies(role: Role, n: int) -> list[Role]:
    return [role] * n


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


F = TypeVar("F", bound=Frozen)
_set = object.__setattr__


def evolve(model: F, **changes: Any) -> F:
    """`model.model_copy(update=changes)` for the engine's hot paths: the same new instance for a third less.

    Like `model_copy`, it does not validate `changes`. It sets what pydantic's `__copy__` sets on a model
    with no extra fields and no private attributes, which is every engine model (`Frozen` forbids extras).
    """
    values = model.__dict__.copy()
    values.update(changes)
    cls = type(model)
    copied = cls.__new__(cls)
    _set(copied, "__dict__", values)
    _set(copied, "__pydantic_fields_set__", model.__pydantic_fields_set__ | changes.keys())
    _set(copied, "__pydantic_extra__", None)
    _set(copied, "__pydantic_private__", None)
    return copied


class Player(Frozen):
    nick: str
    role: Role
    boss: bool = False
    alive: bool = True
    death_day: int | None = None
    death_cause: Cause | None = None
    # The slot's earlier nicks, oldest first: a replacement (замена) gives the slot a new account.
    replaced: tuple[str, ...] = ()
    # Whether the slot has shown itself as the maniac: a valid order of the maniac's own sent while holding the
    # role (gameru-3.3, seed 001 «В случае не появления Маньяка»: the host may appoint a new maniac at once when
    # no maniac appeared). Activity before holding the role does not count; an appointment starts it anew.
    appeared: bool = False

    @property
    def faction(self) -> Faction:
        return FACTION_OF[self.role]

    @property
    def is_mafia(self) -> bool:
        return self.role == "mafia"


class GameState(Frozen):
    """Everything the rules need to resolve the next day; `day` is the day to be resolved next."""

    variant: str
    options: dict[str, Any] = Field(default_factory=dict)
    seed: int = 0
    day: int = 1
    players: tuple[Player, ...]
    # Each actor's valid targets of the previous night, per action: the "same target two nights
    # running" rule compares with these whether or not the order succeeded.
    last_targets: dict[str, dict[str, tuple[str, ...]]] = Field(default_factory=dict)
    # Consecutive days with no post and no order, per living player (gameru-3.3 inactivity).
    silent_streak: dict[str, int] = Field(default_factory=dict)
    # Day at whose start a dead sheriff (or maniac) is replaced.
    sheriff_due: int | None = None
    maniac_due: int | None = None
    winner: Winner = "none"

    def player(self, nick: str) -> Player | None:
        for p in self.players:
            if p.nick == nick:
                return p
        return None

    def living(self) -> tuple[Player, ...]:
        return tuple(p for p in self.players if p.alive)

    def nicks(self) -> tuple[str, ...]:
        return tuple(p.nick for p in self.players)

    def dealt_nicks(self) -> tuple[str, ...]:
        """The player list as dealt: each slot's first nick (a replacement gives a slot a new one)."""
        return tuple(p.replaced[0] if p.replaced else p.nick for p in self.players)

    def with_players(self, players: Iterable[Player]) -> GameState:
        return self.model_copy(update={"players": tuple(players)})


class Vote(Frozen):
    """One vote as written, in time order within the day: the voter names one target (two on double days)."""

    voter: str
    targets: tuple[str, ...]
    time: datetime | None = None
    ref: str | None = None  # where it came from (a post permalink), for the audit
    post_id: int | None = None  # the post it was written in (a vote in the day thread), for the host's corrections


class Order(Frozen):
    """One order as sent (a PM line), in time order within the day."""

    actor: str
    action: Action
    targets: tuple[str, ...]
    time: datetime | None = None
    ref: str | None = None


class DayInput(Frozen):
    votes: tuple[Vote, ...] = ()
    orders: tuple[Order, ...] = ()
    # Players with no activity at all this day (no post in the day thread and no order).
    silent: frozenset[str] = frozenset()
    # Posts in the day thread per player, for the audit of salon's three-posts rule (optional).
    posts: dict[str, int] = Field(default_factory=dict)
    # Players who asked to leave the game (the command `Q`): they leave at this resolution, cause `inactive`.
    leaving: frozenset[str] = frozenset()
    # The host's powers, each optional and each recorded as an event (docs/scenarios.md, "The host's powers").
    # New accounts that take over players' slots from the start of this day, applied before anything else.
    replacements: tuple[Replacement, ...] = ()
    # Players the host removes (модкилл): they die at the end of this day, cause `inactive`.
    removals: tuple[Removal, ...] = ()
    # gameru-3.3: a living civilian who is the maniac from the start of the next day.
    appoint_maniac: str | None = None
    # gameru-3.3: the host's change of scheme, new roles of living players from the start of the next day.
    scheme: tuple[RoleChange, ...] = ()
    # kozanostra (game type `kozanostra`): the best player, named on the day that ends the game.
    best_player: str | None = None


class Replacement(Frozen):
    """A new forum account `new` takes over the slot of `old` from the start of the day: the same role, the
    same history; `reason` is the host's, for the audit."""

    old: str
    new: str
    reason: str = ""


class Removal(Frozen):
    """The host removes `nick` from the game (модкилл) for `reason`: he dies at the end of the day."""

    nick: str
    reason: str


class RoleChange(Frozen):
    """One line of the host's change of scheme: `nick` has `role` from the start of the next day; `boss`
    makes that mafioso the boss."""

    nick: str
    role: Role
    boss: bool = False


EventKind = Literal[
    "executed",
    "killed",
    "attacked",
    "saved",
    "healed",
    "blocked",
    "missed",
    "abstained",
    "checked",
    "inherited",
    "new_sheriff",
    "new_maniac",
    "new_boss",
    "inactive",
    "no_execution",
    "void",
    "audit",
    "replaced",
    "removed_by_host",
    "role_changed",
    "best_player",
    "left_game",  # the command `Q`: the player leaves as if removed by the host
    "no_effect",  # a power of the host (or a `Q`) the day made moot: «без последствий», with the reason
    "decided_by_host",  # the host's change of roles decided the game (the post that ends the day says so)
]


class Event(Frozen):
    """One thing that happened (or did not) during the resolution, in the order it happened. `detail` says
    it in English for the audit; the typed fields carry what a text needs (`no_execution`: `reason` is
    no_votes, threshold or leader_dead, with the leader's `votes` and the `needed` share)."""

    kind: EventKind
    actor: str | None = None
    target: str | None = None
    role: Role | None = None
    cause: Cause | None = None
    detail: str = ""
    reason: str | None = None
    votes: int | None = None
    needed: float | None = None


ReasonCode = Literal[
    "replaced",  # the sender's slot is played by another account now (nick: that account)
    "not_a_player",
    "dead",  # the sender (or voter) was dead at the day's start
    "names_nobody",
    "too_many_targets",  # count: how many named, limit: how many allowed, day
    "same_twice",
    "target_replaced",  # nick: the target as named, other: the account that plays the slot now
    "target_not_player",  # nick
    "target_dead",  # nick
    "not_her_action",  # role, action: the role has no such action
    "not_himself",  # role, action: the role may not name himself
    "same_target_again",  # nick: named the night before too
    "too_many_changes",  # limit: how many messages count
    "boss_orders",  # only the boss's order counts for the mafia
    "removed",  # the sender is removed by the host this day: dead before the night, his orders void
    "left",  # the sender leaves the game (`Q`) this day: dead before the night
    "target_removed",  # nick: removed by the host this day, dead before the night
    "target_left",  # nick: leaves the game this day, dead before the night
]


class Reason(Frozen):
    """Why the rules did not count a vote or an order: a code and its values. The English `text` is for
    logs and the JSON audit; `forumbot.render.wording` words each code for the players and moderators."""

    code: ReasonCode
    nick: str | None = None
    other: str | None = None
    role: str | None = None
    action: str | None = None
    count: int | None = None
    limit: int | None = None
    day: int | None = None

    @property
    def text(self) -> str:
        return REASON_TEXT[self.code].format(**self.model_dump())


REASON_TEXT: dict[str, str] = {
    "replaced": "replaced by {nick}",
    "not_a_player": "sender is not a player",
    "dead": "sender is dead",
    "names_nobody": "names nobody",
    "too_many_targets": "names {count} players, {limit} allowed on day {day}",
    "same_twice": "names the same player twice",
    "target_replaced": "target {nick} was replaced by {other}",
    "target_not_player": "target {nick!r} is not a player",
    "target_dead": "target {nick} is dead",
    "not_her_action": "a {role} cannot {action}",
    "not_himself": "a {role} may not {action} himself",
    "same_target_again": "same target two nights running: {nick}",
    "too_many_changes": "too many changes: only the first {limit} messages count",
    "boss_orders": "only the boss's order counts for the mafia",
    "removed": "the sender is removed by the host: dead before the night",
    "left": "the sender leaves the game: dead before the night",
    "target_removed": "target {nick} is removed by the host: dead before the night",
    "target_left": "target {nick} leaves the game: dead before the night",
}


class VoidEntry(Frozen):
    """A vote or order that was not counted, and why (shown to the host in the audit)."""

    kind: Literal["vote", "order"]
    actor: str
    action: Action
    targets: tuple[str, ...]
    reason: str  # in English, as `why.text` says it (drafts of earlier versions hold only this)
    ref: str | None = None
    why: Reason | None = None


class DayOutcome(Frozen):
    day: int
    deaths: dict[str, Cause]
    checks: dict[str, CheckResult | list[CheckResult]]
    winner: Winner
    executed: tuple[str, ...] = ()
    tally: dict[str, int] = Field(default_factory=dict)
    counted_votes: dict[str, tuple[str, ...]] = Field(default_factory=dict)
    events: tuple[Event, ...] = ()
    void: tuple[VoidEntry, ...] = ()
    state: GameState
