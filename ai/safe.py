"""The fault fallback: a wrapper that never lets an AI crash or stall a game.

``SafePlayer(inner)`` runs ``inner.choose(view)`` in a daemon thread and waits at most
``timeout_factor`` x the AI's budget (:data:`TIMEOUT_FACTOR`, 2x, by default). If the AI raises, overruns, or returns a
move that is not legal in the view, the fault is logged and greedy plays instead for the rest
of that turn. An AI that overran is not called again until its late call has finished (greedy
keeps playing for it meanwhile), so it never runs twice at once.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

from ai.base import AIPlayer
from ai.search.planning import greedy_choice
from kc_tui.engine import END, Move, PlayerView

log = logging.getLogger("ai.safe")

DEFAULT_BUDGET_MS = 1000.0
#: How many times its budget an AI may take before greedy plays for it. Read when a
#: :class:`SafePlayer` is made, so a test suite can widen it: a game's moves then never depend on
#: how busy the machine was (the fallback itself is tested with an explicit factor).
TIMEOUT_FACTOR = 2.0


def budget_of(ai: AIPlayer) -> float:
    """The AI's time budget per move in ms (``think_ms`` for the expert)."""
    value = getattr(ai, "budget_ms", DEFAULT_BUDGET_MS)
    return float(value)


class _Call:
    __slots__ = ("done", "error", "result")

    def __init__(self) -> None:
        self.done = threading.Event()
        self.result: Any = None
        self.error: BaseException | None = None


class SafePlayer(AIPlayer):
    """Wraps any AI: faults (exception, 2x budget overrun, illegal move) fall back to greedy."""

    kind = "safe"
    description = "an AI with the greedy fallback"

    def __init__(
        self,
        inner: AIPlayer,
        *,
        timeout_factor: float | None = None,
        budget_ms: float | None = None,
        threaded: bool = True,
    ) -> None:
        super().__init__(inner.seed)
        self.inner = inner
        self.budget_ms = budget_of(inner) if budget_ms is None else float(budget_ms)
        self.timeout_factor = TIMEOUT_FACTOR if timeout_factor is None else float(timeout_factor)
        #: Run the AI in a thread so an overrun is cut off at 2x the budget. Without a thread an
        #: overrun is only noticed when the call returns (its move is then discarded).
        self.threaded = threaded
        self.faults = 0
        self.fault_log: list[str] = []
        self._fallback_turn: tuple[int, int] | None = None  # (seat, turn number) on greedy
        self._pending: _Call | None = None

    def new_round(self) -> None:
        self._fallback_turn = None
        self.inner.new_round()

    def _turn_id(self, view: PlayerView) -> tuple[int, int]:
        ends = sum(1 for _, m in view.history if m == END)
        return (view.seat, ends)

    def _fault(self, view: PlayerView, what: str) -> Move:
        self.faults += 1
        msg = f"{self.inner.kind} (seat {view.seat}): {what}; greedy plays the rest of this turn"
        self.fault_log.append(msg)
        log.warning(msg)
        self._fallback_turn = self._turn_id(view)
        return self._greedy(view)

    @staticmethod
    def _greedy(view: PlayerView) -> Move:
        return greedy_choice(view)

    def choose(self, view: PlayerView) -> Move:
        if self._fallback_turn is not None:
            if self._fallback_turn == self._turn_id(view):
                return self._greedy(view)
            self._fallback_turn = None
        if self._pending is not None:
            if not self._pending.done.is_set():
                return self._fault(view, "still busy with an earlier move that overran")
            self._pending = None
        limit = self.budget_ms * self.timeout_factor / 1000.0
        start = time.perf_counter()
        if self.threaded:
            call = _Call()

            def run() -> None:
                try:
                    call.result = self.inner.choose(view)
                except BaseException as exc:  # any fault falls back
                    call.error = exc
                finally:
                    call.done.set()

            threading.Thread(target=run, name=f"ai-{self.inner.kind}", daemon=True).start()
            if not call.done.wait(limit):
                self._pending = call
                return self._fault(view, f"no move within {limit * 1000:.0f} ms (2x its budget)")
            error, m = call.error, call.result
        else:
            try:
                m = self.inner.choose(view)
                error = None
            except Exception as exc:  # any fault falls back
                error, m = exc, None
            if error is None and time.perf_counter() - start > limit:
                return self._fault(view, f"took {(time.perf_counter() - start) * 1000:.0f} ms (over 2x its budget)")
        # The fault's words never quote the move or the error's text: either may name a card
        # of the AI's hand, and the fault goes to the log and the table's move log.
        if error is not None:
            return self._fault(view, f"raised {type(error).__name__}")
        legal = view.legal_moves()
        if not isinstance(m, int) or isinstance(m, bool) or m not in legal:
            return self._fault(view, "returned an illegal move")
        return m
