"""The kozanostra server's passwords are removed from a PM before anything reads it, in every form it accepted."""

from __future__ import annotations

import pytest

from forumbot.extract.commands import Relay, parse_commands
from forumbot.extract.orders import parse_orders, strip_credentials

SECRET = "Pw-9f3k"


@pytest.mark.parametrize(
    ("body", "orders"),
    [
        (f"#order K-1 {SECRET}\nV Boris", [("vote", "Boris")]),
        (f"#order K-1\n{SECRET}\nV Boris", [("vote", "Boris")]),
        (f"#order\nK-1 {SECRET}\nV Boris", [("vote", "Boris")]),
        (f"#order\nK-1\n{SECRET}\nS Boris", [("special", "Boris")]),
        (f"[b]#ORDER K-1 {SECRET}[/b]\nV Boris", [("vote", "Boris")]),
        (f"V Boris\n#order K-1 {SECRET}", [("vote", "Boris")]),
    ],
)
def test_an_order_header_keeps_no_password(body: str, orders: list[tuple[str, str]]) -> None:
    parsed = parse_orders(body)
    assert [(o.action, o.target_text) for o in parsed.lines] == orders
    assert parsed.password_seen
    assert SECRET not in repr(parsed) and SECRET not in repr(parse_commands(body))


def test_the_line_after_a_header_is_kept_when_it_is_an_order_or_a_command() -> None:
    parsed = parse_orders("#order K-1\nV Boris\nпривет")
    assert [(o.action, o.target_text) for o in parsed.lines] == [("vote", "Boris")]
    assert parsed.unknown == [(3, "привет")] and not parsed.password_seen
    assert parse_commands("#order K-1\nZ").report


def test_line_numbers_hold_after_scrubbing() -> None:
    parsed = parse_orders(f"#order K-1\n{SECRET}\nчто-то\nV Boris")
    assert parsed.unknown == [(3, "что-то")] and parsed.lines[0].line_no == 4
    assert strip_credentials(f"#order K-1\n{SECRET}\nV Boris").text.count("\n") == 2


@pytest.mark.parametrize(
    ("body", "relay"),
    [
        (f"#mail K-1 Boris K-1 {SECRET}\nпривет", Relay("mail", "привет", "Boris")),
        (f"#mail K-1 Кот Матроскин K-1 {SECRET}\nпривет", Relay("mail", "привет", "Кот Матроскин")),
        (f"#mail K-1 Boris K-1 {SECRET} ---\nпривет", Relay("mail", "привет", "Boris", anonymous=True)),
        (f"#wall K-1 {SECRET}\nвсем", Relay("wall", "всем")),
        (f"#mafia K-1 {SECRET}\nнаши", Relay("mafia", "наши")),
        (f"#jakudza K-1 {SECRET}\nнаши", Relay("yakuza", "наши")),
    ],
)
def test_a_relay_header_of_the_server_keeps_no_password(body: str, relay: Relay) -> None:
    parsed = parse_commands(body)
    assert parsed.relay == relay
    assert SECRET not in repr(parsed) and SECRET not in repr(parse_orders(body))
    assert strip_credentials(body).password_seen


def test_a_forum_relay_header_is_left_as_written() -> None:
    assert parse_commands("#mail Bob Smith ---\nhi").relay == Relay("mail", "hi", "Bob Smith", anonymous=True)
    assert strip_credentials("#mail Bob Smith\nhi").text == "#mail Bob Smith\nhi"
    assert not strip_credentials("#mail Bob Smith\nhi").password_seen
