"""What may be lost and rebuilt, in Redis: the workers' leases, the route of every table to its
owner, the tables' listings; and the reaper that claims the tables whose owner's lease lapsed.

Keys (all prefixed ``kc:``; no persistence needed):

- ``kc:w:{worker}`` = the worker's address (``ws://HOST:PORT``), ``SET NX PX`` :data:`LEASE_MS`:
  the worker's **lease**. It is renewed every :data:`RENEW_EVERY` seconds by one Lua script that
  compares the value with the worker's address before it extends anything. :meth:`~Coordinator.keep`
  renews it from a thread of its own, on a connection of its own: a renewal waits neither for the
  worker's event loop (busy with its tables) nor for a connection of its pool, so a worker busy
  but alive keeps its lease; a worker whose event loop has not run for :data:`LOOP_STALL`
  seconds (stuck) is not renewed, and its tables go to other workers.
- ``kc:t:{table}`` = ``"{worker} {epoch}"``: the table's **route** to its owner.
- ``kc:l:{table}`` = ``"{worker} {listing as JSON}"``: the table's **listing** for the lobby.

Routes and listings live only as long as their worker's lease: each is written with the lease's
expiry and extended by the same script that renews the lease. Nothing but its owner removes a
route or a listing (every removal compares the owner first, in a script). The
:class:`Coordinator` keeps the routes and listings its worker holds in memory, so after a
``FLUSHALL`` or a Redis restart the next :meth:`~Coordinator.renew` takes the lease again and
writes every one of them back; the store (PostgreSQL or SQLite) stays the truth of who owns what.

Channels: :data:`ROUTES_CHANNEL` tells every route written (JSON ``{"table", "worker", "address",
"epoch"}``), :data:`LISTINGS_CHANNEL` every listing written or removed (JSON ``{"table",
"listing"}``, ``listing`` null when removed), :data:`SWEEP_CHANNEL` asks every worker's reaper to
look for orphans at once (a worker handing its tables over).

A worker's clock of its own lease is the monotonic clock: a worker whose last renewal that worked
was *sent* more than :data:`SELF_FENCE` seconds ago is :meth:`~Coordinator.fenced` and serves
nothing, well before its lease (:data:`LEASE_MS`) can lapse and another worker claim its tables.
A renewal's answer counts whenever it is read within :data:`SELF_FENCE` of its sending: Redis ran
the script after it was sent, so the lease it extended lasts at least :data:`LEASE_MS` from then.
Once the renewing thread has found the last renewal more than :data:`SELF_FENCE` old (the process
was stopped, Redis could not be reached), it renews no more, and the worker stays fenced, until
the worker has been told it was fenced (:meth:`~Coordinator.keep`'s ``before``: it drops its
tables there): a renewal never makes a worker serve again tables it may have lost meanwhile.

Every other call is bounded by :data:`CALL_TIMEOUT`; Redis that cannot be reached is
:class:`RedisDown` (``renew`` and ``acquire`` answer False, ``release`` logs it), never a hang.

A listing is written (and published) only when it differs from the one last written for its
table: a table's moves do not change its listing.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from redis.asyncio import BlockingConnectionPool, ConnectionPool, Redis
from redis.asyncio.connection import AbstractConnection
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.exceptions import RedisError

from kc_tui.engine.strict import loads
from kc_tui.net.store.tablestore import PLAYING, Claimed, StoreError, TableStore

log = logging.getLogger(__name__)

#: Milliseconds a lease (and every route and listing of its worker) lives unless renewed.
LEASE_MS = 5000
#: Seconds between two renewals of a worker's lease.
RENEW_EVERY = 1.0
#: Seconds without a renewal that worked (monotonic clock) after which a worker serves nothing.
SELF_FENCE = 3.0
#: Seconds a worker's lease must have been missing, as a sweeper saw it, before its tables are orphans.
ORPHAN_GRACE = 2.0
#: Seconds a worker's event loop may go without running :meth:`Coordinator.keep`'s task before its
#: lease is not renewed any more: a loop that far behind is taken as stuck, its tables let go to
#: other workers. Well above the lag of a loop merely overloaded (seconds), which keeps its lease.
LOOP_STALL = 20.0
#: Seconds any one call to Redis may take before it counts as Redis being down.
CALL_TIMEOUT = 2.0
#: Seconds between two attempts to subscribe again after the subscription's connection was lost.
RESUBSCRIBE_PAUSE = 0.5
#: Seconds a subscription waits for a message before it looks again (a bound, not a delay).
LISTEN_POLL = 1.0
#: The most connections :func:`open_redis`'s pool opens (each subscription holds one).
MAX_CONNECTIONS = 32

ROUTES_CHANNEL = "kc:routes"
LISTINGS_CHANNEL = "kc:listings"
SWEEP_CHANNEL = "kc:sweep"

LEASE_PREFIX = "kc:w:"
ROUTE_PREFIX = "kc:t:"
LISTING_PREFIX = "kc:l:"
#: A table routed to some worker whose match has not ended (no expiry: see Coordinator.known).
KNOWN_PREFIX = "kc:k:"

#: A worker's id: what its keys' values begin with, so no spaces.
WORKER_ID = re.compile(r"[A-Za-z0-9._:@-]{1,100}")

T = TypeVar("T")

# The lease: ours -> extended; missing -> taken (SET NX); another's -> nothing (0). Then each of the
# worker's keys: missing -> written back; its owner's -> extended; another's -> left, and named in
# the answer (its index among the keys) so the worker forgets it.
# KEYS: the lease, then the routes and listings. ARGV: address, lease ms, "{worker} ", then each
# key's value.
_RENEW = """
local lease = redis.call('GET', KEYS[1])
local answer
if lease == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  answer = {1}
elseif not lease then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  answer = {2}
else
  return {0}
