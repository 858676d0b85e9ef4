"""Could selectolax (lexbor) parse the topic pages instead of lxml? Its floor, and whether its tree gives the
same posts and votes (docs/performance.md, "The parse floor").

    .venv/bin/python bench/lexbor_check.py [--seconds 6] [--posts 1000]

Two questions, on every captured topic page of fixtures/ (phpBB, IPB 2, IPB 3) and on days rendered by the
fake phpBB, IPB 2 and IPB 3 boards:

- the same result: for each post forumbot's lxml parser reads, the body lexbor finds for the same post
  id serialised (`content_html` is stored, digested and compared byte for byte), and the red and bold
  fragments a walk of lexbor's tree reads from it (the vote walk ported to lexbor's nodes);
- the cost: CPU time of a bare lexbor parse, of a bare lxml parse, of forumbot's parse + extraction, and
  of the same work done on lexbor's tree (a prototype of the phpBB topic parser: posts, their parts, the
  models, the body's fragments), in interleaved rounds on the bench's phpBB day.

selectolax is not a dependency of forumbot: install it into the venv to run this (`pip install selectolax`).
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import run  # noqa: E402  (bench/ is not a package)
from selectolax.lexbor import LexborHTMLParser, LexborNode  # noqa: E402

from forumbot.extract import Roster, VoteSettings, extract_votes, read_body  # noqa: E402
from forumbot.extract import votes as V  # noqa: E402
from forumbot.forum.invision.pages import read_page  # noqa: E402
from forumbot.forum.ipb2 import pages as ipb2  # noqa: E402
from forumbot.forum.ipb3 import pages as ipb3  # noqa: E402
from forumbot.forum.markup import parse_html, serialize  # noqa: E402
from forumbot.forum.phpbb import pages as phpbb  # noqa: E402
from forumbot.posts import Post, TopicPage  # noqa: E402
from tests.extract.walk_reference import _Runs  # noqa: E402  (the two-layer walk, kept beside its test)

FIXTURES = ROOT / "fixtures"


# --- the vote walk on lexbor's nodes --------------------------------------------------------------


def lexbor_fragments(body: LexborNode) -> list[V.Fragment]:
    """`votes._fragments` of a body, walked on lexbor's tree: the same contexts, runs and breaks."""
    runs = _Runs()
    opened = _enter(body, V._ROOT)
    if opened is not None:
        _walk(body, opened, runs)
    runs.close()
    return runs.fragments


def _enter(node: LexborNode, ctx: V._Ctx) -> V._Ctx | None:
    tag = node.tag
    kind = V._tag_kind(tag)
    if kind & V._SKIP:
        return None
    attrs = node.attributes
    classes = attrs.get("class")
    skip, quote, spoiler = V._class_flags(classes) if classes else (False, False, False)
    if skip:
        return None
    if quote or kind & V._QUOTE:
        ctx = V._Ctx(ctx.color, ctx.red, ctx.bold, True, ctx.spoiler)
    if spoiler or kind & V._DETAILS:
        ctx = V._Ctx(ctx.color, ctx.red, ctx.bold, ctx.quoted, True)
    if kind & V._BOLD:
        ctx = V._Ctx(ctx.color, ctx.red, True, ctx.quoted, ctx.spoiler)
    if kind & V._FONT and attrs.get("color"):
        color = (attrs.get("color") or "").strip()
        ctx = V._Ctx(color, V.is_red(color), ctx.bold, ctx.quoted, ctx.spoiler)
    style = attrs.get("style")
    return V._apply_style(style, ctx) if style else ctx


def _walk(node: LexborNode, ctx: V._Ctx, runs: _Runs) -> None:
    breaks = V._tag_kind(node.tag) & V._BREAK
    if breaks:
        runs.close()
    for child in node.iter(include_text=True):
        if child.is_text_node:
            text = child.text_content
            if text:
                runs.text(text, ctx)
        elif child.is_element_node:
            inner = _enter(child, ctx)
            if inner is not None:
                _walk(child, inner, runs)
    if breaks:
        runs.close()


