"""Fenced writes of the tables' store, on SQLite and on PostgreSQL (not collected by pytest).

    python tests/benchmarks/bench_store.py [--writes 2000] [--writers 1,4] [--pg-fsync off]

Each writer is a thread with its own store (its own connection), as a worker on its own
machine would be, writing one table it claimed: ``write(table, epoch, save)`` (the fenced
``UPDATE ... RETURNING seq`` and the history's row, one transaction) of a 600-byte save, as
fast as it can. Prints, for each kind and number of writers, ``<kind>_writers_<n>_writes_per_s``
(all writers together) and ``..._write_ms_p50`` / ``_p99`` (one write's latency).

SQLite: a file in a fresh folder, WAL, ``synchronous = NORMAL`` (a commit is not flushed to the
disk; a checkpoint is). PostgreSQL: a server of its own (tests/cluster/servicekit.py's, with
``fsync`` on unless ``--pg-fsync off``: each commit waits for its WAL flush).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from kc_tui.net.cluster.pg_store import PgTableStore
from kc_tui.net.cluster.sqlite_store import SqliteTableStore
from kc_tui.net.cluster.tablestore import TableStore
from tests.cluster.servicekit import PgServer

SAVE = bytes(range(200)) * 3


class BenchPg(PgServer):
    """The tests' PostgreSQL server, with ``fsync`` as asked."""

    def __init__(self, fsync: bool) -> None:
        super().__init__()
        self.fsync = fsync

    def start(self) -> None:
        if self.fsync:
            self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres", "-E", "UTF8")
            options = f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1"
            self._run("pg_ctl", "-D", str(self.data), "-o", options, "-l", str(self.folder / "log"), "-w", "start")
            self.made = True
        else:
            super().start()


def percentile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, round(q * (len(xs) - 1))))]


def measure(kind: str, open_one: Callable[[], TableStore], writers: int, writes: int) -> None:
    setup = open_one()
    tables = [f"bench-{writers}-{n}" for n in range(writers)]
    for table in tables:
        setup.create(table, {}, SAVE, {})
    stores = [open_one() for _ in tables]
    epochs = {}
    for store, table in zip(stores, tables, strict=True):
        (got,) = store.claim(f"w-{table}", [], [t for t in tables if t != table], 1)
        epochs[table] = got.epoch
    latencies: list[list[float]] = [[] for _ in tables]
    start = threading.Barrier(writers + 1)

    def run(n: int) -> None:
        store, table, mine = stores[n], tables[n], latencies[n]
        start.wait()
        for _ in range(writes):
            t0 = time.perf_counter()
            store.write(table, epochs[table], SAVE)
            mine.append(time.perf_counter() - t0)

    threads = [threading.Thread(target=run, args=(n,)) for n in range(writers)]
    for thread in threads:
        thread.start()
    start.wait()
    t0 = time.perf_counter()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - t0
    every = [x * 1000 for mine in latencies for x in mine]
    name = f"{kind}_writers_{writers}"
    print(f"{name}_writes_per_s: {len(every) / elapsed:.0f}")
    print(f"{name}_write_ms_p50: {statistics.median(every):.3f}")
    print(f"{name}_write_ms_p99: {percentile(every, 0.99):.3f}")
    for table in tables:
        setup.end(table, epochs[table])  # never claimed by the next measure
    for store in [setup, *stores]:
        store.close()


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--writes", type=int, default=2000, help="writes per writer")
    p.add_argument("--writers", default="1,4", help="numbers of concurrent writers")
    p.add_argument("--pg-fsync", choices=("on", "off"), default="on")
    p.add_argument("--only", choices=("sqlite", "postgresql"), default=None)
    args = p.parse_args()
    counts = [int(n) for n in args.writers.split(",")]
    if args.only != "postgresql":
        with tempfile.TemporaryDirectory(prefix="kc-bench-store-") as folder:
            path = str(Path(folder) / "tables.sqlite3")
            SqliteTableStore.open(path).init()
            for writers in counts:
                measure("sqlite", lambda: SqliteTableStore.open(path), writers, args.writes)
    if args.only != "sqlite":
        server = BenchPg(fsync=args.pg_fsync == "on")
        try:
            server.start()
            PgTableStore.open(server.url).init()
            for writers in counts:
                measure("postgresql", lambda: PgTableStore.open(server.url), writers, args.writes)
        finally:
            server.remove()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
