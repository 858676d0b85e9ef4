"""Progress bars on stderr while pages are fetched or messages sent; none when stderr is not a terminal (a
cron job's log, a test), so piped output stays clean."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from forumbot.cli.common import err

ProgressCallback = Callable[[int, int | None], None]


@contextmanager
def page_progress(what: str) -> Iterator[ProgressCallback | None]:
    """A callback `(done, total)` that moves a bar labelled `what`, or None when no bar is shown."""
    if not err.is_terminal:
        yield None
        return
    from rich.progress import Progress

    with Progress(console=err, transient=True) as bar:
        task = bar.add_task(what, total=None)
        yield lambda done, total: bar.update(task, completed=done, total=total)
