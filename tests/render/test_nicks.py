"""Look-alike nicks: flagged for the host and the moderators, never in the public post."""

from __future__ import annotations

from pathlib import Path

import pytest
from lxml import html as lxml_html
from typer.testing import CliRunner

from forumbot.cli import app
from forumbot.render.nicks import flag, flags, looks_alike, skeleton

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "fixtures" / "demo"
GAME = "Демо-мафия"
LATIN_VERA = "Bepa"  # every letter Latin
CYRILLIC_VERA = "Вера"
MIXED_CAT = "Koт_Учёный"  # Latin K and o, the rest Cyrillic
CAT = "Кот_Учёный"


def test_a_nick_that_mixes_scripts_names_its_odd_letters() -> None:
    assert flag(MIXED_CAT, [MIXED_CAT, "Alice"]) == "Koт_Учёный (лат.: K, o)"
    assert flag("Alicе", ["Alicе", "Bob"]) == "Alicе (кир.: е)"  # a Cyrillic е at the end


def test_a_latin_nick_that_reads_as_russian_among_russian_nicks() -> None:
    assert flag(LATIN_VERA, [LATIN_VERA, "Пётр"]) == "Bepa (лат.)"
    assert flag(LATIN_VERA, [LATIN_VERA, "Alice"]) == LATIN_VERA  # among Latin nicks it is just a nick
    assert flag("Alice", ["Alice", "Пётр"]) == "Alice"  # l and i have no Russian twin


def test_nicks_that_look_alike_point_at_each_other() -> None:
    players = [CYRILLIC_VERA, LATIN_VERA, "Пётр"]
    assert flag(CYRILLIC_VERA, players) == "Вера (похож на: Bepa)"
    assert flag(LATIN_VERA, players) == "Bepa (лат.; похож на: Вера)"
    assert flag("Пётр", players) == "Пётр"


def test_what_looks_alike_and_what_does_not() -> None:
    assert looks_alike("Пётр", "Петр")  # the dots on ё are dropped by readers
    assert looks_alike(CAT, "Кот Учёный")  # an underscore reads as a space
    assert looks_alike("Dana_99", "Dana_98")  # one edit apart, long enough
    assert not looks_alike("Анна", "Анка")  # short names one letter apart are different names
    assert not looks_alike("Alice", "Alice")
    assert skeleton(CYRILLIC_VERA) == skeleton(LATIN_VERA) == "bepa"


def test_flags_cover_nicks_shown_that_are_not_players() -> None:
    found = flags([CAT, "Alice"], [MIXED_CAT])
    # a player is compared with the players only: a stray vote text does not make his nick suspect
    assert found == {MIXED_CAT: "лат.: K, o; похож на: Кот_Учёный"}


# --- in the moderators' preview -------------------------------------------------------------------


def ok(*args: str) -> str:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture(scope="module")
def preview(tmp_path_factory: pytest.TempPathFactory) -> lxml_html.HtmlElement:
    """The demo day (its thread holds a vote for «Koт_Учёный» with Latin K and o) as `draft html` writes it."""
    out = tmp_path_factory.mktemp("nicks")
    state = str(out / "state.db")
    ok("new-game", str(DEMO / "game.toml"), "--state", state)
    ok("deal", GAME, "--seed", "20261129", "--topic", "1", "--now", "2026-11-29T10:00:00+03:00", "--state", state)
    ok("end-day", GAME, "--json", "--state", state)
    ok("draft", "html", GAME, str(out / "preview.html"), "--state", state)
    return lxml_html.document_fromstring((out / "preview.html").read_text("utf-8"))


def test_the_audit_flags_the_look_alike_vote(preview: lxml_html.HtmlElement) -> None:
    rows = preview.get_element_by_id("audit-votes").xpath(".//tr")[1:]
    flagged = [r.text_content() for r in rows if "Koт_Учёный" in r.text_content()]
    assert flagged and all("(лат.: K, o; похож на: Кот_Учёный)" in row for row in flagged)
    notes = preview.xpath('//span[@class="lookalike"]')
    assert notes and all(n.text_content().startswith("(") for n in notes)


def test_the_summary_lists_every_flagged_nick(preview: lxml_html.HtmlElement) -> None:
    summary = preview.get_element_by_id("lookalikes").text_content()
    assert "Koт_Учёный (лат.: K, o; похож на: Кот_Учёный)" in summary
    assert "Alice" not in summary  # a Latin nick with no Russian twin of every letter is not suspect


def test_the_public_post_keeps_nicks_exact(preview: lxml_html.HtmlElement) -> None:
    post = preview.get_element_by_id("post").text_content()
    assert "похож на" not in post and "лат." not in post
