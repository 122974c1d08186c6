"""The cluster's numbers: seats back after ``kill -9`` of their worker, the hand-over of a worker
stopped by SIGTERM, and the tables one worker serves on one core. Prints ``name: value`` lines.

    nice -n 10 python tests/benchmarks/bench_cluster.py [--trials 10] [--tables 20]
        [--steps 25,50,100,200,400,800] [--think-ms 1500] [--window 10] [--stores postgresql,sqlite]
        [--only failover|capacity]

Everything runs on this machine (:mod:`tests.cluster.clusterkit`): its own PostgreSQL (or an
SQLite file) and Redis, ``kings-corners worker`` and ``kings-corners gateway`` subprocesses, and
scripted seats (websockets clients in this process: each plays its first legal move
``--think-ms`` x 0.5 to 1.5 after a state says it is to move).

* ``kill9_back_*``: two workers and a gateway, ``--tables`` tables of 4 seats through the
  gateway. ``--trials`` times: the owner of a table is killed (``kill -9``) right after one of its
  seats sent a move, and a worker started again; for every seat of the killed worker's tables,
  the seconds from the kill to its first state on a connection it opened after the kill (from
  the new owner). p50 / p99 / max over every seat of every trial. Goal: p99 under 10 s.
* ``sigterm_handover_*``: the same cluster, ``--trials`` times: the owner of some tables gets
  SIGTERM (it releases its lease and its tables, tells the others to sweep, closes its seats
  with 1012), a worker is started again; for every table it served, the seconds from the signal
  to the last of its 4 seats back (a state on a new connection). Goal: under 1 s a table.
* ``capacity_<store>_*``: one worker pinned to core 1 (``taskset``), this process and the store
  on core 0; the seats connect to the worker directly (a gateway would add its own hop). Tables
  are added in ``--steps``; after each step's seats have their first state, move-to-state
  latency (from sending a move to the state answering it, its fenced write included) is measured
  over ``--window`` seconds: p50 / p99, moves a second, the worker's CPU share. The most tables
  with p99 under 50 ms is ``capacity_<store>_tables``. Goal: 400 (the one-process server's own
  figure: tests/benchmarks/bench_hub.py).
"""

from __future__ import annotations

import argparse
import functools
import os
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.cluster.clusterkit import WAIT, Cluster, Players, Table, cluster_of, first_states_after, now
from tests.net.serverkit import allow_open_files
from tests.waiting import wait_for

TICKS = os.sysconf("SC_CLK_TCK")
#: The latency a step may have at its 99th percentile (milliseconds).
P99_GOAL_MS = 50.0


def proc_cpu_s(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def say(name: str, value: object) -> None:
    print(f"{name}: {value}", flush=True)


def spread(name: str, values: list[float]) -> None:
    say(f"{name}_count", len(values))
    if values:
        say(f"{name}_p50_s", f"{statistics.median(values):.2f}")
        say(f"{name}_p99_s", f"{quantile(values, 0.99):.2f}")
        say(f"{name}_max_s", f"{max(values):.2f}")


# ---------------------------------------------------------------------- failover
def all_back(cluster: Cluster, players: Players, tables: list[str], since: float) -> dict[tuple[str, int], float]:
    """Once every seat of ``tables`` has a state on a connection opened after ``since``: the
    seconds from ``since`` to each one's first."""

    def back() -> dict[tuple[str, int], float] | None:
        firsts = first_states_after(players, tables, since)
        return firsts if len(firsts) == 4 * len(tables) else None

    return wait_for(back, timeout=WAIT * 2, what="the seats back", showing=cluster.describe)


def failover(folder: Path, trials: int, tables: int, think: float) -> None:
    with cluster_of(folder) as cluster:
        cluster.start(tables=tables, workers=2, think=think)
        cluster.wait_served({}, moves=1)
        players = cluster.players
        assert players is not None
        back: list[float] = []
        for _ in range(trials):
            victim = cluster.owner_of_some_table()
            owned = cluster.watch.owned_by(victim)
            killed = cluster.arm_kill(victim)
            wait_for(killed.is_set, timeout=WAIT, what="a move to the victim's tables")
            cluster.worker(victim).popen.wait(WAIT)
            cluster.gone(victim)
            cluster.start_worker()
            firsts = all_back(cluster, players, owned, cluster.killed_at)
            back.extend(firsts.values())
            cluster.wait_served(cluster.watch.seqs(), moves=1)
        spread("kill9_back", back)

        handed: list[float] = []
        for _ in range(trials):
            victim = cluster.owner_of_some_table()
            owned = cluster.watch.owned_by(victim)
            program = cluster.worker(victim)
            termed_at = now()
            program.signal(signal.SIGTERM)
            firsts = all_back(cluster, players, owned, termed_at)
            for table in owned:
                handed.append(max(v for (t, _seat), v in firsts.items() if t == table))
            program.popen.wait(WAIT)
            cluster.gone(victim)
            cluster.start_worker()
            cluster.wait_served(cluster.watch.seqs(), moves=1)
        spread("sigterm_handover_table", handed)
        problems = cluster.problems()
        say("failover_checks", "ok" if not any(problems.values()) else {k: len(v) for k, v in problems.items()})


# ---------------------------------------------------------------------- capacity
def claimed(cluster: Cluster, tables: set[str], worker: str) -> bool:
    return all(cluster.watch.now[t].owner == worker for t in tables if t in cluster.watch.now) and tables <= set(
        cluster.watch.now
    )


def every_seat_seen(group: Players, seats: int) -> bool:
    return len({(r.table, r.seat) for r in list(group.received)}) == seats


def capacity(folder: Path, kind: str, steps: list[int], think: float, window: float) -> None:
    cores = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {0})  # this process, the store and Redis on core 0 (they inherit it)
    try:
        capacity_pinned(folder, kind, steps, think, window)
    finally:
        os.sched_setaffinity(0, cores)


