"""``greedy``: sheds as many cards as it can right now, by fixed priorities, then ends its turn."""

from __future__ import annotations

from ai.base import AIPlayer
from ai.registry import register
from ai.search.planning import greedy_choice
from kc_tui.engine import Move, PlayerView
from kc_tui.i18n import N_


@register
class GreedyAI(AIPlayer):
    kind = "greedy"
    title = N_("Greedy")
    description = N_("plays every card it can")
    player_name = "Greedy"
    strength = 10
    #: The time a move may take before the fault fallback steps in (it takes well under 1 ms).
    budget_ms = 250.0

    def choose(self, view: PlayerView) -> Move:
        return greedy_choice(view)
