"""Scenario files (format: docs/scenarios.md): load with line numbers, run through the engine, check expectations.

A malformed file raises `ScenarioError(path, line, reason)`; a file whose expectations do not hold
gives a `ScenarioResult` listing each mismatch (day, key, expected, actual). A use of the host's powers
the engine refuses when the day is resolved (a dead player replaced, a maniac appointed too early) is
malformed too, at the line of the entry (or key) it concerns.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import yaml

from forumbot.engine.day import resolve_day, ruleset_for
from forumbot.engine.model import (
    ACTIONS,
    CAUSE_PRIORITY,
    ROLES,
    WINNERS,
    Action,
    Cause,
    DayInput,
    DayOutcome,
    GameState,
    Order,
    Player,
    Removal,
    Replacement,
    Role,
    RoleChange,
    Vote,
    Winner,
)
from forumbot.engine.variants import VARIANTS, Ruleset, find_variant
from forumbot.engine.variants.base import told_by_checks, told_by_slot
from forumbot.errors import N_, RulesError, ScenarioError
from forumbot.extract.names import skeleton

T = TypeVar("T")
TOP_KEYS = {"name", "variant", "options", "seed", "players", "days", "description", "notes"}
# The host's powers, each an optional day key (docs/scenarios.md, "The host's powers").
HOST_KEYS = {"replace", "remove", "appoint_maniac", "scheme", "best_player"}
DAY_KEYS = {"votes", "orders", "silent", "leaving", "expect", "posts", "note", "notes", *HOST_KEYS}
EXPECT_KEYS = {"deaths", "checks", "winner", "roles", "known"}
CHECK_WORDS = {"not_mafia", "miss", *ROLES}


@dataclass(frozen=True)
class DayExpect:
    deaths: dict[str, Cause] | None = None
    checks: dict[str, str | list[str]] | None = None
    winner: Winner | None = None
    roles: dict[str, str] | None = None  # nick -> role id, or "mafia boss"
    # viewer -> exactly the roles he may know after the day (his personal report): nick -> role id or result
    known: dict[str, dict[str, str]] | None = None


@dataclass(frozen=True)
class ScenarioDay:
    line: int
    day_input: DayInput
    expect: DayExpect
    # Where each host key, and each of its entries (key, nick), is written: for the engine's refusals.
    lines: dict[str | tuple[str, str], int] = field(default_factory=dict)


@dataclass(frozen=True)
class Scenario:
    path: str
    name: str
    variant: str
    options: dict[str, Any]
    seed: int
    players: tuple[Player, ...]
    days: tuple[ScenarioDay, ...]

    def initial_state(self) -> GameState:
        return GameState(variant=self.variant, options=self.options, seed=self.seed, players=self.players)


@dataclass(frozen=True)
class Mismatch:
    day: int
    key: str
    expected: Any
    actual: Any


@dataclass
class ScenarioResult:
    scenario: Scenario
    outcomes: list[DayOutcome] = field(default_factory=list)
    mismatches: list[Mismatch] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.mismatches

    def to_json(self) -> dict[str, Any]:
        days = [
            {"day": o.day, "deaths": dict(o.deaths), "checks": dict(o.checks), "winner": o.winner}
            for o in self.outcomes
        ]
        return {"days": days, "winner": self.outcomes[-1].winner if self.outcomes else "none"}


# --- loading ---------------------------------------------------------------------------------------


class _Reader:
    """Turns YAML nodes into values, remembering where each came from for error messages."""

    def __init__(self, path: str) -> None:
        self.path = path

    def fail(self, node: yaml.Node | None, reason: str, **values: Any) -> ScenarioError:
        """`reason`: a template for the catalogue (`N_`), filled in with `values` when shown."""
        line = node.start_mark.line + 1 if node is not None else None
        return ScenarioError(self.path, line, reason, **values)

    def mapping(self, node: yaml.Node, what: str, allowed: set[str] | None = None) -> dict[str, yaml.Node]:
        if not isinstance(node, yaml.MappingNode):
            raise self.fail(node, N_("{what} must be a mapping"), what=what)
        result: dict[str, yaml.Node] = {}
        for key_node, value_node in node.value:
            key = self.scalar(key_node, f"a key of {what}")
            if allowed is not None and key not in allowed:
                raise self.fail(
                    key_node,
                    N_("unknown key {key!r} in {what}; known: {names}"),
                    key=key,
                    what=what,
                    names=", ".join(sorted(allowed)),
                )
            if key in result:
                raise self.fail(key_node, N_("key {key!r} given twice in {what}"), key=key, what=what)
            result[key] = value_node
        return result

    def sequence(self, node: yaml.Node, what: str) -> list[yaml.Node]:
        if isinstance(node, yaml.ScalarNode) and node.value in ("", "~", "null") and node.tag.endswith("null"):
            return []
        if not isinstance(node, yaml.SequenceNode):
            raise self.fail(node, N_("{what} must be a list"), what=what)
        return list(node.value)

    def scalar(self, node: yaml.Node, what: str) -> str:
        if not isinstance(node, yaml.ScalarNode):
            raise self.fail(node, N_("{what} must be a single value"), what=what)
        return str(node.value)

    def plain(self, node: yaml.Node) -> Any:
        return yaml.safe_load(yaml.serialize(node))


def load_scenario(path: str | Path) -> Scenario:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ScenarioError(str(path), None, N_("cannot read: {error}"), error=exc) from exc
    return parse_scenario(text, str(path))


def parse_scenario(text: str, path: str = "<scenario>") -> Scenario:
    r = _Reader(path)
    try:
        root = yaml.compose(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise ScenarioError(path, mark.line + 1 if mark else None, N_("not valid YAML: {error}"), error=exc) from exc
    if root is None:
        raise ScenarioError(path, 1, N_("the file is empty"))
    top = r.mapping(root, "the scenario", TOP_KEYS)
    for key in ("name", "variant", "players", "days"):
        if key not in top:
            raise r.fail(root, N_("missing key {key!r}"), key=key)
    variant = r.scalar(top["variant"], "variant")
    if variant not in VARIANTS:
        raise r.fail(
            top["variant"],
            N_("unknown variant {variant!r}; known: {names}"),
            variant=variant,
            names=", ".join(VARIANTS),
        )
    rules_cls = find_variant(variant)
    options = _options(r, top.get("options"), rules_cls)
    seed = _seed(r, top.get("seed"))
    rules = rules_cls(rules_cls.parse_options(options))
    players = _players(r, top["players"], rules)
    nicks = {p.nick for p in players}  # grows with each day's replacements: every nick seen in the game
    day_nodes = r.sequence(top["days"], "days")
    if not day_nodes:
        raise r.fail(top["days"], N_("days must list at least one day"))
    days = tuple(_day(r, node, n, nicks, rules) for n, node in enumerate(day_nodes, start=1))
    return Scenario(path, r.scalar(top["name"], "name"), variant, options, seed, players, days)


def _options(r: _Reader, node: yaml.Node | None, rules_cls: type[Ruleset]) -> dict[str, Any]:
    if node is None:
        return {}
    keys = r.mapping(node, "options")
    raw = r.plain(node)
    try:
        rules_cls.parse_options(raw)
    except RulesError as exc:
        # The engine names the option ("<variant> option <key>: ..."): point at its line.
        message = str(exc)
        prefix = f"{rules_cls.name} option "
        named = [v for k, v in keys.items() if message.startswith((f"{prefix}{k}:", f"{prefix}{k}."))]
        raise r.fail(named[0] if named else node, message) from None
    return dict(raw)


def _seed(r: _Reader, node: yaml.Node | None) -> int:
    if node is None:
        return 0
    value = r.plain(node)
    if not isinstance(value, int) or isinstance(value, bool):
        raise r.fail(node, N_("seed must be an integer"))
    return value


def _players(r: _Reader, node: yaml.Node, rules: Ruleset) -> tuple[Player, ...]:
    """The player list, refused as the engine refuses a game's own definition (e.g. not exactly one boss)."""
    rules_cls = type(rules)
    players: list[Player] = []
    lines: dict[str, yaml.Node] = {}
    for item in r.sequence(node, "players"):
        entry = r.mapping(item, "a player (nick: role)")
        if len(entry) != 1:
            raise r.fail(item, N_("each player is one 'nick: role' pair"))
        ((nick, role_node),) = entry.items()
        words = r.scalar(role_node, f"the role of {nick}").split()
        boss = words[1:] == ["boss"]
        if not words or (len(words) > 1 and not boss):
            raise r.fail(
                role_node,
                N_("bad role {names!r} for {nick}: a role id, or 'mafia boss'"),
                names=" ".join(words),
                nick=nick,
            )
        role = words[0]
        if role not in ROLES or role not in rules_cls.roles:
            raise r.fail(
                role_node,
                N_("unknown role {role!r} for {name}; known: {names}"),
                role=role,
                name=rules_cls.name,
                names=", ".join(sorted(rules_cls.roles)),
            )
        if nick in lines:
            raise r.fail(item, N_("player {nick!r} listed twice"), nick=nick)
        players.append(Player(nick=nick, role=role, boss=boss))
        lines[nick] = item
    if not players:
        raise r.fail(node, N_("players must list at least one player"))
    problems = rules.definition_problems(players)
    if problems:
        raise r.fail(lines.get(problems[0].nick or "", node), str(problems[0]))
    return tuple(players)


