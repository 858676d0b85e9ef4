"""find_fragments on real markup: what is red, what is bold, what sits in a quote or a spoiler."""

from __future__ import annotations

from typing import Any

import pytest
from extract_support import IPB, PHPBB, ipb_post, phpbb_post
from hypothesis import given
from hypothesis import strategies as st
from lxml import html

from forumbot.extract import Fragment, find_fragments, is_red

RED = ["red", "RED", "Red", "#F00", "#f00", "#ff0000", "#FF0000", "rgb(255,0,0)", "rgb( 255 , 0 , 0 )"]
NOT_RED = ["darkred", "#cc0000", "crimson", "rgb25500", "#ff00000", "orangered", "rgb(255,0,1)", "black"]

# IPB 2.1+ wraps the colour span in comment markers (the captured pages in fixtures/ipb/).
IPB_OPEN = '<!--coloro:{c}--><span style="color:{c}"><!--/coloro-->'
IPB_CLOSE = "<!--colorc--></span><!--/colorc-->"

# Both forums' spellings of [color=X][b]nick[/b][/color] and [b][color=X]nick[/color][/b].
TEMPLATES = {
    "phpbb red>bold": '<span style="color:{c}"><strong class="text-strong">{t}</strong></span>',
    "phpbb bold>red": '<strong class="text-strong"><span style="color:{c}">{t}</span></strong>',
    "ipb red>bold": IPB_OPEN + "<b>{t}</b>" + IPB_CLOSE,
    "ipb bold>red": "<b>" + IPB_OPEN + "{t}" + IPB_CLOSE + "</b>",
    "ipb legacy": "<b><span style='color:{c}'>{t}</span></b>",
}


def frag(
    text: str, *, red: bool = True, bold: bool = True, color: str | None = "red", **kw: bool
) -> Fragment:
    return Fragment(text, red, bold, color, kw.get("quoted", False), kw.get("spoiler", False))


# ----------------------------------------------------------------------------------------------------
# The captured pages
# ----------------------------------------------------------------------------------------------------

PHPBB_EXPECTED: dict[int, list[Fragment]] = {
    2: [frag("Day 1 begins.", red=False, color=None), frag("Name")],
    3: [frag("Пётр")],
    4: [frag("Кот_Матроскин")],
    5: [frag("Bob Smith", color="#FF0000")],
    6: [frag("Пётр", quoted=True)],
    7: [frag("Mr. Pink", red=False, color="darkred")],
    8: [frag("Дядя Фёдор", bold=False)],
    9: [frag("Dana_99")],
    10: [frag("Кот_Матроскин")],
    11: [frag("Dana_99", color="#ff0000")],
    12: [frag("Alice", color="#ff0000")],
    13: [frag("Пётр")],
    14: [],
    15: [frag("Дядя Фёдор")],
    16: [frag("Пётр", quoted=True), frag("Пётр")],
    17: [frag("Tally so far", red=False, color=None)],
}


@pytest.mark.parametrize("post_id", sorted(PHPBB_EXPECTED))
def test_phpbb_captured_posts(post_id: int) -> None:
    assert find_fragments(phpbb_post(post_id)["content_html"]) == PHPBB_EXPECTED[post_id]


def test_every_captured_phpbb_post_is_covered() -> None:
    assert sorted(p["post_id"] for p in PHPBB["posts"]) == sorted(PHPBB_EXPECTED)


def _as_sample(f: Fragment) -> dict[str, Any]:
    return {"text": f.text, "bold": f.bold, "colour": f.color, "in_quote": f.quoted}


@pytest.mark.parametrize("post", IPB["posts"], ids=lambda p: str(p["post_id"]))
def test_ipb_captured_posts_match_sample_json(post: dict[str, Any]) -> None:
    # the pair fixture (fixtures/extract/ipb_topic.json) lists every coloured or bold run;
    # find_fragments keeps the red or bold ones.
    expected = [f for f in post["fragments"] if f["bold"] or (f["colour"] and is_red(f["colour"]))]
    assert [_as_sample(f) for f in find_fragments(post["content_html"])] == expected


def test_ipb_edit_line_is_not_post_text() -> None:
    # p309's body carries "Сообщение отредактировал <b>Winnie</b>": the bold name is no fragment.
    assert "class='edit'" in ipb_post(309)["content_html"]
    assert find_fragments(ipb_post(309)["content_html"]) == [frag("Дядя Фёдор")]


def test_element_and_string_give_the_same_fragments() -> None:
    markup = ipb_post(308)["content_html"]
    assert find_fragments(html.fragment_fromstring(markup)) == find_fragments(markup)


