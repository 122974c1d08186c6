"""The workers' leases, the tables' routes and listings in Redis, and the reaper that claims the
orphans (kc_tui/net/cluster/coord.py): on fakeredis (its Lua run by lupa), then the lease, its
renewal and a route on a real ``redis-server``."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
import uuid
from collections.abc import AsyncIterator, Collection, Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Any

import fakeredis
import pytest
from redis.asyncio import Redis

from kc_tui.net.cluster.coord import (
    LISTINGS_CHANNEL,
    MAX_CONNECTIONS,
    ROUTES_CHANNEL,
    SELF_FENCE,
    Coordinator,
    Reaper,
    RedisDown,
    Route,
    open_redis,
)
from kc_tui.net.store.tablestore import ENDED, PLAYING, Claimed, Fenced, Row, StoreDown, Written
from tests.cluster.servicekit import RedisServer, redis_bin
from tests.waiting import WAIT, wait_for, wait_until

LONG = 60_000  # a lease that cannot lapse during a test (ms)


class Clock:
    """A clock the test moves."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class FakeStore:
    """The store's interface in memory, its claims one at a time under a lock (as the real stores'
    row locks make them)."""

    kind = "memory"

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.tables: dict[str, Row] = {}
        self.down = False

    def add(self, table: str, owner: str | None, epoch: int = 1, phase: str = PLAYING) -> None:
        self.tables[table] = Row(table, owner, epoch, 0, phase, {})

    def _up(self) -> None:
        if self.down:
            raise StoreDown("the store cannot be reached")

    def init(self) -> None:
        self._up()

    def create(self, table: str, record: Mapping[str, Any], save: bytes, hashes: Mapping[int, Sequence[bytes]]) -> None:
        self._up()
        with self.lock:
            self.tables[table] = Row(table, None, 0, 0, PLAYING, dict(record))

    def claim(self, worker: str, live: Collection[str], holding: Collection[str], limit: int) -> list[Claimed]:
        self._up()
        with self.lock:
            claimed: list[Claimed] = []
            for row in list(self.tables.values()):
                if len(claimed) >= limit:
                    break
                orphan = row.owner is None or row.owner not in live
                if row.phase == PLAYING and orphan and row.id not in holding:
                    taken = replace(row, owner=worker, epoch=row.epoch + 1)
                    self.tables[row.id] = taken
                    claimed.append(Claimed(row.id, taken.epoch, taken.seq, taken.record, b"", {}))
            return claimed

    def _fence(self, table: str, epoch: int) -> Row:
        self._up()
        row = self.tables[table]
        if row.epoch != epoch or row.phase != PLAYING:
            raise Fenced(table)
        return row

    def write(self, table: str, epoch: int, save: bytes, *, snapshot: bool = False) -> int:
        with self.lock:
            row = self._fence(table, epoch)
            self.tables[table] = replace(row, seq=row.seq + 1)
            return row.seq + 1

    def end(self, table: str, epoch: int) -> None:
        with self.lock:
            self.tables[table] = replace(self._fence(table, epoch), phase=ENDED)

    def release(self, table: str, epoch: int) -> bool:
        with self.lock:
            row = self.tables[table]
            if row.epoch != epoch:
                return False
            self.tables[table] = replace(row, owner=None)
            return True

    def row(self, table: str) -> Row | None:
        self._up()
        return self.tables.get(table)

    def rows(self) -> list[Row]:
        self._up()
        with self.lock:
            return list(self.tables.values())

    def history(self, table: str) -> list[Written]:
        return []

    def token_hashes(self, table: str) -> dict[int, list[bytes]]:
        return {}

    def close(self) -> None:
        pass

    # A lobby's tables: a claim sees them only once started.
    def _not_playing(self, table: str) -> Row | None:
        row = self.tables.get(table)
        if row is not None and row.phase in (PLAYING, ENDED):
            raise Fenced(table)
        return row

    def put(self, table: str, record: Mapping[str, Any], phase: str) -> None:
        with self.lock:
            self._not_playing(table)
            self.tables[table] = Row(table, None, 0, 0, phase, dict(record))

    def start(self, table: str, owner: str, record: Mapping[str, Any], save: bytes) -> int:
        with self.lock:
            row = self._not_playing(table)
            epoch = (0 if row is None else row.epoch) + 1
            self.tables[table] = Row(table, owner, epoch, 0, PLAYING, dict(record))
            return epoch

    def set_record(self, table: str, epoch: int, record: Mapping[str, Any]) -> None:
        with self.lock:
            self.tables[table] = replace(self._fence(table, epoch), record=dict(record))

    def add_hash(self, table: str, epoch: int, seat: int, hashed: bytes) -> None:
        self._fence(table, epoch)

    def set_hashes(self, table: str, epoch: int, seat: int, hashes: Sequence[bytes]) -> None:
        self._fence(table, epoch)

    def forget(self, table: str) -> None:
        with self.lock:
            if table in self.tables and self.tables[table].phase == PLAYING:
                raise Fenced(table)
            self.tables.pop(table, None)

    def rows_in(self, phases: Collection[str]) -> list[Row]:
        with self.lock:
            return [row for row in self.tables.values() if row.phase in phases]

    def trim(self, table: str, epoch: int) -> None:
        self._fence(table, epoch)


