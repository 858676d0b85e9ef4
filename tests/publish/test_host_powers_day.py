"""The host's powers through a day's end on the fake board: recorded with who and why, replayed by
end-day; a replacement's new account is the one whose posts count."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from publish_support import BOSS, BOT, GAME, NOW, PLAYERS, ROLE, START, play_day1, played_day

from forumbot.draft import DayDraft
from forumbot.errors import RulesError, StateError
from forumbot.host import games
from forumbot.render.wording import audit_reason

WHY = {"code": "target_replaced", "role": None, "action": None, "count": None, "limit": None, "day": None}


def test_a_replacement_and_a_removal_through_end_day(tmp_path: Path) -> None:
    with played_day(tmp_path, drafted=False) as day:
        old = next(n for n in PLAYERS if ROLE[n] == "civilian")
        removed = next(n for n in PLAYERS if ROLE[n] == "civilian" and n != old)
        day.board.add_user("Новый игрок", "pw")
        games.record_power(day.store, GAME, "replace", old, "Новый игрок", reason="ушёл из игры", by="admin")
        games.record_power(day.store, GAME, "remove", removed, None, reason="оскорбления", by="admin")
        play_day1(day.board, day.day1_topic)
        at = START + timedelta(hours=3)
        day.board.add_post(day.day1_topic, old, f"[color=red][b]{BOSS}[/b][/color]", at)
        day.board.add_post(
            day.day1_topic, "Новый игрок", f"[color=red][b]{BOSS}[/b][/color]", at + timedelta(minutes=1)
        )
        # a vote and an order naming the former nick name nobody: their audit rows say whose former nick it is
        day.board.add_post(day.day1_topic, BOSS, f"[color=red][b]{old}[/b][/color]", at + timedelta(minutes=2))
        day.board.send_pm(BOSS, BOT, "заказ", f"Убиваем — {old}", at + timedelta(minutes=3))
        draft = games.end_day(day.store, GAME, day.client()).to_json()
        votes = {(v["voter"], v["counted"], v["reason"]) for v in draft["votes"] if v["target"] == BOSS}
        assert ("Новый игрок", True, None) in votes and (old, False, "replaced by Новый игрок") in votes
        [named] = [v for v in draft["votes"] if v["target"] == old]
        assert (named["counted"], named["why"]) == (False, {**WHY, "nick": old, "other": "Новый игрок"})
        ordered = [(o["valid"], o["why"]["code"], o["why"]["other"]) for o in draft["orders"] if o["targets"] == [old]]
        assert ordered and set(ordered) == {(False, "target_replaced", "Новый игрок")}
        assert audit_reason(named["reason"], named["why"]) == f"игрока {old} заменил Новый игрок: называйте нового"
        slot = next(p for p in draft["state"]["players"] if p["nick"] == "Новый игрок")
        assert slot["role"] == ROLE[old] and old in slot["replaced"]
        assert draft["deaths"].get(removed) == "inactive"
        kinds = [e["kind"] for e in draft["events"]]
        assert "replaced" in kinds and "removed_by_host" in kinds
        audit = [(o["kind"], o["by"]) for o in draft["overrides"]]
        assert ("replace", "admin") in audit and ("remove", "admin") in audit


def test_a_power_the_rules_refuse_is_refused_when_recorded(tmp_path: Path) -> None:
    with played_day(tmp_path, drafted=False) as day:
        with pytest.raises(RulesError, match="replace"):
            games.record_power(day.store, GAME, "replace", PLAYERS[0], PLAYERS[1], reason="x", by="admin")
        with pytest.raises(StateError, match="--reason"):
            games.record_power(day.store, GAME, "remove", PLAYERS[0], None, reason=" ", by="admin")
        assert not day.store.overrides(day.store.game(GAME).id, 1)


def test_the_power_command_records_a_replacement_for_end_day(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from forumbot.cli import app

    with played_day(tmp_path, drafted=False) as day:
        old = next(n for n in PLAYERS if ROLE[n] == "civilian")
        state = str(day.store.path)
        run = CliRunner().invoke(
            app, ["power", GAME, "replace", old, "Новый игрок", "--reason", "ушёл", "--by", "admin", "--state", state]
        )
        assert run.exit_code == 0, run.output
        refused = CliRunner().invoke(
            app, ["power", GAME, "replace", old, "X", "--reason", "r", "--by", "кто-то", "--state", state]
        )
        assert refused.exit_code == 2 and "not a moderator" in refused.output
        day.board.add_user("Новый игрок", "pw")
        play_day1(day.board, day.day1_topic)
        draft = games.end_day(day.store, GAME, day.client()).to_json()
        assert any(p["nick"] == "Новый игрок" and old in p["replaced"] for p in draft["state"]["players"])


def test_a_replaced_slots_new_account_gets_its_role_at_the_days_publish(tmp_path: Path) -> None:
    from publish_support import SHERIFF

    from forumbot.forum.phpbb.writer import PhpbbPoster
    from forumbot.host.publish import publish

    with played_day(tmp_path, drafted=False) as day:
        day.board.add_user("Новый шериф", "pw")
        games.record_power(day.store, GAME, "replace", SHERIFF, "Новый шериф", reason="ушёл", by="admin")
        play_day1(day.board, day.day1_topic)
        day.board.add_post(day.day1_topic, "Новый шериф", "Я здесь.", START + timedelta(hours=4))  # not silent
        games.end_day(day.store, GAME, day.client())
        games.approve(day.store, GAME, "admin")
        client = day.client()
        publish(day.store, GAME, client, NOW, poster=PhpbbPoster(client))
        roles = [m for m in day.board.pms_to("Новый шериф") if "ваша роль" in m.subject]
        assert len(roles) == 1 and "шериф" in roles[0].body


def test_the_deadline_pass_replaces_a_draft_made_before_the_deadline(tmp_path: Path) -> None:
    from forumbot.forum.phpbb.writer import PhpbbPoster
    from forumbot.host.watch import watch_once

    with played_day(tmp_path, approve=False) as day:
        row = day.store.game(GAME)
        draft = day.store.draft(row.id, 1)
        assert draft is not None
        early = {"early": {"reason": "все проголосовали", "at": "x"}}
        day.store.save_draft(row.id, 1, DayDraft.model_validate(draft.draft.to_json() | early))
        client = day.client()
        report = watch_once(day.store, GAME, client, PhpbbPoster(client), NOW)
        assert report.drafted and any("before the deadline is replaced" in p for p in report.problems)
        assert day.store.draft(row.id, 1).draft.early is None
