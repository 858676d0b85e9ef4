"""What the moderators read by PM: the day's draft (the new topic as it will be posted, what was not counted
and why, the decisions made, the personal PMs the publication sends, how to answer), and the bot's answers to
their verdicts. Every word of it is made here; the host's wing decides and calls."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import tzinfo

from forumbot.draft import DayDraft
from forumbot.render.audit import decision_text, row_reason
from forumbot.render.bbcode import escape
from forumbot.render.messages import Message
from forumbot.render.wording import action_word

RULE = "——————————"
NO_COMMENT = "без комментария"  # a rejection without a reason, as the host's audit records it


def draft_subject(code: str | None, game: str, day: int) -> str:
    """A draft PM's subject, and the subject of the bot's answers about it (`code` None: no draft yet)."""
    # the code first: boards cut a PM's subject (IPB to 40 characters), and a reply keeps only what is left
    return f"[{code}] {game}: черновик итогов дня {day}" if code else f"{game}: черновик итогов дня {day}"


def draft_text(game: str, day: int, bbcode: str, approved_by: str | None, subject: str | None = None) -> str:
    """The moderators' PM: the new topic exactly as it will be posted (its subject and body)."""
    status = f"одобрен: {escape(approved_by)}" if approved_by else "[b]ещё не одобрен[/b]"
    title = f"Тема: [b]{escape(subject)}[/b]\n" if subject else ""
    return (
        f"Черновик итогов дня {day} игры [b]{escape(game)}[/b] ({status}).\n"
        "Так будет выглядеть новая тема:\n"
        f"{title}"
        f"{RULE}\n"
        f"{bbcode.rstrip()}\n"
        f"{RULE}\n"
    )


def audit_summary(draft: DayDraft, zone: tzinfo | None = None, limit: int = 15) -> str:
    """What the moderators should check before approving: every vote and order not counted and why, and
    the decisions of the host and the moderators. Nicks are escaped; the full audit is the preview page."""
    lines = [
        f"{escape(v.voter)} → {escape(v.target or '?')}: {escape(row_reason(v))}"
        for v in draft.votes
        if not v.counted and v.reason != "superseded"
    ]
    lines += [
        f"{escape(o.actor)}: {escape(o.line or ' '.join([action_word(o.action), *o.targets]))}: "
        f"{escape(row_reason(o))}"
        for o in draft.orders
        if not o.valid and o.reason not in ("superseded", "command")
    ]
    decided = [escape(decision_text(o, zone)) for o in draft.overrides]
    text = ""
    if lines:
        shown = lines[:limit] + ([f"… и ещё {len(lines) - limit}"] if len(lines) > limit else [])
        text += "\n[b]Не засчитано:[/b]\n" + "\n".join(shown) + "\n"
    if decided:
        text += "\n[b]Решения ведущего и модераторов:[/b]\n" + "\n".join(decided) + "\n"
    if draft.warnings:
        text += "\n[b]Требует решения ведущего:[/b]\n" + "\n".join(escape(w) for w in draft.warnings) + "\n"
    return text


def reports_note(reports: Sequence[Message], best: Message | None) -> str:
    """What the moderators' draft says of the personal PMs the publication sends besides the usual ones:
    the morning reports (how many, and one as a sample) and the best player's letter."""
    lines: list[str] = []
    if reports:
        sample = reports[0]
        lines += [
            f"С публикацией уйдут личные утренние газеты: {len(reports)} ЛС, по одному каждому живому игроку.",
            f"Пример — газета для {escape(sample.to or '')}:",
            RULE,
            sample.body.rstrip(),
            RULE,
        ]
    if best is not None:
        lines.append(f"Лучшему игроку ({escape(best.to or '')}) уйдёт ЛС: он ведёт следующую игру.")
    return "".join(f"{line}\n" for line in lines)


def how_to_answer(code: str) -> str:
    return (
        f"\nЧтобы одобрить черновик {code}, ответьте на это письмо одним словом: [b]Одобряю[/b].\n"
        "Чтобы отклонить: [b]Отклоняю[/b] и причина в той же строке или ниже — ведущий её увидит.\n"
        "Ответ на письмо с прежним черновиком ничего не решает.\n"
    )


# --- the answers to a moderator's verdict -------------------------------------------------------------


def no_draft(day: int) -> str:
    return f"Сейчас нет черновика итогов дня {day}: решать нечего."


def not_the_current_draft(day: int, named: Sequence[str], current: str) -> str:
    said = ", ".join(named) or "никакого"
    return (
        f"Ваш ответ относится не к текущему черновику дня {day} (в письме назван: {said}; текущий: {current}). "
        "Текущий черновик — в отдельном письме: ответьте на него."
    )


def already_approved(code: str, by: str) -> str:
    return f"Черновик {code} уже одобрен: {escape(by)}."


def approved(code: str) -> str:
    return f"Черновик {code} одобрен. Спасибо!"


def rejected(code: str) -> str:
    return f"Черновик {code} отклонён; ведущий увидит ваш комментарий."
