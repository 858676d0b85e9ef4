"""The PM order grammar of docs/votes-and-orders.md ("Orders in private messages") and orders_from_pm."""

from __future__ import annotations

from datetime import datetime

import pytest
from extract_support import IPB, MSK, PHPBB
from hypothesis import given
from hypothesis import strategies as st

from forumbot.engine.model import Order
from forumbot.extract import KEYWORDS, Roster, orders_from_pm, parse_line, parse_orders, text_from_html
from forumbot.posts import PrivateMessage

FORMS = [
    ("Расстреливаю", "vote"),
    ("Голосую", "vote"),
    ("V", "vote"),
    ("Убиваем", "kill"),
    ("Убиваю", "kill"),
    ("Заказ", "kill"),
    ("Стреляю", "kill"),
    ("Проверяю", "check"),
    ("Проверка", "check"),
    ("Лечу", "heal"),
    ("Спасаю", "heal"),
    ("Сплю", "sleep"),
    ("Насилую", "assault"),
    ("S", "special"),
]
SEPARATORS = [" — ", "—", " – ", "–", " - ", "-", ": ", ":", " : ", " ", "   ", " :— ", "\u00a0—\u00a0", "\t"]
SENT = datetime(2026, 11, 29, 20, 31, 44, tzinfo=MSK)


def pm(body_text: str, sender: str = "Winnie", body_html: str = "") -> PrivateMessage:
    return PrivateMessage(
        pm_id=7,
        sender=sender,
        time=SENT,
        subject="приказы",
        body_html=body_html,
        body_text=body_text,
        url="index.php?act=Msg&CODE=03&VID=in&MSID=7",
    )


@pytest.fixture
def roster() -> Roster:
    return Roster(["Лиса", "Кот Матроскин", "Шарик", "Печкин", "Дядя Фёдор", "Winnie", "Галчонок", "Мурка"])


def test_the_table_is_the_keyword_list() -> None:
    assert {k.lower(): a for k, a in FORMS} == KEYWORDS


@pytest.mark.parametrize("separator", SEPARATORS, ids=repr)
@pytest.mark.parametrize(("keyword", "action"), FORMS)
def test_every_form_with_every_separator(keyword: str, action: str, separator: str) -> None:
    assert parse_line(f"{keyword}{separator}Дядя Фёдор") == (action, "Дядя Фёдор")


@pytest.mark.parametrize(("keyword", "action"), FORMS)
def test_keywords_are_case_insensitive(keyword: str, action: str) -> None:
    assert parse_line(f"{keyword.upper()} — Мурка") == (action, "Мурка")
    assert parse_line(f"{keyword.lower()} — Мурка") == (action, "Мурка")


@pytest.mark.parametrize("line", ["Сплю с Мурка", "сплю С Мурка", "Сплю c Мурка", "Сплю — Мурка"])
def test_sleep_with(line: str) -> None:
    assert parse_line(line) == ("sleep", "Мурка")


def test_a_nick_starting_with_s_is_not_eaten_by_sleep_with() -> None:
    assert parse_line("Сплю Света") == ("sleep", "Света")


@pytest.mark.parametrize(
    "line",
    [
        "[b]Лечу[/b] — Дядя Фёдор",  # the captured phpBB PM
        "<strong>Лечу</strong> — Дядя Фёдор",
        "[color=red][b]Лечу[/b][/color] — [i]Дядя Фёдор[/i]",
        "**Лечу** — Дядя Фёдор",
        "Лечу — «Дядя Фёдор»",
        'Лечу — "Дядя Фёдор"',
        "  Лечу —   Дядя   Фёдор  ",
    ],
)
def test_formatting_left_in_the_text_is_ignored(line: str) -> None:
    assert parse_line(line) == ("heal", "Дядя Фёдор")


@pytest.mark.parametrize(
    "line",
    [
        "Проверками Мурка",
        "Vasya",
        "Убиваем",
        "Убиваем — ",
        "Привет всем",
        "S",
        "ночью убиваем Мурку",
        "— Мурка",
    ],
)
def test_not_an_order(line: str) -> None:
    assert parse_line(line) is None


