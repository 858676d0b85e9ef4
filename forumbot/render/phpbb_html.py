"""BBCode -> HTML the way phpBB 3.3 renders a post (its s9e TextFormatter setup, prosilver templates).

What is reproduced, checked against the captured pages in fixtures/phpbb/ and fixtures/phpbb-ru/:
- `[b]` -> `<strong class="text-strong">`, `[i]` -> `<em class="text-italics">`,
  `[u]` -> `<span style="text-decoration:underline">`, `[color=X]` -> `<span style="color:X">` with X as
  typed (validated like s9e's #color filter), `[size=N]`, `[url]`/`[url=...]` (`a.postlink`), `[img]`,
  `[code]`, `[list]`/`[list=1]`/`[*]`, `[quote]`, `[quote="name"]`, `[quote=name post_id=N time=T user_id=U]`
  (the Quote button's form: `blockquote[cite]`, profile link, ↑ link, date in the viewer's format), and the PM
  form `[quote=name msg_id=N time=T user_id=U]` (↑ to the PM); "wrote:" in the viewer's language;
- line breaks `<br>` followed by the newline; whitespace around block tags (quote, list, items, code) is
  kept raw instead of becoming `<br>` (one line before a tag, one after a start tag, two after an end tag);
- tags are case-insensitive; unknown, invalid or unmatched tags stay as literal text; tags left open are
  closed at the end; formatting tags closed by a misnested end tag are reopened after it; quotes nest up
  to 3 deep (deeper ones stay literal); empty implicit tags vanish;
- magic URLs (`http://`, `https://`, `ftp://`, `www.`) become links, long ones shortened in the text;
- the default smilies, where a smiley stands alone (after a space or at the start of a line);
- everything else is HTML-escaped (`&`, `<`, `>`): a hostile text comes out inert.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from html import escape

__all__ = ["QUOTE_DEPTH", "SMILIES", "quote_depth", "render_bbcode", "source_as_html"]

DateFormatter = Callable[[int], str]  # unix time -> the viewer's date text

QUOTE_DEPTH = 3  # phpBB's max_quote_depth default
NESTING_LIMIT = 10
_WHITESPACE = " \n\t"

# (code, file, width, height, title), as the posting form of the captured board lists them
SMILIES: tuple[tuple[str, str, int, int, str], ...] = (
    (":D", "icon_e_biggrin.gif", 15, 17, "Very Happy"),
    (":)", "icon_e_smile.gif", 15, 17, "Smile"),
    (";)", "icon_e_wink.gif", 15, 17, "Wink"),
    (":(", "icon_e_sad.gif", 15, 17, "Sad"),
    (":o", "icon_e_surprised.gif", 15, 17, "Surprised"),
    (":shock:", "icon_eek.gif", 15, 17, "Shocked"),
    (":?", "icon_e_confused.gif", 15, 17, "Confused"),
    ("8-)", "icon_cool.gif", 15, 17, "Cool"),
    (":lol:", "icon_lol.gif", 15, 17, "Laughing"),
    (":x", "icon_mad.gif", 15, 17, "Mad"),
    (":P", "icon_razz.gif", 15, 17, "Razz"),
    (":oops:", "icon_redface.gif", 15, 17, "Embarrassed"),
    (":cry:", "icon_cry.gif", 15, 17, "Crying or Very Sad"),
    (":evil:", "icon_evil.gif", 15, 17, "Evil or Very Mad"),
    (":twisted:", "icon_twisted.gif", 15, 17, "Twisted Evil"),
    (":roll:", "icon_rolleyes.gif", 15, 17, "Rolling Eyes"),
    (":!:", "icon_exclaim.gif", 15, 17, "Exclamation"),
    (":?:", "icon_question.gif", 15, 17, "Question"),
    (":idea:", "icon_idea.gif", 15, 17, "Idea"),
    (":arrow:", "icon_arrow.gif", 15, 17, "Arrow"),
    (":|", "icon_neutral.gif", 15, 17, "Neutral"),
    (":mrgreen:", "icon_mrgreen.gif", 15, 17, "Mr. Green"),
    (":geek:", "icon_e_geek.gif", 17, 17, "Geek"),
    (":ugeek:", "icon_e_ugeek.gif", 17, 18, "Uber Geek"),
)
_SMILEY_BY_CODE = {s[0]: s for s in SMILIES}
_SMILEY_RE = re.compile(
    r"(?:(?<=\s)|^)("
    + "|".join(re.escape(code) for code, *_ in sorted(SMILIES, key=lambda s: -len(s[0])))
    + r")(?!\w)",
    re.M,
)
_MAGIC_URL = re.compile(r"(?<![\w/@.])(?:(?:https?|ftp)://|www\.)[^\s()\[\]<>\"']+", re.I)
_URL_TRAILING = re.compile(r"[!\"#$%&'(*,.:;<>?@\[\\\]^`{|}~]+$")
_COLOR = re.compile(r"(?:#[0-9a-f]{3,6}|rgb\(\d{1,3}, *\d{1,3}, *\d{1,3}\)|[a-z]+)", re.I)
_URL_OK = re.compile(r"(?:https?|ftp)://[^\s\"'<>\\]+", re.I)
_UINT = re.compile(r"\d+")
_NAME = re.compile(r"(\*|[a-z]+)", re.I)
_ATTR_NAME = re.compile(r"[a-z_][a-z0-9_]*", re.I)
_LIST_TYPES = {"1": "decimal", "a": "lower-alpha", "A": "upper-alpha", "i": "lower-roman", "I": "upper-roman"}

_FORMATTING = frozenset({"b", "i", "u", "color", "size"})  # reopened after a misnested end tag
_BLOCK = frozenset({"quote", "list", "*", "code"})  # whitespace around them is not turned into <br>
_KNOWN = _FORMATTING | _BLOCK | {"url", "img"}


@dataclass
class _Token:
    name: str
    pos: int
    length: int
    end: bool
    default: str | None = None
    attrs: dict[str, str] = field(default_factory=dict)


@dataclass
class _Open:
    name: str
    close_html: str
    token: _Token | None  # None: an implicit tag (auto list item, reopened formatting)
    out_mark: int  # len(out) right after the opening HTML
    open_html: str


def render_bbcode(source: str, format_date: DateFormatter | None = None, *, wrote: str = "wrote:") -> str:
    """The HTML phpBB would put in `div.content` for this BBCode source; `wrote` is the language pack's word
    after a quoted author ("писал(а):" in Russian)."""
    return _Renderer(source.replace("\r\n", "\n").replace("\r", "\n"), format_date, wrote).render()


def quote_depth(source: str) -> int:
    """How deep the source's quotes nest (phpBB refuses to post more than `QUOTE_DEPTH`)."""
    depth = deepest = 0
    for token in _Renderer(source, None)._scan():
        if token.name == "quote":
            depth = max(0, depth - 1) if token.end else depth + 1
            deepest = max(deepest, depth)
    return deepest


