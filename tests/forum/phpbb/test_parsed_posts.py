"""A post the phpBB parser makes without validation (`Post.parsed`) is the post validation makes of the same
values: the same fields in the same order, of the same types, the same given names; and `Post.parsed` refuses
what validation refuses."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from forumbot.errors import ParseError
from forumbot.forum.phpbb.pages import parse_topic_page
from forumbot.posts import Post

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures"
PAGES = sorted(
    [*FIXTURES.glob("phpbb/*viewtopic*.html"), *FIXTURES.glob("phpbb-ru/*.html"), *FIXTURES.glob("demo/pages/*")]
)
MSK = timezone(timedelta(hours=3))


def validated(post: Post) -> Post:
    return Post(**{name: getattr(post, name) for name in post.model_fields_set})


def test_every_captured_phpbb_post_is_what_validation_makes() -> None:
    read = 0
    for path in PAGES:
        try:
            page = parse_topic_page(path.read_bytes(), tz=MSK, now=datetime(2026, 12, 1, 12, tzinfo=UTC))
        except ParseError:  # not a topic page
            continue
        for post in page.posts:
            read += 1
            again = validated(post)
            assert post == again
            assert list(post.__dict__.items()) == list(again.__dict__.items())
            assert [type(v) for v in post.__dict__.values()] == [type(v) for v in again.__dict__.values()]
            assert post.model_fields_set == again.model_fields_set
            assert (post.__pydantic_extra__, post.__pydantic_private__) == (again.__pydantic_extra__, None)
    assert read >= 50


VALUES: dict[str, Any] = {
    "post_id": 5,
    "topic_id": 2,
    "author": "Вера",
    "author_id": 64,
    "time": datetime(2026, 11, 29, 12, tzinfo=UTC),
    "content_html": "<div class=\"content\">Голосую</div>",
    "permalink": "./viewtopic.php?p=5#p5",
    "page": 1,
    "visibility": "public",
}


def test_a_parsed_post_holds_what_a_validated_one_does() -> None:
    for extra in ({}, {"edited": True, "edit_reason": "опечатка"}):
        fast, slow = Post.parsed(**VALUES, **extra), Post(**VALUES, **extra)
        assert list(fast.__dict__.items()) == list(slow.__dict__.items())
        assert fast.model_fields_set == slow.model_fields_set
        assert fast.model_dump_json() == slow.model_dump_json()
        with pytest.raises(ValidationError):  # frozen as a validated one is
            fast.author = "Кот"  # type: ignore[misc]


@pytest.mark.parametrize(
    "values",
    [{**VALUES, "nickname": "x"}, {key: value for key, value in VALUES.items() if key != "author"}],
    ids=["a name that is no field", "a field missing"],
)
def test_a_parsed_post_refuses_what_validation_refuses(values: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        Post.parsed(**values)