def _day(r: _Reader, node: yaml.Node, number: int, nicks: set[str], rules: Ruleset) -> ScenarioDay:
    day = r.mapping(node, f"day {number}", DAY_KEYS)
    lines: dict[str | tuple[str, str], int] = {k: v.start_mark.line + 1 for k, v in day.items() if k in HOST_KEYS}
    # Replacements first: from the start of the day the new nicks play (and the earlier ones are still known:
    # their votes and orders are void, as in a real game).
    replacements = _in_key(number, "replace", lambda: _replacements(r, day.get("replace"), nicks, lines))
    vote_nodes = r.sequence(day["votes"], "votes") if "votes" in day else []
    order_nodes = r.sequence(day["orders"], "orders") if "orders" in day else []
    votes = tuple(_vote(r, v, nicks, rules) for v in vote_nodes)
    orders = tuple(_order(r, o, nicks, rules) for o in order_nodes)
    silent = _nick_set(r, day.get("silent"), "silent", nicks)
    leaving = _nick_set(r, day.get("leaving"), "leaving", nicks)  # optional: players who sent `Q`
    removals = _in_key(number, "remove", lambda: _removals(r, day.get("remove"), nicks, lines))
    appoint_maniac = _in_key(
        number, "appoint_maniac", lambda: _host_nick(r, day.get("appoint_maniac"), "appoint_maniac", nicks, lines)
    )
    scheme = _in_key(number, "scheme", lambda: _scheme(r, day.get("scheme"), nicks, rules, lines))
    best_player = _in_key(
        number, "best_player", lambda: _host_nick(r, day.get("best_player"), "best_player", nicks, lines)
    )
    expect = _expect(r, day["expect"], nicks, rules) if "expect" in day else DayExpect()
    day_input = DayInput(
        votes=votes,
        orders=orders,
        silent=silent,
        leaving=leaving,
        replacements=replacements,
        removals=removals,
        appoint_maniac=appoint_maniac,
        scheme=scheme,
        best_player=best_player,
    )
    problems = rules.day_input_problems(day_input)
    if problems:
        problem = problems[0]
        if problem.field in HOST_KEYS:
            line = lines.get((problem.field, problem.nick or ""), lines[problem.field])
            raise ScenarioError(r.path, line, N_("day {number}: {problem}"), number=number, problem=problem)
        # The engine lists a silent player's votes before his orders: point at the first of them.
        nick = problem.nick
        sent = [n for v, n in zip(votes, vote_nodes, strict=True) if v.voter == nick]
        sent += [n for o, n in zip(orders, order_nodes, strict=True) if o.actor == nick]
        raise r.fail(sent[0] if sent else node, N_("day {number}: {problem}"), number=number, problem=problem)
    return ScenarioDay(node.start_mark.line + 1, day_input, expect, lines)


