"""Every PM of the day window is in the orders audit, each line as what it is: an order, a quoted or
forwarded order (never counted), a player's command (Z, Q, O ...), a line not understood; and of a sender's
valid orders of one kind only the last is carried out, the earlier ones are marked superseded."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from forumbot.draft import OrderRow, OverrideRow, VoteRow
from forumbot.engine import GameState, Player
from forumbot.engine.day import ruleset_for
from forumbot.extract import Roster
from forumbot.host.daywindow import DayPms, TimedPm
from forumbot.host.games import _mark_superseded, audit_pms
from forumbot.posts import PrivateMessage

AT = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
PLAYERS = ("Дон", "Вито", "Шериф", "Анна", "Борис", "Вера", "Глеб")
STATE = GameState(
    variant="gameru-3.3",
    players=tuple(
        Player(nick=n, role=r, boss=n == "Дон")
        for n, r in zip(PLAYERS, ("mafia", "mafia", "sheriff", *["civilian"] * 4), strict=True)
    ),
)


def pm(pm_id: int, sender: str, text: str, html: str | None = None) -> TimedPm:
    sent = AT + timedelta(minutes=pm_id)
    message = PrivateMessage(
        pm_id=pm_id,
        sender=sender,
        time=sent,
        subject="приказ",
        body_html=html if html is not None else text.replace("\n", "<br>"),
        body_text=text,
        url=f"./ucp.php?i=pm&p={pm_id}",
    )
    return TimedPm(message, "inside", (sent, sent + timedelta(seconds=1)))


def audit(*pms: TimedPm) -> list[OrderRow]:
    _, rows = audit_pms(DayPms(inside=list(pms)), STATE.nicks(), ruleset_for(STATE))
    return _mark_superseded(rows)


def test_a_quoted_or_forwarded_order_is_listed_and_never_counted() -> None:
    forwarded = "<blockquote><div><cite>Дон писал(а):</cite>Убиваем — Анна</div></blockquote>Передаю приказ босса."
    orders, rows = audit_pms(
        DayPms(inside=[pm(1, "Вито", "Передаю приказ босса.", forwarded)]), STATE.nicks(), ruleset_for(STATE)
    )
    assert not orders
    assert [(r.action, r.targets, r.valid, r.reason, r.line) for r in rows] == [
        (None, [], False, "unknown_line", "Передаю приказ босса."),
        ("kill", ["Анна"], False, "quoted", "Убиваем — Анна"),
    ]


def test_commands_are_shown_as_commands_not_as_lines_not_understood() -> None:
    rows = audit(pm(1, "Анна", "O GENDER FEMALE\nZ\nчто-то непонятное"))
    assert [(r.action, r.reason, r.line) for r in rows] == [
        ("command", "command", "O GENDER FEMALE"),
        ("command", "command", "Z"),
        (None, "unknown_line", "что-то непонятное"),
    ]


def test_of_two_valid_orders_the_earlier_is_superseded() -> None:
    rows = audit(pm(1, "Дон", "Убиваем — Анна"), pm(2, "Дон", "Убиваем — Борис"), pm(3, "Шериф", "Проверяю — Дон"))
    assert [(r.actor, r.targets, r.valid, r.reason) for r in rows] == [
        ("Дон", ["Анна"], False, "superseded"),
        ("Дон", ["Борис"], True, None),
        ("Шериф", ["Дон"], True, None),
    ]


def test_a_pm_from_a_non_player_is_listed() -> None:
    rows = audit(pm(1, "Прохожий", "Убиваем — Анна"))
    assert [(r.actor, r.valid, r.reason) for r in rows] == [("Прохожий", False, "not_player")]


def test_the_hosts_vote_is_in_the_audit_the_chart_reads_in_place_of_the_one_it_replaces() -> None:
    from forumbot.engine import Vote
    from forumbot.host.games import _apply_overrides

    at = AT.isoformat()
    audit_rows = [
        VoteRow(voter="Анна", target="Вера", time=at, counted=True, post_id=5, link="p5"),
        VoteRow(voter="Глеб", target="Вера", time=at, counted=True, post_id=6, link="p6"),
    ]
    votes = [Vote(voter="Анна", targets=("Вера",), time=AT), Vote(voter="Глеб", targets=("Вера",), time=AT)]
    overrides = [
        OverrideRow(kind="set_vote", subject="Анна", value="Борис", reason="ник с опечаткой", by="mod"),
        OverrideRow(kind="clear_vote", subject="Глеб", value=None, reason="голос призрака", by="mod"),
    ]
    counted, _, _, _ = _apply_overrides(overrides, votes, [], audit_rows, [])
    assert [(v.voter, v.targets, v.time) for v in counted] == [("Анна", ("Борис",), AT)]  # the time kept
    assert [(r.voter, r.target, r.counted, r.channel) for r in audit_rows] == [
        ("Анна", "Вера", False, None),
        ("Глеб", "Вера", False, None),
        ("Анна", "Борис", True, "override"),
    ]
    assert audit_rows[2].time == at and audit_rows[2].reason == "override by mod: ник с опечаткой"


def test_each_pm_of_the_day_is_parsed_once_for_its_votes_and_its_audit(monkeypatch: pytest.MonkeyPatch) -> None:
    from forumbot.extract.orders import Scrubbed, strip_credentials
    from forumbot.host.games import _votes, vote_settings

    read: list[str] = []

    def scrub(text: str) -> Scrubbed:
        read.append(text)
        return strip_credentials(text)

    monkeypatch.setattr("forumbot.extract.pms.strip_credentials", scrub)
    window = DayPms(
        inside=[pm(1, "Анна", "Голосую — Вера\nZ"), pm(2, "Дон", "Убиваем — Анна"), pm(3, "Вито", "#mafia\nпривет")]
    )
    rules = ruleset_for(STATE)
    settings = vote_settings(STATE, rules, AT, AT + timedelta(days=1))
    _, vote_rows = _votes(settings, rules.vote_channels, [], window.inside)
    _, order_rows = audit_pms(window, STATE.nicks(), rules)
    assert read == ["Голосую — Вера\nZ", "Убиваем — Анна", "#mafia\nпривет"]  # once each, for both readers
    assert [(r.voter, r.target) for r in vote_rows] == [("Анна", "Вера")]
    assert [(r.pm_id, r.action, r.reason) for r in order_rows] == [
        (1, "command", "command"),
        (2, "kill", None),
        (3, None, "relay"),
    ]


@pytest.mark.parametrize(
    ("text", "html"),
    [
        ("Убиваем — Анна\nZ", None),
        ("#mail Анна ---\nУбиваем — Борис", None),
        ("#order game secret\nПроверяю — Дон\nO GENDER ona", None),
        ("", "Проверяю — Дон<br>Z"),  # no text from the parser: the orders are read from the HTML, no command
        ("   ", "#wall<br>Убиваем — Анна"),
    ],
)
def test_a_pm_read_once_says_what_its_orders_and_commands_parsed_apart_say(text: str, html: str | None) -> None:
    from forumbot.extract import orders_from_pm, parse_orders
    from forumbot.extract.commands import parse_commands
    from forumbot.extract.orders import pm_text
    from forumbot.extract.pms import read_pm

    message = pm(1, "Дон", text, html).pm
    once = read_pm(message)
    assert once.orders == parse_orders(pm_text(message))
    assert once.commands == parse_commands(message.body_text)
    roster = Roster(list(PLAYERS))
    assert orders_from_pm(message, roster, parsed=once.orders) == orders_from_pm(message, roster)


def test_the_day_s_vote_settings_are_the_ones_a_count_of_the_same_day_reads() -> None:
    """End-day gathers the extraction's settings from the game's state and rules, a count from its own rules:
    for one day they are the same settings, each gathered once."""
    from forumbot.host.games import vote_settings
    from forumbot.host.tally import CountRules

    dead = Player(nick="Глеб", role="civilian", alive=False)
    state = STATE.model_copy(update={"players": (*STATE.players[:-1], dead), "options": {"nick_matching": "lenient"}})
    rules = ruleset_for(state)
    end = AT + timedelta(days=1)
    ours = vote_settings(state, rules, AT, end, bot="Ведущий")
    living = [p.nick for p in state.living()]
    count = CountRules(living, ["Глеб"], AT, end, state.variant, state.options, ours.votes_per_post, ("Ведущий",))
    theirs = count.vote_settings
    assert ours.roster.nicks == theirs.roster.nicks == (*living, "Глеб")
    assert (ours.dead, ours.mode) == (theirs.dead, theirs.mode) == (frozenset({"Глеб"}), "lenient")
    same = ("start", "deadline", "edited_votes", "votes_per_post", "skip_authors")
    assert [getattr(ours, f) for f in same] == [getattr(theirs, f) for f in same]
    assert count.vote_settings is theirs  # gathered once for the count, however many scans read it
