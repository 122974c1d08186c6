"""The gateway carries a client's socket to its table's worker: frames pass both ways as they are,
a table without a route is waited for (then 404), a worker that dies or a route that moves closes
the clients with 1012 and they come back through the new route, the door's limits hold before any
worker sees a socket, and no seat's token reaches the log.

The workers here are small real WebSocket servers that echo what they are sent (in-process, on
free ports); their routes are set through the coordinator as a worker sets them, in fakeredis."""

from __future__ import annotations

import asyncio
import logging
import os
import random
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from http import HTTPStatus
from typing import Any

import fakeredis
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.http11 import Request, Response

from kc_tui.net import lobby_schema as ls
from kc_tui.net.cluster.coord import Coordinator, Route, open_redis
from kc_tui.net.cluster.gateway import (
    Gateway,
    gateway_not_found_text,
    gateway_root_text,
    moving_text,
    routes_down_text,
    serve_gateway,
)
from kc_tui.net.hub import no_table_text
from kc_tui.net.listener import MAX_FRAME, Endpoint, Listener, address_full_text
from kc_tui.net.protocol import parse_lobby_server, write
from kc_tui.net.table_service import ServedTable
from tests.cluster.servicekit import free_port
from tests.net.serverkit import join, play_on, raw_connection, session_for
from tests.waiting import wait_for, wait_until

TABLE = "tAbLe_1"
TOKEN = "s3cr3t-seat-token-do-not-log"
#: A route wait no test reaches (a loaded machine is slow, not broken).
LONG_WAIT = 60.0


class EchoWorker:
    """A worker's port: it serves the sockets of its ``tables`` (``/t/<table>/seat/<token>``,
    ``/t/<table>/watch``; any other path 404), keeps what each sends, and sends it back; a
    message ``close <code> <reason>`` closes that socket so."""

    def __init__(self, name: str, tables: set[str]) -> None:
        self.name = name
        self.tables = tables
        #: The line a full worker refuses every socket with (None: it takes them).
        self.full: str | None = None
        self.received: list[str | bytes] = []
        self.paths: list[str] = []
        self.open: set[ServerConnection] = set()
        self.closed_codes: list[int | None] = []
        self.server: Server | None = None
        self.address = ""

    async def start(self) -> None:
        self.server = await serve(self._handle, "127.0.0.1", 0, process_request=self._process, max_size=None)
        port = next(iter(self.server.sockets)).getsockname()[1]
        self.address = f"ws://127.0.0.1:{port}"

    def _process(self, connection: ServerConnection, request: Request) -> Response | None:
        if self.full is not None:
            return connection.respond(HTTPStatus.SERVICE_UNAVAILABLE, self.full + "\n")
        parts = request.path.split("/")
        if len(parts) >= 4 and parts[1] == "t" and parts[2] in self.tables:
            return None
        return connection.respond(HTTPStatus.NOT_FOUND, "no such table here\n")

    async def _handle(self, ws: ServerConnection) -> None:
        self.paths.append(ws.request.path if ws.request is not None else "")
        self.open.add(ws)
        try:
            async for message in ws:
                self.received.append(message)
                if isinstance(message, str) and message.startswith("close "):
                    _word, code, reason = message.split(" ", 2)
                    await ws.close(int(code), reason)
                else:
                    await ws.send(message)
        except ConnectionClosed:
            pass
        finally:
            self.closed_codes.append(ws.close_code)
            self.open.discard(ws)

    def kill(self) -> None:
        """The worker's process dies: its sockets cut without a close, its port shut."""
        assert self.server is not None
        for ws in list(self.open):
            ws.transport.abort()
        self.server.close()

    async def stop(self) -> None:
        if self.server is not None:
            self.server.close()
            await self.server.wait_closed()


class Cluster:
    """A gateway and the workers behind it, over one fakeredis."""

    def __init__(self, redis_server: fakeredis.FakeServer, gateway: Gateway) -> None:
        self.redis_server = redis_server
        self.gateway = gateway
        self.url = f"ws://127.0.0.1:{gateway.port}"
        self.workers: list[EchoWorker] = []

    def redis(self) -> fakeredis.FakeAsyncRedis:
        return fakeredis.FakeAsyncRedis(server=self.redis_server)

    async def worker(self, name: str, *tables: str) -> tuple[EchoWorker, Coordinator]:
        """A running worker holding a lease (no table routed to it yet)."""
        worker = EchoWorker(name, set(tables))
        await worker.start()
        self.workers.append(worker)
        coord = Coordinator(self.redis(), name, worker.address)
        assert await coord.acquire()
        return worker, coord

    def seat(self, table: str = TABLE) -> str:
        return f"{self.url}/t/{table}/seat/{TOKEN}"


