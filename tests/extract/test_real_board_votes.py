"""Votes on the real Russian phpBB board as its moderator bot sees the topic (fixtures/phpbb-ru, topic A):
posts only moderators see are never votes, the bot's own posts are neither votes nor audit rows, and an
edit phpBB leaves no notice of is caught by reading every page again."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import datetime
from pathlib import Path

from forumbot.errors import ForumbotError
from forumbot.forum.cache import PageCache, read_topic
from forumbot.forum.client import Progress
from forumbot.forum.markup import BodyReader
from forumbot.forum.phpbb import pages as phpbb
from forumbot.host.tally import render_tally_bbcode, tally_posts
from forumbot.posts import PmSummary, PrivateMessage, TopicPage
from forumbot.store import Store

PAGES = Path(__file__).resolve().parents[2] / "fixtures" / "phpbb-ru"
PLAYERS = ["Вера", "Шарик", "Незнайка", "Дядя Фёдор", "Кот_Матроскин", "Новичок", "Mr. Pink", "Алиса Селезнёва"]
BOT = "Ведущий"


def topic_a(exchange: str) -> TopicPage:
    return phpbb.parse_topic_page(next(PAGES.glob(f"{exchange}-*.html")).read_bytes())


def test_moderator_only_posts_and_the_bots_own_are_no_votes() -> None:
    tally = tally_posts(topic_a("21").posts, PLAYERS, skip_authors=[BOT])
    rows = [(r.post_id, r.voter, r.target, r.counted, r.reason) for r in tally.records]
    assert rows == [
        (64, "Вера", "Незнайка", False, "edited"),  # edited by its author
        (65, "Шарик", "Незнайка", False, "edited"),  # edited by a moderator, with a reason
        (66, "Незнайка", "Вера", False, "deleted"),  # soft-deleted: only moderators see it
        (68, "Кот_Матроскин", "Шарик", True, None),
        (69, "Новичок", "Шарик", False, "unapproved"),  # waiting for approval: only moderators see it
        (119, "Mr. Pink", "Незнайка", True, None),
        (120, "Алиса Селезнёва", "Незнайка", False, "quoted"),
        (120, "Алиса Селезнёва", "Шарик", True, None),
    ]
    assert all(r.voter != BOT for r in tally.records)  # p63, the bot's own red bold "Никто", is no row
    assert dict(tally.counts) == {"Шарик": 2, "Незнайка": 1}


def test_the_guest_view_has_none_of_the_moderator_only_posts() -> None:
    guest = [post.post_id for post in topic_a("24").posts]
    assert 66 not in guest and 69 not in guest


def test_a_vote_count_post_writes_no_nick_in_red_bold() -> None:
    tally = tally_posts(topic_a("21").posts, PLAYERS, skip_authors=[BOT])
    body = render_tally_bbcode(tally, "Подсчёт голосов")
    assert "Шарик" in body and "[color=red]" not in body.replace(" ", "").lower()


class Replayed:
    """A client whose topic is one captured page, then another (the same topic read again later)."""

    forum = "http://board.test/"
    account = BOT

    def __init__(self, *pages: TopicPage) -> None:
        self.pages = list(pages)

    def login(self) -> None:
        pass

    def topic_id(self, topic: str | int) -> int:
        return 7

    def fetch_topic(
        self,
        topic: str | int,
        *,
        from_page: int = 1,
        page_size: int | None = None,
        progress: Progress | None = None,
        on_body: BodyReader | None = None,
    ) -> Iterator[TopicPage]:
        yield self.pages.pop(0)

    def fetch_inbox(self) -> list[PmSummary]:
        return []

    def fetch_pm(self, pm: PmSummary | int) -> PrivateMessage:
        raise AssertionError("no PM here")

    def fetch_pms(self, pms: Sequence[PmSummary]) -> Iterator[PrivateMessage | ForumbotError]:
        raise AssertionError("no PM here")

    def exact_pm_time(self, pm_id: int) -> datetime | None:
        return None

    def close(self) -> None:
        pass


def test_an_edit_the_board_shows_no_notice_of_is_seen_on_the_next_read(tmp_path: Path) -> None:
    # A moderator added a red bold vote to p67 without a reason: phpBB prints no notice at all.
    before, after = topic_a("21"), topic_a("29")
    assert not next(p for p in after.posts if p.post_id == 67).edited
    with PageCache(Store(tmp_path / "state.db")) as cache:
        read_topic(Replayed(before), cache, 7)
        again = read_topic(Replayed(after), cache, 7)
    assert again.complete
    p67 = next(p for p in again.posts if p.post_id == 67)
    assert p67.edited  # its body differs from the copy read earlier
    tally = tally_posts(again.posts, PLAYERS, skip_authors=[BOT])
    assert [(r.voter, r.counted, r.reason) for r in tally.records if r.post_id == 67] == [
        ("Дядя Фёдор", False, "changed")
    ]


def test_a_reread_marks_nothing_when_only_relative_dates_moved(tmp_path: Path) -> None:
    # 17 and 18 are topic A six minutes apart; p120 of 21 quotes a post "9 минут назад", and that text
    # changes with every read (phpBB prints a quote's date for the viewer) without any edit
    later = topic_a("21")
    p120 = next(p for p in later.posts if p.post_id == 120)
    assert "9 минут назад" in p120.content_html
    moved = p120.model_copy(update={"content_html": p120.content_html.replace("9 минут назад", "10 минут назад")})
    reread = later.model_copy(update={"posts": tuple(moved if p.post_id == 120 else p for p in later.posts)})
    with PageCache(Store(tmp_path / "state.db")) as cache:
        first = read_topic(Replayed(topic_a("17")), cache, 7)
        second = read_topic(Replayed(topic_a("18")), cache, 7)
        read_topic(Replayed(later), cache, 7)
        third = read_topic(Replayed(reread), cache, 7)
    assert {p.post_id for p in second.posts if p.edited} == {p.post_id for p in first.posts if p.edited} == {64, 65}
    assert not next(p for p in third.posts if p.post_id == 120).edited
