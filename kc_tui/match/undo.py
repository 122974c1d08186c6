"""Taking moves back: the moves the seat on turn made this turn, each with the round before it.

Plain Python. The entries belong to one seat's turn: ending the turn (or a new round) clears
them, so a person's undo never reaches another person's moves. A move that drew from the stock
(going out with a side open under draw3, R13) clears them too, and no move before it can be
taken back: undoing it would put the drawn cards back on the stock, where the next player
would draw cards the mover has seen. The round as the turn began is kept too (the hand a
card's key is numbered from). After a resume the entries are rebuilt from the match's moves
(:meth:`TurnUndo.rebuild`).
"""

from __future__ import annotations

from dataclasses import dataclass

from kc_tui.engine import END, Match, Round
from kc_tui.match.narration import Narrator


@dataclass(frozen=True, slots=True)
class UndoEntry:
    """One move of ``seat`` (a match seat): the round before it and how many log lines it wrote."""

    seat: int
    before: Round
    lines: int


class TurnUndo:
    """The moves of the seat on turn this turn, last first (see the module docs)."""

    def __init__(self) -> None:
        self._entries: list[UndoEntry] = []
        #: The seat whose move this turn drew from the stock (nothing before it is undone), or None.
        self.drew: int | None = None
        #: The seat that moved this turn and the round before its first move, or None.
        self._start: tuple[int, Round] | None = None

    def __len__(self) -> int:
        return len(self._entries)

    def push(self, seat: int, before: Round, lines: int) -> None:
        """``seat`` moved from ``before``; a move of another seat starts a new turn's entries."""
        if self._entries and self._entries[-1].seat != seat:
            self._entries.clear()
        if self.drew != seat:
            self.drew = None
        self._began(seat, before)
        self._entries.append(UndoEntry(seat, before, lines))

    def close(self, seat: int, before: Round) -> None:
        """``seat``'s move from ``before`` drew from the stock: nothing of this turn so far can be
        taken back."""
        self._entries.clear()
        self._began(seat, before)
        self.drew = seat

    def clear(self) -> None:
        self._entries.clear()
        self.drew = None
        self._start = None

    def _began(self, seat: int, before: Round) -> None:
        if self._start is None or self._start[0] != seat:
            self._start = (seat, before)

    def turn_start(self, seat: int) -> Round | None:
        """The round as ``seat``'s turn began, or None when ``seat`` has made no move this turn."""
        return self._start[1] if self._start is not None and self._start[0] == seat else None

    def befores(self, seat: int) -> list[Round]:
        """The round before each of ``seat``'s moves this turn that can be taken back, oldest first."""
        return [e.before for e in self._entries if e.seat == seat]

    def copy(self) -> TurnUndo:
        """The same entries, in a list of their own (to put back when a change is taken back)."""
        other = TurnUndo()
        other._entries = self._entries[:]
        other.drew = self.drew
        other._start = self._start
        return other

    def can_undo(self, seat: int) -> bool:
        """Whether ``seat`` has a move of this turn to take back."""
        return bool(self._entries) and self._entries[-1].seat == seat

    def pop(self, seat: int) -> UndoEntry | None:
        """``seat``'s last move of this turn (taken off), or None when it has none."""
        return self._entries.pop() if self.can_undo(seat) else None

    def rebuild(self, match: Match, narrator: Narrator, seat: int) -> None:
        """The entries of ``seat``'s moves so far this turn (after a resume): the round is dealt
        again and replayed up to the start of the turn, then move by move."""
        self._entries.clear()
        moves = match.replay_moves()
        start = len(moves)
        while start > 0 and moves[start - 1] != END:
            start -= 1
        if start == len(moves):
            return
        r = match.replay_round(start)
        for m in moves[start:]:
            before = r.clone()
            lines = len(narrator.play(r, m))
            if drew_from_stock(before, r):
                self.close(seat, before)
            else:
                self.push(seat, before, lines)


def drew_from_stock(before: Round, after: Round) -> bool:
    """Whether the move that led from ``before`` to ``after`` put a card of the stock in the
    mover's hand."""
    mover = before.to_move
    return bool(after.hands[mover] & ~before.hands[mover])


__all__ = ["TurnUndo", "UndoEntry", "drew_from_stock"]
