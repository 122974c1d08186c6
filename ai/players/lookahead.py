"""``lookahead``: plans its whole turn and looks at what the next players could do after it.

A depth-first search over the orders of its own plays and pile moves (repeated positions are
detected with a transposition set keyed on hand and piles; symmetric empty places are merged)
lists the end-of-turn positions. Each is scored by the king-aware evaluation (cards and kings
left, empty sides, what is left open for the others), then the best few are re-scored by
dealing the next players' hands several times from the unseen cards, consistent with the view,
and playing their turns greedily: how many cards could they shed, could one go out.

With three or four players that is not enough (measured: no better than king-aware over 300
3-seat matches), so there the best ``rollout_plans`` are also played to the end of the round on
``rollouts`` deals of the hidden cards, every player by greedy's priorities, and each outcome
valued in the match's terms (:class:`~ai.search.stakes.Stakes`); the favourite is kept unless another
plan does better on the same deals by ``rollout_margin`` standard errors.
"""

from __future__ import annotations

import random
import time
from typing import Any

from ai.players.king_aware import KingAwareAI
from ai.registry import register
from ai.search.planning import (
    Rulebits,
    State,
    deal_seed,
    greedy_playout,
    greedy_turn,
    opponents,
    pick,
    play_plan,
    sim_apply,
    view_seed,
)
from ai.search.stakes import Stakes
from kc_tui.engine import Move, PlayerView, determinize, penalty_of
from kc_tui.engine.cards import cards_of
from kc_tui.engine.rules import Draw
from kc_tui.i18n import N_


@register
class LookaheadAI(KingAwareAI):
    kind = "lookahead"
    title = N_("Lookahead")
    description = N_("plans its whole turn")
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
        rollouts: int = 24,
        rollout_plans: int = 4,
        rollout_margin: float = 1.0,
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
        #: With three or four players: deals on which the best plans are played to the end of
        #: the round by greedy players (0: none). Heads-up the replies above are enough.
        self.rollouts = rollouts
        #: How many of the best plans are played out.
        self.rollout_plans = rollout_plans
        #: Standard errors (of the paired difference) by which a plan must beat the favourite.
        self.rollout_margin = rollout_margin

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
        if self.rollouts > 0 and view.n_players >= 3 and len(out) > 1:
            out = self.played_out(view, out, bits)
        return out

    def played_out(
        self, view: PlayerView, ranked: list[tuple[float, tuple[Move, ...], State]], bits: Rulebits
    ) -> list[tuple[float, tuple[Move, ...], State]]:
        """``ranked`` with the plan that does best played to the end of the round first: the
        best ``rollout_plans`` are played on the same ``rollouts`` deals of the hidden cards
        (:func:`~kc_tui.engine.determinize`), everyone then playing greedily, and each outcome is
        valued in the match's terms; the favourite stays first unless another plan beats it by
        ``rollout_margin`` standard errors (:func:`~ai.search.planning.pick`). The deals stop early
        at the turn's deadline, if it has one (the expert's timed search)."""
        plans = ranked[: max(2, self.rollout_plans)]
        stakes = Stakes.for_planner(view)
        base = view_seed(self.seed ^ 0x5BD1E995, view)
        values: list[list[float]] = [[] for _ in plans]
        for it in range(self.rollouts):
            if self._deadline is not None and time.perf_counter() > self._deadline:
                break
            deal = determinize(view, deal_seed(base, it))
            for k, (_score, path, _state) in enumerate(plans):
                r = deal.clone()
                play_plan(r, path)
                greedy_playout(r, bits)
                values[k].append(stakes.value(r.hands, r.winner, r.fines) if r.over else 0.0)
        best = pick(values, self.rollout_margin)
        if best:
            ranked = [ranked[best], *ranked[:best], *ranked[best + 1 :]]
        return ranked
