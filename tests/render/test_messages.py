"""Private messages: each role at the deal, each checker's result, roles that change hands, the reveal."""

from __future__ import annotations

import hashlib

import pytest
from render_support import (
    config,
    gameru_days,
    gameru_players,
    gameru_silent_sheriff,
    kozanostra_days,
    orders,
    play,
    salon_days,
    votes,
)

from forumbot.engine import DayInput, GameState, Order, Vote, deal, resolve_day
from forumbot.engine.commitment import commitment_of, role_list_text
from forumbot.errors import StateError
from forumbot.render.bbcode import unescape
from forumbot.render.messages import (
    Message,
    dealt_state,
    render_check_messages,
    render_reveal,
    render_role_change_messages,
    render_role_message,
    render_role_messages,
)


def by_recipient(messages: list[Message]) -> dict[str | None, str]:
    return {m.to: m.body for m in messages}


@pytest.mark.parametrize("variant", ["gameru-3.3", "kozanostra", "salon"])
def test_every_player_gets_his_role_and_the_mafia_their_team(variant: str) -> None:
    count = {"gameru-3.3": 12, "kozanostra": 10, "salon": 9}[variant]
    nicks = [f"Игрок {i}" for i in range(count)]
    state = deal(variant, nicks, 17)
    messages = render_role_messages(config(variant), state)
    # gameru-3.3 (seed 001): "Жители никаких писем не получают"; the other variants write to everyone
    written = [p.nick for p in state.players if variant != "gameru-3.3" or p.role != "civilian"]
    assert [m.to for m in messages] == written
    assert variant != "gameru-3.3" or len(written) < len(nicks)
    assert all(m.subject == "Мафия-7: ваша роль" for m in messages)
    mafia = [p for p in state.players if p.role == "mafia"]
    boss = next((p for p in mafia if p.boss), None)
    assert (boss is None) == (variant == "kozanostra")  # kozanostra's mafia has no boss
    for p in state.players:
        if p.nick not in written:
            continue
        body = by_recipient(messages)[p.nick]
        assert body.startswith(f"Здравствуйте, {p.nick}!")
        if p.role == "mafia":
            team = body.split("[b]Ваша семья:[/b]\n[list]\n", 1)[1].split("[/list]", 1)[0]
            assert [line.split(" — ")[0] for line in team.splitlines()] == [f"[*]{m.nick}" for m in mafia]
            if boss is not None:
                assert f"[*]{boss.nick} — мафиози, [b]босс[/b]" in team
            else:
                assert "босс" not in team
            assert "Убиваем — ник" in body
        else:
            assert "Ваша семья" not in body
            assert all(m.nick not in body for m in mafia if m.nick != p.nick)


def test_the_role_texts_follow_the_variant() -> None:
    salon = deal("salon", [f"P{i}" for i in range(9)], 3)
    maniac = next(p.nick for p in salon.players if p.role == "maniac")
    body = render_role_message(config("salon"), salon, maniac).body
    assert "Насилую — ник" in body and "Расстреливаю — ник" in body and "[b]обязаны[/b]" in body
    gameru = deal("gameru-3.3", [f"P{i}" for i in range(9)], 3)
    sheriff = next(p.nick for p in gameru.players if p.role == "sheriff")
    body = render_role_message(config("gameru-3.3"), gameru, sheriff).body
    assert "Проверяю — ник" in body and "красным жирным" in body and "23:00 (МСК)" in body
    koz = deal("kozanostra", [f"P{i}" for i in range(8)], 3, {"yakuza": 1, "ninja": 1})
    ninja = next(p.nick for p in koz.players if p.role == "ninja")
    yakuza = next(p.nick for p in koz.players if p.role == "yakuza")
    body = render_role_message(config("kozanostra"), koz, ninja).body
    assert "честным жителем" in body and f"[*]{yakuza} — якудза" in body
    with pytest.raises(StateError):
        render_role_message(config("kozanostra"), koz, "nobody")


