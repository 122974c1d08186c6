"""Speed of the rules engine, single process.  Prints ``name: value`` lines.

    nice -n 10 python tests/benchmarks/bench_engine.py [--seconds 3]

* ``random_4p_rounds_per_s``: whole 4-player rounds (deal included, default rules), every
  decision a uniformly random legal move, ``end`` included.
* ``first_move_4p_rounds_per_s``: the same with ``legal_moves()[0]`` (``end`` is last).
* Times are CPU time of this process (``time.process_time``), so a busy shared machine does
  not make the engine look slower than it is; ``*_per_wall_s`` gives the wall-clock rate too.
* ``legal_moves_us``, ``clone_us``, ``apply_us``, ``view_us``, ``deal_us``: the median over
  mid-round positions (decisions 25%..75% of the way through random 4-player rounds).

Targets (one core): random_4p_rounds_per_s >= 1500, legal_moves_us <= 5, clone_us <= 5.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time

from kc_tui.engine import END, Round, Rules


def rounds_per_s(policy: str, seconds: float, rules: Rules) -> tuple[float, float, float]:
    """Rounds per CPU second, rounds per wall-clock second, mean decisions per round."""
    rng = random.Random(1)
    done = 0
    decisions = 0
    t0 = time.perf_counter()
    c0 = time.process_time()
    deadline = c0 + seconds
    seed = 0
    while True:
        r = Round.deal(4, rules, seed=seed, dealer=seed % 4)
        seed += 1
        if policy == "random":
            randrange = rng.randrange
            while not r.over:
                ms = r.legal_moves()
                r.apply(ms[randrange(len(ms))])
                decisions += 1
        else:
            while not r.over:
                r.apply(r.legal_moves()[0])
                decisions += 1
        done += 1
        if done % 16 == 0 and time.process_time() >= deadline:
            break
    return done / (time.process_time() - c0), done / (time.perf_counter() - t0), decisions / done


def mid_round_positions(count: int, rules: Rules) -> list[Round]:
    rng = random.Random(2)
    out: list[Round] = []
    seed = 10_000
    while len(out) < count:
        r = Round.deal(4, rules, seed=seed, dealer=seed % 4)
        seed += 1
        trail: list[Round] = []
        while not r.over:
            trail.append(r.clone())
            ms = r.legal_moves()
            r.apply(ms[rng.randrange(len(ms))])
        lo, hi = len(trail) // 4, max(len(trail) // 4 + 1, 3 * len(trail) // 4)
        out += rng.sample(trail[lo:hi], min(4, hi - lo))
    return out[:count]


def per_call_us(fn: object, reps: int) -> float:
    """Best of 3 timings of ``reps`` calls, in microseconds per call."""
    assert callable(fn)
    best = float("inf")
    for _ in range(3):
        t0 = time.process_time()
        for _ in range(reps):
            fn()
        best = min(best, time.process_time() - t0)
    return best / reps * 1e6


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="engine speed")
    parser.add_argument("--seconds", type=float, default=3.0, help="time for each rounds-per-second measure")
    parser.add_argument("--positions", type=int, default=300, help="mid-round positions for the micro measures")
    args = parser.parse_args(argv)
    rules = Rules()

    rps, wall, dec = rounds_per_s("random", args.seconds, rules)
    print(f"random_4p_rounds_per_s: {rps:.0f}")
    print(f"random_4p_rounds_per_wall_s: {wall:.0f}")
    print(f"random_4p_decisions_per_round: {dec:.1f}")
    rps, wall, dec = rounds_per_s("first", args.seconds, rules)
    print(f"first_move_4p_rounds_per_s: {rps:.0f}")
    print(f"first_move_4p_rounds_per_wall_s: {wall:.0f}")
    print(f"first_move_4p_decisions_per_round: {dec:.1f}")

    positions = mid_round_positions(args.positions, rules)
    reps = 200
    legal = [per_call_us(p.legal_moves, reps) for p in positions]
    clone = [per_call_us(p.clone, reps) for p in positions]
    view = [per_call_us(lambda p=p: p.view(p.to_move), 50) for p in positions]

    rng = random.Random(3)
    apply_times: list[float] = []
    for p in positions:
        ms = [m for m in p.legal_moves() if m != END] or [END]
        m = rng.choice(ms)
        copies = [p.clone() for _ in range(reps)]
        t0 = time.process_time()
        for c in copies:
            c.apply(m)
        apply_times.append((time.process_time() - t0) / reps * 1e6)
    seeds = iter(range(10**9))
    deal = per_call_us(lambda: Round.deal(4, rules, seed=next(seeds)), 2000)

    per_call = {
        "legal_moves": statistics.median(legal),
        "clone": statistics.median(clone),
        "apply": statistics.median(apply_times),
        "view": statistics.median(view),
        "deal": deal,
    }
    for name, us in per_call.items():
        print(f"{name}_us: {us:.2f}")
    print(f"mean_legal_moves_mid_round: {statistics.mean(len(p.legal_moves()) for p in positions):.1f}")
    print(f"python: {sys.version.split()[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
