"""lxml helpers shared by the forum page parsers.

Every page is parsed once (`parse_html`); the parsers then walk the tree with plain lxml calls.
A parsed tree may be passed instead of the raw page to any `parse_*` function, so a caller that
has already parsed a page (saved pages: detection, then parsing) never parses it twice.
"""

from __future__ import annotations

import codecs
import re
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeAlias, TypeVar
from urllib.parse import urljoin

from lxml import etree

from forumbot.errors import N_, ParseError

_Item = TypeVar("_Item")
_Parsed = TypeVar("_Parsed")


def parse_each(
    items: Iterable[_Item], parse: Callable[[_Item], _Parsed], where: str
) -> tuple[tuple[_Parsed, ...], tuple[str, ...]]:
    """Parse every item; one that fails is reported ("where: why") and skipped, the others kept."""
    parsed: list[_Parsed] = []
    problems: list[str] = []
    for item in items:
        try:
            parsed.append(parse(item))
        except ParseError as exc:
            problems.append(f"{where}: {exc}")
    return tuple(parsed), tuple(problems)


Element: TypeAlias = Any  # lxml.etree._Element; lxml ships no type stubs here
Page: TypeAlias = str | bytes | Element  # a page as text, bytes, or a tree parse_html already made
# Sees each post body as a page is parsed: its HTML (`Post.content_html`) and its element in the page's
# tree, alive only during the call. What the caller reads from the body there (the extraction: its red
# and bold text) it need not parse again from the HTML.
BodyReader: TypeAlias = Callable[[str, Element], object]

