"""``lookahead``: plans its whole turn and looks at what the next player could do after it.

A depth-first search over the orders of its own plays and pile moves (repeated positions are
detected with a transposition set keyed on hand and piles; symmetric empty places are merged)
lists the end-of-turn positions. Each is scored by the king-aware evaluation (cards and kings
left, empty sides, what is left open for the others), then the best few are re-scored by
dealing the next player's hand several times from the unseen cards, consistent with the view,
and playing that player's turn greedily: how many cards could it shed, could it go out.
"""

from __future__ import annotations

import random
from typing import Any

from kc_tui.engine import Move, PlayerView
from kc_tui.engine.cards import cards_of
from kc_tui.engine.rules import Draw

from .king_aware import KingAwareAI
from .planning import Rulebits, State, greedy_turn, opponents, sim_apply, view_seed
from .registry import register


@register
class LookaheadAI(KingAwareAI):
    kind = "lookahead"
    title = "Lookahead"
    description = "plans its whole turn"
    player_name = "Lookout"
    strength = 30
    budget_ms = 1000.0

    def __init__(
        self,
        seed: int = 0,
        *,
        node_limit: int = 1500,
        top: int = 8,
        samples: int = 6,
        shed_weight: float = 4.0,
        out_weight: float = 150.0,
        **params: Any,
    ) -> None:
        super().__init__(seed, node_limit=node_limit, **params)
        #: How many of the best positions are re-scored by sampling.
        self.top = top
        #: How many deals of the next player's hand per position.
        self.samples = samples
        #: Cost per card the next player is expected to shed (a card of ours is 10).
        self.shed_weight = shed_weight
        #: Cost of the next player going out (times the chance it does).
        self.out_weight = out_weight

    def plan_turn(self, view: PlayerView, legal: list[Move]) -> tuple[Move, ...]:
        return self.ranked_plans(view)[0][1]

    def ranked_plans(self, view: PlayerView) -> list[tuple[float, tuple[Move, ...], State]]:
        """The best end-of-turn positions (at most ``top``), re-scored by sampling, best first."""
        ranked = self.score_ends(view)
        if len(ranked) == 1 or self.samples <= 0:
            return ranked[: max(1, self.top)]
        bits = Rulebits(view)
        nxt = opponents(view)[0]
        take = view.hand_sizes[nxt] + (1 if view.rules.draw == Draw.START and view.stock_size else 0)
        pool = cards_of(view.unseen_mask)
        take = min(take, len(pool))
        rng = random.Random(view_seed(self.seed, view))
        hands = []
        for _ in range(self.samples):
            m = 0
            for c in rng.sample(pool, take):
                m |= 1 << c
            hands.append(m)
        out: list[tuple[float, tuple[Move, ...], State]] = []
        for score, path, (h, piles) in ranked[: self.top]:
            if h:
                shed = 0
                outs = 0
                for oh in hands:
                    line = greedy_turn(oh, piles, bits.kos, bits.closed)
                    left = oh
                    p = piles
                    for mv in line:
                        left, p = sim_apply(left, p, mv, bits.closed)
                    shed += oh.bit_count() - left.bit_count()
                    outs += left == 0
                score -= (self.shed_weight * shed + self.out_weight * outs) / len(hands)
            out.append((score, path, (h, piles)))
        out.sort(key=lambda t: (-t[0], len(t[1]), t[1]))
        return out
