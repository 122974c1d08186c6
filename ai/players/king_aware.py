"""``king-aware``: a whole-turn planner that knows what kings (and queens) are worth.

A king left in hand costs 10; a king played opens a corner pile for the others' queens. It keeps
its kings, and the queens an opponent could use, while every opponent holds many cards, and lets
them go once an opponent is close to going out or the stock runs low. It tracks the unseen kings
and queens and avoids leaving a place where an opponent close to going out can shed one.
"""

from __future__ import annotations

from typing import Any

from ai.registry import register
from ai.search.planning import (
    HOLD,
    EvalParams,
    HoldParams,
    PlanningAI,
    Rulebits,
    State,
    enumerate_turn,
    opponents,
    rank_ends,
)
from ai.search.stakes import Stakes
from kc_tui.engine import Move, PlayerView
from kc_tui.i18n import N_


@register
class KingAwareAI(PlanningAI):
    kind = "king-aware"
    title = N_("King-aware")
    description = N_("holds kings for corners")
    player_name = "Kingsley"
    strength = 20
    budget_ms = 250.0

    def __init__(
        self,
        seed: int = 0,
        *,
        release_hand: int = HOLD.release_hand,
        release_stock: int = HOLD.release_stock,
        hold_cost: float = HOLD.hold_cost,
        danger_size: int = HOLD.danger_size,
        hold_risk: float = HOLD.hold_risk,
        risk_weight: float = HOLD.risk_weight,
        match_aware: bool = True,
        node_limit: int = 250,
        **params: Any,
    ) -> None:
        super().__init__(seed, **params)
        #: The hoarding thresholds (:class:`~ai.search.planning.HoldParams` says what each is).
        self.hold = HoldParams(release_hand, release_stock, hold_cost, danger_size, hold_risk, risk_weight)
        #: Whether the plans are weighed in the match's terms (False: the rounds-only planner).
        self.match_aware = match_aware
        self.node_limit = node_limit
        self.weights = EvalParams()
        #: A ``time.perf_counter()`` time at which the turn search stops early (None: no limit).
        self._deadline: float | None = None

    def score_ends(self, view: PlayerView) -> list[tuple[float, tuple[Move, ...], State]]:
        """Every end-of-turn position found, with its score and path, best first."""
        bits = Rulebits(view)
        ends = enumerate_turn(view.hand_mask, view.piles, bits.kos, bits.closed, self.node_limit, self._deadline)
        sizes = [view.hand_sizes[s] for s in opponents(view)]
        stakes = Stakes.for_planner(view) if self.match_aware else None
        return rank_ends(
            ends,
            view.hand_mask,
            view.unseen_mask,
            sizes,
            view.stock_size,
            bits,
            self.weights,
            self.hold_params(),
            stakes,
        )

    def hold_params(self) -> HoldParams:
        return self.hold

    def plan_turn(self, view: PlayerView, legal: list[Move]) -> tuple[Move, ...]:
        return self.score_ends(view)[0][1]
