"""Fenced writes of the tables' store, on SQLite and on PostgreSQL (not collected by pytest).

    python tests/benchmarks/bench_store.py [--writes 2000] [--writers 1,4] [--pg-fsync off]

The rows written are those of a real served match (four greedy AIs, long rounds: the history's
rows as the worker writes them, :func:`kc_tui.net.store.history.row_of`), written two ways:

* ``saves``: every position as a whole save (the match's compact save: a few KB, tens of KB once
  its log holds its last 400 lines), as a history that keeps a position per row would;
* ``rows``: the history's own rows: a move row (one step of a turn, a digest) for every move, a
  snapshot for every round's first position.

Each writer is a thread with its own store (its own connection), as a worker on its own machine
would be, writing one table it claimed (``write(table, epoch, data, snapshot=...)``: the fenced
``UPDATE ... RETURNING seq`` and the history's row, one transaction), as fast as it can. Prints,
for each kind, way and number of writers, ``<kind>_<way>_writers_<n>_writes_per_s`` (all writers
together) and ``..._write_ms_p50`` / ``_p99`` (one write's latency, tries again after a
:class:`StoreDown` included: ``..._writes_tried_again``); and, once, the bytes of a
row each way (``*_row_bytes_mean``, ``move_row_bytes_max``), what making a move row costs the
worker (``row_of_us_p50``) and what replaying one costs a claim (``replay_us_per_move_row``).

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
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from kc_tui.engine import Rules
from kc_tui.match.roster import Seat
from kc_tui.match.saves import save_bytes
from kc_tui.match.session import MatchSession
from kc_tui.match.table import TableDriver
from kc_tui.net.cluster.pg_store import PgTableStore
from kc_tui.net.store.history import rebuild, row_of
from kc_tui.net.store.sqlite_store import SqliteTableStore
from kc_tui.net.store.tablestore import MOVE, StoreDown, TableStore, Written
from tests.cluster.servicekit import PgServer

#: A position's save, the row written for it, and whether that row is a snapshot.
Written3 = tuple[bytes, bytes, bool]


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


def served_rows(count: int) -> tuple[bytes, list[Written3], list[float]]:
    """A served match of four greedy AIs, ``count`` saves long: its first position, each save with
    the row the worker writes for it, and the seconds each row took to make."""
    seats = [Seat(f"AI {n}", "greedy", 50) for n in range(4)]
    session = MatchSession.hosted(seats, Rules(target=10_000), 1)
    first = session.to_dict()
    out: list[Written3] = []
    took: list[float] = []

    def sink(data: bytes) -> str | None:
        t0 = time.perf_counter()
        row, snapshot = row_of(session, data, True)
        took.append(time.perf_counter() - t0)
        out.append((data, row, snapshot))
        return None

    session.save_sink = sink
    session.keep_save_at_end = True
    driver = TableDriver(session, pace="instant")
    while len(out) < count:
        if session.match.round.over:
            driver.finish_round()
        else:
            session.step_ai()
    return save_bytes(first, compact=True), out, took


def replay_cost(first: bytes, rows: list[Written3]) -> float:
    """Microseconds a claim takes to replay one move row (a round's rows after its snapshot)."""
    snapshot, best = first, 0.0
    entries: list[Written] = []
    longest: tuple[bytes, list[Written]] = (first, [])
    for seq, (save, row, is_snapshot) in enumerate(rows, start=1):
        if is_snapshot:
            snapshot, entries = save, []
        else:
            entries.append(Written(seq, 1, MOVE, row))
            if len(entries) > len(longest[1]):
                longest = (snapshot, list(entries))
    snapshot, entries = longest
    for _ in range(3):
        t0 = time.perf_counter()
        rebuild(snapshot, entries)
        took = time.perf_counter() - t0
        best = took if not best else min(best, took)
    return best / len(entries) * 1e6


def measure(
    kind: str, way: str, open_one: Callable[[], TableStore], writers: int, writes: int, rows: list[Written3]
) -> None:
    setup = open_one()
    tables = [f"bench-{way}-{writers}-{n}" for n in range(writers)]
    for table in tables:
        setup.create(table, {}, rows[0][0], {})
    stores = [open_one() for _ in tables]
    epochs = {}
    for store, table in zip(stores, tables, strict=True):
        (got,) = store.claim(f"w-{table}", [], [t for t in tables if t != table], 1)
        epochs[table] = got.epoch
    latencies: list[list[float]] = [[] for _ in tables]
    busy = [0] * writers
    start = threading.Barrier(writers + 1)

    def run(n: int) -> None:
        store, table, mine = stores[n], tables[n], latencies[n]
        start.wait()
        for i in range(writes):
            save, row, snapshot = rows[i % len(rows)]
            t0 = time.perf_counter()
            while True:
                try:
                    store.write(table, epochs[table], save if way == "saves" else row, snapshot=snapshot)
                    break
                except StoreDown:  # another writer held the file's lock past BUSY_MS: tried again
                    busy[n] += 1
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
    name = f"{kind}_{way}_writers_{writers}"
    print(f"{name}_writes_per_s: {len(every) / elapsed:.0f}")
    print(f"{name}_write_ms_p50: {statistics.median(every):.3f}")
    print(f"{name}_write_ms_p99: {percentile(every, 0.99):.3f}")
    if sum(busy):
        print(f"{name}_writes_tried_again: {sum(busy)}")
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
    first, rows, took = served_rows(min(args.writes, 2000))
    moves = [len(row) for _save, row, snapshot in rows if not snapshot]
    print(f"saves_row_bytes_mean: {statistics.mean(len(save) for save, _row, _s in rows):.0f}")
    print(f"rows_row_bytes_mean: {statistics.mean(len(row) for _save, row, _s in rows):.0f}")
    print(f"move_row_bytes_mean: {statistics.mean(moves):.0f}")
    print(f"move_row_bytes_max: {max(moves)}")
    print(f"snapshot_rows_per_100: {100 * sum(1 for *_rest, s in rows if s) / len(rows):.1f}")
    print(f"row_of_us_p50: {statistics.median(took) * 1e6:.1f}")
    print(f"replay_us_per_move_row: {replay_cost(first, rows):.1f}")
    ways = ("saves", "rows")
    if args.only != "postgresql":
        for way in ways:
            with tempfile.TemporaryDirectory(prefix="kc-bench-store-") as folder:
                path = str(Path(folder) / "tables.sqlite3")
                SqliteTableStore.open(path).init()
                opener = partial(SqliteTableStore.open, path)
                for writers in counts:
                    measure("sqlite", way, opener, writers, args.writes, rows)
                size = sum(f.stat().st_size for f in Path(folder).iterdir())
                print(f"sqlite_{way}_files_bytes: {size}")
    if args.only != "sqlite":
        server = BenchPg(fsync=args.pg_fsync == "on")
        try:
            server.start()
            PgTableStore.open(server.url).init()
            for way in ways:
                for writers in counts:
                    measure("postgresql", way, lambda: PgTableStore.open(server.url), writers, args.writes, rows)
        finally:
            server.remove()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
