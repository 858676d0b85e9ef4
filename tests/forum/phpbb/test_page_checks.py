"""The login-wall and no-permission checks asked of every page: the page's id table lets a page without the
element each reads skip the walk, and the checks answer as the pure readers do on every page."""

from __future__ import annotations

from pathlib import Path

import pytest

from forumbot.errors import ParseError
from forumbot.forum.markup import may_hold, parse_html
from forumbot.forum.phpbb import pages
from forumbot.forum.phpbb.reader import PhpbbClient

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures"

CASES = [
    '<form id="login"></form>',
    "<form id=login></form>",
    '<form ID="lo&#103;in"></form>',  # a character reference: the id is "login"
    '<div><p><table><form id="login"></form></table></p></div>',
    '<div id="login"></div><form id="login"></form>',  # the id table keeps the first: a div
    '<a name="login">x</a><form id="login"></form>',  # an anchor's name is in the table too
    '<form id=" login"></form>',
    '<form name="login"></form>',
    '<math id="login"></math>',
    '<div id="message"><p>Вы не можете просматривать этот форум.</p></div>',
    '<p id="message"></p><div id="message">Доступ запрещён</div>',
    '<div class="message">nothing</div>',
]


@pytest.mark.parametrize("body", CASES)
def test_the_id_table_misses_no_element_the_walk_finds(body: str) -> None:
    root = parse_html(f"<html><body>{body}<div id='page-footer'></div></body></html>")
    for tag, ident in (("form", "login"), ("div", "message")):
        walked = any(element.get("id") == ident for element in root.iter(tag))
        assert may_hold(root, tag, ident) == walked


def captured_pages() -> list[Path]:
    return sorted(FIXTURES.rglob("*.html"))


def test_the_checks_answer_as_the_pure_readers_on_every_captured_page() -> None:
    client = PhpbbClient("http://board.test/")
    checked = walls = refusals = 0
    for path in captured_pages():
        text = path.read_bytes().decode("utf-8", errors="replace")
        try:
            root = parse_html(text)
        except ParseError:
            continue
        wall, refusal = pages.is_login_wall(root), pages.is_no_permission(root)
        assert (client.is_login_wall(text), client.is_no_permission(text)) == (wall, refusal), path
        checked, walls, refusals = checked + 1, walls + wall, refusals + refusal
    client.close()
    assert checked > 100 and walls > 0 and refusals > 0
