"""The fragment cache holds a whole big day: read twice (as the pages arrive, then by the tally), every
body is walked once, even past the 16,384 entries an older cache thrashed at; and it stays bounded."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from forumbot.extract import votes
from forumbot.extract.votes import find_fragments, forget_fragments


@pytest.fixture
def walks(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    seen: list[str] = []
    walk = votes._fragments

    def counting(content):  # type: ignore[no-untyped-def]
        seen.append(content if isinstance(content, str) else "".join(content.itertext()))
        return walk(content)

    monkeypatch.setattr(votes, "_fragments", counting)
    forget_fragments()
    yield seen
    forget_fragments()


def body(n: int) -> str:
    vote = f'<span style="color:red"><strong class="text-strong">Игрок {n}</strong></span>'
    return f'<div class="content">Голосую: {vote}</div>'


def test_a_35000_post_day_read_twice_is_walked_once(walks: list[str]) -> None:
    first = [find_fragments(body(n)) for n in range(35_000)]
    second = [find_fragments(body(n)) for n in range(35_000)]
    assert len(walks) == 35_000
    assert first == second and second[123][0].text == "Игрок 123" and second[123][0].red


def test_the_cache_is_bounded_and_forgets_the_least_recently_used(
    walks: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(votes._FRAGMENT_CACHE, "size", 3)
    for n in (1, 2, 3, 1, 4):  # 4 pushes out 2, the least recently used (1 was used again)
        find_fragments(body(n))
    assert len(votes._FRAGMENT_CACHE._entries) == 3
    walks.clear()
    for n in (1, 3, 4, 2):
        find_fragments(body(n))
    assert walks == ["Голосую: Игрок 2"]


FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
# Bodies the plain parse and the pre-check must read exactly as before: quotes, spoilers, entities,
# leading text and whitespace, a document, nothing at all.
EDGES = (
    "",
    "   ",
    "plain words, nothing marked",
    "  leading <b>Пётр</b> tail",
    "<span style='&#99;olor:red'><b>Шарик</b></span>",
    "<B>Alice</B><br><FONT COLOR=red>Bob</FONT>",
    "<blockquote><span style='color:#f00'><strong>Q</strong></span></blockquote> after",
    "<html><body><b>whole</b></body></html>",
    "<p>one</p><p><span style='font-weight:700'>two</span></p>",
    "<!--coloro:red--><span style='color:red'><!--/coloro--><b>Вера</b></span>",
)


def captured_bodies() -> list[str]:
    found = list(EDGES)
    for path in sorted((FIXTURES / "extract").glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        found += [post["content_html"] for post in data["posts"]]
        found += [v for v in data.values() if isinstance(v, str) and v.startswith("<")]
    return found


def test_the_cache_reads_every_captured_body_as_the_walk_of_lxml_html_does() -> None:
    bodies = captured_bodies()
    assert len(bodies) > 30
    for html in bodies:
        forget_fragments()
        assert find_fragments(html) == votes._fragments(html), html
