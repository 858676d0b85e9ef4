"""Small games resolved by the engine, for the render tests: between them, every kind of event the engine
emits, in each variant. Each builder returns (state before, outcome) pairs."""

from __future__ import annotations

from typing import Any

from forumbot.config import GameConfig, GameSection
from forumbot.engine import DayInput, GameState, Order, Player, Vote, resolve_day
from forumbot.engine.model import Action, DayOutcome

Day = tuple[GameState, DayOutcome]

HOSTILE = ("[/b][color=red]x", "[url=http://evil]", "<script>alert(1)</script>")


def config(variant: str, name: str = "Мафия-7", **templates: Any) -> GameConfig:
    return GameConfig.model_validate(
        {"game": {"name": name, "variant": variant}, "templates": {k: v for k, v in templates.items()}}
    )


def section(variant: str) -> GameSection:
    return GameSection(name="Мафия-7", variant=variant)


def votes(*pairs: tuple[str, str] | tuple[str, str, str]) -> tuple[Vote, ...]:
    return tuple(Vote(voter=p[0], targets=tuple(p[1:])) for p in pairs)


def orders(*triples: tuple[str, Action, str]) -> tuple[Order, ...]:
    return tuple(Order(actor=a, action=act, targets=(t,)) for a, act, t in triples)


def play(state: GameState, *days: DayInput) -> list[Day]:
    history: list[Day] = []
    for day_input in days:
        outcome = resolve_day(state, day_input)
        history.append((state, outcome))
        state = outcome.state
    return history


# --- gameru-3.3 --------------------------------------------------------------------------------------


def gameru_players(names: dict[str, str] | None = None) -> tuple[Player, ...]:
    n = names or {}

    def nick(default: str) -> str:
        return n.get(default, default)

    return (
        Player(nick=nick("Дон"), role="mafia", boss=True),
        Player(nick=nick("Сонни"), role="mafia"),
        Player(nick=nick("Фредо"), role="mafia"),
        Player(nick=nick("Шериф"), role="sheriff"),
        Player(nick=nick("Мясник"), role="maniac"),
        Player(nick=nick("Анна"), role="civilian"),
        Player(nick=nick("Борис"), role="civilian"),
        Player(nick=nick("Вера"), role="civilian"),
        Player(nick=nick("Глеб"), role="civilian"),
        Player(nick=nick("Дина"), role="civilian"),
    )


def gameru_days(names: dict[str, str] | None = None) -> list[Day]:
    """Day 1: the boss executed (a new boss), the mafia's, the sheriff's and the maniac's kills, a player dead
    of the epidemic of loneliness. Day 2: no votes, the sheriff checks a civilian (harmless, private), the
    maniac executed... no: nobody executed. Day 3: the silent sheriff of a new game dies, a new sheriff."""
    n = names or {}

    def nick(default: str) -> str:
        return n.get(default, default)

    state = GameState(
        variant="gameru-3.3",
        seed=7,
        players=gameru_players(names),
        silent_streak={nick("Дина"): 1},
        options={"replace_maniac": True},
    )
    day1 = DayInput(
        votes=votes(
            (nick("Анна"), nick("Дон")),
            (nick("Борис"), nick("Дон")),
            (nick("Вера"), nick("Дон")),
            (nick("Сонни"), nick("Анна")),
        ),
        orders=orders(
            (nick("Дон"), "kill", nick("Борис")),
            (nick("Шериф"), "check", nick("Фредо")),
            (nick("Мясник"), "kill", nick("Вера")),
        ),
        silent=frozenset({nick("Дина")}),
    )
    day2 = DayInput(
        votes=votes((nick("Анна"), nick("Мясник")), (nick("Глеб"), nick("Мясник"))),
        orders=orders((nick("Шериф"), "check", nick("Глеб"))),
    )
    day3 = DayInput(votes=votes((nick("Анна"), nick("Сонни"))))
    return play(state, day1, day2, day3)


def gameru_silent_sheriff() -> list[Day]:
    state = GameState(variant="gameru-3.3", seed=3, players=gameru_players())
    return play(state, DayInput(silent=frozenset({"Шериф"})))


