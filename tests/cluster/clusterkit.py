"""A cluster of Kings Corners on this machine, for the failover tests and the cluster's benchmark.

:class:`Cluster` starts its own PostgreSQL (or uses an SQLite file) and its own Redis
(:mod:`tests.cluster.servicekit`), so a test may stop, kill and restart them; makes the schema
with ``kings-corners store init``; makes tables with
:func:`~kc_tui.net.cluster.tables.new_table`; runs ``kings-corners worker`` and
``kings-corners gateway`` as subprocesses (their status lines read as they come); and
:class:`Players`, scripted seats: websockets clients through the gateway, on an event loop of
their own in a thread, each playing its table's first legal move when it is its turn and
connecting again with its token whenever its socket closes.

Everything is recorded on this process's monotonic clock:

* every state a seat receives (:class:`Received`): its table, seat, stamp and the *print* of
  what it shows (:func:`view_print`: the round, the seat's hand, the piles, the stock, who is
  to move, the totals);
* every move a seat sends (:class:`Sent`), *acknowledged* once the state answering it arrives on
  the same connection (the first state whose print differs from the one the move was chosen in),
  or refused (the reason);
* every table's owner, epoch and seq as the store holds them (:class:`Watch`, a thread reading
  the store's tables every :data:`WATCH_EVERY` seconds): when each epoch was first seen;
* every table's history (:class:`History`): each row of ``kc_moves`` as it comes, its save
  replayed (:class:`~kc_tui.net.store.history.Replay`: a snapshot's own, a move row applied to
  the save before it and checked against its digest), and the print of that position for every
  seat, built from the save as the server builds a state (:meth:`MatchSession.from_dict`,
  :meth:`TableDriver.snapshot`).

The checks (:meth:`Cluster.problems`) read those records: every state any seat received is the
print of some history row's position for that seat; no table's history forks (its seqs 1..N, each
row replaying on the one before, its log extending the one before, its epoch never going down);
no state reached a seat from an old owner after a new epoch was seen (every state received after
epoch E was seen shows a position written at or after E's claim); and every acknowledged move's
position is in the history. :class:`Witness`: a spectator connected to one worker directly (not
through the gateway), to see what that worker itself sends.

The history and the owners are read with plain SQL on the schema the store's contract names
(``kc_tables``, ``kc_moves``): a test reads only the rows it has not read yet.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus

from kc_tui.engine import Card, Rules, parse_move
from kc_tui.match.roster import Seat
from kc_tui.match.session import MatchSession
from kc_tui.match.table import TableDriver
from kc_tui.match.view import TableSnapshot
from kc_tui.net import schema as p
from kc_tui.net.protocol import parse_server, write
from kc_tui.net.store.history import HistoryError, Replay
from kc_tui.net.store.tablestore import Written
from tests.cluster.servicekit import SERVER_WAIT, PgServer, RedisServer
from tests.waiting import wait_for

#: Seconds a wait of the cluster may take (a loaded machine is slow, not broken).
WAIT = 90.0
#: Seconds between two reads of the tables' owners, epochs and seqs.
WATCH_EVERY = 0.1
#: Seconds a seat waits before connecting again (its socket closed, or the connect failed).
RECONNECT = 0.1
#: A worker's and a gateway's status line once they serve.
WORKER_READY = re.compile(r"^worker (\S+) serving at (ws://\S+)")
GATEWAY_READY = re.compile(r"^gateway serving at (ws://\S+)")
#: The rules of the tables: long matches (they go on for the whole run).
LONG_MATCH = Rules(target=10_000)

#: What a seat's state shows of the position: round, hand, piles, stock, to move, totals.
Print = tuple[int, tuple[Card, ...] | None, tuple[tuple[Card, ...], ...], int, int | None, tuple[int, ...]]


def view_print(view: TableSnapshot) -> Print:
    """The print of a view: what it shows of the position (the hand in order of its cards)."""
    hand = None if view.hand is None else tuple(sorted(view.hand))
    return (view.round_number, hand, view.piles, view.stock, view.to_move, view.totals)


def save_prints(save: bytes) -> tuple[tuple[Print, ...], list[str]]:
    """The print of the position of a save (a match's save document, as the store keeps it)
    for every seat, as the server builds a seat's state from it; and the save's log."""
    doc = json.loads(save)
    session = MatchSession.from_dict(doc, shared_log=True)
    driver = TableDriver(session, pace="instant")
    prints = tuple(view_print(driver.snapshot(seat)) for seat in range(session.match.n))
    return prints, list(session.log)


def log_extends(before: Sequence[str], after: Sequence[str]) -> bool:
    """Whether ``after`` is ``before`` with lines added at its end (its oldest lines may have
    been dropped: the session keeps the newest ones)."""
    return any(list(after[: len(before) - cut]) == list(before[cut:]) for cut in range(len(before) + 1))


def now() -> float:
    return time.monotonic()


# ---------------------------------------------------------------------- processes
@dataclass(eq=False)
class Program:
    """A worker or a gateway as a subprocess; its output lines read as they come (its pipes never
    fill), each with the time it was read."""

    name: str
    popen: subprocess.Popen[str]
    out: list[tuple[float, str]] = field(default_factory=list)
    err: list[tuple[float, str]] = field(default_factory=list)
    address: str = ""
    #: Its data folder (its log, ``kings-corners.log``, is there).
    data: Path | None = None

    def __post_init__(self) -> None:
        for pipe, lines in ((self.popen.stdout, self.out), (self.popen.stderr, self.err)):
            threading.Thread(target=_pump, args=(pipe, lines), daemon=True).start()

    @property
    def pid(self) -> int:
        return self.popen.pid

    @property
    def alive(self) -> bool:
        return self.popen.poll() is None

    def lines(self) -> list[str]:
        """Everything it wrote, both streams, in the order read."""
        return [line for _at, line in sorted([*self.out, *self.err], key=lambda x: x[0])]

    def log(self) -> str:
        """Its log file (empty when it logged nothing)."""
        if self.data is None:
            return ""
        try:
            return (self.data / "kings-corners.log").read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""

    def ready(self, pattern: re.Pattern[str]) -> re.Match[str]:
        """Its status line once it serves (the test fails if it ends first)."""

        def found() -> re.Match[str] | None:
            for _at, line in [*self.out, *self.err]:
                match = pattern.match(line)
                if match:
                    return match
            if not self.alive:
                raise AssertionError(f"{self.name} ended ({self.popen.returncode}):\n" + "".join(self.lines()))
            return None

        return wait_for(found, timeout=WAIT, what=f"{self.name} serving", showing=lambda: "".join(self.lines()))

    def signal(self, sig: signal.Signals) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, sig)

    def stop(self) -> int | None:
        """SIGTERM (a SIGSTOPped one woken first), killed if it does not end; its exit status."""
        if self.alive:
            self.signal(signal.SIGCONT)
            self.signal(signal.SIGTERM)
            try:
                self.popen.wait(WAIT / 3)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait(WAIT)
        return self.popen.returncode


def _pump(pipe: Any, lines: list[tuple[float, str]]) -> None:
    for line in pipe:
        lines.append((now(), line))


def kings_corners(*args: str, cpu: int | None = None, log_level: str = "info") -> list[str]:
    """The command line of ``kings-corners ARGS``, logging at ``log_level`` (``cpu``: pinned to
    that core by ``taskset``)."""
    command = [sys.executable, "-m", "kc_tui", "--log-level", log_level, *args]
    return command if cpu is None else ["taskset", "-c", str(cpu), *command]


def spawn(name: str, command: Sequence[str], data: Path) -> Program:
    """``command`` as a subprocess named ``name``, its data folder (and log) ``data``."""
    popen = subprocess.Popen(
        list(command),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=os.environ | {"PYTHONUNBUFFERED": "1", "KINGS_CORNERS_DATA": str(data)},
    )
    return Program(name, popen, data=data)


# ---------------------------------------------------------------------- the store, read as it is
@dataclass(frozen=True, slots=True)
class TableState:
    """A table's row as the store holds it (without its record)."""

    id: str
    owner: str | None
    epoch: int
    seq: int
    phase: str


class StoreReader:
    """Plain SQL reads of the store (PostgreSQL or an SQLite file), on a connection of its own
    that is made again after a failure (the server stopped, then started)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.postgres = url.startswith(("postgresql://", "postgres://"))
        self._conn: Any = None
        self._lock = threading.Lock()

    def _connect(self) -> Any:
        if self.postgres:
            import psycopg

            return psycopg.connect(self.url, autocommit=True, connect_timeout=3)
        path = self.url.removeprefix("sqlite://")
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5, check_same_thread=False)
        conn.isolation_level = None
        return conn

    def query(self, sql: str, args: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """The rows of ``sql`` (``?`` placeholders); an error once the connection is dropped."""
        with self._lock:
            if self._conn is None:
                self._conn = self._connect()
            try:
                cursor = self._conn.execute(sql.replace("?", "%s") if self.postgres else sql, tuple(args))
                return list(cursor.fetchall())
            except Exception:
                with contextlib.suppress(Exception):
                    self._conn.close()
                self._conn = None
                raise

    def tables(self) -> list[TableState]:
        rows = self.query("SELECT id, owner, epoch, seq, phase FROM kc_tables")
        return [TableState(str(i), o, int(e), int(s), str(ph)) for i, o, e, s, ph in rows]

    def moves_after(self, table: str, seq: int) -> list[Written]:
        rows = self.query(
            "SELECT seq, epoch, kind, data FROM kc_moves WHERE table_id = ? AND seq > ? ORDER BY seq", (table, seq)
        )
        return [Written(int(s), int(e), str(kind), bytes(data)) for s, e, kind, data in rows]

    def snapshot(self, table: str) -> bytes:
        return bytes(self.query("SELECT snapshot FROM kc_tables WHERE id = ?", (table,))[0][0])

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                with contextlib.suppress(Exception):
                    self._conn.close()
                self._conn = None


@dataclass(frozen=True, slots=True)
class Sighting:
    """An epoch of a table first seen by the watch: its owner, the table's seq then, when."""

    epoch: int
    owner: str | None
    seq: int
    at: float


class Watch:
    """A thread reading every table's owner, epoch and seq every :data:`WATCH_EVERY` seconds:
    :attr:`now` the latest read, :attr:`epochs` every epoch of every table as first seen. A read
    that fails (the store is down) is skipped."""

    def __init__(self, reader: StoreReader) -> None:
        self.reader = reader
        self.now: dict[str, TableState] = {}
        self.epochs: dict[str, list[Sighting]] = {}
        self.reads = 0
        self.failed = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True, name="watch")

    def start(self) -> None:
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            self.look()
            self._stop.wait(WATCH_EVERY)

    def look(self) -> bool:
        """Read the tables once; whether it could."""
        try:
            tables = self.reader.tables()
        except Exception:
            self.failed += 1
            return False
        at = now()
        for t in tables:
            seen = self.epochs.setdefault(t.id, [])
            if not seen or seen[-1].epoch != t.epoch:
                seen.append(Sighting(t.epoch, t.owner, t.seq, at))
        self.now = {t.id: t for t in tables}
        self.reads += 1
        return True

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(WAIT)

    def owned_by(self, worker: str) -> list[str]:
        return [t.id for t in self.now.values() if t.owner == worker and t.phase == "playing"]

    def seqs(self) -> dict[str, int]:
        return {t.id: t.seq for t in self.now.values()}


