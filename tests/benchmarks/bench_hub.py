"""Load of ``kings-corners server``: N all-human tables of 4 seats found and filled through its
lobby, every person a simulated client, W lobby watchers beside them. Prints ``name: value``
lines.

    nice -n 10 python tests/benchmarks/bench_hub.py [--tables 100] [--seconds 20] [--think-ms 250] [--watchers 20]

* The server is a real ``kings-corners server`` subprocess (``--port 0``, a data folder of its
  own, its SQLite store saving every table after every move): one process, one asyncio loop.
* The client process signs every person in (a player key each), the first of a table
  ``create``s it with four people's seats, the three others ``join`` it; when it is full each
  gets ``start`` with their seat's address, connects to it and plays: a seat on turn waits
  ``--think-ms`` (x 0.5 to 1.5), then sends a move chosen at random from its ``legal`` list.
  ``rtt``: from sending a move to receiving the next state.
* The lobby watchers read every delta the lobby sends (``lobby_deltas``).
* Measured: the ``--seconds`` after a warm-up of 3 s (the seats connecting). ``server_cpu_share``:
  the server process's CPU time over that time (from ``/proc/PID/stat``; 1.0: one core busy).
* Memory, from the server's resident size (``VmRSS``): ``server_rss_per_lobby_connection_kib``
  its growth while everyone signed in, per person; ``server_rss_per_table_kib`` its growth from
  then to the end (the tables, their matches and saves, their four seats' connections), per table.

Goal (one core): 500 tables with rtt_p99_ms < 50, under 100 KiB a table.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import resource
import runpy
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from kc_tui.net import lobby_schema as ls
from kc_tui.net import schema as p
from kc_tui.net.protocol import write

#: Seconds of play before the round trips are measured.
WARM_UP = 3.0
TICKS = os.sysconf("SC_CLK_TCK")


def proc_cpu_s(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def proc_rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


# ---------------------------------------------------------------------- the clients
class Person:
    """One person's lobby connection: signed in, requests answered by id."""

    def __init__(self, lobby: str, name: str, folder: Path) -> None:
        from kc_tui.net.identity import PlayerKey

        self.lobby = lobby
        self.name = name
        self.key = PlayerKey.load_or_create(folder)
        self.ws: Any = None
        self.started: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self.joined: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self.reader: asyncio.Task[None] | None = None

    async def sign_in(self) -> None:
        from websockets.asyncio.client import connect

        from kc_tui.net.identity import challenge_bytes

        self.ws = await connect(self.lobby, max_size=p.MAX_MESSAGE, compression=None, open_timeout=120)
        await self.ws.send(write(ls.LobbyHello("bench")))
        challenge = json.loads(await self.ws.recv())
        assert challenge["type"] == "challenge", challenge
        signature = self.key.sign(challenge_bytes(challenge["server"], challenge["nonce"]))
        await self.ws.send(write(ls.SignIn(self.key.public_text, self.name, signature, id=1)))
        while True:
            message = json.loads(await self.ws.recv())
            if message["type"] == "signed-in":
                break
            if message["type"] in ("refused", "error"):
                raise RuntimeError(f"{self.name}: {message}")
        self.reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        async for text in self.ws:
            message = json.loads(text)
            kind = message["type"]
            if kind == "joined" and not self.joined.done():
                self.joined.set_result(message["table"])
            elif kind == "start" and not self.started.done():
                self.started.set_result(message["url"])
            elif kind in ("refused", "error"):
                for future in (self.joined, self.started):
                    if not future.done():
                        future.set_exception(RuntimeError(f"{self.name}: {message}"))


#: One seat's client, the same as the per-table benchmark's: it plays at ``think`` pace and
#: keeps each move's round trip.
seat_client = runpy.run_path(str(Path(__file__).with_name("bench_server.py")))["seat_client"]


