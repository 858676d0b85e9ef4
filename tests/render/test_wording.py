"""Every reason is worded in Russian in one place, from its code and values (never parsed back from English)."""

from __future__ import annotations

from typing import get_args

import pytest

from forumbot.engine.model import REASON_TEXT, Reason, ReasonCode
from forumbot.render.wording import AUDIT_REASONS, RULE_REASONS, audit_reason, rule_reason

VALUES = {"nick": "Пётр", "other": "Вера", "role": "civilian", "action": "kill", "count": 2, "limit": 3, "day": 1}


@pytest.mark.parametrize("code", get_args(ReasonCode))
def test_every_rules_reason_has_its_russian_and_its_english(code: str) -> None:
    reason = Reason.model_validate({"code": code, **VALUES})
    for text in (rule_reason(reason), rule_reason(reason, to_sender=True)):
        assert text and "{" not in text and not any("a" <= c <= "z" for c in text.lower()), text
    assert code in RULE_REASONS and reason.text == REASON_TEXT[code].format(**reason.model_dump())


def test_the_sender_is_told_of_himself_and_the_moderators_of_the_sender() -> None:
    dead = Reason(code="dead")
    assert rule_reason(dead, to_sender=True) == "вы выбыли из игры"
    assert rule_reason(dead) == "отправитель выбыл из игры"
    assert rule_reason(Reason(code="target_dead", nick="Шарик"), to_sender=True) == "игрок Шарик выбыл из игры"


@pytest.mark.parametrize(
    ("limit", "said"),
    [(1, "приказ нельзя изменить"), (3, "приказ можно изменить не более двух раз"), (9, "не более 8 раз")],
)
def test_the_changes_an_order_allows_read_as_russian(limit: int, said: str) -> None:
    assert said in rule_reason(Reason(code="too_many_changes", limit=limit))


def test_an_audit_row_is_worded_from_its_typed_reason_else_its_code_else_as_stored() -> None:
    why = Reason(code="target_dead", nick="Пётр").model_dump(mode="json")
    assert audit_reason("target Пётр is dead", why) == "игрок Пётр выбыл из игры"
    assert audit_reason("superseded") == AUDIT_REASONS["superseded"]
    assert audit_reason("override by admin: screenshot") == "override by admin: screenshot"  # a host's own note
    assert audit_reason(None) == ""


def test_every_action_is_named_in_russian_for_the_moderators() -> None:
    from forumbot.engine.model import ACTIONS as ENGINE_ACTIONS
    from forumbot.render.wording import action_word

    for action in ENGINE_ACTIONS:
        word = action_word(action)
        assert word != action and not any("a" <= c <= "z" for c in word), action
