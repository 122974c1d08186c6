"""How well the review's estimated loss matches what the better plan really gains.

    python tests/benchmarks/bench_review.py [--turns 300] [--samples 40] [--jobs 1] [--seed 1]

Plays rounds of matches (heads-up and three seats) between a mix of AI kinds (random, greedy,
king-aware, lookahead: some turns are poor), records every turn where there was a choice (the
seat's view at its start, the plan it played, and the true round at that moment), and reviews
each with :func:`ai.advice.review.review_turn` at its default budget (timed: seconds a turn).

Then, for every reviewed turn where the review shows a better plan, it measures what that plan
really gains over the one played: from the player's view, ``--samples`` FRESH deals (new
determinization seeds, no inference, never the review's deals), each played twice, once with
each plan, then to the end of the round by the same AI kinds as at the table (fresh players with
the same seeds for both plans), scored in the match's terms (:class:`ai.search.stakes.Stakes`, the
review's unit). The turns where the played plan is the review's best have an estimated and a
true loss of 0 (the alternative is the plan itself) and are counted apart.

Prints the mean absolute error (MAE) between estimated and re-measured loss, the mean signed
error (bias), the re-measurement's own standard error (its noise is part of the MAE: about
``0.8 * se`` of it when the review were exact), the marks, and the seconds per turn. Not run by the
test suite (a benchmark). Keep it under ~15 minutes: fewer ``--samples`` or ``--turns``.

Measured (``--turns 300 --samples 40 --jobs 2``, load 4 on 2 cores, 310 s in all):

    reviewed at most 40 deals a turn: 1.35 s a turn (median 0.95, max 5.58; 202 s wall, 2 jobs)
      2 seats: 213 turns, mean 1.70 s, 90% under 3.64 s, max 5.58 s
      3 seats: 87 turns, mean 0.49 s, 90% under 0.92 s, max 1.60 s
    marks: {'good': 254, 'inaccuracy': 11, 'mistake': 35}; forced 0
    re-measured 186 turns x 40 fresh deals x 2 plans in 108 s
    turns where the review shows a better plan: 186 of 300
      mean estimated loss 1.21, re-measured 1.25 points
      MAE 1.36 points, bias (estimated - re-measured) -0.04, re-measurement se 0.61
      good       n=140 estimated  0.41 re-measured  0.32 MAE  0.91
      inaccuracy n= 11 estimated  1.35 re-measured  1.16 MAE  0.69
      mistake    n= 35 estimated  4.39 re-measured  4.97 MAE  3.35
    MAE over all 300 reviewed turns (the others exact at 0): 0.84 points

Before: with the game expert's own heads-up setting (``--horizon 1``: the leaf model after one
reply) and the plain best-minus-played difference, the estimates ran far above what the plans
really gained (40 turns, 20 fresh deals: bias +4.4 points, MAE 4.5); playing every deal to the
end of the round with the plain difference, bias +1.3 to +2.1, MAE 2.2. Hence the review's
settings (:data:`ai.advice.review.REVIEW_EXPERT`: to the end of the round) and its held-out loss
(:func:`ai.advice.review.held_out_loss`: picking the best of several noisy plans does not inflate it).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from ai import make_player
from ai.advice.review import DEFAULT_ITERATIONS, played_moves, review_turn
from ai.base import AIPlayer
from ai.search.planning import play_plan
from ai.search.stakes import Stakes
from kc_tui.engine import END, Match, Move, PlayerView, Round, Rules, determinize

#: The AI kinds at the tables, with light settings so the re-measurement's playouts stay quick.
SETTINGS: dict[str, dict[str, int]] = {
    "random": {},
    "greedy": {},
    "king-aware": {"node_limit": 120},
    "lookahead": {"node_limit": 150, "samples": 2, "top": 3},
}
KINDS = tuple(SETTINGS)
#: A playout stops (scored as it stands) after this many moves.
MOVE_LIMIT = 3000


@dataclass(frozen=True)
class Turn:
    kinds: tuple[str, ...]
    seats_seed: int
    view: PlayerView
    plan: tuple[Move, ...]


def player(kind: str, seed: int) -> AIPlayer:
    return make_player(kind, seed, **SETTINGS[kind])


def record(count: int, seed: int) -> list[Turn]:
    """At least ``count`` turns with a choice (a legal move besides ending the turn)."""
    out: list[Turn] = []
    k = 0
    while len(out) < count:
        n = 2 if k % 5 < 3 else 3
        kinds = tuple(KINDS[(seed + k * 7 + s * 3 + k // 4) % len(KINDS)] for s in range(n))
        m = Match(n, Rules(), seed=seed * 1009 + k)
        for _round in range(2):  # two rounds a match: the second with a standing
            players = [player(kind, seed + k * 10 + s) for s, kind in enumerate(kinds)]
            r = m.round
            moves = 0
            while not r.over and moves < MOVE_LIMIT:
                seat = r.to_move
                view = r.view(seat)
                plan: list[Move] = []
                while not r.over and r.to_move == seat and moves < MOVE_LIMIT:
                    mv = players[seat].choose(r.view(seat))
                    r.apply(mv)
                    moves += 1
                    if mv == END:
                        break
                    plan.append(mv)
                if len(view.legal_moves()) > 1:
                    out.append(Turn(kinds, seed + k * 10, view, tuple(plan)))
            if not r.over or m.over:
                break
            m.finish_round()
            if m.over:
                break
        k += 1
    return out[:count]


def play_out(r: Round, plan: tuple[Move, ...], kinds: tuple[str, ...], seats_seed: int, stakes: Stakes) -> float:
    """Play ``plan``, end the turn, and let the table's AI kinds play to the end of the round."""
    play_plan(r, plan)
    players = [player(kind, seats_seed + 7919 + s) for s, kind in enumerate(kinds)]
    # A random player's choice without building its view (the view's history grows with the
    # round, and random rounds are long): the same move, from the same legal moves and generator.
    rngs = [random.Random(seats_seed + 7919 + s) if kind == "random" else None for s, kind in enumerate(kinds)]
    moves = 0
    while not r.over and moves < MOVE_LIMIT:
        rng = rngs[r.to_move]
        if rng is not None:
            legal = r.legal_moves()
            r.apply(legal[rng.randrange(len(legal))])
        else:
            r.apply(players[r.to_move].choose(r.view(r.to_move)))
        moves += 1
    return stakes.value(r.hands, r.winner, r.fines)


