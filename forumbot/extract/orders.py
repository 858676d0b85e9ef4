"""Orders in private messages: the line grammar of docs/votes-and-orders.md ("Orders in private messages").

One PM may carry several lines; each line is one order, unknown lines are kept for the audit. A line is
``<keyword><separator><target>``:

- keywords (any case): ``Расстреливаю``/``Голосую``/``V`` (vote), ``Убиваем``/``Убиваю``/``Заказ``/
  ``Стреляю`` (kill), ``Проверяю``/``Проверка`` (check), ``Лечу``/``Спасаю`` (heal), ``Сплю`` (sleep),
  ``Насилую`` (assault), ``S`` (special: kozanostra's "the role's own action");
- separator: any dash (em, en, hyphen, minus...), a colon, or a mix of them, with or without spaces
  around; or just spaces. The keyword must be followed by one, so ``Проверками`` is no keyword;
- ``Сплю с ник`` is ``Сплю`` + ``ник``: a leading ``с`` word after ``Сплю`` is dropped;
- two targets on a double-order day: ``Убиваем — A, B``, ``A и B``, ``A; B`` or ``A and B``. The whole
  text is tried as one nick first (a nick may contain " и " or a comma); only if it names nobody is it
  split, and then every part must name a player, or the order is void (docs/rules/common.md: an order naming an
  unknown player is void) and each unknown part is reported with its nearest player.

Formatting that leaks into the text is ignored: BBCode such as ``[b]Лечу[/b]`` or ``[color=red]...``,
inline HTML tags, ``**`` markers and quotes around the nick (``«Пётр»``). A nick may itself look like
formatting (``[b]x[/b]``), so the target is matched as written first, then without the formatting that wraps
it whole, and only then with every tag removed.

Only the first `MAX_PM_LINES` lines of a PM that hold text are read (orders, quoted orders and commands
alike): an order PM is a few lines, and a PM of thousands would make thousands of audit rows and receipt lines.
The rest is one problem, `too_long`, naming the first line left unread.

Quoted or forwarded orders never count: the actor is always the PM's sender. `PrivateMessage.body_text`
already excludes quotes, but ``[quote]...[/quote]`` blocks and ``>``-quoted lines left in a text are
dropped here too, and a body rebuilt from HTML drops quote blocks.

kozanostra's server authenticated every letter with the game and the player's password, and players used to it
still write them. `strip_credentials` removes them from a PM's text before anything else reads it (orders here,
commands and relays in `commands.py`), so no password reaches a receipt, the audit or the state file; only the
fact that one was there is kept. The forms the server accepted:

- ``#order <game> <password>`` on any line; or ``#order [<game>]`` with the rest (``<game> <password>``,
  ``<password>``) on the next lines, each of which is no order and no command;
- ``#mail <game> <nick> <game> <password>`` as a relay's first line (``---`` anywhere in it: anonymous): the
  letter goes to ``<nick>``;
- ``#wall`` / ``#mafia`` / ``#jakudza`` / ``#yakuza`` followed by ``<game> <password>`` on the first line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from lxml import etree
from lxml import html as lxml_html

from forumbot.engine.model import Action, Order
from forumbot.extract.names import MatchMode, Roster, split_targets
from forumbot.extract.votes import is_not_text, is_quote
from forumbot.posts import PrivateMessage

# Lines holding text read in one PM (docs/votes-and-orders.md, Orders in private messages).
MAX_PM_LINES = 100

KEYWORDS: dict[str, Action] = {
    "расстреливаю": "vote",
    "голосую": "vote",
    "v": "vote",
    "убиваем": "kill",
    "убиваю": "kill",
    "заказ": "kill",
    "стреляю": "kill",
    "проверяю": "check",
    "проверка": "check",
    "лечу": "heal",
    "спасаю": "heal",
    "сплю": "sleep",
    "насилую": "assault",
    "s": "special",
}

# Each action's keyword as the bot writes it back (a receipt echoes the order in the grammar it was read in).
VERB: dict[Action, str] = {
    "vote": "Голосую",
    "kill": "Убиваем",
    "check": "Проверяю",
    "heal": "Лечу",
    "sleep": "Сплю",
    "assault": "Насилую",
    "special": "S",
}

_DASHES = "\\-\u2010\u2011\u2012\u2013\u2014\u2015\u2212"  # hyphen, its variants, en/em dash, minus
_KEYWORD_ALTERNATION = "|".join(sorted(map(re.escape, KEYWORDS), key=len, reverse=True))
_LINE = re.compile(
    # Either a run of dashes/colons (spaces around optional), or spaces alone not followed by one: so
    # "Убиваем — " has no target rather than the target "—".
    rf"(?P<kw>{_KEYWORD_ALTERNATION})(?:\s*[{_DASHES}:]+\s*|\s+(?![{_DASHES}:]))(?P<target>\S.*)",
    re.IGNORECASE,
)
_SLEEP_WITH = re.compile(r"[сc]\s+(?=\S)", re.IGNORECASE)  # Cyrillic or Latin "с"
_ORDER_HEADER = re.compile(r"#order(?:\s|$)", re.IGNORECASE)
_COMMAND_LINE = re.compile(r"(?:z|q|o(?:\s.*)?)", re.IGNORECASE | re.DOTALL)  # Z, Q, O ... (see commands.py)
_ANONYMOUS = re.compile(r"-{3,}")
_CLAN_WORDS = frozenset({"#mafia", "#jakudza", "#yakuza", "#wall"})

_BBCODE = re.compile(
    r"\[/?(?:b|i|u|s|strike|color|size|font|center|left|right|highlight|background|glow|shadow)"
    r"(?:=[^\]]*)?\]",
    re.IGNORECASE,
)
_INLINE_TAG = re.compile(r"</?(?:b|strong|i|em|u|s|strike|span|font|small|big)\b[^>]*>", re.IGNORECASE)
_TAG_SOURCE = rf"(?:{_BBCODE.pattern}|{_INLINE_TAG.pattern}|\*\*)"
_LEAD = re.compile(rf"(?:\s+|{_TAG_SOURCE})*", re.IGNORECASE)  # formatting before the keyword
_KEYWORD_THEN_SEPARATOR = re.compile(
    rf"(?P<kw>{_KEYWORD_ALTERNATION})(?:{_TAG_SOURCE})*(?:\s*[{_DASHES}:]+\s*|\s+(?![{_DASHES}:]))(?=\S)",
    re.IGNORECASE,
)
_FORMAT_TAG = re.compile(
    r"\[(?P<bb_close>/)?(?P<bb>b|i|u|s|strike|color|size|font|center|left|right|highlight|background|glow|shadow)"
    r"(?:=[^\]]*)?\]|<(?P<html_close>/)?(?P<html>b|strong|i|em|u|s|strike|span|font|small|big)\b[^>]*>|(?P<stars>\*\*)",
    re.IGNORECASE,
)
_QUOTE_BLOCK = re.compile(r"\[quote(?:[= ][^\]]*)?\](?:(?!\[quote[\]= ]).)*?\[/quote\]", re.IGNORECASE | re.DOTALL)
_QUOTE_PAIRS = (("«", "»"), ('"', '"'), ("“", "”"), ("„", "“"), ("'", "'"))


@dataclass(frozen=True, slots=True)
class OrderLine:
    """One recognised order line: what it orders and the target text as written (formatting removed)."""

    action: Action
    target_text: str
    line_no: int  # 1-based, counted in the text as given
    raw: str
    # The target as written, then without the formatting that wraps it whole, where they differ from
    # `target_text` (every tag removed): each is tried as one nick first, so a nick such as "[b]x[/b]" is named.
    exact: tuple[str, ...] = ()

    @property
    def target_parts(self) -> tuple[str, ...]:
        """The target text split for a double order ("A, B", "A и B"); one part when it is not split."""
        return split_targets(self.target_text) or (self.target_text,)


@dataclass(frozen=True, slots=True)
class ParsedOrders:
    lines: list[OrderLine] = field(default_factory=list)
    unknown: list[tuple[int, str]] = field(default_factory=list)  # (line_no, raw) of unrecognised lines
    password_seen: bool = False
    unread: tuple[int, int] | None = None  # past MAX_PM_LINES: (the first line not read, the lines not read)


ProblemReason = Literal["unknown_line", "unknown_target", "not_player", "too_long"]


@dataclass(frozen=True, slots=True)
class OrderProblem:
    """A PM line that gives no order, and why: shown to the host in the audit."""

    sender: str
    line_no: int
    raw: str
    reason: ProblemReason
    target_text: str | None = None
    nearest: str | None = None  # for unknown_target: the player it probably meant
    ref: str | None = None


def within_limit(lines: list[str]) -> tuple[list[str], tuple[int, int] | None]:
    """The lines up to the `MAX_PM_LINES`-th that holds text, and past it (the first line not read, 1-based,
    and how many lines holding text are not read), or None when nothing is left unread."""
    seen = 0
    for index, line in enumerate(lines):
        if line.strip():
            seen += 1
            if seen > MAX_PM_LINES:
                return lines[:index], (index + 1, sum(1 for rest in lines[index:] if rest.strip()))
    return lines, None


def _drop_quote_blocks(text: str) -> str:
    """Remove ``[quote]...[/quote]`` (innermost first), keeping the line count so line numbers hold."""
    while True:
        new = _QUOTE_BLOCK.sub(lambda m: "\n" * m.group(0).count("\n"), text)
        if new == text:
            return text
        text = new


def _clean(line: str) -> str:
    line = _INLINE_TAG.sub("", _BBCODE.sub("", line)).replace("**", "")
    return " ".join(line.split())  # also turns NBSP and tabs into plain single spaces


def _unquote(target: str) -> str:
    for left, right in _QUOTE_PAIRS:
        if len(target) > 2 and target.startswith(left) and target.endswith(right):
            return target[1:-1].strip()
    return target


@dataclass(frozen=True, slots=True)
class Scrubbed:
    """A PM's text without the kozanostra server's passwords (line count kept), and whether one was there."""

    text: str
    password_seen: bool


def strip_credentials(body_text: str) -> Scrubbed:
    """The text with every password of the forms the kozanostra server accepted removed (see the module's
    docstring). A line that held only credentials becomes empty, so line numbers still hold."""
    lines = body_text.splitlines()
    seen = False
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is not None:
        header, found = _relay_header(_clean(lines[first].strip()))
        if header is not None:
            lines[first] = header
            seen = found
    owed = 0  # how many credential words an `#order` header still waits for (its game, its password)
    for i, line in enumerate(lines):
        cleaned = _clean(line.strip())
        if not cleaned:
            continue
        if _ORDER_HEADER.match(cleaned):
            words = cleaned.split()
            seen = seen or len(words) >= 3
            lines[i] = " ".join(words[:2])  # "#order <game>": the password, and anything after it, dropped
            owed = max(0, 3 - len(words))
            continue
        words = cleaned.split()
        if owed and len(words) <= owed and not _COMMAND_LINE.fullmatch(cleaned) and parse_line(cleaned) is None:
            owed -= len(words)
            seen = seen or owed == 0
            lines[i] = ""
            continue
        owed = 0
    return Scrubbed("\n".join(lines), seen)


def _relay_header(line: str) -> tuple[str | None, bool]:
    """A relay's first line without credentials (None: no relay), and whether a password was in it."""
    words = line.split()
    if not words:
        return None, False
    word = words[0].lower()
    if word in _CLAN_WORDS:
        return word, len(words) >= 3  # "#wall <game> <password>": the server's letter to all
    if word != "#mail":
        return None, False
    rest = [w for w in words[1:] if not _ANONYMOUS.fullmatch(w)]
    anonymous = len(rest) < len(words) - 1
    if len(rest) >= 4 and rest[0].casefold() == rest[-2].casefold():  # "<game> <nick> <game> <password>"
        return " ".join(["#mail", *rest[1:-2], *(["---"] if anonymous else [])]), True
    return None, False


