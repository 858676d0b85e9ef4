"""The fragment walk the extraction runs (`_runs_of`: one loop, the text runs collected in place) reads what the
two layers it folds together read (`_walk` handing its text to `_Runs`): on every body of every captured topic
page and on generated bodies full of what changes a context (colours, weights, quotes, spoilers, notices,
comments, whitespace between marked words)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import html as lxml_html

from forumbot.errors import ParseError
from forumbot.extract.votes import _runs_of
from forumbot.forum.markup import Element
from forumbot.forum.phpbb.pages import parse_topic_page

from .test_bodies_read_from_the_page import IPB, PAGES, parse_invision
from .walk_reference import _reference_fragments


def compared_bodies(path: Path) -> list[int]:
    """The fragment counts of each body of a captured page, each body read both ways as its page is parsed
    (an element lives only during the call)."""
    counts: list[int] = []

    def both_ways(html: str, element: Element) -> None:
        found = _runs_of(element)
        assert found == _reference_fragments(element), html[:200]
        counts.append(len(found))

    try:
        (parse_invision if path in IPB else parse_topic_page)(path.read_bytes(), on_body=both_ways)
    except ParseError:  # not a topic page (a login form, a PM)
        pass
    return counts


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.name)
def test_every_captured_body_reads_the_same_both_ways(path: Path) -> None:
    compared_bodies(path)


def test_the_captured_bodies_hold_fragments() -> None:
    """The comparison above is not empty."""
    assert sum(1 for path in PAGES for count in compared_bodies(path) if count) >= 20


PIECES = st.sampled_from(
    [
        "Голосую ", "Alice", "Дядя Фёдор", " ", "  \n", "\t", ", ", "&nbsp;", "&amp;", "<br>", "<br/>", "<hr>",
        "<b>", "</b>", '<strong class="text-strong">', "</strong>", "<i>", "</i>", "<em>", "</em>",
        '<span style="color:red">', '<span style="color: #FF0000 !important">', '<span style="color:darkred">',
        '<span style="font-weight: bold">', '<span style="font-weight:400">', '<span style="color:inherit">',
        '<span style="background-color:#000;color:#000">', '<span class="bbc_spoiler">', "</span>",
        '<font color="red">', '<font color="blue">', "</font>", "<blockquote><cite>Кот написал:</cite>",
        "</blockquote>", '<div class="quotemain">', '<div class="quotetop">', '<div class="spoiler">', "</div>",
        '<span class="edit">', '<div class="signature">', "<p>", "</p>", "<ul><li>", "</li></ul>",
        "<!--coloro:red-->", "<!--/coloro-->", "<!-- comment -->", "<script>var x = 1;</script>",
        "<details><summary>Спойлер</summary>", "</details>", '<img src="x.png">', "<q>", "</q>",
        "<table><tr><td>", "</td></tr></table>", "<B>", "</B>", '<SPAN STYLE="COLOR:RED">',
    ]
)  # fmt: skip


TRICKY = [
    "<b>Alice<cite>Bob</cite>Carol</b>",  # a breaking leaf with text ends the run on both sides
    '<span style="color:red"><b>Дядя</b> <b>Фёдор</b></span>',  # red bold whitespace joins
    "<b>Alice</b> <b>Bob</b>",  # plain whitespace parts
    '<b>Alice<span class="bbc_spoiler"> </span>Bob</b>',  # whitespace in a spoiler ends the run
    '<b>Alice<span style="color:red"> </span>Bob</b>',
    '<b>Alice<br>Bob<img src="x">Carol<hr>Dave</b>',
    '<b>Al<!-- c -->ice</b><span class="edit"><b>Bob</b></span><b>Carol</b>',
    "<blockquote><b>Alice</b></blockquote><b>Bob</b> tail <q><b>Carol</b> in</q> out",
    '<font color="red"><b>Alice</b></font><font color=" RED "><b>Bob</b></font>',
    "<div><div><b>deep</b><p><b>er</b></p></div>after</div><b>x</b>",
]


@pytest.mark.parametrize("body", TRICKY)
def test_a_tricky_body_reads_the_same_both_ways(body: str) -> None:
    element = lxml_html.fragment_fromstring(body, create_parent="div")
    assert _runs_of(element) == _reference_fragments(element)


@settings(max_examples=600, deadline=None)
@given(st.lists(PIECES, max_size=40))
def test_any_body_reads_the_same_both_ways(pieces: list[str]) -> None:
    element = lxml_html.fragment_fromstring("".join(pieces), create_parent="div")
    assert _runs_of(element) == _reference_fragments(element)
