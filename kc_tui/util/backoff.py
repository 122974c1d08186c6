"""Pauses between tries that double from a first pause up to a last one (plain Python)."""

from __future__ import annotations


class Backoff:
    """The pause before the next try: ``first``, then twice as long each time, at most
    ``last``; :meth:`reset` after a try that worked starts from ``first`` again."""

    def __init__(self, first: float, last: float) -> None:
        if not 0 < first <= last:
            raise ValueError("the pauses run from a first above 0 up to a last at least as long")
        self.first = first
        self.last = last
        self._pause = first

    def next(self) -> float:
        """The pause to wait now (the next one will be twice as long, up to ``last``)."""
        pause = self._pause
        self._pause = min(self.last, pause * 2)
        return pause

    def reset(self) -> None:
        self._pause = self.first


__all__ = ["Backoff"]
