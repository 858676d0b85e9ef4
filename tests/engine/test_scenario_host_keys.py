"""The scenario keys of the host's powers: each shape checked with the line it is on, the new nicks known from
their day on, and the engine's refusals pointed at the entry they concern."""

from __future__ import annotations

import pytest

from forumbot.errors import ScenarioError
from forumbot.scenario import parse_scenario, run_scenario

HEAD = """\
name: host keys
variant: gameru-3.3
players:
  - Don: mafia boss
  - Vito: mafia
  - Tony: mafia
  - Wyatt: sheriff
  - Anna: civilian
  - Boris: civilian
  - Clara: civilian
  - Dima: civilian
  - Elena: civilian
days:
"""  # the first day's key is on line 14


def refused(days: str) -> tuple[int | None, str]:
    with pytest.raises(ScenarioError) as error:
        run_scenario(parse_scenario(HEAD + days, "host.yaml"))
    return error.value.line, error.value.reason


@pytest.mark.parametrize(
    ("days", "line", "reason"),
    [
        (
            "  - replace:\n      - [Anna]\n",
            15,
            "day 1: replace: a replacement is [old nick, new nick] or [old nick, new nick, reason]",
        ),
        ("  - replace:\n      - [Anna, Boris]\n", 15, "day 1: replace: 'Boris' is already a nick of this game"),
        ("  - replace:\n      - [Zed, Zoe]\n", 15, "day 1: replace: unknown player 'Zed'"),
        ("  - replace: Anna\n", 14, "day 1: replace: replace must be a list"),
        ("  - remove:\n      - [Anna]\n", 15, "day 1: remove: a removal is [nick, reason]"),
        ("  - remove:\n      - [Anna, x]\n      - [Anna, y]\n", 16, "day 1: remove: Anna is removed twice"),
        ("  - appoint_maniac: Zed\n", 14, "day 1: appoint_maniac: unknown player 'Zed'"),
        ("  - appoint_maniac: [Anna]\n", 14, "day 1: appoint_maniac: a player must be a single value"),
        ("  - scheme: {Anna: wizard}\n", 14, "day 1: scheme: unknown role 'wizard' for gameru-3.3"),
        ("  - scheme: {Anna: civilian boss}\n", 14, "day 1: scheme: Anna is made boss, but only a mafioso"),
        ("  - scheme: [Anna, mafia]\n", 14, "day 1: scheme: scheme must be a mapping of nick: value"),
        ("  - best_player: Anna\n", 14, "day 1: best_player: the host of gameru-3.3 names no best player"),
        ("  - expect: {roles: {Anna: wizard}}\n", 14, "unknown role 'wizard' for gameru-3.3"),
        ("  - expect: {roles: {Zed: civilian}}\n", 14, "unknown player 'Zed'"),
        # refused against the game's state, when the day is resolved: the entry's line
        (
            "  - {}\n  - replace:\n      - [Anna, Anya]\n      - [Anna, Annie]\n",
            17,
            "day 2: replace: Anna was already replaced by Anya",
        ),
        (
            "  - votes: [[Anna, Boris]]\n  - scheme:\n      Clara: mafia\n      Boris: sheriff\n",
            17,
            "day 2: scheme: Boris is dead",
        ),
    ],
)
def test_a_malformed_host_key_is_reported_at_its_line(days: str, line: int, reason: str) -> None:
    """Every refusal of a host key names the day and the key, the loader's (a shape) as the engine's."""
    found_line, found_reason = refused(days)
    assert (found_line, found_reason.startswith(reason)) == (line, True), found_reason


def test_the_new_nick_plays_from_its_day_on_and_the_earlier_one_is_still_known() -> None:
    days = """\
  - replace: [[Anna, Anya]]
    votes:
      - [Anna, Don]      # void, not malformed
      - [Anya, Don]
    expect:
      deaths: {Don: executed}
      roles: {Anya: civilian, Vito: mafia boss}
  - votes: [[Anya, Vito]]
    expect:
      deaths: {Vito: executed}
      roles: {Anya: civilian, Anna: civilian}
"""
    result = run_scenario(parse_scenario(HEAD + days, "host.yaml"))
    assert [m.key for m in result.mismatches] == ["roles"]  # Anna plays no more: "not a player"
    assert result.mismatches[0].actual == {"Anya": "civilian", "Anna": "not a player"}
    assert [v.reason for v in result.outcomes[0].void] == ["replaced by Anya"]
