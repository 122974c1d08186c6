"""The table server's door (kc_tui/net/door.py): a seat comes back past slow handshakes from its
own address and past a flood of idle sockets from other addresses, a flood never closes an open
connection, the pool sized to the file limit, and addresses grouped (an IPv6 address by its /64)."""

from __future__ import annotations

import asyncio
import resource
import socket
from collections.abc import Callable
from typing import Any

import pytest

from kc_tui.net import schema as p
from kc_tui.net.door import LARGEST_POOL, SMALLEST_POOL, Door, Pending, address_group, file_limit, pool_size
from kc_tui.net.protocol import write
from kc_tui.net.server import TableServer, seat_path
from tests.net.serverkit import (
    WAIT,
    Client,
    SlowHandshakes,
    allow_open_files,
    closed_by_peer,
    idle_sockets,
    join,
    running,
    seat,
    seated,
    session_for,
)
from tests.timingkit import TIMED, within
from tests.waiting import wait_until

#: The addresses of a flood that are not the seat's (every one on loopback).
OTHERS = tuple(f"127.0.0.{i}" for i in range(2, 10))
#: The promise: a seat is back (has its state) within this many seconds of trying.
BACK_WITHIN = 5.0


async def back(server: TableServer, base: str, attempt: int, timed: bool) -> Client:
    """Ana's seat joined once (one connection, as a client does after losing its own): its state,
    within :data:`BACK_WITHIN` (checked in the timed run; the untimed one waits longer)."""
    with within(BACK_WITHIN, timed, f"try {attempt}: the seat's way back"):
        try:
            async with asyncio.timeout(WAIT):
                client = await seat(server, base, "Ana")
        except Exception as exc:
            pytest.fail(f"try {attempt}: the seat got no state: {exc!r}")
    assert client.state.seat == 0
    return client


def pool_of(size: int | None) -> dict[str, Any]:
    """The server's options for a pool of ``size`` (None: the server's own, by its file limit)."""
    return {} if size is None else {"max_handshakes": size}


async def leave(server: TableServer, client: Client) -> None:
    await client.close()
    await wait_until(lambda: not server.connected[0], what="the seat gone")


@pytest.mark.parametrize("pool", [None, 8], ids=["pool-by-file-limit", "pool-of-8"])
@pytest.mark.parametrize("timed", TIMED)
async def test_a_seat_is_back_within_five_seconds_past_eight_slow_handshakes_from_its_address(
    pool: int | None, timed: bool
) -> None:
    """Eight connections from the seat's own address send their HTTP head a byte a second and
    open again when dropped; the seat tries three times, each time with all eight waiting."""
    async with running(**pool_of(pool)) as (server, base):
        assert server.port is not None
        async with SlowHandshakes(server.port, 8, "127.0.0.1") as slow:
            for attempt in (1, 2, 3):
                await wait_until(lambda: server.handshaking.get("127.0.0.1", 0) >= 8, what="eight slow handshakes")
                client = await back(server, base, attempt, timed)
                await leave(server, client)
            assert slow.opened >= 8
        if pool is not None:
            assert server.door.given_way >= 3, "each try took the place of a slow handshake"


def renewed(port: int, held: list[socket.socket], count: int) -> list[socket.socket]:
    """The sockets of ``held`` the server has not closed, and ``count`` new idle ones from
    :data:`OTHERS` (blocking: run it in a thread)."""
    kept = []
    for sock in held:
        if closed_by_peer(sock):
            sock.close()
        else:
            kept.append(sock)
    return kept + idle_sockets(port, count, sources=OTHERS)


def close_all(held: list[socket.socket]) -> None:
    for sock in held:
        sock.close()


@pytest.mark.parametrize("pool", [None, 64], ids=["pool-by-file-limit", "pool-of-64"])
@pytest.mark.parametrize("timed", TIMED)
async def test_a_seat_is_back_within_five_seconds_past_idle_sockets_from_eight_other_addresses(
    pool: int | None, timed: bool
) -> None:
    """1,500 idle sockets from eight other addresses, and 500 more before each of three tries (a
    pool of 64 is full every time the seat tries)."""
    allow_open_files(8192)
    async with running(**pool_of(pool)) as (server, base):
        assert server.port is not None
        port = server.port
        held: list[socket.socket] = await asyncio.to_thread(renewed, port, [], 1500)
        try:
            for attempt in (1, 2, 3):
                held = await asyncio.to_thread(renewed, port, held, 500)
                while pool is not None and len(server.door) < pool:
                    held = await asyncio.to_thread(renewed, port, held, 500)
                assert "127.0.0.1" not in server.handshaking
                client = await back(server, base, attempt, timed)
                await leave(server, client)
        finally:
            close_all(held)
        if pool is not None:
            assert server.door.given_way >= 1500 - pool


async def test_a_flood_of_handshakes_never_closes_an_open_connection() -> None:
    """With a pool of 4, 300 idle sockets from the seats' address and eight others: the seat, the
    spectator and a seat that has not said hello yet are all still served."""
    async with seated("Ana", None, max_handshakes=4, stand_in=0) as (server, base, (ana, spectator)):
        assert server.port is not None
        ben = await join(base + seat_path(server.tokens[1]), hello=False)
        sources = ("127.0.0.1", *OTHERS)
        held = await asyncio.to_thread(idle_sockets, server.port, 300, sources=sources)
        try:
            await wait_until(lambda: server.door.given_way == 300 - 4, what="all but four given way")
            assert len(server.door) == 4
            for client in (ana, spectator):
                await client.send(write(p.Ping(5)))
                assert await client.expect(p.PongMsg) == p.PongMsg(5)
            await ben.send(write(p.Hello("kings-corners tests")))
            assert (await ben.expect(p.StateMsg)).seat == 1
            assert server.connected[:2] == [True, True]
        finally:
            close_all(held)
        for client in (ana, spectator, ben):
            assert client.leaks == []
            await client.close()


