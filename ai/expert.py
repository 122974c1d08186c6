"""``expert``: determinized Monte Carlo search over whole-turn plans.

The lookahead player proposes its best few plans for the turn. The expert then deals the unseen
cards again and again consistently with its view (every opponent's hand size and the stock size
as seen, :func:`~kc_tui.engine.determinize`), plays each plan on that same deal followed by fast
king-hoarding rollouts for every player to the end of the round, and keeps the plan with the best
average result (rounds won first, fewer penalty points second). It thinks for a time budget
(``think_ms``, default 1000 ms a turn) or for a fixed number of deals (``iterations``, which
makes it deterministic for a given seed).
"""

from __future__ import annotations

import time
from typing import Any

from kc_tui.engine import END, Move, PlayerView, Round, determinize, penalty_of

from . import register
from ._plan import Rulebits, hoard_turn, view_seed
from .lookahead import LookaheadAI

ROLLOUT_TURN_LIMIT = 400


@register
class ExpertAI(LookaheadAI):
    kind = "expert"
    description = "Monte Carlo search: replays its best plans on many guesses of the hidden cards"

    def __init__(
        self,
        seed: int = 0,
        *,
        think_ms: float = 1000.0,
        iterations: int | None = None,
        candidates: int = 6,
        margin: float = 2.0,
        **params: Any,
    ) -> None:
        params.setdefault("top", max(8, candidates))
        super().__init__(seed, **params)
        if think_ms <= 0:
            raise ValueError("think_ms must be positive")
        if iterations is not None and iterations < 1:
            raise ValueError("iterations must be at least 1")
        self.think_ms = float(think_ms)
        self.iterations = iterations
        self.candidates = candidates
        #: How sure (in standard errors) the rollouts must be to overrule lookahead's choice.
        self.margin = margin
        #: Deals searched on the last planned turn (for measurements).
        self.last_iterations = 0

    @property
    def budget_ms(self) -> float:  # type: ignore[override]
        # With a fixed iteration count the time is not bounded: allow a generous budget.
        return self.think_ms if self.iterations is None else max(self.think_ms, 60_000.0)

    def plan_turn(self, view: PlayerView, legal: list[Move]) -> tuple[Move, ...]:
        start = time.perf_counter()
        ranked = self.ranked_plans(view)[: self.candidates]
        self.last_iterations = 0
        if len(ranked) == 1:
            return ranked[0][1]
        bits = Rulebits(view)
        base = view_seed(self.seed, view)
        values: list[list[float]] = [[] for _ in ranked]
        deadline = start + self.think_ms / 1000.0 * 0.9
        it = 0
        slowest = 0.0
        while True:
            if self.iterations is not None:
                if it >= self.iterations:
                    break
            else:
                now = time.perf_counter()
                if it and now + slowest > deadline:
                    break
            t0 = time.perf_counter()
            deal = determinize(view, (base + it * 0x9E3779B97F4A7C15) & ((1 << 63) - 1))
            for k, (_score, path, _state) in enumerate(ranked):
                values[k].append(self._rollout(deal.clone(), view.seat, path, bits))
            it += 1
            slowest = max(slowest, time.perf_counter() - t0)
        self.last_iterations = it
        return ranked[self._pick(values, self.margin)][1]

    @staticmethod
    def _pick(values: list[list[float]], margin: float) -> int:
        """Lookahead's favourite (index 0) unless another plan beats it on the same deals by
        more than ``margin`` standard errors of the paired difference."""
        best, best_gain = 0, 0.0
        n = len(values[0])
        if n < 2:
            return 0
        for k in range(1, len(values)):
            diffs = [a - b for a, b in zip(values[k], values[0], strict=True)]
            mean = sum(diffs) / n
            var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
            if mean > best_gain and mean > margin * (var / n) ** 0.5:
                best, best_gain = k, mean
        return best

    @staticmethod
    def _rollout(r: Round, me: int, path: tuple[Move, ...], bits: Rulebits) -> float:
        """Play ``path`` and end the turn, then everyone plays fast to the end of the round.
        1 for a round won (0.3 for a block), less a little per penalty point left."""
        for m in path:
            r.apply(m)
            if r.over:
                break
        if not r.over:
            r.apply(END)
        turns = 0
        while not r.over and turns < ROLLOUT_TURN_LIMIT:
            seat = r.to_move
            hand = r.hands[seat]
            release = min(h.bit_count() for s, h in enumerate(r.hands) if s != seat) <= 1
            for m in hoard_turn(hand, r.piles, bits.kos, bits.closed, release):
                r.apply(m)
                if r.over:
                    break
            if not r.over:
                r.apply(END)
            turns += 1
        if r.winner == me:
            value = 1.0
        elif r.winner is None:
            value = 0.3
        else:
            value = 0.0
        return value - 0.002 * penalty_of(r.hands[me])