def source_as_html(source: str) -> str:
    """The BBCode source as phpBB prints it in hidden `div#message_N` (topic review): escaped, `<br />`."""
    return escape(source.replace("\r\n", "\n"), quote=False).replace("\n", "<br />")


class _Renderer:
    def __init__(self, text: str, format_date: DateFormatter | None, wrote: str = "wrote:") -> None:
        self.text = text
        self.format_date = format_date
        self.wrote = wrote
        self.out: list[str] = []
        self.pos = 0
        self.ws_pos = 0
        self.stack: list[_Open] = []

    # -- scanning -------------------------------------------------------------------------------

    def _scan(self) -> list[_Token]:
        text, i = self.text, 0
        tokens: list[_Token] = []
        code_open = False
        while True:
            i = text.find("[", i)
            if i < 0:
                return tokens
            token = _parse_tag(text, i)
            if token is None or token.name not in _KNOWN or (code_open and not (token.end and token.name == "code")):
                i += 1
                continue
            if token.name == "code":
                code_open = not token.end
            tokens.append(token)
            i = token.pos + token.length

    # -- output ---------------------------------------------------------------------------------

    def render(self) -> str:
        tokens = self._scan()
        skip_until = -1
        for k, token in enumerate(tokens):
            if token.pos < skip_until:
                continue
            if token.end:
                self._end_tag(token)
                continue
            if token.name == "url" and token.default is None:  # [url]http://...[/url]: the content is the URL
                end = next((t for t in tokens[k + 1 :] if t.end and t.name == "url"), None)
                content = self.text[token.pos + token.length : end.pos] if end is not None else ""
                if end is not None and _clean_url(content) is not None and "[" not in content:
                    token.default = content
                    self._start_tag(token)
                    self._emit_text(end.pos, 0, links=False)
                    self._end_tag(end)
                    skip_until = end.pos + end.length
                continue
            if token.name == "img":
                end = next((t for t in tokens[k + 1 :] if t.end and t.name == "img"), None)
                src = self.text[token.pos + token.length : end.pos] if end is not None else ""
                url = _clean_url(src) if end is not None else None
                if end is not None and url is not None:
                    self._emit_text(token.pos, 0)
                    self.out.append(f'<img src="{escape(url)}" class="postimage" alt="Image">')
                    self.pos = end.pos + end.length
                    skip_until = self.pos
                continue
            self._start_tag(token)
        self._emit_text(len(self.text), 0)
        while self.stack:
            self._close_top()
        return "".join(self.out)

    def _emit_text(self, until: int, max_lines: int, *, links: bool = True) -> None:
        """Output the text from the cursor up to `until`; up to `max_lines` lines of whitespace at its end
        (and whitespace skipped after the previous tag) go out raw, the rest escaped with `<br>`."""
        if self.pos >= until:
            return
        if self.ws_pos > self.pos:
            skip = min(until, self.ws_pos)
            self.out.append(self.text[self.pos : skip])
            self.pos = skip
            if self.pos >= until:
                return
        if self._in("list") and not self._in("*"):  # text between list items is dropped, whitespace kept
            chunk = self.text[self.pos : until]
            if not chunk.strip(_WHITESPACE):
                self.out.append(chunk)
            self.pos = until
            return
        ignore_at = until
        lines = max_lines
        while lines and ignore_at - 1 >= self.pos and self.text[ignore_at - 1] in _WHITESPACE:
            ignore_at -= 1
            if self.text[ignore_at] == "\n":
                lines -= 1
        chunk = self.text[self.pos : ignore_at]
        if chunk:
            if self._in("code"):
                self.out.append(escape(chunk, quote=False))
            else:
                self.out.append(_format_text(chunk, links=links and not self._in("url")))
        self.out.append(self.text[ignore_at:until])
        self.pos = until

    def _in(self, name: str) -> bool:
        return any(o.name == name for o in self.stack)

    def _count(self, name: str) -> int:
        return sum(1 for o in self.stack if o.name == name)

    def _start_tag(self, token: _Token) -> None:
        name = token.name
        limit = QUOTE_DEPTH if name == "quote" else NESTING_LIMIT
        if self._count(name) >= limit:
            return
        if name == "*" and not (self._in("list")):
            return
        html = self._open_html(token)
        if html is None:
            return
        open_html, close_html = html
        skip_before, skip_after = (1, 1) if name in _BLOCK else (0, 0)
        self._emit_text(token.pos, skip_before)
        if name == "*":  # an item closes the previous item of its list
            while self.stack and self.stack[-1].name not in ("*", "list"):
                self._close_top()
            if self.stack and self.stack[-1].name == "*":
                self._close_top()
        self.out.append(open_html)
        self.stack.append(_Open(name, close_html, token, len(self.out), open_html))
        self._advance(token, skip_after)
        if name == "list":  # #createChild=LI: text before the first [*] is an item too
            self.out.append("<li>")
            self.stack.append(_Open("*", "</li>", None, len(self.out), "<li>"))
        if name == "code":  # TrimFirstLineInCodeBlocks
            if self.text.startswith("\n", self.pos):
                self.pos += 1
                self.ws_pos = max(self.ws_pos, self.pos)

    def _end_tag(self, token: _Token) -> None:
        name = token.name
        depth = next((k for k in range(len(self.stack) - 1, -1, -1) if self.stack[k].name == name), None)
        if depth is None:
            return  # unmatched: stays literal
        skip = (1, 2) if name in _BLOCK else (0, 0)
        self._emit_text(token.pos, skip[0])
        reopen: list[_Open] = []
        while len(self.stack) - 1 > depth:
            closed = self._close_top()
            if closed.name in _FORMATTING:
                reopen.append(closed)
        self._close_top()
        self._advance(token, skip[1])
        for closed in reversed(reopen):
            self.out.append(closed.open_html)
            self.stack.append(_Open(closed.name, closed.close_html, None, len(self.out), closed.open_html))

    def _advance(self, token: _Token, skip_lines: int) -> None:
        self.pos = token.pos + token.length
        self.ws_pos = self.pos
        while skip_lines and self.ws_pos < len(self.text) and self.text[self.ws_pos] == "\n":
            skip_lines -= 1
            self.ws_pos += 1

    def _close_top(self) -> _Open:
        top = self.stack.pop()
        inside = self.out[top.out_mark :]
        if top.token is None and not "".join(inside).strip(_WHITESPACE):  # an empty implicit tag disappears
            del self.out[top.out_mark - 1]  # its opening tag; the whitespace it held stays raw
        else:
            self.out.append(top.close_html)
        return top

    def _open_html(self, token: _Token) -> tuple[str, str] | None:
        name, value = token.name, token.default
        if name == "b":
            return '<strong class="text-strong">', "</strong>"
        if name == "i":
            return '<em class="text-italics">', "</em>"
        if name == "u":
            return '<span style="text-decoration:underline">', "</span>"
        if name == "color":
            if value is None or not _COLOR.fullmatch(value):
                return None
            return f'<span style="color:{escape(value)}">', "</span>"
        if name == "size":
            if value is None or not value.isdigit() or not 1 <= int(value) <= 200:
                return None
            return f'<span style="font-size:{int(value)}%;line-height:116%">', "</span>"
        if name == "url":
            url = _clean_url(value) if value is not None else None
            if url is None:
                return None
            return f'<a href="{escape(url)}" class="postlink">', "</a>"
        if name == "list":
            if value is None:
                return "<ul>", "</ul>"
            kind = _LIST_TYPES.get(value)
            if kind is None:
                return None
            tag = "ol" if kind in ("decimal", "lower-roman", "upper-roman", "lower-alpha", "upper-alpha") else "ul"
            return f'<{tag} style="list-style-type:{kind}">', f"</{tag}>"
        if name == "*":
            return "<li>", "</li>"
        if name == "code":
            return (
                '<div class="codebox"><p>Code: <a href="#" onclick="selectCode(this); return false;">Select all</a>'
                "</p><pre><code>",
                "</code></pre></div>",
            )
        if name == "quote":
            return self._quote_html(token), "</div></blockquote>"
        return None

    def _quote_html(self, token: _Token) -> str:
        author = token.default if token.default is not None else token.attrs.get("author")
        attrs = token.attrs
        post_id = attrs.get("post_id", "")
        msg_id = attrs.get("msg_id", "")
        user_id = attrs.get("user_id", "")
        stamp = attrs.get("time", "")
        post_url = f"./viewtopic.php?p={post_id}#p{post_id}" if _UINT.fullmatch(post_id) else None
        if author is None:
            return '<blockquote class="uncited"><div>'
        cite_attr = f' cite="{escape(post_url)}"' if post_url else ""
        if _UINT.fullmatch(user_id):
            who = f'<a href="./memberlist.php?mode=viewprofile&amp;u={user_id}">{escape(author, quote=False)}</a>'
        else:
            who = escape(author, quote=False)
        cite = f"{who} {escape(self.wrote, quote=False)}"
        if post_url:
            cite += (
                f' <a href="{escape(post_url)}" data-post-id="{post_id}" '
                'onclick="if(document.getElementById(hash.substr(1)))href=hash">↑</a>'
            )
        elif _UINT.fullmatch(msg_id):
            cite += f' <a href="./ucp.php?i=pm&amp;mode=view&amp;p={msg_id}" data-msg-id="{msg_id}">↑</a>'
        if _UINT.fullmatch(stamp) and self.format_date is not None:
            cite += f'<span class="responsive-hide">{escape(self.format_date(int(stamp)), quote=False)}</span>'
        return f"<blockquote{cite_attr}><div><cite>{cite}</cite>"


