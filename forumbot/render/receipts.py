"""The bot's answers to the PMs it reads between day ends (`forumbot watch`): receipts for orders and
commands, signups, relays, answers to the moderators' verdicts, and the question to a player whose PM may be
for several games. Every word a player or a moderator reads there is made here."""

from __future__ import annotations

from collections.abc import Sequence

from forumbot.render.bbcode import escape

WHICH_GAME_SUBJECT = "Ваше письмо ведущему: для какой игры?"


def which_game_text(games: Sequence[str], subject: str) -> str:
    """The answer to a PM that may be for any of `games`: nothing in it was taken, and how to say which."""
    named = ", ".join(f"«{escape(game)}»" for game in games)
    shown = f" «{escape(subject)}»" if subject.strip() else ""
    example = escape(games[0])
    return (
        f"Ваше письмо{shown} не принято: вы играете в нескольких играх ({named}), и по письму не видно, к какой "
        "из них оно относится.\n"
        f"Пришлите его ещё раз, написав название игры в теме письма (например, «{example}: приказ»), "
        "или ответьте на письмо бота из нужной игры."
    )