def _in_key(number: int, key: str, read: Callable[[], T]) -> T:
    """A host key's entries read by `read`; a malformed one is refused naming the day and the key, as the
    engine's own refusals do ("day 2: replace: ...")."""
    try:
        return read()
    except ScenarioError as exc:
        raise ScenarioError(exc.path, exc.line, f"day {number}: {key}: {exc.reason}") from None


def _replacements(
    r: _Reader, node: yaml.Node | None, nicks: set[str], lines: dict[str | tuple[str, str], int]
) -> tuple[Replacement, ...]:
    """`replace: [[old, new], [old, new, reason]]`: the new nicks join the known ones."""
    found: list[Replacement] = []
    for item in r.sequence(node, "replace") if node is not None else []:
        parts = r.sequence(item, "a replacement")
        if len(parts) not in (2, 3):
            raise r.fail(item, N_("a replacement is [old nick, new nick] or [old nick, new nick, reason]"))
        old = _nick(r, parts[0], nicks)
        new = r.scalar(parts[1], "the new nick")
        if new in nicks:
            raise r.fail(parts[1], N_("{new!r} is already a nick of this game: the new account needs its own"), new=new)
        reason = r.scalar(parts[2], "the reason") if len(parts) == 3 else ""
        found.append(Replacement(old=old, new=new, reason=reason))
        nicks.add(new)
        lines[("replace", old)] = lines[("replace", new)] = item.start_mark.line + 1
    return tuple(found)