@pytest.fixture
def server() -> fakeredis.FakeServer:
    return fakeredis.FakeServer()


@pytest.fixture
async def redis(server: fakeredis.FakeServer) -> AsyncIterator[Redis]:
    client = fakeredis.FakeAsyncRedis(server=server)
    try:
        yield client
    finally:
        await client.aclose()


def coordinator(redis: Redis, worker: str = "w1", *, lease_ms: int = LONG, clock: Clock | None = None) -> Coordinator:
    if clock is None:
        return Coordinator(redis, worker, f"ws://{worker}:1", lease_ms=lease_ms)
    return Coordinator(redis, worker, f"ws://{worker}:1", lease_ms=lease_ms, clock=clock)


async def text(redis: Redis, key: str) -> str | None:
    value = await redis.get(key)
    return None if value is None else value.decode() if isinstance(value, bytes) else value


async def shorten(redis: Redis, *keys: str) -> None:
    """Each key's time to live cut to a second: a renewal that extends it shows."""
    for key in keys:
        assert await redis.pexpire(key, 1000)


async def ttls(redis: Redis, *keys: str) -> list[int]:
    return [await redis.pttl(key) for key in keys]


@contextlib.asynccontextmanager
async def collected(coord: Coordinator, redis: Redis) -> AsyncIterator[list[Route | None]]:
    """The routes ``coord.route_changes()`` yields, from a subscription that is in place."""
    seen: list[Route | None] = []

    async def consume() -> None:
        async for route in coord.route_changes():
            seen.append(route)

    task = asyncio.create_task(consume())

    async def subscribed() -> bool:
        return any(count for _, count in await redis.pubsub_numsub(ROUTES_CHANNEL))

    try:
        await wait_until(subscribed, what="route_changes subscribed")
        yield seen
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


# The lease


async def test_acquire_takes_the_lease_and_unfences_the_worker(redis: Redis) -> None:
    clock = Clock()
    coord = coordinator(redis, lease_ms=5000, clock=clock)
    assert coord.fenced()
    assert await coord.acquire()
    assert await text(redis, "kc:w:w1") == "ws://w1:1"
    assert 0 < await redis.pttl("kc:w:w1") <= 5000
    assert coord.last_renewed == 0.0
    assert not coord.fenced()
    assert await coord.live_workers() == {"w1": "ws://w1:1"}


