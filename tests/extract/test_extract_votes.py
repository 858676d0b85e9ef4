"""Vote records: one test per rule of docs/votes-and-orders.md "A vote in the day thread", on the captured posts."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, timedelta

import pytest
from extract_support import (
    MSK,
    NOON,
    PHPBB_PLAYERS,
    ipb_posts,
    make_post,
    phpbb_post,
    phpbb_posts,
    phpbb_vote,
)

from forumbot.engine.model import Vote
from forumbot.extract import Roster, VoteRecord, VoteSettings, extract_post_votes, extract_votes, to_engine_votes
from forumbot.host.tally import tally_posts, vote_json
from forumbot.posts import Post

DAY_START = datetime(2026, 11, 29, 0, 0, tzinfo=UTC)
DEADLINE = datetime(2026, 11, 29, 21, 0, tzinfo=MSK)


def votes_of(post: Post, roster: Roster, **kw: object) -> list[tuple[str, bool, str | None]]:
    return [(r.target, r.counted, r.reason) for r in extract_post_votes(post, roster, **kw)]  # type: ignore[arg-type]


def captured(post_id: int, **changes: object) -> Post:
    post: Post = next(p for p in phpbb_posts() if p.post_id == post_id)
    return post.model_copy(update=changes)


# - red means exactly red ... Other shades and glow/shadow effects are not votes.


@pytest.mark.parametrize("color", ["red", "RED", "Red", "#F00", "#ff0000", "#FF0000", "rgb( 255 , 0 , 0 )"])
def test_exact_red_counts(phpbb_roster: Roster, color: str) -> None:
    assert votes_of(make_post(phpbb_vote("Пётр", color)), phpbb_roster) == [("Пётр", True, None)]


@pytest.mark.parametrize("color", ["darkred", "#cc0000", "crimson", "rgb25500"])
def test_other_shades_are_listed_not_counted(phpbb_roster: Roster, color: str) -> None:
    assert votes_of(make_post(phpbb_vote("Пётр", color)), phpbb_roster) == [("Пётр", False, "not_red")]


def test_captured_darkred_vote_is_not_red(phpbb_roster: Roster) -> None:
    [record] = extract_post_votes(captured(7), phpbb_roster)
    assert (record.target, record.reason, record.color, record.red, record.bold) == (
        "Mr. Pink",
        "not_red",
        "darkred",
        False,
        True,
    )


def test_ipb_mangled_rgb_is_not_a_vote(ipb_roster: Roster) -> None:
    markup = (
        '<b><!--coloro:rgb25500--><span style="color:rgb25500"><!--/coloro-->Печкин<!--colorc--></span></b>'
    )
    assert votes_of(make_post(markup, author="Лиса"), ipb_roster) == [("Печкин", False, "not_red")]


def test_red_glow_is_not_a_vote(phpbb_roster: Roster) -> None:
    markup = '<strong><span style="filter: glow(color=red)">Пётр</span></strong>'
    assert votes_of(make_post(markup), phpbb_roster) == [("Пётр", False, "not_red")]


# - bold means <b>/<strong> or font-weight: bold|700+, nested either way around the red span.


@pytest.mark.parametrize(("post_id", "target"), [(3, "Пётр"), (4, "Кот_Матроскин")])
def test_captured_bold_either_way_round(phpbb_roster: Roster, post_id: int, target: str) -> None:
    assert votes_of(captured(post_id), phpbb_roster) == [(target, True, None)]


def test_inline_font_weight_counts(phpbb_roster: Roster) -> None:
    markup = '<span style="color:red;font-weight:700">Пётр</span>'
    assert votes_of(make_post(markup), phpbb_roster) == [("Пётр", True, None)]


def test_red_not_bold_is_listed_when_it_names_a_player(phpbb_roster: Roster) -> None:
    [record] = extract_post_votes(captured(8), phpbb_roster)  # [color=red]Дядя Фёдор[/color]
    assert (record.target, record.counted, record.reason, record.bold) == (
        "Дядя Фёдор",
        False,
        "not_bold",
        False,
    )


# - text inside a quote or a spoiler is never a vote.


def test_captured_quote_is_not_a_vote(phpbb_roster: Roster) -> None:
    assert votes_of(captured(6), phpbb_roster) == [("Пётр", False, "quoted")]


def test_captured_quote_button_reply_counts_only_the_own_vote(phpbb_roster: Roster) -> None:
    assert votes_of(captured(16), phpbb_roster) == [("Пётр", False, "quoted"), ("Пётр", True, None)]


def test_ipb_quotes_are_not_votes(ipb_roster: Roster) -> None:
    posts = {p.post_id: p for p in ipb_posts()}
    assert votes_of(posts[308], ipb_roster) == [("Печкин", False, "quoted")]
    assert votes_of(posts[310], ipb_roster) == [("Шарик", False, "quoted")]


def test_spoiler_is_not_a_vote(ipb_roster: Roster) -> None:
    markup = (
        "<span style='color:#000000;background:#000000'><b><span style=\"color:red\">Печкин</span></b></span>"
    )
    assert votes_of(make_post(markup, author="Лиса"), ipb_roster) == [("Печкин", False, "spoiler")]


def test_quote_beats_every_other_reason(phpbb_roster: Roster) -> None:
    post = captured(6, author="host_bot", edited=True, time=DEADLINE)
    assert votes_of(post, phpbb_roster, deadline=DEADLINE) == [("Пётр", False, "quoted")]


# - the nick must match a living player exactly; a red bold text that matches nobody is listed with the
#   nearest player's name.


@pytest.mark.parametrize(
    ("text", "nearest"),
    [("петр", "Пётр"), ("Кот Матроскин", "Кот_Матроскин"), ("Dana\u200b_99", "Dana_99"), ("Alic", "Alice")],
)
def test_near_miss_is_unknown_nick_with_nearest(phpbb_roster: Roster, text: str, nearest: str) -> None:
    [record] = extract_post_votes(make_post(phpbb_vote(text)), phpbb_roster)
    assert (record.target, record.counted, record.reason, record.nearest) == (
        text,
        False,
        "unknown_nick",
        nearest,
    )


def test_red_bold_text_naming_nobody_is_listed_without_nearest(phpbb_roster: Roster) -> None:
    [name] = extract_post_votes(
        captured(2), phpbb_roster
    )  # "Vote with [Name]"; the bold header is not listed
    assert (name.target, name.reason, name.nearest) == ("Name", "unknown_nick", None)


def test_lenient_mode_counts_a_folded_match(phpbb_roster: Roster) -> None:
    [record] = extract_post_votes(make_post(phpbb_vote("Кот Матр\u043eскин")), phpbb_roster, mode="lenient")
    assert (record.target, record.counted, record.exact) == ("Кот_Матроскин", True, False)


def test_dead_target_is_void(phpbb_roster: Roster) -> None:
    assert votes_of(captured(3), phpbb_roster, dead={"Пётр"}) == [("Пётр", False, "dead_target")]


# - one post may carry several red bold fragments: the last one that validly names a living player is
#   that post's vote (two on a double-order day).


def test_last_valid_fragment_of_a_post_counts(phpbb_roster: Roster) -> None:
    html = phpbb_vote("Alice") + phpbb_vote("Пётр") + phpbb_vote("Nobody") + phpbb_vote("Шарик", "darkred")
    assert votes_of(make_post(html, author="Charlie"), phpbb_roster) == [
        ("Alice", False, "superseded"),
        ("Пётр", True, None),
        ("Nobody", False, "unknown_nick"),
        ("Шарик", False, "not_red"),
    ]


def test_a_dead_target_later_in_the_post_does_not_displace_a_valid_one(phpbb_roster: Roster) -> None:
    html = phpbb_vote("Alice") + phpbb_vote("Пётр")
    assert votes_of(make_post(html, author="Charlie"), phpbb_roster, dead={"Пётр"}) == [
        ("Alice", True, None),
        ("Пётр", False, "dead_target"),
    ]


def test_double_day_counts_the_last_two_distinct_targets(phpbb_roster: Roster) -> None:
    html = phpbb_vote("Alice") + phpbb_vote("Пётр") + phpbb_vote("Шарик") + phpbb_vote("Шарик")
    assert votes_of(make_post(html, author="Charlie"), phpbb_roster, votes_per_post=2) == [
        ("Alice", False, "superseded"),
        ("Пётр", True, None),
        ("Шарик", False, "superseded"),
        ("Шарик", True, None),
    ]


def test_double_day_two_names_in_one_fragment(phpbb_roster: Roster) -> None:
    post = make_post(phpbb_vote("Alice, Пётр"), author="Charlie")
    assert votes_of(post, phpbb_roster, votes_per_post=2) == [("Alice", True, None), ("Пётр", True, None)]
    assert votes_of(post, phpbb_roster) == [("Alice, Пётр", False, "unknown_nick")]
    [vote] = to_engine_votes(extract_post_votes(post, phpbb_roster, votes_per_post=2))
    assert vote.targets == ("Alice", "Пётр")


# - a void vote is ignored as if never posted: the voter's last VALID vote of the day stands; the time of
#   a counted vote is the time of the post that carries it.


def test_a_later_void_vote_leaves_the_earlier_valid_one_standing(phpbb_roster: Roster) -> None:
    first = make_post(phpbb_vote("Пётр"), post_id=1, time=NOON)
    void = make_post(phpbb_vote("Петр"), post_id=2, time=NOON + timedelta(hours=1))
    edited = make_post(phpbb_vote("Шарик"), post_id=3, time=NOON + timedelta(hours=2), edited=True)
    records = extract_votes([first, void, edited], VoteSettings(phpbb_roster))
    assert [(r.post_id, r.counted, r.reason) for r in records] == [
        (1, True, None),
        (2, False, "unknown_nick"),
        (3, False, "edited"),
    ]
    assert to_engine_votes(records) == (
        Vote(voter="Alice", targets=("Пётр",), time=NOON, ref="./viewtopic.php?p=1#p1", post_id=1),
    )


def test_a_later_valid_vote_supersedes_and_carries_its_own_time(phpbb_roster: Roster) -> None:
    later = NOON + timedelta(hours=3)
    posts = [make_post(phpbb_vote("Пётр"), post_id=1), make_post(phpbb_vote("Шарик"), post_id=2, time=later)]
    records = extract_votes(posts, VoteSettings(phpbb_roster))
    assert [(r.target, r.counted, r.reason) for r in records] == [
        ("Пётр", False, "superseded"),
        ("Шарик", True, None),
    ]
    assert [v.time for v in to_engine_votes(records)] == [later]


def test_post_times_decide_the_order_not_page_order(phpbb_roster: Roster) -> None:
    early = make_post(phpbb_vote("Пётр"), post_id=9, time=NOON)
    late = make_post(phpbb_vote("Шарик"), post_id=8, time=NOON + timedelta(minutes=1))
    records = extract_votes([late, early], VoteSettings(phpbb_roster))
    assert [(r.target, r.counted) for r in records] == [("Пётр", False), ("Шарик", True)]


def test_a_post_seen_twice_is_read_once(phpbb_roster: Roster) -> None:
    post = make_post(phpbb_vote("Пётр"))
    assert len(extract_votes([post, post], VoteSettings(phpbb_roster))) == 1


# - an edited post cannot be trusted: its vote is not counted and the audit says who edited it.


def test_post_edited_by_its_author(phpbb_roster: Roster) -> None:
    [record] = extract_post_votes(captured(5), phpbb_roster)
    assert (record.counted, record.reason, record.edited_by) == (False, "edited", "Пётр")


def test_post_edited_by_a_moderator_names_the_moderator(phpbb_roster: Roster) -> None:
    [record] = extract_post_votes(captured(12), phpbb_roster)
    assert (record.target, record.reason, record.edited_by) == ("Alice", "edited", "admin")


def test_ipb_edited_post(ipb_roster: Roster) -> None:
    post = next(p for p in ipb_posts() if p.post_id == 309)
    [record] = extract_post_votes(post, ipb_roster)
    assert (record.target, record.reason, record.edited_by) == ("Дядя Фёдор", "edited", "Winnie")


def test_edited_votes_count_option(phpbb_roster: Roster) -> None:
    [record] = extract_post_votes(captured(12), phpbb_roster, edited_votes="count")
    assert (record.counted, record.reason, record.edited_by) == (True, None, "admin")


# - only posts by living players, made between the day's start and its deadline, count
#   (start <= time < deadline).


def test_ghost_vote_is_void(phpbb_roster: Roster) -> None:
    assert votes_of(captured(3), phpbb_roster, dead={"Alice"}) == [("Пётр", False, "dead_voter")]


def test_non_player_vote_is_void(phpbb_roster: Roster) -> None:
    post = make_post(phpbb_vote("Пётр"), author="host_bot")
    assert votes_of(post, phpbb_roster) == [("Пётр", False, "not_player")]


@pytest.mark.parametrize(
    ("time", "reason"),
    [
        (DAY_START - timedelta(seconds=1), "before_start"),
        (DAY_START, None),
        (DEADLINE - timedelta(seconds=1), None),
        (DEADLINE, "after_deadline"),
        (DEADLINE.astimezone(UTC), "after_deadline"),  # the same instant in another zone
        (DEADLINE + timedelta(seconds=1), "after_deadline"),
    ],
)
def test_vote_window(phpbb_roster: Roster, time: datetime, reason: str | None) -> None:
    post = make_post(phpbb_vote("Пётр"), time=time)
    assert votes_of(post, phpbb_roster, start=DAY_START, deadline=DEADLINE) == [
        ("Пётр", reason is None, reason)
    ]


def test_naive_deadline_is_refused(phpbb_roster: Roster) -> None:
    with pytest.raises(ValueError, match="deadline"):
        extract_post_votes(captured(3), phpbb_roster, deadline=datetime(2026, 11, 29, 21, 0))


def test_post_level_reason_order(phpbb_roster: Roster) -> None:
    # not_player > dead_voter > window > edited, for a fragment that would otherwise count.
    late_edit = captured(3, edited=True, time=DEADLINE)
    assert votes_of(late_edit, phpbb_roster, deadline=DEADLINE)[0][2] == "after_deadline"
    assert votes_of(late_edit, phpbb_roster, deadline=DEADLINE, dead={"Alice"})[0][2] == "dead_voter"
    assert votes_of(captured(5), phpbb_roster, dead={"Bob Smith"})[0][2] == "dead_target"


# - the audit lists every red-and-bold fragment, and every red-only or bold-only fragment that names a
#   player (exactly or nearly).


def test_bold_only_text_naming_nobody_is_not_listed(phpbb_roster: Roster) -> None:
    assert votes_of(captured(17), phpbb_roster) == []
    assert [r.text for r in extract_post_votes(captured(2), phpbb_roster)] == ["Name"]


def test_bold_only_near_miss_is_listed_with_nearest(phpbb_roster: Roster) -> None:
    [record] = extract_post_votes(make_post("<b>Шарек</b>"), phpbb_roster)
    assert (record.target, record.reason, record.nearest, record.red) == ("Шарек", "not_red", "Шарик", False)


# The two captured days, end to end.


def test_phpbb_captured_day(phpbb_roster: Roster) -> None:
    records = extract_votes(phpbb_posts(), VoteSettings(phpbb_roster, start=DAY_START, deadline=DEADLINE))
    reasons = {(r.post_id, r.target): r.reason for r in records}
    assert reasons == {
        (2, "Name"): "unknown_nick",
        (3, "Пётр"): None,
        (4, "Кот_Матроскин"): "superseded",  # Bob changes his vote in p13
        (5, "Bob Smith"): "edited",
        (6, "Пётр"): "quoted",
        (7, "Mr. Pink"): "not_red",
        (8, "Дядя Фёдор"): "not_bold",
        (9, "Dana_99"): "edited",
        (10, "Кот_Матроскин"): "superseded",  # Charlie votes again in p16
        (11, "Dana_99"): None,
        (12, "Alice"): "edited",
        (13, "Пётр"): None,
        (15, "Дядя Фёдор"): None,
        (16, "Пётр"): None,  # p16's quoted copy is listed too, as quoted
    }
    assert [(r.post_id, r.reason) for r in records if r.post_id == 16] == [(16, "quoted"), (16, None)]
    votes = to_engine_votes(records)
    assert [(v.voter, v.targets) for v in votes] == [
        ("Alice", ("Пётр",)),
        ("Ёжик в тумане", ("Dana_99",)),
        ("Bob Smith", ("Пётр",)),
        ("Шарик", ("Дядя Фёдор",)),
        ("Charlie", ("Пётр",)),
    ]
    assert votes[0].ref == phpbb_post(3)["permalink"]
    assert Counter(t for v in votes for t in v.targets) == {"Пётр": 3, "Dana_99": 1, "Дядя Фёдор": 1}


def test_ipb_captured_day(ipb_roster: Roster) -> None:
    start = datetime(2026, 11, 27, 22, 0, tzinfo=MSK)
    records = extract_votes(ipb_posts(), VoteSettings(ipb_roster, start=start, deadline=DEADLINE))
    counted = [(r.voter, r.target, r.post_id) for r in records if r.counted]
    assert counted == [
        ("Лиса", "Печкин", 302),
        ("Шарик", "Печкин", 304),
        ("Печкин", "Шарик", 311),
        ("Кот Матроскин", "Дядя Фёдор", 313),
        ("Галчонок", "Печкин", 314),
    ]
    void = {r.post_id: r.reason for r in records if not r.counted}
    # The host's opening post is bold only and names nobody: not listed at all.
    assert void == {
        303: "superseded",
        306: "not_red",
        307: "not_bold",
        308: "quoted",
        309: "edited",
        310: "quoted",
    }


def test_records_are_frozen_and_carry_the_permalink(phpbb_roster: Roster) -> None:
    [record] = extract_post_votes(captured(3), phpbb_roster)
    assert isinstance(record, VoteRecord) and record.permalink == "./viewtopic.php?p=3#p3"
    with pytest.raises(ValueError):
        record.counted = False  # type: ignore[misc]


def test_every_player_of_the_capture_is_in_the_roster(phpbb_roster: Roster) -> None:
    assert tuple(phpbb_roster) == PHPBB_PLAYERS


def test_a_spoiler_is_reported_as_a_spoiler_by_the_tally_and_the_audit() -> None:
    markup = "<span style='color:#000000;background:#000000'><b><span style=\"color:red\">Печкин</span></b></span>"
    tally = tally_posts([make_post(markup, author="Лиса")], ["Лиса", "Печкин"])
    assert [vote_json(r)["reason"] for r in tally.records] == ["spoiler"]  # not "quoted": it is no quote
