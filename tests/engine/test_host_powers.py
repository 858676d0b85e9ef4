"""The host's powers in the engine: replacements, removals, gameru-3.3's new maniac and change of scheme,
kozanostra's best player. Each one is an event of the outcome; each misuse is a RulesError naming the field."""

from __future__ import annotations

import pytest

from forumbot.engine import DayInput, GameState, Order, Player, Vote, resolve_day
from forumbot.engine.commitment import role_list_text
from forumbot.engine.day import apply_replacements, check_order
from forumbot.engine.model import Removal, Replacement, RoleChange
from forumbot.errors import RulesError


def gameru(*extra: Player, **options: object) -> GameState:
    players = [
        Player(nick="Don", role="mafia", boss=True),
        Player(nick="Vito", role="mafia"),
        Player(nick="Tony", role="mafia"),
        Player(nick="Wyatt", role="sheriff"),
        *[Player(nick=n, role="civilian") for n in ("Anna", "Boris", "Clara", "Dima", "Elena")],
        *extra,
    ]
    return GameState(variant="gameru-3.3", options=dict(options), players=tuple(players))


def salon() -> GameState:
    roles = {
        "Don": "mafia",
        "Fredo": "mafia",
        "Cattani": "commissar",
        "Aibolit": "doctor",
        "Jack": "maniac",
        "Mimi": "hetaera",
        "Anna": "civilian",
        "Boris": "civilian",
    }
    players = [Player(nick=n, role=r, boss=n == "Don") for n, r in roles.items()]
    return GameState(variant="salon", players=tuple(players))


def kozanostra(game_type: str = "kozanostra") -> GameState:
    roles = {"Фредо": "mafia", "Каттани": "commissar", "Джо": "civilian", "Анна": "civilian"}
    players = [Player(nick=n, role=r) for n, r in roles.items()]
    return GameState(variant="kozanostra", options={"game_type": game_type}, players=tuple(players))


def replace(old: str, new: str, reason: str = "") -> tuple[Replacement, ...]:
    return (Replacement(old=old, new=new, reason=reason),)


# --- replacements --------------------------------------------------------------------------------


def test_a_replacement_renames_the_slot_first_and_says_so_once() -> None:
    day = DayInput(replacements=replace("Wyatt", "Earp", "left the forum"))
    outcome = resolve_day(gameru(), day)
    assert outcome.events[0].model_dump(exclude_defaults=True) == {
        "kind": "replaced",
        "actor": "Earp",
        "target": "Wyatt",
        "detail": "left the forum",
    }
    assert [e.kind for e in outcome.events].count("replaced") == 1
    earp = outcome.state.players[3]
    assert (earp.nick, earp.role, earp.replaced) == ("Earp", "sheriff", ("Wyatt",))
    assert outcome.state.player("Wyatt") is None
    assert outcome.state.dealt_nicks()[3] == "Wyatt"
    assert role_list_text(outcome.state).splitlines()[3] == "Earp: sheriff"


def test_the_earlier_nick_sends_nothing_that_counts_and_names_nobody_from_then_on() -> None:
    day = DayInput(
        replacements=replace("Wyatt", "Earp"),
        votes=(Vote(voter="Wyatt", targets=("Don",)), Vote(voter="Anna", targets=("Wyatt",))),
        orders=(Order(actor="Wyatt", action="check", targets=("Don",)),),
    )
    outcome = resolve_day(gameru(), day)
    assert [(v.actor, v.reason) for v in outcome.void] == [
        ("Wyatt", "replaced by Earp"),
        ("Anna", "target Wyatt was replaced by Earp"),
        ("Wyatt", "replaced by Earp"),
    ]
    assert outcome.counted_votes == {}
    # Two days on, the earlier nick is still known as replaced.
    later = resolve_day(outcome.state, DayInput(votes=(Vote(voter="Wyatt", targets=("Don",)),)))
    assert [v.reason for v in later.void] == ["replaced by Earp"]


def test_the_new_account_acts_for_the_slot_the_same_day() -> None:
    day = DayInput(
        replacements=replace("Wyatt", "Earp"), orders=(Order(actor="Earp", action="check", targets=("Vito",)),)
    )
    outcome = resolve_day(gameru(), day)
    assert outcome.deaths == {"Vito": "sheriff"}
    assert outcome.checks == {"Earp": "mafia"}


