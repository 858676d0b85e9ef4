"""What the forms of IPB 2 and IPB 3 share, as a browser submits them: pure functions, a served form in,
the fields out. A browser sends the form's fields in document order (hidden ones, ticked boxes, the chosen
options, what was typed, textareas with their line breaks as CR LF) and, of its submit buttons, only the
one pressed: the send button a member clicks (the form's first), by its own name and value, or no button
field at all when that button has no name (IPB 2's PM form). No word of the board's language is here."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from forumbot.errors import ParseError
from forumbot.forum.markup import Element, text_of
from forumbot.forum.poster import Fields

__all__ = ["has_field", "send_button", "submitted"]


def _kind(el: Element) -> str:
    return (el.get("type") or ("submit" if el.tag == "button" else "text")).lower()


def send_button(form: Element) -> Element | None:
    """The form's send button: its first submit button in document order (the one a member clicks, and
    the one a browser presses when Enter is hit in a field)."""
    return next((el for el in form.iter("input", "button") if _kind(el) in ("submit", "image")), None)


def has_field(form: Element, name: str) -> bool:
    return any(el.get("name") == name for el in form.iter("input", "textarea", "select"))


def submitted(form: Element, values: Mapping[str, str], *, tick: Iterable[str] = ()) -> Fields:
    """The fields a browser sends when a member fills `form` with `values` (text inputs and textareas by
    name), ticks the boxes `tick` (each with its own value) and clicks its send button (`send_button`).
    A value for a field the form does not have is a `ParseError`: the board served another form."""
    missing = [name for name in [*values, *tick] if not has_field(form, name)]
    if missing:
        raise ParseError(f"the form {form.get('name') or form.get('id') or ''} has no field {', '.join(missing)}")
    ticked = set(tick)
    button = send_button(form)
    fields: Fields = []
    for el in form.iter("input", "textarea", "select", "button"):
        name = el.get("name")
        if not name or el.get("disabled") is not None:
            continue
        if el.tag == "textarea":
            fields.append((name, _crlf(values[name] if name in values else el.text or "")))
        elif el.tag == "select":
            fields.extend((name, value) for value in _chosen(el))
        else:
            kind = _kind(el)
            if kind in ("submit", "image"):
                if button is not None and el is button:
                    fields.append((name, el.get("value") if el.get("value") is not None else text_of(el)))
            elif kind in ("checkbox", "radio"):
                if el.get("checked") is not None or (kind == "checkbox" and name in ticked):
                    fields.append((name, el.get("value") or "on"))
            elif kind not in ("file", "reset", "button"):
                fields.append((name, values[name] if name in values else el.get("value") or ""))
    return fields


def _crlf(text: str) -> str:
    """A textarea's value as browsers send it: every line break as CR LF."""
    return text.replace("\r\n", "\n").replace("\r", "\n").replace("\n", "\r\n")


def _chosen(select: Element) -> list[str]:
    options = list(select.iter("option"))
    chosen = [o for o in options if o.get("selected") is not None]
    if not chosen and options and select.get("multiple") is None:
        chosen = options[:1]
    return [o.get("value") if o.get("value") is not None else text_of(o) for o in chosen]
