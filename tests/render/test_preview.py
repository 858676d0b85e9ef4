"""The moderators' preview page, made by `forumbot draft html` from the bundled demo day (fixtures/demo)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from lxml import html as lxml_html
from typer.testing import CliRunner

from forumbot.cli import app
from forumbot.draft import DayDraft
from forumbot.engine.model import GameState, Player
from forumbot.render.preview import render_chart_svg, render_preview_html, safe_link

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "fixtures" / "demo"
GAME = "Демо-мафия"
runner = CliRunner()


def ok(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The demo's job, as `make demo` runs it: new-game, deal with the fixed seed, end-day, draft html."""
    out = tmp_path_factory.mktemp("demo")
    state = str(out / "state.db")
    ok("new-game", str(DEMO / "game.toml"), "--state", state)
    ok("deal", GAME, "--seed", "20261129", "--topic", "1", "--now", "2026-11-29T10:00:00+03:00", "--state", state)
    payload = json.loads(ok("end-day", GAME, "--json", "--state", state))
    shown = ok("draft", "show", GAME, "--state", state)
    written = ok("draft", "html", GAME, str(out / "preview.html"), "--state", state)
    return {"payload": payload, "shown": shown, "written": written, "page": (out / "preview.html").read_text("utf-8")}


def test_the_demo_day_resolves_into_its_story(demo: dict[str, Any]) -> None:
    payload = demo["payload"]
    assert payload["deaths"] == {
        "Пётр": "executed",
        "Кот_Учёный": "mafia",
        "Winnie": "sheriff",
        "Дядя Фёдор": "maniac",
    }
    counted = sorted((v["voter"], v["target"]) for v in payload["votes"] if v["counted"])
    assert counted == sorted(
        [
            ("Alice", "Пётр"),
            ("Bob Smith", "Пётр"),
            ("Ёжик в тумане", "Пётр"),
            ("Маша", "Пётр"),
            ("Кот_Учёный", "Bob Smith"),
            ("Шарик", "Дядя Фёдор"),
            ("Gandalf", "Маша"),
            ("Пётр", "Alice"),
        ]
    )


def test_the_demo_day_holds_every_trap(demo: dict[str, Any]) -> None:
    reasons = {(v["voter"], v["reason"]) for v in demo["payload"]["votes"] if not v["counted"]}
    assert reasons == {
        ("Bob Smith", "superseded"),  # a changed vote
        ("Кот_Учёный", "quoted"),
        ("Дядя Фёдор", "not_red"),  # dark red
        ("Шарик", "not_bold"),  # red, not bold
        ("Шарик", "not_red"),  # bold, not red
        ("Mr. Pink", "edited"),  # edited by the author
        ("Dana_99", "edited"),  # edited by a moderator
        ("Charlie", "unknown_nick"),  # a look-alike nick
        ("Призрак_Оперы", "not_player"),  # a ghost
        ("Маша", "superseded"),  # two votes in one post
        ("Winnie", "after_deadline"),
    }
    charlie = next(v for v in demo["payload"]["votes"] if v["voter"] == "Charlie")
    assert charlie["nearest"] == "Кот_Учёный"
    orders = {(o["actor"], o["action"], tuple(o["targets"]), o["valid"]) for o in demo["payload"]["orders"]}
    assert ("Маша", "kill", ("Кот_Учёный",), True) in orders  # the boss changed her order: the last stands
    assert ("Шарик", "kill", ("Дядя Фёдор",), False) in orders  # not the boss
    assert ("Чебурашка", "check", ("Winnie",), True) in orders
    assert ("Gandalf", "kill", ("Дядя Фёдор",), True) in orders
    quoted = [o for o in demo["payload"]["orders"] if o["actor"] == "Alice" and o["action"] == "kill"]
    assert quoted and all(not o["valid"] and o["reason"] == "quoted" for o in quoted)  # listed, never counted


