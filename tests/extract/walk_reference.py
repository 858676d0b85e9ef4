"""The fragment walk as two layers, the reference the extraction's one-loop walk (`forumbot.extract.votes._runs_of`)
is compared with: a walk of a body's text in document order with its context (`_walk`), handing each text and
break to a collector of the runs of one style (`_Runs`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from lxml import etree

from forumbot.extract.votes import (
    _BREAK,
    _HTML_SPACE,
    _HTML_SPACE_CHARS,
    _ROOT,
    Fragment,
    _Ctx,
    _enter,
    _tag_kind,
)


class _Runs:
    """Collects text runs of one style into fragments while the tree is walked.

    Whitespace between two pieces of the same style does not end a run when it is itself red or bold
    (``[color=red][b]Дядя[/b] [b]Фёдор[/b][/color]`` reads as one nick); plain whitespace does
    (two separately marked nicks stay two fragments).
    """

    def __init__(self) -> None:
        self.fragments: list[Fragment] = []
        self._ctx: _Ctx | None = None
        self._parts: list[str] = []
        self._space = False

    def text(self, text: str, ctx: _Ctx) -> None:
        if not text.strip(_HTML_SPACE_CHARS):
            self._whitespace(ctx)
            return
        if self._ctx is not None and ctx == self._ctx:
            if self._space:
                self._parts.append(" ")
            self._parts.append(text)
        else:
            self.close()
            if ctx.red or ctx.bold:
                self._ctx, self._parts = ctx, [text]
        self._space = False

    def _whitespace(self, ctx: _Ctx) -> None:
        run = self._ctx
        if run is not None and (ctx.red or ctx.bold) and (ctx.quoted, ctx.spoiler) == (run.quoted, run.spoiler):
            self._space = True
        else:
            self.close()

    def close(self) -> None:
        c = self._ctx
        if c is None:  # the common case at a break: no run open
            return
        text = _HTML_SPACE.sub(" ", "".join(self._parts)).strip(" ")
        if text:
            self.fragments.append(Fragment(text, c.red, c.bold, c.color, c.quoted, c.spoiler))
        self._ctx, self._parts, self._space = None, [], False


def _walk(root: etree._Element, on_text: Callable[[str, _Ctx], None], on_break: Callable[[], None]) -> None:
    """Visit the text of `root` in document order with its context: one pass, no recursion.

    An element opens (a break if it is a block, then its text), its children follow, it closes (a break
    again), then comes its tail, in its parent's context. A leaf is done at once; an element with children
    keeps a level on the stack (its children still to visit) until they are done."""
    opened = _enter(root, _ROOT)
    if opened is None:
        return
    levels: list[tuple[Iterator[etree._Element], _Ctx, bool, etree._Element]] = []
    element: etree._Element | None = root
    while element is not None:
        breaks = bool(_tag_kind(element.tag) & _BREAK)  # a str: `_enter` refuses comments and instructions
        if breaks:
            on_break()
        if element.text:
            on_text(element.text, opened)
        levels.append((iter(element), opened, breaks, element))
        element = None
        while levels and element is None:
            children, ctx, breaks, owner = levels[-1]
            for child in children:
                inner = _enter(child, ctx)
                if inner is not None and len(child):
                    element, opened = child, inner  # opened by the outer loop
                    break
                if inner is not None:  # a leaf: open and close it here
                    leaf_breaks = _tag_kind(child.tag) & _BREAK
                    if leaf_breaks:
                        on_break()
                    if child.text:
                        on_text(child.text, inner)
                    if leaf_breaks:
                        on_break()
                if child.tail:
                    on_text(child.tail, ctx)
            else:
                levels.pop()
                if breaks:
                    on_break()
                if levels and owner.tail:  # the root's tail is not the body's
                    on_text(owner.tail, levels[-1][1])


def _reference_fragments(root: etree._Element) -> list[Fragment]:
    """The fragments of a body as the two layers read them: `_walk` handing its text to `_Runs`."""
    runs = _Runs()
    _walk(root, runs.text, runs.close)
    runs.close()
    return runs.fragments
