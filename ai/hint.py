"""The hint: the match-aware lookahead planner, which never says "end your turn" while a card
can be shed at no risk.

Holding cards is a judgment the planners make (a king kept from a corner, a card kept because
it would give the next player a place). For a player asking for help, ending the turn with a
card that could be shed for free is never the advice: a play is *free* when it opens nothing
for the cards the player cannot see, that is, no unseen card fits on the card played unless it
already fitted somewhere on the table (:func:`free_plays`). The hint is not a kind of opponent
(it is not registered): the app builds it for the human's seat.
"""

from __future__ import annotations

from kc_tui.engine import END, Move, PlayerView
from kc_tui.engine.cards import NEED
from kc_tui.engine.moves import MOVE_BASE

from .lookahead import LookaheadAI
from .planning import greedy_key, open_mask


def free_plays(view: PlayerView) -> list[Move]:
    """The plays from hand that open nothing new for the unseen cards, best first by greedy's
    priorities (a card that leaves the hand is a point less, a king ten)."""
    fit, _es, _ec = open_mask(view.piles)
    unseen = view.unseen_mask
    out = []
    for m in view.legal_moves():
        if m == END or m >= MOVE_BASE:
            continue
        card = m >> 3
        if NEED[card] & unseen & ~fit:
            continue
        out.append(m)
    out.sort(key=lambda m: -greedy_key(m, view.piles))
    return out


class HintAI(LookaheadAI):
    """Lookahead's plan for the human's seat, with a free play rather than an early end."""

    kind = "hint"
    title = "Hint"
    description = "suggests your next move"
    offered = False

    def choose(self, view: PlayerView) -> Move:
        m = super().choose(view)
        if m != END:
            return m
        free = free_plays(view)
        return free[0] if free else END