def parse_line(line: str) -> tuple[Action, str] | None:
    """The (action, target text) of one line, or None when it is not an order."""
    m = _LINE.fullmatch(_clean(line))
    if m is None:
        return None
    action = KEYWORDS[m.group("kw").lower()]
    target = m.group("target").strip()
    with_word = _SLEEP_WITH.match(target) if action == "sleep" else None
    if with_word is not None:  # "Сплю с ник"
        target = target[with_word.end() :]
    target = _unquote(target)
    return (action, target) if target else None


def exact_targets(line: str) -> tuple[Action, tuple[str, ...]] | None:
    """The line's action and its target as written (formatting kept inside the target, only what precedes it
    and closers of tags opened before it left out), then that target without the formatting that wraps it
    whole; None when the line does not read as an order this way."""
    text = " ".join(line.split())
    lead = _LEAD.match(text)
    m = _KEYWORD_THEN_SEPARATOR.match(text, lead.end() if lead else 0)
    if m is None:
        return None
    action = KEYWORDS[m.group("kw").lower()]
    target = _drop_unopened_closers(text[m.end() :])
    with_word = _SLEEP_WITH.match(target) if action == "sleep" else None
    if with_word is not None:
        target = target[with_word.end() :]
    found: list[str] = []
    for candidate in (_unquote(target), _unquote(_unwrap(target))):
        if candidate and candidate not in found:
            found.append(candidate)
    return (action, tuple(found)) if found else None