@asynccontextmanager
async def cluster(**options: Any) -> AsyncIterator[Cluster]:
    redis_server = fakeredis.FakeServer()
    options.setdefault("route_wait", LONG_WAIT)
    gateway = Gateway(fakeredis.FakeAsyncRedis(server=redis_server), **options)
    await gateway.start()
    kit = Cluster(redis_server, gateway)
    try:
        yield kit
    finally:
        await gateway.close()
        for worker in kit.workers:
            await worker.stop()


async def served(kit: Cluster, table: str = TABLE, name: str = "w1") -> tuple[EchoWorker, Coordinator]:
    """A worker serving ``table``, its route set (epoch 1)."""
    worker, coord = await kit.worker(name, table)
    await coord.set_route(table, 1)
    return worker, coord


async def closed_with(ws: ClientConnection) -> tuple[int | None, str | None]:
    """The code and reason the gateway closed ``ws`` with (anything it still sends is skipped)."""
    with pytest.raises(ConnectionClosed):
        while True:
            await asyncio.wait_for(ws.recv(), LONG_WAIT)
    return ws.close_code, ws.close_reason


async def refused(url: str) -> tuple[int, str]:
    with pytest.raises(InvalidStatus) as caught:
        await connect(url, open_timeout=LONG_WAIT + 30)
    response = caught.value.response
    return response.status_code, (response.body or b"").decode()


async def test_frames_pass_both_ways_as_they_are_and_in_order() -> None:
    async with cluster() as kit:
        worker, _coord = await served(kit)
        sent: list[str | bytes] = ["first", b"\x00\xffbinary", "é ünïcode ♠", "x" * 5000, b"", "last"]
        async with connect(kit.seat()) as ws:
            for message in sent:
                await ws.send(message)
            got = [await asyncio.wait_for(ws.recv(), LONG_WAIT) for _ in sent]
        assert got == sent
        assert [type(m) for m in got] == [type(m) for m in sent]
        assert worker.received == sent
        assert worker.paths == [f"/t/{TABLE}/seat/{TOKEN}"]


async def test_a_real_table_is_played_to_its_end_through_the_gateway() -> None:
    table = ServedTable(session_for(), table_id=TABLE, ai_delay=0.0, round_pause=0.0, stand_in=0, stand_in_think_ms=30)

    def route(path: str) -> Endpoint | tuple[int, str]:
        rest = path.removeprefix(f"/t/{TABLE}/")
        return table.admits(rest) or table.endpoint(rest)

    listener = Listener(route)
    port = await listener.start()
    await table.start()
    try:
        async with cluster() as kit:
            coord = Coordinator(kit.redis(), "real", f"ws://127.0.0.1:{port}")
            assert await coord.acquire()
            await coord.set_route(TABLE, 1)
            seats = [await join(f"{kit.url}/t/{TABLE}/seat/{token}") for token in (table.tokens[0], table.tokens[1])]
            watcher = await join(f"{kit.url}/t/{TABLE}/watch")
            rng = random.Random(7)
            await asyncio.gather(*(play_on(client, rng, lambda: table.over, timeout=120) for client in seats))
            clients = (*seats, watcher)
            await wait_until(lambda: all(c.state.over and c.state.stamp == table.stamp for c in clients))
            assert [c.state.seat for c in clients] == [0, 1, None]
            assert all(c.leaks == [] for c in clients)
            for client in clients:
                await client.close()
    finally:
        await table.close()
        await listener.close()


async def test_a_watchers_path_is_carried_to_the_worker_too() -> None:
    async with cluster() as kit:
        worker, _coord = await served(kit)
        async with connect(f"{kit.url}/t/{TABLE}/watch") as ws:
            await ws.send("hello")
            assert await asyncio.wait_for(ws.recv(), LONG_WAIT) == "hello"
        assert worker.paths == [f"/t/{TABLE}/watch"]


async def test_a_table_without_a_route_is_answered_404_after_the_wait() -> None:
    async with cluster(route_wait=0.2) as kit:
        status, body = await refused(kit.seat("nobody-serves-this"))
    assert status == HTTPStatus.NOT_FOUND
    assert body == no_table_text() + "\n"


async def test_a_table_between_two_workers_is_answered_503_to_try_again() -> None:
    async with cluster(route_wait=0.2) as kit:
        _worker, coord = await served(kit)
        await coord.release()  # its worker gone: the route is no one's, the table still known
        status, body = await refused(kit.seat())
        assert (status, body) == (HTTPStatus.SERVICE_UNAVAILABLE, moving_text() + "\n")
        _worker, coord = await served(kit, name="w2")
        await coord.forget(TABLE)  # its match ended: no table of this cluster any more
        status, body = await refused(kit.seat())
        assert (status, body) == (HTTPStatus.NOT_FOUND, no_table_text() + "\n")


