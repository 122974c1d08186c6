"""``greedy``: sheds as many cards as it can right now, by fixed priorities, then ends its turn."""

from __future__ import annotations

from kc_tui.engine import Move, PlayerView

from . import register
from ._plan import greedy_move
from .base import AIPlayer


@register
class GreedyAI(AIPlayer):
    kind = "greedy"
    description = "plays every card it can at once: kings to corners, pile moves, then the highest card"
    #: The time a move may take before the fault fallback steps in (it takes well under 1 ms).
    budget_ms = 250.0

    def choose(self, view: PlayerView) -> Move:
        rules = view.rules
        return greedy_move(view.hand_mask, view.piles, rules.kings_on_sides == "allow", rules.completed_piles == "stay")