def _format_tags(text: str) -> list[tuple[re.Match[str], str, bool | None]]:
    """The formatting tags of a text: (match, which tag, closing); `**` toggles, so its closing is None."""
    tags: list[tuple[re.Match[str], str, bool | None]] = []
    for m in _FORMAT_TAG.finditer(text):
        if m.group("stars"):
            tags.append((m, "**", None))
        elif m.group("bb"):
            tags.append((m, "[" + m.group("bb").lower(), bool(m.group("bb_close"))))
        else:
            tags.append((m, "<" + m.group("html").lower(), bool(m.group("html_close"))))
    return tags


def _drop_unopened_closers(target: str) -> str:
    """ "x[/b]" of "[b]Убиваем — x[/b]": closing tags at the end whose tags opened before the target."""
    target = target.rstrip()
    while True:
        tags = _format_tags(target)
        if not tags or tags[-1][0].end() != len(target):
            return target
        last, which, closing = tags[-1]
        earlier = [c for _, w, c in tags[:-1] if w == which]
        if closing is None:  # "**": it closes one in the target when an odd number come before it
            closes_inside = len(earlier) % 2 == 1
        elif closing:
            closes_inside = sum(1 if c is False else -1 for c in earlier) > 0
        else:
            return target  # an opening tag at the end is part of the text
        if closes_inside:
            return target
        target = target[: last.start()].rstrip()


