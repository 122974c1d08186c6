"""``king-aware``: a whole-turn planner that knows what kings (and queens) are worth.

A king left in hand costs 10; a king played opens a corner pile for the others' queens. It keeps
its kings, and the queens an opponent could use, while every opponent holds many cards, and lets
them go once an opponent is close to going out or the stock runs low. It tracks the unseen kings
and queens and avoids leaving a place where an opponent close to going out can shed one.
"""

from __future__ import annotations

from typing import Any

from kc_tui.engine import KINGS_MASK, QUEENS_MASK, Move, PlayerView

from . import register
from ._plan import (
    EvalParams,
    Rulebits,
    State,
    enumerate_turn,
    open_mask,
    opponents,
    static_eval,
)
from .planning import PlanningAI


@register
class KingAwareAI(PlanningAI):
    kind = "king-aware"
    description = "plans its turn, holds kings and queens while it is safe, releases them in time"
    budget_ms = 250.0

    def __init__(
        self,
        seed: int = 0,
        *,
        release_hand: int = 1,
        release_stock: int = 0,
        hold_cost: float = 50.0,
        danger_size: int = 2,
        node_limit: int = 250,
        **params: Any,
    ) -> None:
        super().__init__(seed, **params)
        #: Kings and queens are let go once an opponent holds this many cards or fewer...
        self.release_hand = release_hand
        #: ...or the stock holds this many cards or fewer.
        self.release_stock = release_stock
        #: The cost (in tenths of a card) of playing a held king or queen too early.
        self.hold_cost = hold_cost
        #: An opponent with this many cards or fewer is "close to going out".
        self.danger_size = danger_size
        self.node_limit = node_limit
        self.weights = EvalParams()

    def score_ends(self, view: PlayerView) -> list[tuple[float, tuple[Move, ...], State]]:
        """Every end-of-turn position found, with its score and path, best first."""
        bits = Rulebits(view)
        hand = view.hand_mask
        ends = enumerate_turn(hand, view.piles, bits.kos, bits.closed, self.node_limit)
        opp = opponents(view)
        sizes = [view.hand_sizes[s] for s in opp]
        unseen = view.unseen_mask
        smallest = min(sizes)
        holding = smallest > self.release_hand and view.stock_size > self.release_stock
        close = smallest <= self.danger_size
        unseen_kq = unseen & (KINGS_MASK | QUEENS_MASK)
        held_kq = hand & (KINGS_MASK | QUEENS_MASK)
        out: list[tuple[float, tuple[Move, ...], State]] = []
        for state, path in ends.items():
            h, piles = state
            score = static_eval(h, piles, unseen, sizes, view.stock_size, bits, self.weights)
            if h:
                if holding:
                    # Each king or queen played now, while it is safe to hold, costs a little.
                    score -= self.hold_cost * (held_kq & ~h).bit_count()
                if close:
                    fit, _es, ec = open_mask(piles)
                    # A place where the near-out opponent can shed an unseen king or queen.
                    score -= 15.0 * (fit & unseen_kq).bit_count()
                    if ec and unseen & KINGS_MASK:
                        score -= 15.0
            out.append((score, path, state))
        # Best score first; among equals the shorter path, then the move numbers (deterministic).
        out.sort(key=lambda t: (-t[0], len(t[1]), t[1]))
        return out

    def plan_turn(self, view: PlayerView, legal: list[Move]) -> tuple[Move, ...]:
        return self.score_ends(view)[0][1]