def test_several_lines_unknown_lines_and_empty_lines() -> None:
    parsed = parse_orders("Заказ — Галчонок\nпроверка Мурка\n\n  \nэто мне Лиса переслала\nЛечу - Лиса\n")
    assert [(o.action, o.target_text, o.line_no) for o in parsed.lines] == [
        ("kill", "Галчонок", 1),
        ("check", "Мурка", 2),
        ("heal", "Лиса", 6),
    ]
    assert parsed.unknown == [(5, "это мне Лиса переслала")]
    assert parsed.password_seen is False


def test_order_header_with_password_is_ignored_and_never_kept() -> None:
    parsed = parse_orders("#order mafia42 s3cr3t\nS Мурка\nhello")
    assert [(o.action, o.target_text) for o in parsed.lines] == [("special", "Мурка")]
    assert parsed.password_seen is True
    assert "s3cr3t" not in repr(parsed)


def test_order_header_without_password() -> None:
    parsed = parse_orders("#ORDER mafia42\nV Мурка")
    assert (len(parsed.lines), parsed.unknown, parsed.password_seen) == (1, [], False)


def test_order_header_password_never_reaches_problems(roster: Roster) -> None:
    orders, problems = orders_from_pm(pm("#order mafia42 s3cr3t\nS Мурка\nчто-то", sender="Лиса"), roster)
    assert orders == [Order(actor="Лиса", action="special", targets=("Мурка",), time=SENT, ref=pm("").url)]
    assert "s3cr3t" not in repr(problems)


@pytest.mark.parametrize("text", ["Убиваем — Мурка, Лиса", "Убиваем — Мурка и Лиса", "Убиваем: Мурка; Лиса"])
def test_two_targets_in_one_order(roster: Roster, text: str) -> None:
    [order], problems = orders_from_pm(pm(text), roster)
    assert (order.action, order.targets, problems) == ("kill", ("Мурка", "Лиса"), [])


def test_a_nick_containing_and_is_one_target() -> None:
    roster = Roster(["Кот и Пёс", "Кот", "Пёс"])
    [order], _ = orders_from_pm(pm("Проверяю — Кот и Пёс", sender="Кот"), roster)
    assert order.targets == ("Кот и Пёс",)


def test_a_double_order_with_an_unknown_part_is_void(roster: Roster) -> None:
    orders, problems = orders_from_pm(pm("Убиваем — Мурка, Лиза"), roster)
    assert orders == []
    assert [(p.reason, p.target_text, p.nearest) for p in problems] == [("unknown_target", "Лиза", "Лиса")]


def test_quoted_orders_in_text_never_count() -> None:
    text = (
        "Заказ — Галчонок\n"
        "[quote=Лиса]Убиваем — Печкин\n"
        "[quote]Лечу — X[/quote][/quote]\n"
        "> Убиваем — Y\n"
        "V Мурка"
    )
    parsed = parse_orders(text)
    assert [(o.action, o.target_text, o.line_no) for o in parsed.lines] == [
        ("kill", "Галчонок", 1),
        ("vote", "Мурка", 5),
    ]


def test_captured_ipb_pm_from_html(roster: Roster) -> None:
    view = IPB["pm_view"]
    message = pm("", sender=view["sender"], body_html=view["body_html"])
    orders, problems = orders_from_pm(message, roster)
    assert [(o.actor, o.action, o.targets) for o in orders] == [
        ("Winnie", "kill", ("Галчонок",)),
        ("Winnie", "check", ("Мурка",)),
    ]  # Лиса's quoted "Убиваем — Печкин" is not an order of Winnie's, nor of Лиса's
    assert [(p.reason, p.raw) for p in problems] == [("unknown_line", "это мне Лиса переслала, не считается")]


def test_text_from_html_drops_quotes_and_keeps_lines() -> None:
    text = text_from_html(IPB["pm_view"]["body_html"])
    assert [line.strip() for line in text.splitlines() if line.strip()] == [
        "Заказ — Галчонок",
        "проверка Мурка",
        "это мне Лиса переслала, не считается",
    ]


