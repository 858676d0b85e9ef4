"""Votes in a day thread: red bold nicks outside quotes (docs/votes-and-orders.md, "A vote in the day thread").

Two layers:

- `find_fragments` walks a post body once and returns every text run that is red and/or bold, with where
  it sits (inside a quote, inside a spoiler). It knows markup, not rules.
- `extract_post_votes` / `extract_votes` apply the rules to those fragments and return one `VoteRecord`
  per fragment a careful host would look at, counted or not and why; `to_engine_votes` turns the counted
  ones into the engine's `Vote` values.

Markup facts this relies on (the captured pages in fixtures/phpbb/ and fixtures/ipb/, docs/real-boards.md):

- phpBB: ``[b]`` -> ``<strong class="text-strong">``, ``[color=X]`` -> ``<span style="color:X">`` with X
  as typed; quotes are ``<blockquote>``; the edit notice is ``div.notice`` (normally outside the body).
- IPB 2: ``[b]`` -> ``<b>``, ``[color=X]`` -> ``<!--coloro:X--><span style="color:X"><!--/coloro-->``;
  quotes are ``div.quotetop`` + ``div.quotemain``; the edit line ``span.edit`` and ``div.post-edit-reason``
  sit inside the body; the IBResource spoiler is a black-on-black span.
- IPB 3: quotes are ``blockquote.ipsBlockquote``, spoilers ``div.bbc_spoiler``.

Only the CSS the page carries decides the colour: IPB 2.2 turns ``[color=rgb(255,0,0)]`` into
``color:rgb25500``, which no browser shows red, so it is not red here either.

Precedence of reasons, when several apply to one fragment (the first one wins):

1. fragment-level, about the fragment itself: ``quoted``, ``spoiler``, ``not_red``, ``not_bold``,
   ``unknown_nick``, ``dead_target``;
2. post-level, about the post that carries an otherwise valid fragment: ``unapproved`` and ``deleted``
   (a post only moderators see: waiting for approval, or soft-deleted; the bot's account is often a
   moderator, the players are not), ``not_player``, ``dead_voter``, ``before_start``,
   ``after_deadline``, ``edited`` (or ``changed``: edited without the forum printing a notice, seen
   because the body differs from an earlier read) (who can see it first, then who votes, then when,
   then whether the text can be trusted);
3. ``superseded``: a valid fragment replaced by a later one in the same post, or a counted vote replaced
   by the same voter's later counted vote.

So a quoted red bold nick in a ghost's edited post reads ``quoted``, and an edited post's valid fragments
all read ``edited`` (none of them is ``superseded``: none of them would have counted).
"""

from __future__ import annotations

import functools
import hashlib
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal, NamedTuple, TypeAlias

from lxml import etree
from lxml import html as lxml_html
from pydantic import BaseModel, ConfigDict

from forumbot.engine.model import Vote
from forumbot.extract.names import Match, MatchMode, Roster, split_targets
from forumbot.posts import Post

VoteReason = Literal[
    "quoted",
    "spoiler",
    "not_red",
    "not_bold",
    "unknown_nick",
    "dead_target",
    "unapproved",
    "deleted",
    "not_player",
    "dead_voter",
    "before_start",
    "after_deadline",
    "edited",
    "changed",
    "superseded",
    "ignored",
]
EditedVotes = Literal["ignore", "count"]


@dataclass(frozen=True)
class VoteSettings:
    """Everything besides the posts that decides a day's vote records, gathered once (from the game's state and
    rules: `host.games`; from a count's rules: `host.tally`) and handed to extraction whole: who plays (dead
    players are named but cannot vote), the day's bounds, how nicks are matched, whether an edited vote counts,
    how many targets one post names, and whose posts are no votes (the bot's own)."""

    roster: Roster
    dead: frozenset[str] = frozenset()
    start: datetime | None = None
    deadline: datetime | None = None
    mode: MatchMode = "strict"
    edited_votes: EditedVotes = "ignore"
    votes_per_post: int = 1
    skip_authors: tuple[str, ...] = ()
    # The host's decisions on posts (`override --count-post / --ignore-post`): a post counted is read as if
    # nothing about the post itself voided it (edited, late, hidden); a post ignored is void ("ignored"). Its
    # fragments are read as ever, and the voter's latest valid vote stands, as for any void or valid post.
    counted_posts: frozenset[int] = frozenset()
    ignored_posts: frozenset[int] = frozenset()


# ---------------------------------------------------------------------------------------------------
# Markup: colours, weights, quotes, spoilers
# ---------------------------------------------------------------------------------------------------