async def test_a_table_whose_route_cannot_be_read_is_answered_503() -> None:
    gateway = Gateway(open_redis(f"redis://127.0.0.1:{free_port()}/0"), route_wait=0.2)
    await gateway.start()
    try:
        status, body = await refused(f"ws://127.0.0.1:{gateway.port}/t/{TABLE}/watch")
    finally:
        await gateway.close()
    assert (status, body) == (HTTPStatus.SERVICE_UNAVAILABLE, routes_down_text() + "\n")


async def test_a_client_gone_during_the_wait_ends_it(caplog: pytest.LogCaptureFixture) -> None:
    async with cluster(route_wait=3 * LONG_WAIT) as kit:  # longer than the test waits
        _reader, writer = await raw_connection(kit.gateway.port or 0)
        request = (
            f"GET /t/{TABLE}/seat/{TOKEN} HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )
        writer.write(request.encode())
        await wait_until(lambda: TABLE in kit.gateway._wakes, what="the gateway waiting for the table's route")
        writer.close()
        await wait_until(lambda: TABLE not in kit.gateway._wakes, what="the wait given up")
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []


async def test_a_route_that_appears_during_the_wait_is_followed() -> None:
    async with cluster() as kit:
        worker, coord = await kit.worker("w1", TABLE)
        opening = asyncio.ensure_future(connect(kit.seat(), open_timeout=LONG_WAIT + 30))
        await wait_until(lambda: TABLE in kit.gateway._wakes, what="the gateway waiting for the table's route")
        assert not opening.done()
        await coord.set_route(TABLE, 1)
        ws = await opening
        await ws.send("after the wait")
        assert await asyncio.wait_for(ws.recv(), LONG_WAIT) == "after the wait"
        await ws.close()
        assert worker.received == ["after the wait"]


async def test_a_worker_that_dies_closes_its_clients_with_1012() -> None:
    async with cluster() as kit:
        worker, _coord = await served(kit)
        async with connect(kit.seat()) as ws:
            await ws.send("ping")
            assert await asyncio.wait_for(ws.recv(), LONG_WAIT) == "ping"
            worker.kill()
            code, _reason = await closed_with(ws)
        assert code == 1012


@pytest.mark.parametrize(
    ("code", "reason"),
    [(1008, "bad-token"), (1000, "closed"), (1001, "closed"), (1011, "oops"), (1012, "restart"), (4000, "own")],
)
async def test_the_workers_close_reaches_the_client_with_its_code_and_reason(code: int, reason: str) -> None:
    async with cluster() as kit:
        await served(kit)
        async with connect(kit.seat()) as ws:
            await ws.send(f"close {code} {reason}")
            assert await closed_with(ws) == (code, reason)


async def test_a_moved_route_closes_the_clients_with_1012_and_they_come_back_through_the_new_one() -> None:
    async with cluster() as kit:
        first, _coord = await served(kit)
        second, second_coord = await kit.worker("w2", TABLE)
        async with connect(kit.seat()) as ws:
            await ws.send("to the first")
            assert await asyncio.wait_for(ws.recv(), LONG_WAIT) == "to the first"
            await second_coord.set_route(TABLE, 2)
            code, _reason = await closed_with(ws)
        assert code == 1012
        await wait_until(lambda: not first.open, what="the first worker's socket closed")
        async with connect(kit.seat()) as ws:
            await ws.send("to the second")
            assert await asyncio.wait_for(ws.recv(), LONG_WAIT) == "to the second"
        assert first.received == ["to the first"]
        assert second.received == ["to the second"]


async def test_the_same_route_told_again_keeps_the_clients(monkeypatch: pytest.MonkeyPatch) -> None:
    async with cluster() as kit:
        told: list[Route] = []
        changed = kit.gateway._changed

        def telling(route: Route) -> None:
            told.append(route)
            changed(route)

        monkeypatch.setattr(kit.gateway, "_changed", telling)
        worker, coord = await served(kit)
        async with connect(kit.seat()) as ws:
            await ws.send("in")
            assert await asyncio.wait_for(ws.recv(), LONG_WAIT) == "in"
            await coord.set_route(TABLE, 1)  # told again (a worker claiming its own table back tells it so)
            await wait_until(lambda: len(told) == 2, what="the gateway told the route twice")
            await ws.send("still here")
            assert await asyncio.wait_for(ws.recv(), LONG_WAIT) == "still here"
            assert ws.close_code is None
        assert worker.received == ["in", "still here"]


async def test_a_socket_waits_out_a_dead_worker_until_its_table_is_served_again() -> None:
    async with cluster() as kit:
        dead, _dead_coord = await served(kit)
        await dead.stop()  # its lease and route outlive it for a while
        async with connect(kit.seat()) as ws:
            await ws.send("anyone?")
            second, coord = await kit.worker("w2", TABLE)
            await coord.set_route(TABLE, 2)
            assert await asyncio.wait_for(ws.recv(), LONG_WAIT) == "anyone?"
        assert second.received == ["anyone?"]
        assert second.paths == [f"/t/{TABLE}/seat/{TOKEN}"]


async def test_a_worker_that_does_not_serve_the_table_closes_the_client_with_1012_after_the_wait() -> None:
    async with cluster(route_wait=0.3) as kit:
        worker, coord = await kit.worker("w1", "some-other-table")
        await coord.set_route(TABLE, 1)  # a stale route: the worker does not serve the table (any more)
        async with connect(kit.seat()) as ws:
            assert await closed_with(ws) == (1012, "no such table here")
        assert worker.paths == []


async def test_a_full_worker_closes_the_client_to_try_again_later_with_its_line() -> None:
    async with cluster() as kit:
        worker, _coord = await served(kit)
        worker.full = "This table is full: try again later."
        async with connect(kit.seat()) as ws:
            assert await closed_with(ws) == (1013, worker.full)
        assert worker.paths == []


async def test_a_closing_gateway_closes_its_clients_and_their_workers_sockets() -> None:
    async with cluster() as kit:
        worker, _coord = await served(kit)
        ws = await connect(kit.seat())
        await ws.send("in")
        assert await asyncio.wait_for(ws.recv(), LONG_WAIT) == "in"
        await kit.gateway.close()
        code, _reason = await closed_with(ws)
        assert code == 1001
        await wait_until(lambda: not worker.open, what="the worker's socket closed")


async def test_a_client_that_closes_closes_its_workers_socket() -> None:
    async with cluster() as kit:
        worker, _coord = await served(kit)
        async with connect(kit.seat()) as ws:
            await ws.send("bye")
            assert await asyncio.wait_for(ws.recv(), LONG_WAIT) == "bye"
        await wait_until(lambda: worker.closed_codes, what="the worker's socket closed")
        assert worker.closed_codes == [1000]
        assert not worker.open


async def test_sockets_waiting_for_tables_that_never_come_keep_no_seat_out() -> None:
    """Sixteen sockets from sixteen other addresses wait for a table no worker serves, in a
    handshake pool of eight: a seat of a served table still gets in (the oldest gives way)."""
    async with cluster(route_wait=LONG_WAIT, max_handshakes=8) as kit:
        await served(kit)

        async def wait_in_the_pool(source: str) -> ClientConnection:
            return await connect(kit.seat("nobody-serves-this"), local_addr=(source, 0))

        waiting = [asyncio.create_task(wait_in_the_pool(f"127.0.0.{n}")) for n in range(2, 18)]
        try:
            await wait_until(
                lambda: sum(kit.gateway.listener.door.counts.values()) >= 8, what="the handshake pool full"
            )
            for _ in range(3):
                async with connect(kit.seat()) as ws:
                    await ws.send("hello")
                    assert await asyncio.wait_for(ws.recv(), LONG_WAIT) == "hello"
            assert kit.gateway.listener.door.given_way >= 3
        finally:
            for task in waiting:
                task.cancel()
            await asyncio.gather(*waiting, return_exceptions=True)


async def test_the_per_address_limit_refuses_the_extra_socket_before_any_worker_sees_it() -> None:
    async with cluster(per_address=2) as kit:
        worker, _coord = await served(kit)
        async with connect(kit.seat()) as one, connect(f"{kit.url}/t/{TABLE}/watch") as two:
            for ws in (one, two):
                await ws.send("in")
                assert await asyncio.wait_for(ws.recv(), LONG_WAIT) == "in"
            assert await refused(kit.seat()) == (HTTPStatus.SERVICE_UNAVAILABLE, address_full_text() + "\n")
        assert len(worker.paths) == 2


async def test_a_huge_frame_is_refused_at_the_door_and_never_reaches_the_worker() -> None:
    async with cluster() as kit:
        worker, _coord = await served(kit)
        async with connect(kit.seat()) as ws:
            await ws.send("small")
            assert await asyncio.wait_for(ws.recv(), LONG_WAIT) == "small"
            await ws.send("x" * (MAX_FRAME + 1))
            code, _reason = await closed_with(ws)
        assert code == 1009
        await wait_until(lambda: not worker.open, what="the worker's socket closed")
        assert worker.received == ["small"]


async def test_the_gateways_own_paths_are_answered_with_one_line() -> None:
    async with cluster(route_wait=0.2) as kit:
        assert await refused(f"{kit.url}/") == (HTTPStatus.OK, gateway_root_text() + "\n")
        assert await refused(f"{kit.url}/elsewhere") == (HTTPStatus.NOT_FOUND, gateway_not_found_text() + "\n")
        assert await refused(f"{kit.url}/t/{TABLE}/seat/") == (HTTPStatus.NOT_FOUND, gateway_not_found_text() + "\n")
        assert await refused(f"{kit.url}/t/{TABLE}/play") == (HTTPStatus.NOT_FOUND, gateway_not_found_text() + "\n")
        assert await refused(f"{kit.url}/t/no%20such/watch") == (HTTPStatus.NOT_FOUND, no_table_text() + "\n")


async def test_no_seat_token_reaches_the_gateways_log(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    async with cluster(route_wait=0.2) as kit:
        worker, _coord = await served(kit)
        async with connect(kit.seat()) as ws:
            await ws.send("a move")
            assert await asyncio.wait_for(ws.recv(), LONG_WAIT) == "a move"
        await wait_until(lambda: not worker.open, what="the worker's socket closed")
        await refused(kit.seat("unserved"))  # the route's wait
        lost, coord = await kit.worker("w-lost", "lost")
        await coord.set_route("lost", 1)
        await lost.stop()
        async with connect(kit.seat("lost")) as ws:  # a worker that cannot be reached
            await closed_with(ws)
    # The test's own client and worker are the websockets library's loggers: the gateway's are kc_tui's.
    logged = [record for record in caplog.records if record.name.startswith("kc_tui")]
    upstream = [record.getMessage() for record in logged if record.name == "kc_tui.net.cluster.gateway.ws"]
    assert f"> GET /t/{TABLE}/seat/<token> HTTP/1.1" in upstream, "the worker's path is logged, redacted"
    assert any(record.name == "kc_tui.net.cluster.gateway" for record in logged)
    for record in logged:
        assert TOKEN not in record.getMessage()
        assert TOKEN not in (caplog.handler.format(record) if record.exc_info else "")


# ---------------------------------------------------------------------- serve_gateway
def test_a_gateway_whose_redis_cannot_be_reached_says_so_in_one_line() -> None:
    lines: list[str] = []
    code = serve_gateway(f"redis://:hunter2@127.0.0.1:{free_port()}/0", bind="127.0.0.1", port=0, status=lines.append)
    assert code == 2
    assert len(lines) == 1
    assert "Redis" in lines[0]
    assert "hunter2" not in lines[0]


def test_a_bad_redis_address_is_one_line() -> None:
    lines: list[str] = []
    assert serve_gateway("http://example.org", bind="127.0.0.1", port=0, status=lines.append) == 2
    assert len(lines) == 1


@pytest.fixture
def gateway_process(redis_url: str) -> Iterator[subprocess.Popen[str]]:
    script = (
        "import sys\n"
        "from kc_tui.net.cluster.gateway import serve_gateway\n"
        "sys.exit(serve_gateway(sys.argv[1], bind='127.0.0.1', port=0, status=lambda l: print(l, flush=True)))\n"
    )
    env = {**os.environ, "LANG": "C.UTF-8", "LANGUAGE": "en"}
    proc = subprocess.Popen([sys.executable, "-c", script, redis_url], stdout=subprocess.PIPE, text=True, env=env)
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        assert proc.stdout is not None
        proc.stdout.close()


def test_a_gateway_serves_until_sigterm(gateway_process: subprocess.Popen[str]) -> None:
    assert gateway_process.stdout is not None
    line = gateway_process.stdout.readline().strip()
    assert line.startswith("gateway serving at ws://127.0.0.1:"), line
    port = int(line.rsplit(":", 1)[1])

    async def lobby() -> list[object]:
        async with connect(f"ws://127.0.0.1:{port}/lobby") as ws:
            await ws.send(write(ls.LobbyHello("test")))
            return [parse_lobby_server(await ws.recv()) for _ in range(2)]

    challenge, listing = asyncio.run(lobby())
    assert isinstance(challenge, ls.Challenge) and listing == ls.LobbyMsg(()), "an empty cluster's lobby"
    gateway_process.send_signal(signal.SIGTERM)
    assert wait_for(lambda: gateway_process.poll() is not None, what="the gateway ending") is True
    assert gateway_process.returncode == 0
