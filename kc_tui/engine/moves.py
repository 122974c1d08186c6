"""Moves as small ints, and their notation (POSITION_FORMAT.md).

* ``play(card, place)`` = ``card * 8 + place``: a card from hand onto a place (R8, R10, R11).
* ``move(src, dst)`` = ``512 + src * 8 + dst``: a whole pile onto another (R9).
* ``END``: end the turn (R7).
"""

from __future__ import annotations

from typing import Annotated, TypeAlias

from kc_tui.i18n import _

from .cards import DECK_SIZE, CardError, card_str, parse_card

#: A move (a small int); marked "move" for readers that write it in its notation ("play 7H N").
Move: TypeAlias = Annotated[int, "move"]

PLACES: tuple[str, ...] = ("N", "E", "S", "W", "NE", "SE", "SW", "NW")
SIDES: tuple[int, ...] = (0, 1, 2, 3)
CORNERS: tuple[int, ...] = (4, 5, 6, 7)
PLACE_INDEX: dict[str, int] = {name: i for i, name in enumerate(PLACES)}

MOVE_BASE = 512
END: Move = 1024


class MoveError(ValueError):
    """A move's text could not be read."""


def play(card: int, place: int) -> Move:
    return card * 8 + place


def move(src: int, dst: int) -> Move:
    return MOVE_BASE + src * 8 + dst


def is_play(m: Move) -> bool:
    return m < MOVE_BASE


def is_pile_move(m: Move) -> bool:
    return MOVE_BASE <= m < END


def play_card(m: Move) -> int:
    return m >> 3


def target(m: Move) -> int:
    """The place a play or pile move goes to."""
    return m & 7


def source(m: Move) -> int:
    """The place a pile move comes from."""
    return (m - MOVE_BASE) >> 3


def is_side(place: int) -> bool:
    return place < 4


def move_str(m: Move) -> str:
    if m == END:
        return "end"
    if 0 <= m < MOVE_BASE and m >> 3 < DECK_SIZE:
        return f"play {card_str(m >> 3)} {PLACES[m & 7]}"
    if MOVE_BASE <= m < END and (m - MOVE_BASE) >> 3 < len(PLACES):
        return f"move {PLACES[(m - MOVE_BASE) >> 3]} {PLACES[m & 7]}"
    raise MoveError(f"not a move: {m!r}")


def parse_place(text: str) -> int:
    place = PLACE_INDEX.get(text.strip().upper())
    if place is None:
        raise MoveError(_("unknown place {text}: places are {places}").format(text=repr(text), places=" ".join(PLACES)))
    return place


def parse_move(text: str) -> Move:
    """Read ``play 7H N``, ``move N E`` or ``end`` (case-insensitive)."""
    words = text.split()
    if not words:
        raise MoveError(_("empty move: write 'play 7H N', 'move N E' or 'end'"))
    verb = words[0].lower()
    if verb == "end" and len(words) == 1:
        return END
    if verb == "play" and len(words) == 3:
        try:
            card = parse_card(words[1])
        except CardError as exc:
            raise MoveError(_("in move {text}: {problem}").format(text=repr(text), problem=exc)) from None
        return play(card, parse_place(words[2]))
    if verb == "move" and len(words) == 3:
        src, dst = parse_place(words[1]), parse_place(words[2])
        if src == dst:
            raise MoveError(_("in move {text}: a pile cannot move onto itself").format(text=repr(text)))
        return move(src, dst)
    raise MoveError(_("cannot read move {text}: write 'play 7H N', 'move N E' or 'end'").format(text=repr(text)))
