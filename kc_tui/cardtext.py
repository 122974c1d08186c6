"""Cards as plain text, in the player's card style: ``10♥`` ('symbols') or ``TH`` ('ascii').

The one card-text formatter: the session's move log and the UI's :class:`kc_tui.ui.cards.CardLook`
both use it. Plain Python (no Textual).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from kc_tui.engine import Card, card_str, card_symbol

CardFormat = Callable[[Card], str]


def card_formatter(style: str) -> CardFormat:
    """``card_symbol`` ('10♥') for the 'symbols' style, ``card_str`` ('TH') for 'ascii'."""
    return card_str if style == "ascii" else card_symbol


def cards_text(cards: Sequence[Card], fmt: CardFormat) -> str:
    """Cards separated by spaces: ``6♥ 5♠ 4♦``."""
    return " ".join(fmt(c) for c in cards)


__all__ = ["CardFormat", "card_formatter", "cards_text"]