# ----------------------------------------------------------------------------------------------------
# Red and bold
# ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("template", TEMPLATES.values(), ids=list(TEMPLATES))
@pytest.mark.parametrize("color", RED)
def test_exact_red_in_any_case_and_spacing_is_red(template: str, color: str) -> None:
    assert find_fragments(template.format(c=color, t="Alice")) == [frag("Alice", color=color)]


@pytest.mark.parametrize("template", TEMPLATES.values(), ids=list(TEMPLATES))
@pytest.mark.parametrize("color", NOT_RED)
def test_other_shades_are_not_red(template: str, color: str) -> None:
    assert find_fragments(template.format(c=color, t="Alice")) == [frag("Alice", red=False, color=color)]


@pytest.mark.parametrize(
    "markup",
    [
        '<strong><span style="filter: glow(color=red); height:20px">Alice</span></strong>',
        '<strong><span style="text-shadow: 0 0 4px red">Alice</span></strong>',
        '<strong><span style="background-color: red">Alice</span></strong>',
        '<strong><span style="border-color:red">Alice</span></strong>',
    ],
    ids=["glow", "shadow", "background", "border"],
)
def test_glow_shadow_and_other_red_properties_are_not_red(markup: str) -> None:
    assert find_fragments(markup) == [frag("Alice", red=False, color=None)]


def test_important_and_font_color_are_read() -> None:
    assert find_fragments('<b><span style="color: red !important">A</span></b>')[0].red
    assert find_fragments('<b><font color="#FF0000">A</font></b>') == [frag("A", color="#FF0000")]


@pytest.mark.parametrize("weight", ["bold", "BOLD", "bolder", "700", "800", "900", "bold !important"])
def test_inline_font_weight_bold(weight: str) -> None:
    markup = f'<span style="color:red; font-weight: {weight}">Alice</span>'
    assert find_fragments(markup) == [frag("Alice")]


@pytest.mark.parametrize("weight", ["normal", "400", "600", "lighter"])
def test_inline_font_weight_not_bold(weight: str) -> None:
    markup = f'<span style="color:red;font-weight:{weight}">Alice</span>'
    assert find_fragments(markup) == [frag("Alice", bold=False)]


def test_font_weight_normal_inside_bold_cancels_it() -> None:
    markup = '<b><span style="color:red"><span style="font-weight:normal">Alice</span></span></b>'
    assert find_fragments(markup) == [frag("Alice", bold=False)]


@pytest.mark.parametrize(
    "markup",
    [
        '<b><i><span style="color:red"><u>Alice</u></span></i></b>',
        '<span style="color:red"><em><strong><a href="#">Alice</a></strong></em></span>',
        '<div style="color:red"><p><span style="font-weight:700">Alice</span></p></div>',
    ],
)
def test_bold_and_red_nest_with_other_tags_between(markup: str) -> None:
    assert [(f.text, f.red, f.bold) for f in find_fragments(markup)] == [("Alice", True, True)]


def test_the_innermost_colour_wins() -> None:
    assert (
        find_fragments('<b><span style="color:red"><span style="color:blue">A</span></span></b>')[0].red
        is False
    )
    assert find_fragments('<b><span style="color:blue"><span style="color:red">A</span></span></b>')[0].red


def test_inherited_colour_keeps_the_parent_colour() -> None:
    markup = '<b><span style="color:red"><span style="color: inherit">A</span></span></b>'
    assert find_fragments(markup) == [frag("A")]


def test_plain_colour_and_plain_text_are_no_fragments() -> None:
    assert find_fragments('Hello <span style="color:darkred">Alice</span> <i>x</i>') == []


# ----------------------------------------------------------------------------------------------------
# Runs: where one fragment ends and the next begins
# ----------------------------------------------------------------------------------------------------


def test_html_comments_do_not_split_a_run() -> None:
    markup = '<span style="color:red"><b>Дядя<!-- x --> Фёдор</b></span>'
    assert find_fragments(markup) == [frag("Дядя Фёдор")]


def test_whitespace_in_red_between_bold_pieces_keeps_one_nick() -> None:
    markup = '<span style="color:red"><b>Дядя</b> <b>Фёдор</b></span>'
    assert find_fragments(markup) == [frag("Дядя Фёдор")]


def test_two_separately_marked_nicks_stay_two_fragments() -> None:
    one = TEMPLATES["phpbb red>bold"]
    markup = one.format(c="red", t="Alice") + " " + one.format(c="red", t="Bob Smith")
    assert [f.text for f in find_fragments(markup)] == ["Alice", "Bob Smith"]


