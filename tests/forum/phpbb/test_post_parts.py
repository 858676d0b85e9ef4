"""The one pass over a topic page that finds the posts finds each post's parts (author line, body, edit notice,
profile, moderation marks) as a search of the post's own subtree does: the first of each in the post's div and
below, whatever else holds them; on every captured phpBB page and on pages whose posts nest or hold stray parts."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forumbot.forum.markup import Element, has_class, parse_html
from forumbot.forum.phpbb.pages import _page_parts

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures"
PAGES = sorted(
    path
    for path in [*FIXTURES.glob("phpbb/*.html"), *FIXTURES.glob("phpbb-ru/*.html"), *FIXTURES.glob("demo/pages/*")]
    if path.read_bytes().strip()  # a redirect's empty answer is no page
)
PARTS = ("author", "content", "notice", "postprofile")


def searched(div: Element) -> tuple[dict[str, Element], str]:
    """A post's parts by a search of its subtree (the div itself included), as the parser once read them."""
    parts: dict[str, Element] = {}
    deleted, unapproved = has_class(div, "deleted"), False
    for el in div.iter("p", "div", "dl", "form"):
        names = (el.get("class") or "").split()
        if el.tag == "form":
            unapproved = unapproved or "mcp_approve" in names
            continue
        notice = "post-notice" in names
        deleted = deleted or (notice and "deleted" in names)
        unapproved = unapproved or (notice and "unapproved" in names)
        for name in names:
            if name in PARTS and not (name == "notice" and "post_deleted_msg" in names):
                parts.setdefault(name, el)
    return parts, "deleted" if deleted else "unapproved" if unapproved else "public"


def check(root: Element) -> int:
    posts = _page_parts(root)[0]
    for post in posts:
        parts, visibility = searched(post.div)
        assert post.parts == parts and post.visibility == visibility, post.div.get("id")
    return len(posts)


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.name)
def test_a_captured_page_s_posts_have_the_parts_of_their_subtree(path: Path) -> None:
    check(parse_html(path.read_bytes()))


def test_the_captured_pages_hold_posts() -> None:
    assert sum(check(parse_html(path.read_bytes())) for path in PAGES) >= 100


PIECES = st.sampled_from(
    [
        '<div id="p{n}" class="post bg1">', '<div id="p{n}" class="post deleted">', '<div class="post">',
        '<div class="inner">', '<p class="author">a</p>', '<div class="content">b</div>',
        '<div class="notice">c</div>', '<div class="notice post_deleted_msg">d</div>', '<dl class="postprofile"></dl>',
        '<p class="post-notice unapproved">e</p>', '<p class="post-notice deleted">f</p>',
        '<form class="mcp_approve">', "</form>", '<div class="content author">g</div>', "</div>", "<div>",
    ]
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(PIECES, min_size=1, max_size=40))
def test_nested_posts_and_stray_parts_have_the_parts_of_their_subtree(pieces: list[str]) -> None:
    body = "".join(piece.format(n=n) for n, piece in enumerate(pieces, 1))
    check(parse_html(f"<html><head><title>t</title></head><body><div>{body}</div></body></html>"))


def test_the_generated_pages_nest_posts() -> None:
    """The property above sees posts inside posts, and their parts."""
    page = (
        '<html><body><div id="p1" class="post"><div id="p2" class="post"><p class="author">a</p>'
        '<div class="content">b</div></div><div class="content">c</div></div>'
        '<div id="p3" class="post"><p class="post-notice deleted">x</p></div></body></html>'
    )
    root = parse_html(page)
    assert check(root) == 3
    first, second, third = _page_parts(root)[0]
    assert first.parts["content"] is second.parts["content"] and third.visibility == "deleted"