async def test_a_worker_not_renewed_for_the_self_fence_is_fenced(redis: Redis) -> None:
    clock = Clock()
    coord = coordinator(redis, clock=clock)
    assert await coord.acquire()
    clock.now = 3.0
    assert not coord.fenced()
    clock.now = 3.01
    assert coord.fenced()
    assert await coord.renew()
    assert not coord.fenced()


async def test_renew_extends_the_lease_and_every_route_and_listing(redis: Redis) -> None:
    coord = coordinator(redis)
    assert await coord.acquire()
    await coord.set_route("t1", 1)
    await coord.set_listing("t1", {"name": "Ana's table"})
    keys = ("kc:w:w1", "kc:t:t1", "kc:l:t1")
    await shorten(redis, *keys)
    assert await coord.renew()
    assert all(ttl > 1000 for ttl in await ttls(redis, *keys))
    assert coord.lapses == 0


async def test_another_holder_of_the_id_neither_acquires_nor_renews_nor_extends(redis: Redis) -> None:
    holder = coordinator(redis)
    other = Coordinator(redis, "w1", "ws://elsewhere:2", lease_ms=LONG)
    assert await holder.acquire()
    await shorten(redis, "kc:w:w1")
    assert not await other.acquire()
    assert not await other.renew()
    assert other.fenced()
    assert await text(redis, "kc:w:w1") == "ws://w1:1"
    assert await redis.pttl("kc:w:w1") <= 1000


async def test_the_lease_lapses_without_renewal_and_its_routes_and_listings_with_it(redis: Redis) -> None:
    coord = coordinator(redis, lease_ms=200)
    assert await coord.acquire()
    await coord.set_route("t1", 1)
    await coord.set_listing("t1", {"name": "x"})

    async def gone() -> bool:
        return not await redis.exists("kc:w:w1", "kc:t:t1", "kc:l:t1")

    await wait_until(gone, what="the lease, the route and the listing lapsed")
    assert await coord.live_workers() == {}
    assert await coord.route("t1") is None
    assert await coord.listings() == {}


async def test_a_lapsed_lease_is_taken_again_with_what_the_worker_holds(redis: Redis) -> None:
    coord = coordinator(redis)
    assert await coord.acquire()
    await coord.set_route("t1", 4)
    await redis.delete("kc:w:w1")
    assert await coord.route("t1") is None
    assert await coord.renew()
    assert coord.lapses == 1
    assert await coord.route("t1") == Route("t1", "w1", "ws://w1:1", 4)


async def test_release_removes_the_lease_routes_and_listings_of_its_worker_only(redis: Redis) -> None:
    w1 = coordinator(redis)
    w2 = coordinator(redis, "w2")
    assert await w1.acquire()
    assert await w2.acquire()
    await w1.set_route("t1", 1)
    await w1.set_listing("t1", {"name": "one"})
    await w1.set_route("t2", 1)
    await w2.set_route("t2", 2)  # w2 claimed t2 since
    await w2.set_route("t3", 1)
    await w2.set_listing("t3", {"name": "three"})
    await w1.release()
    assert w1.fenced()
    assert w1.held_routes() == {}
    assert await redis.exists("kc:w:w1", "kc:t:t1", "kc:l:t1") == 0
    assert await w1.route("t2") == Route("t2", "w2", "ws://w2:1", 2)
    assert await w1.route("t3") == Route("t3", "w2", "ws://w2:1", 1)
    assert await w1.listings() == {"t3": {"name": "three"}}


async def test_release_by_another_holder_of_the_id_removes_nothing(redis: Redis) -> None:
    holder = coordinator(redis)
    assert await holder.acquire()
    await holder.set_route("t1", 1)
    other = Coordinator(redis, "w1", "ws://elsewhere:2", lease_ms=LONG)
    await other.set_listing("t9", {"name": "nine"})
    await other.release()
    assert await text(redis, "kc:w:w1") == "ws://w1:1"
    assert await holder.route("t1") == Route("t1", "w1", "ws://w1:1", 1)
    assert await holder.listings() == {"t9": {"name": "nine"}}


