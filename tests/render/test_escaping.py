"""Hostile nicks come out inert: in the BBCode of posts and messages (as phpBB would render it) and in the
moderators' preview page."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable

import pytest
from lxml import html as lxml_html
from render_support import HOSTILE, Day, config, gameru_days, kozanostra_days, salon_days

from forumbot.draft import DayDraft
from forumbot.engine import DayInput, GameState, Vote, deal, resolve_day
from forumbot.engine.commitment import commitment_of
from forumbot.render.bbcode import escape, to_html, unescape
from forumbot.render.day import render_day_post
from forumbot.render.messages import (
    render_check_messages,
    render_reveal,
    render_role_change_messages,
    render_role_messages,
)
from forumbot.render.phpbb_html import render_bbcode
from forumbot.render.preview import render_preview_html

_TAG = re.compile(r"</?[a-z][^>]*>")

BUILDERS: dict[str, tuple[Callable[..., list[Day]], tuple[str, str, str]]] = {
    "gameru-3.3": (gameru_days, ("Анна", "Борис", "Вера")),
    "kozanostra": (kozanostra_days, ("Анна", "Глеб", "Борис")),
    "salon": (salon_days, ("Глеб", "Вера", "Анна")),
}


def skeleton(bbcode: str) -> list[str]:
    """The HTML tags phpBB would make of a post, text left out."""
    return _TAG.findall(render_bbcode(bbcode))


def hostile_days(variant: str) -> tuple[list[Day], list[Day]]:
    builder, victims = BUILDERS[variant]
    return builder(), builder(dict(zip(victims, HOSTILE, strict=True)))


@pytest.mark.parametrize("variant", list(BUILDERS))
def test_hostile_nicks_change_no_tag_of_a_day_post(variant: str) -> None:
    plain, hostile = hostile_days(variant)
    for (b1, o1), (b2, o2) in zip(plain, hostile, strict=True):
        clean = render_day_post(config(variant), b1, o1)
        dirty = render_day_post(config(variant), b2, o2)
        assert skeleton(dirty) == skeleton(clean)
        shown = render_bbcode(dirty)
        assert "<script" not in shown and "<a " not in shown
        for p in o2.state.living():
            assert p.nick in unescape(dirty)  # the reader still sees the nick as typed
        assert "[url=http://evil]" not in dirty and "[/b][color=red]x" not in dirty


@pytest.mark.parametrize("variant", list(BUILDERS))
def test_hostile_nicks_change_no_tag_of_the_messages(variant: str) -> None:
    plain, hostile = hostile_days(variant)
    cfg = config(variant)
    for (b1, o1), (b2, o2) in zip(plain, hostile, strict=True):
        pairs = [
            (render_role_messages(cfg, b1), render_role_messages(cfg, b2)),
            (render_check_messages(cfg, b1, o1), render_check_messages(cfg, b2, o2)),
            (render_role_change_messages(cfg, b1, o1), render_role_change_messages(cfg, b2, o2)),
        ]
        for clean, dirty in pairs:
            assert len(clean) == len(dirty)
            for m1, m2 in zip(clean, dirty, strict=True):
                assert skeleton(m2.body) == skeleton(m1.body)


def test_hostile_nicks_in_the_reveal_and_its_commitment_still_checks() -> None:
    nicks = [*HOSTILE, *(f"Игрок {i}" for i in range(7))]
    state = deal("gameru-3.3", nicks, 42)
    salt = "f00d"
    commitment = commitment_of(state, salt)
    outcome = resolve_day(state, DayInput(votes=(Vote(voter=nicks[3], targets=(nicks[0],)),)))
    reveal = render_reveal(config("gameru-3.3"), outcome.state, salt, commitment)
    note = "\nВ некоторых никах стоят невидимые символы U+2060"
    assert note in reveal.body
    plain = render_reveal(config("gameru-3.3"), *_plain_reveal(salt)).body
    assert skeleton(reveal.body.split(note)[0]) == skeleton(plain.rstrip("\n"))
    listed = unescape(reveal.body.split("[code]\n", 1)[1].split("\n[/code]", 1)[0])
    assert hashlib.sha256(f"{salt}\n{listed}".encode()).hexdigest() == commitment


def _plain_reveal(salt: str) -> tuple[GameState, str, str]:
    nicks = [f"Игрок {i}" for i in range(10)]
    state = deal("gameru-3.3", nicks, 42)
    outcome = resolve_day(state, DayInput(votes=(Vote(voter=nicks[3], targets=(nicks[0],)),)))
    return outcome.state, salt, commitment_of(state, salt)


# --- BBCode -> HTML for the preview, as phpBB 3.3 renders it (the same renderer as the test board) ---


@pytest.mark.parametrize(
    "source,expected",
    [
        ("[b]x[/b]", '<strong class="text-strong">x</strong>'),
        ("[B]x[/B]", '<strong class="text-strong">x</strong>'),
        ("[color=#FF0000]x[/color]", '<span style="color:#FF0000">x</span>'),
        ("[size=150]x[/size]", '<span style="font-size:150%;line-height:116%">x</span>'),
        ('[quote="Анна"]x[/quote]', "<blockquote><div><cite>Анна писал(а):</cite>x</div></blockquote>"),
        ("[list][*]a[*]b[/list]", "<ul><li>a</li><li>b</li></ul>"),
        (
            "[url=https://example.org/a?b=1&c=2]x[/url]",
            '<a href="https://example.org/a?b=1&amp;c=2" class="postlink">x</a>',
        ),
        (
            "[url]https://example.org[/url]",
            '<a href="https://example.org" class="postlink">https://example.org</a>',
        ),
        ("a\nb", "a<br>\nb"),
    ],
)
def test_to_html_renders_the_tags_the_templates_use(source: str, expected: str) -> None:
    assert to_html(source) == expected


@pytest.mark.parametrize(
    "source",
    [
        "[url=javascript:alert(1)]x[/url]",
        "[url]javascript:alert(1)[/url]",
        "[color=red;background:url(x)]x[/color]",
        "[size=9999]x[/size]",
        "[img]javascript:alert(1)[/img]",
        "[script]x[/script]",
        "<script>alert(1)</script>",
        '<img src=x onerror="alert(1)">',
    ],
)
def test_to_html_leaves_what_it_cannot_vouch_for_as_text(source: str) -> None:
    out = to_html(source)
    assert "<a" not in out and "<script" not in out and "<img" not in out and "<span" not in out
    assert lxml_html.fragment_fromstring(out or "x", create_parent="div").text_content() == (source or "x")


def test_to_html_closes_what_is_left_open_and_ignores_stray_closers() -> None:
    assert to_html("[b]x") == '<strong class="text-strong">x</strong>'
    assert to_html("x[/b]") == "x[/b]"
    # phpBB reopens a formatting tag closed by a misnested end tag
    assert to_html("[b][i]x[/b]y[/i]") == (
        '<strong class="text-strong"><em class="text-italics">x</em></strong><em class="text-italics">y</em>'
    )


def test_escaped_text_renders_as_the_same_characters() -> None:
    for nick in HOSTILE:
        shown = lxml_html.fragment_fromstring(to_html(escape(nick)), create_parent="div").text_content()
        assert unescape(shown) == nick


# --- the preview page ------------------------------------------------------------------------------


def hostile_payload() -> dict[str, object]:
    before, outcome = gameru_days(dict(zip(("Анна", "Борис", "Вера"), HOSTILE, strict=True)))[0]
    bbcode = render_day_post(config("gameru-3.3"), before, outcome)
    evil = HOSTILE[2]
    return {
        "day": 1,
        "deaths": dict(outcome.deaths),
        "checks": {HOSTILE[0]: "mafia"},
        "winner": "none",
        "executed": list(outcome.executed),
        "tally": dict(outcome.tally),
        "votes": [
            {
                "post_id": 5,
                "voter": evil,
                "target": HOSTILE[1],
                "time": "2026-11-29T12:00:00+00:00",
                "counted": True,
                "reason": None,
                "text": '"><script>alert(2)</script>',
                "nearest": HOSTILE[0],
                "edited_by": evil,
                "link": "javascript:alert(3)",
                "channel": "thread",
            },
            {
                "post_id": 6,
                "voter": HOSTILE[0],
                "target": evil,
                "time": "2026-11-29T13:00:00+00:00",
                "counted": False,
                "reason": "<b>why</b>",
                "link": 'http://evil/"onmouseover="alert(4)',
                "channel": "thread",
            },
        ],
        "orders": [
            {
                "actor": evil,
                "action": "kill",
                "targets": [HOSTILE[1]],
                "time": "2026-11-29T14:00:00+00:00",
                "link": "pm:1",
                "valid": False,
                "reason": "<i>void</i>",
                "line": "<script>alert(5)</script>",
                "nearest": evil,
            }
        ],
        "void": [{"kind": "order", "actor": evil, "action": "kill", "targets": [evil], "reason": evil, "ref": evil}],
        "overrides": [{"kind": "set_vote", "subject": evil, "value": evil, "reason": evil, "by": evil}],
        "activity": {evil: {"posts": 1, "orders": 0}},
        "inactivity": [f"{evil}: no post and no order today"],
        "events": [e.model_dump(mode="json") for e in outcome.events],
        "bbcode": bbcode,
        "state": outcome.state.model_dump(mode="json"),
        "unread_pms": [{"pm_id": 9, "sender": evil, "subject": evil, "link": "javascript:x", "reason": evil}],
        "page_problems": [evil],
    }


def test_hostile_text_is_inert_in_the_preview_page() -> None:
    page = render_preview_html(HOSTILE[2], DayDraft.model_validate(hostile_payload()), approved_by=HOSTILE[0])
    assert "<script" not in page.lower()
    tree = lxml_html.document_fromstring(page)
    assert not tree.xpath("//script | //iframe | //img | //object | //embed | //link")
    hrefs = [a.get("href") or "" for a in tree.iter("a")]
    assert hrefs == ['http://evil/"onmouseover="alert(4)']  # an http link stays one attribute; javascript: none
    assert not tree.xpath("//*[@onerror or @onload or @onclick or @onmouseover]")
    post = tree.get_element_by_id("post")
    assert not post.xpath(".//a")  # no nick became a link
    assert not post.xpath('.//span[contains(@style, "color:red")]')
    assert HOSTILE[2] in unescape(post.text_content())
    chart = tree.get_element_by_id("vote-chart")
    assert {m.get("data-voter") for m in chart.xpath(".//*[@data-voter]")} == {HOSTILE[2], HOSTILE[0]}