_RED_NAMES = frozenset({"red", "#f00", "#ff0000"})
_RGB_RED = re.compile(r"rgb\(\s*255\s*,\s*0\s*,\s*0\s*\)")
_IMPORTANT = re.compile(r"\s*!\s*important\s*$", re.IGNORECASE)
_INHERITED = frozenset({"inherit", "currentcolor", "unset", "revert"})
_BLACK = re.compile(r"(?<![0-9a-f])#000(?:000)?(?![0-9a-f])|\bblack\b|rgb\(0,0,0\)")

# Elements whose content is not post text at all: edit notices (IPB 2 keeps them inside the body),
# phpBB's notice and signature blocks in case a caller passes the whole post, scripts.
_SKIP_CLASSES = frozenset({"edit", "post-edit-reason", "notice", "signature", "sig"})
_SKIP_TAGS = frozenset({"script", "style", "template", "noscript", "head", "title"})
_QUOTE_TAGS = frozenset({"blockquote", "q"})
# IPB 2: quotetop/quotemain; IPB 3.0-3.3: p.citation + div.blockquote > div.quote; IPB 3.4: ipsBlockquote.
_QUOTE_CLASSES = frozenset(
    {"quotemain", "quotetop", "quote", "quotecontent", "blockquote", "citation", "ipsblockquote", "bbc_quote"}
)
_BOLD_TAGS = frozenset({"b", "strong"})
# Boundaries no nick runs across: a line break or a block starts a new fragment.
_BREAK_TAGS = frozenset(
    {
        "br", "hr", "img", "div", "p", "li", "ul", "ol", "dl", "dt", "dd", "table", "tr", "td", "th",
        "blockquote", "pre", "h1", "h2", "h3", "h4", "h5", "h6", "cite", "details", "summary",
    }
)  # fmt: skip
_HTML_SPACE_CHARS = " \t\n\r\f"
_HTML_SPACE = re.compile(f"[{_HTML_SPACE_CHARS}]+")


def is_red(color: str) -> bool:
    """Exactly red (docs/votes-and-orders.md): ``red``, ``#f00``, ``#ff0000``, ``rgb(255,0,0)``; any case,
    any spaces."""
    value = _IMPORTANT.sub("", color).strip().lower()
    return value in _RED_NAMES or _RGB_RED.fullmatch(value) is not None


def _weight_is_bold(value: str) -> bool | None:
    """True for bold|bolder|700+, False for normal|lighter|<700, None when it says nothing (inherit)."""
    value = _IMPORTANT.sub("", value).strip().lower()
    if value in ("bold", "bolder"):
        return True
    if value in ("normal", "lighter"):
        return False
    if value.isdigit():
        return int(value) >= 700
    return None


class _Ctx(NamedTuple):
    """What applies to text at one point of the tree (CSS inheritance, in effect)."""

    color: str | None
    red: bool
    bold: bool
    quoted: bool
    spoiler: bool


_ROOT = _Ctx(None, False, False, False, False)


def _apply_style(style: str, ctx: _Ctx) -> _Ctx:
    color, weight, hidden = _style_effects(style)
    if color is None and weight is None and not hidden:
        return ctx
    color = ctx.color if color is None else color
    red = _is_red_cached(color) if color is not None else False
    return _Ctx(color, red, ctx.bold if weight is None else weight, ctx.quoted, ctx.spoiler or hidden)


@functools.lru_cache(maxsize=4096)
def _style_effects(style: str) -> tuple[str | None, bool | None, bool]:
    """What a style attribute does to the text inside it, whatever the context: its colour (None: it keeps
    the inherited one), its weight (None: inherited) and whether it hides the text. Posts repeat a few
    styles over and over, so each is read once."""
    color: str | None = None
    bold: bool | None = None
    spoiler = False
    for declaration in style.split(";"):
        name, sep, value = declaration.partition(":")
        if not sep:
            continue
        name = name.strip().lower()
        if name == "color":  # only the text colour: glow (filter) and text-shadow never make text red
            value = value.strip()
            color = color if value.lower() in _INHERITED else value
        elif name == "font-weight":
            weight = _weight_is_bold(value)
            bold = bold if weight is None else weight
        elif name in ("background", "background-color"):
            # The IBResource IPB 2 spoiler is black on black: hidden text is never a vote.
            spoiler = spoiler or _BLACK.search(re.sub(r"\s+", "", value.lower())) is not None
    return color, bold, spoiler


_is_red_cached = functools.lru_cache(maxsize=1024)(is_red)


def _class_tokens(el: etree._Element) -> frozenset[str]:
    classes = el.get("class")
    return frozenset(classes.lower().split()) if classes else frozenset()


def is_quote(el: etree._Element) -> bool:
    """A quote block of phpBB (``blockquote``), IPB 2 (``div.quotetop``/``div.quotemain``) or IPB 3."""
    tag = el.tag
    if not isinstance(tag, str):
        return False
    return tag.lower() in _QUOTE_TAGS or bool(_class_tokens(el) & _QUOTE_CLASSES)