def _unwrap(target: str) -> str:
    """The target without formatting that wraps it whole: "[color=red][b]Пётр[/b][/color]" is "Пётр", while
    "[b]A[/b] и [b]B[/b]" keeps its tags (the first [b] closes before the end)."""
    while True:
        tags = _format_tags(target)
        if not tags or tags[0][0].start() != 0 or tags[0][2] is True:
            return target
        first, which, _ = tags[0]
        depth, end = 0, None
        for m, name, closing in tags:
            if name != which:
                continue
            depth += 1 if (closing is False or closing is None and depth == 0) else -1
            if depth == 0:
                end = m
                break
        if end is None or end.end() != len(target) or end.start() <= first.end():
            return target
        target = target[first.end() : end.start()].strip()


def parse_orders(body_text: str) -> ParsedOrders:
    """Every order line of a PM body, the unrecognised lines, and whether a ``#order`` password was seen.

    Never raises: any text gives a (possibly empty) result.
    """
    return orders_in(strip_credentials(body_text))


def orders_in(scrubbed: Scrubbed) -> ParsedOrders:
    """`parse_orders` of a text whose passwords are removed already (`strip_credentials`)."""
    lines: list[OrderLine] = []
    unknown: list[tuple[int, str]] = []
    read, unread = within_limit(_drop_quote_blocks(scrubbed.text).splitlines())
    for line_no, line in enumerate(read, 1):
        stripped = line.strip()
        if not stripped or stripped.startswith(">"):  # empty, or an e-mail style quoted line
            continue
        cleaned = _clean(stripped)
        if _ORDER_HEADER.match(cleaned):  # "#order <game>": the forum already knows the sender
            continue
        order = parse_line(cleaned)
        if order is None:
            unknown.append((line_no, stripped))
        else:
            written = exact_targets(stripped)
            exact = tuple(t for t in written[1] if t != order[1]) if written and written[0] == order[0] else ()
            lines.append(OrderLine(order[0], order[1], line_no, stripped, exact))
    return ParsedOrders(lines, unknown, scrubbed.password_seen, unread)


_BLOCK_TAGS = ("p", "div", "li", "tr", "blockquote", "pre", "h1", "h2", "h3", "h4", "h5", "h6")


def text_from_html(body_html: str) -> str:
    """A PM body's text, one line per line of the message, without quote blocks or edit notices."""
    if not body_html.strip():
        return ""
    try:
        root = lxml_html.fragment_fromstring(body_html, create_parent="div")
    except (etree.ParserError, ValueError):
        return ""
    for el in [e for e in root.iter() if e is not root and (is_quote(e) or is_not_text(e))]:
        if isinstance(el.tag, str):  # comments carry no text_content anyway; keep their tails simple
            el.drop_tree()
    for el in root.iter("br", *_BLOCK_TAGS):
        el.tail = "\n" + (el.tail or "")
    text: str = root.text_content()
    return text


