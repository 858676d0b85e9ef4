"""The preview page in a real browser: headless Chromium opens it from a file:// URL, the rendered post and
the vote chart are in its DOM, and a screenshot is saved to out/screenshots/preview.png (out/ is ignored
by git) for a human to look at.

`make test` installs Debian's `chromium` where it is missing and it can (root, apt); elsewhere this test
is skipped, and says so in the warnings summary.
"""

from __future__ import annotations

import shutil
import struct
import subprocess
import warnings
import zlib
from pathlib import Path

import pytest
from lxml import html as lxml_html
from typer.testing import CliRunner

from forumbot.cli import app

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "fixtures" / "demo"
SCREENSHOT = ROOT / "out" / "screenshots" / "preview.png"
GAME = "Демо-мафия"
NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--hide-scrollbars",
)
SIZE = (1280, 2200)


@pytest.fixture(scope="module")
def chromium() -> str:
    for name in NAMES:
        found = shutil.which(name)
        if found:
            return found
    reason = (
        "headless Chromium not found (Debian package `chromium`; `make test` installs it when run as root "
        "with apt): the browser test is skipped"
    )
    warnings.warn(reason, stacklevel=1)
    pytest.skip(reason)


@pytest.fixture(scope="module")
def preview(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("browser")
    state = str(out / "state.db")
    runner = CliRunner()
    for args in (
        ["new-game", str(DEMO / "game.toml")],
        ["deal", GAME, "--seed", "20261129", "--topic", "1", "--now", "2026-11-29T10:00:00+03:00"],
        ["end-day", GAME, "--json"],
        ["draft", "html", GAME, str(out / "preview.html")],
    ):
        result = runner.invoke(app, [*args, "--state", state])
        assert result.exit_code == 0, result.output
    return out / "preview.html"


def run(chromium: str, profile: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [chromium, *FLAGS, f"--user-data-dir={profile}", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_chromium_shows_the_post_and_the_chart(chromium: str, preview: Path, tmp_path: Path) -> None:
    done = run(chromium, tmp_path / "profile", "--dump-dom", preview.as_uri())
    assert done.returncode == 0, done.stderr[-2000:]
    dom = lxml_html.document_fromstring(done.stdout)
    post = dom.get_element_by_id("post")
    assert "Демо-мафия. День 2" in post.text_content()
    assert post.xpath('.//strong[text()="казнь!"]')
    chart = dom.get_element_by_id("vote-chart")
    assert chart.tag == "svg" and len(chart.xpath(".//*[@data-voter]")) == 19
    assert dom.get_element_by_id("audit-votes") is not None


def test_chromium_screenshot_of_the_preview(chromium: str, preview: Path, tmp_path: Path) -> None:
    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    SCREENSHOT.unlink(missing_ok=True)
    done = run(
        chromium,
        tmp_path / "profile",
        f"--screenshot={SCREENSHOT}",
        f"--window-size={SIZE[0]},{SIZE[1]}",
        preview.as_uri(),
    )
    assert done.returncode == 0, done.stderr[-2000:]
    data = SCREENSHOT.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert (width, height) == SIZE
    assert len(set(_pixels(data)[: width * 4 * 600])) > 50  # not a blank page: the top shows text and colour


def _pixels(png: bytes) -> bytes:
    """The PNG's raw scanlines (filter bytes included): enough to tell a drawn page from a blank one."""
    chunks: list[bytes] = []
    pos = 8
    while pos < len(png):
        length, kind = struct.unpack(">I4s", png[pos : pos + 8])
        if kind == b"IDAT":
            chunks.append(png[pos + 8 : pos + 8 + length])
        pos += 12 + length
    return zlib.decompress(b"".join(chunks))