@dataclass(slots=True)
class Row:
    """A row of a table's history: its seq, its epoch and its position's print for every seat."""

    seq: int
    epoch: int
    prints: tuple[Print, ...]


class History:
    """Every table's history as read so far (the row of seq 0: the table's first position), each
    row's prints indexed by seat and print; the forks found while reading (:attr:`forks`)."""

    def __init__(self, reader: StoreReader) -> None:
        self.reader = reader
        self.rows: dict[str, list[Row]] = {}
        self.index: dict[tuple[str, int, Print], list[int]] = {}
        self.forks: list[str] = []
        self._logs: dict[str, list[str]] = {}
        self._replays: dict[str, Replay] = {}

    def first(self, table: str, save: bytes) -> None:
        """A table's first position (seq 0, epoch 0)."""
        prints, log = save_prints(save)
        self.rows[table] = []
        self._add(table, Row(0, 0, prints))
        self._logs[table] = log
        self._replays[table] = Replay(save)

    def _add(self, table: str, row: Row) -> None:
        self.rows[table].append(row)
        for seat, pr in enumerate(row.prints):
            self.index.setdefault((table, seat, pr), []).append(row.seq)

    def refresh(self) -> None:
        """Read every row written since the last read (the store must answer)."""
        for table, rows in self.rows.items():
            last = rows[-1]
            for written in self.reader.moves_after(table, last.seq):
                seq, epoch = written.seq, written.epoch
                try:
                    save = self._replays[table].feed(written)
                except HistoryError as exc:
                    self.forks.append(f"{table}: {exc}")
                    continue
                prints, log = save_prints(save)
                if seq != last.seq + 1:
                    self.forks.append(f"{table}: seq {seq} follows seq {last.seq}")
                if epoch < last.epoch:
                    self.forks.append(f"{table}: seq {seq} under epoch {epoch} after epoch {last.epoch}")
                if not log_extends(self._logs[table], log):
                    self.forks.append(f"{table}: the log of seq {seq} (epoch {epoch}) does not extend seq {last.seq}'s")
                last = Row(seq, epoch, prints)
                self._add(table, last)
                self._logs[table] = log

    def seqs_of(self, table: str, seat: int, pr: Print) -> list[int]:
        """The seqs of the rows whose position ``seat`` sees as ``pr``."""
        return self.index.get((table, seat, pr), [])

    def written(self) -> int:
        return sum(len(rows) - 1 for rows in self.rows.values())


