"""A game's life outside the day's end: new-game, signups, deal, day-topic, status, reveal, advance."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from forumbot.cli import words
from forumbot.cli.app import app
from forumbot.cli.common import (
    JsonOption,
    NowOption,
    StateOption,
    checked_topic,
    current_time,
    err,
    fail,
    game_client,
    host_errors,
    load_game,
    open_store,
    out,
    parse_option_pairs,
    print_json,
    read_nicks,
    state_path,
)
from forumbot.cli.display import in_zone_iso, local, names, plain, say, table
from forumbot.i18n import N_, _, ngettext

if TYPE_CHECKING:
    from forumbot.config import GameConfig
    from forumbot.draft import VoteRow
    from forumbot.store import GameRow, Store


@app.command("new-game")
def new_game_command(
    config: Annotated[Path, typer.Argument(help="The game's TOML config.")],
    state: StateOption = None,
    now: NowOption = None,
) -> None:
    """Create a game in the state file from its config (the state file is made if there is none); a player
    list the variant cannot deal is refused now."""
    from forumbot.config import load_game_config, lookalike_warnings
    from forumbot.host import games

    with host_errors():
        parsed = load_game_config(config)
        games.check_player_count(parsed)
        current_time(now, parsed.game.zone)
        where = state_path(state)
        made = not where.exists()
        store = open_store(where, create=True)
        games.create_game(store, parsed)
    count = len(parsed.game.players)
    said = ngettext(
        "game {name!r} created ({variant}, {n} player)", "game {name!r} created ({variant}, {n} players)", count
    )
    out.print(said.format(name=parsed.game.name, variant=parsed.game.variant, n=count), markup=False)
    said = _("state file made: {path}") if made else _("state file: {path} (the game is added to it)")
    out.print(said.format(path=where.resolve()), markup=False)
    warn(lookalike_warnings(parsed.game.players))


def warn(warnings: list[str]) -> None:
    for warning in warnings:
        err.print(_("warning: {warning}").format(warning=warning), markup=False)


@app.command("signups")
def signups_command(
    args: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="[GAME] [TOPIC]",
            help="The game (may be left out when the state file holds one game) and the signup topic "
            "(id or URL; default: the config's [forum] signup_topic).",
        ),
    ] = None,
    state: StateOption = None,
    now: NowOption = None,
) -> None:
    """Take the player list from the signup topic: everyone who signed up in red."""
    from forumbot.config import load_settings
    from forumbot.host import games

    with host_errors():
        store = open_store(state)
        game, topic = _game_and_topic(store, args or [])
        _row, config = load_game(store, game)
        current_time(now, config.game.zone)
        topic = topic or config.forum.signup_topic
        if not topic:
            fail(_("{game}: which signup topic? give it, or set [forum] signup_topic in the config").format(game=game))
        with game_client(config, store) as client:
            posts = [post for page in client.fetch_topic(topic) for post in page.posts]
        exclude = [n for n in (load_settings().username,) if n]
        players = games.record_signups(store, game, posts, exclude)
    said = ngettext("{n} player signed up: {nicks}", "{n} players signed up: {nicks}", len(players))
    say(said.format(n=len(players), nicks=names(players)))


def _game_and_topic(store: Store, args: list[str]) -> tuple[str, str | None]:
    """`GAME TOPIC`, `GAME`, or `TOPIC` alone when the state file holds a single game."""
    if len(args) > 2:
        fail(_("signups takes at most two arguments: GAME and TOPIC"))
    if len(args) == 2:
        return args[0], args[1]
    known = store.game_names()
    if args and args[0] in known:
        return args[0], None
    if len(known) != 1:
        listed = ", ".join(known) or _("none (forumbot new-game CONFIG)")
        said = ngettext(
            "name the game: the state file holds {n} game ({listed})",
            "name the game: the state file holds {n} games ({listed})",
            len(known),
        )
        fail(said.format(n=len(known), listed=listed))
    return known[0], args[0] if args else None


@app.command("deal")
def deal_command(
    game: Annotated[str | None, typer.Argument(help="A game of the state file: deal it and open day 1.")] = None,
    variant: Annotated[str | None, typer.Option(help="Rule variant (an unknown name lists the known ones).")] = None,
    players: Annotated[Path | None, typer.Option(help="File with one nick per line.")] = None,
    seed: Annotated[int | None, typer.Option(help="Seed for the deal (default: a secure random one).")] = None,
    option: Annotated[
        list[str] | None, typer.Option("--option", "-o", help="A variant option, KEY=VALUE (JSON value).")
    ] = None,
    topic: Annotated[str | None, typer.Option(help="GAME: the topic of day 1, if already posted.")] = None,
    state: StateOption = None,
    now: NowOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the deal as JSON.")] = False,
) -> None:
    """Deal roles: a game of the state file (roles stay secret), or a player list (--variant, --players)."""
    if game is not None:
        _deal_stored_game(game, topic, state, now, seed)
        return
    if variant is None or players is None:
        fail(_("give a GAME, or --variant and --players"))
    _deal_list(variant, read_nicks(players), seed, parse_option_pairs(option or []), as_json)


def _deal_list(variant: str, nicks: list[str], seed: int | None, options: dict[str, Any], as_json: bool) -> None:
    import secrets  # here, not at every command's start (hmac, hashlib)

    from forumbot.config import roster_problem
    from forumbot.engine.deal import deal as deal_game
    from forumbot.errors import ForumbotError

    problem = roster_problem(nicks, N_("player"))
    if problem is not None:
        fail(f"--players: {problem}")
    used_seed = seed if seed is not None else secrets.randbelow(2**63)
    try:
        dealt = deal_game(variant, nicks, used_seed, options)
    except ForumbotError as exc:
        fail(str(exc))
    if as_json:
        players = [{"nick": p.nick, "role": p.role, "boss": p.boss} for p in dealt.players]
        print_json({"variant": dealt.variant, "seed": dealt.seed, "players": players})
        return
    title = ngettext("{variant}, {n} player, seed {seed}", "{variant}, {n} players, seed {seed}", len(nicks))
    shown = table(title.format(variant=variant, n=len(nicks), seed=used_seed), _("nick"), _("role"))
    for p in dealt.players:
        shown.add_row(*plain(p.nick, words.role(p.role, p.boss)))
    out.print(shown)


def _deal_stored_game(game: str, topic: str | None, state: Path | None, now: str | None, seed: int | None) -> None:
    from forumbot.host import games

    with host_errors():
        topic = checked_topic(topic, "--topic")
        store = open_store(state)
        _row, config = load_game(store, game)
        dealt = games.deal_game(store, game, current_time(now, config.game.zone), topic=topic, seed=seed)
    warn(dealt.warnings)
    count = len(dealt.state.players)
    said = ngettext(
        "{game}: roles dealt to {n} player (secret: forumbot status {game} --secret)",
        "{game}: roles dealt to {n} players (secret: forumbot status {game} --secret)",
        count,
    )
    say(said.format(game=game, n=count))
    say(_("commitment for the first day's post: SHA-256 {digest}").format(digest=dealt.commitment))
    say(_("day 1 deadline: {when}").format(when=local(dealt.deadline, config.game.zone, with_zone=True)))
    if topic is None:
        say(_("next: forumbot publish {game}  (day 1's topic with the commitment, and the role PMs)").format(game=game))
    else:
        said = _("next: forumbot publish {game}  (the role PMs; day 1 is read from topic {topic})")
        say(said.format(game=game, topic=topic))


@app.command("day-topic")
def day_topic_command(
    game: Annotated[str, typer.Argument(help="The game.")],
    topic: Annotated[str, typer.Argument(help="The current day's topic (id or URL).")],
    state: StateOption = None,
) -> None:
    """Set the topic of the current day (for hosts who post the day topic by hand)."""

    with host_errors():
        store = open_store(state)
        row, _config = load_game(store, game)
        if row.state is None:
            fail(_("{game}: roles are not dealt yet (forumbot deal {game})").format(game=game))
        if store.day(row.id, row.state.day) is None:
            fail(_("{game}: day {day} is not open").format(game=game, day=row.state.day))
        topic = checked_topic(topic) or topic
        store.set_day_topic(row.id, row.state.day, topic)
    out.print(
        _("{game}: day {day} is read from topic {topic}").format(game=game, day=row.state.day, topic=topic),
        markup=False,
    )


@app.command("status")
def status_command(
    game: Annotated[str, typer.Argument(help="The game.")],
    secret: Annotated[bool, typer.Option("--secret", help="Show the roles too (host only).")] = False,
    votes: Annotated[bool, typer.Option("--votes", help="Read the day topic now for the votes so far.")] = False,
    as_json: JsonOption = False,
    state: StateOption = None,
    now: NowOption = None,
) -> None:
    """Day, deadline (and the time left), living players and the votes so far; roles only with --secret."""
    from forumbot.host import games

    with host_errors():
        store = open_store(state)
        row, config = load_game(store, game)
        counted = None
        if votes and row.state is not None:
            with game_client(config, store) as client:
                counted = games.votes_so_far(store, game, client)
    facts = _status_facts(store, row, config, secret, counted, current_time(now, config.game.zone))
    if as_json:
        print_json(facts)
    else:
        _print_status(game, facts)


def _status_facts(
    store: Store, row: GameRow, config: GameConfig, secret: bool, counted: list[VoteRow] | None, now: datetime
) -> dict[str, Any]:
    """What status tells, as data (times in the game's zone, ISO with the offset)."""
    zone = config.game.zone
    facts: dict[str, Any] = {"game": row.name, "variant": row.variant, "timezone": zone.key}
    if row.state is None:
        return facts | {"phase": "signups", "players": store.players(row.id)}
    gs = row.state
    day = store.day(row.id, gs.day)
    facts |= {"phase": "over" if gs.winner != "none" else "day", "day": gs.day, "winner": gs.winner}
    if day is not None:
        left = (day["deadline"] - now).total_seconds()
        facts |= {"topic": day["topic"], "deadline": in_zone_iso(day["deadline"], zone), "seconds_left": int(left)}
    facts["players"] = [
        {"nick": p.nick, "alive": p.alive, "death_day": p.death_day, "death_cause": p.death_cause}
        | ({"role": p.role, "boss": p.boss} if secret else {})
        for p in gs.players
    ]
    draft = store.draft(row.id, gs.day)
    if counted is not None:
        facts["votes"] = [{"voter": v.voter, "target": v.target} for v in counted]
    elif draft is not None:
        facts["votes"] = [{"voter": v.voter, "target": v.target} for v in draft.draft.votes if v.counted]
        facts["votes_from_draft_of"] = in_zone_iso(draft.created_at, zone)
    return facts


def _print_status(game: str, facts: dict[str, Any]) -> None:
    from zoneinfo import ZoneInfo

    from forumbot.render.bidi import isolate

    zone = ZoneInfo(facts["timezone"])
    if facts["phase"] == "signups":
        count = len(facts["players"])
        said = ngettext(
            "{game} ({variant}): signups, {n} player, roles not dealt",
            "{game} ({variant}): signups, {n} players, roles not dealt",
            count,
        )
        say(said.format(game=game, variant=facts["variant"], n=count))
        return
    winner = _(", winner: {winner}").format(winner=words.winner(facts["winner"])) if facts["winner"] != "none" else ""
    say(_("{game} ({variant}) — day {day}").format(game=game, variant=facts["variant"], day=facts["day"]) + winner)
    if "deadline" in facts:
        left = facts["seconds_left"]
        when = (
            _("passed")
            if left <= 0
            else _("in {hours} h {minutes:02d} min").format(hours=left // 3600, minutes=left % 3600 // 60)
        )
        said = _("topic: {topic}; deadline: {deadline} ({left})")
        say(said.format(topic=facts["topic"] or "-", deadline=local(facts["deadline"], zone, True), left=when))
    secret = any("role" in p for p in facts["players"])
    shown = table(_("players"), _("nick"), _("status"), *([_("role")] if secret else []))
    for p in facts["players"]:
        dead = _("dead (day {day}, {cause})").format(day=p["death_day"], cause=words.cause(p["death_cause"]))
        life = _("alive") if p["alive"] else dead
        role = [words.role(p["role"], p["boss"])] if secret else []
        shown.add_row(*plain(p["nick"], life, *role))
    out.print(shown)
    if "votes" in facts:
        listed = ", ".join(f"{isolate(v['voter'])} → {isolate(v['target'] or '')}" for v in facts["votes"]) or _("none")
        since = facts.get("votes_from_draft_of")
        if since:
            say(_("votes so far (draft of {when}): {votes}").format(when=local(since, zone, True), votes=listed))
        else:
            say(_("votes so far: {votes}").format(votes=listed))


@app.command("reveal")
def reveal_command(
    game: Annotated[str, typer.Argument(help="The game.")],
    force: Annotated[bool, typer.Option("--force", help="Reveal before the game has ended.")] = False,
    state: StateOption = None,
    as_json: JsonOption = False,
) -> None:
    """The role list as dealt and the salt: anyone can check them against day 1's SHA-256 commitment."""
    from forumbot.host import games

    with host_errors():
        shown = games.reveal(open_store(state), game, force=force)
    if as_json:
        print_json(
            {"roles": shown.roles, "salt": shown.salt, "commitment": shown.commitment, "verified": shown.verified}
        )
        return
    out.print(shown.roles, markup=False)
    out.print(_("salt: {salt}").format(salt=shown.salt), markup=False)
    checked = _("(verified)") if shown.verified else _("(MISMATCH)")
    out.print(
        _("SHA-256(salt + newline + role list) = {digest}").format(digest=shown.commitment) + " " + checked,
        markup=False,
    )


@app.command("advance")
def advance_command(
    game: Annotated[str, typer.Argument(help="The game.")],
    topic: Annotated[str | None, typer.Option(help="The new day's topic, if posted already.")] = None,
    state: StateOption = None,
    now: NowOption = None,
) -> None:
    """Record the approved draft as the day's result and open the next day."""
    from forumbot.host import games

    with host_errors():
        topic = checked_topic(topic, "--topic")
        store = open_store(state)
        _row, config = load_game(store, game)
        new_state = games.advance(store, game, current_time(now, config.game.zone), topic=topic)
    if new_state.winner != "none":
        out.print(
            _("{game}: the game is over — {winner}").format(game=game, winner=words.winner(new_state.winner)),
            markup=False,
        )
    else:
        out.print(_("{game}: day {day} is open").format(game=game, day=new_state.day), markup=False)
