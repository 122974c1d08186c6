"""The cluster's numbers: seats back after ``kill -9`` of their worker, the hand-over of a worker
stopped by SIGTERM, and the tables one worker serves on one core. Prints ``name: value`` lines.

    nice -n 10 python tests/benchmarks/bench_cluster.py [--trials 10] [--tables 20]
        [--steps 25,50,100,200,300,400,500,800] [--think-ms 1500] [--window 10] [--warm-up 5]
        [--seat-processes 2] [--every-step] [--stores postgresql,sqlite] [--only failover|capacity]
        [--probe] [--worker-log-level warning] [--keep DIR]

Everything runs on this machine (:mod:`tests.cluster.clusterkit`): its own PostgreSQL (or an
SQLite file) and Redis, ``kings-corners worker`` and ``kings-corners gateway`` subprocesses, and
scripted seats (websockets clients; each plays its first legal move ``--think-ms`` x 0.5 to
1.5 after a state says it is to move).

* ``kill9_back_*``: two workers and a gateway, ``--tables`` tables of 4 seats through the
  gateway. ``--trials`` times: the owner of a table is killed (``kill -9``) right after one of its
  seats sent a move, and a worker started again; for every seat of the killed worker's tables,
  the seconds from the kill to its first state on a connection it opened after the kill (from
  the new owner). p50 / p99 / max over every seat of every trial. Goal: p99 under 10 s.
* ``sigterm_handover_*``: the same cluster, ``--trials`` times: the owner of some tables gets
  SIGTERM (it releases its lease and its tables, tells the others to sweep, closes its seats
  with 1012), a worker is started again; for every table it served, the seconds from the signal
  to the last of its 4 seats back (a state on a new connection). Goal: under 1 s a table.
* ``capacity_<store>_*``: one worker pinned to core 1 (``taskset``); this process, the store,
  Redis and the seats on core 0. The seats connect to the worker directly (a gateway would add
  its own hop); they are light (:mod:`tests.benchmarks.cluster_seats`: a ``json.loads`` of each
  frame and a few lookups, no view decoded) and spread over ``--seat-processes`` processes, so
  that the worker is what saturates first. Tables are added in ``--steps``; after each step's
  seats have their first state and ``--warm-up`` seconds of play, the move-to-state latency as
  a seat sees it (from sending a move to receiving the state answering it, the worker's fenced
  write included) is measured over ``--window`` seconds: p50 / p99 / max, moves a second, and
  the CPU share (1.0: one core busy) of the worker, of the client side (this process and the
  seats' processes), of PostgreSQL (its postmaster and backends), of each core as a whole
  (everything running on the machine), and the load average. The most tables with p99 under
  50 ms (and every move answered) is ``capacity_<store>_tables``; the steps stop at the first
  over it (``--every-step``: they go on). ``*_over_50ms_sent_at_s``: when (seconds into the
  window) each slower move was sent, so that stalls of the whole worker (many moves at once)
  show apart from a steady queue. Goal: 400 (the one-process
  server's own figure: tests/benchmarks/bench_hub.py). ``*_self_fenced_so_far``: how many times
  the worker dropped its tables, fenced by its own clock (its log, at ``--worker-log-level``).
  ``--probe``: the worker run by :mod:`tests.benchmarks.cluster_probe` (its event loop's lag, its
  slow callbacks, every renewal, waits for a Redis connection, slow store calls: ``probe.txt`` in
  its folder); ``--keep DIR``: everything run in ``DIR`` and kept (the logs, the probe's lines).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import signal
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.benchmarks.cluster_seats import SeatAddress, SeatProcesses
from tests.cluster.clusterkit import (
    WAIT,
    WORKER_READY,
    Cluster,
    Players,
    Program,
    Table,
    cluster_of,
    first_states_after,
    loopback,
    now,
    spawn,
)
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
def proc_stat_cpu_s(pids: list[int]) -> float:
    """The CPU seconds of ``pids`` together (one that ended counts nothing)."""
    total = 0.0
    for pid in pids:
        with contextlib.suppress(OSError):
            total += proc_cpu_s(pid)
    return total


def children_of(pid: int) -> list[int]:
    """``pid`` and the processes whose parent it is (PostgreSQL's postmaster and its backends)."""
    found = [pid]
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError), open(f"/proc/{entry}/stat") as f:
                if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                    found.append(int(entry))
    return found


