"""Rate the AI kinds on the Elo scale and write ``kc_tui/data/ai_ratings.json``:
``nice -n 10 python tools/ai_ratings.py [--seed S] [--iterations N] [--scale X] [--out FILE]``.

A development script of the repository, not part of the installed package: run it from a
checkout where the project is installed (``pip install -e .``), or from the repository root as
``python -m tools.ai_ratings``.

Plays whole matches between the AI kinds with the tournament's match mode
(:func:`kc_tui.lab.batching.iter_match_records`: default rules, every match seed played once per
cyclic rotation of the seats with the same deals): every pair of kinds heads-up, and a few
tables of three and four (:data:`TABLES`, the close pairs given more match seeds than the
foregone ones). Each match's final totals become the pairwise results they imply
(:func:`kc_tui.records.rating.pairwise`: a four-seat match gives six), and :func:`kc_tui.records.rating.fit`
rates every kind with ``greedy`` fixed at 1000 (the scale's anchor; the other kinds get the
default prior, sd 350, around it). A match stopped as capped is left out.

The expert searches a fixed number of deals a turn (``--iterations``, default 30: about what
its least think time, 50 ms, searches on the 2-core machine the shipped file was made on), so
the results do not depend on the load of the machine; the JSON says so. The sds treat every
pairwise result as independent (the rotations of one seed share their deals, and the results
of one multi-seat match share it, so the true uncertainty is somewhat larger).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import sys
import time
from pathlib import Path
from typing import Any

from ai import ai_kinds
from kc_tui.engine.rules import Scoring
from kc_tui.lab.batching import iter_match_records
from kc_tui.lab.options import add_arguments, parse_options
from kc_tui.records.rating import fit, pairwise

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "kc_tui" / "data" / "ai_ratings.json"
#: The kind whose rating is fixed, and its value.
ANCHOR = ("greedy", 1000.0)
#: The expert's deals searched a turn (``--iterations``).
DEFAULT_ITERATIONS = 30
#: The expert think time (ms) the default iterations stand for (measured: at 50 ms a move the
#: expert searched a median of 29 deals a turn against lookahead on this machine).
THINK_MS_EQUIVALENT = 50
#: The tables: the kinds at the table (entry order), and the match seeds (each played once per
#: rotation). Every pair heads-up, more seeds where the result is in doubt; then tables of three
#: and four. The expert's tables are the slow ones (about 7 s a match heads-up).
TABLES: tuple[tuple[tuple[str, ...], int], ...] = (
    (("random", "greedy"), 15),
    (("random", "king-aware"), 15),
    (("random", "lookahead"), 10),
    (("random", "expert"), 3),
    (("greedy", "king-aware"), 30),
    (("greedy", "lookahead"), 25),
    (("greedy", "expert"), 5),
    (("king-aware", "lookahead"), 25),
    (("king-aware", "expert"), 6),
    (("lookahead", "expert"), 8),
    (("random", "greedy", "king-aware"), 10),
    (("king-aware", "lookahead", "expert"), 2),
    (("random", "greedy", "king-aware", "lookahead"), 8),
    (("greedy", "king-aware", "lookahead", "expert"), 2),
)


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="tools/ai_ratings.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--seed", type=int, default=1, help="seed of the first table (table k uses seed + k; default 1)")
    p.add_argument(
        "--iterations",
        type=int,
        default=DEFAULT_ITERATIONS,
        help=f"the expert's deals searched a turn (default {DEFAULT_ITERATIONS}, about its 50 ms setting)",
    )
    p.add_argument("--scale", type=float, default=1.0, help="multiply every table's match seeds (at least 1 each)")
    p.add_argument(
        "--kinds",
        default=None,
        help="comma-separated kinds: play only the tables of these kinds (a quick check; default every table)",
    )
    p.add_argument("--jobs", type=int, default=1, help="worker processes of the tournament (default 1)")
    p.add_argument("--out", type=Path, default=OUT, help=f"the JSON file to write (default {OUT.relative_to(ROOT)})")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    return p.parse_args(argv)


def tournament_config(kinds: tuple[str, ...], matches: int, seed: int, iterations: int, jobs: int) -> Any:
    """The tournament's checked :class:`~kc_tui.lab.options.TournamentOptions` of one table."""
    p = argparse.ArgumentParser()
    add_arguments(p)
    argv = ["--seats", ",".join(kinds), "--matches", str(matches), "--seed", str(seed)]
    argv += ["--jobs", str(jobs), "--iterations", str(iterations), "--quiet"]
    return parse_options(p.parse_args(argv))


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    command = " ".join(["python tools/ai_ratings.py", *argv])
    started = time.monotonic()
    games: list[tuple[str, str, float]] = []
    tables: list[dict[str, Any]] = []
    played = capped = 0
    only = None if args.kinds is None else {k.strip() for k in args.kinds.split(",")}
    for k, (kinds, seeds) in enumerate(TABLES):
        if only is not None and not set(kinds) <= only:
            continue
        n = max(1, math.ceil(seeds * args.scale))
        cfg = tournament_config(kinds, n, args.seed + k, args.iterations, args.jobs)
        lower_is_better = cfg.rules.scoring != Scoring.CHIPS
        t0 = time.monotonic()
        table_played = table_capped = 0
        print(f"{', '.join(kinds)}: {n} match seeds x {len(kinds)} rotations", file=sys.stderr)
        for rec in iter_match_records(cfg, None if args.quiet else sys.stderr):
            if rec.capped:
                table_capped += 1
                continue
            table_played += 1
            finish = [s.final for s in rec.seats]  # by seat entry, as cfg.kinds
            for i, j, score in pairwise(finish, lower_is_better):
                games.append((cfg.kinds[i], cfg.kinds[j], score))
        tables.append(
            {
                "seats": list(kinds),
                "seed": args.seed + k,
                "match_seeds": n,
                "matches": table_played,
                "capped": table_capped,
                "seconds": round(time.monotonic() - t0, 1),
            }
        )
        played += table_played
        capped += table_capped
    ratings = fit(games, {ANCHOR[0]: ANCHOR[1]})
    head_to_head: dict[tuple[str, str], list[float]] = {}
    for a, b, s in games:
        key, score = ((a, b), s) if a < b else ((b, a), 1.0 - s)
        acc = head_to_head.setdefault(key, [0, 0.0])
        acc[0] += 1
        acc[1] += score
    order = [k for k in ai_kinds() if k in ratings]
    doc = {
        "scale": "elo",
        "anchor": {ANCHOR[0]: ANCHOR[1]},
        "model": "Bradley-Terry on the Elo scale, maximum a posteriori, normal prior sd 350 around the anchor; "
        "pairwise results from each match's final totals (points: lower is better), ties half each",
        "command": command,
        "date": dt.datetime.now(dt.UTC).date().isoformat(),
        "rules": "default (points to 50)",
        "matches": played,
        "capped": capped,
        "pairwise_results": len(games),
        "expert_iterations": args.iterations,
        "expert_think_ms": THINK_MS_EQUIVALENT if args.iterations == DEFAULT_ITERATIONS else None,
        "wall_seconds": round(time.monotonic() - started, 1),
        "ratings": {k: {"value": round(ratings[k].value, 1), "sd": round(ratings[k].sd, 1)} for k in order},
        "head_to_head": [
            {"a": a, "b": b, "results": int(n), "score_a": round(s, 1)}
            for (a, b), (n, s) in sorted(head_to_head.items())
        ],
        "tables": tables,
    }
    args.out.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    print(f"{played} matches ({capped} capped), {len(games)} pairwise results, {doc['wall_seconds']} s")
    for kind in order:
        print(f"  {kind:<12}{ratings[kind].value:8.0f} ± {ratings[kind].sd:.0f}")
    print(f"written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
