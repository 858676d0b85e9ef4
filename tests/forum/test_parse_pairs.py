"""Fixture pairs: every `fixtures/{phpbb,ipb,ipb3}/<page>.html` beside a `<page>.json` of its expected
parse, one test per page. The JSON says which parser applies ("parse"), what `registry.detect_page`
must answer ("detect"), the URL, zone and "now" to pass, and the expected values.

`fixtures/phpbb-ru/` holds real exchanges with a phpBB 3.3.11 board in Russian (and English); only
the pages a parser reads have a pair there. Their "now" is the exchange's `time_utc` (index.json),
against which relative dates ("6 минут назад") are read; "zone" is what `phpbb.parse_board_zone`
reads from the page's footer. Their pairs state every field (visibility, locked, time_until,
recipients...); older pairs leave the newer fields out and get them unchecked (or, for
`visibility` and `locked`, checked against the defaults)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone, tzinfo
from pathlib import Path
from types import ModuleType
from typing import Any, cast

import pytest

from forumbot.errors import ParseError
from forumbot.forum import registry
from forumbot.forum.ipb2 import pages as ipb2
from forumbot.forum.markup import parse_html, text_of
from forumbot.forum.phpbb import pages as phpbb
from forumbot.posts import PmSummary, Post, PrivateMessage, TopicPage

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
PAIRED_DIRS = ("phpbb", "ipb", "ipb3")  # every page there has its pair
REAL_RU = FIXTURES / "phpbb-ru"  # the real board's exchanges: the pages a parser reads are paired
PAIRS = sorted(p for d in PAIRED_DIRS for p in (FIXTURES / d).glob("*.json"))
PAIRS += sorted(p for p in REAL_RU.glob("*.json") if p.name != "index.json")
POST_FIELDS: tuple[str, ...] = ("author", "author_id", "edited", "edited_by", "edited_at", "edit_count", "edit_reason")
POST_FIELDS += ("permalink", "page")
TIME_KEYS = frozenset({"time", "time_until"})
ROW_KEYS = frozenset({"id", "subject", "sender", "sender_id", "time", "time_text", "unread", "url"})
PM_KEYS = frozenset({"id", "sender", "sender_id", "time", "time_text", "subject", "body_text"})


def _zone(spec: str | None) -> tzinfo:
    if not spec:
        return UTC
    sign = -1 if spec.startswith("-") else 1
    hours, minutes = spec.lstrip("+-").split(":")
    return timezone(sign * timedelta(hours=int(hours), minutes=int(minutes)))


def _engine(case: dict[str, Any]) -> ModuleType:
    """The pages module of the engine the pair names (the registry's)."""
    return cast(ModuleType, registry.dialect(case["detect"][0]).pages)


def _iso(moment: datetime | None) -> str | None:
    """The instant in UTC, so that equal instants compare equal whatever zone they were read in."""
    return moment.astimezone(UTC).isoformat() if moment is not None else None


def _same(got: dict[str, Any], want: dict[str, Any], required: frozenset[str], strict: bool) -> None:
    """`got` matches `want` on the keys `want` has, times as instants; `want` states at least
    `required`, and every key of `got` when `strict` (the pairs of the real board)."""
    assert required <= want.keys(), f"the pair lacks {sorted(required - want.keys())}"
    if strict:
        assert want.keys() == got.keys(), f"the pair differs in keys: {sorted(want.keys() ^ got.keys())}"
    normal = {k: _iso(datetime.fromisoformat(v)) if k in TIME_KEYS and v else v for k, v in want.items()}
    assert {k: got[k] for k in want} == normal


def _check_post(post: Post, want: dict[str, Any]) -> None:
    assert post.post_id == want["id"]
    got = {name: getattr(post, name) for name in POST_FIELDS}
    assert got == {name: want[name] for name in POST_FIELDS}, f"post {want['id']}"
    assert post.visibility == want.get("visibility", "public"), f"post {want['id']}"
    assert post.time.tzinfo is not None
    assert post.time == datetime.fromisoformat(want["time"]), f"post {want['id']}"
    body = text_of(parse_html(post.content_html))
    if "content_text" in want:
        assert body == want["content_text"], f"post {want['id']}"
    for piece in want.get("content_contains", []):
        assert piece in body, f"post {want['id']}: {piece!r} not in {body!r}"
    for piece in want.get("content_excludes", []):
        assert piece not in body, f"post {want['id']}: {piece!r} in {body!r}"


def _check_topic(page: TopicPage, want: dict[str, Any]) -> None:
    head = {name: getattr(page, name) for name in ("dialect", "topic_id", "title", "page", "page_count")}
    assert head == {name: want[name] for name in head}
    assert page.next_url == want["next_url"]
    assert page.locked is want.get("locked", False)
    assert [p.post_id for p in page.posts] == [p["id"] for p in want["posts"]]
    for post, post_want in zip(page.posts, want["posts"], strict=True):
        assert post.topic_id == want["topic_id"]
        _check_post(post, post_want)


def _row(row: PmSummary) -> dict[str, Any]:
    return {
        "id": row.pm_id,
        "subject": row.subject,
        "sender": row.sender,
        "sender_id": row.sender_id,
        "time": _iso(row.time),
        "time_until": _iso(row.time_until),
        "time_text": row.time_text,
        "unread": row.unread,
        "url": row.url,
        "recipients": list(row.recipients),
    }


def _message(pm: PrivateMessage) -> dict[str, Any]:
    return {
        "id": pm.pm_id,
        "sender": pm.sender,
        "sender_id": pm.sender_id,
        "time": _iso(pm.time),
        "time_until": _iso(pm.time_until),
        "time_text": pm.time_text,
        "subject": pm.subject,
        "body_text": pm.body_text,
        "recipients": list(pm.recipients),
    }


def _raises(parse: Any, want: dict[str, Any]) -> None:
    with pytest.raises(ParseError) as caught:
        parse()
    for piece in want["error_contains"]:
        assert piece in str(caught.value)


def _run(case: dict[str, Any], html: bytes, strict: bool) -> None:
    engine, want, url = _engine(case), case["expect"], case.get("url")
    tz, now = _zone(case.get("tz")), case.get("now") and datetime.fromisoformat(case["now"])
    kind = case["parse"]
    if kind == "topic_page":
        _check_topic(engine.parse_topic_page(html, url, tz=tz, now=now), want)
    elif kind == "pm_inbox":
        rows, next_url = engine.parse_pm_inbox(html, url, tz=tz, now=now)
        assert len(rows) == len(want["rows"])
        for got, row_want in zip(rows, want["rows"], strict=True):
            _same(_row(got), row_want, ROW_KEYS, strict)
        assert next_url == want["next_url"]
    elif kind == "pm":
        _same(_message(engine.parse_pm(html, url, tz, now=now)), want, PM_KEYS, strict)
    elif kind == "login_form":
        assert engine.parse_login_form(html) == want
    elif kind == "posting_form":
        assert engine.parse_posting_form(html) == want
    elif kind == "preferences":
        prefs = phpbb.parse_preferences(html)
        got = {"action": prefs.action, "lang": prefs.lang, "tz": prefs.tz, "dateformat": prefs.dateformat}
        got |= {"relative": phpbb.is_relative_format(prefs.dateformat or ""), "fields": [list(f) for f in prefs.fields]}
        assert got == want
    elif kind == "quote_stamp":
        stamp = phpbb.parse_quote_stamp(html)
        assert stamp is not None
        got = {"name": stamp.name, "time": _iso(stamp.time), "user_id": stamp.user_id}
        _same(got | {"post_id": stamp.post_id, "msg_id": stamp.msg_id}, want, frozenset(want), strict)
    elif kind == "not_a_topic":
        _raises(lambda: engine.parse_topic_page(html, url, tz=tz, now=now), want)
    elif kind == "not_a_pm":
        _raises(lambda: engine.parse_pm(html, url, tz, now=now), want)
    else:
        raise AssertionError(f"unknown parse kind {kind!r}")


def _check_zone(html: bytes, want: dict[str, str] | None) -> None:
    zone = phpbb.parse_board_zone(html)
    if want is None:
        assert zone is None
    else:
        assert zone is not None and (zone.offset, zone.label) == (_zone(want["offset"]), want["label"])


def _exchanges() -> dict[str, dict[str, Any]]:
    return {e["body_file"]: e for e in json.loads((REAL_RU / "index.json").read_text(encoding="utf-8"))}


@pytest.mark.parametrize("pair", PAIRS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_fixture_page(pair: Path) -> None:
    case = json.loads(pair.read_text(encoding="utf-8"))
    html = pair.with_suffix(".html").read_bytes()
    strict = pair.parent == REAL_RU
    if strict:  # "now" is when the exchange happened; the board's footer is read too
        exchange = _exchanges()[pair.with_suffix(".html").name]
        if "now" in case:
            assert datetime.fromisoformat(case["now"]) == datetime.fromisoformat(exchange["time_utc"])
        _check_zone(html, case["zone"])
    assert tuple(case["detect"]) == registry.detect_page(html)
    if "login_wall" in case:
        assert _engine(case).is_login_wall(html) is case["login_wall"]
        assert _engine(case).is_no_permission(html) is case["no_permission"]
    _run(case, html, strict)


def test_every_fixture_page_has_its_pair() -> None:
    pages = sorted(p for d in PAIRED_DIRS for p in (FIXTURES / d).glob("*.html"))
    assert [p.with_suffix(".json") for p in pages] == [p for p in PAIRS if p.parent != REAL_RU]
    assert len(pages) >= 30


def test_the_real_boards_pairs_name_captured_pages() -> None:
    exchanges = _exchanges()
    real = [p for p in PAIRS if p.parent == REAL_RU]
    assert all(p.with_suffix(".html").name in exchanges for p in real)
    assert len(real) >= 40


def test_text_and_bytes_and_tree_parse_alike() -> None:
    raw = (FIXTURES / "ipb" / "topic_page1_cp1251.html").read_bytes()
    moscow = _zone("+03:00")
    from_bytes = ipb2.parse_topic_page(raw, tz=moscow)
    from_text = ipb2.parse_topic_page(raw.decode("windows-1251"), tz=moscow)
    from_tree = ipb2.parse_topic_page(parse_html(raw), tz=moscow)
    assert from_bytes == from_text == from_tree
    assert from_bytes.posts[1].author == "Лиса"
