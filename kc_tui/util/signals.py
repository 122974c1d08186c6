"""Signals handled for the length of a block: each given signal's handler set, and the one it
had put back afterwards. A signal the platform lacks, or a thread that may not set one, is
skipped."""

from __future__ import annotations

import signal
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, suppress
from types import FrameType
from typing import Any

Handler = Callable[[int, FrameType | None], Any]


def known_signals(names: Iterable[str]) -> tuple[signal.Signals, ...]:
    """The signals of ``names`` (``"SIGTERM"``...) this platform has."""
    return tuple(getattr(signal, name) for name in names if hasattr(signal, name))


@contextmanager
def handling(signals: Iterable[signal.Signals], handler: Handler) -> Iterator[None]:
    """While the block runs, ``handler`` handles each of ``signals``; their handlers before are
    put back at its end."""
    before: dict[signal.Signals, Any] = {}
    for sig in signals:
        with suppress(ValueError, OSError):  # not the main thread
            before[sig] = signal.signal(sig, handler)
    try:
        yield
    finally:
        for sig, old in before.items():
            with suppress(ValueError, OSError, TypeError):
                signal.signal(sig, old)


__all__ = ["Handler", "handling", "known_signals"]