def _removals(
    r: _Reader, node: yaml.Node | None, nicks: set[str], lines: dict[str | tuple[str, str], int]
) -> tuple[Removal, ...]:
    """`remove: [[nick, reason]]`."""
    found: list[Removal] = []
    for item in r.sequence(node, "remove") if node is not None else []:
        parts = r.sequence(item, "a removal")
        if len(parts) != 2:
            raise r.fail(item, N_("a removal is [nick, reason]"))
        nick = _nick(r, parts[0], nicks)
        found.append(Removal(nick=nick, reason=r.scalar(parts[1], "the reason")))
        lines[("remove", nick)] = item.start_mark.line + 1  # a second entry for him is the one refused
    return tuple(found)


def _host_nick(
    r: _Reader, node: yaml.Node | None, what: str, nicks: set[str], lines: dict[str | tuple[str, str], int]
) -> str | None:
    """`appoint_maniac: nick`, `best_player: nick`."""
    if node is None:
        return None
    nick = _nick(r, node, nicks)
    lines[(what, nick)] = node.start_mark.line + 1
    return nick


def _scheme(
    r: _Reader, node: yaml.Node | None, nicks: set[str], rules: Ruleset, lines: dict[str | tuple[str, str], int]
) -> tuple[RoleChange, ...]:
    """`scheme: {nick: role, nick: mafia boss}`: the new roles, from the start of the next day."""
    if node is None:
        return ()
    found: list[RoleChange] = []
    for key, value in _pairs(r, node, "scheme"):
        nick = _nick(r, key, nicks)
        role, boss = _role_words(r, value, nick, rules)
        found.append(RoleChange(nick=nick, role=role, boss=boss))
        lines[("scheme", nick)] = key.start_mark.line + 1
    return tuple(found)


def _role_words(r: _Reader, node: yaml.Node, nick: str, rules: Ruleset) -> tuple[Role, bool]:
    """A role id of the variant, or `mafia boss`."""
    rules_cls = type(rules)
    words = r.scalar(node, f"the role of {nick}").split()
    boss = words[1:] == ["boss"]
    if not words or (len(words) > 1 and not boss):
        raise r.fail(
            node, N_("bad role {names!r} for {nick}: a role id, or 'mafia boss'"), names=" ".join(words), nick=nick
        )
    role = words[0]
    if role not in ROLES or role not in rules_cls.roles:
        raise r.fail(
            node,
            N_("unknown role {role!r} for {name}; known: {names}"),
            role=role,
            name=rules_cls.name,
            names=", ".join(sorted(rules_cls.roles)),
        )
    found: Role = role
    return found, boss


def _nick_set(r: _Reader, node: yaml.Node | None, what: str, nicks: set[str]) -> frozenset[str]:
    return frozenset(_nick(r, s, nicks) for s in r.sequence(node, what)) if node is not None else frozenset()


def _nick(r: _Reader, node: yaml.Node, nicks: set[str]) -> str:
    nick = r.scalar(node, "a player")
    if nick not in nicks:
        raise r.fail(node, N_("unknown player {nick!r}"), nick=nick)
    return nick


def _target(r: _Reader, node: yaml.Node, nicks: set[str], rules: Ruleset) -> str:
    """A vote or order target. A near miss of a player's nick (case, look-alike letters, spaces,
    zero-width characters) is how players really write: it is the player under `nick_matching:
    lenient`, and a void target (kept as written) under `strict`. Anything else is an unknown player."""
    text = r.scalar(node, "a player")
    if text in nicks:
        return text
    seen = skeleton(text)
    near = [n for n in nicks if skeleton(n) == seen]
    if len(near) != 1:
        raise r.fail(node, N_("unknown player {text!r}"), text=text)
    return near[0] if rules.options.nick_matching == "lenient" else text


