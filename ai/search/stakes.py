"""What a round's outcome is worth in the match: the AIs' common measure (R15, R16).

A match is won on totals, not on rounds: penalty points to a target (R15, lowest total wins) or
chips (R16, most chips wins). :class:`Stakes` turns the end of a round (every hand left, the
winner, the chips owed) into a value for one seat, in *points* (one penalty point of its own at
the start of the match is worth -1), read from the match's standing as the view shows it
(:class:`~kc_tui.engine.Standing`):

* **points**: the seat's chance to win the match after the round, from the totals it leaves.
  When a total reaches the target the match is over and the chance is exact (a share of the win
  for the lowest). Otherwise each player's chance is taken proportional to ``exp(-total / tau)``,
  where ``tau = SPREAD * sqrt(rounds left)`` and the rounds left are estimated from how far the
  highest total is from the target (``LEADER_PACE`` points a round). Early in a match this makes
  a point of one's own cost about 1 and a point of an opponent's worth about ``1 / (n - 1)``;
  near the end a point that ends the match while the seat is lowest is worth a lot, and one that
  ends it while the seat is not is a disaster.
* **chips**: the chips the seat wins or pays this round: the pot if it wins the round (the antes
  and every fine), minus its fines (R16: a turn ended without playing a card) and, with
  ``chips_per_card``, what it pays for the cards left.

The planners also need what a king *held* is likely to cost: :meth:`Stakes.king_cost` is the
chance that some opponent goes out before the seat moves again (from the opponents' hand sizes,
seat by seat, :data:`OUT_CHANCE`) times what the king's nine extra points would cost in the match
as it stands. In chips scoring without ``chips_per_card`` a card left costs nothing but the round.

Everything here is a pure function of public information (the view), so an AI may use it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

from kc_tui.engine import KING_PENALTY, PlayerView, penalty_of
from kc_tui.engine.rules import Scoring

#: How much a player's total moves, one round with another (its spread, in points).
SPREAD = 6.0
#: How fast the highest total climbs towards the target, in points a round.
LEADER_PACE = 6.0
#: The chance that an opponent holding ``k`` cards at the start of its turn goes out on that turn
#: (index ``k``; more cards: the last entry). Measured over king-aware and lookahead rounds
#: (draw at the start of a turn): a player with one card draws a second and goes out with both
#: about half the time.
OUT_CHANCE = (1.0, 0.55, 0.3, 0.14, 0.06, 0.025, 0.01)
#: The planners weigh the match as it stands once a total is this close to the target.
NEAR_END = 12
#: The largest scale of a match value (a seat with no chance left values every outcome alike).
MAX_SCALE = 1e6


def out_chance(cards: int) -> float:
    """The chance that a player with ``cards`` cards goes out on its next turn."""
    if cards <= 0:
        return 1.0
    return OUT_CHANCE[min(cards, len(OUT_CHANCE) - 1)]


def end_risk(opp_sizes: Sequence[int]) -> float:
    """The chance that one of the opponents (hand sizes in turn order) goes out before the seat
    moves again: each has one turn."""
    keep = 1.0
    for size in opp_sizes:
        keep *= 1.0 - out_chance(size)
    return 1.0 - keep


@dataclass(frozen=True, slots=True)
class Stakes:
    """The match around one seat's round, read from its view: see the module's description."""

    me: int
    n: int
    chips: bool
    chips_per_card: bool
    #: Every round seat's total before the round (points, or chips after the ante).
    totals: tuple[int, ...]
    target: int
    pot: int
    #: Points mode: the temperature of the match chances (see the module's description).
    tau: float
    #: Points mode: the factor that makes one point of the seat's own worth -1 at the totals now.
    scale: float

    @classmethod
    def for_planner(cls, view: PlayerView) -> Stakes:
        """The stakes a turn planner weighs (king-aware, lookahead): a point is a point
        (:meth:`of` a fresh match) until the match's end is near, that is until some total is
        within :data:`NEAR_END` points of the target; then the match as it stands. The planners'
        evaluation counts cards as progress towards going out, which the match's chances bent
        earlier only made worse (measured over 3-seat matches: 0.2 points a round more)."""
        st = view.standing
        if st is not None and not st.chips and st.totals and max(st.totals) + NEAR_END < st.target:
            view = replace(view, standing=None)
        return cls.of(view)

    @classmethod
    def of(cls, view: PlayerView) -> Stakes:
        st = view.standing
        n = view.n_players
        rules = view.rules
        if st is None or len(st.totals) != n:
            totals: tuple[int, ...] = (0,) * n
            chips = rules.scoring == Scoring.CHIPS
            per_card = bool(rules.chips_per_card)
            target = rules.target
            pot = n if chips else 0
        else:
            totals, chips, per_card, target, pot = st.totals, st.chips, st.chips_per_card, st.target, st.pot
        if chips:
            return cls(view.seat, n, True, per_card, totals, target, pot, 1.0, 1.0)
        left = max(0.0, target - max(totals)) / LEADER_PACE
        tau = SPREAD * math.sqrt(1.0 + left)
        p = _shares(totals, tau)[view.seat]
        slope = p * (1.0 - p) / tau  # -d chance / d own total
        scale = min(MAX_SCALE, 1.0 / slope) if slope > 0 else MAX_SCALE
        return cls(view.seat, n, False, per_card, totals, target, pot, tau, scale)

    def for_seat(self, seat: int) -> Stakes:
        """The same match seen from ``seat`` (for the other players in a simulation)."""
        if seat == self.me:
            return self
        if self.chips:
            return replace(self, me=seat)
        p = _shares(self.totals, self.tau)[seat]
        slope = p * (1.0 - p) / self.tau
        return replace(self, me=seat, scale=min(MAX_SCALE, 1.0 / slope) if slope > 0 else MAX_SCALE)

    # ------------------------------------------------------------------ round ends
    def value(self, hands: Sequence[int], winner: int | None, fines: Sequence[int] = ()) -> float:
        """The worth to the seat of the round ending with ``hands`` left (every seat's card
        mask), won by ``winner`` (None: blocked, R14), with ``fines`` owed (R16)."""
        if self.chips:
            return self._chips_value(hands, winner, fines)
        return self.points_value([penalty_of(h) for h in hands])

    def points_value(self, penalties: Sequence[int]) -> float:
        """Points mode: the worth of the round's penalties (R15), every seat's."""
        after = [t + p for t, p in zip(self.totals, penalties, strict=True)]
        if max(after) >= self.target:
            best = min(after)
            share = 1.0 / after.count(best) if after[self.me] == best else 0.0
            return self.scale * share
        return self.scale * _shares(after, self.tau)[self.me]

    def _chips_value(self, hands: Sequence[int], winner: int | None, fines: Sequence[int]) -> float:
        paid = [0] * self.n
        for s in range(self.n):
            owed = fines[s] if s < len(fines) else 0
            if self.chips_per_card and s != winner:
                owed += penalty_of(hands[s])
            paid[s] = min(owed, max(0, self.totals[s]))
        mine = -paid[self.me]
        if winner == self.me:
            mine += self.pot + sum(paid)
        return float(mine)

    # ------------------------------------------------------------------ cards held
    def penalty_cost(self, penalty: int) -> float:
        """What paying ``penalty`` points now would cost the seat in the match, in points (1 a
        point early in a match; more when it would take the seat past the target while others
        are lower). In chips scoring: the chips paid for the cards, if ``chips_per_card``."""
        if self.chips:
            return float(penalty) if self.chips_per_card else 0.0
        pens = [0] * self.n
        now = self.points_value(pens)
        pens[self.me] = penalty
        return max(0.0, now - self.points_value(pens))

    def king_cost(self, my_penalty: int, opp_sizes: Sequence[int]) -> float:
        """The expected cost, in points, of keeping one more king in hand through the opponents'
        next turns (their hand sizes in turn order, the next player first): the chance that
        one of them goes out first times what the king's nine points more would cost in the
        match, with ``my_penalty`` in hand (each card counted one point: the king's own nine more are
        what is weighed) and the opponents' cards counted as points.
        Nothing in chips scoring without ``chips_per_card`` (a card left costs no chips)."""
        risk = end_risk(opp_sizes)
        if risk <= 0.0:
            return 0.0
        if self.chips:
            return risk * (KING_PENALTY - 1) if self.chips_per_card else 0.0
        pens = [0] * self.n
        for k, size in enumerate(opp_sizes):
            pens[(self.me + 1 + k) % self.n] = size
        pens[self.me] = my_penalty
        now = self.points_value(pens)
        pens[self.me] = my_penalty + KING_PENALTY - 1
        return risk * max(0.0, now - self.points_value(pens))


def _shares(totals: Sequence[int], tau: float) -> list[float]:
    """Every player's chance to end the match lowest, proportional to ``exp(-total / tau)``."""
    low = min(totals)
    w = [math.exp(-(t - low) / tau) for t in totals]
    s = sum(w)
    return [x / s for x in w]
