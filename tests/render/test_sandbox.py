"""A host's template runs sandboxed and sees only what the post may say."""

from __future__ import annotations

from pathlib import Path

import pytest
from render_support import config, gameru_days, kozanostra_days

from forumbot.errors import ConfigError
from forumbot.render.day import day_context, render_day_post
from forumbot.render.messages import render_role_messages

DAY = gameru_days()[0]
ESCAPES = [
    "{{ cycler.__init__.__globals__.os.getuid() }}",
    "{{ joiner.__init__.__globals__ }}",
    "{{ ''.__class__.__mro__[1].__subclasses__() }}",
    "{{ deaths[0].__class__ }}",
    "{{ phrase.__call__.__globals__ }}",
    "{% set _ = living.append('x') %}{{ living }}",
    "{{ voters_of.clear() }}",
]


def write(tmp_path: Path, text: str, name: str = "mine.bbcode.j2") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("expression", ESCAPES)
def test_python_internals_are_out_of_reach_and_the_error_names_the_file(tmp_path: Path, expression: str) -> None:
    path = write(tmp_path, "{% extends default %}\n{% block living %}\n" + expression + "\n{% endblock %}\n")
    with pytest.raises(ConfigError) as info:
        render_day_post(config("gameru-3.3", day=str(path)), *DAY)
    message = str(info.value)
    assert message.startswith(f"{path}:3: template error") and "\n" not in message
    assert "not allowed" in message


def test_a_role_template_is_sandboxed_too(tmp_path: Path) -> None:
    text = '{% extends "messages/role.bbcode.j2" %}{% block rules %}{{ cycler.__init__ }}{% endblock %}'
    path = write(tmp_path, text)
    with pytest.raises(ConfigError, match="not allowed in a template"):
        render_role_messages(config("gameru-3.3", role=str(path)), DAY[0])


def test_a_host_template_may_still_use_every_value_and_filter(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "{% for d in deaths %}{{ d.nick }}: {{ d.role }} ({{ d.cause }}, {{ d.role_id | role }}); {% endfor %}"
        '{{ 3 | plural("голос", "голоса", "голосов") }} {{ 2.5 | num }} {{ "убит" | agree("female") }}'
        "{% set ns = namespace(n=0) %}{% for v in votes %}{% set ns.n = ns.n + v.count %}{% endfor %} {{ ns.n }}",
    )
    body = render_day_post(config("gameru-3.3", day=str(path)), *DAY)
    assert body.startswith("Дон: мафиози (executed, мафиози); Борис: мирный житель (")
    assert "голоса 2,5 убита" in body


def test_templates_are_never_told_who_killed(tmp_path: Path) -> None:
    for days in (gameru_days(), kozanostra_days()):
        for before, outcome in days:
            context = day_context(config(before.variant), before, outcome)
            for death in context["deaths"]:
                assert not hasattr(death, "by")
            for fallen in context["dead_before"]:
                assert not hasattr(fallen, "boss")
    path = write(tmp_path, "{% for d in night %}{{ d.by }}{% endfor %}")
    with pytest.raises(ConfigError, match="has no attribute 'by'"):
        render_day_post(config("gameru-3.3", day=str(path)), *DAY)