def test_a_replaced_boss_stays_boss_and_his_order_is_the_mafias() -> None:
    day = DayInput(
        replacements=replace("Don", "Корлеоне"), orders=(Order(actor="Корлеоне", action="kill", targets=("Anna",)),)
    )
    outcome = resolve_day(gameru(), day)
    assert outcome.deaths == {"Anna": "mafia"}
    assert outcome.state.player("Корлеоне").boss  # type: ignore[union-attr]


def test_last_nights_targets_follow_the_slots() -> None:
    state = salon().model_copy(
        update={"last_targets": {"Aibolit": {"heal": ("Cattani",)}, "Jack": {"assault": ("Anna",)}}}
    )
    replacements = (Replacement(old="Cattani", new="Мегрэ"), Replacement(old="Aibolit", new="Пилюлькин"))
    started, _ = apply_replacements(state, replacements)
    assert started.last_targets == {"Пилюлькин": {"heal": ("Мегрэ",)}, "Jack": {"assault": ("Anna",)}}
    check = check_order(state, Order(actor="Пилюлькин", action="heal", targets=("Мегрэ",)), replacements=replacements)
    assert check.reason is not None and check.reason.text == "same target two nights running: Мегрэ"


def test_the_new_account_starts_with_no_silent_days() -> None:
    state = gameru().model_copy(update={"silent_streak": {"Anna": 1, "Boris": 1}})
    outcome = resolve_day(state, DayInput(replacements=replace("Anna", "Anya"), silent=frozenset({"Anya", "Boris"})))
    assert outcome.deaths == {"Boris": "inactive"}
    assert outcome.state.silent_streak["Anya"] == 1


def test_a_slot_replaced_twice_keeps_every_earlier_nick() -> None:
    first = resolve_day(gameru(), DayInput(replacements=replace("Anna", "Anya")))
    second = resolve_day(first.state, DayInput(replacements=replace("Anya", "Annushka")))
    assert second.state.players[4].replaced == ("Anna", "Anya")
    assert second.state.dealt_nicks()[4] == "Anna"
    with pytest.raises(RulesError, match="replace: Anna was already replaced by Annushka"):
        resolve_day(second.state, DayInput(replacements=replace("Anna", "Аня")))
    with pytest.raises(RulesError, match="replace: Anya played in this game before"):
        resolve_day(second.state, DayInput(replacements=replace("Boris", "Anya")))


@pytest.mark.parametrize(
    ("replacements", "message"),
    [
        (replace("Nobody", "Somebody"), "day 1: replace: Nobody is not a player"),
        (replace("Anna", "Boris"), "day 1: replace: Boris already plays in this game"),
        (replace("Anna", "Anna"), "day 1: replace: Anna cannot replace himself"),
        (replace("Anna", " "), "day 1: replace: the new account for Anna has an empty nick"),
        (replace("Dead", "Alive"), "day 1: replace: Dead is dead: only a living player's slot is taken over"),
    ],
)
def test_a_replacement_the_game_cannot_take_is_refused(replacements: tuple[Replacement, ...], message: str) -> None:
    state = gameru(Player(nick="Dead", role="civilian", alive=False, death_day=0, death_cause="inactive"))
    with pytest.raises(RulesError) as refused:
        resolve_day(state, DayInput(replacements=replacements))
    assert str(refused.value) == message


# --- removals ------------------------------------------------------------------------------------


def test_a_removed_player_dies_after_the_execution_and_in_gameru_his_vote_and_order_count() -> None:
    day = DayInput(
        removals=(Removal(nick="Don", reason="a screenshot of his role PM"),),
        votes=(Vote(voter="Don", targets=("Anna",)),),
        orders=(Order(actor="Don", action="kill", targets=("Boris",)),),
    )
    outcome = resolve_day(gameru(), day)
    assert outcome.deaths == {"Anna": "executed", "Boris": "mafia", "Don": "inactive"}
    removed = [e for e in outcome.events if e.kind == "removed_by_host"]
    assert [(e.target, e.role, e.cause, e.detail) for e in removed] == [
        ("Don", "mafia", "inactive", "a screenshot of his role PM")
    ]
    assert not [e for e in outcome.events if e.kind == "inactive"]  # the removal is its own event
    assert outcome.state.player("Vito").boss  # type: ignore[union-attr]


