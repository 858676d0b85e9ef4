"""forumbot's benchmark suite (`make bench`): every figure of issue 6 with its target, PASS or FAIL.

    .venv/bin/python bench/run.py [--only simulate,parse,http] [--seconds 2]

Figures, all measured in this one run:

- simulate: twelve-player gameru-3.3 games per second on one core (`forumbot.simulate.simulate`);
- parse + extraction: posts per second of `phpbb.parse_topic_page` + `extract_votes` (with the players'
  roster, as `tally.py` calls it) over the captured phpBB topic pages, side by side with a bare
  `lxml.html.fromstring` of the same bytes (the floor), and the ratio of the two;
- HTTP: a synthetic day of 3,500 posts (140 pages of 25: votes, quotes and edits mixed in by
  `fakeboard.populate_day`) served by the fake phpBB board on 127.0.0.1 with 50 ms added to every
  response. A child process that runs nothing but the tally (open_client + read_topic with a page cache
  + tally_posts) is timed for the full tally against the bound ceil(pages / concurrency) x 50 ms; then 25
  posts are added and a second child re-tallies with the same cache (pages fetched, wall time); the peak
  memory is each child's own ru_maxrss, so the harness and the board do not count. The login (phpBB's
  form wants a second between fetching and posting it) is timed apart: it is per process, not per page.

Timings are the best of a few repetitions (other processes on the machine only ever slow a run down).
Exit status 1 when a figure misses its target, 0 otherwise. Nothing here runs in `make test`.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import lxml.html

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the fake board (`fakeboard`) is test support beside the package, not in it
FIXTURES = ROOT / "fixtures" / "phpbb"

# The players named in the captured day's opening post (fixtures/phpbb/*viewtopic_page1.html).
FIXTURE_PLAYERS = (
    "Alice",
    "Bob Smith",
    "Пётр",
    "Кот_Матроскин",
    "Дядя Фёдор",
    "Шарик",
    "Mr. Pink",
    "Charlie",
    "Ёжик в тумане",
    "Dana_99",
)
# The synthetic day's players: Latin and Cyrillic nicks, spaces, digits, underscores.
DAY_PLAYERS = (
    "Alice",
    "Bob Smith",
    "Пётр",
    "Кот_Матроскин",
    "Дядя Фёдор",
    "Шарик",
    "Mr. Pink",
    "Charlie",
    "Ёжик в тумане",
    "Dana_99",
    "Гоша",
    "Nina K",
    "Стёпа2",
    "Oleg_M",
    "Вера",
)
HOST, HOST_PASSWORD = "host_bot", "bench-secret"
DAY_POSTS, PER_PAGE, LATENCY, NEW_POSTS = 3500, 25, 0.05, 25


@dataclass(frozen=True)
class Figure:
    name: str
    measured: float
    unit: str
    target: str  # as printed, e.g. ">= 2,000"
    passed: bool | None  # None: shown for context, no target
    digits: int = 0

    def shown(self) -> str:
        return f"{self.measured:,.{self.digits}f} {self.unit}".strip()

    @property
    def verdict(self) -> str:
        return "" if self.passed is None else ("PASS" if self.passed else "FAIL")


def best_rate(work: Callable[[], object], seconds: float, repeats: int = 3) -> float:
    """Calls per second of `work`: the best of `repeats` runs of about `seconds / repeats` each."""
    work()  # warm-up: imports, caches
    best = 0.0
    for _ in range(repeats):
        calls, start = 0, time.perf_counter()
        while True:
            work()
            calls += 1
            elapsed = time.perf_counter() - start
            if elapsed >= seconds / repeats:
                break
        best = max(best, calls / elapsed)
    return best


# --- simulate --------------------------------------------------------------------------------------


def bench_simulate(seconds: float) -> list[Figure]:
    from forumbot.simulate import simulate

    games, best, seed = 500, 0.0, 0
    simulate("gameru-3.3", 12, games=50, seed=seed)  # warm-up
    deadline = time.perf_counter() + seconds
    while True:
        seed += 1
        start = time.perf_counter()
        simulate("gameru-3.3", 12, games=games, seed=seed)
        best = max(best, games / (time.perf_counter() - start))
        if time.perf_counter() >= deadline and seed >= 3:
            break
    return [Figure("simulate: 12-player gameru-3.3 games", best, "games/s", ">= 2,000", best >= 2000)]


# --- parse + extraction ----------------------------------------------------------------------------


def bench_parse(seconds: float) -> list[Figure]:
    from forumbot.extract import Roster, extract_votes
    from forumbot.extract.votes import forget_fragments
    from forumbot.forum.phpbb import parse_topic_page

    paths = sorted(FIXTURES.glob("viewtopic_page*.html")) + sorted(FIXTURES.glob("ru_viewtopic_page*.html"))
    pages = [path.read_bytes() for path in paths]
    roster = Roster(FIXTURE_PLAYERS)
    posts_per_round = sum(len(parse_topic_page(page).posts) for page in pages)
    records = sum(len(extract_votes(parse_topic_page(page).posts, roster)) for page in pages)
    assert records > 0, "the captured pages hold votes: extraction found none"

    def bare() -> None:
        for page in pages:
            lxml.html.fromstring(page)

    def full() -> None:
        # Every round reads the bodies afresh: the process-wide fragment cache must not flatter the figure.
        forget_fragments()
        for page in pages:
            extract_votes(parse_topic_page(page).posts, roster)

    bare_rate = posts_per_round * best_rate(bare, seconds / 2)
    full_rate = posts_per_round * best_rate(full, seconds / 2)
    ratio = bare_rate / full_rate
    where = f"{len(pages)} captured phpBB pages, {posts_per_round} posts"
    return [
        Figure(f"bare lxml parse ({where})", bare_rate, "posts/s", "(floor)", None),
        Figure("parse + vote extraction", full_rate, "posts/s", ">= 4,000", full_rate >= 4000),
        Figure("parse + extraction vs bare lxml", ratio, "x slower", "<= 2.5", ratio <= 2.5, 2),
    ]


# --- HTTP: the fake board and a tally in a child process -------------------------------------------


def bench_http(runs: int = 3) -> list[Figure]:
    from fakeboard import Board, BoardServer, populate_day
    from forumbot.forum.http import HttpSettings

    board = Board()
    board.add_user(HOST, HOST_PASSWORD, moderator=True)
    forum = board.add_forum("Mafia")
    start = datetime(2026, 11, 29, 9, 0, tzinfo=UTC)
    opening = "[b]День 1.[/b] Игроки: " + ", ".join(DAY_PLAYERS)
    topic = board.add_topic(forum, "Mafia-7. День 1", HOST, opening, start)
    populate_day(board, topic, DAY_POSTS - 1, DAY_PLAYERS, seed=1, start=start, moderator="Moderator")
    pages = math.ceil(DAY_POSTS / PER_PAGE)
    concurrency = HttpSettings().concurrency
    bound = math.ceil(pages / concurrency) * LATENCY
    with tempfile.TemporaryDirectory(prefix="forumbot-bench-") as tmp, BoardServer(
        board, latency=LATENCY, posts_per_page=PER_PAGE
    ) as server:
        # Warm the fake board's own cache of rendered BBCode, so that no run pays for it: the board
        # stands for a forum that answers in 50 ms.
        warm = run_child("tally", server.url, topic, Path(tmp) / "warm.db")
        assert warm["posts"] == DAY_POSTS, warm
        floor = run_child("floor", server.url, topic, Path(tmp) / "unused.db")
        fulls: list[dict[str, Any]] = []
        for k in range(runs):  # each with an empty page cache
            server.reset_log()
            fulls.append(run_child("tally", server.url, topic, Path(tmp) / f"pages{k}.db"))
            fulls[-1]["pages"] = server.count("viewtopic.php")
        last = board.posts_of(topic)[-1].time
        populate_day(board, topic, NEW_POSTS, DAY_PLAYERS, seed=2, start=last, moderator="Moderator")
        server.reset_log()
        # the incremental read of a quick look (the decisive read of a day reads every page, as above)
        again = run_child("tally", server.url, topic, Path(tmp) / f"pages{runs - 1}.db", incremental=True)
        again_pages = server.count("viewtopic.php")
    full = min(fulls, key=lambda report: report["tally_s"])
    assert all(r["posts"] == DAY_POSTS for r in fulls) and again["posts"] == DAY_POSTS + NEW_POSTS, (fulls, again)
    wall, peak_mb = full["tally_s"], max(r["maxrss_kb"] for r in [*fulls, again]) / 1024
    return [
        Figure(f"full tally: {DAY_POSTS:,} posts, {full['pages']} pages, best of {runs}", wall, "s", "", None, 2),
        Figure("  of which reading the topic (fetch, parse, cache)", full["read_s"], "s", "", None, 2),
        Figure(f"  vs bound ceil({pages}/{concurrency}) x {LATENCY * 1000:.0f} ms = {bound:.2f} s", wall / bound,
               "x", "<= 1.3", wall / bound <= 1.3, 2),
        Figure("  (floor: the same GETs, bare httpx, no parsing)", floor["get_s"] / bound, "x", "", None, 2),
        Figure(f"incremental re-tally after {NEW_POSTS} new posts: pages fetched", again_pages, "pages", "<= 2",
               again_pages <= 2),
        Figure("  re-tally wall time", again["tally_s"], "s", "", None, 2),
        Figure("login (once per process, phpBB's 1 s form rule)", full["login_s"], "s", "", None, 2),
        Figure("peak memory of the tally process", peak_mb, "MB", "< 150", peak_mb < 150),
    ]


def run_child(mode: str, url: str, topic: int, cache: Path, *, incremental: bool = False) -> dict[str, Any]:
    """Run `tally_child` or `floor_child` in a fresh interpreter; its JSON report."""
    job = json.dumps({"mode": mode, "url": url, "topic": topic, "cache": str(cache), "incremental": incremental})
    done = subprocess.run(
        [sys.executable, __file__, "--child", job], capture_output=True, text=True, timeout=300, cwd=ROOT
    )
    if done.returncode != 0:
        raise RuntimeError(f"the {mode} child failed:\n{done.stderr}")
    report: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return report


def tally_child(job: dict[str, Any]) -> dict[str, Any]:
    """The tally and nothing else, as `forumbot tally URL` does it: log in, read the topic through the page
    cache, count the votes. Reports timings, counts and this process's peak memory."""
    from forumbot.forum.cache import PageCache, read_topic
    from forumbot.forum.client import ClientSettings, open_client
    from forumbot.host.tally import read_votes_of, tally_posts

    began = time.perf_counter()
    client = open_client(ClientSettings(forum=job["url"], username=HOST, password=HOST_PASSWORD, dialect="phpbb"))
    client.login()
    logged_in = time.perf_counter()
    from forumbot.store import Store

    cache = PageCache(Store(job["cache"]))
    try:
        read = read_topic(client, cache, job["topic"], on_page=read_votes_of, incremental=bool(job.get("incremental")))
        was_read = time.perf_counter()
        result = tally_posts(read.posts, list(DAY_PLAYERS))
    finally:
        cache.close()
        client.close()
    done = time.perf_counter()
    return {
        "login_s": logged_in - began,
        "read_s": was_read - logged_in,
        "tally_s": done - logged_in,
        "posts": len(read.posts),
        "records": len(result.records),
        "problems": len(read.problems),
        "maxrss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
    }