def is_not_text(el: etree._Element) -> bool:
    """An element whose content is not the author's text: edit notices, signatures, scripts."""
    tag = el.tag
    if not isinstance(tag, str):
        return True
    return tag.lower() in _SKIP_TAGS or bool(_class_tokens(el) & _SKIP_CLASSES)


def _enter(el: etree._Element, ctx: _Ctx) -> _Ctx | None:
    """The context inside `el`, or None when its content is not post text."""
    tag = el.tag
    if not isinstance(tag, str):  # comment or processing instruction: IPB's <!--coloro:red--> markers
        return None
    kind = _tag_kind(tag)
    if kind & _SKIP:
        return None
    return _context(kind, el.get("class"), el.get("color") if kind & _FONT else None, el.get("style"), ctx)


def _context(kind: int, classes: str | None, color: str | None, style: str | None, ctx: _Ctx) -> _Ctx | None:
    """The context inside an element of that kind (not `_SKIP`) with these attributes (`color`: a `font`'s),
    or None when its content is not post text."""
    skip, quote, spoiler = _class_flags(classes) if classes else (False, False, False)
    if skip:
        return None
    # Each context built whole: NamedTuple's `_replace` is several times slower, once per element walked.
    if quote or kind & _QUOTE:
        ctx = _Ctx(ctx.color, ctx.red, ctx.bold, True, ctx.spoiler)
    if spoiler or kind & _DETAILS:
        ctx = _Ctx(ctx.color, ctx.red, ctx.bold, ctx.quoted, True)
    if kind & _BOLD:
        ctx = _Ctx(ctx.color, ctx.red, True, ctx.quoted, ctx.spoiler)
    if kind & _FONT and color:
        color = color.strip()
        ctx = _Ctx(color, is_red(color), ctx.bold, ctx.quoted, ctx.spoiler)
    return _apply_style(style, ctx) if style else ctx


_SKIP, _QUOTE, _DETAILS, _BOLD, _FONT, _BREAK = 1, 2, 4, 8, 16, 32


@functools.lru_cache(maxsize=1024)
def _tag_kind(tag: str) -> int:
    """What a tag name means to the walk, as bits: read once per distinct name."""
    name = tag.lower()
    return (
        (_SKIP if name in _SKIP_TAGS else 0)
        | (_QUOTE if name in _QUOTE_TAGS else 0)
        | (_DETAILS if name == "details" else 0)
        | (_BOLD if name in _BOLD_TAGS else 0)
        | (_FONT if name == "font" else 0)
        | (_BREAK if name in _BREAK_TAGS else 0)
    )


@functools.lru_cache(maxsize=4096)
def _class_flags(classes: str) -> tuple[bool, bool, bool]:
    """Whether a class attribute marks text that is not the author's, a quote, a spoiler: read once per
    distinct attribute (a board's bodies use a handful)."""
    tokens = frozenset(classes.lower().split())
    return bool(tokens & _SKIP_CLASSES), bool(tokens & _QUOTE_CLASSES), any("spoiler" in t for t in tokens)


# ---------------------------------------------------------------------------------------------------
# Fragments
# ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Fragment:
    """One run of red and/or bold text, whitespace normalised as a browser shows it."""

    text: str
    red: bool
    bold: bool
    color: str | None
    quoted: bool
    spoiler: bool


def _as_element(content: etree._Element | str) -> etree._Element | None:
    if not isinstance(content, str):
        return content
    if not content.strip():
        return None
    try:
        return lxml_html.fragment_fromstring(content, create_parent="div")
    except (etree.ParserError, ValueError):
        return None


def find_fragments(content: etree._Element | str) -> list[Fragment]:
    """Every red and/or bold text run of a post body (an lxml element or an HTML string), in order.

    A body given as a string is read once per process: a re-tally, or a tally whose pages were looked at
    while the rest of the topic was still being fetched, finds its fragments ready."""
    if isinstance(content, str):
        return list(_fragments_of_html(content))
    return _fragments(content)


