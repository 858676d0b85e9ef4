"""The Russian of every published text: each template of each variant rendered for a set of outcomes (the
render-support games and the scenario files), and the vote count, every nick marked so that the checks can
find it.

- A nick takes no case ending, so it may stand only where Russian wants the nominative: first on its line,
  after a colon, a dash, an arrow, a comma or a bracket, or beside a declined «игрок». The phrase texts are
  checked the same way before they are rendered.
- A nick that is the subject agrees with the player's gender (`O GENDER`): a woman is never «убит».
- No Latin word in a Russian game's texts but nicks, BBCode tags, URLs, codes with digits (SHA-256, U+2060),
  the one-letter order commands and the committed role list in its [code] block.
- A game without nights never speaks of one.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
import render_support as rs

from forumbot.engine import ruleset_for
from forumbot.engine.commitment import commitment_of
from forumbot.engine.model import DayOutcome, GameState
from forumbot.errors import ForumbotError
from forumbot.host.tally import render_tally_bbcode, tally_posts
from forumbot.posts import Post
from forumbot.render.day import render_day
from forumbot.render.messages import (
    render_check_messages,
    render_reveal,
    render_role_change_messages,
    render_role_messages,
)
from forumbot.render.phrases import GENDER_FORMS, GENDER_INDEX, PHRASES, PHRASES_AGREEING, speaks_of_night
from forumbot.scenario import parse_scenario, run_scenario

ROOT = Path(__file__).resolve().parents[2]
OPEN, CLOSE = "⟦", "⟧"  # a nick as the texts print it: ⟦Анна⟧
MARKED = re.compile(f"{OPEN}[^{CLOSE}]*{CLOSE}")
TAG = re.compile(r"\[/?[a-z*]+(?:=[^\]]*)?\]", re.I)
CODE_BLOCK = re.compile(r"\[code\].*?\[/code\]", re.S | re.I)
URL = re.compile(r"https?://\S+")
TOKEN = re.compile(r"[A-Za-z0-9+\-]+")
# What may stand right before a nick for it to be in the nominative: punctuation that opens a label or a
# list, or a declined «игрок» (an apposition: «тело игрока Анна»).
NOMINATIVE_PUNCTUATION = (":", "—", "→", ",", "(", "«", "!", ".", "?", ";")
APPOSITION_WORDS = {"игрок", "игрока", "игроку", "игроком", "игроке"}
GENDERS = ("male", "female", "plural")


def mark(nick: str) -> str:
    return f"{OPEN}{nick}{CLOSE}"


@dataclass(frozen=True)
class Text:
    where: str
    text: str
    variant: str
    genders: dict[str, str]


# --- the games -----------------------------------------------------------------------------------------


def _support_games() -> Iterator[tuple[str, list[rs.Day]]]:
    names = {
        nick: mark(nick)
        for nick in [p.nick for p in rs.gameru_players()] + [p.nick for p in rs.salon_players()] + KOZANOSTRA
    }
    yield "gameru", rs.gameru_days(names)
    yield "kozanostra", rs.kozanostra_days(names)
    yield "salon", rs.salon_days(names)


KOZANOSTRA = ["Дон", "Луиджи", "Каттани", "Айболит", "Шериф", "Джек", "Адвокат", "Ямада", "Анна", "Борис", "Вера"]
KOZANOSTRA += ["Глеб", "Дина"]


def _marked_scenario(path: Path) -> list[rs.Day] | None:
    """The scenario with every player's nick marked (in its player list and wherever it names him)."""
    text = path.read_text("utf-8")
    original = parse_scenario(text, str(path))
    newcomers = [r.new for day in original.days for r in day.day_input.replacements]
    players = [*original.initial_state().nicks(), *newcomers]
    for nick in sorted(players, key=len, reverse=True):
        text = re.sub(rf"(?<![\w⟦]){re.escape(nick)}(?![\w⟧])", mark(nick), text)
    try:
        scenario = parse_scenario(text, str(path))
        outcomes = run_scenario(scenario).outcomes
    except ForumbotError:
        return None  # a scenario about nick matching itself: marking changes what it tests
    befores = [scenario.initial_state(), *(o.state for o in outcomes[:-1])]
    return list(zip(befores, outcomes, strict=True))