# Routes and listings


async def test_route_is_none_when_its_worker_holds_no_lease(redis: Redis) -> None:
    coord = coordinator(redis)
    assert await coord.route("t1") is None
    await coord.set_route("t1", 3)  # not acquired yet
    assert await coord.route("t1") is None
    assert await coord.acquire()
    assert await coord.route("t1") == Route("t1", "w1", "ws://w1:1", 3)


async def test_a_route_of_a_later_epoch_stands(redis: Redis) -> None:
    w1 = coordinator(redis)
    w2 = coordinator(redis, "w2")
    assert await w1.acquire()
    assert await w2.acquire()
    await w2.set_route("t1", 3)
    await w1.set_route("t1", 2)
    assert await w1.route("t1") == Route("t1", "w2", "ws://w2:1", 3)
    assert w1.held_routes() == {}


async def test_keys_another_worker_took_are_neither_removed_nor_renewed_by_the_first(redis: Redis) -> None:
    w1 = coordinator(redis)
    w2 = coordinator(redis, "w2")
    assert await w1.acquire()
    assert await w2.acquire()
    await w1.set_route("t1", 1)
    await w1.set_listing("t1", {"by": "w1"})
    await w2.set_route("t1", 2)
    await w2.set_listing("t1", {"by": "w2"})
    await shorten(redis, "kc:t:t1", "kc:l:t1")
    assert await w1.renew()
    assert all(ttl <= 1000 for ttl in await ttls(redis, "kc:t:t1", "kc:l:t1"))
    assert w1.held_routes() == {}
    assert w1.held_listings() == []
    await w1.drop_route("t1")
    await w1.drop_listing("t1")
    assert await w1.route("t1") == Route("t1", "w2", "ws://w2:1", 2)
    assert await w1.listings() == {"t1": {"by": "w2"}}


async def test_drop_removes_the_owners_route_and_listing(redis: Redis) -> None:
    coord = coordinator(redis)
    assert await coord.acquire()
    await coord.set_route("t1", 1)
    await coord.set_listing("t1", {"name": "x"})
    await coord.drop_route("t1")
    await coord.drop_listing("t1")
    assert await coord.route("t1") is None
    assert await coord.listings() == {}
    await shorten(redis, "kc:w:w1")
    assert await coord.renew()
    assert await redis.exists("kc:t:t1", "kc:l:t1") == 0


async def test_listings_of_every_worker_are_read_and_their_changes_published(redis: Redis) -> None:
    w1 = coordinator(redis)
    w2 = coordinator(redis, "w2")
    pubsub = redis.pubsub(ignore_subscribe_messages=True)
    await pubsub.subscribe(LISTINGS_CHANNEL)
    told: list[bytes] = []

    async def heard(count: int) -> bool:
        message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=0.05)
        if message is not None:
            told.append(message["data"])
        return len(told) >= count

    try:
        await w1.set_listing("t1", {"name": "Ana's <b>table</b>", "seats": 4})
        await w2.set_listing("t2", {"name": "two"})
        assert await w1.listings() == {"t1": {"name": "Ana's <b>table</b>", "seats": 4}, "t2": {"name": "two"}}
        await w1.drop_listing("t1")
        await wait_until(lambda: heard(3), what="three listing changes")
    finally:
        await pubsub.aclose()
    assert told == [
        b'{"table":"t1","listing":{"name":"Ana\'s <b>table</b>","seats":4}}',
        b'{"table":"t2","listing":{"name":"two"}}',
        b'{"table":"t1","listing":null}',
    ]


