"""Each variant's default day post on outcomes with every kind of event the engine emits."""

from __future__ import annotations

from typing import get_args

import pytest
from render_support import (
    Day,
    config,
    gameru_days,
    gameru_silent_sheriff,
    host_power_days,
    host_power_endings,
    kozanostra_days,
    play,
    salon_days,
    votes,
)

from forumbot.engine import DayInput, GameState, Order, Player, resolve_day
from forumbot.engine.commitment import commitment_of
from forumbot.engine.model import EventKind
from forumbot.host import games
from forumbot.render.bbcode import escape
from forumbot.render.day import render_day, render_day_post, render_day_title
from forumbot.render.phrases import GENDER_FORMS, PHRASES, PHRASES_AGREEING, agree
from forumbot.store import GameRow

GAMERU = gameru_days()
SILENT_SHERIFF = gameru_silent_sheriff()
KOZANOSTRA = kozanostra_days()
SALON = salon_days()


def post(variant: str, day: Day) -> str:
    return render_day_post(config(variant), *day)


def line_with(body: str, *parts: str) -> str:
    """The one line of the post that holds every part."""
    found = [line for line in body.splitlines() if all(p in line for p in parts)]
    assert found, f"no line with {parts} in:\n{body}"
    return found[0]


def phrased(body: str, kind: str, nick: str | None = None) -> str:
    """The line that carries one of the phrasings of `kind` (about `nick`)."""
    forms = {word: agree(word, None) for word in GENDER_FORMS}
    phrasings = PHRASES[kind] + PHRASES_AGREEING.get(kind, ())
    texts = [p.format(nick=escape(nick or ""), role="{role}", **forms) for p in phrasings]
    for line in body.splitlines():
        if any(t.split("{role}")[0] in line for t in texts):
            return line
    raise AssertionError(f"no {kind} phrase about {nick} in:\n{body}")


def test_the_games_cover_every_kind_of_event_the_engine_emits() -> None:
    every = (GAMERU, SILENT_SHERIFF, KOZANOSTRA, SALON, host_power_days(), host_power_endings())
    kinds = {e.kind for days in every for _, o in days for e in o.events}
    assert kinds == set(get_args(EventKind)) - {"void", "audit"}


def test_every_kind_has_several_phrasings() -> None:
    assert all(len(phrasings) >= 2 for phrasings in PHRASES.values())


# --- gameru-3.3 ------------------------------------------------------------------------------------


def test_gameru_day_with_execution_every_killer_and_the_epidemic() -> None:
    day = GAMERU[0]
    assert render_day_title(config("gameru-3.3"), *day) == "Мафия-7. День 2"
    body = post("gameru-3.3", day)
    assert body.startswith("[size=150][b]Мафия-7. День 2[/b][/size]")
    assert "Роль: [b]мафиози[/b] (3 голоса)." in phrased(body, "executed", "Дон")
    assert "Роль: [b]мирный житель[/b]" in phrased(body, "mafia", "Борис")
    assert "Роль: [b]мафиози[/b]" in phrased(body, "sheriff", "Фредо")
    assert "Роль: [b]мирный житель[/b]" in phrased(body, "maniac", "Вера")
    assert "Роль: [b]мирный житель[/b]" in phrased(body, "inactive", "Дина")
    assert "[*][b]Дон[/b]: 3 голоса (Анна, Борис, Вера) — [b]казнь![/b]" in body
    assert "[*][b]Анна[/b]: 1 голос (Сонни)" in body
    assert "[b]В живых (5):[/b] Сонни, Шериф, Мясник, Анна, Глеб" in body
    assert "босс" not in body.lower()  # the mafia's new boss is the mafia's business


def test_gameru_a_harmless_sheriff_check_stays_private() -> None:
    body = post("gameru-3.3", GAMERU[1])
    assert "Роль: [b]маньяк[/b] (2 голоса)." in phrased(body, "executed", "Мясник")
    assert "провер" not in body.lower()
    assert "Глеб" in line_with(body, "В живых")
    assert sum("Глеб" in line for line in body.splitlines()) == 2  # the vote table and the living


def test_gameru_new_maniac_and_new_sheriff_are_announced_without_a_name() -> None:
    body = post("gameru-3.3", GAMERU[2])
    assert "Анна" not in phrased(body, "new_maniac")
    silent = post("gameru-3.3", SILENT_SHERIFF[0])
    assert "Роль: [b]шериф[/b]" in phrased(silent, "inactive", "Шериф")
    assert "Вера" not in phrased(silent, "new_sheriff")
    assert phrased(silent, "no_votes")


