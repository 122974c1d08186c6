"""The tournament's deals (or match seeds) in batches, played in this process or spread over
worker processes, the records given back in order; and the progress bar."""

from __future__ import annotations

import multiprocessing
import sys
import time
import typing
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from typing import TextIO

from kc_tui.i18n import N_, _
from kc_tui.lab.options import TournamentOptions
from kc_tui.lab.play import DealRecord, MatchPlayRecord, play_deals, play_matches

#: At most this many batches of deals per worker are submitted and not yet collected (the rest
#: are made as the first ones are collected, so a big ``--deals`` costs no memory up front).
IN_FLIGHT_PER_JOB = 4


def chunk_size(deals: int, jobs: int, most: int = 10) -> int:
    """Deals (or matches) per batch: about eight batches per worker, at most ``most`` each."""
    return max(1, min(most, deals // (jobs * 8) or 1))


def batches(deals: int, chunk: int) -> Iterator[range]:
    """The deals ``0 .. deals - 1`` in consecutive batches of ``chunk``, made one at a time."""
    for i in range(0, deals, chunk):
        yield range(i, min(deals, i + chunk))


#: Matches per batch at most: a match is several rounds, so fewer than deals.
MATCH_CHUNK_MOST = 2

#: A record of one batch's work: :class:`~kc_tui.lab.play.DealRecord` or :class:`~kc_tui.lab.play.MatchPlayRecord`.
R = typing.TypeVar("R")


def iter_batched(
    cfg: TournamentOptions,
    total: int,
    chunk: int,
    work: Callable[[TournamentOptions, range], list[R]],
    unit: str,
    progress: TextIO | None = None,
) -> Iterator[R]:
    """The records of ``work(cfg, batch)`` for the batches of ``0 .. total - 1``, in order,
    whatever ``cfg.jobs`` is (``work`` must be a module-level function: it goes to the workers).

    The batches are made lazily: with several jobs, at most ``IN_FLIGHT_PER_JOB`` batches per
    worker are submitted and not yet collected, and they are collected in order. The progress
    bar counts ``unit`` ("deals", "matches")."""
    todo = batches(total, chunk)
    bar = Progress(total, progress, unit)
    if cfg.jobs == 1:
        for b in todo:
            recs = work(cfg, b)
            bar.update(len(b))
            yield from recs
        bar.finish()
        return
    n_batches = -(-total // chunk)
    ctx = multiprocessing.get_context("fork" if sys.platform.startswith("linux") else "spawn")
    pool = ProcessPoolExecutor(max_workers=min(cfg.jobs, n_batches), mp_context=ctx)
    try:
        window: deque[tuple[range, Future[list[R]]]] = deque()
        for b in todo:
            window.append((b, pool.submit(work, cfg, b)))
            if len(window) >= cfg.jobs * IN_FLIGHT_PER_JOB:
                break
        while window:
            b, fut = window.popleft()
            recs = fut.result()
            nxt = next(todo, None)
            if nxt is not None:
                window.append((nxt, pool.submit(work, cfg, nxt)))
            bar.update(len(b))
            yield from recs
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    bar.finish()


def iter_records(cfg: TournamentOptions, progress: TextIO | None = None) -> Iterator[DealRecord]:
    """All the rounds of the tournament, in deal and rotation order, whatever ``cfg.jobs`` is
    (batches made lazily, a few in flight: :func:`iter_batched`)."""
    return iter_batched(cfg, cfg.deals, chunk_size(cfg.deals, cfg.jobs), play_deals, N_("deals"), progress)


def iter_match_records(cfg: TournamentOptions, progress: TextIO | None = None) -> Iterator[MatchPlayRecord]:
    """All the matches of a ``--matches`` tournament, in match and rotation order, whatever
    ``cfg.jobs`` is (:func:`iter_batched`; the progress bar counts match seeds)."""
    total = cfg.matches or 0
    chunk = chunk_size(total, cfg.jobs, MATCH_CHUNK_MOST)
    return iter_batched(cfg, total, chunk, play_matches, N_("matches"), progress)


def run(cfg: TournamentOptions, progress: TextIO | None = None) -> list[DealRecord]:
    """All the rounds of the tournament as a list (:func:`iter_records` holds only a few batches)."""
    return list(iter_records(cfg, progress))


class Progress:
    """A plain-text progress bar on stderr, redrawn in place with ``\\r``."""

    def __init__(self, total: int, out: TextIO | None, unit: str = N_("deals")) -> None:
        self.total = total
        self.unit = unit
        self.done = 0
        self.out = out
        self.start = time.monotonic()

    def update(self, k: int) -> None:
        self.done += k
        if self.out is None:
            return
        width = 30
        filled = width * self.done // self.total
        elapsed = time.monotonic() - self.start
        eta = elapsed / self.done * (self.total - self.done) if self.done else 0.0
        # Translators: the progress bar: {done} of {total} {unit} (deals, matches), then seconds spent and left.
        line = _("{done}/{total} {unit}  {elapsed} s  eta {eta} s").format(
            done=self.done, total=self.total, unit=_(self.unit), elapsed=f"{elapsed:6.1f}", eta=f"{eta:6.1f}"
        )
        self.out.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {line}")
        self.out.flush()

    def finish(self) -> None:
        if self.out is not None:
            self.out.write("\n")
            self.out.flush()
