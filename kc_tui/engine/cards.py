"""Cards as small ints, their notation, and the bit masks the engine works with.

A card is ``(rank - 1) * 4 + suit`` with rank 1 (ace) .. 13 (king) and suit
0 = clubs, 1 = diamonds, 2 = hearts, 3 = spades.  A set of cards (a hand) is an
int used as a 52-bit mask: bit ``c`` is set when card ``c`` is in the set.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Annotated, TypeAlias

from kc_tui.i18n import _

#: A card (a small int); marked "card" for readers that write it in its notation ("7H").
Card: TypeAlias = Annotated[int, "card"]

RANKS = "A23456789TJQK"
SUITS = "CDHS"
#: The suit symbols cards are written with: red suits in outline (♢ ♡), black suits solid (♣ ♠),
#: so a card's colour shows in its mark as well as in any colour it is drawn in.
SUIT_SYMBOLS = "♣♢♡♠"
#: Every suit symbol read (:func:`parse_card`), per suit: the solid and the outline forms, so text
#: written with either (an older log, a person typing ♥) reads as the same card.
SUIT_READINGS = ("♣♧", "♦♢", "♥♡", "♠♤")
DECK_SIZE = 52
ACE = 1
KING = 13

ALL_CARDS: tuple[Card, ...] = tuple(range(DECK_SIZE))
FULL_MASK = (1 << DECK_SIZE) - 1
KINGS_MASK = sum(1 << ((KING - 1) * 4 + s) for s in range(4))
QUEENS_MASK = sum(1 << ((KING - 2) * 4 + s) for s in range(4))


def make_card(rank: int, suit: int) -> Card:
    """The card of ``rank`` (1..13) and ``suit`` (0..3)."""
    return (rank - 1) * 4 + suit


def rank_of(card: Card) -> int:
    """1 for an ace up to 13 for a king."""
    return (card >> 2) + 1


def suit_of(card: Card) -> int:
    """0 clubs, 1 diamonds, 2 hearts, 3 spades."""
    return card & 3


def is_red(card: Card) -> bool:
    return (card & 3) in (1, 2)


def is_king(card: Card) -> bool:
    return card >= (KING - 1) * 4


def fits_on(card: Card, top: Card) -> bool:
    """Whether ``card`` may lie on ``top``: one rank lower and the other colour (R8)."""
    return (NEED[top] >> card) & 1 == 1


def _need(top: Card) -> int:
    rank = rank_of(top)
    if rank == ACE:
        return 0
    lower = rank - 1
    suits = (0, 3) if is_red(top) else (1, 2)
    return sum(1 << make_card(lower, s) for s in suits)


#: NEED[top] is the mask of the two cards that may be played on ``top`` (0 on an ace).
NEED: tuple[int, ...] = tuple(_need(c) for c in ALL_CARDS)
#: PENALTY[card]: 10 for a king, 1 for any other card (R15).
PENALTY: tuple[int, ...] = tuple(10 if is_king(c) else 1 for c in ALL_CARDS)


class CardError(ValueError):
    """A card's text could not be read."""


def card_str(card: Card) -> str:
    """Canonical text: ``TH``, ``KS``, ``AC``."""
    return RANKS[card >> 2] + SUITS[card & 3]


def card_symbol(card: Card) -> str:
    """Text with a suit symbol and ``10`` for ten: ``10♡``, ``K♠`` (red suits in outline)."""
    rank = RANKS[card >> 2]
    return ("10" if rank == "T" else rank) + SUIT_SYMBOLS[card & 3]


def parse_card(text: str) -> Card:
    """Read ``TH``, ``th``, ``10H``, ``K♠``, ``10♡`` or ``10♥``; raise :class:`CardError` otherwise."""
    if not isinstance(text, str):
        raise CardError(_("a card must be text such as 'TH', not {text}").format(text=repr(text)))
    t = text.strip().upper()
    if len(t) < 2:
        raise CardError(_("unknown card {text}").format(text=repr(text)))
    rank_text, suit_text = t[:-1], t[-1]
    if rank_text == "10":
        rank_text = "T"
    symbol_suit = next((i for i, forms in enumerate(SUIT_READINGS) if suit_text in forms), -1)
    suit = SUITS.find(suit_text) if symbol_suit < 0 else symbol_suit
    if len(rank_text) != 1 or rank_text not in RANKS or suit < 0:
        raise CardError(_("unknown card {text}").format(text=repr(text)))
    return make_card(RANKS.index(rank_text) + 1, suit)


def mask_of(cards: Iterable[Card]) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def cards_of(mask: int) -> list[Card]:
    """The cards of a mask, lowest first."""
    out: list[Card] = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def iter_cards(mask: int) -> Iterator[Card]:
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def penalty_of(mask: int) -> int:
    """R15: 10 for each king in the hand and 1 for each other card."""
    return (mask & ~KINGS_MASK).bit_count() + 10 * (mask & KINGS_MASK).bit_count()


def sort_for_hand(cards: Iterable[Card]) -> list[Card]:
    """Hand order for display: by suit (clubs, diamonds, spades, hearts alternate colours), then rank."""
    order = (0, 1, 3, 2)
    return sorted(cards, key=lambda c: (order[c & 3], c >> 2))
