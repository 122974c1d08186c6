"""Soak test of the rules engine: many seeded rounds over every variant and player count.

Not collected by pytest (``addopts`` ignores tests/benchmarks).  Run it as a script::

    nice -n 10 python tests/benchmarks/soak.py --rounds 100000 --jobs 2

Half the rounds use uniformly random play (at every decision a uniformly random legal move,
``end`` included), half the first-legal-move policy (``legal_moves()[0]``; ``end`` is listed
last, so this policy always moves when it can).  After every move it checks: all 52 cards
present exactly once; every pile a legal build; every corner pile starting with a king;
no pile longer than 13; hand sizes >= 0; legal moves apply without error.  A round that
needs more than ``--cap`` decisions counts as a violation.  It prints ``name: value`` lines.
"""

from __future__ import annotations

import argparse
import itertools
import multiprocessing
import random
import sys
import time
from collections import Counter
from typing import Any

from kc_tui.engine import Move, PlayerView, Round, Rules
from kc_tui.engine.cards import FULL_MASK, NEED, is_king
from kc_tui.engine.rules import CHOICES
from kc_tui.match.autoplay import play_out

POLICIES = ("random", "first")
PLAYERS = (2, 3, 4)


def configs() -> list[tuple[Rules, int]]:
    """Every combination of the word-valued settings with every player count."""
    keys = list(CHOICES)
    out: list[tuple[Rules, int]] = []
    for values in itertools.product(*(CHOICES[k] for k in keys)):
        settings: dict[str, Any] = dict(zip(keys, values, strict=True))
        for n in PLAYERS:
            out.append((Rules(**settings), n))
    return out


def check(r: Round, prev_piles: list[tuple[int, ...]] | None) -> str | None:
    """The first broken invariant of ``r``, or None."""
    seen = 0
    count = 0
    for h in r.hands:
        if h < 0 or h & ~FULL_MASK:
            return "hand holds a non-card"
        if seen & h:
            return "card in two hands"
        seen |= h
        count += h.bit_count()
    for x in r.stock:
        bit = 1 << x
        if seen & bit:
            return "stock card also elsewhere"
        seen |= bit
        count += 1
    for i, p in enumerate(r.piles):
        for x in p:
            bit = 1 << x
            if seen & bit:
                return "pile card also elsewhere"
            seen |= bit
            count += 1
        if prev_piles is not None and p is prev_piles[i]:
            continue  # unchanged pile (tuples are immutable): already checked
        if len(p) > 13:
            return "pile longer than 13"
        if i >= 4 and p and not is_king(p[0]):
            return "corner without a king at the bottom"
        for a, b in itertools.pairwise(p):
            if not (NEED[a] >> b) & 1:
                return "pile is not a legal build"
    if count != 52 or seen != FULL_MASK:
        return f"{count} cards, not 52 exactly once"
    return None


class Violation(Exception):
    """A broken invariant: stops the round, reported as the round's problem."""


class Policy:
    """A seat that plays round ``r``'s legal moves (the engine's own list, not the view's): a
    uniformly random one (``random``) or the first (``first``)."""

    def __init__(self, r: Round, policy: str, rng: random.Random) -> None:
        self.r = r
        self.policy = policy
        self.rng = rng

    def choose(self, view: PlayerView) -> Move:
        ms = self.r.legal_moves()
        if not ms:
            raise Violation("no legal move (not even end) in a running round")
        return ms[self.rng.randrange(len(ms))] if self.policy == "random" else ms[0]


