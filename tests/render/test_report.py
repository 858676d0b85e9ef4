"""The personal morning report: what each player may know, and never more; the host's template sandboxed."""

from __future__ import annotations

from pathlib import Path

import pytest

from forumbot.config import GameConfig
from forumbot.engine.day import resolve_day
from forumbot.engine.model import DayInput, DayOutcome, GameState, Order, Player, Role, Vote
from forumbot.errors import ConfigError
from forumbot.render.bbcode import escape
from forumbot.render.report import render_report, render_reports, told_so_far

CONFIG = GameConfig.model_validate({"game": {"name": "kozanostra5", "variant": "kozanostra"}})
ROLES: dict[str, Role] = {
    "Фредо": "mafia",
    "Сонни": "mafia",
    "Каттани": "commissar",
    "Оябун": "yakuza",
    "Джо": "civilian",
    "Анна": "civilian",
    "Том": "civilian",
    "Билл": "civilian",
    "Лиза [b]": "civilian",
}


def _day_one(roles: dict[str, Role]) -> DayOutcome:
    state = GameState(variant="kozanostra", players=tuple(Player(nick=n, role=r) for n, r in roles.items()))
    mafia = [n for n, r in roles.items() if r == "mafia"]
    day = DayInput(
        votes=(Vote(voter="Том", targets=("Джо",)), Vote(voter="Анна", targets=("Джо",))),
        orders=(
            *(Order(actor=m, action="kill", targets=("Анна",)) for m in mafia),
            Order(actor="Каттани", action="check", targets=("Сонни",)),
        ),
    )
    return resolve_day(state, day)


def _report(roles: dict[str, Role], nick: str) -> str:
    outcome = _day_one(roles)
    return render_report(CONFIG, outcome, nick, told_so_far([outcome])).body


def test_a_civilian_s_report_never_names_a_living_mafioso_s_role() -> None:
    body = _report(ROLES, "Том")
    for line in body.splitlines():
        if line.startswith(("Фредо — ", "Сонни — ", "Оябун — ")):
            assert line.endswith(" — в игре"), line
    # the strongest form: swapping a living mafioso's role with a living civilian's leaves the report as it was
    swapped = ROLES | {"Фредо": "civilian", "Билл": "mafia"}
    assert _report(swapped, "Том") == body


def test_the_jailed_and_the_dead_are_published_to_everyone() -> None:
    body = _report(ROLES, "Том")
    assert "Джо — посадили за решётку, роль: честный житель" in body
    assert "Анна — убили этой ночью, роль: честный житель" in body
    assert "Джо: 3 голоса — за решётку!" in body


def test_a_mafioso_sees_his_clan_and_its_kill_not_the_yakuza() -> None:
    body = _report(ROLES, "Фредо")
    assert "Сонни — в игре, роль: мафиози" in body and "Оябун — в игре\n" in body
    assert "[b]Ваш клан[/b]\nФредо (мафиози)\nСонни (мафиози)\nЖертва вашего клана прошлой ночью: Анна." in body


def test_the_commissar_sees_his_own_check_and_no_other_secret() -> None:
    body = _report(ROLES, "Каттани")
    assert "Проверка прошлой ночи: Сонни — мафиози." in body
    assert "Сонни — в игре, роль: мафиози" in body and "Фредо — в игре\n" in body
    assert "Ваш клан" not in body


def test_every_living_player_gets_one_report_under_the_games_name() -> None:
    outcome = _day_one(ROLES)
    reports = render_reports(CONFIG, outcome)
    assert [m.to for m in reports] == [p.nick for p in outcome.state.living()]
    assert reports[0].subject == "kozanostra5: день 2, ваша утренняя газета"


def test_nicks_cannot_open_a_bbcode_tag() -> None:
    body = _report(ROLES, "Том")
    assert "Лиза [b]" not in body and f"{escape('Лиза [b]')} — в игре" in body


def test_a_host_template_is_sandboxed(tmp_path: Path) -> None:
    template = tmp_path / "report.j2"
    template.write_text("{{ residents.__class__.__mro__ }}", encoding="utf-8")
    config = CONFIG.model_copy(update={"templates": CONFIG.templates.model_copy(update={"report": template})})
    with pytest.raises(ConfigError, match="report.j2"):
        render_report(config, _day_one(ROLES), "Том")


def test_a_host_template_may_extend_the_default_and_override_a_block(tmp_path: Path) -> None:
    template = tmp_path / "report.j2"
    template.write_text(
        '{% extends "report/morning.bbcode.j2" %}{% block body %}Газета для {{ nick }}{% endblock %}', encoding="utf-8"
    )
    config = CONFIG.model_copy(update={"templates": CONFIG.templates.model_copy(update={"report": template})})
    message = render_report(config, _day_one(ROLES), "Лиза [b]")
    assert message.body == f"Газета для {escape('Лиза [b]')}\n"
    assert message.subject.startswith("kozanostra5: день 2")


def test_a_player_who_left_or_was_removed_is_shown_so_in_the_report_and_the_newspaper() -> None:
    from forumbot.engine.model import Removal
    from forumbot.render.day import render_day_post

    state = GameState(variant="kozanostra", players=tuple(Player(nick=n, role=r) for n, r in ROLES.items()))
    day = DayInput(
        leaving=frozenset({"Билл"}),
        removals=(Removal(nick="Том", reason="скриншот"),),
        votes=(Vote(voter="Анна", targets=("Джо",)), Vote(voter="Лиза [b]", targets=("Джо",))),
    )
    outcome = resolve_day(state, day)
    body = render_report(CONFIG, outcome, "Анна", told_so_far([outcome])).body
    assert "Билл — покинул игру, роль: честный житель" in body
    assert "Том — удалён ведущим, роль: честный житель" in body
    post = render_day_post(CONFIG, state, outcome)
    assert "Билл" in post and "покинул игру" in post and "удалён ведущим" in post