# ---------------------------------------------------------------------- the seats
@dataclass(frozen=True, slots=True)
class Received:
    """A state a seat received: on its connection ``conn`` (counted from 1), at ``at``."""

    table: str
    seat: int
    stamp: int
    print: Print
    at: float
    conn: int
    save_problem: str | None


@dataclass(slots=True)
class Sent:
    """A move a seat sent, chosen in a state of print ``before`` at ``stamp``: acknowledged
    (``acked``: the print of the state answering it) or refused (``refused``: the reason)."""

    table: str
    seat: int
    move: str
    stamp: int
    before: Print
    at: float
    conn: int
    id: int
    acked: Print | None = None
    acked_at: float | None = None
    refused: str | None = None


@dataclass(frozen=True, slots=True)
class Closed:
    """A seat's connection ended: how (the close code, or the error's name), when."""

    table: str
    seat: int
    conn: int
    code: int | None
    why: str
    at: float


class Player:
    """One scripted seat: connects through the gateway with its token, says hello, and plays its
    first legal move ``think`` seconds (x 0.5 to 1.5) after a state says it is to move; connects
    again whenever its socket closes, until its match is over or the players stop."""

    def __init__(self, players: Players, table: str, seat: int, url: str, think: float, source: str) -> None:
        self.players = players
        self.table = table
        self.seat = seat
        self.url = url
        #: The loopback address it connects from (a door lets only so many sockets in from one).
        self.source = source
        self.think = think
        self.random = random.Random(f"{table}/{seat}")
        self.conn = 0
        self.last: Received | None = None
        self.last_legal: tuple[str, ...] = ()
        self.pending: Sent | None = None
        self.over = False
        self.next_id = 1
        self._mover: asyncio.Task[None] | None = None

    async def run(self, stop: asyncio.Event) -> None:
        while not stop.is_set() and not self.over:
            self.conn += 1
            code: int | None = None
            why = "ended"
            try:
                async with connect(
                    self.url,
                    max_size=p.MAX_MESSAGE,
                    compression=None,
                    open_timeout=WAIT / 2,
                    close_timeout=2,
                    local_addr=(self.source, 0),
                ) as ws:
                    await ws.send(write(p.Hello("kings-corners cluster tests")))
                    async for text in ws:
                        self._receive(ws, text)
                        if self.over:
                            break
            except ConnectionClosed as exc:
                code = exc.rcvd.code if exc.rcvd is not None else None
                why = type(exc).__name__
            except InvalidStatus as exc:
                why = f"refused: HTTP {exc.response.status_code}"
            except (OSError, InvalidHandshake, TimeoutError) as exc:
                why = type(exc).__name__
            self._forget_move()
            self.players.closed.append(Closed(self.table, self.seat, self.conn, code, why, now()))
            if not self.over:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), RECONNECT)  # its pace between two tries

    def _forget_move(self) -> None:
        self.pending = None
        self.last = None
        if self._mover is not None:
            self._mover.cancel()
            self._mover = None

    def _receive(self, ws: ClientConnection, text: str | bytes) -> None:
        message = parse_server(text)
        at = now()
        if isinstance(message, p.StateMsg):
            got = Received(
                self.table, self.seat, message.stamp, view_print(message.view), at, self.conn, message.save_problem
            )
            self.players.received.append(got)
            pending = self.pending
            if pending is not None and got.print != pending.before:
                pending.acked, pending.acked_at = got.print, at
                self.pending = None
            self.last = got
            self.last_legal = message.legal if message.view.to_move == self.seat else ()
            if message.over:
                self.over = True
                return
            self._plan(ws)
        elif isinstance(message, p.RefusedMsg | p.ErrorMsg):
            pending = self.pending
            if pending is not None and message.id == pending.id:
                pending.refused = message.reason if isinstance(message, p.RefusedMsg) else message.message
                self.pending = None
                self.players.refusals.append(pending)
                self._plan(ws)

    def _plan(self, ws: ClientConnection) -> None:
        """A move in ``think`` seconds, when it is this seat's turn and no move of it is unanswered."""
        if self.pending is None and self.last_legal and (self._mover is None or self._mover.done()):
            self._mover = asyncio.create_task(self._move(ws))

    async def _move(self, ws: ClientConnection) -> None:
        await asyncio.sleep(self.think * self.random.uniform(0.5, 1.5))  # the seat's thinking time
        chosen_in = self.last  # the newest state: the move is its first legal one
        if chosen_in is None or self.pending is not None or not self.last_legal:
            return
        move = self.last_legal[0]
        sent = Sent(self.table, self.seat, move, chosen_in.stamp, chosen_in.print, now(), self.conn, self.next_id)
        self.next_id += 1
        self.pending = sent
        self.players.sent.append(sent)
        try:
            await ws.send(write(p.MoveRequest(parse_move(move), chosen_in.stamp, sent.id)))
        except ConnectionClosed:
            return
        self.players.moved(sent)


