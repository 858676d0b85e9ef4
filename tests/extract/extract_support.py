"""Builders for the extract tests: real post bodies from fixtures/extract, a post in a line."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from forumbot.posts import Post

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "extract"
MSK = timezone(timedelta(hours=3))
NOON = datetime(2026, 11, 29, 12, 0, tzinfo=MSK)

PHPBB_PLAYERS = (
    "Alice",
    "Bob Smith",
    "Пётр",
    "Кот_Матроскин",
    "Дядя Фёдор",
    "Шарик",
    "Mr. Pink",
    "Charlie",
    "Ёжик в тумане",
    "Dana_99",
)
IPB_PLAYERS = ("Лиса", "Кот Матроскин", "Шарик", "Печкин", "Дядя Фёдор", "Winnie", "Галчонок", "Мурка")


def load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / name).read_text(encoding="utf-8"))
    return data


PHPBB = load("phpbb_topic.json")
IPB = load("ipb_topic.json")


def phpbb_post(post_id: int) -> dict[str, Any]:
    return next(p for p in PHPBB["posts"] if p["post_id"] == post_id)


def ipb_post(post_id: int) -> dict[str, Any]:
    return next(p for p in IPB["posts"] if p["post_id"] == post_id)


def phpbb_posts() -> list[Post]:
    return [
        Post(
            post_id=p["post_id"],
            topic_id=2,
            author=p["author"],
            author_id=None,
            time=datetime.fromisoformat(p["time"]),
            content_html=p["content_html"],
            edited=p["edited"],
            edited_by=p["edited_by"],
            permalink=p["permalink"],
        )
        for p in PHPBB["posts"]
    ]


def ipb_posts() -> list[Post]:
    out = []
    for p in IPB["posts"]:
        line = p["edited_line"]  # "Сообщение отредактировал Winnie - Сегодня, 12:03"
        edited_by = line.removeprefix("Сообщение отредактировал ").split(" - ")[0] if line else None
        out.append(
            Post(
                post_id=p["post_id"],
                topic_id=15821,
                author=p["author"],
                author_id=None,
                time=datetime.fromisoformat(p["time"]),
                content_html=p["content_html"],
                edited=line is not None,
                edited_by=edited_by,
                permalink=p["permalink"],
            )
        )
    return out


def make_post(
    html: str,
    *,
    author: str = "Alice",
    post_id: int = 1,
    time: datetime = NOON,
    edited: bool = False,
    edited_by: str | None = None,
) -> Post:
    return Post(
        post_id=post_id,
        topic_id=1,
        author=author,
        author_id=None,
        time=time,
        content_html=html,
        edited=edited,
        edited_by=edited_by,
        permalink=f"./viewtopic.php?p={post_id}#p{post_id}",
    )


def phpbb_vote(nick: str, color: str = "red") -> str:
    """A vote as phpBB 3.3 renders ``[color=X][b]nick[/b][/color]``."""
    strong = f'<strong class="text-strong">{nick}</strong>'
    return f'<div class="content"><span style="color:{color}">{strong}</span></div>'