# --- the prototype phpBB topic parser on lexbor ---------------------------------------------------

_POST_ID = re.compile(r"p(\d+)")
_PARTS = "p.author, div.content, div.notice, dl.postprofile, form.mcp_approve, p.post-notice"


def lexbor_phpbb_posts(page: bytes) -> list[tuple[Post, LexborNode]]:
    """The posts of a phpBB topic page (the bench day's: no edits, no moderation) read from lexbor's tree."""
    tree = LexborHTMLParser(page)
    posts = []
    for div in tree.css("div.post"):
        found = _POST_ID.fullmatch(div.attributes.get("id") or "")
        if found is None:
            continue
        post_id = int(found.group(1))
        parts: dict[str, LexborNode] = {}
        for el in div.css(_PARTS):
            for name in (el.attributes.get("class") or "").split():
                parts.setdefault(name, el)
        author_p, content = parts["author"], parts["content"]
        user = author_p.css_first("a.username, a.username-coloured, span.username")
        stamp = author_p.css_first("time")
        href = user.attributes.get("href") or "" if user is not None else ""
        uid = re.search(r"[?&]u=(\d+)", href)
        post = Post(
            post_id=post_id,
            topic_id=None,
            author=user.text(strip=True) if user is not None else "",
            author_id=int(uid.group(1)) if uid else None,
            time=datetime.fromisoformat(stamp.attributes["datetime"] or ""),
            content_html=content.html or "",
            permalink=f"./viewtopic.php?p={post_id}#p{post_id}",
            page=1,
            visibility="public",
        )
        posts.append((post, content))
    return posts


# --- the pages compared ----------------------------------------------------------------------------


def captured() -> Iterator[tuple[str, bytes, Callable[[bytes], TopicPage], str]]:
    """(name, bytes, forumbot's parse, dialect) of every captured topic page that parses as one."""
    for folder in ("phpbb", "phpbb-ru"):
        for path in sorted((FIXTURES / folder).glob("*viewtopic*.html")):
            yield f"{folder}/{path.name}", path.read_bytes(), phpbb.parse_topic_page, "phpbb"
    for folder in ("ipb", "ipb3"):
        for path in sorted((FIXTURES / folder).glob("*topic*.html")):
            dialect, parse = ("ipb2", ipb2.parse_topic_page) if folder == "ipb" else ("ipb3", ipb3.parse_topic_page)
            yield f"{folder}/{path.name}", path.read_bytes(), parse, dialect


