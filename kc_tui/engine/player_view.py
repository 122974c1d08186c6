"""What one seat may see (R4): a frozen snapshot built from plain values.

A :class:`PlayerView` holds no reference to the round it came from, so nothing reachable from it
exposes a hidden card. The round builds it (``Round.view``); this module does not import the
round, so that :mod:`.state` can use it without an import cycle.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from kc_tui.i18n import _

from .cards import FULL_MASK, Card, card_str, cards_of, sort_for_hand
from .legal import Pile, explain_illegal, generate_moves
from .moves import Move
from .rules import Rules


class _Viewable(Protocol):
    """Anything that gives a seat's view (a round)."""

    def view(self, seat: int) -> PlayerView: ...


@dataclass(frozen=True, slots=True)
class Standing:
    """Where the match stands as the round is played: public to every seat (R15/R16).

    Every tuple is in the round's seat order (a seat out of a chips match plays no round)."""

    #: Every seat's total before this round: penalty points (R15) or chips after the ante (R16).
    totals: tuple[int, ...]
    #: Whether the match is scored in chips (R16) rather than points (R15).
    chips: bool
    #: R15: the target that ends the match.
    target: int
    #: R16: the chips in the pot (the antes of this round and any pot left by a block).
    pot: int = 0
    #: Rounds finished before this one.
    rounds_played: int = 0
    #: R16: rounds left after this one before the match ends (None in points scoring).
    rounds_left: int | None = None
    #: R16: whether each loser also pays for the cards left in hand (``chips_per_card``).
    chips_per_card: bool = False


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
    #: The match around the round (None for a round played alone, e.g. from a position file).
    standing: Standing | None = None
    #: R16: the chips each seat owes so far this round for turns ended without playing a card.
    fines: tuple[int, ...] = ()

    @classmethod
    def of(cls, r: _Viewable, seat: int) -> PlayerView:
        """What ``seat`` of round ``r`` may see: ``r.view(seat)`` (the round builds it)."""
        return r.view(seat)

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
            self.hand_mask,
            self.piles,
            self.rules.kings_on_sides_allowed,
            self.rules.completed_piles_stay,
        )

    def why_illegal(self, m: Move, fmt: Callable[[Card], str] = card_str) -> str | None:
        if self.over:
            return _("the round is over")
        if not self.my_turn:
            return _("it is not your turn")
        return explain_illegal(self.hand_mask, self.piles, self.rules, m, fmt)
