"""A page is whole only when it proves it (each engine's `pages.unproven`): every captured topic page, PM folder
and PM proves it; any proper prefix of one does not (a page cut short, sent without a Content-Length); a page
saved from a browser, whose tags the browser closed, proves it by its footer and by the posts or rows its
pagination implies."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

from forumbot.errors import ParseError
from forumbot.forum import registry
from forumbot.forum.dialect import PageKind
from forumbot.forum.invision.pages import read_page
from forumbot.forum.ipb2 import pages as ipb2
from forumbot.forum.ipb3 import pages as ipb3
from forumbot.forum.ips4 import pages as ips4
from forumbot.forum.markup import NO_END, Element, closes_html, decode_page
from forumbot.forum.phpbb import pages as phpbb

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
ENGINES: dict[str, ModuleType] = {"phpbb": phpbb, "ipb2": ipb2, "ipb3": ipb3, "ips4": ips4}
READ: tuple[PageKind, ...] = ("topic", "pm_inbox", "pm")
# Where each engine's footer opens in a page's text: a prefix cut before it lacks it.
FOOTERS = {
    "phpbb": ('id="page-footer"',),
    "ipb2": ('id="gfooter"', "class='copyright'"),
    "ipb3": ("id='footer_utilities'", "class='topic_controls clear ipsPad_top_bottom_half'"),
    "ips4": ('id="ipsLayout_footer"', "id='elCopyright'"),
}


def captured() -> list[tuple[str, str, PageKind]]:
    """(file, engine, kind) of every captured page of a kind the readers read."""
    found = []
    for path in sorted(FIXTURES.glob("*/*.html")) + sorted(FIXTURES.glob("demo/pages/*.html")):
        data = path.read_bytes()
        if not data.strip():
            continue
        engine, kind = registry.detect_page(read_page(data))
        if engine in ENGINES and kind in READ:
            found.append((str(path.relative_to(FIXTURES)), engine, kind))
    return found


CAPTURED = captured()


def text(name: str) -> str:
    """A captured page as text, in the charset it declares."""
    return decode_page((FIXTURES / name).read_bytes())[0]


def as_saved(html: str) -> str:
    """What a browser saves of a page: the tree it built, every open tag closed, `</html>` at its end."""
    return str(etree.tostring(read_page(html), encoding="unicode", method="html"))


def test_the_captures_cover_every_engine_and_kind() -> None:
    kinds = {(engine, kind) for _, engine, kind in CAPTURED}
    assert kinds >= {(engine, kind) for engine in ("phpbb", "ipb2", "ipb3") for kind in READ} | {("ips4", "topic")}


@pytest.mark.parametrize(("name", "engine", "kind"), CAPTURED)
def test_every_captured_page_proves_it_is_whole(name: str, engine: str, kind: PageKind) -> None:
    data = (FIXTURES / name).read_bytes()
    assert ENGINES[engine].unproven(read_page(data), kind, source=data) is None
    assert ENGINES[engine].unproven(as_saved(text(name)), kind) is None


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(page=st.sampled_from(CAPTURED), cut=st.floats(min_value=0.0, max_value=1.0, exclude_max=True))
def test_any_proper_prefix_of_a_captured_page_is_refused(page: tuple[str, str, PageKind], cut: float) -> None:
    """Cut anywhere before its `</html>` ends, a page says it stops before its end; saved by a browser (its
    tags closed), one cut before its footer says the footer is missing."""
    name, engine, kind = page
    whole = text(name)
    end = whole.lower().rindex("</html>") + len("</html>")
    prefix = whole[: int(cut * end)]
    assert not closes_html(prefix)
    assert ENGINES[engine].unproven(prefix, kind, source=prefix) == NO_END
    footer = min((i for marker in FOOTERS[engine] if (i := whole.find(marker)) >= 0), default=end)
    if int(cut * end) < footer - 200:  # well before the footer's tag opens
        try:
            saved = as_saved(prefix)
        except ParseError:  # nothing a browser could have shown: the saved folder refuses it as it is
            return
        missing = ENGINES[engine].unproven(saved, kind)
        assert missing is not None and ("footer" in missing or " where " in missing)


def drop(html: str, xpath: str) -> str:
    """The page as a browser would save it with the elements `xpath` finds taken out."""
    root: Element = read_page(html)
    for el in root.xpath(xpath):
        el.getparent().remove(el)
    return str(etree.tostring(root, encoding="unicode", method="html"))


@pytest.mark.parametrize(
    ("name", "engine", "kind", "xpath", "said"),
    [
        ("phpbb/viewtopic_page1.html", "phpbb", "topic", "//div[@id='p5']", "9 posts where page 1 of 2 holds 10"),
        (
            "phpbb-ru/17-viewtopic-A-lt1min.html",
            "phpbb",
            "topic",
            "//div[@id='p63']",
            "6 posts where page 1 of 1 holds 7",
        ),
        (
            "phpbb-ru/42-pm-inbox-all-ages.html",
            "phpbb",
            "pm_inbox",
            "(//dl[contains(@class, 'row-item')])[position() <= 5]",
            "20 messages where page 1 of 2 holds 25",
        ),
        (
            "phpbb-ru/30-pm-inbox-lt1min.html",
            "phpbb",
            "pm_inbox",
            "(//dl[contains(@class, 'row-item')])[last()]",
            "23 messages where page 1 of 1 holds 24",
        ),
        (
            "phpbb/pm_view.html",
            "phpbb",
            "pm",
            "//div[contains(@class, 'pm')]//div[@class='content']",
            "no message body (div.content)",
        ),
        (
            "ipb/topic_page1.html",
            "ipb2",
            "topic",
            "(//div[@id='post-301']/ancestor::table[1])",
            "9 posts where page 1 of 2 holds 10",
        ),
        (
            "ipb/topic_page2.html",
            "ipb2",
            "topic",
            "(//div[contains(@class, 'postcolor')]/ancestor::table[1])[1]",
            "4 posts where page 2 of 2 holds 5",
        ),
        (
            "ipb/pm_view.html",
            "ipb2",
            "pm",
            "//div[@id='ucpcontent']//div[contains(@class, 'postcolor')]",
            "no message body (div.postcolor)",
        ),
        (
            "ipb3/ipb346_topic_rel1.html",
            "ipb3",
            "topic",
            "(//div[contains(@class, 'post_block')][starts-with(@id, 'post_id_')])[1]",
            "5 posts where page 1 of 2 holds 6",
        ),
    ],
)
def test_a_saved_page_missing_what_its_pagination_promises_is_refused(
    name: str, engine: str, kind: PageKind, xpath: str, said: str
) -> None:
    """A page that reaches its footer but holds fewer posts or rows than its pagination implies (the count
    of all and the page size), or a PM page without its message, does not prove it is whole."""
    broken = drop(text(name), xpath)
    assert ENGINES[engine].unproven(broken, kind, source=broken) == said


def test_a_phpbb_last_page_is_held_to_the_count_when_its_url_gives_the_page_size() -> None:
    page2 = text("phpbb/viewtopic_page2.html")
    url = "http://127.0.0.1:8181/viewtopic.php?t=2&start=10"
    assert phpbb.unproven(page2, "topic", source=page2, url=url) is None
    broken = drop(page2, "//div[@id='p12']")
    assert phpbb.unproven(broken, "topic", url=url) == "5 posts where page 2 of 2 holds 6"
    assert phpbb.unproven(broken, "topic") is None  # page 1's link carries no offset: the size is unknown


def test_a_conversation_page_before_the_last_holds_its_twenty_messages() -> None:
    conversation = text("ipb3/ipb346_pm_conversation.html")
    pager = (
        "<div class='pagination clearfix left'><ul class='ipsList_inline left pages'>"
        "<li class='page active'>1</li><li class='page'><a href='x?st=20'>2</a></li></ul>"
        "<ul class='ipsList_inline forward left'><li class='next'><a href='x?st=20' rel='next'>next</a></li></ul></div>"
    )
    first = conversation.replace("<h2 class='maintitle'>", pager + "<h2 class='maintitle'>", 1)
    assert ipb3.unproven(first, "pm", source=first) == "2 messages where page 1 of 2 holds 20"
    assert ipb3.unproven(conversation, "pm", source=conversation) is None


def test_a_moderator_sees_more_posts_than_an_ipb3_page_holds_and_that_is_whole() -> None:
    modview = text("ipb3/ipb346_topic_modview.html")  # 8 posts on page 1 of 6 a page: 2 only moderators see
    assert ipb3.unproven(modview, "topic", source=modview) is None


@pytest.mark.parametrize(
    ("name", "engine", "kind"),
    [
        ("phpbb-ru/28-viewtopic-no-such-topic.html", "phpbb", "topic"),
        ("phpbb/login_page.html", "phpbb", "topic"),
        ("ipb/no_permission.html", "ipb2", "pm"),
        ("ipb3/no_permission.html", "ipb3", "pm_inbox"),
    ],
)
def test_a_whole_page_of_another_kind_is_left_to_the_parser(name: str, engine: str, kind: PageKind) -> None:
    """The proof judges wholeness only: a whole "no such topic" or login page is for the parser to name."""
    page = text(name)
    assert ENGINES[engine].unproven(page, kind, source=page) is None


def test_the_pairs_say_what_the_captures_are() -> None:
    """Each captured page's pair names the same engine and kind the proof was given (a guard on `captured`)."""
    for name, engine, kind in CAPTURED:
        pair = (FIXTURES / name).with_suffix(".json")
        if pair.exists():
            detect = json.loads(pair.read_text(encoding="utf-8")).get("detect")
            assert detect in (None, [engine, kind]), name