end
local owner = ARGV[3]
for i = 2, #KEYS do
  local have = redis.call('GET', KEYS[i])
  if not have then
    redis.call('SET', KEYS[i], ARGV[i + 2], 'PX', ARGV[2])
  elseif string.sub(have, 1, #owner) == owner then
    redis.call('PEXPIRE', KEYS[i], ARGV[2])
  else
    answer[#answer + 1] = i - 1
  end
end
return answer
"""

# Deletes the lease if it is ours, then those of the keys that are this worker's; nothing at all when
# the lease is another's. The answer: the indices (among the keys after the lease) deleted.
# KEYS: the lease, then the routes and listings. ARGV: address, "{worker} ".
_RELEASE = """
local lease = redis.call('GET', KEYS[1])
if lease and lease ~= ARGV[1] then
  return {}
end
if lease then
  redis.call('DEL', KEYS[1])
end
local owner = ARGV[2]
local gone = {}
for i = 2, #KEYS do
  local have = redis.call('GET', KEYS[i])
  if have and string.sub(have, 1, #owner) == owner then
    redis.call('DEL', KEYS[i])
    gone[#gone + 1] = i - 1
  end
end
return gone
"""

# A route, unless the table's route is of a later epoch already (a later owner's), then published;
# the table marked known (served by some worker until its match ends: the gateways wait for a new
# owner of a known table instead of answering that there is none).
# KEYS: the route, the known mark. ARGV: "{worker} {epoch}", lease ms, epoch, channel, message.
_SET_ROUTE = """
local have = redis.call('GET', KEYS[1])
if have then
  local epoch = tonumber(string.match(have, ' (%d+)$'))
  if epoch and epoch > tonumber(ARGV[3]) then
    return 0
  end
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('SET', KEYS[2], '1')
redis.call('PUBLISH', ARGV[4], ARGV[5])
return 1
"""

# Deletes the key if it is this worker's, then publishes (when a channel is given).
# KEYS: the key. ARGV: "{worker} ", channel or "", message.
_DROP = """
local have = redis.call('GET', KEYS[1])
if have and string.sub(have, 1, #ARGV[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  if ARGV[2] ~= '' then
    redis.call('PUBLISH', ARGV[2], ARGV[3])
  end
  return 1
end
return 0
"""

# The route and the address of its worker's lease; nil when either is missing.
# KEYS: the route. ARGV: the leases' prefix.
_ROUTE = """
local have = redis.call('GET', KEYS[1])
if not have then
  return nil
end
local worker, epoch = string.match(have, '^(%S+) (%d+)$')
if not worker then
  return nil
end
local address = redis.call('GET', ARGV[1] .. worker)
if not address then
  return nil
end
return {worker, epoch, address}
"""


class RedisDown(RedisError):
    """Redis cannot be reached now, or did not answer within :data:`CALL_TIMEOUT`: one plain line."""


@dataclass(frozen=True, slots=True)
class Route:
    """Where a table is served: its owner, the owner's address, the epoch the owner claimed it at."""

    table: str
    worker: str
    address: str
    epoch: int


def open_redis(url: str) -> Redis:
    """A client of the Redis at ``url`` (``redis://HOST:PORT/DB``) for a worker or a gateway: a
    blocking pool of at most :data:`MAX_CONNECTIONS`, connections given :data:`CALL_TIMEOUT` to
    open, one quick retry (a Redis that is down is said at once, not after seconds of retries).
    ``ValueError`` for a bad address; nothing is connected until the first call."""
    pool = BlockingConnectionPool.from_url(
        url,
        max_connections=MAX_CONNECTIONS,
        timeout=CALL_TIMEOUT,
        socket_connect_timeout=CALL_TIMEOUT,
        retry=Retry(ExponentialBackoff(cap=0.1, base=0.01), 1),
    )
    return Redis(connection_pool=pool)


def _text(value: object) -> str:
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)


def own_connection(redis: Redis) -> Redis:
    """A client of the same Redis as ``redis`` holding one connection of its own (a pool of one
    beside ``redis``'s): what goes through it never waits for a connection of ``redis``'s pool.
    Nothing is connected until its first call; close it with ``aclose(close_connection_pool=True)``."""
    pool = redis.connection_pool
    settings = {k: v for k, v in pool.connection_kwargs.items() if k != "maint_notifications_pool_handler"}
    own = ConnectionPool(connection_class=pool.connection_class, max_connections=1, **settings)
    return Redis(connection_pool=own, single_connection_client=True)


async def _bounded(call: Awaitable[T], what: str, timeout: float = CALL_TIMEOUT) -> T:
    """``call``'s answer; :class:`RedisDown` when Redis fails it or does not answer within
    ``timeout`` seconds."""
    try:
        async with asyncio.timeout(timeout):
            return await call
    except (RedisError, OSError, TimeoutError) as exc:
        if isinstance(exc, RedisDown):
            raise
        raise RedisDown(f"Redis did not answer ({what}): {exc or type(exc).__name__}") from exc


class _Reconnects:
    """Counts the connections a subscription's connection makes again by itself (redis-py
    subscribes again on its own: what was published meanwhile is lost)."""

    def __init__(self) -> None:
        self.count = 0

    def connected(self, connection: AbstractConnection) -> None:
        self.count += 1


class Coordinator:
    """One worker's lease, and the routes and listings of the tables it serves. A gateway uses one
    too (its worker's id and address unused) for :meth:`route`, :meth:`route_changes` and
    :meth:`listings`.

    ``lease_redis``: the client the lease is renewed and released through (default: a connection
    of its own to ``redis``'s server, :func:`own_connection`; :meth:`aclose` closes it)."""

    def __init__(
        self,
        redis: Redis,
        worker: str,
        address: str,
        *,
        lease_ms: int = LEASE_MS,
        clock: Callable[[], float] = time.monotonic,
        self_fence: float = SELF_FENCE,
        lease_redis: Redis | None = None,
    ) -> None:
        if not WORKER_ID.fullmatch(worker):
            raise ValueError(f"a worker's id is 1 to 100 letters, digits or ._:@- (not {worker!r})")
        self.redis = redis
        self.worker = worker
        self.address = address
        self.lease_ms = lease_ms
        self.clock = clock
        self.self_fence = self_fence
        #: ``clock()`` when the last acquire or renewal that worked was sent (None: never).
        self.last_renewed: float | None = None
        #: Set by the renewing thread once the last renewal was too old; cleared by :meth:`keep`
        #: after its ``before`` (the worker dropped its tables).
        self.lapsed = False
        #: The worker was told it lapsed (and dropped its tables): the next renewal may take the
        #: lease again after a gap.
        self._told = False
        #: ``clock()`` when :meth:`keep`'s task last ran on the worker's event loop.
        self._beat = 0.0
        self._keeper: _Keeper | None = None
        #: How many renewals found the lease it held gone (lapsed, a FLUSHALL, Redis restarted) and took it again.
        self.lapses = 0
        self._owner = f"{worker} "
        self._lease_key = LEASE_PREFIX + worker
        self._routes: dict[str, int] = {}
        self._listings: dict[str, str] = {}
        #: Each table's listing as last written to Redis (the same one is not written again).
        self._listed: dict[str, str] = {}
        #: The listings' writes in flight, and how many were begun, by table.
        self._listing_writes: dict[str, int] = {}
        self._listing_begun: dict[str, int] = {}
        self._own_lease_redis = lease_redis is None
        self._lease_redis = own_connection(redis) if lease_redis is None else lease_redis
        # One renewal or release at a time: a release never runs beside a renewal that would take
        # the lease again behind it.
        self._lease_lock = asyncio.Lock()
        self._renew = redis.register_script(_RENEW)
        self._release = redis.register_script(_RELEASE)
        self._set_route = redis.register_script(_SET_ROUTE)
        self._drop = redis.register_script(_DROP)
        self._route = redis.register_script(_ROUTE)

    # The lease

    def fenced(self) -> bool:
        """Whether this worker may not serve: it never held its lease, its last renewal that
        worked was sent more than ``self_fence`` seconds ago, or it was found so by the renewing
        thread and the worker has not been told yet (:attr:`lapsed`)."""
        return self.lapsed or self._late()

    def _late(self) -> bool:
        return self.last_renewed is None or self.clock() - self.last_renewed > self.self_fence

    def held_routes(self) -> dict[str, int]:
        """The routes this worker holds: table -> epoch."""
        return dict(self._routes)

    def held_listings(self) -> list[str]:
        """The tables whose listing this worker holds."""
        return list(self._listings)

    async def keep(self, before: Callable[[], object] | None = None, every: float = RENEW_EVERY) -> None:
        """Renew the lease every ``every`` seconds until cancelled, from a thread of its own (its
        own event loop and connection: see the module docs), each renewal due ``every`` after the
        one before was sent. This task, on the worker's event loop, calls ``before`` every
        ``every`` seconds: a worker that finds itself :meth:`fenced` drops its tables there; after
        it, a worker found :attr:`lapsed` is renewed again. The thread renews only while this task
        has run within :data:`LOOP_STALL` seconds."""
        keeper = _Keeper(self, every)
        self._keeper = keeper
        self._beat = self.clock()
        keeper.start(asyncio.get_running_loop())
        try:
            while True:
                lapsed = self.lapsed
                if before is not None:
                    try:
                        before()
                    except Exception:
                        log.exception("worker %s: before a renewal", self.worker)
                if lapsed:
                    self._told = True
                    self.lapsed = False
                self._beat = self.clock()
                await asyncio.sleep(every)
        finally:
            keeper.stop()

    async def _stop_keeping(self) -> None:
        """The renewing thread stopped (its renewal in flight answered or timed out)."""
        keeper, self._keeper = self._keeper, None
        if keeper is not None:
            keeper.stop()
            await asyncio.to_thread(keeper.thread.join, self.self_fence + CALL_TIMEOUT)

    async def aclose(self) -> None:
        """Stop renewing, and close the lease's own connections (the lease is left as it is:
        :meth:`release` first to let go of it)."""
        await self._stop_keeping()
        if self._own_lease_redis:
            await self._lease_redis.aclose(close_connection_pool=True)

    async def acquire(self) -> bool:
        """Take the lease (``SET NX PX``); True when this worker holds it (taken now, or held
        already: then extended). Same as :meth:`renew`."""
        return await self.renew()

    async def renew(self) -> bool:
        """One script: the lease ours -> extended with every route and listing of this worker;
        missing (lapsed, ``FLUSHALL``, Redis restarted) -> taken again, and every route and
        listing this worker holds written back; another's -> False and nothing changed. A key
        another worker has taken meanwhile is left to it and forgotten here. Redis down -> False.
        Sent on the lease's own connection; its answer counts when read within ``self_fence``
        seconds of its sending (the lease is then held from the sending on).

        A worker that finds itself :meth:`fenced` drops its tables (and their routes) before it
        renews: what it holds when it renews is written back."""
        async with self._lease_lock:
            return await self._renewed(self._lease_redis, self._forget)

    async def _renewed(
        self,
        client: Redis,
        forget: Callable[[list[tuple[str, str]], dict[str, int], dict[str, str]], None],
        *,
        continuous: bool = False,
    ) -> bool:
        """One renewal through ``client``; ``forget`` is told the keys another worker took.
        ``continuous``: only while the last renewal that worked is recent enough, or once the
        worker was told it lapsed (else :attr:`lapsed` is set, and nothing is sent)."""
        routes = dict(self._routes)
        listings = dict(self._listings)
        keys = [self._lease_key]
        values: list[str] = []
        for table, epoch in routes.items():
            keys.append(ROUTE_PREFIX + table)
            values.append(f"{self.worker} {epoch}")
        for table, listing in listings.items():
            keys.append(LISTING_PREFIX + table)
            values.append(f"{self.worker} {listing}")
        args: list[str | int] = [self.address, self.lease_ms, self._owner, *values]
        sent = self.clock()
        if continuous and not self._told and (self.last_renewed is None or sent - self.last_renewed > self.self_fence):
            self.lapsed = self.last_renewed is not None
            return False
        try:
            answer = await _bounded(self._renew(keys=keys, args=args, client=client), "renew", timeout=self.self_fence)
        except RedisDown as exc:
            log.info("worker %s: the lease was not renewed: %s", self.worker, exc)
            return False
        state, *foreign = (int(n) for n in answer)
        if state == 0:
            log.warning("worker %s: the lease is another's", self.worker)
            return False
        last = self.last_renewed
        held = last is not None
        self.last_renewed = sent if last is None else max(last, sent)
        self._told = False
        if state == 2 and routes:
            await self._mark_known(client, routes)
        if state == 2 and held:
            self.lapses += 1
            log.info(
                "worker %s: the lease was taken again; %d routes and %d listings written back",
                self.worker,
                len(routes),
                len(listings),
            )
        if foreign:
            forget([(keys[i], values[i - 1]) for i in foreign], routes, listings)
        return True

    def _forget(self, taken: list[tuple[str, str]], routes: dict[str, int], listings: dict[str, str]) -> None:
        """Forget the keys another worker holds now (unless written again since the renewal)."""
        for key, _ in taken:
            if key.startswith(ROUTE_PREFIX):
                table = key.removeprefix(ROUTE_PREFIX)
                if self._routes.get(table) == routes[table]:
                    del self._routes[table]
            else:
                table = key.removeprefix(LISTING_PREFIX)
                if self._listings.get(table) == listings[table]:
                    del self._listings[table]
                    self._listed.pop(table, None)
            log.info("worker %s: %s is another worker's now", self.worker, key)

    async def release(self) -> None:
        """Let go of the lease, and of this worker's routes and listings (each only if it is this
        worker's; nothing at all if the lease is another's). Forgets them all; fenced from now on.
        Redis down: logged (the keys lapse with the lease). Renewing (:meth:`keep`) stops first;
        the lease's own connection is closed after."""
        await self._stop_keeping()
        async with self._lease_lock:
            await self._released()

    async def _released(self) -> None:
        routes = list(self._routes)
        listings = list(self._listings)
        self._routes.clear()
        self._listings.clear()
        self._listed.clear()
        self.last_renewed = None
        self.lapsed = self._told = False
        keys = [self._lease_key, *(ROUTE_PREFIX + t for t in routes), *(LISTING_PREFIX + t for t in listings)]
        try:
            gone = await _bounded(
                self._release(keys=keys, args=[self.address, self._owner], client=self._lease_redis), "release"
            )
            for i in gone:
                key = keys[int(i)]
                if key.startswith(LISTING_PREFIX):
                    table = key.removeprefix(LISTING_PREFIX)
                    message = json.dumps({"table": table, "listing": None}, separators=(",", ":"))
                    await _bounded(self.redis.publish(LISTINGS_CHANNEL, message), "publish")
        except RedisDown as exc:
            log.info("worker %s: the lease was not released: %s", self.worker, exc)
        if self._own_lease_redis:  # opened again if the lease is taken again
            with contextlib.suppress(Exception):
                await self._lease_redis.aclose(close_connection_pool=True)

    async def live_workers(self) -> dict[str, str]:
        """Every worker holding a lease now: worker -> address. :class:`RedisDown`."""

        async def read() -> dict[str, str]:
            keys = [key async for key in self.redis.scan_iter(match=LEASE_PREFIX + "*", count=1000)]
            if not keys:
                return {}
            values = await self.redis.mget(keys)
            return {
                _text(key).removeprefix(LEASE_PREFIX): _text(value)
                for key, value in zip(keys, values, strict=True)
                if value is not None
            }

        return await _bounded(read(), "live workers")

    # Routes

    async def set_route(self, table: str, epoch: int) -> None:
        """Route ``table`` to this worker at ``epoch`` (kept with the lease, written back by
        :meth:`renew`), and publish it, unless the table's route is of a later epoch already.
        :class:`RedisDown` (the route is still kept: the next renewal writes it)."""
        if self._routes.get(table, epoch) > epoch:
            return
        self._routes[table] = epoch
        message = json.dumps({"table": table, "worker": self.worker, "address": self.address, "epoch": epoch})
        args: list[str | int] = [f"{self.worker} {epoch}", self.lease_ms, epoch, ROUTES_CHANNEL, message]
        written = await _bounded(
            self._set_route(keys=[ROUTE_PREFIX + table, KNOWN_PREFIX + table], args=args), "set route"
        )
        if not written and self._routes.get(table) == epoch:
            del self._routes[table]
            log.info("worker %s: %s is routed at a later epoch than %d", self.worker, table, epoch)

    def let_go(self, table: str) -> None:
        """Forget ``table``'s route and listing at once: no renewal extends them or writes them
        back (:meth:`drop_route` and :meth:`drop_listing` remove them from Redis)."""
        self._routes.pop(table, None)
        self._listings.pop(table, None)
        self._listed.pop(table, None)

    async def drop_route(self, table: str) -> None:
        """Remove ``table``'s route if it is this worker's. :class:`RedisDown` (it is forgotten
        all the same: it lapses with the lease)."""
        self._routes.pop(table, None)
        await _bounded(self._drop(keys=[ROUTE_PREFIX + table], args=[self._owner, "", ""]), "drop route")

    async def _mark_known(self, client: Redis, tables: Iterable[str]) -> None:
        """Every table of ``tables`` marked known again (Redis lost the marks)."""
        with contextlib.suppress(RedisDown):
            await _bounded(client.mset({KNOWN_PREFIX + table: "1" for table in tables}), "mark known")

    async def known(self, table: str) -> bool:
        """Whether ``table`` was routed to a worker and its match has not ended (forgotten): a
        table without a route just now is between two owners. :class:`RedisDown`."""
        return bool(await _bounded(self.redis.exists(KNOWN_PREFIX + table), "known"))

    async def forget(self, table: str) -> None:
        """``table``'s match ended and its route is dropped: it is not known any more.
        :class:`RedisDown`."""
        await self.drop_route(table)
        await _bounded(self.redis.delete(KNOWN_PREFIX + table), "forget")

    async def route(self, table: str) -> Route | None:
        """Where ``table`` is served; None when it has no route or its worker holds no lease.
        :class:`RedisDown`."""
        answer = await _bounded(self._route(keys=[ROUTE_PREFIX + table], args=[LEASE_PREFIX]), "route")
        if not answer:
            return None
        worker, epoch, address = (_text(part) for part in answer)
        return Route(table, worker, address, int(epoch))

    def route_changes(self) -> AsyncIterator[Route | None]:
        """Every route written from now on, as published; None when the subscription was lost and
        made again (what was published meanwhile is unknown: every route may have changed). Runs
        until it is closed; Redis down: it subscribes again every :data:`RESUBSCRIBE_PAUSE`."""
        return self._routes_told()

    async def _routes_told(self) -> AsyncIterator[Route | None]:
        async for data in self._messages(ROUTES_CHANNEL):
            if data is None:
                yield None
                continue
            try:
                told = loads(data)
                route = Route(str(told["table"]), str(told["worker"]), str(told["address"]), int(told["epoch"]))
            except (ValueError, KeyError, TypeError):
                log.warning("a route that cannot be read was published: %.80r", data)
                continue
            yield route

    # Listings

    async def set_listing(self, table: str, listing: Mapping[str, Any]) -> None:
        """``table``'s listing, this worker's (kept with the lease, written back by
        :meth:`renew`), published on :data:`LISTINGS_CHANNEL` in the same round trip; nothing
        when it is the one last written. :class:`RedisDown` (it is still kept: the next renewal
        writes it)."""
        text = json.dumps(listing, separators=(",", ":"))
        self._listings[table] = text
        if self._listed.get(table) == text:
            return
        self._listed.pop(table, None)
        message = json.dumps({"table": table, "listing": listing}, separators=(",", ":"))

        async def write() -> None:
            async with self.redis.pipeline(transaction=False) as pipe:
                pipe.set(LISTING_PREFIX + table, f"{self.worker} {text}", px=self.lease_ms)
                pipe.publish(LISTINGS_CHANNEL, message)
                await pipe.execute()

        alone = table not in self._listing_writes
        begun = self._listing_begun[table] = self._listing_begun.get(table, 0) + 1
        self._listing_writes[table] = self._listing_writes.get(table, 0) + 1
        try:
            await _bounded(write(), "set listing")
        finally:
            # What Redis holds is known only when no other write of the table overlapped this one.
            alone = alone and self._listing_begun[table] == begun
            self._listing_writes[table] -= 1
            if not self._listing_writes[table]:
                del self._listing_writes[table]
                del self._listing_begun[table]
        if alone and self._listings.get(table) == text:
            self._listed[table] = text

    async def drop_listing(self, table: str) -> None:
        """Remove ``table``'s listing if it is this worker's (published). :class:`RedisDown` (it is
        forgotten all the same: it lapses with the lease)."""
        self._listings.pop(table, None)
        self._listed.pop(table, None)
        message = json.dumps({"table": table, "listing": None}, separators=(",", ":"))
        args = [self._owner, LISTINGS_CHANNEL, message]
        await _bounded(self._drop(keys=[LISTING_PREFIX + table], args=args), "drop listing")

    async def listings(self) -> dict[str, dict[str, Any]]:
        """Every table's listing, of every worker: table -> listing. :class:`RedisDown`."""

        async def read() -> dict[str, dict[str, Any]]:
            keys = [key async for key in self.redis.scan_iter(match=LISTING_PREFIX + "*", count=1000)]
            if not keys:
                return {}
            values = await self.redis.mget(keys)
            found: dict[str, dict[str, Any]] = {}
            for key, value in zip(keys, values, strict=True):
                if value is None:
                    continue
                _, _, text = _text(value).partition(" ")
                try:
                    listing = loads(text)
                except ValueError:
                    listing = None
                if isinstance(listing, dict):
                    found[_text(key).removeprefix(LISTING_PREFIX)] = listing
                else:
                    log.warning("the listing of %.80r cannot be read", _text(key))
            return found

        return await _bounded(read(), "listings")

    def listing_changes(self) -> AsyncIterator[tuple[str, Any] | None]:
        """Every listing written or removed from now on, by any worker: (table, its listing as
        written, None when removed), unread JSON values as they came; None once each time the
        subscription was made again (changes may have been missed: read :meth:`listings`).
        Runs until it is closed."""
        return self._listings_told()

    async def _listings_told(self) -> AsyncIterator[tuple[str, Any] | None]:
        async for data in self._messages(LISTINGS_CHANNEL):
            if data is None:
                yield None
                continue
            try:
                told = loads(data)
            except ValueError:
                told = None
            if isinstance(told, dict) and isinstance(told.get("table"), str):
                yield told["table"], told.get("listing")
            else:
                log.warning("a listing's change cannot be read: %.80r", data)

    # Sweeps

    async def nudge(self) -> None:
        """Ask every worker's reaper to look for orphans at once. :class:`RedisDown`."""
        await _bounded(self.redis.publish(SWEEP_CHANNEL, self.worker), "nudge")

    def nudges(self) -> AsyncIterator[None]:
        """Every :meth:`nudge` of any worker from now on (and once each time the subscription was
        made again: a nudge may have been missed). Runs until it is closed."""
        return self._nudged()

    async def _nudged(self) -> AsyncIterator[None]:
        async for _ in self._messages(SWEEP_CHANNEL):
            yield None

    async def _messages(self, channel: str) -> AsyncIterator[bytes | str | None]:
        """What is published on ``channel``; None after the subscription was lost and made again."""
        lost = False
        task = asyncio.current_task()
        while True:
            pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
            reconnects = _Reconnects()
            try:
                await _bounded(pubsub.subscribe(channel), "subscribe")
                if pubsub.connection is not None:
                    pubsub.connection.register_connect_callback(reconnects.connected)
                if lost:
                    lost = False
                    yield None
                while True:
                    message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=LISTEN_POLL)
                    if task is not None and task.cancelling():
                        # Cancelled while the read was answered (Python 3.11's wait_for, as fakeredis uses
                        # it, then drops the cancellation): stop all the same.
                        raise asyncio.CancelledError
                    if reconnects.count:
                        reconnects.count = 0
                        yield None
                    if message is not None and message.get("type") == "message":
                        yield message["data"]
            except (RedisError, OSError, TimeoutError) as exc:
                if not lost:
                    log.info("the subscription to %s was lost: %s", channel, exc or type(exc).__name__)
                lost = True
            finally:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()
            await asyncio.sleep(RESUBSCRIBE_PAUSE)


class _Keeper:
    """The thread that renews a coordinator's lease (:meth:`Coordinator.keep`), with an event loop
    and a connection to Redis of its own."""

    def __init__(self, coord: Coordinator, every: float) -> None:
        self.coord = coord
        self.every = every
        self.loop = asyncio.new_event_loop()
        self.wake = asyncio.Event()
        self.stopped = False
        self.thread = threading.Thread(target=self._run, name=f"lease {coord.worker}", daemon=True)
        self._worker_loop: asyncio.AbstractEventLoop | None = None

    def start(self, worker_loop: asyncio.AbstractEventLoop) -> None:
        self._worker_loop = worker_loop
        self.thread.start()

    def stop(self) -> None:
        """Stop at once (a renewal in flight is answered or times out first)."""
        if not self.stopped:
            self.stopped = True
            with contextlib.suppress(RuntimeError):  # its loop closed already
                self.loop.call_soon_threadsafe(self.wake.set)

    def _run(self) -> None:
        try:
            self.loop.run_until_complete(self._renewing())
        finally:
            self.loop.close()

    def _forget(self, taken: list[tuple[str, str]], routes: dict[str, int], listings: dict[str, str]) -> None:
        """The coordinator forgets, on the worker's event loop, what another worker took."""
        if self._worker_loop is not None:
            with contextlib.suppress(RuntimeError):  # the worker's loop closed: nothing to forget
                self._worker_loop.call_soon_threadsafe(self.coord._forget, taken, routes, listings)

    async def _renewing(self) -> None:
        coord = self.coord
        client = own_connection(coord.redis)
        stalled = False
        try:
            while not self.stopped:
                due = self.loop.time() + self.every
                if coord.clock() - coord._beat > LOOP_STALL:
                    if not stalled:
                        log.warning("worker %s: its event loop is stuck: its lease is not renewed", coord.worker)
                    stalled = True
                elif not coord.lapsed:  # lapsed: nothing until the worker is told (keep's before)
                    stalled = False
                    await coord._renewed(client, self._forget, continuous=True)
                    if coord.lapsed:
                        log.warning("worker %s: its last renewal is too old: fenced until told", coord.worker)
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(max(0.0, due - self.loop.time())):
                        await self.wake.wait()
        finally:
            with contextlib.suppress(Exception):
                await client.aclose(close_connection_pool=True)


class Reaper:
    """Finds the orphans (the tables whose owner's lease lapsed) and claims them for its worker.

    A worker is live when it holds a lease now, or was seen holding one less than ``grace``
    seconds ago. A worker's lease must have been missing for ``grace`` as this reaper saw it: for
    ``grace`` seconds after its first look (and after every look that failed) this reaper also
    counts as live every owner in the store, so only the tables owned by no one are claimed then.
    """

    def __init__(
        self,
        coord: Coordinator,
        store: TableStore,
        *,
        grace: float = ORPHAN_GRACE,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.coord = coord
        self.store = store
        self.grace = grace
        self.clock = clock
        self._seen: dict[str, float] = {}
        self._since: float | None = None

    async def sweep(self, holding: Collection[str], limit: int) -> list[Claimed]:
        """Claim at most ``limit`` orphans for this worker (not those in ``holding``, the tables it
        serves now; its own other tables are orphans). Nothing when this worker is fenced, when
        Redis cannot be read (never a claim on a view it could not read) or the store is down
        (logged)."""
        if self.coord.fenced():
            return []
        try:
            leases = await self.coord.live_workers()
        except RedisDown as exc:
            self._since = None
            log.info("worker %s: no sweep: %s", self.coord.worker, exc)
            return []
        now = self.clock()
        if self._since is None:
            self._since = now
        for worker in leases:
            self._seen[worker] = now
        for worker, seen in list(self._seen.items()):
            if now - seen >= self.grace:
                del self._seen[worker]
        live = set(self._seen)
        try:
            if now - self._since < self.grace:
                live.update(row.owner for row in self.store.rows() if row.owner is not None and row.phase == PLAYING)
            live.discard(self.coord.worker)
            return self.store.claim(self.coord.worker, live, holding, limit)
        except StoreError as exc:
            log.warning("worker %s: no sweep: %s", self.coord.worker, exc)
            return []


__all__ = [
    "CALL_TIMEOUT",
    "LEASE_MS",
    "LISTINGS_CHANNEL",
    "LOOP_STALL",
    "ORPHAN_GRACE",
    "RENEW_EVERY",
    "ROUTES_CHANNEL",
    "SELF_FENCE",
    "SWEEP_CHANNEL",
    "Coordinator",
    "Reaper",
    "RedisDown",
    "Route",
    "open_redis",
    "own_connection",
]