class _FragmentCache:
    """The fragments of the bodies read lately, least recently used first out.

    Keyed by a digest of the body, not the body itself: an entry costs about 200 bytes whatever the
    post's length, so the cache can hold several of the biggest days (35,000 posts read twice, once as
    the pages arrive and once by the tally) without keeping their bodies alive after the day."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._entries: OrderedDict[bytes, tuple[Fragment, ...]] = OrderedDict()
        self._lock = threading.Lock()
        # The bodies read from a page's tree lately, by their text: the extraction that follows the parse
        # asks for the very strings the parser made (`Post.content_html`), whose hash Python keeps, and
        # finds them here without a second markup test and digest. Bounded: a few pages of bodies.
        self._just_read: dict[str, tuple[Fragment, ...]] = {}

    def get(self, html: str) -> tuple[Fragment, ...]:
        found = self._just_read.get(html)
        if found is not None:
            return found
        return self._read(html, lambda: _body_tree(html))

    def remember(self, html: str, element: etree._Element) -> None:
        """Read the body `html` from `element`, the tree it was serialised from (the same fragments as a
        parse of the HTML gives: `tests/extract` compares them on every captured page)."""
        found = self._read(html, lambda: element)
        just_read = self._just_read
        if len(just_read) >= _JUST_READ:
            just_read.clear()
        just_read[html] = found

    def _read(self, html: str, tree: Callable[[], etree._Element | str]) -> tuple[Fragment, ...]:
        if not _may_be_marked(html):  # nothing in it can be red or bold: no walk, no entry to keep
            return ()
        key = hashlib.blake2b(html.encode("utf-8", "surrogatepass"), digest_size=16).digest()
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                self._entries.move_to_end(key)
                return found
        found = tuple(_fragments(tree()))
        with self._lock:
            self._entries[key] = found
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)
        return found

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._just_read.clear()


_JUST_READ = 256  # bodies: ten pages of 25
_FRAGMENT_CACHE = _FragmentCache(131_072)
# Markup that can make text red or bold (`_enter`: a bold tag, a colour, a weight; `&#` in case an
# attribute spells one with character references): a body with none of it has no fragment.
_BOLD_TAG = re.compile(r"<(?:b|strong)[\s/>]")


def _may_be_marked(html: str) -> bool:
    """Whether the body holds such markup, in any case: plain substring tests on the lowered body, the
    one pattern only for the tags (several times faster than one case-insensitive pattern for all)."""
    lowered = html.lower()
    return "color" in lowered or "font-weight" in lowered or "&#" in lowered or _BOLD_TAG.search(lowered) is not None


# lxml's plain HTML parser: the same tree as `lxml.html`'s, without its Python lookup of an element
# class for every node the walk touches.
_PLAIN_HTML = etree.HTMLParser()
_FULL_DOCUMENT = re.compile(r"^\s*<(?:html|!doctype)", re.IGNORECASE)


def _body_tree(html: str) -> etree._Element | str:
    """A body string as `_as_element` reads it (a `div` around the fragment), parsed by the plain parser;
    the string itself, for `_as_element`, where that could differ (a whole document, an odd parse)."""
    if not html.strip() or _FULL_DOCUMENT.match(html):
        return html
    try:
        document = etree.fromstring(f"<html><body>{html}</body></html>", _PLAIN_HTML)
    except (etree.ParserError, ValueError):
        return html
    bodies = [el for el in document if el.tag == "body"] if document is not None else []
    if document is None or document.tag != "html" or len(bodies) != 1:
        return html
    root = _PLAIN_HTML.makeelement("div")
    leading = bodies[0].text
    if leading and leading.strip():  # as lxml.html keeps it: leading whitespace alone is dropped
        root.text = leading
    root.extend(bodies[0])
    return root


def _fragments_of_html(html: str) -> tuple[Fragment, ...]:
    return _FRAGMENT_CACHE.get(html)


def read_body(html: str, element: etree._Element) -> None:
    """A `BodyReader` for the forum's parsers: the fragments of a body read from the page's own tree as it
    is parsed, so that the extraction finds them ready and never parses the body's HTML again."""
    _FRAGMENT_CACHE.remember(html, element)


def forget_fragments() -> None:
    """Drop the bodies read so far (benchmarks measure a cold read)."""
    _FRAGMENT_CACHE.clear()


def _fragments(content: etree._Element | str) -> list[Fragment]:
    root = _as_element(content)
    if root is None:
        return []
    return _runs_of(root)


_TAG_KINDS: dict[object, int] = {}  # an element's tag (a comment's is a function) -> `_tag_kind` of it
_CHANGES_CONTEXT = _QUOTE | _DETAILS | _BOLD | _FONT


def _kind_of(tag: object) -> int:
    """`_tag_kind` of a tag, `_SKIP` for a comment, an instruction or an entity (their tag is no name)."""
    kind = _tag_kind(tag) if isinstance(tag, str) else _SKIP
    if len(_TAG_KINDS) >= 4096:  # names are the page's own: any tag name parses
        _TAG_KINDS.clear()
    _TAG_KINDS[tag] = kind
    return kind


