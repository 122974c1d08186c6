"""Think time of each AI per move over seeded mid-round positions (not collected by pytest).

    python tests/benchmarks/bench_ai.py [--positions 200] [--think-ms 1000]

Prints ``<ai>_turn_ms_p50: x``, ``_p95:`` and ``_max:`` lines. Each position is the first move
of a turn (the move where the planners plan the whole turn); a fresh AI is used per position.
``hint`` is the hint's advice with its reason (:meth:`ai.advice.hint.HintAI.advice`, what the
``h`` key computes) at the turn's first move; ``hint_next`` the next hint of the same turn, asked
of the same hint after its first step was played. ``--only hint`` measures just those two.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from ai import make_player
from ai.advice.hint import HintAI
from kc_tui.engine import Round
from tests.ai.helpers import midround_positions


def percentile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    k = min(len(xs) - 1, max(0, round(q * (len(xs) - 1))))
    return xs[k]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--positions", type=int, default=200)
    p.add_argument("--think-ms", type=float, default=1000.0, help="the expert's budget")
    p.add_argument("--expert-positions", type=int, default=None, help="fewer positions for the expert")
    p.add_argument("--only", choices=("hint",), default=None, help="measure only the hint")
    a = p.parse_args()
    positions = midround_positions(a.positions, seed=2024)
    bench_hint(positions)
    if a.only == "hint":
        return 0
    kinds: list[tuple[str, str, dict[str, Any]]] = [
        ("greedy", "greedy", {}),
        ("king_aware", "king-aware", {}),
        ("lookahead", "lookahead", {}),
    ]
    kinds.append(("expert", "expert", {"think_ms": a.think_ms}))
    for name, kind, params in kinds:
        times: list[float] = []
        todo = positions if name != "expert" or a.expert_positions is None else positions[: a.expert_positions]
        for i, (r, seat) in enumerate(todo):
            ai = make_player(kind, i, **params)
            view = r.view(seat)
            t0 = time.perf_counter()
            ai.choose(view)
            times.append((time.perf_counter() - t0) * 1000)
        print(f"{name}_turn_ms_p50: {statistics.median(times):.3f}")
        print(f"{name}_turn_ms_p95: {percentile(times, 0.95):.3f}")
        print(f"{name}_turn_ms_max: {max(times):.3f}")
        sys.stdout.flush()
    return 0


def bench_hint(positions: list[tuple[Round, int]]) -> None:
    """The hint's advice at a turn's first move, and the next hint after its first step."""
    first: list[float] = []
    after: list[float] = []
    for i, (r, seat) in enumerate(positions):
        hint = HintAI(i)
        t0 = time.perf_counter()
        told = hint.advice(r.view(seat))
        first.append((time.perf_counter() - t0) * 1000)
        if told.plan:
            r2 = r.clone()
            r2.apply(told.move)
            if not r2.over and r2.to_move == seat:
                t0 = time.perf_counter()
                hint.advice(r2.view(seat))
                after.append((time.perf_counter() - t0) * 1000)
    for name, times in (("hint", first), ("hint_next", after)):
        print(f"{name}_turn_ms_p50: {statistics.median(times):.3f}")
        print(f"{name}_turn_ms_p95: {percentile(times, 0.95):.3f}")
        print(f"{name}_turn_ms_max: {max(times):.3f}")
    sys.stdout.flush()


if __name__ == "__main__":
    sys.exit(main())
