"""One setting of the expert against another, on the same match seeds: a paired ablation.

    python tests/benchmarks/paired_ablation.py --seats greedy,king-aware,lookahead,expert \\
        --matches 40 --seed 501 --jobs 2 --iterations 16 --variant round_infer=true

plays every match seed (or with ``--deals``, every deal as a single round) once per rotation of
the seats twice: with the expert's settings as given
(``--base KEY=VALUE``, repeatable; ``--think-ms`` or ``--iterations`` for its budget) and with
``--variant KEY=VALUE`` on top. Every other seat, the deals and the players' seeds are the same
in both, so per match seed the difference of the expert's win share (averaged over the
rotations) and of its penalty points a round is paired; their means are printed with 95%
intervals over the match seeds (normal approximation), with the expert's share and its
difference to every other seat in each setting. With ``--iterations`` the expert is
deterministic, and no seat's slow move is handed to greedy (the fault limit of ``ai.safe`` is
widened), so the runs do not depend on the machine's load. ``--pool RUN.json ...`` (with
``--seats``) pools the rows of runs on other seeds instead of playing.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import ai.safe
from kc_tui.engine import Rules
from kc_tui.lab.batching import iter_match_records, iter_records
from kc_tui.lab.options import TournamentOptions, seat_names
from kc_tui.lab.play import DealRecord, MatchPlayRecord
from kc_tui.lab.results import by_match, win_share

Z = 1.96
#: The fault limit (times a seat's budget) of runs with a fixed ``--iterations``: a move is never
#: cut short for the time a loaded machine took over it.
UNHURRIED = 1000.0
EXPERT = "expert"


def mean_ci(xs: Sequence[float]) -> tuple[float, float, float]:
    """Mean and its 95% interval (normal approximation; at least two values)."""
    n = len(xs)
    m = sum(xs) / n
    var = sum((x - m) ** 2 for x in xs) / (n - 1) if n > 1 else 0.0
    half = Z * math.sqrt(var / n)
    return m, m - half, m + half


def value(text: str) -> Any:
    """A setting's value from text: true/false, a whole number, a number or 'none'."""
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    if low == "none":
        return None
    try:
        return int(text)
    except ValueError:
        return float(text)


def seated(p: argparse.ArgumentParser, seats: str) -> tuple[tuple[str, ...], int]:
    """The kinds of ``--seats`` and the expert's seat entry (exactly one expert, or a usage error)."""
    kinds = tuple(seats.split(","))
    if kinds.count(EXPERT) != 1:
        p.error("seat exactly one expert")
    return kinds, kinds.index(EXPERT)