_ContextKey: TypeAlias = tuple[int, str | None, str | None, str | None, _Ctx]
# `_context` of its arguments: bodies repeat a few marked elements (a colour, a bold tag, a quote) in a few
# contexts, and the context inside one is read from here instead of made again.
_CONTEXTS: dict[_ContextKey, _Ctx | None] = {}
_UNKNOWN = _Ctx("", False, False, False, False)  # not in `_CONTEXTS` yet


def _known_context(key: _ContextKey) -> _Ctx | None:
    inner = _context(*key)
    if len(_CONTEXTS) >= 4096:
        _CONTEXTS.clear()
    _CONTEXTS[key] = inner
    return inner


def _runs_of(root: etree._Element) -> list[Fragment]:
    """The fragments of a body, in one loop: the text walked in document order with its context, and the
    runs of one style collected as it goes (the tests keep the walk and the collector as two layers and compare
    both), without a call per break, nor per text that is neither red nor bold and has no run to end. An element
    with no class, style or meaning of its own (a `br`, most `span`s) keeps its parent's context without
    `_enter`; the context inside the others is looked up (`_CONTEXTS`)."""
    fragments: list[Fragment] = []
    opened = _enter(root, _ROOT)
    if opened is None:
        return fragments
    run: _Ctx | None = None  # the context of the run being collected
    parts: list[str] = []
    space = False  # red or bold whitespace since the run's last text: one space if the run goes on

    def close() -> None:
        nonlocal run, parts, space
        c = run
        if c is None:
            return
        text = _HTML_SPACE.sub(" ", "".join(parts)).strip(" ")
        if text:
            fragments.append(Fragment(text, c.red, c.bold, c.color, c.quoted, c.spoiler))
        run, parts, space = None, [], False

    def text(t: str, ctx: _Ctx) -> None:
        nonlocal run, parts, space
        if not t.strip(_HTML_SPACE_CHARS):
            if run is not None:
                if (ctx.red or ctx.bold) and ctx.quoted == run.quoted and ctx.spoiler == run.spoiler:
                    space = True
                else:
                    close()
            return
        if run is not None and ctx == run:
            if space:
                parts.append(" ")
            parts.append(t)
        else:
            close()
            if ctx.red or ctx.bold:
                run, parts = ctx, [t]
        space = False

    kinds, contexts = _TAG_KINDS, _CONTEXTS
    levels: list[tuple[Iterator[etree._Element], _Ctx, int, etree._Element]] = []
    element: etree._Element | None = root
    breaks = _tag_kind(root.tag) & _BREAK  # a str: `_enter` refuses comments and instructions
    while element is not None:
        if breaks and run is not None:
            close()
        if element.text and (run is not None or opened.red or opened.bold):
            text(element.text, opened)
        levels.append((iter(element), opened, breaks, element))
        element = None
        while levels and element is None:
            children, ctx, owner_breaks, owner = levels[-1]
            for child in children:
                tag = child.tag
                kind = kinds.get(tag)
                if kind is None:
                    kind = _kind_of(tag)
                if kind & _SKIP:
                    inner = None
                else:
                    classes, style = child.get("class"), child.get("style")
                    if classes is None and style is None and not kind & _CHANGES_CONTEXT:
                        inner = ctx
                    else:
                        key = (kind, classes, child.get("color") if kind & _FONT else None, style, ctx)
                        inner = contexts.get(key, _UNKNOWN)
                        if inner is _UNKNOWN:
                            inner = _known_context(key)
                if inner is not None:
                    if len(child):
                        element, opened, breaks = child, inner, kind & _BREAK  # opened by the outer loop
                        break
                    leaf_breaks = kind & _BREAK  # a leaf: open and close it here
                    if leaf_breaks and run is not None:
                        close()
                    if child.text and (run is not None or inner.red or inner.bold):
                        text(child.text, inner)
                    if leaf_breaks and run is not None:
                        close()
                if child.tail and (run is not None or ctx.red or ctx.bold):
                    text(child.tail, ctx)
            else:
                levels.pop()
                if owner_breaks and run is not None:
                    close()
                if levels and owner.tail:  # the root's tail is not the body's
                    outer = levels[-1][1]
                    if run is not None or outer.red or outer.bold:
                        text(owner.tail, outer)
    close()
    return fragments


# ---------------------------------------------------------------------------------------------------
# Votes
# ---------------------------------------------------------------------------------------------------


