"""The game's codes (roles, causes, winners, reasons, actions, events) as the host reads them.

In Russian, the bot's own words: those its posts and the moderators' preview already use
(`forumbot.render.phrases`, `forumbot.render.wording`), never a second copy; the events, which only the
host's audit names, from the catalogue. In English, the codes themselves, as `--json` prints them (JSON
always keeps the codes). Each function imports what it reads when called: `forumbot --help` loads none.
"""

from __future__ import annotations

from typing import Any

from forumbot.i18n import N_, _, russian

# What each event of a day's resolution is (`forumbot.engine.model.EventKind`), for the host's audit.
EVENTS: dict[str, str] = {
    "executed": N_("executed"),
    "killed": N_("killed"),
    "attacked": N_("attacked"),
    "saved": N_("saved"),
    "healed": N_("healed"),
    "blocked": N_("blocked"),
    "missed": N_("missed"),
    "abstained": N_("abstained"),
    "checked": N_("checked"),
    "inherited": N_("role inherited"),
    "new_sheriff": N_("new sheriff"),
    "new_maniac": N_("new maniac"),
    "new_boss": N_("new boss"),
    "inactive": N_("inactive"),
    "no_execution": N_("no execution"),
    "void": N_("void"),
    "audit": N_("audit"),
    "replaced": N_("replaced"),
    "removed_by_host": N_("removed by the host"),
    "role_changed": N_("role changed"),
    "best_player": N_("best player"),
    "left_game": N_("left the game"),
    "no_effect": N_("no effect"),
    "decided_by_host": N_("decided by the host"),
}


def role(code: str, boss: bool = False) -> str:
    """A role ("mafia", boss) as the host reads it: «мафиози (босс)» in Russian."""
    if not russian():
        return code + (" (boss)" if boss else "")
    from forumbot.render.phrases import ROLE_NAMES

    return ROLE_NAMES.get(code, code) + (" (" + _("boss") + ")" if boss else "")


def cause(code: str | None) -> str:
    if not russian() or not code:
        return code or ""
    from forumbot.render.wording import CAUSES

    return CAUSES.get(code, code)


def winner(code: str) -> str:
    """Who won ("town"): «победа мирных жителей» in Russian; "none" is nobody yet."""
    if code == "none":
        return _("none")
    if not russian():
        return code
    from forumbot.render.phrases import WINNER_TEXT

    return WINNER_TEXT.get(code, code)


def reason(code: str | None, why: Any = None, *, order: bool = False) -> str:
    """Why a vote or an order did not count: the code in English, the moderators' words in Russian."""
    if not russian():
        return code or ""
    from forumbot.render.wording import audit_reason

    return audit_reason(code, why, order=order)


def action(code: str | None) -> str:
    if not russian():
        return code or ""
    from forumbot.render.wording import action_word

    return action_word(code) if code else ""


def event(kind: str) -> str:
    return _(EVENTS[kind]) if russian() and kind in EVENTS else kind


def yes(flag: bool) -> str:
    return _("yes") if flag else ""


def yes_no(flag: bool) -> str:
    return _("yes") if flag else _("no")