# ---------------------------------------------------------------------- the pool
def test_an_ipv6_address_is_counted_by_its_64() -> None:
    group = address_group("2001:db8:1:2:aaaa:bbbb:cccc:dddd")
    assert group == "2001:db8:1:2::/64"
    assert address_group("2001:db8:1:2::1") == address_group("2001:DB8:1:2:ffff:ffff:ffff:ffff") == group
    assert address_group("2001:db8:1:3::1") == "2001:db8:1:3::/64"
    assert address_group("fe80::1%eth0") == address_group("fe80::2") == "fe80::/64"
    assert address_group("::1") == "::/64"


def test_an_ipv4_address_is_counted_alone_also_when_mapped_into_ipv6() -> None:
    assert address_group("192.0.2.7") == "192.0.2.7"
    assert address_group("192.0.2.8") == "192.0.2.8"
    assert address_group("::ffff:192.0.2.7") == "192.0.2.7"
    assert address_group("not an address") == "not an address"


def pool(size: int) -> tuple[Door, list[str], Callable[[str], Pending]]:
    """A door of ``size`` and the names of the connections it closed, in order; ``enter(name)``
    lets in a connection named ``ADDRESS#n`` from that address."""
    door = Door(size)
    closed: list[str] = []

    def enter(name: str) -> Pending:
        return door.enter(name.partition("#")[0], lambda: closed.append(name))

    return door, closed, enter


def test_a_full_pool_lets_the_newest_in_and_the_oldest_of_the_largest_group_gives_way() -> None:
    door, closed, enter = pool(4)
    for name in ("10.0.0.1#1", "10.0.0.1#2", "10.0.0.1#3", "10.0.0.2#1"):
        enter(name)
    assert closed == [] and door.counts == {"10.0.0.1": 3, "10.0.0.2": 1}
    enter("10.0.0.3#1")
    assert closed == ["10.0.0.1#1"]
    enter("10.0.0.3#2")
    assert closed == ["10.0.0.1#1", "10.0.0.1#2"]
    enter("10.0.0.3#3")
    assert closed == ["10.0.0.1#1", "10.0.0.1#2", "10.0.0.3#1"]
    assert door.counts == {"10.0.0.1": 1, "10.0.0.2": 1, "10.0.0.3": 2} and len(door) == 4
    for n in range(4, 50):  # a flood from one address only pushes out its own
        enter(f"10.0.0.3#{n}")
    assert door.counts == {"10.0.0.1": 1, "10.0.0.2": 1, "10.0.0.3": 2} and door.given_way == 3 + 46
    assert "10.0.0.1#3" not in closed and "10.0.0.2#1" not in closed


def test_among_groups_of_one_size_the_one_whose_oldest_came_first_gives_way() -> None:
    _door, closed, enter = pool(4)
    for name in ("10.0.0.2#1", "10.0.0.1#1", "10.0.0.1#2", "10.0.0.2#2"):
        enter(name)
    enter("10.0.0.3#1")
    assert closed == ["10.0.0.2#1"]
    enter("10.0.0.3#2")  # 10.0.0.1 holds two, the others one each
    assert closed == ["10.0.0.2#1", "10.0.0.1#1"]


def test_a_flood_from_one_ipv6_64_pushes_out_only_its_own() -> None:
    door, closed, enter = pool(8)
    enter("2001:db8:0:1::7#honest")
    for n in range(500):
        enter(f"2001:db8:0:2::{n:x}#flood")
    assert door.counts == {"2001:db8:0:1::/64": 1, "2001:db8:0:2::/64": 7}
    assert "2001:db8:0:1::7#honest" not in closed


def test_leaving_is_once_and_a_connection_that_gave_way_has_left() -> None:
    door, closed, enter = pool(1)
    first = enter("10.0.0.1#1")
    second = enter("10.0.0.1#2")
    assert closed == ["10.0.0.1#1"] and len(door) == 1
    door.leave(first)  # gave way already: nothing
    assert len(door) == 1
    door.leave(second)
    door.leave(second)
    assert len(door) == 0 and door.counts == {}
    with pytest.raises(ValueError):
        Door(0)


def test_the_pool_is_sized_to_the_file_limit() -> None:
    assert pool_size(1024, p.MAX_CONNECTIONS) == (1024 - 64 - p.MAX_CONNECTIONS - 200) // 2
    assert pool_size(16, p.MAX_CONNECTIONS) == SMALLEST_POOL
    assert pool_size(1 << 20, p.MAX_CONNECTIONS) == LARGEST_POOL
    sizes = [pool_size(files, p.MAX_CONNECTIONS) for files in range(0, 8192, 64)]
    assert sizes == sorted(sizes)
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    assert file_limit() == (1 << 20 if soft == resource.RLIM_INFINITY else soft)
    server = TableServer(session_for())
    assert server.max_handshakes == pool_size(file_limit(), p.MAX_CONNECTIONS)
    assert TableServer(session_for(), max_handshakes=3).max_handshakes == 3