def core_busy_s() -> dict[int, float]:
    """Every core's busy seconds (everything but idle and iowait), every process of the machine."""
    busy: dict[int, float] = {}
    with open("/proc/stat") as f:
        for line in f:
            name, *ticks = line.split()
            if name.startswith("cpu") and name != "cpu":
                values = [int(t) for t in ticks]
                busy[int(name[3:])] = (sum(values[:8]) - values[3] - values[4]) / TICKS
    return busy


def load_average() -> str:
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def seat_addresses(worker: str, tables: list[Table], first: int) -> list[SeatAddress]:
    """Every seat of ``tables`` at ``worker``, each from a loopback address of its own (counted
    from ``first``)."""
    seats = [(t, seat, token) for t in tables for seat, token in sorted(t.tokens.items())]
    return [
        SeatAddress(f"{worker}/t/{t.id}/seat/{token}", seat, loopback(first + n))
        for n, (t, seat, token) in enumerate(seats)
    ]


def every_seat_seen(seats: SeatProcesses, count: int) -> bool:
    return seats.seen() >= count


def claimed_by(cluster: Cluster, tables: set[str], worker: str) -> bool:
    owners = {t.id: t.owner for t in cluster.reader.tables()}
    return all(owners.get(t) == worker for t in tables)


#: What a worker's log says each time it drops its tables, fenced by its own clock.
SELF_FENCED = "its lease was not renewed in time"


@dataclass(frozen=True, slots=True)
class Options:
    steps: list[int]
    think: float
    window: float
    warm_up: float
    seat_processes: int
    every_step: bool
    probe: bool = False
    log_level: str = "warning"


def self_fenced(worker: Program) -> int:
    """How many times ``worker`` dropped its tables, fenced by its own clock (its log files, the
    rotated ones too)."""
    assert worker.data is not None
    return sum(
        path.read_text(encoding="utf-8", errors="replace").count(SELF_FENCED)
        for path in worker.data.glob("kings-corners.log*")
    )


def start_capacity_worker(cluster: Cluster, options: Options) -> Program:
    """The measured worker, pinned to core 1; with ``options.probe`` run by
    :mod:`tests.benchmarks.cluster_probe` (its findings in ``probe.txt`` of its folder)."""
    name = "w1"
    folder = cluster.folder / name
    module = ["-m", "kc_tui"]
    environment = dict(os.environ)
    if options.probe:
        module = [str(Path(__file__).with_name("cluster_probe.py"))]
        folder.mkdir(parents=True, exist_ok=True)
        os.environ["KC_PROBE_FILE"] = str(folder / "probe.txt")
    command = [
        "taskset",
        "-c",
        "1",
        sys.executable,
        *module,
        "--log-level",
        options.log_level,
        "worker",
        "--store",
        cluster.store_url,
        "--redis",
        cluster.redis.url,
        "--port",
        "0",
        "--id",
        name,
    ]
    try:
        program = spawn(name, command, folder)
    finally:
        os.environ.clear()
        os.environ.update(environment)
    program.address = program.ready(WORKER_READY).group(2)
    cluster.workers[name] = program
    return program


def capacity(folder: Path, kind: str, options: Options) -> None:
    cores = os.sched_getaffinity(0)
    # this process, its seats' processes, the store and Redis on core 0 (they inherit it)
    os.sched_setaffinity(0, {0})
    try:
        capacity_pinned(folder, kind, options)
    finally:
        os.sched_setaffinity(0, cores)


