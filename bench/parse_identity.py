"""Do the topic parsers and the vote extraction give the same results as before a change? A dump to compare.

    .venv/bin/python bench/parse_identity.py --save before.txt     # before the change
    .venv/bin/python bench/parse_identity.py --check before.txt    # after it: exit 1 on the first difference

Every captured page of fixtures/ (every `.html` below it) is read as a topic page by every engine's parser
that takes it (phpBB, IPB 2, IPB 3, IPS 4), with and without a body reader (`read_body`); the folders of
saved pages are loaded as a host loads them; and a generated day (every body distinct) is rendered by the
fake phpBB, IPB 2 and IPB 3 boards. For each page: the page's fields, every post (`model_dump`, body,
times, ids and links included), the fragments of each body read from its HTML and those read from the
page's tree during the parse, and the vote records of the page's posts. One line per page, so a difference
names its page.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import run  # noqa: E402  (bench/ is not a package)

from forumbot.extract import Roster, VoteSettings, extract_votes  # noqa: E402
from forumbot.extract import votes as V  # noqa: E402
from forumbot.forum import registry  # noqa: E402
from forumbot.posts import TopicPage  # noqa: E402

FIXTURES = ROOT / "fixtures"
MSK = timezone(timedelta(hours=3))
NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
ENGINES = ("phpbb", "ipb2", "ipb3", "ips4")
_PORT = re.compile(rb"127\.0\.0\.1:\d+")


def _fragments(found: Any) -> list[list[Any]]:
    return [[f.text, f.red, f.bold, f.color, f.quoted, f.spoiler] for f in found]


def dump(name: str, parse: Callable[..., TopicPage], data: bytes) -> str | None:
    """One line for a page read by `parse` with a body reader and without (None: not a topic page to it)."""
    seen: dict[str, list[list[Any]]] = {}

    def reader(html: str, element: Any) -> None:
        V.read_body(html, element)  # what a read does
        seen.setdefault(html, _fragments(V._fragments(element)))

    try:
        plain = parse(data)
    except Exception as exc:  # noqa: BLE001  (not a topic page to this parser: what it says is compared too)
        return f"{name}\tREFUSED\t{type(exc).__name__}: {exc}"
    V.forget_fragments()
    read = parse(data, on_body=reader)
    if read != plain:
        raise SystemExit(f"{name}: the parse with a body reader differs from the parse without")
    return f"{name}\t" + _page_line(plain, seen)


def _page_line(page: TopicPage, seen: dict[str, list[list[Any]]] | None = None) -> str:
    authors = sorted({p.author.strip() for p in page.posts if p.author.strip()} | set(run.DAY_PLAYERS))
    records = extract_votes(page.posts, VoteSettings(Roster(authors), mode="lenient", votes_per_post=2))
    line = {
        "page": page.model_dump(mode="json", exclude={"posts"}),
        "posts": [p.model_dump(mode="json") for p in page.posts],
        "types": sorted({f"{k}:{type(v).__name__}" for p in page.posts for k, v in p.__dict__.items()}),
        "fragments": [_fragments(V.find_fragments(p.content_html)) for p in page.posts],
        "from_tree": [seen.get(p.content_html) for p in page.posts] if seen is not None else None,
        "votes": [r.model_dump(mode="json") for r in records],
    }
    return json.dumps(line, ensure_ascii=False, sort_keys=True)


def captured() -> Iterator[str]:
    for path in sorted(FIXTURES.rglob("*.html")):
        data = path.read_bytes()
        for engine in ENGINES:
            pages = registry.dialect(engine).pages

            def parse(page: bytes, pages: Any = pages, **kw: Any) -> TopicPage:
                return pages.parse_topic_page(page, tz=MSK, now=NOW, **kw)  # type: ignore[no-any-return]

            line = dump(f"{path.relative_to(FIXTURES)} as {engine}", parse, data)
            if line is not None:
                yield line


def saved() -> Iterator[str]:
    folders = sorted({path.parent for path in FIXTURES.rglob("*.html")})
    for folder in folders:
        try:
            loaded = registry.load_saved_folder(folder, NOW, tz=MSK)
        except Exception as exc:  # noqa: BLE001
            yield f"saved {folder.relative_to(FIXTURES)}\tREFUSED\t{type(exc).__name__}: {exc}"
            continue
        for number, page in enumerate(getattr(loaded, "topic_pages", ()) or ()):
            yield f"saved {folder.relative_to(FIXTURES)} page {number}\t" + _page_line(page)


def generated(posts: int) -> Iterator[str]:
    from fakeboard import BoardServer
    from fakeboard.ipb2 import Ipb2Server
    from fakeboard.ipb3 import Ipb3Server

    board, topics = run.make_board({"day": posts})
    topic, count = topics["day"], -(-posts // run.PER_PAGE)
    kinds: list[tuple[str, Any, Callable[[int], str]]] = [
        ("phpbb", BoardServer, lambda n: f"viewtopic.php?t={topic}&start={n * run.PER_PAGE}"),
        ("ipb2", Ipb2Server, lambda n: f"index.php?showtopic={topic}&st={n * run.PER_PAGE}"),
        ("ipb3", Ipb3Server, lambda n: f"index.php?showtopic={topic}&page={n + 1}"),
    ]
    for engine, server_class, path in kinds:
        pages = registry.dialect(engine).pages
        with server_class(board, posts_per_page=run.PER_PAGE) as server:
            client = run.logged_in_client(server.url, engine)
            http = client.http
            try:
                # the server's port changes from run to run: pages name one port (the canonical link)
                fetched = [_PORT.sub(b"127.0.0.1:8080", http.get(http.url(path(n))).content) for n in range(count)]
            finally:
                client.close()
        for n, data in enumerate(fetched):

            def parse(page: bytes, pages: Any = pages, **kw: Any) -> TopicPage:
                return pages.parse_topic_page(page, tz=MSK, now=NOW, **kw)  # type: ignore[no-any-return]

            line = dump(f"fake {engine} page {n + 1}", parse, data)
            if line is not None:
                yield line


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--save", metavar="FILE", help="write the dump")
    parser.add_argument("--check", metavar="FILE", help="compare with a dump written before")
    parser.add_argument("--posts", type=int, default=500, help="posts of the generated day")
    args = parser.parse_args()
    lines = [*captured(), *saved(), *generated(args.posts)]
    if args.save:
        Path(args.save).write_text("\n".join(lines) + "\n", encoding="utf-8")
    read = sum(line.count('"post_id"') for line in lines)
    print(f"{len(lines)} pages, {sum('REFUSED' not in line for line in lines)} read as topic pages; {read} post ids")
    if args.check:
        before = Path(args.check).read_text(encoding="utf-8").splitlines()
        for old, new in zip(before, lines, strict=False):
            if old != new:
                print(f"DIFFERS: {old.split(chr(9))[0]}\n  before {old[:400]}\n  after  {new[:400]}")
                return 1
        if len(before) != len(lines):
            print(f"DIFFERS: {len(before)} pages before, {len(lines)} now")
            return 1
        print("identical")
    return 0


if __name__ == "__main__":
    sys.exit(main())
