"""IPB 2's answers to a write, read: pure functions, the board's answer in, one outcome of
`forumbot.forum.outcome` out. Checked on what IPB 2.2.2's own handlers answer (`fixtures/ipb-real/ipb22/`):

- a new topic: a 302 to `showtopic=T` (and nothing more: the double-post guard answers a second one with a
  302 to the forum's newest topic, so the writer believes T only once its first post shows the marker);
- a reply: a 302 to `showtopic=T&st=S&gopid=P&#entryP` (`showtopic=T&#entryP` when posts are sorted newest
  first); the double-post guard's `showtopic=T&view=getlastpost` names nothing made: unknown;
- a PM and a moderator's close: a 200 redirect screen (`div#redirectwrap`, a meta refresh); the PM's id is
  not shown (its copy in «Отправленные» is found by the marker);
- a refusal: a 200 error page (skin_global Error: the reason in `div.errorwrap p`), for the form's request
  and its submission alike: flood control (its whole interval in seconds, for now), a stale `auth_key` (the
  form is fetched again, for now), a locked topic or no permission (for good), a dead session (a guest's
  page with the login form: logged out);
- a form served again: the PM form with its error box (`div.errorwrap`: no such member, too many copies),
  the posting form with the post's errors (`div.borderwrap > div.formsubtitle` and `span.postcolor`, e.g.
  too many quotes), or with a preview: refused for good, in the board's words.

IPB 2's own messages matched here (lang_error flood_control, del_post, locked_topic; err_no_such_member,
the copies' limit), Russian and English, are written here and nowhere else.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from forumbot.forum.invision.pages import logged_in, refusal
from forumbot.forum.ipb2.forms import copies_allowed, named_form
from forumbot.forum.markup import Element, has_class, iter_class, parse_html, query_int, text_of
from forumbot.forum.outcome import LoggedOut, Outcome, RefusedForGood, RefusedForNow, Stored, Unknown

__all__ = [
    "BAD_KEY",
    "FLOOD",
    "LOCKED",
    "NO_MEMBER",
    "TOO_MANY",
    "Redirect",
    "close_answer",
    "error_text",
    "flood_wait",
    "form_missing",
    "login_refusal",
    "pm_answer",
    "post_answer",
    "redirect_screen",
]

# IPB 2's own words (lang_error, lang_msg), Russian and English.
FLOOD = re.compile(r"(?:подождать|wait)\D{0,20}(\d+)\s*(?:секунд|second)", re.I)
BAD_KEY = re.compile(r"Неверная авторизация|authori[sz]ation (?:failed|key)", re.I)
LOCKED = re.compile(r"тема закрыта|topic is (?:closed|locked)", re.I)
NO_MEMBER = re.compile(r"Нет такого пользователя|не обнаружено|could not find|no such member|not (?:be )?found", re.I)
TOO_MANY = re.compile(r"копии личных сообщений нескольким|carbon cop(?:y|ies)", re.I)
_ENTRY = re.compile(r"#entry(\d+)")


@dataclass(frozen=True)
class Redirect:
    """IPB 2's redirect screen: what it says, and where its meta refresh leads."""

    said: str
    url: str


def redirect_screen(html: str | Element) -> Redirect | None:
    """The redirect screen (`div#redirectwrap`, a `meta http-equiv=refresh`), if the page is one."""
    root = parse_html(html)
    wrap = next((div for div in root.iter("div") if div.get("id") == "redirectwrap"), None)
    if wrap is None:
        return None
    first = next(wrap.iter("p"), None)
    lines = [line for line in (first.itertext() if first is not None else []) if line.strip()]
    said = " ".join(lines[0].split()) if lines else ""  # its first line: the second says "please wait"
    refresh = next((m.get("content") or "" for m in root.iter("meta") if m.get("http-equiv") == "refresh"), "")
    return Redirect(said, refresh.split("url=", 1)[1].strip() if "url=" in refresh else "")


def error_text(html: str | Element) -> str | None:
    """What IPB 2 said went wrong: the error box's reason (`div.errorwrap p`, the error page's and the PM
    form's), else the posting form's errors (`span.postcolor` under the `div.formsubtitle` heading); None
    if the page shows none."""
    root = parse_html(html)
    for wrap in iter_class(root, "div", "errorwrap"):
        reasons = [_words(p) for p in wrap.iter("p") if _words(p)]
        if reasons:
            return " ".join(reasons)
    return _post_errors(root)