_META_CHARSET = re.compile(rb"""<meta[^>]{0,200}?charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.I)
_XML_DECL = re.compile(r"^\s*<\?xml[^>]*\?>")
_SPACE = re.compile(r"\s+")
_BREAK = "\x0b"  # marks a rendered line break while text is collected
_BLOCKS = frozenset(
    "address article aside blockquote dd div dl dt fieldset figure footer form h1 h2 h3 h4 h5 h6 "
    "header hr li main nav ol p pre section table tbody td th thead tr ul".split()
)
_local = threading.local()
_FALLBACKS = ("utf-8", "cp1251")  # what a page that is not in its declared charset may be in (codec names)
_DAMAGE = "data-forumbot-damage"  # set on a parsed page's root: what was wrong with the page as a whole


def sniff_charset(data: bytes) -> str | None:
    """The charset a page declares in its first 4 KB (`<meta charset>` or http-equiv), if any."""
    m = _META_CHARSET.search(data, 0, 4096)
    return m.group(1).decode("ascii").lower() if m else None


def decode_bytes(data: bytes) -> str:
    """Bytes to text: the declared charset, else UTF-8, else windows-1251 (old Russian boards); see
    `decode_page` for a page whose bytes are not in the charset it declares."""
    return decode_page(data)[0]


def decode_page(data: bytes, declared: str | None = None) -> tuple[str, str, str | None]:
    """The page's text, the charset it was read in, and what was wrong with its charset (None: nothing).

    The declared charset is tried strictly. A page that is not in it (a windows-1251 board that says UTF-8)
    is read in the first of UTF-8 and windows-1251 that decodes it cleanly, and the mismatch reported; if
    none does, in the declared charset with the undecodable bytes replaced, and that reported. A page that
    declares nothing is UTF-8, else windows-1251. `declared`: a charset the page came with (an HTTP
    header's), which wins over the one it declares itself."""
    declared = codec_name(declared) or codec_name(sniff_charset(data))
    if declared is None:
        try:
            return data.decode("utf-8"), "utf-8", None
        except UnicodeDecodeError:
            return data.decode("windows-1251", errors="replace"), "windows-1251", None
    try:
        return data.decode(declared), declared, None
    except UnicodeDecodeError as exc:
        bad = exc
    for other in _FALLBACKS:
        if other == declared:
            continue
        try:
            text = data.decode(other)
        except UnicodeDecodeError:
            continue
        why = f"{bad.reason} at byte {bad.start}"
        said = f"the page declares the charset {_shown(declared)} but is not in it ({why})"
        return text, other, f"{said}: read as {_shown(other)}"
    others = " or ".join(_shown(c) for c in _FALLBACKS if c != declared)
    problem = (
        f"the page is in neither its charset {_shown(declared)} nor {others}: undecodable bytes were replaced, "
        "a vote in them may be lost"
    )
    return data.decode(declared, errors="replace"), declared, problem


def _shown(codec: str) -> str:
    """A codec as a page would name it."""
    return {"cp1251": "windows-1251", "cp1252": "windows-1252"}.get(codec, codec)


def codec_name(charset: str | None) -> str | None:
    """Python's own name of a charset (`windows-1251` -> `cp1251`), None when unknown."""
    if not charset:
        return None
    try:
        return codecs.lookup(charset).name
    except LookupError:
        return None


def _parser(encoding: str | None) -> etree.HTMLParser:
    cache: dict[str | None, etree.HTMLParser] | None = getattr(_local, "parsers", None)
    if cache is None:
        cache = _local.parsers = {}
    parser = cache.get(encoding)
    if parser is None:
        # huge_tree: libxml2's default depth limit (256) drops the rest of a page after one deeply nested post
        parser = cache[encoding] = etree.HTMLParser(encoding=encoding, no_network=True, huge_tree=True)
    return parser


REPLACED = "the page holds characters its charset could not decode (shown as \ufffd): a vote in them may be lost"


def parse_html(page: Page) -> Element:
    """Parse a page once. Bytes are decoded by their declared charset (else UTF-8, else windows-1251); what
    was wrong with the page as a whole (its charset, a nesting too deep to parse) is kept with the tree for
    `page_problems`."""
    if isinstance(page, etree._Element):
        return page
    problems: list[str] = []
    if isinstance(page, bytes):
        if not page or page.isspace():
            raise ParseError(N_("empty page"))
        root, parser = _parsed_as_utf8(page)
        if root is None:
            text, codec, problem = decode_page(page)
            if problem is None:  # the bytes are what they say: libxml2 decodes them itself
                parser = _parser(codec)
                root = etree.fromstring(page, parser)
            else:
                problems.append(problem)
                parser = _parser(None)
                root = etree.fromstring(_XML_DECL.sub("", text, count=1), parser)
    else:
        text = _XML_DECL.sub("", page, count=1)
        if not text or text.isspace():
            raise ParseError(N_("empty page"))
        parser = _parser(None)
        root = etree.fromstring(text, parser)
        if "\ufffd" in text:  # decoded before it came here, with the undecodable bytes replaced
            problems.append(REPLACED)
    if root is None:
        raise ParseError(N_("empty page"))
    problems += [f"the page is damaged ({message}): what follows is lost" for message in _depth_errors(parser)]
    if problems:
        root.set(_DAMAGE, "\n".join(problems))
    return root


# libxml2 2.14 reports every byte sequence Python's strict UTF-8 decoder refuses (bad, overlong, surrogate,
# beyond U+10FFFF, cut off) as ERR_INVALID_ENCODING; older ones may read such a page as Latin-1 instead.
_LIBXML2_CHECKS_UTF8 = etree.LIBXML_VERSION >= (2, 14)


def _parsed_as_utf8(page: bytes) -> tuple[Element | None, etree.HTMLParser | None]:
    """The page parsed as UTF-8 when it declares UTF-8 or nothing and libxml2 found every byte of it UTF-8
    (what `decode_page` would have checked, without decoding the page a second time in Python); else None."""
    if not _LIBXML2_CHECKS_UTF8 or codec_name(sniff_charset(page)) not in (None, "utf-8"):
        return None, None
    parser = _parser("utf-8")
    root = etree.fromstring(page, parser)
    if any(entry.type_name == "ERR_INVALID_ENCODING" for entry in parser.error_log):
        return None, None
    return root, parser


def _depth_errors(parser: etree.HTMLParser) -> list[str]:
    """The parser's report that the page nests deeper than it can follow (it drops the rest of the page)."""
    for entry in parser.error_log:
        if entry.type_name == "ERR_RESOURCE_LIMIT" or "Excessive depth" in entry.message:
            return [entry.message.split(",")[0].strip()]
    return []


def page_problems(root: Element, url: str | None = None) -> tuple[str, ...]:
    """What `parse_html` found wrong with the page as a whole (a charset it is not in, a nesting too deep),
    each "where: why" like a post's problem."""
    note: str | None = root.get(_DAMAGE)
    return tuple(f"{page_label(root, url)}: {problem}" for problem in note.split("\n")) if note else ()


# --- a page proves it came whole --------------------------------------------------------------------

_HTML_END = re.compile(r"</html\s*>", re.I)
_HTML_END_BYTES = re.compile(rb"</html\s*>", re.I)
NO_END = "it stops before its end (no </html>)"


def closes_html(source: str | bytes) -> bool:
    """Whether the page's text reaches its closing `</html>` (what a board or a proxy adds after it is
    ignored). A page cut short, sent without a Content-Length, looks complete to HTTP: this is how it shows."""
    if isinstance(source, bytes):
        return _HTML_END_BYTES.search(source, max(0, len(source) - 4096)) is not None or (
            _HTML_END_BYTES.search(source) is not None
        )
    return _HTML_END.search(source, max(0, len(source) - 4096)) is not None or _HTML_END.search(source) is not None


def first_by_id(root: Element, tag: str, ident: str) -> Element | None:
    """The page's `tag#ident`, found through the parser's table of ids (a search of a big page's elements in
    Python takes a thousand times longer)."""
    return next((el for el in _BY_ID(root, ident=ident) if el.tag == tag), None)


_BY_ID = etree.XPath("id($ident)")  # compiled once: `root.xpath` compiles its expression at every call


def may_hold(root: Element, tag: str, ident: str) -> bool:
    """Whether the page may hold a `tag` element whose id is `ident`: False only when it surely holds none.
    libxml2 keeps a table of a parsed page's ids (lxml's `collect_ids`), so the answer costs a lookup, not a
    walk of the whole tree (some 0.3 ms a topic page); the table keeps the first element of an id, and an
    anchor's name too, so a first element of another tag is followed by the walk. A page check whose subject
    is such an element can skip the pages that hold none."""
    found = _BY_ID(root, ident=ident)
    if found and found[0].tag == tag:
        return True
    return bool(found) and any(element.get("id") == ident for element in root.iter(tag))


def expected_count(page: int, pages: int, per_page: int | None, total: int | None) -> int | None:
    """How many items (posts, rows) page `page` of `pages` holds when a page holds `per_page` and all pages
    `total` (None: the page does not say enough to tell): a page before the last is full, the last holds
    the rest."""
    if pages <= 1:
        return total
    if page < pages:
        return per_page
    if per_page is None or total is None:
        return None
    return total - (pages - 1) * per_page


def count_mismatch(found: int, expected: int | None, what: str, where: str, *, exact: bool = True) -> str | None:
    """What is wrong when `found` items are not the `expected` ones (fewer; or, `exact`, more): None when
    nothing is, or when the page does not say how many it holds."""
    if expected is None or found == expected or (found > expected and not exact):
        return None
    return f"{found} {what} where {where} {expected}"


def has_class(el: Element, name: str) -> bool:
    cls: str | None = el.get("class")
    return cls is not None and name in cls.split()


def iter_class(root: Element, tag: str, name: str) -> Iterator[Element]:
    """Elements `tag` under `root` (itself included) whose class list holds `name`."""
    for el in root.iter(tag):
        cls = el.get("class")
        if cls and name in cls.split():
            yield el


def first_class(root: Element, tag: str, name: str) -> Element | None:
    return next(iter_class(root, tag, name), None)


def text_of(el: Element | None) -> str:
    """The element's text with whitespace collapsed (comments are skipped)."""
    if el is None:
        return ""
    if not len(el) and isinstance(el.tag, str):  # an element without children: its own text, as itertext gives it
        text = el.text
        return " ".join(text.split()) if text else ""
    return " ".join("".join(el.itertext()).split())


def serialize(el: Element) -> str:
    """The element as HTML, its tail excluded."""
    return str(etree.tostring(el, encoding="unicode", method="html", with_tail=False))


def handed_over(body: Element, on_body: BodyReader | None) -> str:
    """A post body serialised (its `content_html`), handed with its element to `on_body` if there is one."""
    html = serialize(body)
    if on_body is not None:
        on_body(html, body)
    return html


def drop(el: Element) -> None:
    """Remove an element from its tree, keeping its tail text in place."""
    parent = el.getparent()
    if parent is None:
        return
    tail = el.tail
    if tail:
        prev = el.getprevious()
        if prev is not None:
            prev.tail = (prev.tail or "") + tail
        else:
            parent.text = (parent.text or "") + tail
    parent.remove(el)


def text_lines(el: Element, skip: Callable[[Element], bool] | None = None) -> list[str]:
    """The rendered lines of an element: `<br>` and block elements break lines, source newlines
    do not; subtrees for which `skip` is true (quotes) are left out. Empty lines are dropped."""
    parts: list[str] = []
    _collect(el, parts, skip)
    lines = (" ".join(chunk.split()) for chunk in "".join(parts).split(_BREAK))
    return [line for line in lines if line]


def _collect(el: Element, parts: list[str], skip: Callable[[Element], bool] | None) -> None:
    if el.text:
        parts.append(el.text)
    for child in el:
        tag = child.tag
        if isinstance(tag, str):
            if tag == "br":
                parts.append(_BREAK)
            elif skip is not None and skip(child):
                parts.append(_BREAK)
            elif tag in _BLOCKS:
                parts.append(_BREAK)
                _collect(child, parts, skip)
                parts.append(_BREAK)
            else:
                _collect(child, parts, skip)
        if child.tail:
            parts.append(child.tail)


_PARAM_CACHE: dict[str, re.Pattern[str]] = {}


def query_int(href: str | None, name: str) -> int | None:
    """The integer value of query parameter `name` in a link (`&` or `&amp;` separated)."""
    if not href:
        return None
    pat = _PARAM_CACHE.get(name)
    if pat is None:
        pat = _PARAM_CACHE[name] = re.compile(r"(?:[?&;]|&amp;)" + re.escape(name) + r"=(\d+)")
    m = pat.search(href)
    return int(m.group(1)) if m else None


def absolute(base: str | None, href: str | None) -> str | None:
    """`href` resolved against `base` (kept as is without a base)."""
    if href is None:
        return None
    href = href.strip()
    return urljoin(base, href) if base else href


def collapse(text: str | None) -> str:
    return _SPACE.sub(" ", text or "").strip()


def page_label(root: Element, url: str | None) -> str:
    """How an error message names a page: its URL, else its <title>."""
    if url:
        return url
    title = collapse(root.findtext(".//title"))
    return f"page titled {title!r}" if title else "untitled page"


def form_fields(form: Element, *, text_fields: bool) -> dict[str, str]:
    """What a browser would submit from a form, minus submit buttons and file inputs:
    hidden inputs, checked checkboxes and radios, and (with `text_fields`) text inputs and
    textareas. A repeated name keeps its last value, as PHP does. `_action` is the form action."""
    fields: dict[str, str] = {"_action": form.get("action") or ""}
    for el in form.iter("input", "textarea"):
        name = el.get("name")
        if not name:
            continue
        if el.tag == "textarea":
            if text_fields:
                fields[name] = el.text or ""
            continue
        kind = (el.get("type") or "text").lower()
        if kind == "hidden":
            fields[name] = el.get("value") or ""
        elif kind in ("checkbox", "radio"):
            if el.get("checked") is not None:
                fields[name] = el.get("value") or "on"
        elif kind in ("text", "email", "number", "search") and text_fields:
            fields[name] = el.get("value") or ""
    return fields


def find_form(root: Element, form_id: str) -> Element | None:
    """The page's `form#<form_id>`, if any."""
    return next((form for form in root.iter("form") if form.get("id") == form_id), None)


def submit_buttons(form: Element) -> dict[str, str]:
    """The form's named submit buttons, name -> the value the browser sends when it is pressed
    (`<input type=submit>` and `<button>`, whose type defaults to submit)."""
    buttons: dict[str, str] = {}
    for el in form.iter("input", "button"):
        name = el.get("name")
        kind = (el.get("type") or ("submit" if el.tag == "button" else "text")).lower()
        if name and kind in ("submit", "image"):
            buttons.setdefault(name, el.get("value") if el.get("value") is not None else text_of(el))
    return buttons


def browser_fields(form: Element, *, press: str | None = None) -> list[tuple[str, str]]:
    """What a browser submits from `form` as served, in document order: hidden and text inputs,
    checked checkboxes and radios, the selected option of every select (the first when none is
    marked), textareas, and the one submit button `press` with its own value. Repeated names are
    all kept (PHP reads the last; `name[]` fields need every one)."""
    fields: list[tuple[str, str]] = []
    pressed = False
    for el in form.iter("input", "textarea", "select", "button"):
        name = el.get("name")
        if not name or el.get("disabled") is not None:
            continue
        if el.tag == "textarea":
            fields.append((name, el.text or ""))
        elif el.tag == "select":
            fields.extend((name, value) for value in _selected(el))
        else:
            kind = (el.get("type") or ("submit" if el.tag == "button" else "text")).lower()
            if kind in ("submit", "image"):
                if name == press and not pressed:
                    pressed = True
                    fields.append((name, el.get("value") if el.get("value") is not None else text_of(el)))
            elif kind in ("checkbox", "radio"):
                if el.get("checked") is not None:
                    fields.append((name, el.get("value") or "on"))
            elif kind not in ("file", "reset", "button"):
                fields.append((name, el.get("value") or ""))
    if press is not None and not pressed:
        raise ParseError(
            N_("the form {value} has no button {press!r}"),
            value=form.get("id") or form.get("action") or "",
            press=press,
        )
    return fields


def _selected(select: Element) -> list[str]:
    """The values a select submits: its selected options (the first option when none is marked and
    only one may be chosen)."""
    options = list(select.iter("option"))
    chosen = [o for o in options if o.get("selected") is not None]
    if not chosen and options and select.get("multiple") is None:
        chosen = options[:1]
    return [o.get("value") if o.get("value") is not None else text_of(o) for o in chosen]