@dataclass
class Witness:
    """A spectator connected to one worker directly: every state it received and how it ended."""

    url: str
    states: list[tuple[float, int, Print]] = field(default_factory=list)
    code: int | None = None
    ended_at: float | None = None
    opened: bool = False

    async def run(self) -> None:
        try:
            async with connect(self.url, max_size=p.MAX_MESSAGE, compression=None, open_timeout=WAIT / 2) as ws:
                await ws.send(write(p.Hello("kings-corners cluster witness")))
                self.opened = True
                async for text in ws:
                    message = parse_server(text)
                    if isinstance(message, p.StateMsg):
                        self.states.append((now(), message.stamp, view_print(message.view)))
        except ConnectionClosed as exc:
            self.code = exc.rcvd.code if exc.rcvd is not None else None
        except (OSError, InvalidHandshake, TimeoutError):
            pass
        self.ended_at = now()


def loopback(n: int) -> str:
    """The ``n``-th loopback address a seat connects from (127.1.0.1, 127.1.0.2, ...)."""
    return f"127.1.{n // 250}.{n % 250 + 1}"


class Players:
    """The scripted seats of some tables, on an event loop in a thread of their own; what they
    received and sent (lists appended to as it comes: read them with ``list(...)``).

    ``on_sent``: called (in the seats' thread) right after a move is sent, with the move."""

    def __init__(self, gateway: str, tables: Iterable[Table], *, think: float) -> None:
        self.gateway = gateway
        self.received: list[Received] = []
        self.sent: list[Sent] = []
        self.refusals: list[Sent] = []
        self.closed: list[Closed] = []
        self.on_sent: Callable[[Sent], None] | None = None
        self.seats = [
            Player(self, t.id, seat, f"{gateway}/t/{t.id}/seat/{token}", think, loopback(n))
            for n, (t, seat, token) in enumerate((t, s, k) for t in tables for s, k in sorted(t.tokens.items()))
        ]
        self.loop = asyncio.new_event_loop()
        self._stop: asyncio.Event | None = None
        self._witnesses: list[asyncio.Task[None]] = []
        self._thread = threading.Thread(target=self.loop.run_until_complete, args=(self._main(),), daemon=True)
        self._up = threading.Event()

    def start(self) -> Players:
        self._thread.start()
        assert self._up.wait(WAIT), "the players did not start"
        return self

    async def _main(self) -> None:
        self._stop = asyncio.Event()
        tasks = [asyncio.create_task(seat.run(self._stop)) for seat in self.seats]
        self._up.set()
        await self._stop.wait()
        for task in [*tasks, *self._witnesses]:
            task.cancel()
        await asyncio.gather(*tasks, *self._witnesses, return_exceptions=True)
        movers = [seat._mover for seat in self.seats if seat._mover is not None]
        for mover in movers:
            mover.cancel()
        await asyncio.gather(*movers, return_exceptions=True)

    def moved(self, sent: Sent) -> None:
        hook = self.on_sent
        if hook is not None:
            hook(sent)

    def witness(self, url: str) -> Witness:
        """A spectator at ``url`` (a worker's own address), connected before this returns."""
        w = Witness(url)

        async def start() -> None:
            self._witnesses.append(asyncio.create_task(w.run()))

        asyncio.run_coroutine_threadsafe(start(), self.loop).result(WAIT)
        wait_for(lambda: w.opened or w.ended_at is not None, timeout=WAIT, what=f"a witness at {url}")
        return w

    def stop(self) -> None:
        if self._stop is not None:
            self.loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(WAIT)

    def connected(self) -> bool:
        """Whether every seat (its match not over) has a state on the connection it has now."""
        return all(seat.last is not None or seat.over for seat in self.seats)

    def of(self, tables: Iterable[str]) -> list[Player]:
        wanted = set(tables)
        return [s for s in self.seats if s.table in wanted]

    def states_since(self, at: float) -> list[Received]:
        return [r for r in list(self.received) if r.at > at]