def test_each_checker_learns_his_result_privately() -> None:
    gameru = [render_check_messages(config("gameru-3.3"), *day) for day in gameru_days()[:2]]
    assert by_recipient(gameru[0]) == {"Шериф": "Фредо — [b]мафиози[/b]. Ваша пуля нашла цель.\n"}
    assert by_recipient(gameru[1]) == {"Шериф": "Глеб — [b]НЕ мафия[/b].\n"}
    assert gameru[0][0].subject == "Мафия-7: результат проверки, день 1"  # gameru-3.3 has no nights
    koz = render_check_messages(config("kozanostra"), *kozanostra_days()[0])
    assert by_recipient(koz) == {"Адвокат": "Прошлой ночью вы узнали: Шериф — на самом деле [b]шериф[/b].\n"}
    salon = [render_check_messages(config("salon"), *day) for day in salon_days()]
    assert by_recipient(salon[0]) == {"Мегрэ": "Тони — [b]мафиози[/b].\n"}
    assert by_recipient(salon[1]) == {"Мегрэ": "Психо — [b]НЕ мафия[/b].\n"}
    assert salon[2] == []  # no check sent


def test_a_sheriff_whose_target_was_executed_is_not_told_his_bullet_killed() -> None:
    state = GameState(variant="gameru-3.3", seed=7, players=gameru_players())
    town = ("Анна", "Борис", "Вера", "Глеб", "Дина", "Шериф")
    day = DayInput(votes=votes(*((nick, "Фредо") for nick in town)), orders=orders(("Шериф", "check", "Фредо")))
    [(before, outcome)] = play(state, day)
    assert outcome.deaths["Фредо"] == "executed"
    told = by_recipient(render_check_messages(config("gameru-3.3"), before, outcome))["Шериф"]
    shot = "Этого игрока казнили по итогам голосования раньше, чем прозвучал ваш выстрел."
    assert told == f"Фредо — [b]мафиози[/b]. {shot}\n"


def test_a_check_that_did_not_happen_is_a_miss() -> None:
    state = deal("salon", [f"P{i}" for i in range(9)], 3)
    commissar = next(p.nick for p in state.players if p.role == "commissar")
    hetaera = next(p.nick for p in state.players if p.role == "hetaera")
    target = next(p.nick for p in state.players if p.role == "civilian")
    outcome = resolve_day(
        state,
        DayInput(
            votes=tuple(Vote(voter=p.nick, targets=(target,)) for p in state.players),
            orders=(
                Order(actor=commissar, action="check", targets=(target,)),
                Order(actor=hetaera, action="sleep", targets=(commissar,)),
            ),
        ),
    )
    body = by_recipient(render_check_messages(config("salon"), state, outcome))[commissar]
    assert body == f"Ваша проверка игрока {target} этой ночью не удалась.\n"


def test_roles_that_change_hands() -> None:
    new_boss = render_role_change_messages(config("gameru-3.3"), *gameru_days()[0])
    assert [m.to for m in new_boss] == ["Сонни"]
    assert "теперь [b]босс — вы[/b]" in new_boss[0].body and new_boss[0].subject == "Мафия-7: новый босс"
    sheriff = render_role_change_messages(config("gameru-3.3"), *gameru_silent_sheriff()[0])
    assert [m.to for m in sheriff] == ["Вера"]
    assert "теперь вы — [b]шериф[/b], начиная с дня 2" in sheriff[0].body
    assert "Проверяю — ник" in sheriff[0].body
    heir = render_role_change_messages(config("kozanostra"), *kozanostra_days()[0])
    assert [m.to for m in heir] == ["Вера"]
    assert "Роль покойного игрока Каттани перешла к вам: теперь вы — [b]комиссар[/b]." in heir[0].body


def test_the_reveal_opens_the_commitment() -> None:
    nicks = [f"Игрок {i}" for i in range(9)]
    state = deal("gameru-3.3", nicks, 99)
    salt = "00ff"
    commitment = commitment_of(state, salt)
    final = resolve_day(state, DayInput()).state
    assert dealt_state(final) == state.model_copy(update={"day": 1})
    reveal = render_reveal(config("gameru-3.3"), final, salt, commitment)
    assert reveal.to is None and reveal.subject == "Мафия-7: игра окончена, роли"
    assert f"Соль: [b]{salt}[/b]" in reveal.body and commitment in reveal.body
    listed = unescape(reveal.body.split("[code]\n", 1)[1].split("\n[/code]", 1)[0])
    assert listed == role_list_text(state)
    assert hashlib.sha256(f"{salt}\n{listed}".encode()).hexdigest() == commitment
    boss = next(p.nick for p in state.players if p.boss)
    assert f"[*]{boss} — [b]мафиози (босс)[/b], в живых" in reveal.body
    with pytest.raises(StateError, match="commitment"):
        render_reveal(config("gameru-3.3"), final, "other salt", commitment)