def _scenario_games() -> Iterator[tuple[str, list[rs.Day]]]:
    for path in sorted((ROOT / "scenarios").rglob("*.yaml")):
        days = _marked_scenario(path)
        if days:
            yield str(path.relative_to(ROOT)), days


def _renders(name: str, days: list[rs.Day], genders: dict[str, str]) -> Iterator[Text]:
    first, _ = days[0]
    variant = first.variant
    config = rs.config(variant)

    def text(where: str, body: str) -> Text:
        return Text(f"{name}: {where}", body, variant, genders)

    for m in render_role_messages(config, first):
        yield text(f"role PM to {m.to}", f"{m.subject}\n{m.body}")
    for before, outcome in days:
        post = render_day(config, before, outcome, genders)
        yield text(f"day {outcome.day} post", f"{post.subject}\n{post.body}")
        checks = render_check_messages(config, before, outcome)
        for m in [*checks, *render_role_change_messages(config, before, outcome)]:
            yield text(f"day {outcome.day} PM to {m.to}", f"{m.subject}\n{m.body}")
    last: DayOutcome = days[-1][1]
    salt = "5a17c0de"  # digits in it: a salt of letters only would read as a word
    reveal = render_reveal(config, last.state, salt, commitment_of(first, salt), dealt=first)
    yield text("reveal", f"{reveal.subject}\n{reveal.body}")


def _vote_counts() -> Iterator[Text]:
    """The vote count with a leader, with a tie, and with no vote yet."""
    nicks = [mark(p.nick) for p in rs.gameru_players()]
    start = datetime(2026, 11, 29, 7, 0, tzinfo=UTC)
    moscow = ZoneInfo("Europe/Moscow")

    def post(i: int, voter: str, target: str) -> Post:
        body = f'<span style="color:red"><strong class="text-strong">{target}</strong></span>'
        return Post(
            post_id=i,
            topic_id=1,
            author=voter,
            author_id=None,
            time=start + timedelta(minutes=i),
            content_html=body,
            permalink=f"./viewtopic.php?p={i}",
        )

    ballots = {
        "leader": [(nicks[0], nicks[1]), (nicks[2], nicks[1]), (nicks[3], nicks[4])],
        "tie": [(nicks[0], nicks[1]), (nicks[2], nicks[3])],
        "no votes": [],
    }
    for name, votes in ballots.items():
        posts = [post(i + 1, voter, target) for i, (voter, target) in enumerate(votes)]
        tally = tally_posts(posts, nicks, deadline=start.replace(hour=20), read_at=start + timedelta(hours=3))
        body = render_tally_bbcode(tally, "Подсчёт голосов, день 1", zone=moscow)
        yield Text(f"vote count ({name})", body, "gameru-3.3", {})


def _everyone(state: GameState, gender: str) -> dict[str, str]:
    return {p.nick: gender for p in state.players}


def all_texts() -> list[Text]:
    """The support games for every gender; the scenario files (many more) for a woman's forms only."""
    texts: list[Text] = []
    for name, days in _support_games():
        for gender in GENDERS:
            texts += _renders(name, days, _everyone(days[0][0], gender))
    for name, days in _scenario_games():
        texts += _renders(name, days, _everyone(days[0][0], "female"))
    return texts + list(_vote_counts())


TEXTS = all_texts()
SCENARIOS_RENDERED = {t.where.split(":")[0] for t in TEXTS if t.where.startswith("scenarios/")}


def test_the_set_covers_every_variant_and_most_scenarios() -> None:
    assert {t.variant for t in TEXTS} == {"gameru-3.3", "kozanostra", "salon"}
    assert len(SCENARIOS_RENDERED) >= 0.9 * len(list((ROOT / "scenarios").rglob("*.yaml")))
    assert all(MARKED.search(t.text) for t in TEXTS if "post" in t.where)  # the nicks are there to check


# --- the checks ------------------------------------------------------------------------------------------


def _plain(line: str) -> str:
    return TAG.sub("", line)


def oblique_nicks(text: str) -> list[str]:
    """Each nick with what stands before it, where that is not a nominative frame."""
    found: list[str] = []
    for line in _plain(CODE_BLOCK.sub("", text)).splitlines():
        for m in MARKED.finditer(line):
            before = MARKED.sub("X", line[: m.start()]).rstrip()
            if not before or before.endswith(NOMINATIVE_PUNCTUATION):
                continue
            word = before.split()[-1]
            if word not in APPOSITION_WORDS:
                found.append(f"…{before[-30:]} {m.group()}")
    return found


