"""The stand-ins `forumbot.cli.startup` puts in place of modules typer's help only names hand every real use
over to the real module, in a fresh interpreter each (they live in `sys.modules`)."""

from __future__ import annotations

import subprocess
import sys

import pytest

PROBES = {
    "a class made": "from rich.markdown import Markdown\nprint(type(Markdown('# x')).__module__)",
    "a class asked": "from rich.traceback import Traceback\nprint(Traceback.from_exception.__qualname__)",
    "another name": "import rich.markdown\nprint(rich.markdown.Heading.__module__)",
    "the real module after": "import rich.markdown\nrich.markdown.Heading\nimport sys\n"
    "print(type(sys.modules['rich.markdown']).__name__)",
}
EXPECTED = {
    "a class made": "rich.markdown",
    "a class asked": "Traceback.from_exception",
    "another name": "rich.markdown",
    "the real module after": "module",
}


@pytest.mark.parametrize("case", sorted(PROBES))
def test_a_stand_in_hands_over_to_the_real_module(case: str) -> None:
    code = "import forumbot.cli\nimport sys\nassert type(sys.modules['rich.markdown']).__name__ == '_OnDemand'\n"
    done = subprocess.run(
        [sys.executable, "-c", code + PROBES[case]], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.strip().splitlines()[-1] == EXPECTED[case]
