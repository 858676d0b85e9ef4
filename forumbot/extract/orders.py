"""Orders in private messages: the line grammar of FORUM.md ("Orders in private messages").

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
  split, and then every part must name a player, or the order is void (RULES.md: an order naming an
  unknown player is void) and each unknown part is reported with its nearest player.

Formatting that leaks into the text is ignored: BBCode such as ``[b]Лечу[/b]`` or ``[color=red]...``,
inline HTML tags, ``**`` markers and quotes around the nick (``«Пётр»``).

Quoted or forwarded orders never count: the actor is always the PM's sender. `PrivateMessage.body_text`
already excludes quotes, but ``[quote]...[/quote]`` blocks and ``>``-quoted lines left in a text are
dropped here too, and a body rebuilt from HTML drops quote blocks.

kozanostra's ``#order <game> [<password>]`` line is recognised and ignored on any line; its text is never
kept (not in `OrderLine.raw`, not in `ParsedOrders.unknown`), only the fact that a password was there.
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
from forumbot.forum.models import PrivateMessage

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

_BBCODE = re.compile(
    r"\[/?(?:b|i|u|s|strike|color|size|font|center|left|right|highlight|background|glow|shadow)"
    r"(?:=[^\]]*)?\]",
    re.IGNORECASE,
)
_INLINE_TAG = re.compile(r"</?(?:b|strong|i|em|u|s|strike|span|font|small|big)\b[^>]*>", re.IGNORECASE)
_QUOTE_BLOCK = re.compile(
    r"\[quote(?:[= ][^\]]*)?\](?:(?!\[quote[\]= ]).)*?\[/quote\]", re.IGNORECASE | re.DOTALL
)
_QUOTE_PAIRS = (("«", "»"), ('"', '"'), ("“", "”"), ("„", "“"), ("'", "'"))


@dataclass(frozen=True, slots=True)
class OrderLine:
    """One recognised order line: what it orders and the target text as written (formatting removed)."""

    action: Action
    target_text: str
    line_no: int  # 1-based, counted in the text as given
    raw: str

    @property
    def target_parts(self) -> tuple[str, ...]:
        """The target text split for a double order ("A, B", "A и B"); one part when it is not split."""
        return split_targets(self.target_text) or (self.target_text,)


@dataclass(frozen=True, slots=True)
class ParsedOrders:
    lines: list[OrderLine] = field(default_factory=list)
    unknown: list[tuple[int, str]] = field(default_factory=list)  # (line_no, raw) of unrecognised lines
    password_seen: bool = False


ProblemReason = Literal["unknown_line", "unknown_target", "not_player"]


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


def parse_orders(body_text: str) -> ParsedOrders:
    """Every order line of a PM body, the unrecognised lines, and whether a ``#order`` password was seen.

    Never raises: any text gives a (possibly empty) result.
    """
    lines: list[OrderLine] = []
    unknown: list[tuple[int, str]] = []
    password_seen = False
    for line_no, line in enumerate(_drop_quote_blocks(body_text).splitlines(), 1):
        stripped = line.strip()
        if not stripped or stripped.startswith(">"):  # empty, or an e-mail style quoted line
            continue
        cleaned = _clean(stripped)
        if _ORDER_HEADER.match(cleaned):
            # "#order <game> [<password>]": the forum already knows the sender; keep nothing of it.
            password_seen = password_seen or len(cleaned.split()) >= 3
            continue
        order = parse_line(cleaned)
        if order is None:
            unknown.append((line_no, stripped))
        else:
            lines.append(OrderLine(order[0], order[1], line_no, stripped))
    return ParsedOrders(lines, unknown, password_seen)


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


def _body_text(pm: PrivateMessage) -> str:
    # The parser's body_text already lacks quotes; rebuild it from the HTML only when it is missing.
    return pm.body_text if pm.body_text.strip() else text_from_html(pm.body_html)


def _resolve(
    line: OrderLine, roster: Roster, mode: MatchMode
) -> tuple[tuple[str, ...], list[tuple[str, str | None]]]:
    """The line's target nicks, or () and the unknown parts with their nearest players."""
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
    pm: PrivateMessage, roster: Roster, *, mode: MatchMode = "strict"
) -> tuple[list[Order], list[OrderProblem]]:
    """The orders a PM gives, all of them the sender's, and the lines that give none (with why)."""
    sender = pm.sender.strip()
    ref = pm.url or f"pm:{pm.pm_id}"
    parsed = parse_orders(_body_text(pm))
    problems = [OrderProblem(sender, n, raw, "unknown_line", ref=ref) for n, raw in parsed.unknown]
    orders: list[Order] = []
    for line in parsed.lines:
        if sender not in roster:  # only a player's own account can give his orders
            problems.append(
                OrderProblem(sender, line.line_no, line.raw, "not_player", line.target_text, ref=ref)
            )
            continue
        targets, unknown = _resolve(line, roster, mode)
        for text, nearest in unknown:
            problems.append(
                OrderProblem(sender, line.line_no, line.raw, "unknown_target", text, nearest, ref)
            )
        if targets:
            orders.append(Order(actor=sender, action=line.action, targets=targets, time=pm.time, ref=ref))
    problems.sort(key=lambda p: p.line_no)
    return orders, problems