def _sentences_led_by_a_nick(text: str) -> Iterator[tuple[str, str]]:
    """(nick, the rest of its sentence) for every sentence or list item a nick begins."""
    for line in _plain(CODE_BLOCK.sub("", text)).splitlines():
        for sentence in re.split(r"(?<=[.!?])\s+", line):
            m = MARKED.match(sentence.strip())
            if m:
                yield m.group()[1:-1], sentence.strip()[m.end() :]


def disagreements(text: str, genders: dict[str, str]) -> list[str]:
    """Words after a nick that leads its sentence in a gender form other than the player's."""
    wrong: list[str] = []
    for nick, rest in _sentences_led_by_a_nick(text):
        gender = genders.get(mark(nick)) or genders.get(nick) or "male"
        mine = GENDER_INDEX[gender]
        words = set(re.findall(r"[а-яё]+", MARKED.sub("", rest).lower()))
        for forms in GENDER_FORMS.values():
            wrong += [f"{nick}: {w}" for w in words & set(forms) if w != forms[mine] and forms.count(w) == 1]
    return wrong


def latin_words(text: str) -> list[str]:
    prose = URL.sub("", TAG.sub("", MARKED.sub("", CODE_BLOCK.sub("", text))))
    words = [w.strip("+-") for w in TOKEN.findall(prose)]
    return [w for w in words if sum(c.isalpha() for c in w) > 1 and not any(c.isdigit() for c in w)]


def ids(texts: list[Text]) -> list[str]:
    return [f"{t.where} [{next(iter(t.genders.values()), '')}]" for t in texts]


@pytest.mark.parametrize("text", TEXTS, ids=ids(TEXTS))
def test_no_nick_in_an_oblique_case(text: Text) -> None:
    assert oblique_nicks(text.text) == [], text.text


@pytest.mark.parametrize("text", TEXTS, ids=ids(TEXTS))
def test_a_nick_that_leads_agrees_with_the_players_gender(text: Text) -> None:
    assert disagreements(text.text, text.genders) == [], text.text
    assert "(а)" not in text.text and "(ла)" not in text.text  # no hedged endings either


@pytest.mark.parametrize("text", TEXTS, ids=ids(TEXTS))
def test_no_english_word(text: Text) -> None:
    assert latin_words(text.text) == [], text.text


def has_nights(variant: str) -> bool:
    return ruleset_for(GameState(variant=variant, seed=0, players=())).has_nights


NIGHTLESS = [t for t in TEXTS if not has_nights(t.variant)]


@pytest.mark.parametrize("text", NIGHTLESS, ids=ids(NIGHTLESS))
def test_a_game_without_nights_never_speaks_of_one(text: Text) -> None:
    assert not speaks_of_night(MARKED.sub("", text.text)), text.text  # a nick may say «Ночной»


def test_female_players_get_the_female_forms() -> None:
    """The agreement is really exercised: some text a woman leads carries a female form."""
    female = {forms[GENDER_INDEX["female"]] for forms in GENDER_FORMS.values()}
    led = [rest for t in TEXTS if "female" in t.genders.values() for _, rest in _sentences_led_by_a_nick(t.text)]
    assert any(set(re.findall(r"[а-яё]+", rest.lower())) & female for rest in led)


# --- the checks themselves, on known good and bad texts ----------------------------------------------------


@pytest.mark.parametrize(
    "bad",
    ["Разъярённая толпа выволокла ⟦Пётр⟧ на площадь.", "Эпидемия унесла ⟦Чебурашка⟧.", "тело ⟦Bart⟧", "до ⟦Ada⟧"],
)
def test_the_case_check_catches_an_oblique_nick(bad: str) -> None:
    assert oblique_nicks(bad)


@pytest.mark.parametrize(
    "good",
    ["Эпидемия унесла игрока ⟦Чебурашка⟧.", "[*][b]⟦Пётр⟧[/b]: 3 голоса (⟦Анна⟧, ⟦Bob⟧)", "На виселице — ⟦Ada⟧."],
)
def test_the_case_check_lets_the_nominative_through(good: str) -> None:
    assert oblique_nicks(good) == []