def play_round(rules: Rules, n: int, seed: int, policy: str, cap: int) -> tuple[bool, str | None, int]:
    """Play one round; return (blocked, violation or None, decisions)."""
    r = Round.deal(n, rules, seed=seed, dealer=seed % n)
    player = Policy(r, policy, random.Random(seed * 7919 + 17))
    problem = check(r, None)
    if problem:
        return False, f"after the deal: {problem}", 0
    prev = [list(r.piles)]
    decisions = 0

    def checked(_seat: int, _move: Move, _seconds: float) -> None:
        nonlocal decisions
        decisions += 1
        problem = check(r, prev[0])
        if problem:
            raise Violation(problem)
        prev[0] = list(r.piles)

    try:
        if play_out(r, [player] * n, max_moves=cap, on_move=checked):
            return False, f"more than {cap} decisions", decisions
    except Violation as exc:
        return False, str(exc), decisions
    except Exception as exc:  # a legal move must apply
        return False, f"legal move raised {type(exc).__name__}: {exc}", decisions
    if r.legal_moves():
        return False, "moves listed after the round ended", decisions
    return r.winner is None, None, decisions


def work(task: tuple[int, int, int]) -> dict[str, Any]:
    start, stop, cap = task
    cfgs = configs()
    stats: dict[str, Any] = {
        p: {"rounds": 0, "violations": 0, "blocks": 0, "decisions": 0, "max_decisions": 0} for p in POLICIES
    }
    examples: list[str] = []
    kinds: Counter[str] = Counter()
    for i in range(start, stop):
        policy = POLICIES[i % 2]
        rules, n = cfgs[(i // 2) % len(cfgs)]
        blocked, problem, decisions = play_round(rules, n, i, policy, cap)
        s = stats[policy]
        s["rounds"] += 1
        s["decisions"] += decisions
        s["max_decisions"] = max(s["max_decisions"], decisions)
        if problem:
            s["violations"] += 1
            kinds[problem.split(":")[0]] += 1
            if len(examples) < 5:
                examples.append(f"round {i} ({policy}, {n} players, {rules.changed()}): {problem}")
        elif blocked:
            s["blocks"] += 1
    return {"stats": stats, "examples": examples, "kinds": kinds}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=100_000)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--cap", type=int, default=20_000, help="decisions after which a round is a violation")
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    chunk = max(1, min(2000, args.rounds // (args.jobs * 8) or 1))
    tasks = [(a, min(a + chunk, args.rounds), args.cap) for a in range(0, args.rounds, chunk)]
    if args.jobs > 1:
        with multiprocessing.Pool(args.jobs) as pool:
            parts = pool.map(work, tasks)
    else:
        parts = [work(t) for t in tasks]
    total: dict[str, dict[str, int]] = {
        p: {"rounds": 0, "violations": 0, "blocks": 0, "decisions": 0, "max_decisions": 0} for p in POLICIES
    }
    examples: list[str] = []
    kinds: Counter[str] = Counter()
    for part in parts:
        for p in POLICIES:
            for k, v in part["stats"][p].items():
                total[p][k] = max(total[p][k], v) if k == "max_decisions" else total[p][k] + v
        examples += part["examples"]
        kinds.update(part["kinds"])
    rounds = sum(t["rounds"] for t in total.values())
    violations = sum(t["violations"] for t in total.values())
    blocks = sum(t["blocks"] for t in total.values())
    print(f"rounds: {rounds}")
    print(f"invariant_violations: {violations}")
    print(f"block_share: {blocks / max(rounds, 1):.4f}")
    for p in POLICIES:
        t = total[p]
        print(f"{p}_rounds: {t['rounds']}")
        print(f"{p}_invariant_violations: {t['violations']}")
        print(f"{p}_block_share: {t['blocks'] / max(t['rounds'], 1):.4f}")
        print(f"{p}_mean_decisions: {t['decisions'] / max(t['rounds'], 1):.1f}")
        print(f"{p}_max_decisions: {t['max_decisions']}")
    print(f"configurations: {len(configs())}")
    print(f"seconds: {time.perf_counter() - t0:.1f}")
    for kind, k in kinds.most_common():
        print(f"violation_kind: {kind} x{k}")
    for e in examples[:10]:
        print(f"example: {e}")
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main())