def _targets(r: _Reader, node: yaml.Node, nicks: set[str], rules: Ruleset) -> tuple[str, ...]:
    if isinstance(node, yaml.SequenceNode):
        return tuple(_target(r, t, nicks, rules) for t in node.value)
    return (_target(r, node, nicks, rules),)


def _vote(r: _Reader, node: yaml.Node, nicks: set[str], rules: Ruleset) -> Vote:
    items = r.sequence(node, "a vote")
    if len(items) != 2:
        raise r.fail(node, N_("a vote is [voter, target] or [voter, [target, target]]"))
    return Vote(voter=_nick(r, items[0], nicks), targets=_targets(r, items[1], nicks, rules))


def _order(r: _Reader, node: yaml.Node, nicks: set[str], rules: Ruleset) -> Order:
    items = r.sequence(node, "an order")
    if len(items) != 3:
        raise r.fail(node, N_("an order is [player, action, target]"))
    actor = _nick(r, items[0], nicks)
    action = r.scalar(items[1], "an action")
    if action not in ACTIONS or action == "vote":
        raise r.fail(
            items[1],
            N_("unknown action {action!r}; orders use: {names}"),
            action=action,
            names=", ".join(a for a in ACTIONS if a != "vote"),
        )
    try:
        rules.check_action(action)
    except RulesError as exc:
        raise r.fail(items[1], str(exc)) from None
    act: Action = action
    return Order(actor=actor, action=act, targets=_targets(r, items[2], nicks, rules))


def _expect(r: _Reader, node: yaml.Node, nicks: set[str], rules: Ruleset) -> DayExpect:
    exp = r.mapping(node, "expect", EXPECT_KEYS)
    deaths: dict[str, Cause] | None = None
    checks: dict[str, str | list[str]] | None = None
    winner: Winner | None = None
    roles: dict[str, str] | None = None
    if "deaths" in exp:
        deaths = {}
        for key, value in _pairs(r, exp["deaths"], "deaths"):
            cause = r.scalar(value, "a death cause")
            if cause not in CAUSE_PRIORITY:
                raise r.fail(
                    value,
                    N_("unknown death cause {cause!r}; known: {names}"),
                    cause=cause,
                    names=", ".join(CAUSE_PRIORITY),
                )
            deaths[_nick(r, key, nicks)] = cause
    if "checks" in exp:
        checks = {}
        for key, value in _pairs(r, exp["checks"], "checks"):
            checks[_nick(r, key, nicks)] = _check_value(r, value)
    if "winner" in exp:
        w = r.scalar(exp["winner"], "winner")
        if w not in WINNERS:
            raise r.fail(exp["winner"], N_("unknown winner {w!r}; known: {names}"), w=w, names=", ".join(WINNERS))
        winner = w
    if "roles" in exp:
        roles = {}
        for key, value in _pairs(r, exp["roles"], "roles"):
            nick = _nick(r, key, nicks)
            role, boss = _role_words(r, value, nick, rules)
            roles[nick] = _role_text(role, boss)
    known = _known(r, exp["known"], nicks) if "known" in exp else None
    return DayExpect(deaths, checks, winner, roles, known)


def _known(r: _Reader, node: yaml.Node, nicks: set[str]) -> dict[str, dict[str, str]]:
    """`known: {viewer: {nick: role, ...}}`: what each viewer may know after the day."""
    known: dict[str, dict[str, str]] = {}
    for viewer, seen in _pairs(r, node, "known"):
        pairs = _pairs(r, seen, "known")
        known[_nick(r, viewer, nicks)] = {_nick(r, key, nicks): _check_word(r, value) for key, value in pairs}
    return known


def _role_text(role: str, boss: bool) -> str:
    return f"{role} boss" if boss else role


def _pairs(r: _Reader, node: yaml.Node, what: str) -> Iterator[tuple[yaml.Node, yaml.Node]]:
    if isinstance(node, yaml.ScalarNode) and node.tag.endswith("null"):
        return iter(())
    if not isinstance(node, yaml.MappingNode):
        raise r.fail(node, N_("{what} must be a mapping of nick: value"), what=what)
    return iter(node.value)