class VoteRecord(BaseModel):
    """One fragment of one post, as the audit shows it: counted or not, and why not."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    post_id: int
    voter: str  # the post's author
    target: str  # the matched nick, or the raw text when it matches nobody
    text: str  # the fragment as written
    time: datetime
    counted: bool
    reason: VoteReason | None  # None exactly when counted
    nearest: str | None = None  # the player a near miss probably meant
    exact: bool = False  # the text is the nick character for character (False: lenient fold match)
    red: bool = True
    bold: bool = True
    color: str | None = None
    edited_by: str | None = None
    permalink: str


@dataclass(frozen=True, slots=True)
class _Target:
    fragment: Fragment
    target: str
    match: Match
    reason: VoteReason | None  # fragment-level reason, None when the fragment names a living player


def _resolve(text: str, roster: Roster, mode: MatchMode, split: bool) -> list[tuple[str, Match]]:
    """The nick(s) a fragment names; on double days "A, B" / "A и B" in one fragment names two."""
    whole = roster.match(text, mode)
    if whole.nick is not None or not split:
        return [(whole.nick or text, whole)]
    parts = split_targets(text)
    matches = [roster.match(part, mode) for part in parts]
    if len(parts) > 1 and all(m.nick is not None for m in matches):
        return [(m.nick or p, m) for p, m in zip(parts, matches, strict=True)]
    return [(text, whole)]


def _fragment_reason(frag: Fragment, match: Match, dead: frozenset[str]) -> VoteReason | None:
    if frag.quoted:
        return "quoted"
    if frag.spoiler:
        return "spoiler"
    if not frag.red:
        return "not_red"
    if not frag.bold:
        return "not_bold"
    if match.nick is None:
        return "unknown_nick"
    if match.nick in dead:
        return "dead_target"
    return None


def _targets(post: Post, settings: VoteSettings, found: Sequence[Fragment]) -> list[_Target]:
    roster, dead, mode = settings.roster, settings.dead, settings.mode
    out: list[_Target] = []
    for frag in found:
        if not (frag.red and frag.bold):
            # A red-only or bold-only text is shown only when it names a player, exactly or nearly.
            m = roster.match(frag.text, mode)
            if m.nick is None and m.nearest is None:
                continue
            out.append(_Target(frag, m.nick or frag.text, m, _fragment_reason(frag, m, dead)))
            continue
        for target, m in _resolve(frag.text, roster, mode, settings.votes_per_post > 1):
            out.append(_Target(frag, target, m, _fragment_reason(frag, m, dead)))
    return out


# What a post counted by the host's decision is read despite: the post itself, never whose it is.
_COUNTABLE: frozenset[VoteReason] = frozenset(
    {"unapproved", "deleted", "before_start", "after_deadline", "edited", "changed"}
)


def _post_reason(post: Post, settings: VoteSettings) -> VoteReason | None:
    if post.post_id in settings.ignored_posts:
        return "ignored"
    reason = post_void_reason(post, settings)
    if reason in _COUNTABLE and post.post_id in settings.counted_posts:
        return None
    return reason


def counted_by_decision(post: Post, settings: VoteSettings) -> bool:
    """Whether the post is read as a vote only because the host decided it counts."""
    return post.post_id in settings.counted_posts and post_void_reason(post, settings) in _COUNTABLE


def post_void_reason(post: Post, settings: VoteSettings) -> VoteReason | None:
    """Why nothing in the post can be a vote, the host's decisions aside (whose it is, when, its state)."""
    roster, dead, start, deadline = settings.roster, settings.dead, settings.start, settings.deadline
    if post.visibility != "public":  # only moderators see it: it was never a vote to the players
        return post.visibility
    voter = post.author.strip()
    if voter not in roster:  # the forum prints the account name: it must be a player's exactly
        return "not_player"
    if voter in dead:
        return "dead_voter"
    if start is not None and post.time < start:
        return "before_start"
    if deadline is not None and post.time >= deadline:  # a post stamped exactly at the deadline is late
        return "after_deadline"
    if post.edited and settings.edited_votes == "ignore":
        return "changed" if post.changed_since_read else "edited"
    return None


def _chosen(targets: list[_Target], votes_per_post: int) -> set[int]:
    """Indices of the post's vote: the last `votes_per_post` distinct valid targets."""
    chosen: list[int] = []
    seen: set[str] = set()
    for i in range(len(targets) - 1, -1, -1):
        t = targets[i]
        if t.reason is None and t.target not in seen and len(chosen) < votes_per_post:
            chosen.append(i)
            seen.add(t.target)
    return set(chosen)


def _check_aware(name: str, moment: datetime | None) -> None:
    if moment is not None and moment.tzinfo is None:
        raise ValueError(f"{name} must be timezone-aware (the game's time zone), got {moment.isoformat()}")