async def test_flushall_then_renew_writes_every_route_and_listing_back(redis: Redis) -> None:
    coord = coordinator(redis)
    assert await coord.acquire()
    await coord.set_route("t1", 1)
    await coord.set_route("t2", 7)
    await coord.set_listing("t1", {"name": "one"})
    await redis.flushall()
    assert await coord.route("t1") is None
    assert await coord.renew()
    assert coord.lapses == 1
    assert await coord.live_workers() == {"w1": "ws://w1:1"}
    assert await coord.route("t1") == Route("t1", "w1", "ws://w1:1", 1)
    assert await coord.route("t2") == Route("t2", "w1", "ws://w1:1", 7)
    assert await coord.listings() == {"t1": {"name": "one"}}
    assert all(0 < ttl <= LONG for ttl in await ttls(redis, "kc:w:w1", "kc:t:t1", "kc:t:t2", "kc:l:t1"))
    assert await coord.known("t1") and await coord.known("t2")


async def test_a_routed_table_stays_known_past_its_owners_lease_until_it_is_forgotten(redis: Redis) -> None:
    coord = coordinator(redis)
    assert await coord.acquire()
    assert not await coord.known("t1")
    await coord.set_route("t1", 1)
    await coord.set_route("t2", 1)
    await coord.release()  # the owner gone: no route, the tables still between two owners
    assert await coord.route("t1") is None
    assert await coord.known("t1")
    other = coordinator(redis, "w2")
    assert await other.acquire()
    await other.set_route("t1", 2)
    await other.forget("t1")  # its match ended
    assert not await other.known("t1")
    assert await other.route("t1") is None
    assert await other.known("t2")


async def test_a_route_set_while_redis_is_down_is_written_by_the_next_renewal(
    redis: Redis, server: fakeredis.FakeServer
) -> None:
    coord = coordinator(redis)
    assert await coord.acquire()
    server.connected = False
    with pytest.raises(RedisDown):
        await coord.set_route("t1", 2)
    server.connected = True
    assert await coord.renew()
    assert await coord.route("t1") == Route("t1", "w1", "ws://w1:1", 2)


async def test_route_changes_yields_the_published_routes(redis: Redis) -> None:
    w1 = coordinator(redis)
    w2 = coordinator(redis, "w2")
    async with collected(w2, redis) as seen:
        await w1.set_route("t1", 1)
        await w2.set_route("t1", 2)
        await w1.set_route("t1", 1)  # an earlier epoch: not written, not told
        await w2.set_route("t2", 5)
        await wait_until(lambda: len(seen) >= 3, what="three routes told")
    assert seen == [
        Route("t1", "w1", "ws://w1:1", 1),
        Route("t1", "w2", "ws://w2:1", 2),
        Route("t2", "w2", "ws://w2:1", 5),
    ]


async def test_redis_unreachable_renew_is_false_and_nothing_escapes(redis: Redis, server: fakeredis.FakeServer) -> None:
    store = FakeStore()
    store.add("free", None, 0)
    coord = coordinator(redis)
    assert await coord.acquire()
    await coord.set_route("t1", 1)
    reaper = Reaper(coord, store)
    server.connected = False
    assert not await coord.renew()
    assert await reaper.sweep((), 10) == []
    await coord.release()
    for call in (coord.live_workers(), coord.route("t1"), coord.listings(), coord.nudge()):
        with pytest.raises(RedisDown):
            await call
    assert store.tables["free"].owner is None


# The reaper


