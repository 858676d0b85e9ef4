"""The watch on the fake IPB 2.2 and IPB 3.4 boards, through the registry's reader and writer: day 1 published,
then on day 2 the players' orders by PM get one receipt each, the votes in the thread one interim count (the
bot's own posts, printed under his display name, never read as votes), and at the deadline the moderators' draft
PMs, which a moderator approves by answering them (on IPB 2 a new PM, on IPB 3 a reply inside the draft's
conversation)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "publish"))  # the publishing tests' played day

from ipb_support import IpbPlayed, ipb_played_day  # noqa: E402
from publish_support import BOT, GAME, NOW, PLAYERS  # noqa: E402

from fakeboard.ipb3 import Ipb3Server  # noqa: E402
from forumbot.forum.registry import poster_for  # noqa: E402
from forumbot.host.publish import publish  # noqa: E402
from forumbot.host.watch import PassReport, watch_once  # noqa: E402

BOARDS = [
    pytest.param({"version": 2, "charset": "windows-1251"}, id="ipb2-cp1251"),
    pytest.param({"version": 2, "charset": "utf-8"}, id="ipb2-utf8"),
    pytest.param({"version": 3, "friendly_urls": True}, id="ipb3-friendly-urls"),
    pytest.param({"version": 3, "friendly_urls": False}, id="ipb3-plain-urls"),
]


@pytest.fixture(params=BOARDS)
def day2(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[IpbPlayed]:
    """Day 1 published on the board: day 2 is open in its new topic."""
    with ipb_played_day(tmp_path, **request.param) as day:
        client = day.client()
        publish(day.store, GAME, client, NOW, poster=poster_for(client))
        day.server.reset_log()
        yield day


def watch(day: IpbPlayed, minutes: float) -> PassReport:
    client = day.client()
    return watch_once(day.store, GAME, client, poster_for(client), NOW + timedelta(minutes=minutes))


def living(day: IpbPlayed) -> list[str]:
    state = day.store.game(GAME).state
    assert state is not None
    return [p.nick for p in state.living()]


def day_topic(day: IpbPlayed) -> int:
    found = day.store.day(day.store.game(GAME).id, 2)
    assert found is not None
    return int(found["topic"])


def test_every_order_gets_one_receipt_through_any_number_of_passes(day2: IpbPlayed) -> None:
    wrote = {m.sender for m in day2.board.pms_to(BOT)}  # day 1's orders have their receipts coming too
    senders = [nick for nick in living(day2) if nick not in wrote][:3]
    target = living(day2)[-1]
    for k, nick in enumerate(senders):
        day2.board.send_pm(nick, BOT, "приказ", f"Проверяю — {target}", NOW + timedelta(minutes=10 + k))
    day2.clock.advance(3600)
    first = watch(day2, 60)
    assert not first.problems
    again = watch(day2, 70)
    assert not again.sent and not again.handled
    for nick in senders:
        receipts = [m for m in day2.board.pms_to(nick) if m.sender == BOT and f"Проверяю — {target}" in m.body]
        assert len(receipts) == 1, nick


def test_the_votes_get_one_interim_count_and_the_bots_own_post_is_no_vote(day2: IpbPlayed) -> None:
    target = living(day2)[0]
    voters = [nick for nick in living(day2) if nick != target][:4]
    topic = day_topic(day2)
    for k, nick in enumerate(voters):
        day2.board.add_post(topic, nick, f"Голосую: [color=red][b]{target}[/b][/color]", NOW + timedelta(minutes=5 + k))
    day2.clock.advance(1800)
    report = watch(day2, 30)
    assert report.interim_count and not report.problems
    [count] = [p for p in day2.board.posts_of(topic)[1:] if p.author == BOT]
    assert target in count.body and "4" in count.body
    assert not watch(day2, 40).interim_count  # nothing changed: no second count, the bot's post counts nothing


def test_a_moderator_approves_the_draft_by_answering_its_pm(day2: IpbPlayed) -> None:
    deadline = day2.store.day(day2.store.game(GAME).id, 2)
    assert deadline is not None
    after = (deadline["deadline"] - NOW).total_seconds() / 60 + 5
    day2.clock.advance(after * 60)
    report = watch(day2, after)
    assert report.drafted and not report.problems
    [draft] = [m for m in day2.board.pms_to("admin") if m.sender == BOT]
    answer_the_draft(day2, draft.pm_id, draft.subject, after + 1)
    day2.clock.advance(120)
    answered = watch(day2, after + 2)
    assert any("approved by admin" in note for note in answered.notes) and not answered.problems  # told, no problem
    stored = day2.store.draft(day2.store.game(GAME).id, 2)
    assert stored is not None and stored.approved_by == "admin"
    assert all(nick in PLAYERS for nick in living(day2))


def answer_the_draft(day: IpbPlayed, pm_id: int, subject: str, minutes: float) -> None:
    """The moderator's "Одобряю", as each board's members answer a PM: IPB 2 a new PM ("Re: " and the subject
    the board kept), IPB 3 a reply inside the conversation."""
    when = NOW + timedelta(minutes=minutes)
    server: Any = day.server
    if isinstance(server, Ipb3Server):
        server.reply_in_conversation(server.conversation_of(pm_id), "admin", "Одобряю", when)
    else:
        day.board.send_pm("admin", BOT, f"Re: {subject}", "Одобряю", when)