def test_the_agreement_and_english_checks_catch_their_faults() -> None:
    assert disagreements("⟦Анна⟧ была убит мафией.", {"Анна": "female"}) == ["Анна: убит"]
    assert disagreements("⟦Анна⟧ была убита мафией.", {"Анна": "female"}) == []
    assert latin_words("⟦Bob⟧ получил 3 голоса - OK [b]x[/b] https://example.org/a SHA-256 [i]S ник[/i]") == ["OK"]


# --- the phrase texts, before rendering --------------------------------------------------------------------

SLOT = re.compile(r"\{(nick|old)\}")
GENDERED = re.compile(r"\{(" + "|".join(GENDER_FORMS) + r")\}")


def _phrase_as_text(phrase: str) -> str:
    return GENDERED.sub(lambda m: m.group(1), SLOT.sub(lambda m: mark(m.group(1)), phrase))


def phrase_items() -> Iterator[tuple[str, str, bool]]:
    for kind, phrases in PHRASES.items():
        yield from ((kind, p, False) for p in phrases)
    for kind, phrases in PHRASES_AGREEING.items():
        yield from ((kind, p, True) for p in phrases)


@pytest.mark.parametrize("kind,phrase,agreeing", list(phrase_items()))
def test_each_phrase_puts_its_nick_in_a_nominative_frame(kind: str, phrase: str, agreeing: bool) -> None:
    text = _phrase_as_text(phrase)
    leads = [nick for nick, _ in _sentences_led_by_a_nick(text)]
    if agreeing:  # the subject comes first, and its words agree
        assert leads == ["nick"] and GENDERED.search(phrase), phrase
    else:  # no nick leads a sentence where nothing would agree with him
        assert leads == [], phrase
    assert oblique_nicks(text) == [], phrase


def test_every_kind_can_be_told_without_a_night() -> None:
    def nightless(kind: str) -> list[str]:
        return [p for p in [*PHRASES[kind], *PHRASES_AGREEING.get(kind, ())] if not speaks_of_night(p)]

    assert [kind for kind in PHRASES if not nightless(kind)] == []


def test_the_last_post_is_titled_for_the_day_the_game_ended_with_one_win_heading() -> None:
    finals = 0
    for name, days in [*_support_games(), *_scenario_games()]:
        before, outcome = days[-1]
        if outcome.winner == "none":
            continue
        post = render_day(rs.config(before.variant), before, outcome)
        assert post.subject == f"Мафия-7. День {outcome.day}: итоги игры", name
        assert post.body.lower().count("игра окончена") == 1, name
        finals += 1
    assert finals >= 10  # many scenario files play a game to its end


# --- the template texts, every branch, before rendering ------------------------------------------------------

TEMPLATES = ROOT / "forumbot" / "render" / "templates"
JINJA_TAG = re.compile(r"\{%.*?%\}|\{#.*?#\}", re.S)
PRINT = re.compile(r"\{\{(.*?)\}\}")
# The values that print nicks (one, or a list joined with commas).
NICK_VALUE = re.compile(
    r"^\s*(nick|target|voter|member|victim|leader|heir|from_player|boss_nick|silenced|member\.nick|[a-z]\.(nick|target|voter|targets|voters)"
    r"|no_execution\.leader|living|not_voting|tied|who)\b(?!\s*\|\s*length)"  # a list's length is a number
)


def template_nick_slots() -> Iterator[tuple[str, str]]:
    """(template, its line as text) with every nick it prints marked, Jinja's own tags left out."""
    for path in sorted(TEMPLATES.rglob("*.j2")):
        if path.name.startswith("preview"):
            continue  # the moderators' HTML page
        source = JINJA_TAG.sub("", path.read_text("utf-8"))
        for line in source.splitlines():
            marked = PRINT.sub(lambda m: mark("nick") if NICK_VALUE.match(m.group(1)) else "…", line)
            if MARKED.search(marked):
                yield str(path.relative_to(TEMPLATES)), marked


def test_every_template_prints_its_nicks_in_a_nominative_frame() -> None:
    slots = list(template_nick_slots())
    assert len(slots) > 20  # the day posts, the PMs and the vote count all print nicks
    assert [(name, line) for name, line in slots if oblique_nicks(line)] == []