def capacity_pinned(folder: Path, kind: str, steps: list[int], think: float, window: float) -> None:
    with cluster_of(folder, kind=kind) as cluster:
        cluster.start_services()
        cluster.start_watch()
        worker = cluster.start_worker(cpu=1)
        groups: list[Players] = []
        best = 0
        served = 0
        try:
            for target in steps:
                made: list[Table] = cluster.make_tables(target - served)
                served = target
                wait_for(
                    functools.partial(claimed, cluster, {t.id for t in made}, worker.name),
                    timeout=WAIT * 2,
                    what=f"{target} tables claimed",
                )
                group = Players(worker.address, made, think=think).start()
                groups.append(group)
                wait_for(
                    functools.partial(every_seat_seen, group, 4 * len(made)),
                    timeout=WAIT * 2,
                    what="every new seat's first state",
                    showing=cluster.describe,
                )
                start, cpu = now(), proc_cpu_s(worker.pid)
                time.sleep(window)  # the measured window (a benchmark, not a test)
                end, used = now(), proc_cpu_s(worker.pid) - cpu
                latencies = [
                    (s.acked_at - s.at) * 1000
                    for g in groups
                    for s in list(g.sent)
                    if s.acked_at is not None and start <= s.at and s.acked_at <= end
                ]
                p99 = quantile(latencies, 0.99)
                name = f"capacity_{kind}_{target}"
                say(f"{name}_moves_per_s", f"{len(latencies) / (end - start):.1f}")
                say(f"{name}_p50_ms", f"{quantile(latencies, 0.5):.1f}")
                say(f"{name}_p99_ms", f"{p99:.1f}")
                say(f"{name}_worker_cpu_share", f"{used / (end - start):.2f}")
                if not latencies or p99 >= P99_GOAL_MS or not worker.alive:
                    break
                best = target
        finally:
            for g in groups:
                g.stop()
        say(f"capacity_{kind}_tables", best)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=10)
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--steps", default="25,50,100,200,400,800")
    parser.add_argument("--think-ms", type=int, default=1500)
    parser.add_argument("--window", type=float, default=10.0)
    parser.add_argument("--stores", default="postgresql,sqlite")
    parser.add_argument("--only", choices=("failover", "capacity"))
    args = parser.parse_args()
    allow_open_files(16384)
    with tempfile.TemporaryDirectory(prefix="kc-bench-cluster-") as top:
        folder = Path(top)
        if args.only in (None, "failover"):
            failover(folder / "failover", args.trials, args.tables, 0.5)
        if args.only in (None, "capacity"):
            steps = [int(s) for s in args.steps.split(",")]
            for kind in args.stores.split(","):
                capacity(folder / kind, kind, steps, args.think_ms / 1000, args.window)


if __name__ == "__main__":
    main()
