"""Vote records are made without validation (`votes._made`): each is the record validation makes of the same
values (the same fields in the same order, of the same types, every field given), and a voided one is what
`model_copy` makes; on the votes of every captured topic page."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from forumbot.errors import ParseError
from forumbot.extract import Roster, VoteRecord, VoteSettings, extract_votes
from forumbot.extract.votes import _superseded
from forumbot.forum.phpbb.pages import parse_topic_page

from .test_bodies_read_from_the_page import IPB, PAGES, parse_invision


def records() -> list[VoteRecord]:
    made: list[VoteRecord] = []
    for path in PAGES:
        try:
            page = (parse_invision if path in IPB else parse_topic_page)(path.read_bytes())
        except ParseError:  # not a topic page
            continue
        authors = sorted({post.author.strip() for post in page.posts if post.author.strip()})
        for votes_per_post in (1, 2):
            settings = VoteSettings(Roster(authors), mode="lenient", votes_per_post=votes_per_post)
            made += extract_votes(page.posts, settings)
    return made


def test_every_record_is_what_validation_makes() -> None:
    made = records()
    assert len(made) >= 50 and any(r.reason == "superseded" for r in made) and any(r.counted for r in made)
    for record in made:
        again = VoteRecord(**record.__dict__)
        assert record == again
        assert list(record.__dict__.items()) == list(again.__dict__.items())
        assert [type(v) for v in record.__dict__.values()] == [type(v) for v in again.__dict__.values()]
        assert record.model_fields_set == set(VoteRecord.model_fields)
        assert (record.__pydantic_extra__, record.__pydantic_private__) == (None, None)
        with pytest.raises(ValidationError):  # frozen as a validated one is
            record.counted = True  # type: ignore[misc]


def test_a_voided_record_is_the_copy_model_copy_makes() -> None:
    for record in records()[:40]:
        void, copied = _superseded(record), record.model_copy(update={"counted": False, "reason": "superseded"})
        assert list(void.__dict__.items()) == list(copied.__dict__.items())
        assert void.model_fields_set == copied.model_fields_set
        assert record.counted == (record.reason is None)  # the original is left as it was