def extract_post_votes(
    post: Post,
    roster: Roster,
    *,
    dead: set[str] | frozenset[str] = frozenset(),
    start: datetime | None = None,
    deadline: datetime | None = None,
    mode: MatchMode = "strict",
    edited_votes: EditedVotes = "ignore",
    votes_per_post: int = 1,
) -> list[VoteRecord]:
    """One record per fragment of `post` worth the host's eye; at most `votes_per_post` are counted (one post
    read alone; a day's posts are read with their `VoteSettings` by `extract_votes`)."""
    _check_aware("start", start)
    _check_aware("deadline", deadline)
    settings = VoteSettings(roster, frozenset(dead), start, deadline, mode, edited_votes, votes_per_post)
    return _post_votes(post, settings, find_fragments(post.content_html))


def _post_votes(post: Post, settings: VoteSettings, found: Sequence[Fragment]) -> list[VoteRecord]:
    """`extract_post_votes` once the day's bounds are checked (a day's posts share them), over the post's
    fragments `found`."""
    if post.time.tzinfo is None:  # the message is made only when it is needed
        _check_aware(f"post {post.post_id} time", post.time)
    targets = _targets(post, settings, found)
    if not targets:  # most posts: nothing red or bold that names anyone
        return []
    post_reason = _post_reason(post, settings)
    chosen = _chosen(targets, settings.votes_per_post)
    records: list[VoteRecord] = []
    for i, t in enumerate(targets):
        reason = t.reason
        if reason is None:
            reason = post_reason or (None if i in chosen else "superseded")
        records.append(_record(post, t, reason))
    return records


def _record(post: Post, t: _Target, reason: VoteReason | None) -> VoteRecord:
    """The record of one target of a post, made without validation (`_made`): every value is of its field's
    own type already (a validated post's, a fragment's, a match's)."""
    frag = t.fragment
    return _made(
        {
            "post_id": post.post_id,
            "voter": post.author.strip(),
            "target": t.target,
            "text": frag.text,
            "time": post.time,
            "counted": reason is None,
            "reason": reason,
            "nearest": None if t.match.nick is not None else t.match.nearest,
            "exact": t.match.exact,
            "red": frag.red,
            "bold": frag.bold,
            "color": frag.color,
            "edited_by": post.edited_by if post.edited else None,
            "permalink": post.permalink,
        }
    )


_RECORD_FIELDS = set(VoteRecord.model_fields)
_set = object.__setattr__  # a frozen model's fields are set once, as pydantic sets them


def _made(fields: dict[str, object]) -> VoteRecord:
    """The record `VoteRecord(**fields)` makes of values of the fields' own types, every field given, in the
    fields' order, for a third of its cost. Every record shares one set of the names given (pydantic keeps one
    per instance, 728 bytes; a day of 35,000 posts makes some 20,000 records): only ever read."""
    record = VoteRecord.__new__(VoteRecord)
    _set(record, "__dict__", fields)
    _set(record, "__pydantic_fields_set__", _RECORD_FIELDS)
    _set(record, "__pydantic_extra__", None)
    _set(record, "__pydantic_private__", None)
    return record


def _superseded(record: VoteRecord) -> VoteRecord:
    """The record voided by its voter's later vote (what `model_copy(update=...)` makes); it shares the set of
    given names as `_record`'s do (a copy would take a set of its own: 11 MB at 35,000 posts)."""
    fields = dict(record.__dict__)
    fields["counted"] = False
    fields["reason"] = "superseded"
    return _made(fields)