def rendered(posts: int) -> Iterator[tuple[str, bytes, Callable[[bytes], TopicPage], str]]:
    """The pages of one generated day (every body distinct) as the fake phpBB, IPB 2 and IPB 3 boards serve
    them to the host's account."""
    from fakeboard import BoardServer
    from fakeboard.ipb2 import Ipb2Server
    from fakeboard.ipb3 import Ipb3Server

    board, topics = run.make_board({"day": posts})
    topic, pages = topics["day"], -(-posts // run.PER_PAGE)
    kinds: list[tuple[str, Any, Callable[[int], str], Callable[[bytes], TopicPage]]] = [
        ("phpbb", BoardServer, lambda n: f"viewtopic.php?t={topic}&start={n * run.PER_PAGE}", phpbb.parse_topic_page),
        ("ipb2", Ipb2Server, lambda n: f"index.php?showtopic={topic}&st={n * run.PER_PAGE}", ipb2.parse_topic_page),
        ("ipb3", Ipb3Server, lambda n: f"index.php?showtopic={topic}&page={n + 1}", ipb3.parse_topic_page),
    ]
    for dialect, server_class, path, parse in kinds:
        with server_class(board, posts_per_page=run.PER_PAGE) as server:
            client = run.logged_in_client(server.url, dialect)
            http = client.http
            try:
                for n in range(pages):
                    yield f"fake {dialect} page {n + 1}", http.get(http.url(path(n))).content, parse, dialect
            finally:
                client.close()


def lexbor_bodies(page: bytes, dialect: str) -> dict[int, LexborNode]:
    """Each post's body in lexbor's tree, by post id, found as forumbot's parsers find it."""
    text = page.decode(_charset(page))
    tree = LexborHTMLParser(text)
    found: dict[int, LexborNode] = {}
    if dialect == "phpbb":
        for div in tree.css("div.post"):
            m = _POST_ID.fullmatch(div.attributes.get("id") or "")
            body = div.css_first("div.content") if m else None
            if m and body is not None:
                found.setdefault(int(m.group(1)), body)
    elif dialect == "ipb2":
        for div in tree.css("div.postcolor"):
            m = re.fullmatch(r"post-(\d+)", div.attributes.get("id") or "")
            if m and not (div.parent is not None and (div.parent.attributes.get("id") or "").startswith("post-ignore")):
                found.setdefault(int(m.group(1)), div)
    else:
        for block in tree.css("div.post_block"):
            m = re.fullmatch(r"post_id_(\d+)", block.attributes.get("id") or "")
            if not m:
                continue
            shown = block.css_first(f"#postsDeleteShow_{m.group(1)}") or block
            body = shown.css_first("div.post.entry-content")
            if body is not None:
                found[int(m.group(1))] = body
    return found


def lxml_bodies(page: bytes, dialect: str) -> dict[int, Any]:
    """The same bodies in lxml's tree (as parsed, before a parser cuts an edit line out of them)."""
    root = parse_html(page) if dialect == "phpbb" else read_page(page)
    found: dict[int, Any] = {}
    if dialect == "phpbb":
        for div in root.iter("div"):
            m = _POST_ID.fullmatch(div.get("id") or "")
            if m and "post" in (div.get("class") or "").split():
                body = next((d for d in div.iter("div") if "content" in (d.get("class") or "").split()), None)
                if body is not None:
                    found.setdefault(int(m.group(1)), body)
    elif dialect == "ipb2":
        for div in root.iter("div"):
            m = re.fullmatch(r"post-(\d+)", div.get("id") or "")
            parent = div.getparent()
            if m and "postcolor" in (div.get("class") or "").split() and not (
                parent is not None and (parent.get("id") or "").startswith("post-ignore")
            ):
                found.setdefault(int(m.group(1)), div)
    else:
        for block in root.iter("div"):
            m = re.fullmatch(r"post_id_(\d+)", block.get("id") or "")
            if not m or "post_block" not in (block.get("class") or "").split():
                continue
            shown = next((d for d in block.iter("div") if d.get("id") == f"postsDeleteShow_{m.group(1)}"), block)
            body = next((d for d in shown.iter("div") if {"post", "entry-content"} <= _classes(d)), None)
            if body is not None:
                found[int(m.group(1))] = body
    return found


def _classes(el: Any) -> set[str]:
    return set((el.get("class") or "").split())


def _charset(page: bytes) -> str:
    from forumbot.forum.markup import codec_name, sniff_charset

    declared = codec_name(sniff_charset(page))
    if declared:
        return declared
    try:
        page.decode("utf-8")
        return "utf-8"
    except UnicodeDecodeError:
        return "cp1251"


def compare(pages: Iterator[tuple[str, bytes, Callable[[bytes], TopicPage], str]]) -> Counter[str]:
    """Per post forumbot reads: is lexbor's body the same bytes, and are its fragments the same?"""
    seen: Counter[str] = Counter()
    for name, data, parse, dialect in pages:
        try:
            topic = parse(data)
        except Exception:  # not a topic page (a refusal, a print view): nothing to compare
            continue
        mine, theirs = lxml_bodies(data, dialect), lexbor_bodies(data, dialect)
        for post in topic.posts:
            seen["posts"] += 1
            ours, other = mine.get(post.post_id), theirs.get(post.post_id)
            if ours is None or other is None:
                seen["post not found by id in one tree"] += 1
                continue
            if serialize(ours) == other.html:
                seen["body: same bytes"] += 1
            else:
                seen[f"{dialect} body: other bytes ({_why(serialize(ours), other.html or '')})"] += 1
                if seen["shown"] < 3:
                    seen["shown"] += 1
                    print(f"  {name} post {post.post_id}: {_where(serialize(ours), other.html or '')}")
            if V._fragments(ours) == lexbor_fragments(other):
                seen["fragments: same"] += 1
            else:
                seen[f"{dialect} fragments: differ"] += 1
    return seen


def _why(a: str, b: str) -> str:
    if a.replace("\xa0", "&nbsp;") == b:
        return "U+00A0 written as &nbsp;"
    return "markup"


def _where(a: str, b: str) -> str:
    i = next((k for k in range(min(len(a), len(b))) if a[k] != b[k]), min(len(a), len(b)))
    return f"lxml {a[max(0, i - 40):i + 40]!r} / lexbor {b[max(0, i - 40):i + 40]!r}"


# --- the cost -------------------------------------------------------------------------------------


def _each(parse: Callable[[bytes], object], pages: list[bytes]) -> None:
    for page in pages:  # each tree dropped before the next is made, as a read does
        parse(page)


def cost(posts: int, seconds: float) -> None:
    import lxml.html

    pages = run.day_pages(posts)
    settings = VoteSettings(Roster(run.DAY_PLAYERS))

    def lexbor_full(chunk: list[bytes]) -> None:
        for page in chunk:
            read = lexbor_phpbb_posts(page)
            found = {post.post_id: lexbor_fragments(body) for post, body in read}
            extract_votes([post for post, _ in read], settings, fragments=found)

    def lxml_full(chunk: list[bytes]) -> None:
        V.forget_fragments()
        for page in chunk:
            extract_votes(phpbb.parse_topic_page(page, on_body=read_body).posts, settings)

    jobs: dict[str, Callable[[list[bytes]], None]] = {
        "bare lxml": lambda chunk: _each(lxml.html.fromstring, chunk),
        "bare lexbor": lambda chunk: _each(LexborHTMLParser, chunk),
        "forumbot on lxml": lxml_full,
        "prototype on lexbor": lexbor_full,
    }
    chunks = [pages[k : k + run.PARSE_PAGES_A_ROUND] for k in range(0, len(pages), run.PARSE_PAGES_A_ROUND)]
    times = run.interleaved(jobs, chunks, seconds, run.PARSE_ROUNDS)
    bare = times["bare lxml"]
    print(f"\n{posts:,} posts, {len(pages)} pages, {len(bare)} interleaved rounds (CPU time; {run.load()})")
    for name, spent in times.items():
        ratio = run.Spread.of(spent, bare)
        print(f"  {name:20} {ratio.median:.2f}x bare lxml (rounds {ratio})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=6.0)
    parser.add_argument("--posts", type=int, default=1000, help="posts of the generated day")
    args = parser.parse_args()
    began = time.perf_counter()
    for html in ('<div class="content">a&nbsp;b</div>', """<div class="content"><i title='say "x"'>x</i></div>"""):
        print(f"{html!r}: lxml {serialize(parse_html(html).find('.//div'))!r}, "
              f"lexbor {LexborHTMLParser(html).css_first('div').html!r}")
    for label, pages in (("captured pages", captured()), ("generated days", rendered(args.posts))):
        seen = compare(pages)
        seen.pop("shown", None)
        print(f"{label}: " + "; ".join(f"{k}: {v}" for k, v in sorted(seen.items())))
    cost(args.posts, args.seconds)
    print(f"({time.perf_counter() - began:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