IPB_PM_ORDERS = {
    1201: [("kill", ("Печкин",))],
    1202: [("check", ("Шарик",))],
    1205: [("heal", ("Лиса",))],
    1207: [("kill", ("Галчонок",)), ("check", ("Мурка",))],  # the [quote] of Лиса's order is dropped
}


@pytest.mark.parametrize("pm_data", IPB["pms"], ids=lambda p: str(p["msid"]))
def test_captured_ipb_pm_texts(roster: Roster, pm_data: dict[str, object]) -> None:
    orders, _ = orders_from_pm(pm(str(pm_data["bbcode"]), sender=str(pm_data["sender"])), roster)
    assert [(o.action, o.targets) for o in orders] == IPB_PM_ORDERS[int(str(pm_data["msid"]))]
    assert {o.actor for o in orders} == {pm_data["sender"]}


def test_captured_phpbb_pm(roster: Roster) -> None:
    body = PHPBB["pm_view_content_html"]  # <div class="content">Убиваем — Пётр</div>
    orders, problems = orders_from_pm(pm("", sender="Alice", body_html=body), Roster(["Alice", "Пётр"]))
    assert [(o.actor, o.action, o.targets) for o in orders] == [("Alice", "kill", ("Пётр",))]
    assert problems == []


def test_the_actor_is_always_the_sender(roster: Roster) -> None:
    orders, _ = orders_from_pm(pm("Лиса: Убиваем — Печкин\nУбиваем — Шарик", sender="Мурка"), roster)
    assert [(o.actor, o.targets) for o in orders] == [("Мурка", ("Шарик",))]


def test_unknown_target_names_the_nearest_player(roster: Roster) -> None:
    orders, problems = orders_from_pm(pm("Проверяю — Кот_Матроскин\nЛечу — Печкина"), roster)
    assert orders == []
    assert [(p.line_no, p.reason, p.target_text, p.nearest) for p in problems] == [
        (1, "unknown_target", "Кот_Матроскин", "Кот Матроскин"),
        (2, "unknown_target", "Печкина", "Печкин"),
    ]


def test_lenient_mode_accepts_folded_targets(roster: Roster) -> None:
    [order], problems = orders_from_pm(pm("Проверяю — кот_матроскин"), roster, mode="lenient")
    assert (order.targets, problems) == (("Кот Матроскин",), [])


def test_a_non_player_gives_no_orders(roster: Roster) -> None:
    orders, problems = orders_from_pm(pm("Убиваем — Шарик", sender="Ведущий"), roster)
    assert orders == [] and [p.reason for p in problems] == ["not_player"]


def test_orders_carry_time_and_ref(roster: Roster) -> None:
    [order], _ = orders_from_pm(pm("V Шарик"), roster)
    assert (order.time, order.ref) == (SENT, "index.php?act=Msg&CODE=03&VID=in&MSID=7")


@given(st.text())
def test_parse_orders_never_raises(text: str) -> None:
    parsed = parse_orders(text)
    line_count = len(text.splitlines())
    assert all(1 <= o.line_no <= line_count and o.target_text for o in parsed.lines)
    assert all(1 <= n <= line_count for n, _ in parsed.unknown)


@given(
    st.sampled_from(FORMS),
    st.sampled_from(SEPARATORS),
    st.text(alphabet=st.characters(categories=("L", "N")), min_size=1, max_size=15),
)
def test_generated_orders_parse_back(form: tuple[str, str], separator: str, nick: str) -> None:
    keyword, action = form
    assert parse_line(f"{keyword}{separator}{nick}") == (action, nick)


@given(st.text(), st.text())
def test_text_from_html_never_raises(a: str, b: str) -> None:
    text_from_html(f"<div>{a}<blockquote>{b}</blockquote></div>")


def test_a_nick_starting_with_a_dash_survives_a_spaced_separator() -> None:
    assert parse_line("Убиваем — -=Killer=-") == ("kill", "-=Killer=-")