def _parse_tag(text: str, i: int) -> _Token | None:
    """A BBCode tag starting at text[i] == '[', or None."""
    j = i + 1
    end = text.startswith("/", j)
    if end:
        j += 1
    m = _NAME.match(text, j)
    if m is None:
        return None
    name = m.group(1).lower()
    j = m.end()
    if end:
        if text.startswith("]", j):
            return _Token(name, i, j + 1 - i, True)
        return None
    token = _Token(name, i, 0, False)
    if text.startswith("=", j):
        parsed = _attr_value(text, j + 1, default=True)
        if parsed is None:
            return None
        token.default, j = parsed
    while True:
        while j < len(text) and text[j] in " \t":
            j += 1
        if text.startswith("]", j):
            token.length = j + 1 - i
            return token
        m = _ATTR_NAME.match(text, j)
        if m is None or not text.startswith("=", m.end()):
            return None
        parsed = _attr_value(text, m.end() + 1, default=False)
        if parsed is None:
            return None
        token.attrs[m.group(0).lower()], j = parsed


_UNQUOTED_DEFAULT = re.compile(r"[^\]\n]*?(?=\s*\]|\s+[a-z_][a-z0-9_]*=)", re.I)
_UNQUOTED = re.compile(r"[^\s\]]*")


def _attr_value(text: str, j: int, *, default: bool) -> tuple[str, int] | None:
    """(value, position after it): "quoted" with backslash escapes, or unquoted as s9e reads it."""
    if j < len(text) and text[j] in "\"'":
        quote = text[j]
        k, value = j + 1, []
        while k < len(text):
            c = text[k]
            if c == "\\" and k + 1 < len(text) and text[k + 1] in (quote, "\\"):
                value.append(text[k + 1])
                k += 2
                continue
            if c == quote:
                return "".join(value), k + 1
            if c == "\n":
                return None
            value.append(c)
            k += 1
        return None
    m = (_UNQUOTED_DEFAULT if default else _UNQUOTED).match(text, j)
    if m is None:
        return None
    return m.group(0), m.end()