def test_a_removed_player_also_executed_dies_executed_and_the_removal_is_recorded_without_effect() -> None:
    day = DayInput(removals=(Removal(nick="Anna", reason="insults"),), votes=(Vote(voter="Boris", targets=("Anna",)),))
    outcome = resolve_day(gameru(), day)
    assert outcome.deaths == {"Anna": "executed"}
    assert not [e for e in outcome.events if e.kind == "removed_by_host"]
    [moot] = [e for e in outcome.events if e.kind == "no_effect"]
    assert (moot.target, moot.reason) == ("Anna", "remove")
    assert moot.detail == "removal (insults): no effect (без последствий): Anna was executed first"


def test_in_kozanostra_a_removal_comes_after_the_jail_and_before_the_night() -> None:
    """The removed player's vote counts; his night orders, and those naming him, are void (he is dead at
    night); an earlier valid order of the same sender stands; his special role passes on."""
    state = kozanostra("mafia")
    day = DayInput(
        removals=(Removal(nick="Джо", reason="cheating"),),
        votes=(Vote(voter="Джо", targets=("Анна",)), Vote(voter="Каттани", targets=("Анна",))),
        orders=(
            Order(actor="Фредо", action="kill", targets=("Каттани",)),
            Order(actor="Фредо", action="kill", targets=("Джо",)),
            Order(actor="Каттани", action="check", targets=("Джо",)),
        ),
    )
    outcome = resolve_day(state, day)
    assert outcome.deaths == {"Анна": "executed", "Джо": "inactive", "Каттани": "mafia"}
    assert outcome.checks == {}
    assert [(v.actor, v.why.code if v.why else None) for v in outcome.void] == [
        ("Фредо", "target_removed"),
        ("Каттани", "target_removed"),
    ]


def test_a_removal_names_the_slot_by_its_nick_of_the_day() -> None:
    day = DayInput(replacements=replace("Anna", "Anya"), removals=(Removal(nick="Anna", reason="x"),))
    with pytest.raises(RulesError, match="day 1: remove: Anna was replaced by Anya: name the player Anya"):
        resolve_day(gameru(), day)
    day = DayInput(replacements=replace("Anna", "Anya"), removals=(Removal(nick="Anya", reason="x"),))
    assert resolve_day(gameru(), day).deaths == {"Anya": "inactive"}


@pytest.mark.parametrize(
    ("removals", "message"),
    [
        ((Removal(nick="Anna", reason=""),), "day 1: remove: the removal of Anna gives no reason"),
        ((Removal(nick="Anna", reason="a"), Removal(nick="Anna", reason="b")), "day 1: remove: Anna is removed twice"),
        ((Removal(nick="Nobody", reason="a"),), "day 1: remove: Nobody is not a player"),
    ],
)
def test_a_removal_the_game_cannot_take_is_refused(removals: tuple[Removal, ...], message: str) -> None:
    with pytest.raises(RulesError) as refused:
        resolve_day(gameru(), DayInput(removals=removals))
    assert str(refused.value) == message


def test_a_removed_special_in_kozanostra_passes_his_role_on_and_a_removed_player_inherits_nothing() -> None:
    state = kozanostra("mafia")
    more = [Player(nick="Том", role="civilian"), Player(nick="Билл", role="civilian")]
    state = state.with_players([*state.players, *more])
    day = DayInput(
        removals=(Removal(nick="Каттани", reason="cheating"), Removal(nick="Джо", reason="his twin")),
        votes=tuple(Vote(voter=n, targets=("Том",)) for n in ("Фредо", "Анна", "Билл")),
    )
    outcome = resolve_day(state, day)
    assert outcome.deaths == {"Том": "executed", "Каттани": "inactive", "Джо": "inactive"}
    [inherited] = [e for e in outcome.events if e.kind == "inherited"]
    assert (inherited.actor, inherited.role) == ("Каттани", "commissar") and inherited.target in ("Анна", "Билл")
    assert outcome.state.player(inherited.target).role == "commissar"  # type: ignore[union-attr]
    assert outcome.state.player("Джо").role == "civilian"  # type: ignore[union-attr]