async def test_two_reapers_racing_for_one_orphan_exactly_one_wins(server: fakeredis.FakeServer) -> None:
    store = FakeStore()
    store.add("orphan", "gone", 1)
    barrier = threading.Barrier(2, timeout=WAIT)
    claims: dict[str, list[Claimed]] = {}

    def sweeper(worker: str) -> None:
        async def run() -> list[Claimed]:
            client = fakeredis.FakeAsyncRedis(server=server)
            try:
                clock = Clock()
                reaper = Reaper(coordinator(client, worker), store, clock=clock)
                assert await reaper.coord.acquire()
                assert await reaper.sweep((), 10) == []  # a first look: owned tables wait the grace
                clock.now = 10.0
                barrier.wait()
                return await reaper.sweep((), 10)
            finally:
                await client.aclose()

        claims[worker] = asyncio.run(run())

    threads = [threading.Thread(target=sweeper, args=(w,)) for w in ("w2", "w3")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(WAIT)
    assert sorted(len(c) for c in claims.values()) == [0, 1]
    winner = next(w for w, c in claims.items() if c)
    assert claims[winner][0].id == "orphan"
    assert claims[winner][0].epoch == 2
    assert store.tables["orphan"].owner == winner


async def test_a_worker_missing_less_than_the_grace_is_not_reaped_after_it_is(redis: Redis) -> None:
    store = FakeStore()
    store.add("t1", "w1", 3)
    w1 = coordinator(redis)
    assert await w1.acquire()
    clock = Clock()
    reaper = Reaper(coordinator(redis, "w2"), store, clock=clock)
    assert await reaper.coord.acquire()
    assert await reaper.sweep((), 10) == []
    clock.now = 5.0
    assert await reaper.sweep((), 10) == []  # w1 holds its lease
    await redis.delete("kc:w:w1")
    clock.now = 6.9
    assert await reaper.sweep((), 10) == []
    clock.now = 7.0
    claimed = await reaper.sweep((), 10)
    assert [(c.id, c.epoch) for c in claimed] == [("t1", 4)]
    assert store.tables["t1"].owner == "w2"


async def test_a_reaper_looking_first_claims_unowned_tables_at_once_owned_ones_after_the_grace(
    redis: Redis,
) -> None:
    store = FakeStore()
    store.add("owned", "w1", 1)
    store.add("free", None, 0)
    store.add("over", "w1", 1, ENDED)
    clock = Clock()
    reaper = Reaper(coordinator(redis, "w2"), store, clock=clock)
    assert await reaper.coord.acquire()
    assert [c.id for c in await reaper.sweep((), 10)] == ["free"]
    clock.now = 1.9
    assert await reaper.sweep({"free"}, 10) == []
    clock.now = 2.0
    assert [c.id for c in await reaper.sweep({"free"}, 10)] == ["owned"]


async def test_after_redis_could_not_be_read_the_grace_starts_again(redis: Redis, server: fakeredis.FakeServer) -> None:
    store = FakeStore()
    store.add("t1", "w1", 1)
    w1 = coordinator(redis)
    assert await w1.acquire()
    clock = Clock()
    reaper = Reaper(coordinator(redis, "w2"), store, clock=clock)
    assert await reaper.coord.acquire()
    assert await reaper.sweep((), 10) == []
    server.connected = False
    clock.now = 1.5
    assert await reaper.sweep((), 10) == []
    server.connected = True
    await redis.flushall()  # Redis came back empty: w1 has not renewed yet
    assert await reaper.coord.renew()
    clock.now = 10.0
    assert await reaper.sweep((), 10) == []
    clock.now = 11.9
    assert await reaper.sweep((), 10) == []
    assert await w1.renew()
    clock.now = 20.0
    assert await reaper.sweep((), 10) == []
    assert store.tables["t1"].owner == "w1"


async def test_a_sweep_takes_back_its_own_tables_it_does_not_serve(redis: Redis) -> None:
    store = FakeStore()
    store.add("served", "w2", 1)
    store.add("dropped", "w2", 1)
    reaper = Reaper(coordinator(redis, "w2"), store)
    assert await reaper.coord.acquire()
    claimed = await reaper.sweep({"served"}, 10)
    assert [(c.id, c.epoch) for c in claimed] == [("dropped", 2)]


async def test_a_fenced_worker_claims_nothing(redis: Redis) -> None:
    store = FakeStore()
    store.add("free", None, 0)
    reaper = Reaper(coordinator(redis, "w2"), store)
    assert await reaper.sweep((), 10) == []
    assert store.tables["free"].owner is None


async def test_a_store_down_claims_nothing_and_raises_nothing(redis: Redis) -> None:
    store = FakeStore()
    store.add("free", None, 0)
    reaper = Reaper(coordinator(redis, "w2"), store)
    assert await reaper.coord.acquire()
    store.down = True
    assert await reaper.sweep((), 10) == []
    store.down = False
    assert [c.id for c in await reaper.sweep((), 10)] == ["free"]


def test_a_worker_id_with_a_space_is_refused() -> None:
    with pytest.raises(ValueError, match="worker's id"):
        Coordinator(fakeredis.FakeAsyncRedis(), "w 1", "ws://w1:1")


# A real redis-server: the scripts run on Redis itself


def unique(name: str) -> str:
    return f"{name}-{uuid.uuid4().hex[:12]}"


async def test_lease_renew_and_route_on_a_real_redis(redis_url: str) -> None:
    client = open_redis(redis_url)
    worker, table = unique("w"), unique("t")
    coord = Coordinator(client, worker, "ws://127.0.0.1:9", lease_ms=LONG)
    other = Coordinator(client, worker, "ws://127.0.0.1:10", lease_ms=LONG)
    try:
        assert await coord.acquire()
        assert not await other.acquire()
        await coord.set_route(table, 1)
        await coord.set_listing(table, {"name": "real"})
        keys = (f"kc:w:{worker}", f"kc:t:{table}", f"kc:l:{table}")
        await shorten(client, *keys)
        assert not await other.renew()
        assert await client.pttl(keys[0]) <= 1000
        assert await coord.renew()
        assert all(ttl > 1000 for ttl in await ttls(client, *keys))
        assert await coord.route(table) == Route(table, worker, "ws://127.0.0.1:9", 1)
        await client.delete(*keys)
        assert await coord.renew()
        assert coord.lapses == 1
        assert await coord.route(table) == Route(table, worker, "ws://127.0.0.1:9", 1)
        assert (await coord.listings())[table] == {"name": "real"}
        await coord.release()
        assert await client.exists(*keys) == 0
    finally:
        await coord.release()
        await client.aclose()


@pytest.fixture
def own_redis() -> Iterator[RedisServer]:
    """A redis-server of this test's own (it is cut off, stopped and started again)."""
    if redis_bin() is None:
        pytest.skip("redis-server is not installed")
    server = RedisServer()
    server.start()
    try:
        yield server
    finally:
        server.stop()


async def test_route_changes_says_when_its_connection_was_cut(own_redis: RedisServer) -> None:
    client = open_redis(own_redis.url)
    try:
        coord = Coordinator(client, "w1", "ws://127.0.0.1:9", lease_ms=LONG)
        async with collected(coord, client) as seen:
            assert await client.client_kill_filter(_type="pubsub") == 1
            await wait_until(lambda: None in seen, what="route_changes told it subscribed again")
            await coord.set_route("t1", 1)
            await wait_until(lambda: seen and seen[-1] is not None, what="a route told after the cut")
        assert [route for route in seen if route is not None] == [Route("t1", "w1", "ws://127.0.0.1:9", 1)]
    finally:
        await client.aclose()


async def test_a_restarted_redis_gets_every_route_back_and_route_changes_says_so(own_redis: RedisServer) -> None:
    client = open_redis(own_redis.url)
    try:
        coord = Coordinator(client, "w1", "ws://127.0.0.1:9", lease_ms=LONG)
        assert await coord.acquire()
        await coord.set_route("t1", 1)
        async with collected(coord, client) as seen:
            own_redis.stop()
            assert not await coord.renew()
            await asyncio.to_thread(own_redis.start)
            await wait_until(coord.renew, what="the lease renewed on the restarted Redis")
            assert coord.lapses == 1
            assert await coord.route("t1") == Route("t1", "w1", "ws://127.0.0.1:9", 1)
            await wait_until(lambda: None in seen, what="route_changes told it subscribed again")
            await coord.set_route("t2", 1)
            await wait_until(lambda: seen and seen[-1] is not None, what="a route told after the restart")
        assert [route for route in seen if route is not None] == [Route("t2", "w1", "ws://127.0.0.1:9", 1)]
    finally:
        await client.aclose()


# Renewing beside a busy worker


async def stop_keeping(coord: Coordinator, keeping: asyncio.Task[None]) -> None:
    keeping.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await keeping
    await coord.aclose()


async def test_a_worker_whose_event_loop_is_held_keeps_its_lease_and_is_not_fenced(redis: Redis) -> None:
    coord = Coordinator(redis, "w1", "ws://w1:1", lease_ms=LONG, self_fence=1.0)
    assert await coord.acquire()
    first = coord.last_renewed
    keeping = asyncio.create_task(coord.keep(every=0.02))
    try:
        await wait_until(lambda: coord.last_renewed != first, what="a renewal by keep")
        held = time.monotonic()
        # This test holds the event loop (as a worker busy with its tables does) for longer than
        # the self-fence: the renewals go on beside it.
        renewed = wait_for(
            lambda: (coord.last_renewed or 0.0) > held + 1.5 * coord.self_fence,
            what="renewals while the event loop is held",
        )
        assert renewed
        assert not coord.fenced()
        assert 0 < await redis.pttl("kc:w:w1") <= LONG
    finally:
        await stop_keeping(coord, keeping)


async def test_after_a_pause_past_the_self_fence_the_lease_is_not_renewed_before_the_worker_is_told(
    redis: Redis,
) -> None:
    clock = Clock()
    coord = coordinator(redis, clock=clock)
    assert await coord.acquire()
    told: list[bool] = []
    keeping = asyncio.create_task(coord.keep(lambda: told.append(coord.fenced()), every=0.01))
    try:
        await wait_until(lambda: told, what="keep running")
        # The process stopped past its self-fence and woken: the renewing thread looks first,
        # while the event loop is held here.
        clock.now = SELF_FENCE + 1
        wait_for(lambda: coord.lapsed or coord.last_renewed == clock.now, what="the renewing thread's look")
        assert coord.last_renewed == 0.0, "no renewal before the worker is told"
        assert coord.fenced()
        await wait_until(lambda: not coord.fenced(), what="the lease renewed once the worker was told")
        assert coord.last_renewed == clock.now
        assert told[-1] is False and True in told, "told it was fenced before it was renewed"
    finally:
        await stop_keeping(coord, keeping)


async def test_the_same_listing_is_written_once_and_a_changed_one_again(redis: Redis) -> None:
    coord = coordinator(redis)
    assert await coord.acquire()
    await coord.set_listing("t1", {"round": 1})
    await redis.delete("kc:l:t1")
    await coord.set_listing("t1", {"round": 1})
    assert await redis.exists("kc:l:t1") == 0, "not written again"
    await coord.set_listing("t1", {"round": 2})
    assert await text(redis, "kc:l:t1") == 'w1 {"round":2}'
    assert await coord.renew()  # what it holds is written back all the same
    await redis.delete("kc:l:t1")
    assert await coord.renew()
    assert await text(redis, "kc:l:t1") == 'w1 {"round":2}'


async def test_renew_does_not_wait_for_the_pool_of_a_worker_busy_with_redis(redis_url: str) -> None:
    client = open_redis(redis_url)
    worker = unique("w")
    coord = Coordinator(client, worker, "ws://127.0.0.1:9", lease_ms=LONG)
    pool = client.connection_pool
    taken = [await pool.get_connection() for _ in range(MAX_CONNECTIONS)]  # type: ignore[no-untyped-call]
    try:
        # Every connection of the pool in use (a worker's listings and routes, its loop busy).
        assert await coord.acquire()
        assert not coord.fenced()
        assert await coord.renew()
        await coord.release()
        assert coord.fenced()
    finally:
        for connection in taken:
            await pool.release(connection)
        await coord.aclose()
        await client.aclose()
