"""The host's powers in the day post: a replacement told once ("Замена: X — вместо игрока Y"), a removal as the
host's decision (with the role, like any death), a change of roles naming nobody, the best player."""

from __future__ import annotations

from render_support import config, host_power_days

from forumbot.render.day import render_day_post
from forumbot.render.phrases import PHRASES, PHRASES_AGREEING


def told(post: str, kind: str, **values: str) -> bool:
    return any(phrase.format(**values) in post for phrase in PHRASES[kind])


def test_each_power_is_told_once_and_names_no_role_but_the_deads() -> None:
    (before1, day1), (before2, day2), (before3, last) = host_power_days()
    post1 = render_day_post(config("gameru-3.3"), before1, day1)
    assert told(post1, "replaced", nick="Жанна", old="Анна") and post1.count("вместо игрока Анна") == 1
    assert told(post1, "removed_by_host", nick="Дина") and "Роль: [b]мирный житель[/b]" in post1
    assert "эпидемия" not in post1  # a removal is not told as a death of loneliness
    post2 = render_day_post(config("gameru-3.3"), before2, day2)
    assert told(post2, "role_changed") and "вместо игрока" not in post2  # a replacement is told once
    assert "[b]шериф" not in post2.lower() and "Глеб —" not in post2  # a change of roles names nobody
    post3 = render_day_post(config("kozanostra"), before3, last)
    assert told(post3, "best_player", nick="Анна")


def test_the_reveal_opens_the_commitment_and_lists_both_accounts_of_a_slot() -> None:
    import secrets

    from forumbot.engine import deal
    from forumbot.engine.commitment import commitment_of
    from forumbot.engine.day import resolve_day
    from forumbot.engine.model import DayInput, Replacement
    from forumbot.render.messages import render_reveal

    dealt = deal("gameru-3.3", [f"P{i}" for i in range(9)], 5)
    salt = secrets.token_hex(8)
    commitment = commitment_of(dealt, salt)
    after = resolve_day(dealt, DayInput(replacements=(Replacement(old="P2", new="Новый"),))).state
    body = render_reveal(config("gameru-3.3"), after, salt, commitment).body
    assert "Новый (вместо игрока P2)" in body and salt in body


def test_a_player_whose_role_the_host_changed_is_told_his_new_role() -> None:
    from forumbot.render.messages import render_role_change_messages

    (_, _), (before2, day2), _ = host_power_days()
    told_to = {m.to: m.body for m in render_role_change_messages(config("gameru-3.3"), before2, day2)}
    assert "Глеб" in told_to and "шериф" in told_to["Глеб"] and "расстановку ролей" in told_to["Глеб"]
    assert "Шериф" in told_to and "мирный житель" in told_to["Шериф"]


def test_a_player_who_leaves_is_shown_leaving_and_a_removal_without_effect_is_not_told() -> None:
    from render_support import host_power_endings

    (before1, day1), _ = host_power_endings()
    post1 = render_day_post(config("gameru-3.3"), before1, day1)
    left = [p.format(nick="Глеб", покинул="покинул") for p in (*PHRASES["left_game"], *PHRASES_AGREEING["left_game"])]
    assert any(text in post1 for text in left), post1
    assert "одиночеств" not in post1  # leaving is not told as a death of loneliness
    assert not told(post1, "removed_by_host", nick="Сонни")  # executed first: the removal had no effect


def test_the_post_that_ends_the_game_by_the_hosts_change_says_so() -> None:
    from render_support import host_power_endings

    _, (before2, day2) = host_power_endings()
    assert day2.winner == "town"
    post2 = render_day_post(config("gameru-3.3"), before2, day2)
    assert any(phrase in post2 for phrase in PHRASES["decided_by_host"])
    assert not any(phrase in post2 for phrase in PHRASES["role_changed"])  # there is no tomorrow to speak of
    assert "Игра окончена" in post2


def test_nobody_is_told_a_new_role_once_the_change_has_ended_the_game() -> None:
    from render_support import host_power_endings

    from forumbot.render.messages import render_role_change_messages

    _, (before2, day2) = host_power_endings()
    assert any(e.kind == "role_changed" for e in day2.events)
    assert render_role_change_messages(config("gameru-3.3"), before2, day2) == []