def test_draft_show_prints_the_post(demo: dict[str, Any]) -> None:
    shown = demo["shown"]
    assert "[size=150][b]Демо-мафия. День 2[/b][/size]" in shown
    assert "[*][b]Пётр[/b]: 4 голоса (Alice, Ёжик в тумане, Маша, Bob Smith) — [b]казнь![/b]" in shown
    assert "preview of day 1 written to" in demo["written"]


def test_the_preview_page_shows_the_post_the_chart_and_the_audit(demo: dict[str, Any]) -> None:
    page = demo["page"]
    tree = lxml_html.document_fromstring(page)
    post = tree.get_element_by_id("post")
    assert "Демо-мафия. День 2" in post.text_content()
    assert post.xpath('.//strong[text()="казнь!"]')
    assert [li.text_content().split(":")[0] for li in post.xpath(".//ul/li")] == [
        "Пётр",
        "Alice",
        "Bob Smith",
        "Дядя Фёдор",
        "Маша",
    ]
    chart = tree.get_element_by_id("vote-chart")
    assert "vote-chart" in chart.get("class")
    marks = chart.xpath(".//*[@data-voter]")
    votes = demo["payload"]["votes"]
    assert len(marks) == len(votes)
    assert sum(m.get("data-counted") == "true" for m in marks) == sum(v["counted"] for v in votes)
    assert chart.xpath('.//*[@class="deadline"]')
    legend = tree.xpath('//ul[@class="chart-legend"]')[0].text_content()
    assert "Koт_Учёный (лат.: K, o; похож на: Кот_Учёный) (0) — не игрок" in legend
    rows = tree.get_element_by_id("audit-votes").xpath(".//tr")[1:]
    assert len(rows) == len(votes)
    links = [a.get("href") for a in tree.get_element_by_id("audit-votes").iter("a")]
    assert all(link.startswith("https://forum.example.org/viewtopic.php?p=") for link in links)
    assert "заменён более поздним голосом" in tree.get_element_by_id("audit-votes").text_content()
    orders_audit = tree.get_element_by_id("audit-orders").text_content()
    assert "приказ мафии отдаёт босс" in orders_audit and "only the boss" not in orders_audit  # in Russian
    assert "Незнайка: no post and no order today" in tree.get_element_by_id("audit-notes").text_content()
    assert "Чебурашка: mafia" in tree.get_element_by_id("private-checks").text_content()


def test_the_preview_page_is_self_contained(demo: dict[str, Any]) -> None:
    page = demo["page"]
    tree = lxml_html.document_fromstring(page)
    assert not tree.xpath("//script | //link | //img | //iframe | //object")
    assert not tree.xpath("//*[@src]")
    assert "@import" not in page and "url(" not in page
    assert 'http-equiv="Content-Security-Policy"' in page


def test_draft_html_without_a_draft_is_a_clear_error(tmp_path: Path) -> None:
    state = str(tmp_path / "state.db")
    ok("new-game", str(DEMO / "game.toml"), "--state", state)
    result = runner.invoke(app, ["draft", "html", GAME, str(tmp_path / "x.html"), "--state", state])
    assert result.exit_code == 2 and "no draft for the current day" in result.output
    result = runner.invoke(app, ["draft", "html", "Нет такой", str(tmp_path / "x.html"), "--state", state])
    assert result.exit_code == 2


def test_a_chart_without_votes_and_links_that_are_not_for_an_href() -> None:
    svg, colors = render_chart_svg([])
    assert 'id="vote-chart"' in svg and colors == {}
    assert safe_link("javascript:alert(1)") is None and safe_link("pm:3") is None and safe_link("//evil") is None
    assert safe_link("./viewtopic.php?p=3#p3") == "./viewtopic.php?p=3#p3"
    state = GameState(variant="salon", seed=1, players=(Player(nick="A", role="civilian"),))
    page = render_preview_html("G", DayDraft(day=2, bbcode="[b]G. День 3[/b]\nТекст", state=state))
    assert "G. День 3" in lxml_html.document_fromstring(page).get_element_by_id("post").text_content()