# --- kozanostra --------------------------------------------------------------------------------------


def kozanostra_days(names: dict[str, str] | None = None) -> list[Day]:
    """Turn 1: a civilian jailed, the mafia's kill, the reanimator saves the maniac's target, the sheriff
    shoots at the jailed (a miss), the yakuza abstain, the lawyer's check, the silent commissar autokilled and
    his role passed on. Turn 2: the boss jailed; the free mafioso's kill stands and kills the heir."""
    n = names or {}

    def nick(default: str) -> str:
        return n.get(default, default)

    players = (
        Player(nick=nick("Дон"), role="mafia"),  # kozanostra's mafia has no boss
        Player(nick=nick("Луиджи"), role="mafia"),
        Player(nick=nick("Каттани"), role="commissar"),
        Player(nick=nick("Айболит"), role="reanimator"),
        Player(nick=nick("Шериф"), role="sheriff"),
        Player(nick=nick("Джек"), role="maniac"),
        Player(nick=nick("Адвокат"), role="lawyer"),
        Player(nick=nick("Ямада"), role="yakuza"),
        Player(nick=nick("Анна"), role="civilian"),
        Player(nick=nick("Борис"), role="civilian"),
        Player(nick=nick("Вера"), role="civilian"),
        Player(nick=nick("Глеб"), role="civilian"),
        Player(nick=nick("Дина"), role="civilian"),
    )
    state = GameState(variant="kozanostra", seed=11, players=players)
    day1 = DayInput(
        votes=votes(
            (nick("Анна"), nick("Глеб")),
            (nick("Борис"), nick("Глеб")),
            (nick("Вера"), nick("Глеб")),
            (nick("Дон"), nick("Анна")),
        ),
        orders=orders(
            (nick("Дон"), "kill", nick("Борис")),
            (nick("Луиджи"), "kill", nick("Борис")),
            (nick("Джек"), "kill", nick("Дина")),
            (nick("Айболит"), "heal", nick("Дина")),
            (nick("Шериф"), "kill", nick("Глеб")),
            (nick("Адвокат"), "check", nick("Шериф")),
        ),
        silent=frozenset({nick("Каттани")}),
    )
    day2 = DayInput(
        votes=votes((nick("Анна"), nick("Дон")), (nick("Вера"), nick("Дон")), (nick("Дина"), nick("Дон"))),
        orders=orders((nick("Дон"), "kill", nick("Анна")), (nick("Луиджи"), "kill", nick("Вера"))),
    )
    return play(state, day1, day2)


# --- salon -------------------------------------------------------------------------------------------


def salon_players(names: dict[str, str] | None = None) -> tuple[Player, ...]:
    n = names or {}

    def nick(default: str) -> str:
        return n.get(default, default)

    return (
        Player(nick=nick("Тони"), role="mafia", boss=True),
        Player(nick=nick("Поли"), role="mafia"),
        Player(nick=nick("Мегрэ"), role="commissar"),
        Player(nick=nick("Мелфи"), role="doctor"),
        Player(nick=nick("Психо"), role="maniac"),
        Player(nick=nick("Ирина"), role="hetaera"),
        Player(nick=nick("Анна"), role="civilian"),
        Player(nick=nick("Борис"), role="civilian"),
        Player(nick=nick("Вера"), role="civilian"),
        Player(nick=nick("Глеб"), role="civilian"),
    )