Review = tuple[float, float, float, str, bool, float, tuple[Move, ...], bool]


def review_one(args: tuple[Turn, int, dict[str, int], int]) -> Review:
    turn, seed, expert, iterations = args
    t0 = time.perf_counter()
    rv = review_turn(turn.view, turn.plan, seed=seed, expert=expert or None, iterations=iterations)
    better = rv.best_plan != rv.played_plan
    return rv.loss, rv.loss_se, time.perf_counter() - t0, rv.mark, rv.forced, rv.deals, rv.best_plan, better


def remeasure(args: tuple[Turn, tuple[Move, ...], tuple[Move, ...], int, int]) -> tuple[float, float]:
    """Mean and standard error of (best - played) on fresh deals."""
    turn, best, played, samples, seed = args
    stakes = Stakes.of(turn.view)
    diffs = []
    for i in range(samples):
        deal = determinize(turn.view, (seed * 1_000_003 + i * 7_777_777 + 12345) & ((1 << 62) - 1))
        a = play_out(deal.clone(), best, turn.kinds, turn.seats_seed + i, stakes)
        b = play_out(deal.clone(), played, turn.kinds, turn.seats_seed + i, stakes)
        diffs.append(a - b)
    mean = statistics.fmean(diffs)
    se = statistics.stdev(diffs) / len(diffs) ** 0.5 if len(diffs) > 1 else 0.0
    return mean, se


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--turns", type=int, default=300)
    ap.add_argument("--samples", type=int, default=40)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--iterations", type=int, default=DEFAULT_ITERATIONS, help="the review's deals a turn")
    ap.add_argument("--horizon", type=int, default=None, help="the expert's horizon (default: its own)")
    a = ap.parse_args()
    expert = {} if a.horizon is None else {"horizon": a.horizon}
    t0 = time.perf_counter()
    turns = record(a.turns, a.seed)
    print(f"recorded {len(turns)} turns with a choice in {time.perf_counter() - t0:.0f} s", flush=True)
    with ProcessPoolExecutor(a.jobs) as pool:
        t1 = time.perf_counter()
        asks = [(t, a.seed + i, expert, a.iterations) for i, t in enumerate(turns)]
        reviews = list(pool.map(review_one, asks, chunksize=4))
        wall = time.perf_counter() - t1
        secs = [r[2] for r in reviews]
        print(
            f"reviewed at most {a.iterations} deals a turn:"
            f" {statistics.fmean(secs):.2f} s a turn"
            f" (median {statistics.median(secs):.2f}, max {max(secs):.2f}; {wall:.0f} s wall, {a.jobs} jobs)",
            flush=True,
        )
        for n in sorted({t.view.n_players for t in turns}):
            ts = sorted(r[2] for t, r in zip(turns, reviews, strict=True) if t.view.n_players == n)
            p90 = ts[int(0.9 * (len(ts) - 1))]
            mean = statistics.fmean(ts)
            print(f"  {n} seats: {len(ts)} turns, mean {mean:.2f} s, 90% under {p90:.2f} s, max {ts[-1]:.2f} s")
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        print(f"  (load average {load:.1f} on {os.cpu_count()} cores: the times grow with it)", flush=True)
        marks = {m: sum(r[3] == m for r in reviews) for m in ("good", "inaccuracy", "mistake")}
        print(f"marks: {marks}; forced {sum(r[4] for r in reviews)}", flush=True)
        marked = [(t, r) for t, r in zip(turns, reviews, strict=True) if r[7]]
        # The played plan is the review's best on the other turns (the same end of turn): both losses 0.
        jobs = [(t, r[6], played_moves(t.view, t.plan), a.samples, a.seed * 31 + i) for i, (t, r) in enumerate(marked)]
        t2 = time.perf_counter()
        actual = list(pool.map(remeasure, jobs, chunksize=2))
    print(f"re-measured {len(marked)} turns x {a.samples} fresh deals x 2 plans in {time.perf_counter() - t2:.0f} s")
    est = [r[0] for _t, r in marked]
    got = [m for m, _se in actual]
    errs = [abs(e - g) for e, g in zip(est, got, strict=True)]
    bias = statistics.fmean(e - g for e, g in zip(est, got, strict=True)) if est else 0.0
    noise = statistics.fmean(se for _m, se in actual) if actual else 0.0
    unit = "points"
    mae = statistics.fmean(errs) if errs else 0.0
    print(f"turns where the review shows a better plan: {len(marked)} of {len(turns)}")
    mean_est = statistics.fmean(est) if est else 0.0
    mean_got = statistics.fmean(got) if got else 0.0
    print(f"  mean estimated loss {mean_est:.2f}, re-measured {mean_got:.2f} {unit}")
    print(f"  MAE {mae:.2f} {unit}, bias (estimated - re-measured) {bias:+.2f}, re-measurement se {noise:.2f}")
    for mark in ("good", "inaccuracy", "mistake"):
        sel = [(e, g) for (_t, r), e, g in zip(marked, est, got, strict=True) if r[3] == mark]
        if sel:
            e_mean = statistics.fmean(e for e, _ in sel)
            g_mean = statistics.fmean(g for _, g in sel)
            mae_mark = statistics.fmean(abs(e - g) for e, g in sel)
            print(f"  {mark:10s} n={len(sel):3d} estimated {e_mean:5.2f} re-measured {g_mean:5.2f} MAE {mae_mark:5.2f}")
    overall = sum(errs) / len(turns)
    print(f"MAE over all {len(turns)} reviewed turns (the others exact at 0): {overall:.2f} {unit}")
    print(f"total {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
