"""What one seat may see (R4), and guesses of the hidden cards consistent with it.

A :class:`PlayerView` is a frozen snapshot built from plain values: it holds no reference to
the round it came from, so nothing reachable from it exposes a hidden card.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from . import rng as _rng
from .cards import FULL_MASK, Card, card_str, cards_of, sort_for_hand
from .moves import Move
from .rules import Rules
from .state import Pile, Round, explain_illegal, generate_moves


@dataclass(frozen=True, slots=True)
class PlayerView:
    seat: int
    n_players: int
    rules: Rules
    hand_mask: int
    piles: tuple[Pile, ...]
    hand_sizes: tuple[int, ...]
    stock_size: int
    to_move: int
    dealer: int
    idle_turns: int
    moved_this_turn: bool
    played_card_this_turn: bool
    #: The card this seat drew most recently, or None.
    last_drawn: Card | None
    #: Every card that has ever been face up on the table, as a mask.
    seen_mask: int
    #: Every move made this round, public to all: (seat, move), oldest first.
    history: tuple[tuple[int, Move], ...]
    over: bool
    winner: int | None

    @classmethod
    def of(cls, r: Round, seat: int) -> PlayerView:
        if not 0 <= seat < r.n:
            raise ValueError(f"seat {seat} is out of range for {r.n} players")
        drawn = r.last_drawn[seat]
        return cls(
            seat=seat,
            n_players=r.n,
            rules=r.rules,
            hand_mask=r.hands[seat],
            piles=tuple(r.piles),
            hand_sizes=tuple(h.bit_count() for h in r.hands),
            stock_size=len(r.stock),
            to_move=r.to_move,
            dealer=r.dealer,
            idle_turns=r.idle_turns,
            moved_this_turn=r.moved,
            played_card_this_turn=r.played_card,
            last_drawn=None if drawn < 0 else drawn,
            seen_mask=r.seen,
            history=tuple(r.history),
            over=r.over,
            winner=r.winner,
        )

    @property
    def hand(self) -> list[Card]:
        """Own hand in display order."""
        return sort_for_hand(cards_of(self.hand_mask))

    @property
    def my_turn(self) -> bool:
        return not self.over and self.to_move == self.seat

    @property
    def table_mask(self) -> int:
        m = 0
        for p in self.piles:
            for c in p:
                m |= 1 << c
        return m

    @property
    def unseen_mask(self) -> int:
        """Cards this seat cannot see: in the other hands or the stock."""
        return FULL_MASK & ~self.hand_mask & ~self.table_mask

    def legal_moves(self) -> list[Move]:
        """This seat's legal moves when it is its turn (own hand and the piles decide them)."""
        if not self.my_turn:
            return []
        return generate_moves(
            self.hand_mask, self.piles, self.rules.kings_on_sides == "allow", self.rules.completed_piles == "stay"
        )

    def why_illegal(self, m: Move, fmt: Callable[[Card], str] = card_str) -> str | None:
        if self.over:
            return "the round is over"
        if not self.my_turn:
            return "it is not your turn"
        return explain_illegal(self.hand_mask, self.piles, self.rules, m, fmt)


def determinize(view: PlayerView, seed: int, allowed: Callable[[int, Card], bool] | None = None) -> Round:
    """A full round consistent with ``view``: own hand and the table as seen, the unseen cards
    dealt at random to the other hands (their sizes as seen) and the stock (its size as seen).

    ``allowed(seat, card)``, when given, says which unseen cards an opponent may plausibly
    hold (e.g. not a card it could have played); such cards are dealt to it first, the others
    only when there are not enough.  The guess is a new round: it shares nothing with the real one.
    """
    pool = cards_of(view.unseen_mask)
    state = _rng.shuffle(pool, _rng.seed_state(seed))
    hands = [0] * view.n_players
    hands[view.seat] = view.hand_mask
    for s in range(view.n_players):
        if s == view.seat:
            continue
        need = view.hand_sizes[s]
        if allowed is None:
            take = pool[:need]
        else:
            likely = [c for c in pool if allowed(s, c)]
            take = likely[:need]
            if len(take) < need:
                rest = [c for c in pool if c not in take]
                take += rest[: need - len(take)]
        for c in take:
            hands[s] |= 1 << c
        taken = set(take)
        pool = [c for c in pool if c not in taken]
    if allowed is not None:
        state = _rng.shuffle(pool, state)
    if len(pool) != view.stock_size:  # pragma: no cover - a view is always self-consistent
        raise ValueError("the view's counts do not add up to 52 cards")
    r = Round.from_parts(view.rules, hands, list(view.piles), pool, view.to_move, seed=state, dealer=view.dealer)
    r.idle_turns = view.idle_turns
    r.moved = view.moved_this_turn
    r.played_card = view.played_card_this_turn
    r.seen = view.seen_mask
    r.over = view.over
    r.winner = view.winner
    return r
