"""``kings-corners worker`` with probes, for the cluster's capacity benchmark
(tests/benchmarks/bench_cluster.py ``--probe``): the same command line as ``kings-corners``, and
one line a finding in the file named by ``KC_PROBE_FILE`` (times on the monotonic clock, which
every process of the machine shares):

* ``lag AT MS``: the event loop ran a probe task ``MS`` late (a task asking to wake every
  :data:`PROBE_EVERY` seconds; lines only from :data:`SHOWN_MS`), and ``lagmax AT MS`` once a
  second: the worst lag of that second;
* ``slow AT MS WHAT``: one callback of the loop ran ``MS`` (from :data:`SHOWN_MS`): what it ran;
* ``renew SENT REPLIED RESULT SINCE_MS``: a renewal called at ``SENT``, answered (or failed) at
  ``REPLIED``, ``SINCE_MS`` after the last renewal that worked was sent;
* ``pool AT MS IN_USE``: a Redis connection waited for ``MS`` (from :data:`SHOWN_MS`);
* ``fence AT SINCE_MS TABLES``: the worker found itself fenced and dropped its tables;
* ``tick AT MS`` / ``sweep AT MS CLAIMED``: a renewal-and-sweep round, a sweep, that took ``MS``;
* ``write AT MS`` / ``claim AT MS``: a store call that took ``MS`` (from :data:`SHOWN_MS`);
* ``gc AT MS GENERATION``: a garbage collection that took ``MS`` (from 10 ms). With
  ``KC_PROBE_GC_FREEZE=1`` every object alive after each sweep is frozen (``gc.freeze``: left out
  of every later collection), to see what the worker's full collections cost.

Monkeypatches, for measuring only (the worker runs as ``kings-corners worker`` does otherwise).
"""

from __future__ import annotations

import asyncio
import functools
import gc
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

#: Seconds between two wakes of the lag probe.
PROBE_EVERY = 0.05
#: The milliseconds from which a lag, a callback, a pool wait or a store call is written.
SHOWN_MS = 50.0

_out = open(os.environ.get("KC_PROBE_FILE", os.devnull), "a", buffering=1)  # noqa: SIM115


def _line(*parts: object) -> None:
    _out.write(" ".join(str(p) for p in parts) + "\n")


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f}"


async def _lag_probe() -> None:
    worst = 0.0
    second = time.monotonic()
    while True:
        asked = time.monotonic()
        await asyncio.sleep(PROBE_EVERY)
        at = time.monotonic()
        lag = at - asked - PROBE_EVERY
        worst = max(worst, lag)
        if lag * 1000 >= SHOWN_MS:
            _line("lag", f"{at:.3f}", _ms(lag))
        if at - second >= 1.0:
            _line("lagmax", f"{at:.3f}", _ms(worst))
            worst, second = 0.0, at


def _what(handle: Any) -> str:
    """What a callback of the loop ran: a task's coroutine by its name, else the callback."""
    task = getattr(getattr(handle, "_callback", None), "__self__", None)
    coro = task.get_coro() if isinstance(task, asyncio.Task) else None
    if coro is not None:
        return f"task {getattr(coro, '__qualname__', coro)}"
    return repr(handle)[:300].replace("\n", " ")