def test_leaving_is_a_removal_shown_as_leaving() -> None:
    state = kozanostra("mafia")
    outcome = resolve_day(state, DayInput(leaving=frozenset({"Каттани"})))
    assert outcome.deaths["Каттани"] == "inactive"
    assert [(e.target, e.detail) for e in outcome.events if e.kind == "left_game"] == [("Каттани", "left the game")]
    assert any(e.kind == "inherited" and e.actor == "Каттани" for e in outcome.events)


# --- gameru-3.3: a new maniac, a change of scheme ------------------------------------------------


def fifteen() -> GameState:
    extra = [Player(nick=n, role="mafia") for n in ("Sal", "Luca")] + [Player(nick="Jack", role="maniac")]
    extra += [Player(nick=n, role="civilian") for n in ("Fedor", "Galya", "Igor")]
    return gameru(*extra)


def test_a_new_maniac_after_more_than_five_days_when_the_maniac_appeared() -> None:
    orders = (
        Order(actor="Jack", action="kill", targets=("Boris",)),
        Order(actor="Wyatt", action="check", targets=("Jack",)),
    )
    state = resolve_day(fifteen(), DayInput(orders=orders)).state
    for _ in range(4):  # days 2 to 5
        with pytest.raises(RulesError, match=f"day {state.day}: appoint_maniac: the maniac appeared in the game"):
            resolve_day(state, DayInput(appoint_maniac="Anna"))
        state = resolve_day(state, DayInput()).state
    outcome = resolve_day(state, DayInput(appoint_maniac="Anna"))
    new = [e for e in outcome.events if e.kind == "new_maniac"]
    assert [(e.target, e.role, e.detail) for e in new] == [("Anna", "maniac", "appointed by the host, from day 7")]
    assert outcome.state.player("Anna").role == "maniac"  # type: ignore[union-attr]


def test_a_new_maniac_at_once_when_the_maniac_never_appeared() -> None:
    state = resolve_day(fifteen(), DayInput(silent=frozenset({"Jack"}))).state
    # The maniac may still die that day: while he lives at its end, the appointment is without effect.
    kept = resolve_day(state, DayInput(appoint_maniac="Anna"))
    assert kept.state.player("Anna").role == "civilian"  # type: ignore[union-attr]
    [moot] = [e for e in kept.events if e.kind == "no_effect"]
    assert moot.detail.endswith("a maniac still lives (Jack): the game has one maniac at a time")
    # Removed by the host the same day: he never appeared, so the appointment is allowed at once.
    day = DayInput(
        silent=frozenset({"Jack"}), removals=(Removal(nick="Jack", reason="never came"),), appoint_maniac="Anna"
    )
    outcome = resolve_day(state, day)
    assert outcome.deaths == {"Jack": "inactive"}
    assert outcome.state.player("Anna").role == "maniac"  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("day", "message"),
    [
        (DayInput(appoint_maniac="Vito"), "day 1: appoint_maniac: Vito is not a civilian"),
        (DayInput(appoint_maniac="Nobody"), "day 1: appoint_maniac: Nobody is not a player"),
        (DayInput(scheme=(RoleChange(nick="Anna", role="civilian"),)), "day 1: scheme: Anna is already civilian"),
        (DayInput(scheme=(RoleChange(nick="Anna", role="maniac"),)), "day 1: scheme: Anna: a new maniac is appointed"),
        (
            DayInput(scheme=(RoleChange(nick="Anna", role="doctor"),)),
            "day 1: scheme: role 'doctor' (Anna) does not exist",
        ),
        (
            DayInput(scheme=(RoleChange(nick="Anna", role="sheriff", boss=True),)),
            "day 1: scheme: Anna is made boss, but",
        ),
        (
            DayInput(scheme=(RoleChange(nick="Anna", role="mafia"),), appoint_maniac="Anna"),
            "day 1: scheme: Anna is both",
        ),
    ],
)
def test_gameru_refuses_what_its_host_may_not_do(day: DayInput, message: str) -> None:
    with pytest.raises(RulesError) as refused:
        resolve_day(gameru(), day)
    assert str(refused.value).startswith(message)


