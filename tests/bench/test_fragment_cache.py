"""The fragment cache holds a whole big day: read twice (as the pages arrive, then by the tally), every
body is walked once, even past the 16,384 entries an older cache thrashed at; and it stays bounded."""

from __future__ import annotations

import pytest

from forumbot.extract import votes
from forumbot.extract.votes import find_fragments, forget_fragments


@pytest.fixture
def walks(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []
    walk = votes._fragments

    def counting(content):  # type: ignore[no-untyped-def]
        seen.append(content)
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
    assert walks == [body(2)]