def _check_value(r: _Reader, node: yaml.Node) -> str | list[str]:
    if isinstance(node, yaml.SequenceNode):
        return [_check_word(r, v) for v in node.value]
    return _check_word(r, node)


def _check_word(r: _Reader, node: yaml.Node) -> str:
    word = r.scalar(node, "a check result")
    if word not in CHECK_WORDS:
        raise r.fail(node, N_("unknown check result {word!r}; a role id, not_mafia or miss"), word=word)
    return word


# --- running ---------------------------------------------------------------------------------------


def run_scenario(scenario: Scenario) -> ScenarioResult:
    """Resolve every day; a day after the game has ended is a malformed file."""
    result = ScenarioResult(scenario)
    state = scenario.initial_state()
    told: dict[str, dict[str, str]] = {}  # each checker's results so far: target -> what he was told
    try:
        rules_cls = find_variant(state.variant)
        rules_cls(rules_cls.parse_options(state.options)).check_roles(state.players)
    except RulesError as exc:
        raise ScenarioError(scenario.path, None, str(exc)) from None
    for day in scenario.days:
        if state.winner != "none":
            raise ScenarioError(
                scenario.path,
                day.line,
                N_("day {day} comes after the game ended ({winner} won)"),
                day=state.day,
                winner=state.winner,
            )
        try:
            outcome = resolve_day(state, day.day_input)
        except RulesError as exc:
            raise ScenarioError(scenario.path, _refused_line(day, str(exc)), str(exc)) from None
        result.outcomes.append(outcome)
        for checker, seen in told_by_checks(outcome.events).items():
            told.setdefault(checker, {}).update(seen)
        result.mismatches += _compare(outcome, day.expect, told)
        state = outcome.state
    return result


def _refused_line(day: ScenarioDay, message: str) -> int:
    """The line of what the engine refused: "day N: KEY: NICK ..." points at that entry of a host key (or the
    key itself); anything else at the day."""
    found = re.match(r"day \d+: (\w+): (.*)", message)
    if found is None or found.group(1) not in day.lines:
        return day.line
    key, reason = found.group(1), found.group(2)
    entries = {k[1]: line for k, line in day.lines.items() if isinstance(k, tuple) and k[0] == key}
    for nick in sorted(entries, key=len, reverse=True):  # the longest first: "Bob Jr" before "Bob"
        if reason.startswith(f"{nick} "):
            return entries[nick]
    if len(set(entries.values())) == 1:
        return next(iter(entries.values()))
    return day.lines[key]


def _compare(outcome: DayOutcome, expect: DayExpect, told: dict[str, dict[str, str]] | None = None) -> list[Mismatch]:
    found: list[Mismatch] = []
    if expect.deaths is not None and expect.deaths != dict(outcome.deaths):
        found.append(Mismatch(outcome.day, "deaths", expect.deaths, dict(outcome.deaths)))
    if expect.checks is not None and expect.checks != dict(outcome.checks):
        found.append(Mismatch(outcome.day, "checks", expect.checks, dict(outcome.checks)))
    if expect.winner is not None and expect.winner != outcome.winner:
        found.append(Mismatch(outcome.day, "winner", expect.winner, outcome.winner))
    if expect.roles is not None:
        actual: dict[str, str] = {}
        for nick in expect.roles:
            p = outcome.state.player(nick)
            actual[nick] = _role_text(p.role, p.boss) if p is not None else "not a player"
        if actual != expect.roles:
            found.append(Mismatch(outcome.day, "roles", expect.roles, actual))
    if expect.known is not None:
        rules = ruleset_for(outcome.state)
        slots = told_by_slot(told or {}, outcome.state)
        seen = {v: rules.known_roles(outcome.state, v, slots.get(v)) for v in expect.known}
        if seen != expect.known:
            found.append(Mismatch(outcome.day, "known", expect.known, seen))
    return found


def scenario_files(paths: Iterable[str | Path]) -> list[Path]:
    """Files named on the command line, and every .yaml/.yml under named folders, sorted."""
    files: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            files += sorted(f for f in p.rglob("*") if f.suffix in (".yaml", ".yml") and f.is_file())
        else:
            files.append(p)
    return files