def salon_days(names: dict[str, str] | None = None) -> list[Day]:
    """Night 1: the maniac visits a non-voter (who kills himself, the visit announced), the hetaera blocks
    the doctor (a miss), the mafia kills, the commissar checks the boss (mafia), an execution.
    Night 2: the doctor heals the maniac's victim (vote counted), the mafia's target healed too (a miss), the
    hetaera sends nothing (a miss), the commissar checks a civilian (НЕ мафия), too few votes to execute.
    Night 3: the vote leader is killed by the mafia: nobody is executed."""
    n = names or {}

    def nick(default: str) -> str:
        return n.get(default, default)

    state = GameState(variant="salon", seed=5, players=salon_players(names))
    everyone = [p.nick for p in state.players]
    voters1 = [v for v in everyone if v != nick("Глеб")]
    day1 = DayInput(
        votes=tuple(Vote(voter=v, targets=(nick("Вера") if v != nick("Вера") else nick("Анна"),)) for v in voters1),
        orders=orders(
            (nick("Психо"), "assault", nick("Глеб")),
            (nick("Ирина"), "sleep", nick("Мелфи")),
            (nick("Мелфи"), "heal", nick("Борис")),
            (nick("Тони"), "kill", nick("Борис")),
            (nick("Мегрэ"), "check", nick("Тони")),
        ),
    )
    alive2 = [v for v in everyone if v not in (nick("Глеб"), nick("Борис"), nick("Вера"))]
    day2 = DayInput(
        votes=tuple(Vote(voter=v, targets=(alive2[(i + 1) % len(alive2)],)) for i, v in enumerate(alive2)),
        orders=orders(
            (nick("Психо"), "assault", nick("Анна")),
            (nick("Мелфи"), "heal", nick("Анна")),
            (nick("Тони"), "kill", nick("Анна")),
            (nick("Мегрэ"), "check", nick("Психо")),
        ),
    )
    day3 = DayInput(
        votes=tuple(Vote(voter=v, targets=(nick("Ирина"),)) for v in alive2 if v != nick("Ирина"))
        + (Vote(voter=nick("Ирина"), targets=(nick("Тони"),)),),
        orders=orders(
            (nick("Психо"), "assault", nick("Поли")),
            (nick("Тони"), "kill", nick("Ирина")),
            (nick("Ирина"), "sleep", nick("Мегрэ")),
            (nick("Мелфи"), "heal", nick("Мелфи")),
        ),
    )
    return play(state, day1, day2, day3)


def host_power_days() -> list[Day]:
    """The host's powers in gameru-3.3: day 1, Анна's slot taken over by Жанна and Дина removed by the
    host; day 2, a change of roles; and a kozanostra game whose last turn names the best player."""
    from forumbot.engine.model import Removal, Replacement, RoleChange

    state = GameState(variant="gameru-3.3", seed=7, players=gameru_players())
    day1 = DayInput(
        replacements=(Replacement(old="Анна", new="Жанна", reason="ушла"),),
        removals=(Removal(nick="Дина", reason="оскорбления"),),
        votes=votes(("Жанна", "Сонни"), ("Борис", "Сонни"), ("Вера", "Сонни")),
    )
    day2 = DayInput(
        votes=votes(("Жанна", "Фредо")),
        scheme=(RoleChange(nick="Глеб", role="sheriff"), RoleChange(nick="Шериф", role="civilian")),
    )
    gameru = play(state, day1, day2)
    kozanostra = GameState(
        variant="kozanostra",
        seed=3,
        options={"game_type": "kozanostra"},
        players=(
            Player(nick="Дон", role="mafia"),
            Player(nick="Анна", role="civilian"),
            Player(nick="Борис", role="civilian"),
        ),
    )
    last = DayInput(votes=votes(("Анна", "Дон"), ("Борис", "Дон"), ("Дон", "Анна")), best_player="Анна")
    return [*gameru, *play(kozanostra, last)]


def host_power_endings() -> list[Day]:
    """gameru-3.3: day 1, Глеб leaves (`Q`) and the host's removal of Сонни has no effect (he is executed);
    day 2, the host makes the last mafioso a civilian: the change decides the game."""
    from forumbot.engine.model import Removal, RoleChange

    state = GameState(variant="gameru-3.3", seed=7, players=gameru_players())
    day1 = DayInput(
        removals=(Removal(nick="Сонни", reason="оскорбления"),),
        leaving=frozenset({"Глеб"}),
        votes=votes(("Анна", "Сонни"), ("Борис", "Сонни"), ("Вера", "Сонни")),
        orders=orders(("Шериф", "check", "Фредо")),
    )
    day2 = DayInput(orders=orders(("Шериф", "check", "Мясник")), scheme=(RoleChange(nick="Дон", role="civilian"),))
    return play(state, day1, day2)
