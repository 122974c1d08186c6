"""``expert``: determinized search over the current turn's plans, with a learned leaf evaluation.

Lookahead proposes its best few plans for the turn (distinct end-of-turn positions). The expert
then deals the hidden cards again and again consistently with its view (every opponent's hand
size and the stock size as seen, :func:`~kc_tui.engine.determinize`), and on each deal plays every
plan, lets each opponent answer with its own king-aware turn planner (on that opponent's cards
only), and scores the position at the start of its own next turn with a logistic model of the
chance to win the round (:mod:`ai.search.leaf`). With three or four players it plays on to the end of
the round instead (``horizon``; the leaf model, fitted heads-up, measured weaker there). All
plans are scored on the same deals (common random numbers), so their differences are measured
with little noise. It keeps lookahead's favourite unless another plan is better by more than
``margin`` standard errors of the paired difference, and, thinking for a time, only once it has
searched ``min_deals`` deals (a small budget at a table of four may not fit them). With
``sim="greedy"`` the simulated players play greedy turns instead (a deal costs about a seventh as
much; measured no stronger at four seats, so not the default).

The deals use inference from the public history: an opponent that just ended its turn without
playing a card that fitted a pile (kings and queens aside: planners hoard those) probably does
not hold it, so such cards are dealt to it only when nothing else is left (``infer``). With
``round_infer`` the deals use every such end of a turn in the round instead
(:mod:`ai.search.inference`): each opponent holds at most as many of the cards it showed it did
not hold as it drew since, kings and queens included at a table of three or four (unless
``round_kq`` is false). With ``weigh_turns`` each deal is drawn by how likely it makes the
opponents' last turns under the simulated planner (:meth:`ExpertAI.turn_weight`). Both are off by
default: they make the deals truer at three and four seats but were not shown to win more
(docs/MEASUREMENTS.md).

It thinks for a time budget (``think_ms``, default 1000 ms a turn; the turn search itself stops at
40% of it) or for a fixed number of deals (``iterations``, deterministic for a given seed). Either
way it stops sooner once the choice is settled (:meth:`ExpertAI.settled`): no other plan can be
better than the one it would pick by more than ``tolerance`` (a chance to win the round) with
``settle`` standard errors of confidence. Most turns are settled in a tenth of the budget; only
the close calls use all of it.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from itertools import chain
from typing import Any

from ai.players.lookahead import LookaheadAI
from ai.registry import register
from ai.search.inference import LastTurn, Pass, allowed_for, deal_hands, last_turns, passes
from ai.search.leaf import win_chance
from ai.search.planning import (
    KQ_MASK,
    ROLLOUT_TURN_LIMIT,
    Rulebits,
    deal_seed,
    enumerate_turn,
    open_mask,
    paired,
    pick,
    play_greedy_turn,
    play_plan,
    rank_ends,
    view_seed,
)
from ai.search.stakes import Stakes
from kc_tui.engine import END, Move, PlayerView, Round, determinize
from kc_tui.engine.cards import FULL_MASK, mask_of
from kc_tui.engine.rules import Draw
from kc_tui.i18n import N_

#: Deals searched before the first test of :meth:`ExpertAI.settled`, and the least step between
#: tests (the steps then grow by a quarter each time).
SETTLE_FIRST = 32
SETTLE_STEP = 16
#: With ``weigh_turns``: candidate deals tried for each deal searched, and the weight of a deal
#: for each opponent whose last turn the simulated planner would not have played on it.
WEIGH_TRIES = 4
MISMATCH = 0.25
#: How the simulated players can play in the search (``sim``).
SIMS = ("king-aware", "greedy")


def next_check(check: int) -> int:
    """The deal count of the next :meth:`ExpertAI.settled` test after one at ``check``."""
    return max(check + SETTLE_STEP, int(check * 1.25))


def inferred_absent(view: PlayerView) -> dict[int, int]:
    """Cards each opponent probably does not hold, from what it just did: the previous player
    ended its turn (at the start of ours, before we move) with the piles as they are now, so an
    unseen card other than a king or queen that fits a pile top now, or any such card when a side
    is empty, it would have played. Only the seat that played last is judged, and only when its
    hand has not changed since (the draw comes at the start of a turn or when stuck)."""
    if view.moved_this_turn or view.over or not view.history or view.rules.draw == Draw.END:
        return {}
    prev = (view.seat - 1) % view.n_players
    seat, m = view.history[-1]
    if seat != prev or m != END or view.hand_sizes[prev] == 0:
        return {}
    fit, es, _ec = open_mask(view.piles)
    unseen = view.unseen_mask & ~KQ_MASK
    absent = unseen if es else fit & unseen
    return {prev: absent} if absent else {}


@register
class ExpertAI(LookaheadAI):
    kind = "expert"
    title = N_("Expert")
    description = N_("searches; more time helps it at 2 players and in chips")
    player_name = "Ace"
    #: ``think_ms``: the most it takes a move (it stops sooner once its choice is settled).
    takes_think_time = True
    strength = 40

    def __init__(
        self,
        seed: int = 0,
        *,
        think_ms: float = 1000.0,
        iterations: int | None = None,
        candidates: int = 6,
        margin: float = 1.0,
        sim_nodes: int = 40,
        horizon: int | None = None,
        infer: bool = True,
        settle: float = 2.0,
        tolerance: float = 0.01,
        min_deals: int = 8,
        sim: str = "king-aware",
        round_infer: bool = False,
        round_kq: bool = True,
        weigh_turns: bool = False,
        **params: Any,
    ) -> None:
        params.setdefault("top", max(8, candidates))
        super().__init__(seed, **params)
        if think_ms <= 0:
            raise ValueError("think_ms must be positive")
        if iterations is not None and iterations < 1:
            raise ValueError("iterations must be at least 1")
        if candidates < 1:
            raise ValueError("candidates must be at least 1")
        if sim_nodes < 1:
            raise ValueError("sim_nodes must be at least 1")
        if settle < 0 or tolerance < 0:
            raise ValueError("settle and tolerance must not be negative")
        if min_deals < 2:
            raise ValueError("min_deals must be at least 2")
        if sim not in SIMS:
            raise ValueError(f"sim must be one of {', '.join(SIMS)}, not {sim!r}")
        self.think_ms = float(think_ms)
        self.iterations = iterations
        self.candidates = candidates
        #: How sure (in standard errors) the search must be to overrule lookahead's choice.
        self.margin = margin
        #: The node budget of the opponents' turn planner inside the search.
        self.sim_nodes = sim_nodes
        #: How many times the others reply (with our own simulated turns between) before the
        #: position is scored; 0 plays to the end of the round. None: 1 heads-up (the leaf model
        #: was fitted there), 0 with more players (measured stronger there).
        if horizon is not None and horizon < 0:
            raise ValueError("horizon must not be negative")
        self.horizon = horizon
        self.infer = infer
        #: Whole-round inference (:mod:`ai.search.inference`) instead of the last turn's.
        self.round_infer = round_infer
        #: With ``round_infer``: kings and queens count at three and four seats (false: never).
        self.round_kq = round_kq
        #: The passes the deals of the turn being planned respect (with ``round_infer``).
        self._passes: list[Pass] | None = None
        #: Deals weighted by how likely they make each opponent's last turn under the simulated
        #: planner (rejection sampling: :meth:`_deal`).
        self.weigh_turns = weigh_turns
        self._last_turns: list[LastTurn] = []
        #: Stop early when settled with this many standard errors (0: always use the budget).
        self.settle = settle
        #: A difference in value (points in the match, ``ai.search.stakes``) smaller than this does not
        #: matter.
        self.tolerance = tolerance
        #: Fewer deals than this (a small budget at a big table) decide nothing: lookahead's
        #: favourite is played. On two or three deals the standard error is a guess, and one of
        #: five other plans often looks better by "one standard error" by chance alone.
        self.min_deals = min_deals
        #: How the simulated players play their turns in the search: ``king-aware`` (its
        #: match-aware turn planner, ``sim_nodes`` positions) or ``greedy`` (about a seventh of
        #: the cost, so a small budget at a big table searches several times more deals).
        self.sim = sim
        self._hold = self.hold_params()
        #: Deals searched on the last planned turn (for measurements).
        self.last_iterations = 0
        #: The match seen from every seat of the turn being planned (for the simulated turns).
        self._seat_stakes: list[Stakes] = []

    @property
    def budget_ms(self) -> float:  # type: ignore[override]
        # With a fixed iteration count the time is not bounded: allow a generous budget.
        return self.think_ms if self.iterations is None else max(self.think_ms, 60_000.0)

    def allowed(self, view: PlayerView) -> Callable[[int, int], bool] | None:
        """The ``allowed`` filter of :func:`determinize` (None without inference)."""
        if not self.infer:
            return None
        absent = inferred_absent(view)
        if not absent:
            return None
        return lambda seat, card: not (absent.get(seat, 0) >> card) & 1

    def plan_turn(self, view: PlayerView, legal: list[Move]) -> tuple[Move, ...]:
        start = time.perf_counter()
        timed = self.iterations is None
        budget = self.think_ms / 1000.0
        self._deadline = start + 0.4 * budget if timed else None
        try:
            ranked = self.ranked_plans(view)[: self.candidates]
        finally:
            self._deadline = None
        self.last_iterations = 0
        if len(ranked) == 1:
            return ranked[0][1]
        bits = Rulebits(view)
        base = view_seed(self.seed, view)
        allowed = self.prepare_deals(view)
        values: list[list[float]] = [[] for _ in ranked]
        deadline = start + 0.9 * budget
        it = 0
        slowest = 0.0
        check = SETTLE_FIRST
        horizon = self.horizon_for(view.n_players)
        stakes = Stakes.of(view)
        while True:
            if timed:
                if time.perf_counter() + slowest > deadline:
                    break
            elif it >= (self.iterations or 0):
                break
            if self.settle > 0 and it >= check:
                if self.settled(values, self.margin, self.settle, self.tolerance):
                    break
                check = next_check(check)
            t0 = time.perf_counter()
            deal = self._deal(view, deal_seed(base, it), allowed)
            for k, (_score, path, _state) in enumerate(ranked):
                values[k].append(self._playout(deal.clone(), view.seat, path, bits, horizon, stakes))
            it += 1
            slowest = max(slowest, time.perf_counter() - t0)
        self.last_iterations = it
        if timed and it < self.min_deals:
            return ranked[0][1]  # the budget ran out before the deals could say anything
        return ranked[self._pick(values, self.margin)][1]

    def prepare_deals(self, view: PlayerView) -> Callable[[int, int], bool] | None:
        """Read what the deals of this turn's search must respect from ``view`` (the match seen
        from every seat, the passes with ``round_infer``, the opponents' last turns with
        ``weigh_turns``); the ``allowed`` filter of the last turn's inference, if that is used."""
        stakes = Stakes.of(view)
        self._seat_stakes = [stakes.for_seat(s) for s in range(view.n_players)]
        kq = None if self.round_kq else False
        self._passes = passes(view, kq) if self.infer and self.round_infer else None
        self._last_turns = last_turns(view) if self.weigh_turns else []
        return None if self._passes is not None else self.allowed(view)

    def _deal(self, view: PlayerView, seed: int, allowed: Callable[[int, int], bool] | None) -> Round:
        """One deal of the hidden cards searched: consistent with ``view`` (:func:`determinize`)
        and, with ``round_infer``, with the passes of the round (:func:`deal_hands`). With
        ``weigh_turns``, up to :data:`WEIGH_TRIES` such deals are drawn and each kept with its
        likelihood (:meth:`turn_weight`); if none is kept, the likeliest."""
        if not self._last_turns:
            return self._one_deal(view, seed, allowed)
        rng = random.Random(seed)
        best: tuple[float, Round] | None = None
        for k in range(WEIGH_TRIES):
            deal = self._one_deal(view, deal_seed(seed, k + 1), allowed)
            w = self.turn_weight(deal, view)
            if rng.random() < w:
                return deal
            if best is None or w > best[0]:
                best = (w, deal)
        return best[1] if best is not None else self._one_deal(view, seed, allowed)

    def turn_weight(self, deal: Round, view: PlayerView) -> float:
        """How likely ``deal`` makes the opponents' last turns: :data:`MISMATCH` for each whose
        hand then (its hand in ``deal`` and the cards it played) would have led the simulated
        king-aware planner to another end of the turn, 1 for each it would have played."""
        bits = Rulebits(view)
        w = 1.0
        for t in self._last_turns:
            hand = deal.hands[t.seat] | t.played
            table = mask_of(chain.from_iterable(t.before))
            unseen = FULL_MASK & ~hand & ~table
            n = view.n_players
            sizes = [view.hand_sizes[(t.seat + k) % n] for k in range(1, n)]
            ends = enumerate_turn(hand, t.before, bits.kos, bits.closed, self.sim_nodes)
            stakes = self._seat_stakes[t.seat] if t.seat < len(self._seat_stakes) else None
            ranked = rank_ends(ends, hand, unseen, sizes, view.stock_size, bits, self.weights, self._hold, stakes)
            if ranked[0][2] != (deal.hands[t.seat], t.after):
                w *= MISMATCH
        return w

    def _one_deal(self, view: PlayerView, seed: int, allowed: Callable[[int, int], bool] | None) -> Round:
        """A deal with ``seed``: within the passes (``round_infer``) or by ``allowed``."""
        if self._passes is not None:
            if not self._passes:
                return determinize(view, seed)
            return determinize(view, seed, allowed_for(deal_hands(view, self._passes, seed)))
        return determinize(view, seed, allowed)

    @staticmethod
    def _pick(values: list[list[float]], margin: float) -> int:
        """Lookahead's favourite (index 0) unless another plan beats it on the same deals by
        more than ``margin`` standard errors of the paired difference (:func:`ai.search.planning.pick`)."""
        return pick(values, margin)

    @classmethod
    def settled(cls, values: list[list[float]], margin: float, z: float, tolerance: float) -> bool:
        """Whether more deals would hardly change the choice: for every other plan, the paired
        difference to the plan :meth:`_pick` chooses now is below ``tolerance`` even at its
        upper confidence bound (mean + ``z`` standard errors)."""
        if len(values[0]) < 2:
            return False
        c = cls._pick(values, margin)
        for k in range(len(values)):
            if k == c:
                continue
            mean, se = paired(values[k], values[c])
            if mean + z * se >= tolerance:
                return False
        return True

    def _sim_turn(self, r: Round, bits: Rulebits) -> None:
        """The player to move plays a king-aware turn planned on its own cards only (weighing
        its kings in the match's terms, as the real planners do), or with ``sim="greedy"`` a
        greedy turn."""
        if self.sim == "greedy":
            play_greedy_turn(r, bits)
            return
        seat = r.to_move
        hand = r.hands[seat]
        unseen = FULL_MASK & ~hand & ~mask_of(chain.from_iterable(r.piles))
        sizes = [r.hands[(seat + k) % r.n].bit_count() for k in range(1, r.n)]
        ends = enumerate_turn(hand, r.piles, bits.kos, bits.closed, self.sim_nodes)
        stakes = self._seat_stakes[seat] if seat < len(self._seat_stakes) else None
        ranked = rank_ends(ends, hand, unseen, sizes, len(r.stock), bits, self.weights, self._hold, stakes)
        for m in ranked[0][1]:
            r.apply(m)
            if r.over:
                return
        r.apply(END)

    def horizon_for(self, n_players: int) -> int:
        """The replies searched before the leaf score at a table of ``n_players``."""
        if self.horizon is not None:
            return self.horizon
        return 1 if n_players == 2 else 0

    def _playout(
        self, r: Round, me: int, path: tuple[Move, ...], bits: Rulebits, horizon: int, stakes: Stakes
    ) -> float:
        """Play ``path`` and end the turn, let the others play ``horizon`` turns each (0: to the
        end of the round), then score the position at the start of our next turn in the match's
        terms (:class:`~ai.search.stakes.Stakes`): the round's outcome if it is over, or else, weighted
        by the leaf model's chance that we win the round, our winning (the others keep their
        hands) against the closest opponent's (we keep ours)."""
        play_plan(r, path)
        cycles = 0
        turns = 0
        while not r.over and turns < ROLLOUT_TURN_LIMIT:
            if r.to_move == me:
                cycles += 1
                if cycles == horizon:
                    break
            self._sim_turn(r, bits)
            turns += 1
        if r.over:
            return stakes.value(r.hands, r.winner, r.fines)
        others = [s for s in range(r.n) if s != me]
        p = win_chance(r.hands[me], [r.hands[s] for s in others], r.piles, len(r.stock))
        hands = list(r.hands)
        hands[me] = 0
        if_won = stakes.value(hands, me, r.fines)
        rival = min(others, key=lambda s: r.hands[s].bit_count())
        hands = list(r.hands)
        hands[rival] = 0
        if_lost = stakes.value(hands, rival, r.fines)
        return p * if_won + (1.0 - p) * if_lost