async def watcher(lobby: str, stop_at: float, counts: dict[str, int]) -> None:
    from websockets.asyncio.client import connect

    async with connect(lobby, max_size=p.MAX_MESSAGE, compression=None, open_timeout=120) as ws:
        await ws.send(write(ls.LobbyHello("bench-watcher")))
        while time.perf_counter() < stop_at:
            try:
                text = await asyncio.wait_for(ws.recv(), max(0.1, stop_at - time.perf_counter()))
            except TimeoutError:
                break
            kind = json.loads(text)["type"]
            if kind in ("table", "table-gone"):
                counts["lobby_deltas"] += 1


async def one_table(people: list[Person], counts: dict[str, int]) -> list[str]:
    """The first of ``people`` creates a table of four people's seats, the others join it; each
    one's seat address once it starts."""
    rules: dict[str, Any] = {}
    await people[0].ws.send(write(ls.CreateTable(("human",) * 4, 500, rules, id=2)))
    table = await people[0].joined
    for person in people[1:]:
        await person.ws.send(write(ls.JoinTable(table, id=2)))
        await person.joined
    urls = [await person.started for person in people]
    for person in people:  # at the table, as the app does: the listing is not followed meanwhile
        await person.ws.send(write(ls.FollowLobby(False)))
    counts["tables_started"] += 1
    return urls


async def all_clients(
    lobby: str, tables: int, watchers: int, think: float, seconds: float, out: Connection
) -> tuple[list[float], dict[str, int]]:
    """Sign everyone in (then ``signed`` on ``out``), make the tables (``measure``), play: ``go``
    at the end of the warm-up, ``end`` when the measured time is over."""
    tally: defaultdict[str, int] = defaultdict(int, {"moves": 0, "matches_over": 0, "lobby_deltas": 0})
    folder = Path(tempfile.mkdtemp(prefix="bench-hub-keys-"))
    far = time.perf_counter() + 3600
    watching = [asyncio.create_task(watcher(lobby, far, tally)) for _ in range(watchers)]
    limit = asyncio.Semaphore(20)  # a few at a time: a club's evening does not start at one instant

    async def signed(t: int, i: int) -> Person:
        async with limit:
            person = Person(lobby, f"P{t}-{i}", folder / f"{t}-{i}")
            await person.sign_in()
            return person

    t0 = time.perf_counter()
    everyone = await asyncio.gather(*(signed(t, i) for t in range(tables) for i in range(4)))
    tally["sign_in_ms_per_person"] = round(1000 * (time.perf_counter() - t0) / max(1, 4 * tables))
    out.send("signed")
    out.recv()  # the server's memory read

    async def made(t: int) -> list[str]:
        async with limit:
            return await one_table(list(everyone[4 * t : 4 * t + 4]), tally)

    t0 = time.perf_counter()
    urls: list[str] = []
    for found in await asyncio.gather(*(made(t) for t in range(tables)), return_exceptions=True):
        if isinstance(found, BaseException):
            tally["tables_failed"] += 1
            print(f"a table failed: {found!r}"[:300], file=sys.stderr)
        else:
            urls += found
    tally["setup_ms_per_table"] = round(1000 * (time.perf_counter() - t0) / max(1, tables))
    out.send("measure")
    rtts: list[float] = []
    warm_until = time.perf_counter() + WARM_UP
    stop_at = warm_until + seconds
    moves_at: dict[str, int] = {}

    async def window() -> None:
        await asyncio.sleep(warm_until - time.perf_counter())
        moves_at["go"] = tally["moves"]
        out.send("go")
        await asyncio.sleep(stop_at - time.perf_counter())
        moves_at["end"] = tally["moves"]
        out.send("end")

    marks = asyncio.create_task(window())
    results = await asyncio.gather(
        *(seat_client(u, think, stop_at, warm_until, rtts, tally) for u in urls), return_exceptions=True
    )
    await marks
    tally["measured_moves"] = moves_at["end"] - moves_at["go"]
    tally["clients_failed"] = sum(isinstance(r, BaseException) for r in results)
    for task in watching:
        task.cancel()
    return rtts, dict(tally)


def client_process(lobby: str, args: argparse.Namespace, out: Connection) -> None:
    wall0, cpu0 = time.perf_counter(), time.process_time()
    rtts, counts = asyncio.run(all_clients(lobby, args.tables, args.watchers, args.think_ms / 1000, args.seconds, out))
    counts["client_cpu_share_pct"] = round(100 * (time.process_time() - cpu0) / (time.perf_counter() - wall0))
    out.send((rtts, counts))
    out.close()


