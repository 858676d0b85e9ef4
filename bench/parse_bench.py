"""Posts per second of `parse_topic_page` against a bare `lxml.html.fromstring` of the same pages.

    .venv/bin/python bench/parse_bench.py [--seconds 2]

Every captured topic page (fixtures/phpbb/*viewtopic*, fixtures/ipb/topic_page*) is parsed over and
over for about `--seconds` each way, as bytes, as a fetch would hand it over; the full parse includes
the posts' `content_html` serialization and the models. One process, one core.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from datetime import timedelta, timezone
from functools import partial
from pathlib import Path

import lxml.html

from forumbot.forum.ipb2 import pages as ipb2
from forumbot.forum.phpbb import pages as phpbb

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
MSK = timezone(timedelta(hours=3))


def pages() -> list[tuple[str, bytes, Callable[[bytes], int]]]:
    """(name, bytes, parse returning the post count) for every captured topic page."""
    found: list[tuple[str, bytes, Callable[[bytes], int]]] = []
    for path in sorted((FIXTURES / "phpbb").glob("*viewtopic*.html")):
        found.append(
            (f"phpbb/{path.name}", path.read_bytes(), lambda b: len(phpbb.parse_topic_page(b).posts))
        )
    for path in sorted((FIXTURES / "ipb").glob("topic_page*.html")):
        found.append(
            (f"ipb/{path.name}", path.read_bytes(), lambda b: len(ipb2.parse_topic_page(b, tz=MSK).posts))
        )
    return found


def rate(work: Callable[[], object], seconds: float) -> float:
    """Calls per second of `work`, timed for about `seconds` after one warm-up call."""
    work()
    calls, start = 0, time.perf_counter()
    while True:
        work()
        calls += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return calls / elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time spent on each page, each way")
    args = parser.parse_args(argv)
    print(f"{'page':36} {'posts':>5} {'bare lxml posts/s':>18} {'parse posts/s':>14} {'ratio':>6}")
    total_posts = total_bare = total_full = 0.0
    for name, data, parse in pages():
        posts = parse(data)
        bare = rate(partial(lxml.html.fromstring, data), args.seconds)
        full = rate(partial(parse, data), args.seconds)
        total_posts += posts
        total_bare += 1 / bare  # seconds per page
        total_full += 1 / full
        print(f"{name:36} {posts:5d} {posts * bare:18,.0f} {posts * full:14,.0f} {bare / full:6.2f}")
    bare_rate, full_rate = total_posts / total_bare, total_posts / total_full
    ratio = bare_rate / full_rate
    print(f"{'all pages':36} {int(total_posts):5d} {bare_rate:18,.0f} {full_rate:14,.0f} {ratio:6.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
