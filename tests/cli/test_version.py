"""`forumbot --version`."""

from __future__ import annotations

from typer.testing import CliRunner

from forumbot.cli import app


def test_the_version_is_printed() -> None:
    from forumbot import __version__

    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0 and result.stdout.strip() == f"forumbot {__version__}"
