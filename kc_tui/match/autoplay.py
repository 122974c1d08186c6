"""A round played to its end by players that are asked for every move: the one loop of the
tournament, the history builder of the tests, the leaf model's fit and the benchmarks."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Protocol

from kc_tui.engine import END, Move, PlayerView, Round


class Chooser(Protocol):
    """What plays a seat: an AI (:class:`ai.base.AIPlayer`, :class:`ai.safe.SafePlayer`) or any
    object that answers a move for a view."""

    def choose(self, view: PlayerView) -> Move: ...


#: Called after each move is applied: the round seat that moved, the move, and the seconds its
#: player took to choose it.
OnMove = Callable[[int, Move, float], None]
#: Called before a seat's player is asked for a move: that round seat.
BeforeMove = Callable[[int], None]


def play_out(
    r: Round,
    players: Sequence[Chooser],
    *,
    max_turns: int | None = None,
    max_moves: int | None = None,
    on_move: OnMove | None = None,
    before_move: BeforeMove | None = None,
) -> bool:
    """Play round ``r`` to its end, ``players[i]`` choosing for round seat ``i`` from its view
    (:meth:`Round.view`, which inside a match carries the match's standing); each move is
    applied as chosen, so a player must answer a legal move (``SafePlayer`` does).

    True when the round was stopped unfinished: after ``max_turns`` turns ended with ``END``,
    or after ``max_moves`` moves of any kind (None: no limit)."""
    turns = moves = 0
    while not r.over:
        if (max_turns is not None and turns >= max_turns) or (max_moves is not None and moves >= max_moves):
            return True
        seat = r.to_move
        if before_move is not None:
            before_move(seat)
        view = r.view(seat)
        t0 = time.perf_counter()
        mv = players[seat].choose(view)
        dt = time.perf_counter() - t0
        r.apply(mv)
        moves += 1
        turns += mv == END
        if on_move is not None:
            on_move(seat, mv, dt)
    return False