def capacity_pinned(folder: Path, kind: str, options: Options) -> None:
    with cluster_of(folder, kind=kind) as cluster:
        cluster.start_services()
        worker = start_capacity_worker(cluster, options)
        seats = SeatProcesses(options.seat_processes, options.think)
        store_pids: list[int] = []
        if cluster.pg is not None:
            store_pids = children_of(int((cluster.pg.data / "postmaster.pid").read_text().split()[0]))
        best = 0
        served = 0
        failed = False
        try:
            for target in options.steps:
                made: list[Table] = cluster.make_tables(target - served)
                wait_for(
                    functools.partial(claimed_by, cluster, {t.id for t in made}, worker.name),
                    timeout=WAIT * 2,
                    what=f"{target} tables claimed",
                    showing=cluster.describe,
                )
                seats.add(seat_addresses(worker.address, made, 4 * served))
                served = target
                wait_for(
                    functools.partial(every_seat_seen, seats, 4 * served),
                    timeout=WAIT * 2,
                    what="every new seat's first state",
                    showing=cluster.describe,
                )
                time.sleep(options.warm_up)  # every table moving at its pace (a benchmark, not a test)
                if cluster.pg is not None:
                    store_pids = children_of(store_pids[0])
                client_pids = [os.getpid(), *seats.pids]
                start, cores = now(), core_busy_s()
                w0, c0, s0 = proc_cpu_s(worker.pid), proc_stat_cpu_s(client_pids), proc_stat_cpu_s(store_pids)
                time.sleep(options.window)  # the measured window
                end, cores_end = now(), core_busy_s()
                w1, c1, s1 = proc_cpu_s(worker.pid), proc_stat_cpu_s(client_pids), proc_stat_cpu_s(store_pids)
                time.sleep(min(1.0, options.think))  # the moves sent at the window's end answered
                measured = seats.window(start, end, P99_GOAL_MS)
                span = end - start
                trips = measured.round_trips_ms
                p99 = quantile(trips, 0.99)
                name = f"capacity_{kind}_{target}"
                say(f"{name}_moves_per_s", f"{len(trips) / span:.1f}")
                say(f"{name}_p50_ms", f"{quantile(trips, 0.5):.1f}")
                say(f"{name}_p99_ms", f"{p99:.1f}")
                say(f"{name}_max_ms", f"{max(trips, default=float('nan')):.1f}")
                say(f"{name}_over_50ms_sent_at_s", " ".join(f"{t:.2f}" for t in measured.slow_at) or "-")
                say(f"{name}_unanswered", measured.unanswered)
                say(f"{name}_refused", measured.refused)
                say(f"{name}_sockets_ended_so_far", f"{measured.closed} {measured.why}")
                say(f"{name}_worker_cpu_share", f"{(w1 - w0) / span:.2f}")
                say(f"{name}_client_cpu_share", f"{(c1 - c0) / span:.2f}")
                if store_pids:
                    say(f"{name}_postgresql_cpu_share", f"{(s1 - s0) / span:.2f}")
                for core in sorted(cores):
                    say(f"{name}_core{core}_busy_share", f"{(cores_end[core] - cores[core]) / span:.2f}")
                say(f"{name}_load_average", load_average())
                say(f"{name}_self_fenced_so_far", self_fenced(worker))
                if not trips or p99 >= P99_GOAL_MS or measured.unanswered or not worker.alive:
                    if not options.every_step or not worker.alive:
                        break
                    failed = True
                if not failed:
                    best = target
        finally:
            seats.stop()
        say(f"capacity_{kind}_tables", best)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=10)
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--steps", default="25,50,100,200,300,400,500,800")
    parser.add_argument("--think-ms", type=int, default=1500)
    parser.add_argument("--window", type=float, default=10.0)
    parser.add_argument("--warm-up", type=float, default=5.0)
    parser.add_argument("--seat-processes", type=int, default=2)
    parser.add_argument("--every-step", action="store_true", help="measure every step, past one over the goal too")
    parser.add_argument("--stores", default="postgresql,sqlite")
    parser.add_argument("--only", choices=("failover", "capacity"))
    parser.add_argument(
        "--probe", action="store_true", help="the capacity worker with tests/benchmarks/cluster_probe.py"
    )
    parser.add_argument("--worker-log-level", default="warning", help="the capacity worker's log level")
    parser.add_argument(
        "--keep", type=Path, help="a folder to run in and keep (the workers' logs, the probe's findings)"
    )
    args = parser.parse_args()
    allow_open_files(16384)
    with contextlib.ExitStack() as stack:
        if args.keep is not None:
            args.keep.mkdir(parents=True, exist_ok=True)
            folder = args.keep
        else:
            folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="kc-bench-cluster-")))
        if args.only in (None, "failover"):
            failover(folder / "failover", args.trials, args.tables, 0.5)
        if args.only in (None, "capacity"):
            steps = [int(s) for s in args.steps.split(",")]
            options = Options(
                steps,
                args.think_ms / 1000,
                args.window,
                args.warm_up,
                args.seat_processes,
                args.every_step,
                args.probe,
                args.worker_log_level,
            )
            for kind in args.stores.split(","):
                capacity(folder / kind, kind, options)


if __name__ == "__main__":
    main()
