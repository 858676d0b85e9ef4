"""The audit as the moderators read it, in the preview page and the draft PM, from the rows as end-day stored
them: a PM vote a later one replaced is not counted, an order the host cleared is not valid and says whose
decision and why in Russian, and every decision is said in Russian with its new value, its times in the game's
zone under one name."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from lxml import html as lxml_html

from forumbot.draft import DayDraft, OrderRow, OverrideRow, VoteRow
from forumbot.engine.model import GameState, Player, Reason
from forumbot.render import opening
from forumbot.render.moderators import audit_summary
from forumbot.render.preview import render_preview_html

MOSCOW = ZoneInfo("Europe/Moscow")
PLAYERS = ("Анна", "Борис", "Вера")


def draft(**rows: object) -> DayDraft:
    state = GameState(variant="salon", seed=1, players=tuple(Player(nick=n, role="civilian") for n in PLAYERS))
    return DayDraft.model_validate({"day": 1, "bbcode": "[b]Салон. День 2[/b]", "state": state} | rows)


def pm_vote(voter: str, target: str, minute: int) -> VoteRow:
    return VoteRow(voter=voter, target=target, time=f"2026-12-01T19:{minute:02d}:00+00:00", counted=True, channel="pm")


def cells(page: str, table: str) -> list[list[str]]:
    found = lxml_html.document_fromstring(page).get_element_by_id(table)
    return [[td.text_content().strip() for td in tr.findall("td")] for tr in found.findall("tr")[1:]]


def test_a_pm_vote_a_later_one_replaced_is_shown_as_stored_superseded() -> None:
    """end-day stores the replaced vote as superseded (tests/host/test_overrides_stored.py): shown so, and not
    listed among what the moderators should check."""
    replaced = pm_vote("Анна", "Борис", 1).model_copy(update={"counted": False, "reason": "superseded"})
    votes = [replaced, pm_vote("Анна", "Вера", 5), pm_vote("Борис", "Вера", 3)]
    page = render_preview_html("Салон", draft(votes=votes), tz=MOSCOW)
    assert "2 засчитано, 1 не засчитано" in page and "заменён более поздним голосом" in page
    summary = audit_summary(draft(votes=votes), MOSCOW)
    assert "Анна → Борис" not in summary  # replaced by her own later vote: nothing for the moderators to check


CLEARED = OverrideRow(kind="clear_order", subject="Анна", value="check", reason="письмо не ей", by="Ведущий")


def cleared_order(**fields: object) -> OrderRow:
    """An order line as end-day stores it once the host cleared it: not valid, with his decision."""
    return OrderRow.model_validate(
        {"actor": "Анна", "action": "check", "targets": ["Борис"], "time": "2026-12-01T19:01:00+00:00"}
        | {"valid": False, "reason": "override by Ведущий: письмо не ей", "decided": CLEARED}
        | fields
    )


def test_an_order_the_host_cleared_says_whose_decision_and_why_in_russian() -> None:
    page = render_preview_html("Салон", draft(orders=[cleared_order()], overrides=[CLEARED]), tz=MOSCOW)
    [row] = [r for r in cells(page, "audit-orders") if "Анна" in r[1]]
    assert "нет" in row and "решение Ведущий: приказ снят — письмо не ей" in row
    summary = audit_summary(draft(orders=[cleared_order()], overrides=[CLEARED]), MOSCOW)
    assert "решение Ведущий: приказ снят — письмо не ей" in summary.split("Не засчитано:")[1]
    assert "override by" not in page + summary  # the stored English words are the JSON's, not the moderators'


def test_the_rules_reason_wins_over_the_decision_that_put_a_row_in() -> None:
    why = Reason(code="target_dead", nick="Борис")
    voided = cleared_order(why=why, reason=why.text)
    page = render_preview_html("Салон", draft(orders=[voided]), tz=MOSCOW)
    [row] = [r for r in cells(page, "audit-orders") if "Анна" in r[1]]
    assert "игрок Борис выбыл из игры" in row and not any("Ведущий" in c for c in row)
    assert "игрок Борис выбыл из игры" in audit_summary(draft(orders=[voided]), MOSCOW)


def test_a_draft_of_an_earlier_version_shows_its_rows_as_stored() -> None:
    """No display-side correction: what the payload says is what the moderators read."""
    old = OrderRow(actor="Анна", action="check", targets=["Борис"], time="2026-12-01T19:01:00+00:00", valid=True)
    page = render_preview_html("Салон", draft(orders=[old], overrides=[CLEARED]), tz=MOSCOW)
    [row] = [r for r in cells(page, "audit-orders") if "Анна" in r[1]]
    assert "да" in row
    noted = cleared_order(decided=None, reason="поправка от Ведущий: письмо не ей")
    summary = audit_summary(draft(orders=[noted]), MOSCOW)
    assert "поправка от Ведущий: письмо не ей" in summary


def test_decisions_are_said_in_russian_with_the_new_target_and_the_zones_one_name() -> None:
    overrides = [
        OverrideRow(
            kind="set_vote",
            subject="Анна",
            value=json.dumps({"targets": ["Вера"], "at": "2026-12-01T19:30:00+00:00"}),
            reason="голос в ЛС",
            by="Ведущий",
        ),
        OverrideRow(
            kind="deadline",
            subject="2026-12-01T21:00:00+00:00",
            value="2026-12-01T20:00:00+00:00",
            reason="праздник",
            by="Ведущий",
        ),
    ]
    page = render_preview_html("Салон", draft(overrides=overrides), tz=MOSCOW)
    table = " ".join(" ".join(r) for r in cells(page, "audit-overrides"))
    summary = audit_summary(draft(overrides=overrides), MOSCOW)
    for shown in (table, summary):
        assert "set_vote" not in shown and "deadline" not in shown and "2026-12-01T" not in shown, shown
        assert "голос за Вера" in shown and "22:30 МСК" in shown and "Europe/Moscow" not in shown, shown
        assert "с 01.12.2026 23:00 МСК на 02.12.2026 00:00 МСК" in shown, shown


def test_the_preview_and_the_opening_post_name_the_zone_as_every_post_does() -> None:
    votes = [pm_vote("Анна", "Борис", 1)]
    deadline = datetime(2026, 12, 1, 20, 0, tzinfo=UTC)
    page = render_preview_html("Салон", draft(votes=votes), tz=MOSCOW, deadline=deadline)
    assert "Europe/Moscow" not in page and "(МСК)" in page
    post = opening.text("Салон", PLAYERS, deadline.astimezone(MOSCOW), "")
    assert "День заканчивается 01.12.2026 в 23:00 (МСК)." in post
