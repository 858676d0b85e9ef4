"""The engine gives the same outcome in every process: nothing of it depends on Python's string hashing.

Each variant's games are played in subprocesses with different `PYTHONHASHSEED` values, and every day's
whole outcome (deaths, checks, the tally and the counted votes in their order, events, void entries, the
new state) must be the same text. A set or frozenset iterated where its order reaches an outcome breaks it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HASH_SEEDS = ("0", "1", "4242")

# Random legal play with silent players, players who send no vote (kozanostra's default votes), the host's
# replacements (whose earlier accounts still vote) and removals, then the variant's scenario files: every
# outcome in full, as JSON.
PROBE = """
import json, random, sys
from pathlib import Path
from forumbot.engine import DayInput, Order, Vote, deal, resolve_day, ruleset_for
from forumbot.engine.day import apply_replacements
from forumbot.engine.model import Removal, Replacement
from forumbot.scenario import load_scenario, run_scenario, scenario_files

variant, root = sys.argv[1], Path(sys.argv[2])
sizes = {"gameru-3.3": (9, 18, 21), "kozanostra": (6, 10, 14), "salon": (6, 9, 13)}[variant]
dumps = []
for count in sizes:
    for seed in range(4):
        state = deal(variant, [f"Игрок {i} ник" for i in range(count)] , seed)
        rng = random.Random(f"{variant}:{count}:{seed}")
        while state.winner == "none" and state.day <= 3 * count:
            rules = ruleset_for(state)
            olds = [p.nick for p in state.living() if rng.random() < 0.1]
            replacements = tuple(Replacement(old=n, new=f"Замена {state.day}.{i}") for i, n in enumerate(olds))
            now = apply_replacements(state, replacements)[0]
            living = [p.nick for p in now.living()]
            silent = [n for n in living if rng.random() < 0.15]
            votes = [Vote(voter=n, targets=(rng.choice(living),)) for n in olds]
            orders = []
            removals = (Removal(nick=rng.choice(living), reason="r"),) if rng.random() < 0.1 else ()
            for p in now.living():
                if p.nick in silent:
                    continue
                if rng.random() < 0.7:
                    votes.append(Vote(voter=p.nick, targets=(rng.choice(living),)))
                for action in sorted(rules.role_actions.get(p.role, frozenset()) - {"special"}):
                    orders.append(Order(actor=p.nick, action=action, targets=(rng.choice(living),)))
            day_input = DayInput(
                votes=tuple(votes), orders=tuple(orders), silent=frozenset(silent),
                replacements=replacements, removals=removals,
            )
            outcome = resolve_day(state, day_input)
            dumps.append(outcome.model_dump(mode="json"))
            state = outcome.state
for path in scenario_files([root / "scenarios" / variant]):
    dumps.append([o.model_dump(mode="json") for o in run_scenario(load_scenario(path)).outcomes])
print(json.dumps(dumps, ensure_ascii=False))
"""


def run_probe(variant: str, hash_seed: str) -> str:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    done = subprocess.run(
        [sys.executable, "-c", PROBE, variant, str(ROOT)],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        cwd=ROOT,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("variant", ["gameru-3.3", "kozanostra", "salon"])
def test_the_same_game_gives_the_same_outcome_whatever_the_hash_seed(variant: str) -> None:
    first, *others = (run_probe(variant, seed) for seed in HASH_SEEDS)
    days = json.loads(first)
    assert len(days) > 20
    for seed, other in zip(HASH_SEEDS[1:], others, strict=True):
        if other != first:  # name the first outcome that differs, not the whole output
            pairs = zip(days, json.loads(other), strict=True)
            at = next(i for i, (a, b) in enumerate(pairs) if json.dumps(a) != json.dumps(b))
            where = f"PYTHONHASHSEED={seed} and {HASH_SEEDS[0]} differ at outcome {at}"
            pytest.fail(f"{variant}: {where}: {str(days[at])[:500]}")