def test_a_line_break_ends_a_fragment() -> None:
    markup = '<span style="color:red"><b>Alice<br/>Bob Smith</b></span>'
    assert [f.text for f in find_fragments(markup)] == ["Alice", "Bob Smith"]


def test_red_text_around_a_bold_nick_is_its_own_fragment() -> None:
    markup = '<span style="color:red">I vote <b>Alice</b> today</span>'
    assert find_fragments(markup) == [frag("I vote", bold=False), frag("Alice"), frag("today", bold=False)]


def test_whitespace_is_normalised_but_invisible_characters_are_kept() -> None:
    markup = '<b style="color:red">\n  Дядя \t Фёдор\u200b  </b>'
    assert [f.text for f in find_fragments(markup)] == ["Дядя Фёдор\u200b"]


def test_entities_are_decoded() -> None:
    assert (
        find_fragments('<b><span style="color:red">Hi&#33; &#8203;Bob</span></b>')[0].text == "Hi! \u200bBob"
    )


# ----------------------------------------------------------------------------------------------------
# Quotes, spoilers, notices
# ----------------------------------------------------------------------------------------------------

VOTE = TEMPLATES["phpbb red>bold"].format(c="red", t="Alice")


@pytest.mark.parametrize(
    "wrapper",
    [
        "<blockquote><div><cite>Bob wrote:</cite>{v}</div></blockquote>",
        '<blockquote cite="./viewtopic.php?p=3#p3"><div><cite>Bob</cite>{v}</div></blockquote>',
        "<blockquote><div><blockquote><div>{v}</div></blockquote></div></blockquote>",
        "<!--quoteo--><div class='quotetop'>Цитата</div>"
        "<div class='quotemain'><!--quotec-->{v}<!--QuoteEnd--></div><!--QuoteEEnd-->",
        '<blockquote class="ipsBlockquote" data-author="Bob"><p>{v}</p></blockquote>',
        '<p class="citation">Bob said:</p><div class="blockquote"><div class="quote">{v}</div></div>',
        "<q>{v}</q>",
    ],
    ids=["phpbb", "phpbb-button", "phpbb-nested", "ipb2", "ipb3.4", "ipb3.0", "q"],
)
def test_quoted_fragments_are_marked(wrapper: str) -> None:
    assert find_fragments(wrapper.format(v=VOTE) + " and mine " + VOTE) == [
        frag("Alice", quoted=True),
        frag("Alice"),
    ]


@pytest.mark.parametrize(
    "wrapper",
    [
        "<span style='color:#000000;background:#000000'>{v}</span>",
        '<span style="background-color: black">{v}</span>',
        '<div class="bbc_spoiler"><div class="bbc_spoiler_content">{v}</div></div>',
        '<div class="spoiler"><div class="spoiler-body">{v}</div></div>',
        "<details><summary>spoiler</summary>{v}</details>",
    ],
    ids=["ipb2-black", "black-bg", "ipb3", "generic", "details"],
)
def test_spoiler_fragments_are_marked(wrapper: str) -> None:
    found = find_fragments(wrapper.format(v=VOTE))
    assert [f.spoiler for f in found if f.text == "Alice"] == [True]


@pytest.mark.parametrize(
    "notice",
    [
        "<br /><br /><span class='edit'>Сообщение отредактировал <b>Winnie</b> - Сегодня, 12:03</span>",
        "<div class='post-edit-reason'>Причина редактирования: <b>Alice</b></div>",
        '<div class="notice">Last edited by <strong>Alice</strong><br /><strong>Reason:</strong></div>',
        '<div id="sig3" class="signature"><span style="color:red"><b>Alice</b></span></div>',
        "<script>var x = '<b>Alice</b>';</script>",
    ],
    ids=["ipb-edit", "ipb-reason", "phpbb-notice", "signature", "script"],
)
def test_edit_notices_and_signatures_are_skipped(notice: str) -> None:
    assert find_fragments("text" + notice + " tail " + VOTE) == [frag("Alice")]


@pytest.mark.parametrize("content", ["", "   ", "plain text", "<br/>", "<!-- only a comment -->"])
def test_nothing_to_find(content: str) -> None:
    assert find_fragments(content) == []


@given(st.text())
def test_find_fragments_never_raises_on_arbitrary_text(text: str) -> None:
    for f in find_fragments(text):
        assert f.text and f.text == f.text.strip(" ") and (f.red or f.bold)


@given(
    st.lists(
        st.sampled_from(["<b>", "</b>", '<span style="color:red">', "</span>", "<blockquote>", "x", " "])
    )
)
def test_find_fragments_never_raises_on_broken_markup(pieces: list[str]) -> None:
    for f in find_fragments("".join(pieces)):
        assert f.red or f.bold