def floor_child(job: dict[str, Any]) -> dict[str, Any]:
    """The same page requests as a full read, in the same order and concurrency, with a bare httpx client
    and no processing at all: what the fake board and the HTTP stack alone cost."""
    from concurrent.futures import ThreadPoolExecutor

    from forumbot.forum.client import ClientSettings, open_client
    from forumbot.forum.http import ForumHttp

    client = open_client(ClientSettings(forum=job["url"], username=HOST, password=HOST_PASSWORD, dialect="phpbb"))
    client.login()
    http = client.http
    assert isinstance(http, ForumHttp)
    bare = http._client  # the logged-in session, without the choke point's checks and parsing
    urls = [http.url(f"viewtopic.php?t={job['topic']}&start={n * PER_PAGE}") for n in range(DAY_POSTS // PER_PAGE)]
    began = time.perf_counter()
    with ThreadPoolExecutor(http.settings.concurrency) as pool:
        bare.get(urls[0])  # the first page alone, as a read does: it tells the page count
        sizes = [len(r.content) for r in pool.map(bare.get, urls[1:])]
    elapsed = time.perf_counter() - began
    client.close()
    return {"get_s": elapsed, "pages": 1 + len(sizes)}


# --- the table -------------------------------------------------------------------------------------


def print_table(figures: list[Figure]) -> None:
    rows = [("figure", "measured", "target", "")] + [(f.name, f.shown(), f.target, f.verdict) for f in figures]
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    for k, row in enumerate(rows):
        print(f"{row[0]:<{widths[0]}}  {row[1]:>{widths[1]}}  {row[2]:<{widths[2]}}  {row[3]}".rstrip())
        if k == 0:
            print("  ".join("-" * w for w in widths))


SUITES: dict[str, Callable[[argparse.Namespace], list[Figure]]] = {
    "simulate": lambda args: bench_simulate(args.seconds),
    "parse": lambda args: bench_parse(args.seconds),
    "http": lambda args: bench_http(),
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default=",".join(SUITES), help=f"comma-separated: {', '.join(SUITES)}")
    parser.add_argument("--seconds", type=float, default=3.0, help="time spent on each throughput figure")
    parser.add_argument("--child", metavar="JSON", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child is not None:
        job = json.loads(args.child)
        print(json.dumps((tally_child if job["mode"] == "tally" else floor_child)(job)))
        return 0
    random.seed(0)
    chosen = [name.strip() for name in args.only.split(",") if name.strip()]
    unknown = [name for name in chosen if name not in SUITES]
    if unknown:
        parser.error(f"unknown suite {unknown[0]!r}; known: {', '.join(SUITES)}")
    figures: list[Figure] = []
    began = time.perf_counter()
    for name in chosen:
        figures += SUITES[name](args)
    print_table(figures)
    failed = [f for f in figures if f.passed is False]
    print(f"\n{len(figures) - len(failed)} of {len(figures)} figures pass or have no target; "
          f"{len(failed)} FAIL ({time.perf_counter() - began:.0f} s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