def settings(pairs: Sequence[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for p in pairs:
        key, _, text = p.partition("=")
        out[key.strip()] = value(text.strip())
    return out


def per_seed(cfg: TournamentOptions, bar: Any) -> list[tuple[list[float], list[float]]]:
    """Per match seed: every seat entry's win share and penalty points a round."""
    n = len(cfg.kinds)
    out = []
    recs: list[MatchPlayRecord]
    for recs in by_match(iter_match_records(cfg, bar)):
        shares = [float(sum(win_share(r, j, n) for r in recs) / len(recs)) for j in range(n)]
        rounds = sum(r.rounds for r in recs if not r.capped) or 1
        points = [sum(r.seats[j].penalty for r in recs if not r.capped) / rounds for j in range(n)]
        out.append((shares, points))
    return out


def per_deal(cfg: TournamentOptions, bar: Any) -> list[tuple[list[float], list[float]]]:
    """Per deal (single rounds): every seat entry's rounds won and penalty points, averaged over
    the rotations (a block counts for nobody)."""
    n = len(cfg.kinds)
    out = []
    group: list[DealRecord] = []
    for r in iter_records(cfg, bar):
        group.append(r)
        if len(group) == n:
            shares = [sum(1.0 for g in group if g.winner == j) / n for j in range(n)]
            points = [sum(g.seats[j].penalty for g in group) / n for j in range(n)]
            out.append((shares, points))
            group = []
    return out


def pooled(files: Sequence[str], expert: int) -> dict[str, Any]:
    """The paired differences over the rows of several runs' ``--json`` (other seeds)."""
    base: list[Any] = []
    variant: list[Any] = []
    for f in files:
        rows = json.loads(Path(f).read_text())["rows"]
        base += rows["base"]
        variant += rows["variant"]
    pairs = list(zip(base, variant, strict=True))
    return {
        "share": mean_ci([vb[0][expert] - va[0][expert] for va, vb in pairs]),
        "points_a_round": mean_ci([vb[1][expert] - va[1][expert] for va, vb in pairs]),
        "seeds": len(pairs),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--pool", nargs="+", default=None, help="pool these runs' --json instead of playing")
    p.add_argument("--seats", required=True)
    p.add_argument("--matches", type=int, default=None)
    p.add_argument("--deals", type=int, default=None)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--think-ms", type=float, default=None)
    p.add_argument("--iterations", type=int, default=None)
    p.add_argument("--base", action="append", default=[])
    p.add_argument("--variant", action="append", default=[])
    p.add_argument("--rules", nargs="*", default=[])
    p.add_argument("--json", default=None)
    p.add_argument("--quiet", action="store_true")
    args = p.parse_args(argv)
    if not args.pool and (args.matches is None) == (args.deals is None):
        p.error("give --matches or --deals")
    kinds, e = seated(p, args.seats)
    if args.pool:
        print(json.dumps(pooled(args.pool, e)))
        return 0
    rules = Rules.from_dict(settings(args.rules))
    budget: dict[str, Any] = {}
    if args.think_ms is not None:
        budget["think_ms"] = args.think_ms
    if args.iterations is not None:
        budget["iterations"] = args.iterations
        ai.safe.TIMEOUT_FACTOR = UNHURRIED
    base = {**budget, **settings(args.base)}
    arms = {"base": base, "variant": {**base, **settings(args.variant)}}
    results: dict[str, Any] = {}
    seeds: dict[str, list[tuple[list[float], list[float]]]] = {}
    for arm, params in arms.items():
        cfg = TournamentOptions(
            kinds=kinds,
            names=tuple(seat_names(list(kinds))),
            params=tuple(tuple(sorted(params.items())) if k == EXPERT else () for k in kinds),
            deals=args.deals or 0,
            seed=args.seed,
            jobs=args.jobs,
            rules=rules,
            max_turns=1000,
            matches=args.matches,
        )
        t0 = time.monotonic()
        bar = None if args.quiet else sys.stderr
        seeds[arm] = per_seed(cfg, bar) if args.matches else per_deal(cfg, bar)
        rows = seeds[arm]
        arm_out: dict[str, Any] = {"params": params, "seconds": round(time.monotonic() - t0, 1)}
        for j, kind in enumerate(cfg.names):
            share = mean_ci([s[j] for s, _p in rows])
            points = mean_ci([pts[j] for _s, pts in rows])
            arm_out[kind] = {"share": share, "points_a_round": points}
            if j != e:
                arm_out[f"expert-{kind}"] = {
                    "share": mean_ci([s[e] - s[j] for s, _p in rows]),
                    "points_a_round": mean_ci([pts[e] - pts[j] for _s, pts in rows]),
                }
        results[arm] = arm_out
    a, b = seeds["base"], seeds["variant"]
    results["variant-base"] = {
        "share": mean_ci([vb[0][e] - va[0][e] for va, vb in zip(a, b, strict=True)]),
        "points_a_round": mean_ci([vb[1][e] - va[1][e] for va, vb in zip(a, b, strict=True)]),
        "seeds": len(a),
    }
    # Every match seed's (or deal's) figures, for pooling runs on other seeds.
    results["rows"] = {"base": a, "variant": b}
    print(json.dumps({k: v for k, v in results.items() if k != "rows"}, indent=1))
    if args.json:
        Path(args.json).write_text(json.dumps(results) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
