"""The cluster with real processes: its own PostgreSQL and Redis, two ``kings-corners worker``
and one ``kings-corners gateway`` subprocesses, 20 tables of 4 scripted seats playing through
the gateway (:mod:`tests.cluster.clusterkit`). Each test brings a fault (a worker killed mid-move,
a worker paused past its lease, Redis flushed and restarted, PostgreSQL stopped), waits until
every table is served again with moves going on, and checks the whole run so far: every state
any seat received is a position of its table's history, no history forks, no state reached a
seat from an old owner after the claim, and no acknowledged move was lost.

The processes are started once for the module; each test starts from two running workers serving
every table (it starts a worker when fewer run)."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cluster.clusterkit import WAIT, Cluster, cluster_of, first_states_after, now
from tests.cluster.servicekit import pg_bin, redis_bin
from tests.waiting import wait_for

#: Tables, workers, and the seats' thinking time (seconds) of the module's cluster.
TABLES = 20
WORKERS = 2
THINK = 0.4


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    for name, found in (("PostgreSQL", pg_bin()), ("redis-server", redis_bin())):
        if found is None:
            if os.environ.get("CI"):
                pytest.fail(f"{name} is not installed: .ci/run installs it")
            pytest.skip(f"{name} is not installed")
    folder: Path = tmp_path_factory.mktemp("cluster")
    with cluster_of(folder) as made:
        made.start(tables=TABLES, workers=WORKERS, think=THINK)
        made.wait_served({}, moves=1)
        yield made


def running_again(cluster: Cluster) -> None:
    """Two running workers, every table served by one of them with moves going on."""
    for name, program in list(cluster.workers.items()):
        if not program.alive:
            cluster.gone(name)
    while len(cluster.workers) < WORKERS:
        cluster.start_worker()
    cluster.wait_served(cluster.watch.seqs(), moves=1)


def assert_history_holds(cluster: Cluster) -> None:
    """The four checks over everything received and sent so far, and that they were not vacuous."""
    found = cluster.problems()
    for check, problems in found.items():
        assert not problems, f"{check}: {len(problems)}\n" + "\n".join(problems[:10])
    assert cluster.acknowledged() > TABLES, "the seats had hardly any move acknowledged"


def seats_back(cluster: Cluster, tables: list[str], since: float) -> dict[tuple[str, int], float]:
    """Waits until every seat of ``tables`` has a state on a connection it opened after
    ``since``: the seconds from ``since`` to each one's first."""
    assert cluster.players is not None
    players = cluster.players
    seats = 4 * len(tables)

    def back() -> dict[tuple[str, int], float] | None:
        firsts = first_states_after(players, tables, since)
        return firsts if len(firsts) == seats else None

    return wait_for(
        back, timeout=WAIT, what=f"the {seats} seats of {len(tables)} tables back", showing=cluster.describe
    )


def kill_owners_mid_move(cluster: Cluster, trials: int) -> list[float]:
    """``trials`` times: ``kill -9`` the owner of a table right after one of its seats sent a
    move, start a worker, wait until every table is served again with moves going on and every
    seat of the killed worker's tables has a state from its new owner. The seconds from each kill
    to each of those seats' first state."""
    assert cluster.players is not None
    back: list[float] = []
    for _ in range(trials):
        victim = cluster.owner_of_some_table()
        tables = cluster.watch.owned_by(victim)
        killed = cluster.arm_kill(victim)
        wait_for(killed.is_set, timeout=WAIT, what=f"a move to a table of {victim}", showing=cluster.describe)
        since = cluster.watch.seqs()
        cluster.worker(victim).popen.wait(WAIT)
        cluster.gone(victim)
        cluster.start_worker()
        cluster.wait_served(since, moves=2)
        back.extend(seats_back(cluster, tables, cluster.killed_at).values())
    return back


def test_kill9_of_an_owner_mid_move_loses_no_acknowledged_move_and_forks_nothing(cluster: Cluster) -> None:
    running_again(cluster)
    kill_owners_mid_move(cluster, 5)
    assert_history_holds(cluster)


