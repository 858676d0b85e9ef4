"""Progress bars on stderr while pages are fetched or messages sent; none when stderr is not a terminal (a
cron job's log, a test), so piped output stays clean."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING

from forumbot.cli.common import err
from forumbot.i18n import _, ngettext

if TYPE_CHECKING:
    from forumbot.forum.poster import LockResult, Poster

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


class TickingPoster:
    """A poster that moves a bar on stderr with each thing it writes, and counts them for the summary
    (`summary()`); everything else is the wrapped poster's own. Sends only: looking for a marker is not one."""

    def __init__(self, poster: Poster, tick: Callable[[str], None] | None = None) -> None:
        self.poster = poster
        self.tick = tick or (lambda kind: None)
        self.counts: dict[str, int] = {}

    @property
    def username(self) -> str:
        return self.poster.username

    def _done(self, kind: str) -> None:
        self.counts[kind] = self.counts.get(kind, 0) + 1
        self.tick(kind)

    def post_topic(self, forum_id: int, subject: str, message: str, *, marker: str | None = None) -> int:
        made = self.poster.post_topic(forum_id, subject, message, marker=marker)
        self._done("topic")
        return made

    def post_reply(self, topic: int | str, subject: str, message: str, *, marker: str | None = None) -> int:
        made = self.poster.post_reply(topic, subject, message, marker=marker)
        self._done("reply")
        return made

    def post_reply_if_current(self, topic: int | str, subject: str, message: str, *, marker: str | None = None) -> int:
        """A reply made from the topic as read, posted only while it is current where the wrapped poster
        can tell (`CurrentReplies`), else posted."""
        from forumbot.forum.poster import CurrentReplies

        if isinstance(self.poster, CurrentReplies):
            made = self.poster.post_reply_if_current(topic, subject, message, marker=marker)
        else:
            made = self.poster.post_reply(topic, subject, message, marker=marker)
        self._done("reply")
        return made

    def lock_topic(self, topic_id: int, forum_id: int | None = None) -> LockResult:
        made = self.poster.lock_topic(topic_id, forum_id)
        self._done("lock")
        return made

    def send_pm(
        self, recipients: Sequence[str], subject: str, message: str, *, marker: str | None = None
    ) -> int | None:
        made = self.poster.send_pm(recipients, subject, message, marker=marker)
        self._done("PM")
        return made

    def prepare_pms(self, upcoming: Sequence[Sequence[str]]) -> None:
        """Address the forms of the PMs to come, when the wrapped poster can (nothing is sent: no tick)."""
        from forumbot.host.outbox import Preparing

        if isinstance(self.poster, Preparing):
            self.poster.prepare_pms(upcoming)

    def find_marker_in_forum(self, forum_id: int, subject: str, marker: str) -> int | None:
        return self.poster.find_marker_in_forum(forum_id, subject, marker)

    def find_marker_in_topic(self, topic_id: int, marker: str) -> int | None:
        return self.poster.find_marker_in_topic(topic_id, marker)

    def find_marker_in_sent(
        self, marker: str, *, subject: str | None = None, recipients: Sequence[str] = ()
    ) -> int | None:
        return self.poster.find_marker_in_sent(marker, subject=subject, recipients=recipients)

    def summary(self) -> str:
        """ "sent now: 1 topic, 12 PMs, 1 lock" (or "nothing sent now")."""
        if not self.counts:
            return _("nothing sent now")
        sent = ", ".join(COUNTED[kind](n).format(n=n) for kind, n in self.counts.items())
        return _("sent now: {what}").format(what=sent)


# What a poster sends, counted, in the form the number wants.
COUNTED: dict[str, Callable[[int], str]] = {
    "topic": lambda n: ngettext("{n} topic", "{n} topics", n),
    "reply": lambda n: ngettext("{n} reply", "{n} replies", n),
    "lock": lambda n: ngettext("{n} lock", "{n} locks", n),
    "PM": lambda n: ngettext("{n} PM", "{n} PMs", n),
}


@contextmanager
def sending(poster: Poster) -> Iterator[TickingPoster]:
    """The poster wrapped so that each send moves a bar (on a terminal) and is counted."""
    if not err.is_terminal:
        yield TickingPoster(poster)
        return
    from rich.progress import Progress, SpinnerColumn, TextColumn

    with Progress(SpinnerColumn(), TextColumn("{task.description}"), console=err, transient=True) as bar:
        task = bar.add_task(_("sending"), total=None)
        ticking = TickingPoster(poster)
        ticking.tick = lambda kind: bar.update(task, description=ticking.summary())
        yield ticking