# ---------------------------------------------------------------------- the server
def start_server(data: Path, profile: Path | None = None) -> tuple[subprocess.Popen[str], str]:
    profiling = ["-m", "cProfile", "-o", str(profile)] if profile is not None else []
    command = [
        sys.executable,
        *profiling,
        "-m",
        "kc_tui",
        "server",
        "--port",
        "0",
        "--data",
        str(data),
        "--ai-delay",
        "0",
        "--round-pause",
        "0",
        "--max-tables",
        "100000",
        "--tables-per-person",
        "100",
        "--max-sockets",
        "16000",
        "--sockets-per-address",
        "0",
    ]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    assert server.stdout is not None
    line = server.stdout.readline()
    if "ws://" not in line:
        server.kill()
        raise SystemExit(f"the server did not start: {line!r}")
    lobby = line.split("lobby: ", 1)[1].strip().rstrip(")") if "lobby: " in line else line.split()[-1] + "/lobby"
    return server, lobby


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--watchers", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--think-ms", type=float, default=250.0, help="a seat's pause before its move (mean)")
    parser.add_argument("--profile", action="store_true", help="print the server's hot spots (cProfile)")
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(65536, hard)), hard))
    data = Path(tempfile.mkdtemp(prefix="bench-hub-data-"))
    profile = data / "server.prof" if args.profile else None
    server, lobby = start_server(data, profile)
    try:
        base_rss = proc_rss_kib(server.pid)
        there, here = multiprocessing.Pipe(duplex=True)
        clients = multiprocessing.get_context("spawn").Process(target=client_process, args=(lobby, args, here))
        clients.start()
        assert there.recv() == "signed"
        signed_rss = proc_rss_kib(server.pid)
        there.send("read")
        assert there.recv() == "measure"  # every table made, its seats about to connect
        assert there.recv() == "go"
        cpu0, wall0 = proc_cpu_s(server.pid), time.perf_counter()
        assert there.recv() == "end"
        wall = time.perf_counter() - wall0
        cpu = proc_cpu_s(server.pid) - cpu0
        rss = proc_rss_kib(server.pid)
        rtts, counts = there.recv()
        clients.join()
    finally:
        server.terminate()
        server.wait(30)
    rtts.sort()

    def pct(q: float) -> float:
        return 1000 * rtts[min(len(rtts) - 1, int(q * len(rtts)))] if rtts else float("nan")

    print(f"tables: {args.tables}")
    print(f"lobby_watchers: {args.watchers}")
    print(f"think_ms: {args.think_ms}")
    print(f"wall_s: {wall:.1f}")
    print(f"moves: {counts['measured_moves']}")
    print(f"moves_per_s: {counts['measured_moves'] / wall:.0f}")
    print(f"rtt_p50_ms: {pct(0.50):.1f}")
    print(f"rtt_p99_ms: {pct(0.99):.1f}")
    print(f"rtt_max_ms: {1000 * rtts[-1] if rtts else float('nan'):.1f}")
    print(f"rtt_mean_ms: {1000 * statistics.fmean(rtts) if rtts else float('nan'):.1f}")
    print(f"server_cpu_share: {cpu / wall:.2f}")
    print(f"server_cpu_ms_per_move: {1000 * cpu / max(1, counts['measured_moves']):.2f}")
    print(f"server_rss_kib: {rss}")
    print(f"server_rss_per_lobby_connection_kib: {(signed_rss - base_rss) / max(1, 4 * args.tables):.0f}")
    print(f"server_rss_per_table_kib: {(rss - signed_rss) / max(1, args.tables):.0f}")
    for key in sorted(set(counts) - {"moves", "measured_moves"}):
        print(f"{key}: {counts[key]}")
    if profile is not None:
        import pstats

        pstats.Stats(str(profile)).sort_stats("tottime").print_stats(30)


if __name__ == "__main__":
    main()
