"""The cost of a worker's lease renewal (kc_tui/net/cluster/coord.py): one Lua script that extends
the lease and every route and listing of the worker, against a real ``redis-server`` of its own
(tests/cluster/servicekit.RedisServer). Prints ``name: value`` lines.

    nice -n 10 python tests/benchmarks/bench_coord.py [--routes 1 100 400] [--renewals 500]

* For each N of ``--routes``: one worker holding N tables (a route and a listing each, so
  ``2 N + 1`` keys a renewal), ``--renewals`` renewals one after another on one connection.
  ``renew_N_p50_ms`` / ``renew_N_p99_ms``: the time of one :meth:`Coordinator.renew` as the
  worker sees it (round trip included); ``renew_N_redis_us``: the script's time in Redis itself
  (``INFOSTATS``'s ``commandstats`` for ``evalsha``, per call); ``renew_N_write_back_ms``: one
  renewal after a ``FLUSHALL`` (the lease taken again, every key written back).
* ``route_p50_ms``: one :meth:`Coordinator.route` (a route and its worker's lease, one script).

A worker renews once a second (RENEW_EVERY): the goal is a renewal of 400 tables well under
RENEW_EVERY, and Redis's time per renewal small enough for many workers on one Redis.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from kc_tui.net.cluster.coord import Coordinator, open_redis
from tests.cluster.servicekit import RedisServer

LISTING = {"name": "Ana's table", "seats": ["Ana", "Bo", "AI 1", "AI 2"], "round": 3, "watching": 2}


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def evalsha_usec(coord: Coordinator) -> tuple[int, int]:
    stats = await coord.redis.info("commandstats")
    found = stats.get("cmdstat_evalsha", {})
    return int(found.get("calls", 0)), int(found.get("usec", 0))


async def measure(url: str, routes: int, renewals: int) -> dict[str, float]:
    client = open_redis(url)
    coord = Coordinator(client, f"bench-{routes}", "ws://127.0.0.1:9")
    try:
        await client.flushall()
        assert await coord.acquire()
        for n in range(routes):
            await coord.set_route(f"t{n}", 1)
            await coord.set_listing(f"t{n}", LISTING)
        assert await coord.renew()  # the script loaded
        calls0, usec0 = await evalsha_usec(coord)
        times: list[float] = []
        for _ in range(renewals):
            start = time.perf_counter()
            assert await coord.renew()
            times.append((time.perf_counter() - start) * 1000)
        calls1, usec1 = await evalsha_usec(coord)
        backs: list[float] = []
        for _ in range(20):
            await client.flushall()
            start = time.perf_counter()
            assert await coord.renew()
            backs.append((time.perf_counter() - start) * 1000)
        route_times: list[float] = []
        for n in range(200):
            start = time.perf_counter()
            assert await coord.route(f"t{n % max(routes, 1)}") is not None
            route_times.append((time.perf_counter() - start) * 1000)
        await coord.release()
        return {
            f"renew_{routes}_p50_ms": pct(times, 0.50),
            f"renew_{routes}_p99_ms": pct(times, 0.99),
            f"renew_{routes}_redis_us": (usec1 - usec0) / max(calls1 - calls0, 1),
            f"renew_{routes}_write_back_ms": statistics.median(backs),
            "route_p50_ms": pct(route_times, 0.50),
        }
    finally:
        await coord.aclose()
        await client.aclose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--routes", type=int, nargs="+", default=[1, 100, 400])
    parser.add_argument("--renewals", type=int, default=500)
    args = parser.parse_args()
    server = RedisServer()
    server.start()
    try:
        print(f"renewals: {args.renewals}")
        for routes in args.routes:
            for name, value in asyncio.run(measure(server.url, routes, args.renewals)).items():
                print(f"{name}: {value:.3f}")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
