"""A host's own templates: override one block of the default, or the whole post; errors name file and line."""

from __future__ import annotations

from pathlib import Path

import pytest
from render_support import HOSTILE, config, gameru_days, kozanostra_days

from forumbot.config import load_game_config
from forumbot.errors import ConfigError
from forumbot.render.bbcode import escape
from forumbot.render.day import render_day, render_day_post
from forumbot.render.messages import render_role_messages

DAY = gameru_days()[0]


def write(tmp_path: Path, text: str, name: str = "my_day.bbcode.j2") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_host_overrides_one_block_and_keeps_the_rest(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        '{% extends default %}\n{% block living %}Ещё дышат: {{ living | join(" / ") }}{% endblock %}\n',
    )
    default = render_day_post(config("gameru-3.3"), *DAY)
    mine = render_day_post(config("gameru-3.3", day=str(path)), *DAY)
    assert "Ещё дышат: Сонни / Шериф / Мясник / Анна / Глеб" in mine
    assert "В живых" not in mine
    keep = default.split("[b]В живых")[0]
    assert mine.startswith(keep)  # everything before the overridden block is the default's


def test_a_host_block_can_call_the_default_and_use_the_values(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "{% extends default %}\n"
        "{% block night %}{{ super() }}\n[i]Всего погибших: {{ deaths | length }}[/i]{% endblock %}\n"
        "{% block footer %}[size=85]Ведущий: host[/size]{% endblock %}\n",
    )
    mine = render_day_post(config("gameru-3.3", day=str(path)), *DAY)
    assert "[b]Убийства[/b]" in mine and "[i]Всего погибших: 5[/i]" in mine
    assert mine.rstrip().endswith("[size=85]Ведущий: host[/size]")


def test_macros_print_their_text_once_escaped(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "{% extends default %}{% macro who(d) %}[u]{{ d.nick }}[/u]{% endmacro %}\n"
        "{% block living %}{% for d in deaths %}{{ who(d) }}\n{% endfor %}{% endblock %}",
    )
    days = gameru_days({"Дина": HOSTILE[0]})
    day1 = render_day_post(config("gameru-3.3", day=str(path)), *days[0])
    assert "[u]Дон[/u]" in day1  # the macro's own tags are kept
    assert f"[u]{escape(HOSTILE[0])}[/u]" in day1  # the nick escaped once, inside them


def test_a_host_overrides_the_subject(tmp_path: Path) -> None:
    path = write(tmp_path, "{% extends default %}{% block subject %}[{{ game }}] Утро {{ next_day }}{% endblock %}")
    rendered = render_day(config("gameru-3.3", name=HOSTILE[1], day=str(path)), *DAY)
    assert rendered.subject == f"[{HOSTILE[1]}] Утро 2"  # a subject is plain text: not BBCode
    assert "[url=" not in rendered.body  # ... but in the post it is escaped


def test_a_whole_post_of_the_host_and_the_variant_defaults_to_extend(tmp_path: Path) -> None:
    path = write(tmp_path, "{{ title }}: {% for d in deaths %}{{ d.nick }} ({{ d.role }}) {% endfor %}")
    assert render_day(config("gameru-3.3", day=str(path)), *DAY).body == (
        "Мафия-7. День 2: Дон (мафиози) Борис (мирный житель) Фредо (мафиози) Вера (мирный житель) "
        "Дина (мирный житель)\n"
    )
    koz = write(tmp_path, '{% extends "day/kozanostra.bbcode.j2" %}{% block votes %}{% endblock %}', "k.j2")
    body = render_day_post(config("kozanostra", day=str(koz)), *kozanostra_days()[0])
    assert "Утренняя газета" in body and "Кто за кого голосовал" not in body


def test_a_template_syntax_error_names_the_file_and_line(tmp_path: Path) -> None:
    path = write(tmp_path, "{% extends default %}\n{% block night %}\n{% if %}\n{% endblock %}\n")
    with pytest.raises(ConfigError) as info:
        render_day_post(config("gameru-3.3", day=str(path)), *DAY)
    assert f"{path}:3: template error" in str(info.value)


def test_an_error_while_rendering_names_the_file_and_line(tmp_path: Path) -> None:
    path = write(tmp_path, "{% extends default %}\n{% block living %}\n\n{{ nobody.knows }}\n{% endblock %}\n")
    with pytest.raises(ConfigError) as info:
        render_day_post(config("gameru-3.3", day=str(path)), *DAY)
    assert f"{path}:4: template error" in str(info.value) and "nobody" in str(info.value)


def test_a_missing_template_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such template file"):
        render_day_post(config("gameru-3.3", day=str(tmp_path / "absent.j2")), *DAY)
    path = write(tmp_path, '{% extends "day/nope.bbcode.j2" %}')
    with pytest.raises(ConfigError, match="template not found: day/nope.bbcode.j2"):
        render_day_post(config("gameru-3.3", day=str(path)), *DAY)


def test_the_config_file_names_the_template_relative_to_itself(tmp_path: Path) -> None:
    write(tmp_path, "{% extends default %}{% block heading %}[b]Наш город, день {{ next_day }}[/b]{% endblock %}")
    (tmp_path / "game.toml").write_text(
        '[game]\nname = "Мафия-7"\nvariant = "gameru-3.3"\n[templates]\nday = "my_day.bbcode.j2"\n', "utf-8"
    )
    cfg = load_game_config(tmp_path / "game.toml")
    assert render_day_post(cfg, *DAY).startswith("[b]Наш город, день 2[/b]")


def test_a_host_role_template_overrides_one_block(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        '{% extends "messages/role.bbcode.j2" %}{% block rules %}Пишите только мне, {{ nick }}.{% endblock %}',
        "role.j2",
    )
    before = DAY[0]
    messages = render_role_messages(config("gameru-3.3", role=str(path)), before)
    assert all(m.body.rstrip().endswith(f"Пишите только мне, {m.to}.") for m in messages)
    assert "[b]Ваша семья:[/b]" in next(m.body for m in messages if m.to == "Дон")