def _gc_timer() -> None:
    started: list[float] = []

    def timed(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            started[:] = [time.monotonic()]
        elif started:
            took = time.monotonic() - started[0]
            if took >= 0.01:
                _line("gc", f"{started[0]:.3f}", _ms(took), info.get("generation"))

    gc.callbacks.append(timed)


def _install() -> None:
    from asyncio import events

    _gc_timer()

    from redis.asyncio.connection import BlockingConnectionPool

    from kc_tui.net.cluster import coord, pg_store, worker
    from kc_tui.net.store import sql

    handle_run = events.Handle._run

    def timed_run(self: events.Handle) -> None:
        start = time.monotonic()
        handle_run(self)
        took = time.monotonic() - start
        if took * 1000 >= SHOWN_MS:
            _line("slow", f"{start:.3f}", _ms(took), _what(self))

    events.Handle._run = timed_run  # type: ignore[method-assign]

    renewed = coord.Coordinator._renewed

    async def timed_renewed(self: coord.Coordinator, *args: Any, **kwargs: Any) -> bool:
        sent = time.monotonic()
        since = float("nan") if self.last_renewed is None else sent - self.last_renewed
        result = False
        try:
            result = await renewed(self, *args, **kwargs)
            return result
        finally:
            _line(
                "renew", f"{sent:.3f}", f"{time.monotonic():.3f}", result, _ms(since), threading.current_thread().name
            )

    coord.Coordinator._renewed = timed_renewed  # type: ignore[method-assign]

    get_connection: Any = BlockingConnectionPool.get_connection

    async def timed_get(self: BlockingConnectionPool, *args: Any, **kwargs: Any) -> Any:
        start = time.monotonic()
        try:
            return await get_connection(self, *args, **kwargs)
        finally:
            took = time.monotonic() - start
            if took * 1000 >= SHOWN_MS:
                _line("pool", f"{start:.3f}", _ms(took), len(self._in_use_connections))

    BlockingConnectionPool.get_connection = timed_get  # type: ignore[method-assign]

    fenced_now = worker.Worker._fenced_now

    def timed_fenced(self: worker.Worker) -> bool:
        tables = len(self.tables)
        fenced = fenced_now(self)
        if fenced and tables:
            last = self.coord.last_renewed
            since = float("nan") if last is None else time.monotonic() - last
            _line("fence", f"{time.monotonic():.3f}", _ms(since), tables)
        return fenced

    worker.Worker._fenced_now = timed_fenced  # type: ignore[method-assign]

    def timed_async(kind: str, method: Any) -> Any:
        @functools.wraps(method)
        async def timed(self: Any, *args: Any, **kwargs: Any) -> Any:
            start = time.monotonic()
            try:
                return await method(self, *args, **kwargs)
            finally:
                _line(kind, f"{start:.3f}", _ms(time.monotonic() - start))

        return timed

    worker.Worker._tick = timed_async("tick", worker.Worker._tick)  # type: ignore[method-assign]
    sweep = timed_async("sweep", worker.Worker._sweep)
    if os.environ.get("KC_PROBE_GC_FREEZE") == "1":

        async def frozen_sweep(self: worker.Worker) -> None:
            await sweep(self)
            gc.freeze()

        worker.Worker._sweep = frozen_sweep  # type: ignore[method-assign]
    else:
        worker.Worker._sweep = sweep  # type: ignore[method-assign]

    def timed_sync(kind: str, method: Any) -> Any:
        @functools.wraps(method)
        def timed(self: Any, *args: Any, **kwargs: Any) -> Any:
            start = time.monotonic()
            try:
                return method(self, *args, **kwargs)
            finally:
                took = time.monotonic() - start
                if took * 1000 >= SHOWN_MS:
                    _line(kind, f"{start:.3f}", _ms(took))

        return timed

    sql.SqlStatements.write = timed_sync("write", sql.SqlStatements.write)  # type: ignore[method-assign]
    for name in ("claim", "rows", "end"):
        for owner in (pg_store.PgTableStore, sql.SqlStatements):
            if name in vars(owner):
                setattr(owner, name, timed_sync(name, getattr(owner, name)))

    start = worker.Worker.start

    async def probed_start(self: worker.Worker, *args: Any, **kwargs: Any) -> int:
        probe = asyncio.create_task(_lag_probe(), name="lag probe")
        self._tasks.add(probe)  # kept alive (cancelled at stop)
        return await start(self, *args, **kwargs)

    worker.Worker.start = probed_start  # type: ignore[method-assign]


if __name__ == "__main__":
    _install()
    from kc_tui.cli import main

    sys.exit(main())
