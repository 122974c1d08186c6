"""The memory one served table takes: N tables of 4 people's seats behind one listener, measured
with tracemalloc in the server's process. Prints ``name: value`` lines.

    python tests/benchmarks/bench_table_memory.py [--tables 50] [--top 12]

* ``session_kib_per_table``: its match dealt (a :class:`MatchSession`);
  ``idle_kib_per_table``: with a :class:`ServedTable` made and started (its run loop waiting),
  no one connected; ``table_server_kib_per_table``: the same as host serves it, a
  :class:`TableServer` with a listener of its own.
* ``seated_kib_per_table``: once each table's 4 seats are connected (clients in a process of
  their own), have said hello and had their state: the connections' share (websockets buffers,
  the queue of each client) on top.
* ``top``: where the seated tables' connections took their memory (file:line, KiB per table).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import multiprocessing
import tracemalloc
from multiprocessing.connection import Connection

from kc_tui.engine import Rules
from kc_tui.match.roster import Seat
from kc_tui.match.session import MatchSession
from kc_tui.net import schema as p
from kc_tui.net.listener import Endpoint, Listener
from kc_tui.net.protocol import write
from kc_tui.net.server import TableServer
from kc_tui.net.table_service import ServedTable

SEATS = 4


def session(number: int) -> MatchSession:
    return MatchSession.hosted([Seat(f"P{number}-{i}", "human") for i in range(SEATS)], Rules(target=500), seed=number)


def traced_kib() -> float:
    gc.collect()
    return tracemalloc.get_traced_memory()[0] / 1024


# ---------------------------------------------------------------------- the clients
async def hold_seats(urls: list[str], ready: Connection, stop: Connection) -> None:
    from websockets.asyncio.client import connect

    connections = [await connect(u, max_size=p.MAX_MESSAGE, compression=None, open_timeout=60) for u in urls]
    for ws in connections:
        await ws.send(write(p.Hello("bench")))
    for ws in connections:
        while '"type":"state"' not in str(await ws.recv()).replace(" ", ""):
            pass
    ready.send(len(connections))
    await asyncio.get_running_loop().run_in_executor(None, stop.recv)
    for ws in connections:
        await ws.close()


def client_process(urls: list[str], ready: Connection, stop: Connection) -> None:
    asyncio.run(hold_seats(urls, ready, stop))


# ---------------------------------------------------------------------- the server
async def measure(args: argparse.Namespace) -> None:
    tables: dict[str, ServedTable] = {}

    def route(path: str) -> Endpoint | tuple[int, str]:
        _empty, table_id, rest = path.split("/", 2) if path.count("/") >= 2 else ("", "", "")
        table = tables.get(table_id)
        if table is None:
            return 404, "no such table"
        refused = table.admits(rest)
        return table.endpoint(rest) if refused is None else refused

    listener = Listener(route, max_connections=SEATS * args.tables + 10)
    port = await listener.start("127.0.0.1", 0)
    tracemalloc.start(1)
    before = traced_kib()
    sessions = [session(n) for n in range(args.tables)]
    dealt = traced_kib()
    for n, s in enumerate(sessions):
        table = ServedTable(s, table_id=f"t{n}", stand_in=0, ai_delay=0, round_pause=0)
        await table.start()
        tables[table.table_id] = table
    await asyncio.sleep(0)
    idle = traced_kib()
    snap0 = tracemalloc.take_snapshot()

    urls = [f"ws://127.0.0.1:{port}/{tid}/seat/{token}" for tid, t in tables.items() for token in t.tokens.values()]
    ready_in, ready_out = multiprocessing.Pipe(duplex=False)
    stop_in, stop_out = multiprocessing.Pipe(duplex=False)
    clients = multiprocessing.get_context("spawn").Process(target=client_process, args=(urls, ready_out, stop_in))
    clients.start()
    loop = asyncio.get_running_loop()
    connected = await loop.run_in_executor(None, ready_in.recv)
    while not all(all(t.connected) for t in tables.values()):
        await asyncio.sleep(0.05)
    seated = traced_kib()
    snap1 = tracemalloc.take_snapshot()
    stop_out.send(True)
    clients.join()
    for table in tables.values():
        await table.close()
    await listener.close()

    servers: list[TableServer] = []
    plain = [session(n) for n in range(args.tables)]
    start = traced_kib()
    for s in plain:
        server = TableServer(s, stand_in=0, ai_delay=0, round_pause=0)
        await server.start("127.0.0.1", 0)
        servers.append(server)
    own_port = traced_kib()
    for server in servers:
        await server.close()
    tracemalloc.stop()

    n = args.tables
    print(f"tables: {n}")
    print(f"seats_connected: {connected}")
    print(f"session_kib_per_table: {(dealt - before) / n:.1f}")
    print(f"idle_kib_per_table: {(idle - before) / n:.1f}")
    print(f"seated_kib_per_table: {(seated - before) / n:.1f}")
    print(f"table_server_kib_per_table: {(own_port - start) / n:.1f}")
    print("top:")
    for stat in snap1.compare_to(snap0, "lineno")[: args.top]:
        frame = stat.traceback[0]
        print(f"  {frame.filename.rpartition('site-packages/')[2]}:{frame.lineno}: {stat.size_diff / 1024 / n:.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--top", type=int, default=12)
    asyncio.run(measure(parser.parse_args()))


if __name__ == "__main__":
    main()
