"""The expert's times (not collected by pytest): its whole search against its think-time budget,
and what a simulated deal costs with each ``sim`` at four seats.

    python tests/benchmarks/bench_expert.py [--budget-ms 150] [--positions 10]

Prints ``name: value`` lines: ``budget_turn_cpu_ms_median`` and ``_max`` (this thread's CPU time
a turn, lookahead's turn search inside it included: time the machine gives to others only makes
the search stop sooner), ``budget_within`` (true while the median is at most 1.1x the budget and
the slowest turn at most 2x, beyond which the game counts a fault), and
``sim_<sim>_cpu_ms`` for a fixed count of deals at every four-seat position. Exit status 1 when
the budget is not kept.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from ai import make_player
from tests.ai.helpers import midround_positions


def budget_times(budget_ms: float, positions: int) -> list[float]:
    """The CPU ms of each turn of an expert with ``budget_ms`` over seeded mid-round positions."""
    times = []
    for i, (r, seat) in enumerate(midround_positions(positions, seed=11)):
        ai = make_player("expert", i, think_ms=budget_ms)
        t0 = time.thread_time()
        ai.choose(r.view(seat))
        times.append((time.thread_time() - t0) * 1000)
    return times


def sim_cost_ms(sim: str, positions: int, iterations: int) -> float:
    """The CPU ms an expert simulating with ``sim`` spends over the four-seat positions."""
    spent = 0.0
    for i, (r, seat) in enumerate(midround_positions(positions, seed=31)):
        if r.n < 4:
            continue
        ai = make_player("expert", i, iterations=iterations, sim=sim)
        view = r.view(seat)
        t0 = time.thread_time()
        ai.choose(view)
        spent += time.thread_time() - t0
    return 1000 * spent


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--budget-ms", type=float, default=150.0, help="the expert's think time (default 150)")
    p.add_argument("--positions", type=int, default=10, help="positions timed against the budget (default 10)")
    p.add_argument("--sim-positions", type=int, default=12, help="positions searched with each sim (default 12)")
    p.add_argument("--iterations", type=int, default=8, help="deals a turn with each sim (default 8)")
    a = p.parse_args(argv)
    times = budget_times(a.budget_ms, a.positions)
    median, slowest = statistics.median(times), max(times)
    within = median <= 1.1 * a.budget_ms and slowest <= 2 * a.budget_ms
    print(f"budget_ms: {a.budget_ms:g}")
    print(f"budget_turn_cpu_ms_median: {median:.3f}")
    print(f"budget_turn_cpu_ms_max: {slowest:.3f}")
    print(f"budget_within: {str(within).lower()}")
    for sim in ("king-aware", "greedy"):
        print(f"sim_{sim.replace('-', '_')}_cpu_ms: {sim_cost_ms(sim, a.sim_positions, a.iterations):.3f}")
    return 0 if within else 1


if __name__ == "__main__":
    sys.exit(main())