@pytest.mark.slow
def test_kill9_of_an_owner_mid_move_fifty_times_loses_nothing(cluster: Cluster) -> None:
    running_again(cluster)
    kill_owners_mid_move(cluster, 50)
    assert_history_holds(cluster)


def test_sigstopped_owner_past_its_lease_drops_its_tables_and_sends_nothing_stale(cluster: Cluster) -> None:
    assert cluster.players is not None
    running_again(cluster)
    victim = cluster.owner_of_some_table()
    program = cluster.worker(victim)
    tables = cluster.watch.owned_by(victim)
    epochs = {t: cluster.watch.now[t].epoch for t in tables}
    # Spectators on the worker itself (not through the gateway): what it sends, it sends them.
    witnesses = [cluster.players.witness(f"{program.address}/t/{t}/watch") for t in tables]
    wait_for(lambda: all(w.states for w in witnesses), timeout=WAIT, what="the witnesses' first states")

    stopped_at = now()
    program.signal(signal.SIGSTOP)
    try:

        def claimed() -> bool:
            state = cluster.watch.now
            return all(state[t].epoch > epochs[t] and state[t].owner not in (None, victim) for t in tables)

        wait_for(claimed, timeout=WAIT, what=f"{victim}'s tables claimed by another", showing=cluster.describe)
        seats_back(cluster, tables, stopped_at)
    finally:
        program.signal(signal.SIGCONT)
    woke_at = now()

    wait_for(
        lambda: all(w.ended_at is not None for w in witnesses),
        timeout=WAIT,
        what=f"{victim} closing its dropped tables' connections",
        showing=cluster.describe,
    )
    cluster.wait_served(cluster.watch.seqs(), moves=3)
    stale = [(w.url, at - woke_at, stamp) for w in witnesses for at, stamp, _print in w.states if at > woke_at]
    assert stale == [], f"{victim} sent states after it woke: {stale[:5]}"
    assert {w.code for w in witnesses} == {1012}, [w.code for w in witnesses]
    assert program.alive, "".join(program.lines())
    assert not any("Traceback" in line for line in program.lines()), "".join(program.lines())
    assert_history_holds(cluster)


def test_redis_flushed_then_restarted_tables_keep_going(cluster: Cluster) -> None:
    import redis

    running_again(cluster)
    client = redis.Redis.from_url(cluster.redis.url)
    try:
        client.flushall()
    finally:
        client.close()
    cluster.wait_served(cluster.watch.seqs(), moves=3)

    cluster.redis.stop()
    cluster.redis.start()  # the same port: the workers and the gateway connect again
    cluster.wait_served(cluster.watch.seqs(), moves=3)
    for program in [*cluster.workers.values(), cluster.gateway]:
        assert program is not None and program.alive, "" if program is None else "".join(program.lines())
    assert_history_holds(cluster)


def test_postgres_stopped_refuses_moves_with_a_reason_then_play_resumes(cluster: Cluster) -> None:
    assert cluster.players is not None and cluster.pg is not None
    players = cluster.players
    running_again(cluster)
    stopped_at = now()
    cluster.pg.stop()
    try:
        wait_for(
            lambda: [s for s in list(players.refusals) if s.at > stopped_at and s.refused],
            timeout=WAIT,
            what="a move refused while PostgreSQL is stopped",
            showing=cluster.describe,
        )
        wait_for(
            lambda: any(r.save_problem for r in players.states_since(stopped_at)),
            timeout=WAIT,
            what="a state saying why the table holds",
        )
    finally:
        cluster.pg.start()
    started_at = now()
    reads = cluster.watch.reads
    wait_for(lambda: cluster.watch.reads > reads + 1, timeout=WAIT, what="the store read again")
    cluster.wait_served(cluster.watch.seqs(), moves=3)
    # Every state sent while the store was down shows a position written before it went down.
    cluster.refresh()
    held = [r for r in players.states_since(stopped_at) if r.at < started_at]
    assert held, "no state reached a seat while PostgreSQL was stopped"
    assert [r for r in held if not cluster.history.seqs_of(r.table, r.seat, r.print)] == []
    assert_history_holds(cluster)
