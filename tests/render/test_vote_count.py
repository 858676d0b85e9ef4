"""The vote-count post: bundled template, a host's own, and player text made inert."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from forumbot.errors import ConfigError
from forumbot.host.tally import render_tally_bbcode, tally_posts
from forumbot.posts import Post

HOSTILE = "[/b][color=red]x"


def post(post_id: int, author: str, target: str) -> Post:
    body = f'<span style="color:red"><strong class="text-strong">{target}</strong></span>'
    return Post(
        post_id=post_id,
        topic_id=1,
        author=author,
        author_id=None,
        time=datetime(2026, 11, 29, 12, post_id, tzinfo=UTC),
        content_html=body,
        permalink=f"./viewtopic.php?p={post_id}#p{post_id}",
    )


def tally() -> object:
    players = ["Alice", HOSTILE, "Bob"]
    return tally_posts([post(1, "Alice", "[/b][color=red]x"), post(2, "Bob", "Alice")], players)


def test_the_bundled_post_escapes_every_nick() -> None:
    body = render_tally_bbcode(tally(), "Подсчёт")  # type: ignore[arg-type]
    assert "[/b][color=red]x" not in body  # the hostile nick cannot close the bold or open a colour
    assert "[\u2060/b\u2060]" in body
    assert body.startswith("[b]Подсчёт[/b]")


def test_a_host_template_replaces_it(tmp_path: Path) -> None:
    mine = tmp_path / "count.j2"
    mine.write_text("{{ title }}: {% for t, who in voters.items() %}{{ t }}={{ who|length }};{% endfor %}\n")
    body = render_tally_bbcode(tally(), "Итого", mine)  # type: ignore[arg-type]
    assert body.startswith("Итого: ") and "Alice=1;" in body


def test_a_broken_host_template_names_file_and_line(tmp_path: Path) -> None:
    mine = tmp_path / "count.j2"
    mine.write_text("ok\n{% for x in %}\n")
    with pytest.raises(ConfigError, match=r"count.j2:2: template error"):
        render_tally_bbcode(tally(), "x", mine)  # type: ignore[arg-type]