# ---------------------------------------------------------------------- the cluster
@dataclass(frozen=True, slots=True)
class Table:
    """A table made for the cluster: its id, its seats' tokens, its first position's save."""

    id: str
    tokens: dict[int, str]
    first: bytes


class Cluster:
    """A cluster on this machine. See the module docs.

    ``kind``: ``postgresql`` (a server of its own) or ``sqlite`` (a file in ``folder``);
    ``worker_options``: more options of every ``kings-corners worker``."""

    def __init__(self, folder: Path, *, kind: str = "postgresql", worker_options: Sequence[str] = ()) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.kind = kind
        self.worker_options = list(worker_options)
        self.pg: PgServer | None = PgServer() if kind == "postgresql" else None
        self.redis = RedisServer()
        self.store_url = self.pg.url if self.pg is not None else f"sqlite://{folder / 'tables.db'}"
        self.reader = StoreReader(self.store_url)
        self.watch = Watch(self.reader)
        self.history = History(self.reader)
        self.tables: list[Table] = []
        self.workers: dict[str, Program] = {}
        self.ended: list[Program] = []
        self.gateway: Program | None = None
        self.players: Players | None = None
        #: When :meth:`arm_kill`'s kill was done.
        self.killed_at = 0.0
        self._count = 0

    # ------------------------------------------------------------------ starting
    def start_services(self) -> None:
        """PostgreSQL (when it is the store), Redis, and the schema (``kings-corners store init``)."""
        if self.pg is not None:
            self.pg.start()
        self.redis.start()
        done = subprocess.run(
            kings_corners("store", "init", "--store", self.store_url),
            capture_output=True,
            text=True,
            timeout=SERVER_WAIT,
            env=os.environ | {"KINGS_CORNERS_DATA": str(self.folder / "init")},
        )
        assert done.returncode == 0, f"store init failed ({done.returncode}): {done.stdout}{done.stderr}"

    def make_tables(self, count: int, rules: Rules = LONG_MATCH, seats: int = 4) -> list[Table]:
        """``count`` new tables of ``seats`` person seats each (owned by no one yet)."""
        from kc_tui.net.cluster.opening import open_store
        from kc_tui.net.cluster.tables import new_table

        store = open_store(self.store_url)
        made: list[Table] = []
        try:
            for _ in range(count):
                people = [Seat(f"P{i + 1}", "human") for i in range(seats)]
                table, tokens = new_table(store, people, rules)
                made.append(Table(table, dict(tokens), self.reader.snapshot(table)))
        finally:
            store.close()
        for t in made:
            self.history.first(t.id, t.first)
        self.tables.extend(made)
        return made

    def start_watch(self) -> None:
        self.watch.start()
        wait_for(lambda: self.watch.reads > 0, timeout=WAIT, what="the store's tables read")

    def start_worker(self, *, cpu: int | None = None) -> Program:
        """A new ``kings-corners worker`` (ids ``w1``, ``w2``, ...), once it serves."""
        self._count += 1
        name = f"w{self._count}"
        args = ["worker", "--store", self.store_url, "--redis", self.redis.url, "--port", "0", "--id", name]
        program = spawn(name, kings_corners(*args, *self.worker_options, cpu=cpu), self.folder / name)
        program.address = program.ready(WORKER_READY).group(2)
        self.workers[name] = program
        return program

    def start_gateway(self) -> Program:
        # Its log at the warning level: at the info level every socket is a line.
        command = kings_corners("gateway", "--redis", self.redis.url, "--port", "0", log_level="warning")
        program = spawn("gateway", command, self.folder / "gateway")
        program.address = program.ready(GATEWAY_READY).group(1)
        self.gateway = program
        return program

    def start_players(self, *, think: float) -> Players:
        assert self.gateway is not None
        self.players = Players(self.gateway.address, self.tables, think=think).start()
        return self.players

    def start(self, *, tables: int, workers: int = 2, think: float = 0.5, rules: Rules = LONG_MATCH) -> None:
        """Everything: the services, ``tables`` tables, the watch, ``workers`` workers, the
        gateway and the players."""
        self.start_services()
        self.make_tables(tables, rules)
        self.start_watch()
        for _ in range(workers):
            self.start_worker()
        self.start_gateway()
        self.start_players(think=think)

    # ------------------------------------------------------------------ faults
    def worker(self, name: str) -> Program:
        return self.workers[name]

    def gone(self, name: str) -> Program:
        """A worker that ended (killed, stopped): not counted as running."""
        program = self.workers.pop(name)
        self.ended.append(program)
        return program

    def owner_of_some_table(self) -> str:
        """A running worker that owns a playing table (waited for)."""

        def found() -> str | None:
            owners = [t.owner for t in self.watch.now.values() if t.phase == "playing"]
            return next((w for w in owners if w in self.workers), None)

        return wait_for(found, timeout=WAIT, what="a running worker owning a table", showing=self.describe)

    def arm_kill(self, worker: str) -> threading.Event:
        """``kill -9`` ``worker`` right after the next move one of its tables' seats sends (in
        the seats' thread, after the send); the event is set once it is done."""
        assert self.players is not None
        program = self.workers[worker]
        tables = set(self.watch.owned_by(worker))
        done = threading.Event()
        players = self.players

        def hook(sent: Sent) -> None:
            if sent.table in tables and not done.is_set():
                program.signal(signal.SIGKILL)
                players.on_sent = None
                self.killed_at = now()
                done.set()

        players.on_sent = hook
        return done

    # ------------------------------------------------------------------ waiting
    def playing(self) -> list[str]:
        return [t.id for t in self.watch.now.values() if t.phase == "playing"]

    def served_and_moving(self, since: Mapping[str, int], moves: int = 2) -> bool:
        """Whether every playing table is owned by a running worker and has had ``moves`` more
        rows written than ``since`` (its seqs then)."""
        running = set(self.workers)
        return all(
            t.owner in running and t.seq >= since.get(t.id, 0) + moves
            for t in self.watch.now.values()
            if t.phase == "playing"
        )

    def wait_served(self, since: Mapping[str, int], moves: int = 2, timeout: float = WAIT) -> None:
        """Wait until every playing table is served with ``moves`` more rows than ``since``, and
        every seat has a state on its connection."""
        players = self.players
        wait_for(
            lambda: self.served_and_moving(since, moves) and (players is None or players.connected()),
            timeout=timeout,
            what=f"every table served by a running worker, {moves} moves on",
            showing=self.describe,
            poll=WATCH_EVERY,
        )

    def describe(self) -> str:
        """What a failed wait shows: every table's owner, epoch and seq, the workers' last lines."""
        tables = ", ".join(f"{t.id[:6]}:{t.owner}@{t.epoch}#{t.seq}" for t in self.watch.now.values())
        workers = "\n".join(
            f"{p.name}({'up' if p.alive else p.popen.returncode}): {' | '.join(p.lines()[-5:])}\n"
            + "\n".join(p.log().splitlines()[-8:])
            for p in [*self.workers.values(), *self.ended]
        )
        gateway = "" if self.gateway is None else " | ".join(self.gateway.lines()[-5:])
        closes = Counter(c.why for c in list(self.players.closed)) if self.players is not None else Counter()
        return f"tables: {tables}\nworkers: {workers}\ngateway: {gateway}\nseats' sockets ended: {dict(closes)}"

    # ------------------------------------------------------------------ checks
    def refresh(self) -> None:
        """Read the history's new rows (waits for the store to answer)."""

        def read() -> bool:
            try:
                self.history.refresh()
            except Exception:
                return False
            return True

        wait_for(read, timeout=WAIT, what="the history read", poll=WATCH_EVERY)

    def received(self, until: float) -> list[Received]:
        """The states the seats received up to ``until``."""
        assert self.players is not None
        return [r for r in list(self.players.received) if r.at <= until]

    def unknown_states(self, until: float) -> list[str]:
        """Every state a seat received up to ``until`` (the history read after it) that is no
        position of its table's history."""
        return [
            f"{r.table} seat {r.seat} at stamp {r.stamp} (connection {r.conn}): {r.print}"
            for r in self.received(until)
            if not self.history.seqs_of(r.table, r.seat, r.print)
        ]

    def stale_states(self, until: float) -> list[str]:
        """Every state a seat received (up to ``until``) after a new epoch of its table was seen
        that shows a position written before that epoch's claim."""
        out: list[str] = []
        claims: dict[str, list[tuple[float, int]]] = {}
        for table, sightings in self.watch.epochs.items():
            rows = self.history.rows.get(table, [])
            marks: list[tuple[float, int]] = []
            for s in sightings:
                first = next((row.seq for row in rows if row.epoch == s.epoch), None)
                marks.append((s.at, s.seq if first is None else first - 1))
            claims[table] = marks
        for r in self.received(until):
            before = [seq for at, seq in claims.get(r.table, []) if at < r.at]
            if not before:
                continue
            seqs = self.history.seqs_of(r.table, r.seat, r.print)
            if seqs and max(seqs) < max(before):
                out.append(f"{r.table} seat {r.seat}: a state of seq {max(seqs)} after the claim at seq {max(before)}")
        return out

    def lost_moves(self, until: float) -> list[str]:
        """Every move acknowledged up to ``until`` whose position is not in its table's history."""
        assert self.players is not None
        return [
            f"{s.table} seat {s.seat}: {s.move} acknowledged, its position not in the history"
            for s in list(self.players.sent)
            if s.acked is not None
            and s.acked_at is not None
            and s.acked_at <= until
            and not self.history.seqs_of(s.table, s.seat, s.acked)
        ]

    def problems(self) -> dict[str, list[str]]:
        """The checks, each with what it found (nothing: it holds), over everything received up
        to now (the history is read after)."""
        until = now()
        self.refresh()
        return {
            "states outside the history": self.unknown_states(until),
            "forks": list(self.history.forks),
            "states from an old owner after the claim": self.stale_states(until),
            "acknowledged moves lost": self.lost_moves(until),
        }

    def acknowledged(self) -> int:
        assert self.players is not None
        return sum(1 for s in list(self.players.sent) if s.acked is not None)

    # ------------------------------------------------------------------ ending
    def close(self) -> None:
        if self.players is not None:
            self.players.stop()
        for program in list(self.workers.values()):
            program.stop()
        if self.gateway is not None:
            self.gateway.stop()
        self.watch.stop()
        self.reader.close()
        self.redis.stop()
        if self.pg is not None:
            self.pg.remove()


