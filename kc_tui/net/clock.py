"""The turn clock of a served table (docs/PROTOCOL.md, "The turn clock"): plain asyncio, no
Textual, no Rich.

A table with a turn time gives a connected person that many seconds for their whole turn (every
move until the turn ends; the next turn starts the clock again). The clock runs only while the
person is connected and plays the seat themselves: not while their client is away (the table's
stand-in timer is for that), not while an AI stands in for them, not while the round's end
pauses the table, the table holds (its save fails) or the match is over. A clock stopped in a
turn goes on from the time that was left when it runs again in that same turn (the person back,
the save working again).

Every client of the table is sent ``clock`` (:class:`~kc_tui.net.schema.ClockMsg`) when the clock
starts or goes on (``left``: its whole seconds left, the turn's time at its start) and when
:data:`~kc_tui.net.lobby_schema.CLOCK_WARNING` seconds are left (``warning`` true). A clock
that starts or goes on with that little or less left sends one message only, the warning (a
turn of 3 seconds: ``left`` 3, ``warning`` true, at once). When it runs out, an AI plays the rest
of that turn (:attr:`TurnClock.covering`), and the person plays their next turn themselves.
:data:`~kc_tui.net.lobby_schema.TIMEOUTS_FREE_SEAT` turns in a row run out free the seat: the
count goes back to 0 when the person ends a turn on the clock themselves, and with the seat freed
(whoever takes it next starts from 0). A turn the clock did not run for neither counts nor resets.

Deadlines come from the loop's clock (``loop.time()``): the clock works with turns of a fraction
of a second as with minutes. The table tells it what is going on (:meth:`TurnClock.update`, after
every change) and is told back through the callbacks it gives.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable, Hashable, Set
from typing import TYPE_CHECKING

from kc_tui.engine import END
from kc_tui.i18n import _
from kc_tui.net.lobby_schema import CLOCK_WARNING, TIMEOUTS_FREE_SEAT
from kc_tui.net.schema import ClockMsg

if TYPE_CHECKING:
    from kc_tui.match.session import MatchSession


def whole_seconds(left: float) -> int:
    """Seconds left as a clock shows them: rounded up (0.2 s left is 1 s), never below 0."""
    return max(0, math.ceil(left - 1e-9))


class TurnClock:
    """The turn clock of one table: ``seconds`` a turn (0: no clock, :meth:`update` does
    nothing). ``tell`` is called with every ``clock`` message for the table's clients;
    ``ran_out`` with the seat whose turn ran out and whether that freed the seat (its count of
    timed-out turns in a row reached ``free_after``): the table then lets an AI play the rest of
    that turn (:attr:`covering`), or the seat for good when freed, and calls :meth:`update` again.
    ``warning``: the seconds left when everyone is warned."""

    def __init__(
        self,
        seconds: float,
        *,
        tell: Callable[[ClockMsg], None],
        ran_out: Callable[[int, bool], None],
        warning: float = CLOCK_WARNING,
        free_after: int = TIMEOUTS_FREE_SEAT,
    ) -> None:
        if not math.isfinite(seconds) or seconds < 0:
            raise ValueError(f"a turn's time is a number of seconds, 0 or more, not {seconds!r}")
        self.seconds = float(seconds)
        self.warning = float(warning)
        self.free_after = free_after
        self._tell = tell
        self._ran_out = ran_out
        #: The seat whose turn ran out: an AI plays the rest of that turn (None: no such seat).
        self.covering: int | None = None
        #: Timed-out turns in a row, by seat (a seat not in it: none).
        self.timeouts: dict[int, int] = {}
        #: The turn being played (None: no turn: between rounds, the match over), its seat, and
        #: whether the clock ran for it (its person may end it on the clock).
        self._turn: Hashable | None = None
        self._seat: int | None = None
        #: Seconds left of this turn's time (while the clock runs: as at :attr:`_deadline`'s start).
        self._left = self.seconds
        #: While the clock runs: its deadline on the loop's clock; None while it is stopped.
        self._deadline: float | None = None
        self._timers: list[asyncio.TimerHandle] = []

    @property
    def on(self) -> bool:
        """Whether the table has a clock at all."""
        return self.seconds > 0

    @property
    def running(self) -> bool:
        """Whether the clock runs now (a person's turn, on the clock)."""
        return self._deadline is not None

    @property
    def seat(self) -> int | None:
        """The seat whose clock runs now (None: it runs for nobody)."""
        return self._seat if self.running else None

    def left(self) -> float | None:
        """Seconds left of the turn on the clock now (None: it runs for nobody)."""
        if self._deadline is None:
            return None
        return max(0.0, self._deadline - asyncio.get_running_loop().time())

    def current(self) -> ClockMsg | None:
        """The ``clock`` message of the clock as it runs now (for a client that just came;
        None: it runs for nobody)."""
        left = self.left()
        if left is None or self._seat is None:
            return None
        return ClockMsg(self._seat, whole_seconds(left), left <= self.warning)

    def update(self, turn: Hashable | None, seat: int | None) -> None:
        """The table as it is now: ``turn`` names the turn being played (a new value: a new
        turn; None: no turn is being played), ``seat`` the person's seat on turn whose clock
        may run now (None: the clock runs for nobody: an AI's turn, the person away or played
        for, the table holding). Starts, stops or goes on with the clock; a turn ended on the
        clock resets its person's count of timed-out turns."""
        if not self.on:
            return
        if turn != self._turn:
            self._end_turn()
            self._turn = turn
            self._seat = None
            self._left = self.seconds
        if turn is None or seat is None or seat == self.covering:
            self._stop()
            return
        if self._seat != seat:
            self._stop()
            self._seat = seat
        if self._deadline is None:
            self._start()

    def close(self) -> None:
        """Stop the clock for good (the table closes)."""
        self._stop()
        self._turn = self._seat = None

    # ------------------------------------------------------------------ inside
    def _end_turn(self) -> None:
        """The turn being played ended: its person ended it on the clock (their count goes
        back to 0), or an AI ended it for them."""
        seat = self._seat
        if self.running and seat is not None and seat != self.covering:
            self.timeouts.pop(seat, None)
        self._stop()
        self.covering = None

    def _start(self) -> None:
        loop = asyncio.get_running_loop()
        now = loop.time()
        left = self._left
        self._deadline = now + left
        self._timers = [loop.call_at(self._deadline, self._run_out)]
        seat = self._seat
        assert seat is not None
        if left > self.warning:
            self._timers.append(loop.call_at(self._deadline - self.warning, self._warn))
        self._tell(ClockMsg(seat, whole_seconds(left), left <= self.warning))

    def _stop(self) -> None:
        """Stop the clock, keeping the time left of the turn."""
        if self._deadline is not None:
            self._left = max(0.0, self._deadline - asyncio.get_running_loop().time())
            self._deadline = None
        for timer in self._timers:
            timer.cancel()
        self._timers = []

    def _warn(self) -> None:
        message = self.current()
        if message is not None:
            self._tell(ClockMsg(message.seat, message.left, True))

    def _run_out(self) -> None:
        seat = self._seat
        if self._deadline is None or seat is None:
            return
        self._stop()
        self._left = 0.0
        self.covering = seat
        count = self.timeouts.get(seat, 0) + 1
        freed = count >= self.free_after
        if freed:
            self.timeouts.pop(seat, None)
        else:
            self.timeouts[seat] = count
        self._ran_out(seat, freed)


def turn_of(session: MatchSession) -> tuple[int, int] | None:
    """The turn being played, named for :meth:`TurnClock.update`: the round's number and the
    turns ended in it so far (None between rounds, and once the match is over). An undo never
    takes back past a turn's start, so a turn keeps its name until it ends."""
    match = session.match
    if match.over or match.round.over:
        return None
    ended, node = 0, match.round.hist
    while node is not None:
        ended += node[1] == END
        node = node[2]
    return match.number, ended


def timed_seat(session: MatchSession, connected: Set[int], played_for: Set[int], holding: bool) -> int | None:
    """The seat whose clock may run now: a person's seat on turn whose client is
    ``connected`` and whose seat no AI plays (``played_for``), unless the table is ``holding``
    (its save fails) or no turn is being played."""
    if holding or not session.human_to_move or session.match.over:
        return None
    seat = session.to_move
    return seat if seat in connected and seat not in played_for else None


def ran_out_text(name: str) -> str:
    """The host's line when ``name``'s turn ran out."""
    # Translators: {name} is the player whose turn's time ran out.
    return _("{name}'s time ran out: an AI plays the rest of this turn").format(name=name)


def freed_text(name: str, count: int) -> str:
    """The host's line when ``name``'s seat is freed after ``count`` turns ran out in a row."""
    # Translators: {name} is the player, {count} the number of turns (3).
    return _("{name} let {count} turns in a row run out of time: the seat is free, an AI plays it").format(
        name=name, count=count
    )


def freed_told(count: int) -> str:
    """What the person whose seat is freed is told (their connection is closed after it)."""
    # Translators: {count} is the number of turns (3).
    return _("{count} of your turns in a row ran out of time: your seat is free, an AI plays it").format(count=count)


def covered_text() -> str:
    """The refusal of a request from a person whose turn ran out, while the AI plays the rest."""
    return _("your time ran out: an AI plays the rest of this turn")


__all__ = [
    "TurnClock",
    "covered_text",
    "freed_text",
    "freed_told",
    "ran_out_text",
    "timed_seat",
    "turn_of",
    "whole_seconds",
]
