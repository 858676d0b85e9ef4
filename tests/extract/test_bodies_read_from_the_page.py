"""Fragments read from a body's element in the page's tree, as the parsers hand it over (`read_body`), are
the fragments a parse of the body's HTML gives: on every captured phpBB and IPB page and on generated bodies."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forumbot.errors import ParseError
from forumbot.extract import find_fragments, read_body
from forumbot.extract.votes import forget_fragments
from forumbot.forum import registry
from forumbot.forum.markup import BodyReader, Element
from forumbot.forum.phpbb.pages import parse_topic_page
from forumbot.posts import TopicPage

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
PHPBB = sorted([*FIXTURES.glob("phpbb/*.html"), *FIXTURES.glob("phpbb-ru/*.html"), *FIXTURES.glob("demo/pages/*")])
IPB = sorted([*FIXTURES.glob("ipb/*.html"), *FIXTURES.glob("ipb3/*.html"), *FIXTURES.glob("ips4/*.html")])
PAGES = [*PHPBB, *IPB]


def parse_invision(page: bytes, on_body: BodyReader | None = None) -> TopicPage:
    """An Invision page read by the engine that made it (IPB 2, IPB 3 or IPS 4), as saved pages are."""
    made = registry.made_by(page)
    if made is None or made.pages is None:
        raise ParseError("no engine made this page")
    return made.pages.parse_topic_page(page, on_body=on_body)


def bodies_of(page: bytes, parse: Callable[..., TopicPage] = parse_topic_page) -> list[tuple[str, list[object]]]:
    """(body HTML, the fragments of its element) of each post, as the parser hands them over."""
    seen: list[tuple[str, list[object]]] = []

    def keep(html: str, element: Element) -> None:
        seen.append((html, list(find_fragments(element))))

    try:
        parse(page, on_body=keep)
    except ParseError:  # not a topic page (a login form, a PM)
        return []
    return seen


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.name)
def test_a_body_read_from_the_page_gives_what_its_html_gives(path: Path) -> None:
    parse = parse_invision if path in IPB else parse_topic_page
    for html, from_element in bodies_of(path.read_bytes(), parse):
        forget_fragments()
        assert from_element == find_fragments(html), html[:200]


def test_the_captured_pages_hold_bodies_with_votes() -> None:
    """The comparison above is not empty: the captured topics hold red and bold text."""
    for pages, parse in ((PHPBB, parse_topic_page), (IPB, parse_invision)):
        found = [frags for path in pages for _, frags in bodies_of(path.read_bytes(), parse) if frags]
        assert len(found) >= 10


def test_a_body_read_as_its_page_is_parsed_is_found_by_the_extraction() -> None:
    page = (FIXTURES / "phpbb-ru" / "21-viewtopic-A-all-ages.html").read_bytes()
    forget_fragments()
    posts = parse_topic_page(page, on_body=read_body).posts
    expected = [find_fragments(post.content_html) for post in posts]
    forget_fragments()
    assert [find_fragments(post.content_html) for post in parse_topic_page(page).posts] == expected


PIECES = st.sampled_from(
    [
        "Голосую ", "<b>", "</b>", "<strong class=\"text-strong\">", "</strong>", '<span style="color:red">',
        '<span style="color: #FF0000">', "</span>", "<br>", "<blockquote><div><cite>Кот написал:</cite>",
        "</div></blockquote>", "Alice", "Дядя Фёдор", " ", "&amp;", "&nbsp;", "<em>", "</em>", "<p>", "</p>",
        '<div class="spoiler">', "</div>", "<!-- comment -->", "<ul><li>", "</li></ul>", "<i>", "</i>",
    ]
)  # fmt: skip


@settings(max_examples=150, deadline=None)
@given(st.lists(PIECES, max_size=30))
def test_any_body_read_from_the_page_gives_what_its_html_gives(pieces: list[str]) -> None:
    body = "".join(pieces)
    page = (
        '<html><head><title>День 1</title></head><body><h2 class="topic-title"><a href="./viewtopic.php?t=2">'
        'День 1</a></h2><div id="p5" class="post bg1"><div class="inner"><div class="postbody">'
        '<p class="author"><a class="username" href="./memberlist.php?mode=viewprofile&amp;u=3">Alice</a> '
        '<time datetime="2026-11-29T12:00:00+00:00">29 ноя</time></p>'
        f'<div class="content">{body}</div></div></div></div></body></html>'
    ).encode()
    seen = bodies_of(page)
    assert len(seen) == 1  # the page parses: its one body was handed over
    html, from_element = seen[0]
    forget_fragments()
    assert from_element == find_fragments(html)