@contextlib.contextmanager
def cluster_of(folder: Path, **options: Any) -> Iterator[Cluster]:
    """A :class:`Cluster` (not started), closed at the end."""
    cluster = Cluster(folder, **options)
    try:
        yield cluster
    finally:
        cluster.close()


def first_states_after(players: Players, tables: Iterable[str], at: float) -> dict[tuple[str, int], float]:
    """For every seat of ``tables``: seconds from ``at`` to the first state it received on a
    connection it opened after ``at``."""
    conns = {(s.table, s.seat): s.conn for s in players.of(tables)}
    opened: dict[tuple[str, int], int] = {}
    for c in list(players.closed):
        key = (c.table, c.seat)
        if key in conns and c.at > at:
            opened.setdefault(key, c.conn + 1)
    out: dict[tuple[str, int], float] = {}
    for r in list(players.received):
        key = (r.table, r.seat)
        if key in opened and key not in out and r.conn >= opened[key] and r.at > at:
            out[key] = r.at - at
    return out


__all__ = [
    "LONG_MATCH",
    "WAIT",
    "Cluster",
    "Players",
    "Print",
    "Program",
    "Received",
    "Sent",
    "StoreReader",
    "Table",
    "Watch",
    "Witness",
    "cluster_of",
    "first_states_after",
    "log_extends",
    "save_prints",
    "view_print",
]
