"""``kings-corners worker``: a process that owns tables and serves them, their truth in the store
of the tables (:mod:`~kc_tui.net.store.tablestore`), its lease and their routes in Redis (:mod:`.coord`).

A worker holds a lease (renewed every :data:`~.coord.RENEW_EVERY` seconds from a thread of its
own, :meth:`~.coord.Coordinator.keep`: neither a sweep nor a busy event loop puts a renewal off)
and sweeps for orphans: tables owned by no one (new ones, handed over) or by a worker whose lease
lapsed (:class:`~.coord.Reaper`), every :data:`~.coord.RENEW_EVERY` seconds and at once when told
on :data:`~.coord.SWEEP_CHANNEL`.
Each table it claims (at the store's epoch + 1) is served from its last position, as the
one-process server serves a table (:class:`~kc_tui.net.table_service.ServedTable`, the paths of
:func:`~kc_tui.net.hub.table_route`), and its route set for the gateways.

- Every position is written to the store, fenced by the table's epoch, before any state of it is
  sent (the served table's save sink): as a move row when it is one step of a turn from the row
  written before it, else as a snapshot (a round's first position, among others:
  :func:`.history.row_of`).
- A claimed table is served from its last snapshot with the move rows after it replayed through
  the session's own methods, each checked against its digest (:func:`.history.rebuild`). A
  history that does not replay (a row damaged, or a position that differs from the one written,
  hence from the one its seats were shown) is not served at all: the error is logged (the table
  and the seq, no card), the table is released at once, untouched, for another worker to try
  (one of another version, or after a repair), and this worker never claims it again while it
  runs. Its seats wait, the gateway answering "try again", rather than being shown another
  position than the one they saw. A snapshot that is not a usable save ends the table.
- The store cannot be reached (:class:`~kc_tui.net.store.tablestore.StoreDown`): the table holds, refuses moves
  saying why, and goes on by itself once a write works (the served table's hold).
- Another worker claimed the table (:class:`~kc_tui.net.store.tablestore.Fenced`): the table is dropped at once;
  its clients get nothing but a close (1012: they come back through a gateway).
- Not renewed for :data:`~.coord.SELF_FENCE` seconds (the monotonic clock, asked as every message
  is sent: a process stopped and woken again sends nothing before it notices): nothing is sent to
  anyone, every table is dropped (1012), and the worker takes a lease again and sweeps (its tables
  come back to it at epoch + 1 unless another worker claimed them).
- :meth:`Worker.stop` (SIGTERM, SIGINT): the tables handed over at once: the lease released,
  every table released in the store, the other workers told to sweep, the seats closed (1012).
- A match over: ended in the store (never claimed again), served a while, then closed.

Plain Python and asyncio (no Textual, no Rich).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import secrets
import socket
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from http import HTTPStatus
from typing import TYPE_CHECKING, Any

from kc_tui.config.args import CliError
from kc_tui.i18n import N_, _
from kc_tui.match.saves import SaveError
from kc_tui.match.session import MatchSession
from kc_tui.net import schema
from kc_tui.net.cluster.coord import CALL_TIMEOUT, RENEW_EVERY, SWEEP_CHANNEL, Coordinator, Reaper, open_redis
from kc_tui.net.cluster.lobby_view import listed
from kc_tui.net.cluster.tables import open_checked, private, shown_url, store_problem, turn_seconds
from kc_tui.net.connection import CLOSE_GOING_AWAY
from kc_tui.net.door import files_wanted, raise_file_limit
from kc_tui.net.hosting import base_url
from kc_tui.net.hub import END_LINGER, HubSettings, LiveTable, not_found_text, root_text, table_route
from kc_tui.net.listener import Endpoint, Listener
from kc_tui.net.logs import tell
from kc_tui.net.store.history import HistoryError, over, rebuild, row_of
from kc_tui.net.store.tablestore import Claimed, Fenced, StoreDown, StoreError, TableStore
from kc_tui.net.table_service import ServedTable
from kc_tui.util.printable import one_line

if TYPE_CHECKING:
    from redis.asyncio import Redis

log = logging.getLogger(__name__)

#: The WebSocket close code of a table this worker stops serving (its clients reconnect).
CLOSE_SERVICE_RESTART = 1012
#: The most tables one sweep claims, and one worker serves.
CLAIM_BATCH = 50
MAX_TABLES = 2000
#: The sockets ``kings-corners worker`` takes at most: every seat of its most tables (they come
#: through the gateways, from few addresses: no limit by address).
WORKER_MAX_SOCKETS = 4 * MAX_TABLES
#: A worker's id: letters, digits, ``.``, ``_`` and ``-``.
WORKER_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")
#: Why a table holds while the store cannot be reached (said to its seats by the hold).
STORE_DOWN_TEXT = N_("the store of the tables cannot be reached")
#: Why a dropped table writes nothing (no one is told: its clients are closed).
DROPPED_TEXT = "the table is not this worker's to write"
#: What a finished table's clients are told when it stops being served.
ENDED_TEXT = N_("the match is over: the table is closed")


class WorkerError(Exception):
    """The worker cannot start (its id is held by another): one plain line."""


def new_worker_id() -> str:
    """A new worker's id: this machine's name, the process and a few random letters."""
    host = re.sub(r"[^A-Za-z0-9.-]", "-", socket.gethostname() or "worker")[:40] or "worker"
    return f"{host}-{os.getpid()}-{secrets.token_hex(3)}"


def ready_line(worker: str, address: str) -> str:
    """The line a worker says once it serves (tests and scripts read it)."""
    return f"worker {worker} serving at {address}"


@dataclass(eq=False)
class WorkerTable:
    """A table this worker serves: its served table (the hub's :class:`LiveTable`), the epoch it
    was claimed at, and whether it was dropped (nothing is sent from then on)."""

    live: LiveTable
    epoch: int
    dropped: bool = False
    #: Whether the row written last holds the session's position before its next save (its last
    #: write worked): only then can the next save be a move row.
    follows: bool = True
    ended: bool = False
    end_written: bool = False
    routed: bool = False

    @property
    def id(self) -> str:
        return self.live.id

    @property
    def served(self) -> ServedTable:
        return self.live.served


@dataclass(eq=False)
class _Holder:
    """The cell a served table's quiet check and save sink look through (set once it exists)."""

    table: WorkerTable | None = None


class Worker:
    """Claims tables and serves them. See the module docs.

    ``store``: the open store (it stays the caller's to close); ``redis``: an asyncio client;
    ``worker_id``: its lease's name (None: a new one); ``settings``: how its tables are served
    (the hub's); ``status``: called with a plain line for whoever runs it; ``clock``: the
    monotonic clock of its lease (tests give their own); ``max_sockets``/``per_address``: the
    listener's limits; ``max_tables``: the tables it serves at most."""

    def __init__(
        self,
        store: TableStore,
        redis: Redis,
        *,
        worker_id: str | None = None,
        settings: HubSettings | None = None,
        status: Callable[[str], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
        max_sockets: int = schema.MAX_CONNECTIONS,
        per_address: int | None = None,
        max_tables: int = MAX_TABLES,
        renew_every: float = RENEW_EVERY,
    ) -> None:
        self.store = store
        self.redis = redis
        self.id = worker_id or new_worker_id()
        self.settings = settings or HubSettings()
        self._status = status
        self._clock = clock
        self.max_tables = max_tables
        self.renew_every = renew_every
        self.listener = Listener(
            self.route,
            server_name=self.settings.server_name,
            max_connections=max_sockets,
            per_address=per_address,
            status=status,
        )
        self.tables: dict[str, WorkerTable] = {}
        #: Tables whose history did not replay here: released, and never claimed again by this worker.
        self.set_aside: set[str] = set()
        self.address = ""
        self._coord: Coordinator | None = None
        self._reaper: Reaper | None = None
        #: Tables dropped whose routes are still to be let go of (before the next renewal, which
        #: would write back every route the coordinator remembers).
        self._unrouted: set[str] = set()
        self._sweep_now = asyncio.Event()
        self._loops: list[asyncio.Task[None]] = []
        self._tasks: set[asyncio.Task[None]] = set()
        self._stopped = False

    # ------------------------------------------------------------------ running
    @property
    def coord(self) -> Coordinator:
        """The worker's coordinator (once started)."""
        if self._coord is None:
            raise RuntimeError("the worker is not started")
        return self._coord

    async def start(self, bind: str = "127.0.0.1", port: int = 0, advertise: str | None = None) -> int:
        """Listen, take the lease, claim the orphans there are, then renew and sweep; the bound
        port. ``advertise``: the host the gateways reach this worker at (default: ``bind``).
        :class:`WorkerError` when another worker holds this id's lease; Redis's errors as raised."""
        bound = await self.listener.start(bind, port)
        self.address = base_url(advertise or bind, bound, False)
        self._coord = Coordinator(self.redis, self.id, self.address, clock=self._clock)
        self._reaper = Reaper(self._coord, self.store, clock=self._clock)
        try:
            if not await self._coord.acquire():
                raise WorkerError(
                    _("another worker holds the id {worker}: give this one another (--id)").format(worker=self.id)
                )
        except BaseException:
            await self.listener.close()
            raise
        self._loops = [
            asyncio.create_task(
                self._coord.keep(self._before_renewal, self.renew_every), name=f"worker {self.id} lease"
            )
        ]
        await self._sweep()
        self._loops += [
            asyncio.create_task(self._run(), name=f"worker {self.id}"),
            asyncio.create_task(self._listen_sweeps(), name=f"worker {self.id} sweeps"),
        ]
        self._say(ready_line(self.id, self.address))
        return bound

    async def stop(self, *, handover: bool = True) -> None:
        """Stop serving. ``handover`` (SIGTERM): the lease released, every table released in the
        store (claimed at once by the others, told to sweep), then the seats closed with 1012.
        Without it the tables stay this worker's until its lease lapses."""
        if self._stopped:
            return
        self._stopped = True
        for task in self._loops:
            task.cancel()
        if self._loops:  # each also stops by itself, seeing the worker stopped
            await asyncio.wait(self._loops, timeout=2 * CALL_TIMEOUT)
        tables = list(self.tables.values())
        self.tables.clear()
        for wt in tables:  # nothing more is sent, nor written
            wt.dropped = True
            if wt.live.closer is not None:
                wt.live.closer.cancel()
        if handover and self._coord is not None:
            try:
                await self._coord.release()
            except Exception:
                log.exception("worker %s could not release its lease", self.id)
            for wt in tables:
                if wt.end_written:
                    continue
                try:
                    self.store.release(wt.id, wt.epoch)
                except Exception:
                    log.exception("table %s could not be handed over", wt.id)
            try:
                await self._coord.nudge()
            except Exception:
                log.exception("worker %s could not tell the others to sweep", self.id)
        await asyncio.gather(*(wt.served.close() for wt in tables), return_exceptions=True)
        await self.listener.close()
        for task in list(self._tasks):
            task.cancel()
        if self._coord is not None:
            with contextlib.suppress(Exception):
                await self._coord.aclose()

    def _background(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _say(self, line: str) -> None:
        tell(log, self._status, line)

    # ------------------------------------------------------------------ paths
    def route(self, path: str) -> Endpoint | tuple[int, str]:
        """The endpoint of a WebSocket's path (a table's ``/t/<table>/seat/<token>`` or
        ``/t/<table>/watch``), or the status and line it is answered with."""
        if path in ("", "/"):
            return HTTPStatus.OK, root_text()
        parts = path.split("/")
        if len(parts) >= 4 and parts[1] == "t" and parts[2]:
            wt = self.tables.get(parts[2])
            live = None if wt is None or wt.dropped or self._fenced_now() else wt.live
            return table_route(live, "/".join(parts[3:]))
        return HTTPStatus.NOT_FOUND, not_found_text()

    # ------------------------------------------------------------------ the lease
    def _before_renewal(self) -> None:
        """Every :attr:`renew_every` seconds on the event loop (:meth:`~.coord.Coordinator.keep`):
        a worker fenced drops its tables (only then is it renewed again), and the routes and
        listings of the tables it dropped are let go of (no renewal writes them back)."""
        self._fenced_now()
        for table in self._unrouted:
            self.coord.let_go(table)

    async def _run(self) -> None:
        """Sweep for orphans every :attr:`renew_every` seconds (at once when told to)."""
        while not self._stopped:
            self._sweep_now.clear()  # before the tick: a sweep asked for during it is not lost
            try:
                await self._tick()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("worker %s: a sweep failed; it goes on", self.id)
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.renew_every):
                    await self._sweep_now.wait()

    async def _tick(self) -> None:
        coord = self.coord
        self._fenced_now()  # first: a worker woken after its lease lapsed drops its tables
        for table in list(self._unrouted):  # forgotten by the coordinator even when Redis is down
            self._unrouted.discard(table)
            try:
                await coord.drop_route(table)
            except Exception as exc:
                log.info("worker %s: %s's route lapses with the lease (%s)", self.id, table, exc)
        if coord.fenced():  # its tables dropped: the lease taken again now, not at the next renewal
            await coord.renew()
            if coord.fenced():
                return
        for wt in list(self.tables.values()):
            if not wt.routed:
                await self._set_route(wt)
            if wt.ended and not wt.end_written:
                self._end(wt)
        await self._sweep()

    async def _listen_sweeps(self) -> None:
        """Sweep at once whenever a worker asks (:meth:`~.coord.Coordinator.nudge`: it handed its
        tables over on :data:`~.coord.SWEEP_CHANNEL`), and whenever the subscription is made
        (again: a nudge may have been missed). Stops once the worker stops, even when a
        cancellation was lost in a read's timeout (Python 3.11's ``asyncio.timeout``)."""
        while not self._stopped:
            pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
            try:
                async with asyncio.timeout(CALL_TIMEOUT):
                    await pubsub.subscribe(SWEEP_CHANNEL)
                self._sweep_now.set()
                while not self._stopped:
                    message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=self.renew_every)
                    if message is not None and message.get("type") == "message":
                        self._sweep_now.set()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.info("worker %s: the sweep channel was lost (%s); subscribing again", self.id, exc)
            finally:
                with contextlib.suppress(Exception):
                    async with asyncio.timeout(CALL_TIMEOUT):
                        await pubsub.aclose()
            if not self._stopped:
                await asyncio.sleep(self.renew_every)

    def _fenced_now(self) -> bool:
        """Whether this worker may not serve now (its lease not renewed for too long); every
        table it served is dropped the first time it is asked so. Asked as every message is sent."""
        coord = self._coord
        if coord is None or not coord.fenced():
            return False
        if self.tables:
            log.warning("worker %s: its lease was not renewed in time: it drops its tables", self.id)
            for wt in list(self.tables.values()):
                self._drop(wt)
        return True

    # ------------------------------------------------------------------ tables
    async def _sweep(self) -> None:
        """Claim the orphans this worker has room for and serve them."""
        room = min(CLAIM_BATCH, self.max_tables - len(self.tables))
        if self._reaper is None or room <= 0 or self._stopped or self.coord.fenced():
            return
        claimed = await self._reaper.sweep(set(self.tables) | self.set_aside, room)
        for table in claimed:
            try:
                await self._serve(table)
            except Exception:
                log.exception("table %s could not be served", table.id)

    async def _serve(self, claimed: Claimed) -> None:
        """Serve a claimed table from its last snapshot and the move rows after it, and route it
        here (a history that does not replay: set aside, see the module docs)."""
        if not claimed.entries and over(claimed.snapshot):  # its last position written, its end not yet
            self._end_quietly(claimed.id, claimed.epoch)
            return
        try:
            session = rebuild(claimed.snapshot, claimed.entries)
        except HistoryError as exc:
            log.error("table %s is not served: %s; it is released for another worker", claimed.id, exc)
            self._set_aside(claimed)
            return
        except (SaveError, ValueError) as exc:
            log.error("table %s cannot be served: its position is not usable (%s)", claimed.id, exc)
            self._end_quietly(claimed.id, claimed.epoch)
            return
        if session.match.over:
            self._end_quietly(claimed.id, claimed.epoch)
            return
        holder = _Holder()

        def quiet() -> bool:
            return holder.table is None or holder.table.dropped or self._fenced_now()

        def sink(data: bytes) -> str | None:
            assert holder.table is not None
            return self._write(holder.table, session, data)

        served = ServedTable(
            session,
            table_id=claimed.id,
            stand_in=self.settings.stand_in,
            ai_delay=self.settings.ai_delay,
            round_pause=self.settings.round_pause,
            stand_in_think_ms=self.settings.stand_in_think_ms,
            server_name=self.settings.server_name,
            turn_seconds=turn_seconds(claimed.record),
            on_change=self._changed,
            quiet=quiet,
        )
        served.close_code = CLOSE_SERVICE_RESTART
        live = LiveTable(claimed.id, served, [None] * session.match.n, private(claimed.record))
        live.hashes = {seat: list(hashes) for seat, hashes in claimed.hashes.items()}
        wt = WorkerTable(live, claimed.epoch)
        holder.table = wt
        session.save_sink = sink
        session.keep_save_at_end = True
        self.tables[claimed.id] = wt
        self._unrouted.discard(claimed.id)
        await served.start()
        await self._set_route(wt)
        if not wt.live.private:
            self._background(self._list(wt, listed(served)))
        log.info("table %s is served at epoch %d, round %d", claimed.id, claimed.epoch, session.match.number)

    async def _set_route(self, wt: WorkerTable) -> None:
        try:
            await self.coord.set_route(wt.id, wt.epoch)
        except Exception as exc:
            log.warning("table %s's route could not be set (%s); tried again", wt.id, exc)
            return
        wt.routed = True
        if wt.dropped:  # dropped meanwhile: the route goes before the next renewal writes it back
            self._unrouted.add(wt.id)

    def _set_aside(self, claimed: Claimed) -> None:
        """A claimed table this worker cannot serve: released at once, never claimed again here."""
        self.set_aside.add(claimed.id)
        try:
            self.store.release(claimed.id, claimed.epoch)
        except StoreError as exc:
            log.warning("table %s could not be released (%s): it goes with this worker's lease", claimed.id, exc)

    def _write(self, wt: WorkerTable, session: MatchSession, data: bytes) -> str | None:
        """The save sink of a served table: its position written under its epoch (a move row, or
        a snapshot: :func:`.history.row_of`); None once it is, else why not (the table holds)."""
        if wt.dropped or self._fenced_now():
            return DROPPED_TEXT
        row, snapshot = row_of(session, data, wt.follows)
        wt.follows = False
        try:
            self.store.write(wt.id, wt.epoch, row, snapshot=snapshot)
        except Fenced:
            log.warning("table %s was claimed by another worker: dropped", wt.id)
            self._drop(wt)
            return DROPPED_TEXT
        except StoreDown as exc:
            log.warning("table %s holds: %s", wt.id, exc)
            return _(STORE_DOWN_TEXT)
        except StoreError as exc:  # the store's own words: its disk full, its file damaged
            log.warning("table %s holds: %s", wt.id, exc)
            return _line(exc)
        wt.follows = True
        return None

    def _drop(self, wt: WorkerTable) -> None:
        """Stop serving ``wt`` at once: nothing more is sent to its clients but a close (1012)."""
        wt.dropped = True
        if self.tables.get(wt.id) is wt:
            del self.tables[wt.id]
        self._unrouted.add(wt.id)
        if wt.live.closer is not None:
            wt.live.closer.cancel()
        self._background(self._list(wt, None))
        self._background(wt.served.close())
        self._sweep_now.set()

    def _changed(self, served: ServedTable) -> None:
        wt = self.tables.get(served.table_id)
        if wt is None or wt.served is not served or wt.ended:
            return
        if not wt.live.private:
            self._background(self._list(wt, listed(served)))
        if not served.over:
            return
        wt.ended = True
        self._end(wt)
        wt.live.closer = asyncio.create_task(self._linger(wt), name=f"ended {wt.id}")

    async def _list(self, wt: WorkerTable, shown: dict[str, Any] | None) -> None:
        """``wt``'s listing in Redis (None: removed), unless the table was dropped meanwhile."""
        try:
            if shown is not None and not wt.dropped and self.tables.get(wt.id) is wt:
                await self.coord.set_listing(wt.id, shown)
            elif shown is None:
                await self.coord.drop_listing(wt.id)
        except Exception as exc:  # kept by the coordinator, written back at the next renewal
            log.info("table %s's listing could not be written: %s", wt.id, _line(exc))

    def _end(self, wt: WorkerTable) -> None:
        """The match is over: the table ended in the store (tried again at the next renewal
        while the store cannot be reached)."""
        try:
            self.store.end(wt.id, wt.epoch)
        except Fenced:
            self._drop(wt)
            return
        except StoreError as exc:
            log.warning("table %s could not be ended yet: %s", wt.id, exc)
            return
        wt.end_written = True

    def _end_quietly(self, table: str, epoch: int) -> None:
        try:
            self.store.end(table, epoch)
        except (Fenced, StoreError) as exc:
            log.warning("table %s could not be ended: %s", table, exc)

    async def _linger(self, wt: WorkerTable) -> None:
        await asyncio.sleep(END_LINGER)
        if self.tables.get(wt.id) is wt:
            del self.tables[wt.id]
        wt.served.close_code = CLOSE_GOING_AWAY  # over: nothing to come back to
        await wt.served.close(ENDED_TEXT)
        await self._list(wt, None)
        with contextlib.suppress(Exception):
            await self.coord.forget(wt.id)


def _line(exc: BaseException) -> str:
    return one_line(str(exc).strip() or type(exc).__name__, 300)


def serve_worker(
    store_url: str,
    redis_url: str,
    *,
    bind: str,
    port: int,
    worker_id: str | None,
    advertise: str | None,
    status: Callable[[str], None],
) -> int:
    """``kings-corners worker``: serve until SIGTERM or SIGINT, then hand the tables over; 0.
    Raises :class:`~kc_tui.config.args.CliError` (one line) when the store or Redis cannot be
    used, or the port cannot be listened on."""
    store = open_checked(store_url)
    try:
        try:
            store.row("-")  # reached, and its schema there
        except StoreError as exc:
            raise store_problem(store_url, exc) from None
        return asyncio.run(
            _serve_worker(
                store, redis_url, bind=bind, port=port, worker_id=worker_id, advertise=advertise, status=status
            )
        )
    finally:
        store.close()


async def connect_redis(url: str) -> Redis:
    """A client of the Redis at ``url`` (:func:`~.coord.open_redis`), answering a ping;
    :class:`CliError` (one line) for an address that is not Redis's or a Redis not reached."""
    from redis.exceptions import RedisError

    try:
        client = open_redis(url)
    except (ValueError, TypeError) as exc:
        raise CliError(
            _("not a Redis address: {url} ({problem})").format(url=shown_url(url), problem=_line(exc))
        ) from None
    try:
        async with asyncio.timeout(2 * CALL_TIMEOUT):
            await client.ping()
    except (RedisError, OSError, TimeoutError) as exc:
        await client.aclose()
        raise CliError(
            _("Redis at {url} cannot be reached: {problem}").format(url=shown_url(url), problem=_line(exc))
        ) from None
    return client


def _loop_errors(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """What the loop could not hand to anyone goes to the log, never to the terminal."""
    log.error("%s", context.get("message", "an error in the event loop"), exc_info=context.get("exception"))


async def _serve_worker(
    store: TableStore,
    redis_url: str,
    *,
    bind: str,
    port: int,
    worker_id: str | None,
    advertise: str | None,
    status: Callable[[str], None],
) -> int:
    from redis.exceptions import RedisError

    from kc_tui import __version__
    from kc_tui.net.hosting import STOP_SIGNALS

    loop = asyncio.get_running_loop()
    loop.set_exception_handler(_loop_errors)
    stop = asyncio.Event()
    for sig in STOP_SIGNALS:
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)
    client = await connect_redis(redis_url)
    raise_file_limit(files_wanted(WORKER_MAX_SOCKETS))
    try:
        worker = Worker(
            store,
            client,
            worker_id=worker_id,
            settings=HubSettings(server_name=f"kings-corners {__version__}"),
            status=status,
            max_sockets=WORKER_MAX_SOCKETS,
        )
        try:
            await worker.start(bind, port, advertise)
        except OSError as exc:
            raise CliError(
                _("cannot listen on {address}: {reason}").format(
                    address=f"{bind}:{port}", reason=one_line(exc.strerror or str(exc))
                )
            ) from None
        except WorkerError as exc:
            raise CliError(str(exc)) from None
        except RedisError as exc:
            await worker.stop(handover=False)
            raise CliError(_("Redis cannot be used: {problem}").format(problem=_line(exc))) from None
        try:
            await stop.wait()
        finally:
            await worker.stop(handover=True)
        tell(log, status, _("worker {worker} stopped: its tables were handed over").format(worker=worker.id))
        return 0
    finally:
        with contextlib.suppress(Exception):
            await client.aclose()


__all__ = [
    "CLAIM_BATCH",
    "CLOSE_SERVICE_RESTART",
    "DROPPED_TEXT",
    "ENDED_TEXT",
    "MAX_TABLES",
    "STORE_DOWN_TEXT",
    "WORKER_ID",
    "WORKER_MAX_SOCKETS",
    "Worker",
    "WorkerError",
    "WorkerTable",
    "connect_redis",
    "new_worker_id",
    "ready_line",
    "serve_worker",
]