def quoted_order_lines(pm: PrivateMessage) -> list[tuple[Action, str, str]]:
    """The order lines inside the PM's quotes (a quoted or forwarded letter): (action, target text, line).
    They never count, the sender's own lines do; the audit lists them so the host sees why."""
    if not pm.body_html.strip():
        return []
    try:
        root = lxml_html.fragment_fromstring(pm.body_html, create_parent="div")
    except (etree.ParserError, ValueError):
        return []
    quoted: list[str] = []
    for quote in [e for e in root.iter() if e is not root and is_quote(e)]:
        if any(is_quote(a) for a in quote.iterancestors() if a is not root):
            continue  # a quote inside a quote is read with the outer one
        for cite in list(quote.iter("cite")):  # "X wrote:": who is quoted, not what
            cite.drop_tree()
        for el in quote.iter("br", *_BLOCK_TAGS):
            el.tail = "\n" + (el.tail or "")
        quoted += quote.text_content().splitlines()
    found: list[tuple[Action, str, str]] = []
    for line in within_limit(quoted)[0]:
        parsed = parse_line(line)
        if parsed is not None:
            found.append((parsed[0], parsed[1], " ".join(line.split())))
    return found


def pm_text(pm: PrivateMessage) -> str:
    """The text orders are read from: the parser's body_text (it already lacks quotes), rebuilt from the HTML
    only when it is missing."""
    return pm.body_text if pm.body_text.strip() else text_from_html(pm.body_html)


def _resolve(line: OrderLine, roster: Roster, mode: MatchMode) -> tuple[tuple[str, ...], list[tuple[str, str | None]]]:
    """The line's target nicks, or () and the unknown parts with their nearest players."""
    for written in line.exact:  # the nick as written first: it may look like formatting itself
        if written in roster:
            return (written,), []
    for written in line.exact:  # "[b]A[/b] и [b]x[/b]": each part as written, or without what wraps it
        parts = split_targets(written)
        named = [p if p in roster else _unwrap(p) if _unwrap(p) in roster else None for p in parts]
        if len(parts) >= 2 and all(named):
            return tuple(n for n in named if n is not None), []
    whole = roster.match(line.target_text, mode)
    if whole.nick is not None:
        return (whole.nick,), []
    parts = line.target_parts
    if len(parts) < 2:
        return (), [(line.target_text, whole.nearest)]
    matches = [roster.match(part, mode) for part in parts]
    unknown = [(p, m.nearest) for p, m in zip(parts, matches, strict=True) if m.nick is None]
    if unknown:
        return (), unknown
    return tuple(m.nick for m in matches if m.nick is not None), []


def orders_from_pm(
    pm: PrivateMessage, roster: Roster, *, mode: MatchMode = "strict", parsed: ParsedOrders | None = None
) -> tuple[list[Order], list[OrderProblem]]:
    """The orders a PM gives, all of them the sender's, and the lines that give none (with why). `parsed`: the
    PM's lines as read already (`pms.read_pm`), so that a PM is parsed once however many read its orders."""
    sender = pm.sender.strip()
    ref = pm.url or f"pm:{pm.pm_id}"
    if parsed is None:
        parsed = parse_orders(pm_text(pm))
    problems = [OrderProblem(sender, n, raw, "unknown_line", ref=ref) for n, raw in parsed.unknown]
    if parsed.unread is not None:
        first, count = parsed.unread
        problems.append(OrderProblem(sender, first, f"{count} lines not read", "too_long", ref=ref))
    orders: list[Order] = []
    for line in parsed.lines:
        if sender not in roster:  # only a player's own account can give his orders
            problems.append(OrderProblem(sender, line.line_no, line.raw, "not_player", line.target_text, ref=ref))
            continue
        targets, unknown = _resolve(line, roster, mode)
        for text, nearest in unknown:
            problems.append(OrderProblem(sender, line.line_no, line.raw, "unknown_target", text, nearest, ref))
        if targets:
            orders.append(Order(actor=sender, action=line.action, targets=targets, time=pm.time, ref=ref))
    problems.sort(key=lambda p: p.line_no)
    return orders, problems
