"""A seat whose address someone else joined with: the older client is told so in plain words
(``seat-taken``) before its connection is closed, stops for good (it never takes the seat back
by reconnecting), and the host reads that it happened. A server whose error message is lost but
whose close names the code ends the client the same way."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
from websockets.asyncio.server import ServerConnection, serve

from kc_tui.net import schema as p
from kc_tui.net.client import Status
from kc_tui.net.server import seat_path
from tests.net.clientkit import recorded
from tests.net.serverkit import running, session_for
from tests.waiting import wait_until

ANA_AND_AI = (("Ana", "human"), ("Greedy", "greedy"))


async def test_the_displaced_client_is_told_someone_else_joined_and_stops_and_the_host_reads_it() -> None:
    said: list[str] = []
    async with running(session_for(ANA_AND_AI), status=said.append) as (server, base):
        older = recorded(base + seat_path(server.tokens[0]))
        await wait_until(lambda: older.seat.connected, what="the first client")
        newer = recorded(base + seat_path(server.tokens[0]))
        assert older.task is not None
        await wait_until(older.task.done, what="the older client's end")
        link = older.seat.link
        assert link.status is Status.ENDED and link.code == p.SEAT_TAKEN
        assert "someone else joined with your seat's address" in link.reason and "Ana" in link.reason
        errors = [m for m in older.of(p.ErrorMsg) if isinstance(m, p.ErrorMsg)]
        assert [e.code for e in errors] == [p.SEAT_TAKEN]
        assert older.statuses == [Status.CONNECTED, Status.ENDED], "it reconnected or dropped first"
        await wait_until(lambda: newer.seat.connected, what="the newer client")
        assert older.seat.connections == 1 and newer.seat.connections == 1 and server.connected[0]
        assert any("Ana's seat was joined from another connection" in line for line in said), said
        await newer.stop()


@asynccontextmanager
async def closing_server(code: int, reason: str) -> AsyncIterator[tuple[str, list[int]]]:
    """A server that reads ``hello`` and closes with ``code`` and ``reason``, sending no error
    message; its address and how many connections it had."""
    count: list[int] = []

    async def handle(ws: ServerConnection) -> None:
        count.append(1)
        await ws.recv()
        await ws.close(code, reason)

    async with serve(handle, "127.0.0.1", 0) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        yield f"ws://127.0.0.1:{port}", count


@pytest.mark.parametrize(("code", "reason"), [(1000, p.SEAT_TAKEN), (1008, p.BAD_TOKEN)])
async def test_a_close_naming_a_final_code_ends_the_client_without_its_error_message(code: int, reason: str) -> None:
    async with closing_server(code, reason) as (base, count):
        client = recorded(base + seat_path("x" * p.TOKEN_LENGTH))
        assert client.task is not None
        await asyncio.wait_for(client.task, 10)
        assert client.seat.link.status is Status.ENDED and client.seat.link.code == reason
        assert len(count) == 1, "the client connected again"


async def test_a_close_without_a_final_code_is_a_drop_the_client_comes_back_from() -> None:
    async with closing_server(1000, "") as (base, count):
        client = recorded(base + seat_path("x" * p.TOKEN_LENGTH))
        await wait_until(lambda: len(count) >= 2, what="a second connection")
        assert Status.RECONNECTING in client.statuses
        await client.stop()
