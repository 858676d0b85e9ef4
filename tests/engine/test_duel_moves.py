"""The `duel` schedule's question to the engine: who has not moved yet, and what he still owes."""

from __future__ import annotations

from forumbot.engine.day import ruleset_for
from forumbot.engine.model import Action, GameState, Player


def _state(variant: str, *players: Player, **options: object) -> GameState:
    return GameState(variant=variant, players=players, options=dict(options))


KOZANOSTRA = _state(
    "kozanostra",
    Player(nick="Фредо", role="mafia"),
    Player(nick="Каттани", role="commissar"),
    Player(nick="Джо", role="civilian"),
    Player(nick="Анна", role="civilian", alive=False, death_day=1, death_cause="mafia"),
)


def test_every_living_player_owes_his_vote_and_his_role_s_own_order() -> None:
    missing = ruleset_for(KOZANOSTRA).missing_moves(KOZANOSTRA, voted=[], acted=[])
    assert missing == {"Фредо": {"vote", "kill"}, "Каттани": {"vote", "check"}, "Джо": {"vote"}}


def test_an_s_order_counts_as_the_role_s_own_action_and_then_all_have_moved() -> None:
    rules = ruleset_for(KOZANOSTRA)
    acted: list[tuple[str, Action]] = [("Фредо", "special"), ("Каттани", "check")]
    assert rules.missing_moves(KOZANOSTRA, voted=["Фредо", "Каттани"], acted=acted) == {"Джо": {"vote"}}
    assert rules.missing_moves(KOZANOSTRA, voted=["Фредо", "Каттани", "Джо"], acted=acted) == {}


def test_an_order_the_role_lacks_moves_nothing_and_the_dead_owe_nothing() -> None:
    rules = ruleset_for(KOZANOSTRA)
    missing = rules.missing_moves(KOZANOSTRA, voted=["Фредо", "Каттани", "Джо", "Анна"], acted=[("Джо", "kill")])
    assert missing == {"Фредо": {"kill"}, "Каттани": {"check"}}


def test_where_only_the_boss_orders_an_ordinary_mafioso_owes_only_his_vote() -> None:
    state = _state(
        "gameru-3.3",
        Player(nick="Boss", role="mafia", boss=True),
        Player(nick="Soldier", role="mafia"),
        Player(nick="Star", role="sheriff"),
        Player(nick="Joe", role="civilian"),
    )
    missing = ruleset_for(state).missing_moves(state, voted=["Boss", "Soldier", "Star", "Joe"], acted=[])
    assert missing == {"Boss": {"kill"}, "Star": {"check"}}
