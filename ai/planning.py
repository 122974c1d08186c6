"""A base class for AIs that plan their whole turn, then play it one move at a time."""

from __future__ import annotations

from abc import abstractmethod
from typing import Any

from kc_tui.engine import END, Move, PlayerView

from ._plan import Rulebits, sim_apply
from .base import AIPlayer

PlanKey = tuple[int, int, tuple[tuple[int, ...], ...]]


class PlanningAI(AIPlayer):
    """Plans the turn at its first move (``plan_turn``) and remembers the plan, keyed on the
    position each move is expected at (history length, hand, piles), so the next calls of the
    same turn answer at once. If the position is not the expected one (a drawn card, another
    player moved, a fallback move was played instead), it plans again. The memory is per
    instance, so several AIs can run in one process."""

    def __init__(self, seed: int = 0, **params: Any) -> None:
        super().__init__(seed, **params)
        self._plan: dict[PlanKey, Move] = {}

    def new_round(self) -> None:
        self._plan = {}

    @abstractmethod
    def plan_turn(self, view: PlayerView, legal: list[Move]) -> tuple[Move, ...]:
        """The moves to make this turn (``END`` excluded), each legal in turn."""

    def choose(self, view: PlayerView) -> Move:
        legal = view.legal_moves()
        if len(legal) <= 1:
            return END
        key: PlanKey = (len(view.history), view.hand_mask, view.piles)
        m = self._plan.get(key)
        if m is not None and m in legal:
            return m
        path = self.plan_turn(view, legal)
        closed = Rulebits(view).closed
        plan: dict[PlanKey, Move] = {}
        n, h, p = key
        for mv in path:
            plan[(n, h, p)] = mv
            h, p = sim_apply(h, p, mv, closed)
            n += 1
            if not h:
                break
        plan[(n, h, p)] = END
        self._plan = plan
        first = plan[key]
        return first if first in legal else END