def test_a_change_the_day_made_moot_is_recorded_without_effect_and_the_day_resolves() -> None:
    state = gameru().with_players([p for p in gameru().players if p.nick in ("Don", "Anna", "Boris")])
    day = DayInput(votes=(Vote(voter="Anna", targets=("Don",)),), scheme=(RoleChange(nick="Boris", role="mafia"),))
    outcome = resolve_day(state, day)  # the day's deaths end the game: there is no next day
    assert outcome.winner == "town" and outcome.state.player("Boris").role == "civilian"  # type: ignore[union-attr]
    assert [(e.kind, e.target, e.reason) for e in outcome.events if e.kind == "no_effect"] == [
        ("no_effect", "Boris", "scheme")
    ]
    assert "the game ended on day 1 (town): there is no next day" in outcome.events[-1].detail
    died = resolve_day(gameru(), DayInput(appoint_maniac="Anna", votes=(Vote(voter="Boris", targets=("Anna",)),)))
    assert [e.detail for e in died.events if e.kind == "no_effect"] == [
        "appoint_maniac Anna: no effect (без последствий): Anna died on day 1 (executed)"
    ]


def test_host_changes_come_first_in_the_morning_before_the_sheriffs_draw() -> None:
    """The draw picks among those who remain civilians once the changes are made: the appointee, a civilian
    all day, is the maniac, and the only other civilian is the new sheriff (seed 0 would draw Anna first)."""
    players = [p for p in fifteen().players if p.role != "maniac" and p.nick not in ("Boris", "Clara", "Dima")]
    players = [p for p in players if p.nick not in ("Elena", "Fedor", "Galya", "Igor")]
    state = fifteen().with_players([*players, Player(nick="Igor", role="civilian")])
    day = DayInput(orders=(Order(actor="Don", action="kill", targets=("Wyatt",)),), appoint_maniac="Anna")
    first = resolve_day(state.model_copy(update={"sheriff_due": 2}), day)
    roles = {p.nick: p.role for p in first.state.players if p.alive}
    assert roles["Anna"] == "maniac" and roles["Igor"] == "sheriff"
    assert [e.kind for e in first.events if e.kind in ("new_maniac", "new_sheriff")] == ["new_maniac", "new_sheriff"]


def test_a_scheme_entry_for_the_boss_s_successor_is_moot_when_the_boss_dies() -> None:
    day = DayInput(
        votes=(Vote(voter="Anna", targets=("Don",)),), scheme=(RoleChange(nick="Vito", role="mafia", boss=True),)
    )
    outcome = resolve_day(gameru(), day)
    assert outcome.state.player("Vito").boss  # type: ignore[union-attr]
    assert [e.detail for e in outcome.events if e.kind == "no_effect"] == [
        "scheme: Vito -> mafia boss: no effect (без последствий): Vito is already mafia boss"
    ]


def test_a_change_that_decides_the_game_is_applied_and_the_outcome_says_so() -> None:
    state = gameru().with_players([p for p in gameru().players if p.nick in ("Don", "Anna", "Boris", "Clara")])
    outcome = resolve_day(state, DayInput(scheme=(RoleChange(nick="Don", role="civilian"),)))
    assert outcome.winner == "town"
    assert [e.kind for e in outcome.events][-2:] == ["role_changed", "decided_by_host"]


def test_a_change_invalid_when_made_is_refused_when_recorded() -> None:
    from forumbot.engine.day import check_host_powers

    dead = resolve_day(gameru(), DayInput(votes=(Vote(voter="Anna", targets=("Boris",)),))).state
    with pytest.raises(RulesError, match="day 2: scheme: Boris is dead"):
        check_host_powers(dead, DayInput(scheme=(RoleChange(nick="Boris", role="sheriff"),)))
    with pytest.raises(RulesError, match="day 2: appoint_maniac: Vito is not a civilian"):
        check_host_powers(dead, DayInput(appoint_maniac="Vito"))
    check_host_powers(dead, DayInput(appoint_maniac="Anna"))  # valid now: the day may still make it moot


