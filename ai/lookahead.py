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

from kc_tui.engine import Move, PlayerView, penalty_of
from kc_tui.engine.cards import cards_of
from kc_tui.engine.rules import Draw

from .king_aware import KingAwareAI
from .planning import Rulebits, State, greedy_turn, opponents, sim_apply, view_seed
from .registry import register
from .stakes import Stakes


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
        out_weight: float = 0.0,
        out_penalty: float = 10.0,
        replies: int = 3,
        **params: Any,
    ) -> None:
        super().__init__(seed, node_limit=node_limit, **params)
        #: How many of the best positions are re-scored by sampling.
        self.top = top
        #: How many deals of the next player's hand per position.
        self.samples = samples
        #: Cost per card the next player is expected to shed (a card of ours is 10).
        self.shed_weight = shed_weight
        #: A fixed cost of a reply going out (times the chance it does), besides what it costs
        #: in points (``out_penalty``): 0, as measured best over 3-seat matches (150 went after
        #: rounds won and lost matches).
        self.out_weight = out_weight
        #: Cost per penalty point left in our hand should the next player go out (times the
        #: chance it does): what we would pay in the match (``Stakes``), 10 being one point.
        self.out_penalty = out_penalty
        #: How many of the next players reply in the samples (each plays a greedy turn on what
        #: the one before left; the first to go out ends the sample).
        self.replies = replies

    def plan_turn(self, view: PlayerView, legal: list[Move]) -> tuple[Move, ...]:
        return self.ranked_plans(view)[0][1]

    def ranked_plans(self, view: PlayerView) -> list[tuple[float, tuple[Move, ...], State]]:
        """The best end-of-turn positions (at most ``top``), re-scored by sampling, best first."""
        ranked = self.score_ends(view)
        if len(ranked) == 1 or self.samples <= 0:
            return ranked[: max(1, self.top)]
        bits = Rulebits(view)
        opps = opponents(view)[: max(1, self.replies)]
        extra = 1 if view.rules.draw == Draw.START else 0
        pool = cards_of(view.unseen_mask)
        rng = random.Random(view_seed(self.seed, view))
        # Each sample deals every replying opponent its hand (and its draw) from the unseen
        # cards, no card twice.
        deals: list[list[int]] = []
        for _ in range(self.samples):
            rest = pool[:]
            rng.shuffle(rest)
            hands: list[int] = []
            for k, s in enumerate(opps):
                take = min(len(rest), view.hand_sizes[s] + (extra if k < view.stock_size else 0))
                m = 0
                for c in rest[:take]:
                    m |= 1 << c
                rest = rest[take:]
                hands.append(m)
            deals.append(hands)
        stakes = Stakes.for_planner(view) if self.match_aware else None
        out: list[tuple[float, tuple[Move, ...], State]] = []
        for score, path, (h, piles) in ranked[: self.top]:
            if h:
                out_cost = self.out_weight
                if stakes is not None:
                    out_cost += self.out_penalty * stakes.penalty_cost(penalty_of(h))
                shed = 0.0
                outs = 0
                for hands in deals:
                    p = piles
                    weight = 1.0
                    for oh in hands:
                        left = oh
                        for mv in greedy_turn(oh, p, bits.kos, bits.closed):
                            left, p = sim_apply(left, p, mv, bits.closed)
                        shed += weight * (oh.bit_count() - left.bit_count())
                        if not left:
                            outs += 1
                            break
                        weight *= 0.5
                score -= (self.shed_weight * shed + out_cost * outs) / len(deals)
            out.append((score, path, (h, piles)))
        out.sort(key=lambda t: (-t[0], len(t[1]), t[1]))
        return out
