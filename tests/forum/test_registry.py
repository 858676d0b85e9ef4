"""Choosing a client (`open_client`), settings from the project's config, and the saved-pages client."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest

from forumbot.config import ForumConfig, Settings
from forumbot.errors import ConfigError, ParseError
from forumbot.forum import registry
from forumbot.forum.client import ClientSettings
from forumbot.forum.http import HttpSettings
from forumbot.forum.ipb2.reader import IpbClient
from forumbot.forum.ipb3.reader import Ipb3Client
from forumbot.forum.phpbb.reader import PhpbbClient
from forumbot.forum.registry import client_settings, guess_dialect, open_client
from forumbot.forum.saved.reader import SavedPagesClient

HTTP_FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


@pytest.fixture
def saved_folder(tmp_path: Path) -> Path:
    for name in ("viewtopic_page1", "viewtopic_page2", "pm_inbox", "pm_view", "viewforum_mafia"):
        shutil.copy(HTTP_FIXTURES / "phpbb" / f"{name}.html", tmp_path / f"{name}.html")
    return tmp_path


def test_a_folder_opens_the_saved_pages_client(saved_folder: Path) -> None:
    client = open_client(ClientSettings(forum=str(saved_folder)))
    assert isinstance(client, SavedPagesClient)
    progress: list[tuple[int, int]] = []
    pages = list(client.fetch_topic(2, progress=lambda done, total: progress.append((done, total))))
    assert [page.page for page in pages] == [1, 2] and progress == [(1, 2), (2, 2)]
    assert [post.post_id for page in pages for post in page.posts] == list(range(2, 18))
    assert [pm.pm_id for pm in client.fetch_inbox()] == [3, 2, 1]
    assert client.fetch_pm(1).body_text == "Убиваем — Пётр"
    assert [file.name for file in client.skipped] == ["viewforum_mafia.html"]
    assert [page.page for page in client.fetch_topic("viewtopic.php?t=2", from_page=2)] == [2]


def test_saved_pages_say_which_topics_they_hold(saved_folder: Path) -> None:
    client = SavedPagesClient(saved_folder, dialects=registry.DIALECTS)
    with pytest.raises(ParseError, match=r"topic 9 \(topics saved: \[2\]\)"):
        list(client.fetch_topic(9))
    with pytest.raises(ParseError, match="PM 77"):
        client.fetch_pm(77)


def test_a_missing_folder_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError):
        open_client(ClientSettings(forum=str(tmp_path / "nope")))


def test_the_dialect_comes_from_the_url_or_the_setting() -> None:
    paths = ("viewtopic.php?t=5", "forum/index.php?showtopic=5", "forum/")
    guessed = [guess_dialect(f"https://f.example/{path}") for path in paths]
    assert [d.name if d else None for d in guessed] == ["phpbb", "ipb2", None]
    phpbb = open_client(ClientSettings(forum="https://f.example/board/viewforum.php?f=4"))
    ipb = open_client(ClientSettings(forum="https://f.example/forum/", dialect="ipb2"))
    assert isinstance(phpbb, PhpbbClient) and phpbb.forum == "https://f.example/board/"
    assert isinstance(ipb, IpbClient)
    assert isinstance(open_client(ClientSettings(forum="https://f.example/forum/", dialect="ipb3")), Ipb3Client)


def test_auto_dialect_probes_the_index_page_once() -> None:
    seen: list[str] = []

    def index(request: httpx.Request) -> httpx.Response:
        seen.append(str(request.url))
        return httpx.Response(200, html='<a href="./index.php?showforum=3">Игры</a><script>var ipb_var_x</script>')

    settings = ClientSettings(forum="http://ipb.test/forum", http=HttpSettings(min_interval=0))
    client = open_client(settings, transport=httpx.MockTransport(index))
    assert isinstance(client, IpbClient) and seen == ["http://ipb.test/forum/"]


def test_client_settings_from_the_project_config() -> None:
    account = Settings(
        _env_file=None,
        username="host_bot",
        password="s3cret",
        base_url="https://fallback.example/",
        concurrency=2,
        min_interval=1.5,
        timeout=9,
    )
    settings = client_settings(account, ForumConfig(engine="phpbb", base_url="https://f.example/board/"))
    assert settings.forum == "https://f.example/board/" and settings.dialect == "phpbb"
    assert settings.password == "s3cret" and "s3cret" not in repr(settings)
    assert settings.http.concurrency == 2 and settings.http.min_interval == 1.5 and settings.http.timeout == 9
    assert client_settings(account).forum == "https://fallback.example/"
    saved = client_settings(account, ForumConfig(engine="saved", saved_pages=Path("/tmp/pages")))
    assert saved.dialect == "saved" and saved.forum == "/tmp/pages"
    with pytest.raises(ConfigError, match="FORUMBOT_BASE_URL"):
        client_settings(Settings(_env_file=None))
    assert settings.tz is None  # phpBB's post times are UTC in the markup
    moscow = ForumConfig(engine="phpbb", base_url="https://f.example/", timezone="Europe/Moscow")
    assert client_settings(account, moscow).tz == "Europe/Moscow"  # the account's zone for PM dates
    with pytest.raises(ValueError, match="unknown time zone 'Mars/Olympus'"):
        ForumConfig(engine="phpbb", timezone="Mars/Olympus")


def test_saved_pages_now_resolves_relative_dates(tmp_path: Path) -> None:
    for name in ("topic_page1", "topic_page2"):
        shutil.copy(HTTP_FIXTURES / "ipb" / f"{name}_cp1251.html", tmp_path / f"{name}.html")
    client = open_client(ClientSettings(forum=str(tmp_path), now=datetime(2026, 11, 29, 18, 10, tzinfo=UTC)))
    posts = [post for page in client.fetch_topic(15821) for post in page.posts]
    assert [post.post_id for post in posts] == list(range(301, 316))
