"""Load of the table server: N tables of 4 remote seats, every seat a simulated client on
loopback in a client process of its own. Prints ``name: value`` lines.

    nice -n 10 python tests/benchmarks/bench_server.py [--tables 100] [--seconds 20] [--think-ms 250]
    nice -n 10 python tests/benchmarks/bench_server.py --server [--tables 150] [--watchers 20] ...

With ``--server`` it measures ``kings-corners server`` instead: the tables found and filled
through its lobby, lobby watchers beside them (``bench_hub.py``, whose options it takes).
Without, each table is a ``TableServer`` of its own (``host``'s), on one loop:

* The server process runs every table (one :class:`TableServer` each, on one asyncio loop: one
  core); the client process runs every seat's client (websockets, one loop).
* A client whose seat is on turn waits ``--think-ms`` (a quick person), then sends a move chosen
  at random from its ``legal`` list; ``rtt`` is the time from sending it to receiving the next
  state (the state built and sent for every seat of that table).
* ``moves_per_s``: moves made at all tables per wall-clock second; ``server_cpu_share``: the
  server process's CPU time over the wall-clock time of the run (1.0: one core busy).
* The first ``WARM_UP`` seconds (every client connecting and saying hello at once) are played
  but not measured. On a virtual machine, ``st`` in ``vmstat`` (time stolen by the host) shows
  in ``server_loop_lag_*`` and the round trips' tail whatever the server does.
* ``server_rss_per_table_kib``: the growth of the server's resident memory from before the tables
  were made to the end of the run, per table.

Target (one core): 100 tables of 4 seats with rtt_p99_ms < 50.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import random
import resource
import statistics
import time
from multiprocessing.connection import Connection

from kc_tui.engine import Rules, parse_move
from kc_tui.match.roster import Seat
from kc_tui.match.session import MatchSession
from kc_tui.net import schema as p
from kc_tui.net.protocol import write
from kc_tui.net.server import TableServer, seat_path

#: Seconds of play before the round trips are measured (every client connects at once first).
WARM_UP = 3.0


def rss_kib() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * (os.sysconf("SC_PAGE_SIZE") // 1024)


# ---------------------------------------------------------------------- the clients
async def seat_client(
    url: str, think: float, stop_at: float, warm_until: float, rtts: list[float], counts: dict[str, int]
) -> None:
    from websockets.asyncio.client import connect

    rng = random.Random(url)
    async with connect(url, max_size=p.MAX_MESSAGE, compression=None, open_timeout=60) as ws:
        await ws.send(write(p.Hello("bench")))
        sent_at: float | None = None
        sent_stamp = -1
        pending: asyncio.Task[None] | None = None

        async def move(stamp: int, legal: list[str]) -> None:
            nonlocal sent_at, sent_stamp
            await asyncio.sleep(think * rng.uniform(0.5, 1.5))
            plays = [m for m in legal if m != "end"]
            choice = rng.choice(plays) if plays and rng.random() < 0.8 else "end" if "end" in legal else legal[0]
            sent_at, sent_stamp = time.perf_counter(), stamp
            await ws.send(write(p.MoveRequest(parse_move(choice), stamp)))

        while time.perf_counter() < stop_at:
            try:
                text = await asyncio.wait_for(ws.recv(), max(0.1, stop_at - time.perf_counter()))
            except TimeoutError:
                break
            received = time.perf_counter()
            message = json.loads(text)  # the fields a move needs only: the client stays cheap
            kind = message["type"]
            if kind == "state":
                if sent_at is not None and message["stamp"] != sent_stamp:
                    if sent_at >= warm_until:  # the first seconds: every client connecting at once
                        rtts.append(received - sent_at)
                    counts["moves"] += 1
                    sent_at = None
                view = message["view"]
                if view["over"]:
                    counts["matches_over"] += 1
                    break
                if view["legal"] and (pending is None or pending.done()) and sent_at is None:
                    pending = asyncio.create_task(move(message["stamp"], view["legal"]))
            elif kind in ("error", "refused"):
                counts[message.get("code", "refused")] += 1
                sent_at = None
        if pending is not None:
            pending.cancel()


async def all_clients(urls: list[str], think: float, seconds: float) -> tuple[list[float], dict[str, int]]:
    rtts: list[float] = []
    counts: dict[str, int] = {"moves": 0, "matches_over": 0}
    from collections import defaultdict

    tally: defaultdict[str, int] = defaultdict(int, counts)
    warm_until = time.perf_counter() + WARM_UP
    stop_at = warm_until + seconds
    results = await asyncio.gather(
        *(seat_client(u, think, stop_at, warm_until, rtts, tally) for u in urls), return_exceptions=True
    )
    failed = [r for r in results if isinstance(r, BaseException)]
    tally["clients_failed"] = len(failed)
    return rtts, dict(tally)


def client_process(urls: list[str], think: float, seconds: float, out: Connection) -> None:
    wall0, cpu0 = time.perf_counter(), time.process_time()
    rtts, counts = asyncio.run(all_clients(urls, think, seconds))
    counts["client_cpu_share_pct"] = round(100 * (time.process_time() - cpu0) / (time.perf_counter() - wall0))
    out.send((rtts, counts))
    out.close()


# ---------------------------------------------------------------------- the server
async def loop_lag(lags: list[float], every: float = 0.01) -> None:
    """How late the server's loop wakes a 10 ms timer: the time a message waits for the loop
    (from the end of the warm-up)."""
    await asyncio.sleep(WARM_UP)
    while True:
        t = time.perf_counter()
        await asyncio.sleep(every)
        lags.append(time.perf_counter() - t - every)


async def serve(args: argparse.Namespace) -> None:
    rules = Rules(target=500)
    base_rss = rss_kib()
    servers: list[TableServer] = []
    urls: list[str] = []
    for t in range(args.tables):
        seats = [Seat(f"P{t}-{i}", "human") for i in range(args.seats)]
        server = TableServer(MatchSession.hosted(seats, rules, seed=t), stand_in=0, ai_delay=0, round_pause=0)
        port = await server.start("127.0.0.1", 0)
        servers.append(server)
        urls += [f"ws://127.0.0.1:{port}{seat_path(server.tokens[i])}" for i in range(args.seats)]
    receiver, sender = multiprocessing.Pipe(duplex=False)
    clients = multiprocessing.get_context("spawn").Process(
        target=client_process, args=(urls, args.think_ms / 1000, args.seconds, sender)
    )
    profiler = None
    if args.profile:
        import cProfile

        profiler = cProfile.Profile()
        profiler.enable()
    cpu0, wall0 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    clients.start()
    loop = asyncio.get_running_loop()
    lags: list[float] = []
    ticker = asyncio.create_task(loop_lag(lags))
    rtts, counts = await loop.run_in_executor(None, receiver.recv)
    ticker.cancel()
    wall = time.perf_counter() - wall0
    cpu1 = resource.getrusage(resource.RUSAGE_SELF)
    if profiler is not None:
        profiler.disable()
    rss = rss_kib()
    clients.join()
    for server in servers:
        await server.close()
    cpu = (cpu1.ru_utime + cpu1.ru_stime) - (cpu0.ru_utime + cpu0.ru_stime)
    rtts.sort()

    def pct(q: float) -> float:
        return 1000 * rtts[min(len(rtts) - 1, int(q * len(rtts)))] if rtts else float("nan")

    print(f"tables: {args.tables}")
    print(f"seats_per_table: {args.seats}")
    print(f"clients_connected: {len(urls) - counts.get('clients_failed', 0)}")
    print(f"think_ms: {args.think_ms}")
    print(f"wall_s: {wall:.1f}")
    print(f"moves: {counts['moves']}")
    print(f"moves_per_s: {counts['moves'] / wall:.0f}")
    print(f"rtt_p50_ms: {pct(0.50):.1f}")
    print(f"rtt_p99_ms: {pct(0.99):.1f}")
    print(f"rtt_max_ms: {1000 * rtts[-1] if rtts else float('nan'):.1f}")
    print(f"rtt_mean_ms: {1000 * statistics.fmean(rtts) if rtts else float('nan'):.1f}")
    print(f"server_cpu_share: {cpu / wall:.2f}")
    lags.sort()
    if lags:
        print(f"server_loop_lag_p50_ms: {1000 * lags[len(lags) // 2]:.1f}")
        print(f"server_loop_lag_p99_ms: {1000 * lags[int(0.99 * len(lags))]:.1f}")
    print(f"server_cpu_ms_per_move: {1000 * cpu / max(1, counts['moves']):.2f}")
    print(f"server_rss_per_table_kib: {(rss - base_rss) / args.tables:.0f}")
    for key in sorted(set(counts) - {"moves"}):
        print(f"{key}: {counts[key]}")
    if profiler is not None:
        import pstats

        pstats.Stats(profiler).sort_stats("tottime").print_stats(25)


def main() -> None:
    import sys

    if "--server" in sys.argv[1:]:
        import runpy
        from pathlib import Path

        sys.argv.remove("--server")
        runpy.run_path(str(Path(__file__).with_name("bench_hub.py")), run_name="__main__")
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--seats", type=int, default=4, choices=[2, 3, 4])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--think-ms", type=float, default=250.0, help="a seat's pause before its move (mean)")
    parser.add_argument("--profile", action="store_true", help="print the server's hot spots (cProfile)")
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(4096, hard)), hard))
    asyncio.run(serve(args))


if __name__ == "__main__":
    main()
