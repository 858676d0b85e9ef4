"""`check_order`: the rules' word on one order as it arrives, for the sender's receipt."""

from __future__ import annotations

from forumbot.engine import GameState, Order, Player
from forumbot.engine.day import OrderCheck, check_order


def gameru() -> GameState:
    roles = ["mafia", "mafia", "mafia", "sheriff", "maniac"] + ["civilian"] * 4
    players = [Player(nick=f"P{i}", role=r, boss=(i == 0)) for i, r in enumerate(roles)]
    players[8] = players[8].model_copy(update={"alive": False})
    return GameState(variant="gameru-3.3", seed=1, players=tuple(players))


def test_a_valid_order_counts_its_changes() -> None:
    state = gameru()
    first = check_order(state, Order(actor="P0", action="kill", targets=("P5",)))
    assert (first.reason, first.number, first.limit) == (None, 1, 3)
    third = check_order(state, Order(actor="P0", action="kill", targets=("P6",)), earlier_valid=2)
    assert third.reason is None and third.number == 3
    fourth = check_order(state, Order(actor="P0", action="kill", targets=("P7",)), earlier_valid=3)
    assert fourth.reason is not None and fourth.reason.code == "too_many_changes"
    assert "too many changes" in fourth.reason.text


def test_void_orders_say_why_without_secrets() -> None:
    state = gameru()
    assert said(check_order(state, Order(actor="P1", action="kill", targets=("P5",)))) == (
        "only the boss's order counts for the mafia"
    )
    assert said(check_order(state, Order(actor="P5", action="kill", targets=("P1",)))) == "a civilian cannot kill"
    assert said(check_order(state, Order(actor="P3", action="check", targets=("P8",)))) == "target P8 is dead"
    assert (
        said(check_order(state, Order(actor="P4", action="kill", targets=("P4",)))) == "a maniac may not kill himself"
    )


def test_kozanostra_special_is_the_roles_own_action() -> None:
    players = (Player(nick="A", role="commissar"), Player(nick="B", role="mafia"), Player(nick="C", role="civilian"))
    state = GameState(variant="kozanostra", players=players)
    assert check_order(state, Order(actor="A", action="special", targets=("B",))).action == "check"
    assert check_order(state, Order(actor="C", action="special", targets=("B",))).reason is not None


def said(check: OrderCheck) -> str | None:
    """The reason in the engine's English (its typed code is what the receipts word)."""
    return check.reason.text if check.reason is not None else None
