"""A host's template is bounded: what it may build and how long it may run; past a bound, one line that names the
template's file and line, at once (before the bounds, `{{ 'a' * 10**9 }}` ended in a MemoryError minutes later)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from render_support import config, gameru_days

from forumbot.errors import ConfigError
from forumbot.render import sandbox
from forumbot.render.day import render_day_post

DAY = gameru_days()[0]

# Each builds far more than a post may hold, by another road.
TOO_BIG = {
    "{{ 'a' * 10**9 }}": "a text of 1,000,000,000 characters",
    "{{ ('ab' * 50000) + ('ab' * 50000) }}": "a text of 200,000 characters",
    "{{ [1] * 10**8 }}": "a list of 100,000,000 items",
    "{{ range(10**9) | list }}": "a range of 1,000,000,000 items",
    "{{ 7 ** 100000 }}": "a power of about 200,000 bits",
    "{{ 'a' | center(10**9) }}": "the filter center is given 1,000,000,000",
    "{{ 'a'.ljust(10**9) }}": "ljust() is given 1,000,000,000",
    "{{ (1).to_bytes(10**9, 'big') }}": "to_bytes() is given 1,000,000,000",
    "{{ '%*s' % (10**9, 'a') }}": "a text of 1,000,000,003 characters",
    "{{ '{:{}}'.format('a', 10**9) }}": "a text of 1,000,000,005 characters",
    "{{ ('a' * 100000).replace('a', 'bb') }}": "a text of 200,000 characters",
    "{{ (['ab' * 50000] * 10000) | join }}": "a text of 1,000,000,000 characters",
    "{{ ('x\\n' * 40000) | indent(1000) }}": "a text of 40,081,000 characters",  # 80,000 + 40,001 lines × 1,000
    "{{ [1] | batch(10**9, 0) | list }}": "the filter batch is given 1,000,000,000",
    "{% set ns = namespace(s='ab') %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}": "131,072",
    "{% set s %}{% for i in range(10000) %}{{ 'x' * 90000 }}{% endfor %}{% endset %}": "prints more than 1,000,000",
    "{% for i in range(10000) %}{% for j in range(10000) %}{% endfor %}{% endfor %}": "more than 1,000,000 steps",
}


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "mine.bbcode.j2"
    path.write_text("{% extends default %}\n{% block living %}\n" + text + "\n{% endblock %}\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(("text", "said"), TOO_BIG.items())
def test_a_template_that_builds_too_much_is_refused_at_once_naming_it(tmp_path: Path, text: str, said: str) -> None:
    path = write(tmp_path, text)
    started = time.process_time()
    with pytest.raises(ConfigError) as info:
        render_day_post(config("gameru-3.3", day=str(path)), *DAY)
    message = str(info.value)
    assert message.startswith(f"{path}:3: template error: too big: ") and "\n" not in message
    assert said in message
    assert time.process_time() - started < 4  # refused before it is built, not after


def test_a_template_that_runs_too_long_is_stopped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sandbox, "MAX_SECONDS", 0.05)
    text = "{% for i in range(5000) %}{{ ('a ' * 45000) | wordcount }}{% endfor %}"  # few steps, each a slow one
    with pytest.raises(ConfigError, match=r"mine\.bbcode\.j2:3: template error: too big: it runs longer than 0\.05"):
        render_day_post(config("gameru-3.3", day=str(write(tmp_path, text))), *DAY)


def test_lipsum_is_not_offered(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="'lipsum' is undefined"):
        render_day_post(config("gameru-3.3", day=str(write(tmp_path, "{{ lipsum(10**6) }}"))), *DAY)


def test_what_a_post_needs_stays_well_inside_the_bounds(tmp_path: Path) -> None:
    text = (
        "{% for d in deaths %}{{ d.nick }} {% endfor %}{{ 3 | plural('голос', 'голоса', 'голосов') }} "
        "{{ '%d из %d' | format(3, 12) }} {{ '{:>6}'.format('x') }} {{ '-' * 40 }} {{ (living | list | length) ** 3 }}"
        "{% for i in range(2000) %}{{ i ~ ',' }}{% endfor %}"
    )
    body = render_day_post(config("gameru-3.3", day=str(write(tmp_path, text))), *DAY)
    assert "Дон Борис" in body and "голоса 3 из 12      x ----" in body and "1999," in body


def test_each_rendering_has_its_own_budget(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Many renderings in one process (a role PM per player) do not add up to one bound."""
    monkeypatch.setattr(sandbox, "MAX_STEPS", 20_000)
    path = write(tmp_path, "{% for i in range(3000) %}{{ i }}{% endfor %}")
    for _ in range(20):  # 20 renderings of some 6,000 steps: past the bound if the budget carried over
        render_day_post(config("gameru-3.3", day=str(path)), *DAY)
    longer = write(tmp_path, "{% for i in range(3000) %}{{ i }}{{ i }}{{ i }}{{ i }}{{ i }}{{ i }}{{ i }}{% endfor %}")
    with pytest.raises(ConfigError, match="more than 20,000 steps"):  # one rendering of some 24,000 does pass it
        render_day_post(config("gameru-3.3", day=str(longer)), *DAY)
