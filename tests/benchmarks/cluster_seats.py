"""Light scripted seats for the cluster's capacity benchmark (tests/benchmarks/bench_cluster.py),
spread over processes of their own so that the worker, not the seats, is what is measured.

A seat reads of a state only what it plays by: ``json.loads`` of the frame, then its ``stamp``,
the view's ``to_move``, ``over`` and first ``legal`` move (no schema check, no view built). When
its seat is on turn it plays that move ``think`` seconds (x 0.5 to 1.5) later, chosen in the
newest state it has; the move is *answered* by the first state whose stamp differs from the one
it was chosen at (its round trip: from the send to that state's arrival, on the monotonic
clock, which every process of the machine shares) or by a refusal. A seat connects again
(from its own loopback address) whenever its socket ends, as the real client does: after
:data:`~kc_tui.net.client.FIRST_RETRY` seconds, twice as long each time it failed again up to
:data:`~kc_tui.net.client.LAST_RETRY`, from the first again once a connection had a state; each
pause jittered (x 0.5 to 1), so that seats closed together do not come back together and a
worker that stopped serving them is not stormed.

:class:`SeatProcesses` runs the seats in ``n`` processes (``multiprocessing`` spawn: each its own
interpreter and event loop), spread round-robin; the benchmark asks them over a pipe for what
they measured.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import multiprocessing
import random
import threading
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any

from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed

from kc_tui.net.client import FIRST_RETRY, LAST_RETRY
from kc_tui.util.backoff import Backoff

#: Seconds a connection may take to open (a loaded machine is slow, not broken).
OPEN_WAIT = 60.0
#: The share of its pause a seat waits at least before connecting again (the rest is random).
JITTER_FLOOR = 0.5


@dataclass(frozen=True, slots=True)
class SeatAddress:
    """A seat to play: its URL (``ws://worker/t/<table>/seat/<token>``), its seat number, the
    loopback address it connects from (a door lets only so many sockets in from one)."""

    url: str
    seat: int
    source: str


@dataclass(slots=True)
class Tally:
    """What one process's seats measured: every answered move's (sent, answered) times, the
    sends not answered yet, refusals, connections ended, seats that had a first state."""

    answered: list[tuple[float, float]] = field(default_factory=list)
    pending: dict[int, float] = field(default_factory=dict)
    refused: int = 0
    closed: int = 0
    seen: int = 0
    why: Counter[str] = field(default_factory=Counter)


@dataclass(frozen=True, slots=True)
class Window:
    """A measured window, as one process saw it: the round trips (ms) of moves sent in it, the
    moves sent in it not answered when asked, refusals and closed connections so far (and why),
    and when (seconds into the window) each move slower than ``slow_ms`` was sent."""

    round_trips_ms: list[float]
    unanswered: int
    refused: int
    closed: int
    why: dict[str, int]
    slow_at: list[float]


class _Seat:
    """One seat: what it knows of its connection now."""

    def __init__(self, address: SeatAddress, think: float, tally: Tally, key: int) -> None:
        from kc_tui.net import schema as p
        from kc_tui.net.protocol import write

        self.address = address
        self.think = think
        self.tally = tally
        self.key = key
        self.random = random.Random(address.url)
        self.hello = write(p.Hello("kings-corners bench seat"))
        self.first = True
        #: Whether the connection now (or the last one) had a state.
        self.welcomed = False
        self.backoff = Backoff(FIRST_RETRY, LAST_RETRY)
        self.stamp = 0
        #: The newest state's first legal move when this seat is on turn in it.
        self.legal: str | None = None
        #: The stamp its unanswered move was chosen at.
        self.sent: int | None = None
        self.mover: asyncio.Task[None] | None = None

    async def run(self, stop: asyncio.Event) -> None:
        from websockets.asyncio.client import connect
        from websockets.exceptions import InvalidHandshake, InvalidStatus

        from kc_tui.net import schema as p

        while not stop.is_set():
            self.welcomed = False
            try:
                async with connect(
                    self.address.url,
                    max_size=p.MAX_MESSAGE,
                    compression=None,
                    open_timeout=OPEN_WAIT,
                    close_timeout=2,
                    local_addr=(self.address.source, 0),
                ) as ws:
                    await ws.send(self.hello)
                    async for text in ws:
                        if self.receive(ws, text):
                            return
            except ConnectionClosed as exc:
                code = exc.rcvd.code if exc.rcvd is not None else None
                self.tally.why[f"closed {code}"] += 1
            except InvalidStatus as exc:
                self.tally.why[f"HTTP {exc.response.status_code}"] += 1
            except (InvalidHandshake, OSError, TimeoutError) as exc:
                self.tally.why[type(exc).__name__] += 1
            finally:
                if self.mover is not None:
                    self.mover.cancel()
                self.tally.pending.pop(self.key, None)
                self.sent = self.legal = None
            self.tally.closed += 1
            if self.welcomed:
                self.backoff.reset()
            pause = self.backoff.next() * self.random.uniform(JITTER_FLOOR, 1.0)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), pause)

    def receive(self, ws: ClientConnection, text: str | bytes) -> bool:
        """Read a frame; whether the match is over."""
        at = time.monotonic()
        message = json.loads(text)
        kind = message["type"]
        tally = self.tally
        if kind == "state":
            self.welcomed = True
            stamp = message["stamp"]
            if self.sent is not None and stamp != self.sent:
                tally.answered.append((tally.pending.pop(self.key), at))
                self.sent = None
            if self.first:
                tally.seen += 1
                self.first = False
            view = message["view"]
            if view["over"]:
                return True
            legal = view["legal"]
            self.stamp = stamp
            self.legal = legal[0] if legal and view["to_move"] == self.address.seat else None
            if self.legal is not None and self.sent is None and (self.mover is None or self.mover.done()):
                self.mover = asyncio.create_task(self.move(ws))
        elif kind in ("refused", "error") and self.sent is not None:
            tally.refused += 1
            tally.pending.pop(self.key, None)
            self.sent = None
        return False

    async def move(self, ws: ClientConnection) -> None:
        """Its move, ``think`` (x 0.5 to 1.5) seconds on, chosen in the newest state then."""
        from kc_tui.engine import parse_move
        from kc_tui.net import schema as p
        from kc_tui.net.protocol import write

        await asyncio.sleep(self.think * self.random.uniform(0.5, 1.5))  # the seat's thinking time
        if self.legal is None or self.sent is not None:
            return
        text = write(p.MoveRequest(parse_move(self.legal), self.stamp))
        self.sent = self.stamp
        self.tally.pending[self.key] = time.monotonic()
        with contextlib.suppress(ConnectionClosed):
            await ws.send(text)


async def _serve(pipe: Connection, think: float) -> None:
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    tally = Tally()
    tasks: list[asyncio.Task[None]] = []
    commands: asyncio.Queue[tuple[Any, ...]] = asyncio.Queue()

    def read() -> None:
        while True:
            try:
                command = pipe.recv()
            except EOFError:
                command = ("stop",)
            loop.call_soon_threadsafe(commands.put_nowait, command)
            if command[0] == "stop":
                return

    threading.Thread(target=read, daemon=True).start()
    while True:
        command = await commands.get()
        if command[0] == "seats":
            for address in command[1]:
                tasks.append(asyncio.create_task(_Seat(address, think, tally, len(tasks)).run(stop)))
            pipe.send(len(tasks))
        elif command[0] == "seen":
            pipe.send(tally.seen)
        elif command[0] == "window":
            start, end, slow_ms = command[1], command[2], command[3]
            trips = [(b - a) * 1000 for a, b in tally.answered if start <= a < end]
            slow = [a - start for a, b in tally.answered if start <= a < end and (b - a) * 1000 >= slow_ms]
            late = sum(1 for a in tally.pending.values() if start <= a < end)
            pipe.send(Window(trips, late, tally.refused, tally.closed, dict(tally.why), slow))
            tally.answered = [(a, b) for a, b in tally.answered if a >= end]
        elif command[0] == "stop":
            stop.set()
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            with contextlib.suppress(OSError):
                pipe.send("stopped")
            return


def _process(pipe: Connection, think: float) -> None:
    asyncio.run(_serve(pipe, think))


class SeatProcesses:
    """``count`` processes of seats playing at ``think`` pace (their CPU affinity: this
    process's when they start)."""

    def __init__(self, count: int, think: float) -> None:
        context = multiprocessing.get_context("spawn")
        self.pipes: list[Connection] = []
        self.processes: list[Any] = []
        for _ in range(count):
            here, there = context.Pipe(duplex=True)
            process = context.Process(target=_process, args=(there, think), daemon=True)
            process.start()
            self.pipes.append(here)
            self.processes.append(process)
        self._next = 0

    @property
    def pids(self) -> list[int]:
        return [int(p.pid) for p in self.processes]

    def _ask(self, command: tuple[Any, ...]) -> list[Any]:
        for pipe in self.pipes:
            pipe.send(command)
        return [pipe.recv() for pipe in self.pipes]

    def add(self, seats: Sequence[SeatAddress]) -> None:
        """Start ``seats``, dealt round-robin over the processes (a table's four seats apart)."""
        shares: list[list[SeatAddress]] = [[] for _ in self.pipes]
        for seat in seats:
            shares[self._next % len(shares)].append(seat)
            self._next += 1
        for pipe, share in zip(self.pipes, shares, strict=True):
            pipe.send(("seats", share))
        for pipe in self.pipes:
            pipe.recv()

    def seen(self) -> int:
        """How many seats have had a first state."""
        return sum(self._ask(("seen",)))

    def window(self, start: float, end: float, slow_ms: float) -> Window:
        """The moves sent from ``start`` to ``end`` (monotonic), every process's together."""
        parts: list[Window] = self._ask(("window", start, end, slow_ms))
        return Window(
            [t for w in parts for t in w.round_trips_ms],
            sum(w.unanswered for w in parts),
            sum(w.refused for w in parts),
            sum(w.closed for w in parts),
            dict(sum((Counter(w.why) for w in parts), Counter())),
            sorted(t for w in parts for t in w.slow_at),
        )

    def stop(self) -> None:
        for pipe, process in zip(self.pipes, self.processes, strict=True):
            with contextlib.suppress(OSError, EOFError):
                pipe.send(("stop",))
                if pipe.poll(30):
                    pipe.recv()
            process.join(10)
            if process.is_alive():
                process.kill()
                process.join()


__all__ = ["SeatAddress", "SeatProcesses", "Window"]