def test_gameru_end_of_game() -> None:
    state = GameState(
        variant="gameru-3.3",
        players=(
            Player(nick="Дон", role="mafia", boss=True),
            Player(nick="Шериф", role="sheriff"),
            Player(nick="Анна", role="civilian"),
            Player(nick="Борис", role="civilian"),
        ),
    )
    day = play(state, DayInput(votes=votes(("Анна", "Дон"), ("Борис", "Дон"), ("Шериф", "Дон"))))[0]
    body = post("gameru-3.3", day)
    assert "[size=150][b]Игра окончена: победа мирных жителей![/b][/size]" in body
    assert "В живых" not in body


def test_two_deaths_of_one_kind_read_differently() -> None:
    state = GameState(
        variant="gameru-3.3",
        options={"double_days": [1]},
        players=(
            Player(nick="Дон", role="mafia", boss=True),
            Player(nick="Сонни", role="mafia"),
            Player(nick="Шериф", role="sheriff"),
            *(Player(nick=n, role="civilian") for n in ("Анна", "Борис", "Вера", "Глеб", "Дина", "Ева")),
        ),
    )
    day = play(state, DayInput(orders=(Order(actor="Дон", action="kill", targets=("Анна", "Борис")),)))[0]
    body = post("gameru-3.3", day)
    assert phrased(body, "mafia", "Анна").replace("Анна", "X") != phrased(body, "mafia", "Борис").replace("Борис", "X")


def test_phrasings_follow_the_game_seed_and_a_rerender_is_the_same() -> None:
    before, outcome = GAMERU[0]
    assert post("gameru-3.3", (before, outcome)) == post("gameru-3.3", (before, outcome))
    bodies = {
        render_day_post(config("gameru-3.3"), before.model_copy(update={"seed": seed}), outcome) for seed in range(8)
    }
    assert len(bodies) > 1


# --- kozanostra -------------------------------------------------------------------------------------


