"""`forumbot outbox GAME` through typer's runner: what waits and what the board refused for good, numbered,
in the board's own words; `--retry N` and `--drop N --reason R` settle a letter, recorded with who and why;
bad input is one line naming what is wrong."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from publish_support import BOT, DAY2_TITLE, GAME, NOW, Played, played_day
from typer.testing import CliRunner

from forumbot.cli import app
from forumbot.forum.registry import poster_for
from forumbot.host.publish import TopicUnknown, publish

runner = CliRunner()


@pytest.fixture
def held(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Played]:
    """Day 1 published on the Russian board by a bot that is no moderator and whose posts wait for approval:
    its topic is held (set aside), its PMs went out."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FORUMBOT_STATE", str(tmp_path / "state.db"))
    with played_day(tmp_path, language="ru", bot_moderator=False) as day:
        day.board.set_preferences(BOT, needs_approval=True)
        client = day.client()
        with pytest.raises(TopicUnknown):
            publish(day.store, GAME, client, NOW, poster=poster_for(client))
        yield day


def invoke(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.output


def topic_number(day: Played) -> int:
    [letter] = [x for x in day.store.letters(day.store.game(GAME).id) if x.kind == "topic"]
    assert letter.number is not None
    return int(letter.number)


def test_the_outbox_lists_what_was_set_aside_in_the_boards_words(held: Played) -> None:
    code, output = invoke("outbox", GAME)
    assert code == 0, output
    number = topic_number(held)
    assert str(number) in output and "set aside" in output and "одобрено модератором" in " ".join(output.split())
    assert f"forumbot outbox {GAME} --retry N" in output
    code, output = invoke("outbox", GAME, "--json")
    listed = json.loads(output)["letters"]
    assert [(x["number"], x["kind"], x["status"]) for x in listed] == [(number, "topic", "refused")]
    assert "одобрено модератором" in listed[0]["error"]


def test_retry_makes_it_due_again_and_publish_finds_it_once_approved(held: Played) -> None:
    number = topic_number(held)
    [topic] = held.topics_titled(DAY2_TITLE)
    held.board.approve_post(topic.posts[0].post_id)
    code, output = invoke("outbox", GAME, "--retry", str(number), "--by", "host", "--reason", "approved")
    assert code == 0 and "is due again" in output, output
    client = held.client()
    report = publish(held.store, GAME, client, NOW, poster=poster_for(client))
    assert report.new_day == 2 and len(held.topics_titled(DAY2_TITLE)) == 1
    assert report.recovered == [f"topic «{DAY2_TITLE}»"]  # found by its marker, never posted again
    code, output = invoke("outbox", GAME, "--all")
    assert "host: retry" in output and "approved" in output


def test_a_topic_posted_by_hand_is_recorded_and_publishing_goes_on_with_it(held: Played) -> None:
    number = topic_number(held)
    [topic] = held.topics_titled(DAY2_TITLE)
    settlement = ("--drop", str(number), "--id", str(topic.topic_id), "--reason", "approved by hand", "--by", "mod")
    code, output = invoke("outbox", GAME, *settlement)
    assert code == 0 and "done by hand" in output, output
    client = held.client()
    report = publish(held.store, GAME, client, NOW, poster=poster_for(client))
    assert report.new_day == 2 and report.topic_id == topic.topic_id
    [settled] = held.store.settlements(held.store.game(GAME).id)
    assert (settled["action"], settled["by"], settled["reason"]) == ("done by hand", "mod", "approved by hand")


def test_a_dropped_topic_names_the_way_out_again(held: Played) -> None:
    number = topic_number(held)
    assert invoke("outbox", GAME, "--drop", str(number), "--reason", "not wanted", "--by", "host")[0] == 0
    client = held.client()
    with pytest.raises(TopicUnknown, match=f"--drop {number} --id TOPIC"):
        publish(held.store, GAME, client, NOW, poster=poster_for(client))


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("--drop", "{n}"), "say why it is dropped (--reason)"),
        (("--retry", "999"), "no letter 999"),
        (("--retry", "{n}", "--drop", "{n}"), "--retry or --drop, not both"),
        (("--id", "5"), "--id goes with --drop"),
    ],
)
def test_bad_settlements_are_one_line_naming_what(held: Played, args: tuple[str, ...], said: str) -> None:
    number = str(topic_number(held))
    code, output = invoke("outbox", GAME, *(a.format(n=number) for a in args), "--by", "host")
    assert code == 2 and said in output and len(output.strip().splitlines()) == 1, output


def test_nothing_waiting_is_said_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FORUMBOT_STATE", str(tmp_path / "state.db"))
    with played_day(tmp_path):
        assert invoke("outbox", GAME) == (0, f"{GAME}: nothing waits and nothing was set aside\n")