def _words(el: Element) -> str:
    """An element's text, its lines (`<br />`) joined by spaces."""
    return " ".join(" ".join(el.itertext()).split())


def _post_errors(root: Element) -> str | None:
    for wrap in iter_class(root, "div", "borderwrap"):
        if any(child.tag == "div" and has_class(child, "formsubtitle") for child in wrap):
            errors = [text_of(span) for span in iter_class(wrap, "span", "postcolor") if text_of(span)]
            if errors:
                return " ".join(errors)
    return None


def login_refusal(html: str | Element) -> str | None:
    """Why the login form came back: its own error box (the post errors' structure above the form)."""
    return _post_errors(parse_html(html))


def flood_wait(html: str | Element) -> int | None:
    """The seconds flood control names (IPB 2: its whole interval), if the page is its error; else None."""
    m = FLOOD.search(error_text(html) or "")
    return int(m.group(1)) if m else None


def _refused(root: Element, said: str) -> Outcome:
    """An error page, read: flood control and a stale form for now, a guest's page logged out, the rest
    for good (a locked topic and no permission as such)."""
    flood = FLOOD.search(said)
    if flood:
        return RefusedForNow("flood", said, float(flood.group(1)))
    if BAD_KEY.search(said):
        return RefusedForNow("form_invalid", said)
    if not logged_in(root):
        return LoggedOut(said)
    if LOCKED.search(said) or refusal(root) is not None:
        return RefusedForGood(said, "no_permission")
    return RefusedForGood(said)


def _other(root: Element, html: str | None = None) -> Outcome:
    """An answer that is none of the write's own: an error page, a guest's page, else unknown. A page that
    stops before its end (`html` given, without `</html>`) is no guest's page: an answer cut short, which
    proves nothing (its marker decides)."""
    said = error_text(root)
    if said:
        return _refused(root, said)
    cut = html is not None and not html.rstrip().lower().endswith("</html>")
    if not logged_in(root) and not cut:
        return LoggedOut("the board answered with a guest's page")
    return Unknown(" ".join(text_of(root.find(".//title")).split()), "cut" if cut else "unproven")


# --- one outcome per kind of write ---------------------------------------------------------------------


def post_answer(locations: Sequence[str], html: str, made: Literal["topic", "reply"]) -> Outcome:
    """The board's answer to a new topic or a reply: `locations` are the redirects it answered with (the
    Location headers, in order), `html` the page they led to, or the page it answered with."""
    if locations:
        target = locations[0]
        if made == "reply":
            found = query_int(target, "gopid")
            entry = _ENTRY.search(target)
            if found is None and entry is not None:
                found = int(entry.group(1))
            return Stored(found) if found is not None else Unknown(f"redirected to {target}, which names no post")
        topic = query_int(target, "showtopic")
        return Stored(topic) if topic is not None else Unknown(f"redirected to {target}, which names no topic")
    root = parse_html(html)
    form = named_form(root, "REPLIER")
    if form is not None and any(el.get("name") == "Post" for el in form.iter("textarea")):
        return RefusedForGood(error_text(root) or "the posting form came back (a preview): nothing was posted")
    return _other(root, html)


def pm_answer(html: str) -> Outcome:
    """The board's answer to a PM: the redirect screen is stored (its id not shown); the form again with no
    such member, too many copies (with the number of recipients the board takes) or another error, for
    good; an error page as every write's."""
    root = parse_html(html)
    if redirect_screen(root) is not None:
        return Stored(None)
    form = named_form(root, "REPLIER")
    if form is not None and any(el.get("name") == "entered_name" for el in form.iter("input")):
        said = error_text(root) or "the PM form came back (a preview): nothing was sent"
        if NO_MEMBER.search(said):
            return RefusedForGood(said, "unknown_recipient")
        if TOO_MANY.search(said):
            return RefusedForGood(said, "too_many_recipients", copies_allowed(root) + 1)
        return RefusedForGood(said)
    return _other(root, html)


def close_answer(html: str) -> Outcome:
    """The board's answer to the moderators' close: the redirect screen (the same when the topic was closed
    already), else an error page."""
    root = parse_html(html)
    if redirect_screen(root) is not None:
        return Stored(None)
    return _other(root, html)


def form_missing(html: str) -> Outcome:
    """A page served where a form was asked for: flood control (checked already when the form is asked
    for: its whole interval, for now), a stale session, a locked topic or no permission, or an unexpected
    page (unknown: nothing was sent, the form is asked for again later)."""
    return _other(parse_html(html))
