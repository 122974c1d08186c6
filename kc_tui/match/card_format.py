"""Cards as plain text, in the player's card style: ``10♡`` ('symbols': red suits in outline,
black suits solid) or ``TH`` ('ascii': the suit's letter is its mark).

The one card-text formatter: the session's move log and the UI's :class:`kc_tui.ui.cards.CardLook`
both use it. Plain Python (no Textual).

It also holds the one switch for terminals that cannot show the UI's glyphs (a Latin-1 or
ASCII locale: ``LC_ALL=C``): :func:`ascii_only`, decided once from the encoding of the stream
Textual's driver writes to (``sys.__stderr__``) and of ``sys.__stdout__``, or from
``$KINGS_CORNERS_ASCII`` (``1`` / ``0``). Then cards are drawn in the 'ascii' style whatever
the setting, and :mod:`kc_tui.ui.literal_text` turns every other glyph into ASCII as it is drawn.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence

from kc_tui.engine import Card, card_str, card_symbol

CardFormat = Callable[[Card], str]

ENV_ASCII = "KINGS_CORNERS_ASCII"
#: A sample of the glyphs the UI draws: box drawing (borders, card faces), suits, card backs,
#: arrows (``Move ▶``), the ellipsis and the middle dot. The suits are both the ones cards are
#: written with (outline red ♡ ♢, solid black ♠ ♣) and the solid red ones older logs hold.
UI_GLYPHS = "─│┌┐└┘╭╮╰╯━┃▔▁▒♠♡♢♣♥♦▶◀←→↑↓…·–✓✗"
_ON = ("1", "yes", "true", "on")
_OFF = ("0", "no", "false", "off")
_decided: tuple[bool, str] | None = None


def can_show(encoding: str | None, glyphs: str = UI_GLYPHS) -> bool:
    """Whether text in ``encoding`` can hold every one of ``glyphs`` (None: no encoding known)."""
    if not encoding:
        return True
    try:
        glyphs.encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def _decide() -> tuple[bool, str]:
    env = os.environ.get(ENV_ASCII, "").strip().lower()
    if env in _ON:
        return True, "ascii"
    encodings = [getattr(s, "encoding", None) for s in (sys.__stderr__, sys.__stdout__) if s is not None]
    for encoding in encodings:
        if not can_show(encoding):
            return env not in _OFF, str(encoding)
    return False, str(encodings[0] if encodings and encodings[0] else "utf-8")


def ascii_only() -> bool:
    """Whether the terminal cannot show the UI's glyphs, so everything is drawn in ASCII
    (decided once: :func:`decide_again` after changing the environment)."""
    return _decision()[0]


def terminal_encoding() -> str:
    """The encoding text is drawn in: the terminal's, or 'ascii' when ``$KINGS_CORNERS_ASCII`` says so."""
    return _decision()[1]


def _decision() -> tuple[bool, str]:
    global _decided
    if _decided is None:
        _decided = _decide()
    return _decided


def decide_again() -> None:
    """Forget the decision of :func:`ascii_only` (tests change ``$KINGS_CORNERS_ASCII``)."""
    global _decided
    _decided = None


def card_formatter(style: str) -> CardFormat:
    """``card_symbol`` ('10♡') for the 'symbols' style, ``card_str`` ('TH') for 'ascii' (and
    for every style on a terminal that cannot show suits: :func:`ascii_only`)."""
    return card_str if style == "ascii" or ascii_only() else card_symbol


def cards_text(cards: Sequence[Card], fmt: CardFormat) -> str:
    """Cards separated by spaces: ``6♡ 5♠ 4♢``."""
    return " ".join(fmt(c) for c in cards)


__all__ = [
    "ENV_ASCII",
    "CardFormat",
    "ascii_only",
    "can_show",
    "card_formatter",
    "cards_text",
    "decide_again",
    "terminal_encoding",
]
