"""How early the expert may stop searching: records full-budget turns, then replays stopping rules.

    python tests/benchmarks/expert_settle.py [--deals 6] [--think-ms 1000] [--jobs 2]

Plays heads-up rounds of the expert (with ``settle=0``: always the whole budget) against
lookahead, both seat orders, and keeps every searched turn's table of values (plan x deal). Then,
for each stopping rule (``settle`` z, ``tolerance``), it replays those tables: where the rule would
have stopped, and how much worse (in the full search's own estimate of the chance to win) the
plan chosen there is than the plan chosen with all the deals. Prints one line per rule:
``z=.. tolerance=.. deals_used=<fraction> regret=<per turn>`` and the search's gain over
lookahead's favourite, for scale.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from ai import make_player
from ai.players.expert import SETTLE_FIRST, ExpertAI, next_check
from kc_tui.engine import Round, Rules
from kc_tui.match.autoplay import play_out

Table = list[list[float]]


class Recorder(ExpertAI):
    """The expert, keeping the values of every searched turn."""

    def __init__(self, seed: int, **kw: Any) -> None:
        super().__init__(seed, settle=0.0, **kw)
        self.tables: list[Table] = []

    def plan_turn(self, view: Any, legal: Any) -> Any:
        def keep(values: Table, margin: float) -> int:
            self.tables.append([list(v) for v in values])
            return ExpertAI._pick(values, margin)

        self._pick = keep  # type: ignore[method-assign]
        try:
            return super().plan_turn(view, legal)
        finally:
            del self._pick


def record(deal: int, think_ms: float) -> list[Table]:
    tables: list[Table] = []
    for rot in range(2):
        r = Round.deal(2, Rules(), 1000 + deal, dealer=deal % 2)
        ex = Recorder(deal * 3 + rot, think_ms=think_ms)
        la = make_player("lookahead", deal * 5 + rot)
        players = [ex, la] if rot == 0 else [la, ex]
        play_out(r, players)
        tables.extend(ex.tables)
    return tables


def mean(v: list[float]) -> float:
    return sum(v) / len(v)


def stop_at(values: Table, z: float, tolerance: float) -> tuple[int, int]:
    """(deals used, plan chosen) under the expert's own schedule of checks."""
    n_all = len(values[0])
    check = SETTLE_FIRST
    while check < n_all:
        cut = [v[:check] for v in values]
        if ExpertAI.settled(cut, 1.0, z, tolerance):
            return check, ExpertAI._pick(cut, 1.0)
        check = next_check(check)
    return n_all, ExpertAI._pick(values, 1.0)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--deals", type=int, default=6)
    p.add_argument("--think-ms", type=float, default=1000.0)
    p.add_argument("--jobs", type=int, default=2)
    a = p.parse_args()
    with ProcessPoolExecutor(max_workers=a.jobs) as pool:
        tables = [t for ts in pool.map(record, range(a.deals), [a.think_ms] * a.deals) for t in ts]
    total = sum(len(t[0]) for t in tables)
    print(f"searched_turns: {len(tables)}")
    print(f"deals_per_turn_median: {statistics.median(len(t[0]) for t in tables)}")
    gain = mean([mean(t[ExpertAI._pick(t, 1.0)]) - mean(t[0]) for t in tables])
    print(f"gain_over_lookahead_favourite: {gain:.5f}")
    for z in (1.5, 2.0, 2.5):
        for tol in (0.0, 0.002, 0.005, 0.01):
            used = 0
            regret = 0.0
            for t in tables:
                n, c = stop_at(t, z, tol)
                used += n
                full = ExpertAI._pick(t, 1.0)
                regret += mean(t[full]) - mean(t[c])
            print(f"z={z} tolerance={tol} deals_used={used / total:.3f} regret={regret / len(tables):.5f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
