"""Checks on a game's own definition: refused with the field named, never run.

A variant with a boss (gameru-3.3, salon) needs exactly one boss among the mafia; kozanostra's mafia has
none; option values outside their sense are refused; a player listed silent may not vote or send an order
that day. Every caller gets the refusal: the engine (`resolve_day`, `deal`), scenario files (malformed,
exit 2 with file:line) and the game config (a ConfigError naming the field).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from forumbot.cli import app
from forumbot.config import load_game_config
from forumbot.engine import DayInput, GameState, Order, Player, Vote, deal, find_variant, resolve_day
from forumbot.errors import ConfigError, RulesError, ScenarioError
from forumbot.scenario import load_scenario, run_scenario

MALFORMED = Path(__file__).resolve().parent / "malformed"
FILES = sorted(MALFORMED.glob("*.yaml"))
runner = CliRunner()


def refusal(path: Path) -> tuple[int, str]:
    """The line and reason a malformed file states in its first line: `# refused: LINE: REASON`."""
    first = path.read_text(encoding="utf-8").splitlines()[0]
    line, reason = first.removeprefix("# refused: ").split(": ", 1)
    return int(line), reason


def test_there_is_a_malformed_file_for_every_check() -> None:
    assert len(FILES) >= 12


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_a_malformed_definition_is_refused_with_file_line_and_field(path: Path) -> None:
    line, reason = refusal(path)
    with pytest.raises(ScenarioError) as refused:
        run_scenario(load_scenario(path))  # the host's powers are also refused against the game's state
    assert refused.value.line == line
    assert reason in refused.value.reason
    result = runner.invoke(app, ["scenario", "check", str(path)])
    assert result.exit_code == 2, result.output
    assert f"{path}:{line}: " in result.output and reason in result.output
    assert "0 passed, 0 failed, 1 malformed" in result.output


# --- the engine ----------------------------------------------------------------------------------


def gameru_players(**bosses: bool) -> tuple[Player, ...]:
    mafia = [Player(nick=n, role="mafia", boss=bosses.get(n, False)) for n in ("Capone", "Moran", "Torrio")]
    town = [Player(nick="Ness", role="sheriff")] + [Player(nick=f"C{i}", role="civilian") for i in range(5)]
    return tuple(mafia + town)


def test_two_bosses_are_refused_before_any_kill() -> None:
    state = GameState(variant="gameru-3.3", players=gameru_players(Capone=True, Torrio=True))
    orders = (
        Order(actor="Capone", action="kill", targets=("C0",)),
        Order(actor="Torrio", action="kill", targets=("C1",)),
    )
    with pytest.raises(RulesError, match=r"^players: .*exactly one boss.*Capone, Torrio"):
        resolve_day(state, DayInput(orders=orders))


@pytest.mark.parametrize("variant", ["gameru-3.3", "salon"])
def test_a_mafia_without_a_boss_is_refused(variant: str) -> None:
    dealt = deal(variant, [f"P{i}" for i in range(12)], 3)
    players = tuple(p.model_copy(update={"boss": False}) for p in dealt.players)
    with pytest.raises(RulesError, match=r"^players: .*no mafioso is marked boss"):
        resolve_day(GameState(variant=variant, players=players), DayInput())


def test_a_game_in_progress_may_have_lost_its_boss_but_never_has_two() -> None:
    # Past day 1 the definition was checked when the game began: a boss dead and unflagged is the boss dead
    # (gameru-3.3: "the first living mafioso in the game's player list becomes boss at once").
    dead = Player(nick="Capone", role="mafia", alive=False, death_day=1, death_cause="executed")
    players = (dead, *gameru_players()[1:])
    state = GameState(variant="gameru-3.3", day=2, players=players)
    outcome = resolve_day(state, DayInput(orders=(Order(actor="Moran", action="kill", targets=("C0",)),)))
    assert outcome.deaths == {"C0": "mafia"}
    two = GameState(variant="gameru-3.3", day=2, players=gameru_players(Moran=True, Torrio=True))
    with pytest.raises(RulesError, match="more than one is marked boss: Moran, Torrio"):
        resolve_day(two, DayInput())


def test_a_boss_who_is_no_mafioso_is_refused() -> None:
    players = tuple(p.model_copy(update={"boss": p.role == "sheriff" or p.boss}) for p in gameru_players(Capone=True))
    with pytest.raises(RulesError, match="Ness is marked boss, but only a mafioso"):
        resolve_day(GameState(variant="gameru-3.3", players=players), DayInput())


def test_kozanostra_has_no_boss_and_deals_none() -> None:
    state = deal("kozanostra", [f"P{i}" for i in range(10)], 4)
    assert not any(p.boss for p in state.players)
    resolve_day(state, DayInput())
    first_mafioso = next(p.nick for p in state.players if p.role == "mafia")
    bossed = tuple(p.model_copy(update={"boss": p.nick == first_mafioso}) for p in state.players)
    with pytest.raises(RulesError, match=f"{first_mafioso} is marked boss, but the mafia of kozanostra has no boss"):
        resolve_day(state.with_players(bossed), DayInput())


def test_a_game_without_mafia_needs_no_boss() -> None:
    # An explicit role list may leave the mafia out (the simulator's "town cannot lose"): no mafia to lead.
    state = deal("gameru-3.3", [f"P{i}" for i in range(9)], 1, {"roles": ["sheriff"] + ["civilian"] * 8})
    assert resolve_day(state, DayInput()).winner == "town"


BAD_OPTIONS: list[tuple[str, dict[str, Any], str]] = [
    ("gameru-3.3", {"inactivity_days": 0}, "inactivity_days"),
    ("gameru-3.3", {"order_changes": -1}, "order_changes"),
    ("gameru-3.3", {"sheriff_replacement_delay": 0}, "sheriff_replacement_delay"),
    ("gameru-3.3", {"double_days": [1, 0]}, "double_days.1"),
    ("gameru-3.3", {"double_days": [-2]}, "double_days.0"),
    ("salon", {"execution_threshold": 0}, "execution_threshold"),
    ("salon", {"execution_threshold": -0.25}, "execution_threshold"),
    ("salon", {"execution_threshold": 1.01}, "execution_threshold"),
    ("salon", {"min_posts_per_day": -1}, "min_posts_per_day"),
    ("kozanostra", {"maniac": -1}, "maniac"),
]
GOOD_OPTIONS: list[tuple[str, dict[str, Any]]] = [
    ("gameru-3.3", {"inactivity_days": 1, "order_changes": 0, "sheriff_replacement_delay": 1, "double_days": [1]}),
    ("gameru-3.3", {"double_days": []}),
    ("salon", {"execution_threshold": 1}),
    ("salon", {"execution_threshold": 0.01}),
]


@pytest.mark.parametrize(("variant", "options", "field"), BAD_OPTIONS)
def test_option_values_outside_their_sense_are_refused_naming_the_field(
    variant: str, options: dict[str, Any], field: str
) -> None:
    with pytest.raises(RulesError, match=rf"^{variant} option {field}: "):
        find_variant(variant).parse_options(options)
    with pytest.raises(RulesError, match=rf"option {field}: "):
        deal(variant, [f"P{i}" for i in range(12)], 1, options)
    state = deal(variant, [f"P{i}" for i in range(12)], 1)
    with pytest.raises(RulesError, match=rf"option {field}: "):
        resolve_day(state.model_copy(update={"options": options}), DayInput())


@pytest.mark.parametrize(("variant", "options"), GOOD_OPTIONS)
def test_option_values_at_the_edge_of_their_sense_are_accepted(variant: str, options: dict[str, Any]) -> None:
    state = deal(variant, [f"P{i}" for i in range(12)], 1, options)
    resolve_day(state, DayInput(votes=tuple(Vote(voter=p.nick, targets=("P0",)) for p in state.players)))


def test_a_silent_player_who_votes_or_orders_is_refused() -> None:
    state = GameState(variant="gameru-3.3", players=gameru_players(Capone=True))
    with pytest.raises(RulesError, match=r"^day 1: silent: C2 is listed silent but votes"):
        resolve_day(state, DayInput(votes=(Vote(voter="C2", targets=("Moran",)),), silent=frozenset({"C2"})))
    kill = Order(actor="Capone", action="kill", targets=("C0",))
    with pytest.raises(RulesError, match=r"^day 1: silent: Capone is listed silent but sends an order \(kill\)"):
        resolve_day(state, DayInput(orders=(kill,), silent=frozenset({"Capone"})))
    # A void order is still a message sent: activity.
    void = Order(actor="C3", action="kill", targets=("C0",))
    with pytest.raises(RulesError, match="C3 is listed silent but sends an order"):
        resolve_day(state, DayInput(orders=(void,), silent=frozenset({"C3"})))
    quiet = resolve_day(state, DayInput(orders=(kill,), silent=frozenset({"C3"})))
    assert quiet.deaths == {"C0": "mafia"}


# --- the game config -----------------------------------------------------------------------------


def config(tmp_path: Path, variant: str, options: str) -> Path:
    path = tmp_path / "game.toml"
    path.write_text(f'[game]\nname = "Mafia-1"\nvariant = "{variant}"\noptions = {{{options}}}\n', encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("variant", "options", "field"),
    [
        ("gameru-3.3", "inactivity_days = 0", "inactivity_days"),
        ("gameru-3.3", "order_changes = -1", "order_changes"),
        ("gameru-3.3", "sheriff_replacement_delay = 0", "sheriff_replacement_delay"),
        ("gameru-3.3", "double_days = [0]", "double_days.0"),
        ("salon", "execution_threshold = 0.0", "execution_threshold"),
        ("salon", "execution_threshold = 2", "execution_threshold"),
    ],
)
def test_the_game_config_refuses_them_naming_the_field(tmp_path: Path, variant: str, options: str, field: str) -> None:
    path = config(tmp_path, variant, options)
    with pytest.raises(ConfigError, match=rf"game\.options: {variant} option {field}: "):
        load_game_config(path)


def test_the_game_config_accepts_sensible_values(tmp_path: Path) -> None:
    loaded = load_game_config(config(tmp_path, "gameru-3.3", "inactivity_days = 1, order_changes = 0"))
    assert loaded.game.options == {"inactivity_days": 1, "order_changes": 0}
