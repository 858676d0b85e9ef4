"""The request budget is a setting: the machine's (`FORUMBOT_REQUESTS_PER_MINUTE`), a game's own
(`[forum] requests_per_minute`) over it, and the HTTP core's default when neither says."""

from __future__ import annotations

import pytest

from forumbot.config import ForumConfig, Settings
from forumbot.errors import ConfigError
from forumbot.forum.http import DEFAULT_REQUESTS_PER_MINUTE, HttpSettings
from forumbot.forum.registry import client_settings

FORUM = "https://f.example/board/"


def test_the_machine_default_is_the_http_default() -> None:
    settings = Settings(_env_file=None, base_url=FORUM)
    assert settings.requests_per_minute == DEFAULT_REQUESTS_PER_MINUTE == HttpSettings().requests_per_minute
    assert client_settings(settings).http.requests_per_minute == DEFAULT_REQUESTS_PER_MINUTE


def test_the_environment_sets_the_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FORUMBOT_REQUESTS_PER_MINUTE", "45")
    settings = Settings(_env_file=None, base_url=FORUM)
    http = client_settings(settings).http
    assert http.requests_per_minute == 45 and http.burst == 45 * 15


def test_a_games_budget_wins_over_the_machines(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FORUMBOT_REQUESTS_PER_MINUTE", "45")
    settings = Settings(_env_file=None)
    game = ForumConfig(engine="phpbb", base_url=FORUM, requests_per_minute=30)
    assert client_settings(settings, game).http.requests_per_minute == 30
    assert client_settings(settings, ForumConfig(engine="phpbb", base_url=FORUM)).http.requests_per_minute == 45


def test_a_budget_below_one_is_refused_where_it_is_written(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValueError, match="requests_per_minute"):
        ForumConfig(engine="phpbb", base_url=FORUM, requests_per_minute=0)
    monkeypatch.setenv("FORUMBOT_REQUESTS_PER_MINUTE", "0")
    with pytest.raises(ValueError, match="requests_per_minute"):
        Settings(_env_file=None)
    with pytest.raises(ConfigError, match="requests_per_minute"):
        HttpSettings(requests_per_minute=0)