def _clean_url(value: str | None) -> str | None:
    if value is None:
        return None
    url = value.strip()
    if url.lower().startswith("www."):
        url = "http://" + url
    return url if _URL_OK.fullmatch(url) else None


def _format_text(chunk: str, *, links: bool) -> str:
    """Escape a run of plain text: magic URLs, smilies, `<br>` before each newline."""
    pieces: list[str] = []
    cursor = 0
    if links:
        for m in _MAGIC_URL.finditer(chunk):
            raw = _URL_TRAILING.sub("", m.group(0))
            if not raw or raw.lower() in ("www.", "http://", "https://", "ftp://"):
                continue
            pieces.append(_smilies(chunk[cursor : m.start()]))
            href = raw if "://" in raw else "http://" + raw
            shown = raw if len(raw) <= 55 else f"{raw[:39]} ... {raw[-10:]}"
            pieces.append(f'<a href="{escape(href)}" class="postlink">{escape(shown, quote=False)}</a>')
            cursor = m.start() + len(raw)
    pieces.append(_smilies(chunk[cursor:]))
    return "".join(pieces).replace("\n", "<br>\n")


def _smilies(chunk: str) -> str:
    out: list[str] = []
    cursor = 0
    for m in _SMILEY_RE.finditer(chunk):
        code, file, width, height, title = _SMILEY_BY_CODE[m.group(1)]
        out.append(escape(chunk[cursor : m.start()], quote=False))
        out.append(
            f'<img class="smilies" src="./images/smilies/{file}" width="{width}" height="{height}" '
            f'alt="{escape(code)}" title="{escape(title)}">'
        )
        cursor = m.end()
    out.append(escape(chunk[cursor:], quote=False))
    return "".join(out)
