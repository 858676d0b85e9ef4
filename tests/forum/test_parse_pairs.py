"""Fixture pairs: every `fixtures/{phpbb,ipb,ipb3}/<page>.html` beside a `<page>.json` of its expected
parse, one test per page. The JSON says which parser applies ("parse"), what `saved.detect_page`
must answer ("detect"), the URL, zone and "now" to pass, and the expected values."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone, tzinfo
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from forumbot.errors import ParseError
from forumbot.forum import ipb, phpbb, saved
from forumbot.forum.markup import parse_html, text_of
from forumbot.forum.models import PmSummary, Post, PrivateMessage, TopicPage

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
PAIRS = sorted(p for d in ("phpbb", "ipb", "ipb3") for p in (FIXTURES / d).glob("*.json"))
POST_FIELDS = ("author", "author_id", "edited", "edited_by", "edited_at", "edit_count", "edit_reason")
POST_FIELDS += ("permalink", "page")


def _zone(spec: str | None) -> tzinfo:
    if not spec:
        return UTC
    sign = -1 if spec.startswith("-") else 1
    hours, minutes = spec.lstrip("+-").split(":")
    return timezone(sign * timedelta(hours=int(hours), minutes=int(minutes)))


def _engine(case: dict[str, Any]) -> ModuleType:
    return phpbb if case["detect"][0] == "phpbb" else ipb


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment is not None else None


def _check_post(post: Post, want: dict[str, Any]) -> None:
    assert post.post_id == want["id"]
    got = {name: getattr(post, name) for name in POST_FIELDS}
    assert got == {name: want[name] for name in POST_FIELDS}, f"post {want['id']}"
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
        "time_text": row.time_text,
        "unread": row.unread,
        "url": row.url,
    }


def _message(pm: PrivateMessage) -> dict[str, Any]:
    return {
        "id": pm.pm_id,
        "sender": pm.sender,
        "sender_id": pm.sender_id,
        "time": _iso(pm.time),
        "time_text": pm.time_text,
        "subject": pm.subject,
        "body_text": pm.body_text,
    }


def _run(case: dict[str, Any], html: bytes) -> None:
    engine, want, url = _engine(case), case["expect"], case.get("url")
    tz, now = _zone(case.get("tz")), case.get("now") and datetime.fromisoformat(case["now"])
    kind = case["parse"]
    if kind == "topic_page":
        _check_topic(engine.parse_topic_page(html, url, tz=tz, now=now), want)
    elif kind == "pm_inbox":
        rows, next_url = engine.parse_pm_inbox(html, url, tz=tz, now=now)
        assert [_row(r) for r in rows] == want["rows"]
        assert next_url == want["next_url"]
    elif kind == "pm":
        assert _message(engine.parse_pm(html, url, tz, now=now)) == want
    elif kind == "login_form":
        assert engine.parse_login_form(html) == want
    elif kind == "posting_form":
        assert engine.parse_posting_form(html) == want
    elif kind == "not_a_topic":
        with pytest.raises(ParseError) as caught:
            engine.parse_topic_page(html, url, tz=tz, now=now)
        for piece in want["error_contains"]:
            assert piece in str(caught.value)
    else:
        raise AssertionError(f"unknown parse kind {kind!r}")


@pytest.mark.parametrize("pair", PAIRS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_fixture_page(pair: Path) -> None:
    case = json.loads(pair.read_text(encoding="utf-8"))
    html = pair.with_suffix(".html").read_bytes()
    assert tuple(case["detect"]) == saved.detect_page(html)
    assert _engine(case).detect(html)
    if "login_wall" in case:
        assert _engine(case).is_login_wall(html) is case["login_wall"]
        assert _engine(case).is_no_permission(html) is case["no_permission"]
    _run(case, html)


def test_every_fixture_page_has_its_pair() -> None:
    pages = sorted(p for d in ("phpbb", "ipb", "ipb3") for p in (FIXTURES / d).glob("*.html"))
    assert [p.with_suffix(".json") for p in pages] == PAIRS
    assert len(PAIRS) >= 30


def test_text_and_bytes_and_tree_parse_alike() -> None:
    raw = (FIXTURES / "ipb" / "topic_page1_cp1251.html").read_bytes()
    moscow = _zone("+03:00")
    from_bytes = ipb.parse_topic_page(raw, tz=moscow)
    from_text = ipb.parse_topic_page(raw.decode("windows-1251"), tz=moscow)
    from_tree = ipb.parse_topic_page(parse_html(raw), tz=moscow)
    assert from_bytes == from_text == from_tree
    assert from_bytes.posts[1].author == "Лиса"