def test_a_change_of_scheme_takes_effect_from_the_next_day() -> None:
    day = DayInput(
        scheme=(RoleChange(nick="Don", role="civilian"), RoleChange(nick="Anna", role="mafia", boss=True)),
        orders=(
            Order(actor="Anna", action="kill", targets=("Boris",)),
            Order(actor="Don", action="kill", targets=("Clara",)),
        ),
    )
    outcome = resolve_day(gameru(), day)
    assert outcome.deaths == {"Clara": "mafia"}
    changed = [(e.target, e.role, e.detail) for e in outcome.events if e.kind == "role_changed"]
    assert changed == [
        ("Don", "civilian", "mafia boss -> civilian, from day 2"),
        ("Anna", "mafia", "civilian -> mafia boss, from day 2"),
    ]
    bosses = [p.nick for p in outcome.state.players if p.boss]
    assert bosses == ["Anna"]
    assert not [e for e in outcome.events if e.kind == "new_boss"]


def test_only_gameru_has_a_new_maniac_and_a_change_of_scheme() -> None:
    with pytest.raises(RulesError, match="day 1: appoint_maniac: the host of salon cannot appoint a maniac"):
        resolve_day(salon(), DayInput(appoint_maniac="Anna"))
    with pytest.raises(RulesError, match="day 1: scheme: the host of kozanostra cannot change the scheme"):
        resolve_day(kozanostra(), DayInput(scheme=(RoleChange(nick="Джо", role="mafia"),)))


# --- kozanostra: the best player -----------------------------------------------------------------


def test_the_best_player_is_named_on_the_day_that_ends_a_kozanostra_game() -> None:
    votes = tuple(Vote(voter=n, targets=("Фредо",)) for n in ("Каттани", "Джо", "Анна"))
    outcome = resolve_day(kozanostra(), DayInput(votes=votes, best_player="Каттани"))
    assert outcome.winner == "town"
    assert [(e.kind, e.target, e.detail) for e in outcome.events if e.kind == "best_player"] == [
        ("best_player", "Каттани", "hosts the next game")
    ]


@pytest.mark.parametrize(
    ("state", "day", "message"),
    [
        (kozanostra(), DayInput(best_player="Никто"), "day 1: best_player: Никто is not a player"),
        (
            kozanostra("mafia"),
            DayInput(best_player="Каттани"),
            "day 1: best_player: the best player is named only in a game of type kozanostra (this one is mafia)",
        ),
        (salon(), DayInput(best_player="Anna"), "day 1: best_player: the host of salon names no best player"),
    ],
)
def test_a_best_player_out_of_place_is_refused(state: GameState, day: DayInput, message: str) -> None:
    with pytest.raises(RulesError) as refused:
        resolve_day(state, day)
    assert str(refused.value).startswith(message)


# --- appearing -------------------------------------------------------------------------------------


def test_the_maniac_appears_by_a_valid_order_sent_while_he_holds_the_role() -> None:
    """seed 001 «не появления Маньяка»: a post or a void order is no appearance; activity before holding the
    role does not count (an appointment starts anew)."""
    state = fifteen()
    active = resolve_day(state, DayInput(orders=(Order(actor="Jack", action="kill", targets=("Jack",)),)))
    assert not any(p.appeared for p in active.state.players)  # a self-kill is void
    shown = resolve_day(active.state, DayInput(orders=(Order(actor="Jack", action="kill", targets=("Anna",)),)))
    assert [p.nick for p in shown.state.players if p.appeared] == ["Jack"]
    active_anna = [p.model_copy(update={"appeared": True}) if p.nick == "Anna" else p for p in state.players]
    old = state.with_players(active_anna)
    day = DayInput(removals=(Removal(nick="Jack", reason="never came"),), appoint_maniac="Anna")
    appointed = resolve_day(old, day).state.player("Anna")
    assert appointed is not None and (appointed.role, appointed.appeared) == ("maniac", False)


def test_a_best_player_named_while_the_game_goes_on_is_without_effect() -> None:
    outcome = resolve_day(kozanostra(), DayInput(best_player="Каттани"))
    assert outcome.winner == "none" and not [e for e in outcome.events if e.kind == "best_player"]
    [moot] = [e for e in outcome.events if e.kind == "no_effect"]
    assert (moot.target, moot.reason) == ("Каттани", "best_player")
    assert "no effect (без последствий): the game does not end on day 1" in moot.detail