@dataclass(frozen=True)
class ScanState:
    """Where a count of a day's posts stands after its first posts, enough to read on from there without
    them: how many records it made, each voter's counted vote (its records' indices and targets), and the
    (time, id) of the last post it read. A later post must come after that one (`VoteScan.follows`)."""

    made: int = 0
    latest: Mapping[str, tuple[tuple[int, str], ...]] = field(default_factory=dict)
    last: tuple[datetime, int] | None = None

    def follows(self, posts: Iterable[Post]) -> bool:
        """Whether every post comes after the last one read (a scan reads in time order only)."""
        last = self.last
        return last is None or all((p.time, p.post_id) > last for p in posts)

    def to_json(self) -> dict[str, object]:
        return {
            "made": self.made,
            "latest": {voter: [list(entry) for entry in entries] for voter, entries in self.latest.items()},
            "last": [self.last[0].isoformat(), self.last[1]] if self.last else None,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> ScanState:
        latest = data["latest"]
        last = data["last"]
        if not isinstance(latest, dict) or not (last is None or isinstance(last, list)):
            raise ValueError("a vote scan's state needs 'latest' (an object) and 'last' (a list or null)")
        return cls(
            made=int(str(data["made"])),
            latest={str(v): tuple((int(i), str(t)) for i, t in entries) for v, entries in latest.items()},
            last=(datetime.fromisoformat(last[0]), int(last[1])) if last else None,
        )


class VoteScan:
    """The day's posts read in time order, from the start or from a `ScanState`: every record of the posts
    it reads, and each voter's latest counted vote (a later counted vote voids his earlier one, wherever
    that one was read). `extract_votes` is one scan of all posts; a re-tally reads on from where the last
    count stood, so it makes the records of its new posts only."""

    def __init__(self, settings: VoteSettings, *, state: ScanState | None = None) -> None:
        self._settings = settings
        self._skipped = {name.strip().casefold() for name in settings.skip_authors}
        state = state or ScanState()
        self._base = state.made  # the index of this scan's first record
        self._latest: dict[str, tuple[tuple[int, str], ...]] = dict(state.latest)
        self._last = state.last
        self.records: list[VoteRecord] = []  # the records of the posts read by this scan, in time order
        self._checked = False

    def follows(self, posts: Iterable[Post]) -> bool:
        """Whether every post comes after the last one read (a scan reads in time order only)."""
        return ScanState(last=self._last).follows(posts)

    def read(self, posts: Iterable[Post], fragments: Mapping[int, Sequence[Fragment]] | None = None) -> None:
        """Read `posts` (in any order: they are read by time, then id; a post given twice is read once,
        its later copy), each after every post read before. `fragments`: as in `extract_votes`."""
        skipped = self._skipped
        given = reversed(list(posts))
        unique = (
            {p.post_id: p for p in given if p.author.strip().casefold() not in skipped}
            if skipped
            else {p.post_id: p for p in given}
        )
        ordered = sorted(unique.values(), key=lambda p: (p.time, p.post_id))
        if not ordered:
            return
        if not self.follows(ordered[:1]):
            raise ValueError(f"post {ordered[0].post_id} comes before the last post this count read")
        if not self._checked:  # checked once for the day, as each post's check would (no post, no check)
            _check_aware("start", self._settings.start)
            _check_aware("deadline", self._settings.deadline)
            self._checked = True
        for post in ordered:
            found = _fragments_of_html(post.content_html) if fragments is None else fragments.get(post.post_id, ())
            if found:
                self._read_post(post, found)
            elif post.time.tzinfo is None:  # most posts: no record, nothing superseded; only the zone checked
                _check_aware(f"post {post.post_id} time", post.time)
        self._last = (ordered[-1].time, ordered[-1].post_id)

    def _read_post(self, post: Post, found: Sequence[Fragment]) -> None:
        batch = _post_votes(post, self._settings, found)
        first = self._base + len(self.records)
        counted = tuple((first + i, r.target) for i, r in enumerate(batch) if r.counted)
        self.records.extend(batch)
        if counted:
            # A void vote is ignored as if never posted; a counted one replaces the voter's earlier vote.
            voter = post.author.strip()
            for index, _ in self._latest.get(voter, ()):
                if index >= self._base:  # a record of an earlier scan is voided in its state only
                    mine = index - self._base
                    self.records[mine] = _superseded(self.records[mine])
            self._latest[voter] = counted

    @property
    def state(self) -> ScanState:
        """Where the count stands now: a scan made from it reads on from here."""
        return ScanState(self._base + len(self.records), dict(self._latest), self._last)

    def counted(self) -> list[tuple[str, str]]:
        """(voter, target) of every vote counted now, in the order the votes came."""
        entries = sorted((index, voter, target) for voter, votes in self._latest.items() for index, target in votes)
        return [(voter, target) for _, voter, target in entries]


def extract_votes(
    posts: Iterable[Post], settings: VoteSettings, *, fragments: Mapping[int, Sequence[Fragment]] | None = None
) -> list[VoteRecord]:
    """Every record of a day's posts in time order; only each voter's last counted vote stays counted.

    Posts are ordered by their own time (then id), never by page order; a post seen twice (pages that
    shifted while they were fetched) is read once. Posts of the settings' `skip_authors` (the bot's own
    account: its opening, its vote counts) are no votes and no audit rows. `fragments`: each post's fragments
    (post id -> `find_fragments` of its body) as read earlier, for posts whose bodies are not at hand; a post
    it does not name has none.
    """
    scan = VoteScan(settings)
    scan.read(posts, fragments)
    return scan.records


def to_engine_votes(records: Iterable[VoteRecord]) -> tuple[Vote, ...]:
    """The counted records as engine votes: one `Vote` per post, its targets in the post's order."""
    by_post: dict[int, list[VoteRecord]] = {}
    for record in records:
        if record.counted:
            by_post.setdefault(record.post_id, []).append(record)
    ordered = sorted(by_post.values(), key=lambda rs: rs[0].time)  # stable: same-time posts keep order
    return tuple(
        Vote(
            voter=rs[0].voter,
            targets=tuple(r.target for r in rs),
            time=rs[0].time,
            ref=rs[0].permalink,
            post_id=rs[0].post_id,
        )
        for rs in ordered
    )