def test_kozanostra_newspaper() -> None:
    body = post("kozanostra", KOZANOSTRA[0])
    assert "[b]Утренняя газета. Игра Мафия-7 День 2 Игроки 13 Мафиози 2[/b]" in body
    assert "[*]Глеб — посажен за решётку (честный житель)" in body
    assert "[*]Борис — убит (честный житель)" in body
    assert "[*]Дон — жив" in body and "мафиози" not in line_with(body, "[*]Дон — жив")
    assert "Глеб: 4 голоса — [b]Посажен!!![/b]" in body
    assert "Луиджи: 1 голос — на свободе" in body  # a silent player votes for himself
    voters = body.split("[b]За решётку игрока Глеб отправили:[/b]\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert voters == ["Анна", "Борис", "Вера", "Глеб"]
    assert "Роль: [b]честный житель[/b]" in phrased(body, "mafia", "Борис")
    assert "Роль: [b]комиссар[/b]" in phrased(body, "autokill", "Каттани")
    assert "Вера" not in phrased(body, "inherited")
    assert "комиссар" in phrased(body, "inherited")
    # misses, the yakuza's abstention, the reanimator's save and the checks are not news
    lowered = body.lower()
    assert all(word not in lowered for word in ("промах", "якудза", "реаниматор", "спас", "провер"))
    assert "[*]Анна → Глеб" in body and "[*]Луиджи → Луиджи" in body


def test_kozanostra_second_day_remembers_the_jailed_and_the_dead() -> None:
    body = post("kozanostra", KOZANOSTRA[1])
    assert "Мафиози 1" in line_with(body, "Утренняя газета")
    assert "[*]Глеб — за решёткой (честный житель)" in body
    assert "[*]Каттани — мёртв (комиссар)" in body
    assert "[*]Дон — посажен за решётку (мафиози)" in body
    assert "[*]Вера — убит (комиссар)" in body  # the heir's role, as it was when he died


# --- salon ------------------------------------------------------------------------------------------


def test_salon_night_in_order_with_misses_the_commissar_and_a_suicide() -> None:
    body = post("salon", SALON[0])
    lines = body.splitlines()
    silenced = phrased(body, "silenced", "Глеб")
    killed = phrased(body, "mafia", "Борис")
    miss = phrased(body, "miss_doctor")
    commissar = line_with(body, "Комиссар проверял мафию.")
    suicide = phrased(body, "suicide", "Глеб")
    executed = phrased(body, "shot_by_town", "Вера")
    assert [lines.index(x) for x in (silenced, killed, miss, commissar, suicide, executed)] == sorted(
        lines.index(x) for x in (silenced, killed, miss, commissar, suicide, executed)
    )
    assert "Тони" not in commissar  # never the target
    assert "В ту ночь у самоубийцы побывали: маньяк." in suicide
    assert "(8 голосов)" in executed
    assert "[*]Тони → Вера" in body
    assert "Вера — 8 ([b]расстрел[/b])" in body


def test_salon_saves_misses_and_a_vote_below_the_threshold() -> None:
    body = post("salon", SALON[1])
    assert phrased(body, "saved_from_maniac", "Анна")
    assert phrased(body, "miss_hetaera")
    assert phrased(body, "miss_mafia")
    assert "Доктор" not in body  # the doctor did his job
    assert "[b]Комиссар проверял НЕ мафию.[/b]" in body
    assert "Лидер голосования — Ирина (1), но для расстрела нужно не меньше 1,75: никого не расстреляли." in body


def test_salon_a_silenced_vote_and_a_leader_who_died_in_the_night() -> None:
    body = post("salon", SALON[2])
    assert "[*]Поли → Ирина [i](голос пуст: визит маньяка)[/i]" in body
    assert "Ирина — 5" in body  # the silenced vote is not counted
    assert "Лидер голосования — Ирина, но расстрел не состоялся: игрок погиб раньше." in body
    assert phrased(body, "miss_commissar")
    assert "Роль: [b]гетера[/b]" in phrased(body, "mafia", "Ирина")


@pytest.mark.parametrize(
    "variant,days",
    [("gameru-3.3", GAMERU + SILENT_SHERIFF), ("kozanostra", KOZANOSTRA), ("salon", SALON)],
)
def test_every_post_is_tidy(variant: str, days: list[Day]) -> None:
    for day in days:
        rendered = render_day(config(variant), *day)
        assert rendered.subject == f"Мафия-7. День {day[1].day + 1}"
        body = rendered.body
        assert body.endswith("\n") and not body.endswith("\n\n")
        assert "\n\n\n" not in body
        assert body.count("[list]") == body.count("[/list]")
        assert body.count("[b]") == body.count("[/b]")


def test_phrases_agree_with_the_players_gender() -> None:
    assert agree("убит", "female") == "убита" and agree("убит", None) == "убит" and agree("был", "plural") == "были"
    before, outcome = GAMERU[0]
    dead = next(iter(outcome.deaths))
    for seed in range(40):  # some seed draws a phrase in which the nick is the subject
        state = before.model_copy(update={"seed": seed})
        body = render_day_post(config("gameru-3.3"), state, outcome, {dead: "female"})
        if any(word in body for word in ("казнена", "убита", "застрелена", "найдена", "угасла")):
            assert not any(f"{dead} {w}" in body for w in ("казнён", "был зверски"))
            return
    raise AssertionError("no seed drew a phrase that agrees with the gender")


def test_a_suicide_visited_only_by_the_doctor_is_announced_with_the_visit() -> None:
    players = (
        Player(nick="Босс", role="mafia", boss=True),
        Player(nick="Док", role="doctor"),
        Player(nick="Ком", role="commissar"),
        Player(nick="Тихоня", role="civilian"),
        Player(nick="Вася", role="civilian"),
    )
    state = GameState(variant="salon", seed=3, players=players)
    voters = [p.nick for p in players if p.nick != "Тихоня"]
    day = DayInput(
        votes=votes(*[(v, "Вася") for v in voters]), orders=(Order(actor="Док", action="heal", targets=("Тихоня",)),)
    )
    outcome = resolve_day(state, day)
    assert outcome.deaths["Тихоня"] == "inactive"
    line = line_with(post("salon", (state, outcome)), "Тихоня", "побывали")
    assert "доктор" in line


def test_the_post_that_ends_the_game_passes_no_role_on_and_says_game_over_once() -> None:
    """The silent sheriff dies on the day the town wins: no new sheriff is announced (there is no next day),
    and the reveal below the post does not repeat its "game over" heading."""
    players = (
        Player(nick="Дон", role="mafia", boss=True),
        Player(nick="Шериф", role="sheriff"),
        *(Player(nick=n, role="civilian") for n in ("Анна", "Борис", "Вера", "Глеб")),
    )
    state = GameState(variant="gameru-3.3", seed=7, players=players)
    town = ("Анна", "Борис", "Вера", "Глеб")
    [(before, outcome)] = play(state, DayInput(votes=votes(*((n, "Дон") for n in town)), silent=frozenset({"Шериф"})))
    assert outcome.winner == "town" and "new_sheriff" in [e.kind for e in outcome.events]
    salt = "соль"
    dealt = state.model_dump_json()
    row = GameRow(1, "Мафия-7", "gameru-3.3", {}, outcome.state, 7, salt, commitment_of(state, salt), dealt)
    settings = config("gameru-3.3")
    body = games.post_text(settings, row, before, outcome, render_day(settings, before, outcome).body)
    assert body.lower().count("игра окончена") == 1, body
    assert not any(phrase in body for phrase in PHRASES["new_sheriff"]), body
    assert f"Соль: [b]{salt}[/b]" in body  # the reveal is there, without its heading
