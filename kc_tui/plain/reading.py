"""A typed line read as a move or a command: :func:`read_input`.

A move is typed by its number in the list of moves (:meth:`kc_tui.plain.telling.Teller.moves`)
or as it is said: ``7h north``, ``play 7h n``, ``10♥ NE``, ``move east to north``, ``move e n``,
``end``; a command by its word (:class:`Command`). Every line that is neither is refused in one
line that says why; a move that is not legal is refused with the rule that forbids it, as the
table refuses it (:func:`kc_tui.engine.explain_illegal`).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from kc_tui.engine import Move, Rules
from kc_tui.match.view import TableSnapshot


class Command(StrEnum):
    """What may be typed besides a move."""

    HAND = "hand"
    TABLE = "table"
    MOVES = "moves"
    SCORES = "scores"
    HINT = "hint"
    UNDO = "undo"
    RULES = "rules"
    HELP = "help"
    QUIT = "quit"


@dataclass(frozen=True, slots=True)
class Play:
    """A legal move of the viewer's."""

    move: Move


@dataclass(frozen=True, slots=True)
class Refused:
    """A line that is not a legal move nor a command, and why, in one line."""

    line: str


def read_input(text: str, snap: TableSnapshot, rules: Rules) -> Play | Command | Refused:
    """``text`` read against the viewer's view ``snap`` (its hand, piles and legal moves), played
    by ``rules``."""
    raise NotImplementedError


__all__ = ["Command", "Play", "Refused", "read_input"]
