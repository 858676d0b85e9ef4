"""A nick with a right-to-left override (U+202E) or right-to-left letters is isolated wherever it is shown beside
other text: the preview HTML (`<bdi>`, and FSI … PDI in the chart), the BBCode of posts and messages, and the
command line (see tests/cli/test_bidi_cli.py); ordinary nicks are shown exactly as before."""

from __future__ import annotations

from lxml import html as lxml_html

from forumbot.draft import DayDraft
from forumbot.render.bbcode import escape, unescape
from forumbot.render.bidi import FSI, PDI, isolate, isolate_within, needs_isolation
from forumbot.render.preview import render_preview_html

RLO = "\u202e"
EVIL = f"{RLO}xoB"  # shows as "Box"... and, unisolated, every character after it backwards
ARABIC = "أحمد"


def test_only_text_that_could_turn_a_line_around_is_isolated() -> None:
    assert [needs_isolation(t) for t in (EVIL, ARABIC, "Пётр", "Bob Smith", "[b]x[/b]", "")] == [
        True,
        True,
        False,
        False,
        False,
        False,
    ]
    assert isolate(EVIL) == f"{FSI}{EVIL}{PDI}" and isolate("Пётр") == "Пётр"
    assert isolate_within(f"{EVIL}: no post today", [EVIL, "Пётр"]) == f"{FSI}{EVIL}{PDI}: no post today"
    assert isolate_within("Пётр: no post today", [EVIL, "Пётр"]) == "Пётр: no post today"


def test_the_bbcode_of_a_post_isolates_such_a_nick_and_nothing_else() -> None:
    assert escape(EVIL) == f"{FSI}{EVIL}{PDI}"
    assert unescape(escape(f"[b]{EVIL}")) == f"{FSI}[b]{EVIL}{PDI}"
    assert escape("Кот [Учёный]") == "Кот [\u2060Учёный\u2060]"  # as before


def payload() -> dict[str, object]:
    vote = {"voter": EVIL, "target": "Пётр", "time": "2026-11-29T10:00:00+03:00", "counted": True, "post_id": 3}
    return {
        "day": 1,
        "deaths": {EVIL: "executed"},
        "votes": [vote, {**vote, "voter": "Пётр", "target": EVIL, "post_id": 4}],
        "orders": [{"actor": EVIL, "action": "kill", "targets": ["Пётр"], "valid": True}],
        "activity": {EVIL: {"posts": 1, "orders": 0}},
        "inactivity": [f"{EVIL}: no post and no order today"],
        "state": {
            "variant": "gameru-3.3",
            "seed": 1,
            "players": [{"nick": EVIL, "role": "civilian"}, {"nick": "Пётр", "role": "civilian"}],
        },
        "bbcode": "[b]День 2[/b]",
    }


def test_the_preview_isolates_every_nick_it_shows() -> None:
    page = render_preview_html("Игра", DayDraft.model_validate(payload()))
    tree = lxml_html.document_fromstring(page)
    for code in tree.xpath('//code[@class="nick"]'):
        nick = [child.tag for child in code if child.get("class") != "lookalike"]  # a look-alike note may follow
        assert nick == ["bdi"], lxml_html.tostring(code)
    assert f"<bdi>{EVIL}</bdi>" in page
    notes = tree.get_element_by_id("audit-notes").text_content()
    assert f"{FSI}{EVIL}{PDI}: no post and no order today" in notes
    chart = tree.get_element_by_id("vote-chart")
    labels = [t.text for t in chart.xpath('.//*[@class="voter"]')]
    assert f"{FSI}{EVIL}{PDI}" in labels and "Пётр" in labels
    assert {m.get("data-voter") for m in chart.xpath(".//*[@data-voter]")} == {EVIL, "Пётр"}  # data kept as is


def test_an_ordinary_nick_reads_the_same_in_the_preview() -> None:
    page = render_preview_html("Игра", DayDraft.model_validate(payload()))
    tree = lxml_html.document_fromstring(page)
    assert "Пётр" in [c.text_content() for c in tree.xpath('//code[@class="nick"]')]
    assert FSI + "Пётр" not in page
