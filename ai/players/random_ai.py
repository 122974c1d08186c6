"""``random``: a uniformly random legal move, ``end`` included. A baseline."""

from __future__ import annotations

import random
from typing import Any

from ai.base import AIPlayer
from ai.registry import register
from kc_tui.engine import Move, PlayerView
from kc_tui.i18n import N_


@register
class RandomAI(AIPlayer):
    kind = "random"
    title = N_("Random")
    description = N_("plays a random legal move")
    player_name = "Rando"
    strength = 0

    def __init__(self, seed: int = 0, **params: Any) -> None:
        super().__init__(seed, **params)
        self._rng = random.Random(seed)

    def choose(self, view: PlayerView) -> Move:
        moves = view.legal_moves()
        return moves[self._rng.randrange(len(moves))]
