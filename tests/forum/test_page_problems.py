"""What is wrong with a page as a whole is reported with the page, never lost quietly: a post nested deeper than
libxml2's default limit, a windows-1251 page that says it is UTF-8. Small synthetic phpBB pages, each paired with
the same page made right."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from forumbot.errors import ParseError
from forumbot.extract import Roster, VoteSettings, extract_votes
from forumbot.forum.ipb2 import pages as ipb2
from forumbot.forum.markup import decode_page, parse_html
from forumbot.forum.phpbb import pages as phpbb
from forumbot.forum.registry import load_saved_folder

PLAYERS = ["Пётр", "Алиса", "Борис"]
VOTE = '<span style="color:#FF0000"><strong class="text-strong">{}</strong></span>'


def post(n: int, author: str, body: str) -> str:
    return (
        f'<div id="p{n}" class="post has-profile bg2"><div class="inner"><div class="postbody">'
        f'<div id="post_content{n}">'
        f'<h3><a href="#p{n}">Re: День 1</a></h3>'
        f'<p class="author"><a class="username" href="./memberlist.php?mode=viewprofile&amp;u={n}">{author}</a>'
        f' » <time datetime="2026-11-29T10:{n:02d}:00+00:00">29 ноя 2026, 13:{n:02d}</time></p>'
        f'<div class="content">{body}</div></div></div></div></div>'
    )


def page(*posts: str, charset: str = "utf-8") -> str:
    return (
        f'<!DOCTYPE html><html dir="ltr" lang="ru"><head><meta charset="{charset}"><title>День 1 - Мафия</title>'
        '<link rel="canonical" href="https://forum.example/viewtopic.php?t=7"></head>'
        '<body id="phpbb" class="section-viewtopic"><div id="wrap"><div id="page-body">'
        '<h2 class="topic-title"><a href="./viewtopic.php?t=7">День 1</a></h2>'
        + "".join(posts)
        + '</div><div id="page-footer" class="page-footer"></div></div><a href="https://www.phpbb.com/">phpBB</a>'
        "</body></html>"
    )


def day(deep: int) -> str:
    """Three posts: a vote, a post whose quote nests `deep` elements, a vote after it."""
    nested = "<span>" * deep + "ну и ну" + "</span>" * deep
    return page(
        post(1, "Алиса", VOTE.format("Пётр")),
        post(2, "Борис", nested),
        post(3, "Пётр", "Голосую: " + VOTE.format("Алиса")),
    )


def votes(parsed: object) -> list[tuple[str, str]]:
    records = extract_votes(parsed.posts, VoteSettings(Roster(PLAYERS)))  # type: ignore[attr-defined]
    return [(r.voter, r.target) for r in records if r.counted]


@pytest.mark.parametrize("deep", [10, 250, 300, 1500])
def test_a_deeply_nested_post_loses_nothing_after_it(deep: int) -> None:
    parsed = phpbb.parse_topic_page(day(deep).encode("utf-8"))
    assert [p.author for p in parsed.posts] == ["Алиса", "Борис", "Пётр"]
    assert votes(parsed) == [("Алиса", "Пётр"), ("Пётр", "Алиса")]
    assert parsed.problems == ()


def test_a_nesting_too_deep_even_for_huge_trees_is_reported_with_the_page() -> None:
    parsed = phpbb.parse_topic_page(day(3000).encode("utf-8"), url="https://forum.example/viewtopic.php?t=7")
    assert [p.author for p in parsed.posts] == ["Алиса", "Борис"]  # the parser gave up inside post 2...
    [problem] = parsed.problems  # ...and the page says so
    assert problem.startswith("https://forum.example/viewtopic.php?t=7: the page is damaged (Excessive depth")
    assert problem.endswith("what follows is lost")


def test_a_page_lost_entirely_to_the_nesting_says_why() -> None:
    nested = "<div>" * 3000
    with pytest.raises(ParseError, match="the page is damaged .*no post could be read"):
        phpbb.parse_topic_page(page(nested + post(1, "Алиса", VOTE.format("Пётр"))).encode("utf-8"))


def test_a_windows_1251_page_that_says_utf_8_keeps_its_cyrillic_votes() -> None:
    right = phpbb.parse_topic_page(day(10).replace("utf-8", "windows-1251").encode("cp1251"))
    wrong = phpbb.parse_topic_page(day(10).encode("cp1251"))  # the bytes of windows-1251, the label of UTF-8
    assert votes(wrong) == votes(right) == [("Алиса", "Пётр"), ("Пётр", "Алиса")]
    assert right.problems == ()
    [problem] = wrong.problems
    assert "declares the charset utf-8 but is not in it" in problem and problem.endswith("read as windows-1251")


def test_a_page_in_neither_charset_is_read_with_replacements_and_says_so() -> None:
    text, codec, problem = decode_page(day(10).replace("utf-8", "windows-1251").encode("utf-8") + b"\x98")
    assert codec == "cp1251" and problem is not None  # 0x98 is no windows-1251 byte, and alone no UTF-8 either
    assert "undecodable bytes were replaced" in problem and "Пётр" not in text


def test_a_page_decoded_with_replacements_before_it_came_says_so() -> None:
    mangled = day(10).encode("cp1251").decode("utf-8", errors="replace")  # what a careless client hands over
    parsed = phpbb.parse_topic_page(mangled)
    assert votes(parsed) == []  # the votes are gone...
    assert any("could not decode" in p for p in parsed.problems)  # ...and that is not silent


def test_an_ipb_page_reports_its_charset_too() -> None:
    path = Path(__file__).resolve().parents[2] / "fixtures" / "ipb" / "topic_page1.html"
    text = path.read_bytes().decode("utf-8")
    assert "charset=utf-8" in text.lower()
    now = datetime(2026, 11, 29, tzinfo=UTC)
    parsed = ipb2.parse_topic_page(text.encode("cp1251", errors="replace"), tz=UTC, now=now)
    assert any("declares the charset utf-8 but is not in it" in p for p in parsed.problems)


def test_saved_pages_carry_the_problem_to_the_tally(tmp_path: Path) -> None:
    (tmp_path / "day1.html").write_bytes(day(10).encode("cp1251"))
    saved = load_saved_folder(tmp_path, datetime(2026, 11, 29, 12, 0, tzinfo=UTC))
    [topic] = saved.topic_pages
    assert votes(topic) == [("Алиса", "Пётр"), ("Пётр", "Алиса")]
    assert any("read as windows-1251" in p for p in topic.problems)


def test_parse_html_marks_nothing_on_a_sound_page() -> None:
    root = parse_html(day(10).encode("utf-8"))
    assert root.get("data-forumbot-damage") is None


@pytest.mark.parametrize(
    "bad",
    [b"\xed\xa0\x80", b"\xc0\xaf", b"\xe0\x80\xaf", b"\xf4\x90\x80\x80", b"\xf5\x80\x80\x80", b"\xd0", b"\xff"],
    ids=["surrogate", "overlong", "overlong-3", "beyond-10ffff", "f5", "cut-off", "ff"],
)
@pytest.mark.parametrize("declared", ["utf-8", None])
def test_a_page_with_any_byte_sequence_python_refuses_as_utf_8_is_read_as_decode_page_reads_it(
    bad: bytes, declared: str | None
) -> None:
    """A page that says UTF-8 (or nothing) is parsed from its bytes without decoding it in Python first: every
    sequence Python's strict decoder refuses must still send it the way `decode_page` does."""
    text = day(10) if declared else day(10).replace('<meta charset="utf-8">', "")
    for data in (text.encode("utf-8").replace(b"<h3>", b"<h3>" + bad, 1), text.encode("utf-8") + bad):
        _, codec, problem = decode_page(data)
        root = parse_html(data)
        assert (root.get("data-forumbot-damage") or None) == (None if problem is None else problem), codec
        assert codec != "utf-8" or problem is not None  # the byte is no UTF-8: never read as it
