"""The tables' store: one suite over both kinds (an SQLite file, a fresh PostgreSQL database per
test), then what only one kind has (a file that is not a store; PostgreSQL stopped and started).

The races run each side in its own thread with its own store (its own connection), as two
workers would; two processes share one SQLite file as a cluster on one machine does."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kc_tui.net.cluster.opening import open_store
from kc_tui.net.cluster.pg_store import PG_STEPS, PgTableStore
from kc_tui.net.server_store import SQLITE_MAGIC, token_hash
from kc_tui.net.store.sqlite_store import STEPS, SqliteTableStore
from kc_tui.net.store.tablestore import (
    ENDED,
    MOVE,
    PLAYING,
    SCHEMA_VERSION,
    SNAPSHOT,
    Claimed,
    Fenced,
    StoreDown,
    StoreError,
    TableStore,
    Written,
)
from tests.cluster.servicekit import PgServer, free_port
from tests.cluster.storekit import KINDS, Backing, fresh_database
from tests.waiting import WAIT, wait_for

T = TypeVar("T")

#: The history's row 0 of a table made with the first position b"first".
FIRST = Written(0, 0, SNAPSHOT, b"first")


def moves(epoch: int, *data: bytes, start: int = 1) -> list[Written]:
    """Move rows of ``data`` from seq ``start``, under ``epoch``."""
    return [Written(start + n, epoch, MOVE, one) for n, one in enumerate(data)]


@pytest.fixture(params=KINDS)
def backing(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backing]:
    """The data of one test's store, of each kind in turn."""
    if request.param == "sqlite":
        made = Backing("sqlite", str(tmp_path / "tables.sqlite3"))
        try:
            yield made
        finally:
            made.close()
        return
    with fresh_database(request.getfixturevalue("pg_url")) as url:
        made = Backing("postgresql", url)
        try:
            yield made
        finally:
            made.close()


@pytest.fixture
def store(backing: Backing) -> TableStore:
    """A store on the test's data, its schema made."""
    made = backing.open()
    made.init()
    return made


def raced(*calls: Callable[[], T]) -> list[T]:
    """Every call run in its own thread, all let go at the same moment; their results in order."""
    start = threading.Barrier(len(calls), timeout=WAIT)

    def run(call: Callable[[], T]) -> T:
        start.wait()
        return call()

    with ThreadPoolExecutor(len(calls)) as pool:
        futures = [pool.submit(run, call) for call in calls]
        return [future.result(timeout=WAIT) for future in futures]


def claimed_one(store: TableStore, worker: str, table: str, live: list[str] | None = None) -> Claimed:
    """``table`` claimed for ``worker`` (the only orphan the store has)."""
    got = store.claim(worker, live or [], [], 1)
    assert [one.id for one in got] == [table]
    return got[0]


# ---------------------------------------------------------------------- a table's life
def test_a_new_table_is_playing_at_epoch_0_owned_by_no_one(store: TableStore) -> None:
    store.create("t1", {"name": "Ana's table", "seats": 4}, b"first", {})
    row = store.row("t1")
    assert row is not None
    assert (row.id, row.owner, row.epoch, row.seq, row.phase) == ("t1", None, 0, 0, PLAYING)
    assert row.record == {"name": "Ana's table", "seats": 4}
    assert store.history("t1") == [FIRST], "its first position is its history's row 0, a snapshot"
    assert store.row("nowhere") is None
    assert [one.id for one in store.rows()] == ["t1"]


def test_creating_a_table_that_exists_is_refused(store: TableStore) -> None:
    store.create("t1", {"n": 1}, b"first", {})
    with pytest.raises(StoreError) as refused:
        store.create("t1", {"n": 2}, b"other", {})
    assert "\n" not in str(refused.value)
    row = store.row("t1")
    assert row is not None and row.record == {"n": 1}


def test_a_claim_gives_the_first_position_the_record_and_the_token_hashes(store: TableStore) -> None:
    hashes = {0: [token_hash("seat zero")], 2: [token_hash("seat two"), token_hash("seat two again")]}
    store.create("t1", {"rules": "fair"}, b"first", hashes)
    got = claimed_one(store, "w1", "t1")
    assert (got.epoch, got.seq, got.snapshot, got.entries, got.record) == (1, 0, b"first", (), {"rules": "fair"})
    assert got.hashes == {seat: sorted(kept) for seat, kept in hashes.items()}
    row = store.row("t1")
    assert row is not None and (row.owner, row.epoch) == ("w1", 1)


def test_token_hashes_are_kept_by_seat(store: TableStore) -> None:
    hashes = {1: [token_hash("b"), token_hash("a")], 3: [token_hash("c")]}
    store.create("t1", {}, b"first", hashes)
    assert store.token_hashes("t1") == {1: sorted(hashes[1]), 3: hashes[3]}
    assert store.token_hashes("nowhere") == {}


def test_writes_under_the_claims_epoch_make_the_history(store: TableStore) -> None:
    store.create("t1", {}, b"first", {})
    got = claimed_one(store, "w1", "t1")
    assert [store.write("t1", got.epoch, f"move {n}".encode()) for n in (1, 2, 3)] == [1, 2, 3]
    assert store.history("t1") == [FIRST, *moves(1, b"move 1", b"move 2", b"move 3")]
    row = store.row("t1")
    assert row is not None and (row.seq, row.epoch, row.owner) == (3, 1, "w1")


def test_a_snapshot_write_is_the_tables_snapshot_and_in_its_history(store: TableStore, backing: Backing) -> None:
    store.create("t1", {}, b"round 1", {})
    assert backing.query("SELECT snapshot, snapshot_seq FROM kc_tables") == [(b"round 1", 0)]
    epoch = claimed_one(store, "w1", "t1").epoch
    store.write("t1", epoch, b"move 1")
    assert store.write("t1", epoch, b"round 2", snapshot=True) == 2
    store.write("t1", epoch, b"move 3")
    assert [bytes(s) for s, _ in backing.query("SELECT snapshot, snapshot_seq FROM kc_tables")] == [b"round 2"]
    assert backing.query("SELECT snapshot_seq FROM kc_tables") == [(2,)]
    assert [(one.kind, one.data) for one in store.history("t1")] == [
        (SNAPSHOT, b"round 1"),
        (MOVE, b"move 1"),
        (SNAPSHOT, b"round 2"),
        (MOVE, b"move 3"),
    ]
    # Handed over, it is served again from its last snapshot and the move rows after it.
    assert store.release("t1", epoch)
    again = claimed_one(store, "w2", "t1")
    assert (again.seq, again.snapshot, again.entries) == (3, b"round 2", tuple(moves(epoch, b"move 3", start=3)))


def test_a_claim_gives_the_last_snapshot_and_every_move_row_after_it(store: TableStore) -> None:
    store.create("t1", {}, b"round 1", {})
    first = claimed_one(store, "w1", "t1")
    for n in range(1, 5):
        store.write("t1", first.epoch, f"move {n}".encode())
    got = claimed_one(store, "w2", "t1")
    assert (got.seq, got.snapshot) == (4, b"round 1")
    assert got.entries == tuple(moves(first.epoch, b"move 1", b"move 2", b"move 3", b"move 4"))
    store.write("t1", got.epoch, b"round 2", snapshot=True)
    store.write("t1", got.epoch, b"move 6")
    again = claimed_one(store, "w3", "t1")
    assert (again.seq, again.snapshot, again.entries) == (6, b"round 2", tuple(moves(got.epoch, b"move 6", start=6)))
    store.write("t1", again.epoch, b"round 3", snapshot=True)
    last = claimed_one(store, "w4", "t1")
    assert (last.seq, last.snapshot, last.entries) == (7, b"round 3", ())


def test_a_table_whose_history_misses_a_seq_after_its_snapshot_is_not_claimed(
    store: TableStore, backing: Backing
) -> None:
    store.create("t1", {}, b"first", {})
    epoch = claimed_one(store, "w1", "t1").epoch
    for n in range(1, 4):
        store.write("t1", epoch, f"move {n}".encode())
    backing.query("DELETE FROM kc_moves WHERE seq = 2")
    assert store.claim("w2", [], [], 5) == []
    row = store.row("t1")
    assert row is not None and (row.owner, row.epoch) == ("w1", epoch), "left as it was"


# ---------------------------------------------------------------------- the fence
def test_a_fenced_write_is_refused_and_leaves_no_row(store: TableStore, backing: Backing) -> None:
    store.create("t1", {}, b"first", {})
    got = claimed_one(store, "w1", "t1")
    store.write("t1", got.epoch, b"move 1")
    for stale in (got.epoch - 1, got.epoch + 1):
        with pytest.raises(Fenced):
            store.write("t1", stale, b"not written")
        with pytest.raises(Fenced):
            store.write("t1", stale, b"not written", snapshot=True)
    with pytest.raises(Fenced):
        store.write("nowhere", 1, b"not written")
    assert store.history("t1") == [FIRST, *moves(got.epoch, b"move 1")]
    assert backing.query("SELECT COUNT(*) FROM kc_moves") == [(2,)]
    row = store.row("t1")
    assert row is not None and (row.seq, row.epoch) == (1, got.epoch)


def test_a_takeover_bumps_the_epoch_and_fences_the_old_owner(backing: Backing) -> None:
    old, new = backing.open(), backing.open()
    old.init()
    old.create("t1", {}, b"first", {})
    first = claimed_one(old, "w1", "t1")
    old.write("t1", first.epoch, b"move 1")
    # w1's lease lapsed: w2 sees no live worker but itself.
    second = claimed_one(new, "w2", "t1")
    assert second.epoch == first.epoch + 1
    assert (second.seq, second.snapshot, second.entries) == (1, b"first", tuple(moves(first.epoch, b"move 1")))
    with pytest.raises(Fenced):
        old.write("t1", first.epoch, b"move 2 of the old owner")
    assert new.write("t1", second.epoch, b"move 2") == 2
    assert not old.release("t1", first.epoch)
    with pytest.raises(Fenced):
        old.end("t1", first.epoch)
    assert new.history("t1") == [FIRST, *moves(first.epoch, b"move 1"), *moves(second.epoch, b"move 2", start=2)]
    row = new.row("t1")
    assert row is not None and (row.owner, row.epoch, row.phase) == ("w2", second.epoch, PLAYING)


def test_no_seq_is_written_under_two_epochs_when_owners_race_across_a_takeover(backing: Backing) -> None:
    setup = backing.open()
    setup.init()
    setup.create("t1", {}, b"first", {})
    first = claimed_one(setup, "old", "t1")
    old, new = backing.open(), backing.open()
    old_acked: dict[int, bytes] = {}
    new_acked: dict[int, bytes] = {}
    taken = threading.Event()  # set once the new owner's claim committed
    failed = threading.Event()

    def old_owner() -> str:
        """Writes as fast as it can until the store fences it (a busy store: it tries again)."""
        n = 0
        while not failed.is_set():
            n += 1
            save = f"old {n}".encode()
            after_the_claim = taken.is_set()
            try:
                old_acked[old.write("t1", first.epoch, save)] = save
            except StoreDown:
                continue
            except Fenced:
                return "fenced"
            if after_the_claim:
                return "written after the takeover"
        return "stopped"

    def new_owner() -> int:
        """Sweeps until it claims the table (a row being written is skipped), then writes."""
        try:
            wait_for(lambda: len(old_acked) >= 3, what="the old owner's first writes")

            def sweep() -> Claimed | None:
                try:
                    got = new.claim("new", [], [], 1)
                except StoreDown:
                    return None
                return got[0] if got else None

            claimed = wait_for(sweep, what="the new owner's claim")
            taken.set()
            for n in range(1, 21):
                save = f"new {n}".encode()
                new_acked[new.write("t1", claimed.epoch, save)] = save
            return claimed.epoch
        except BaseException:
            failed.set()
            raise

    outcome, epoch = raced(old_owner, new_owner)
    assert outcome == "fenced"
    assert epoch == first.epoch + 1
    history = setup.history("t1")[1:]
    assert [one.seq for one in history] == list(range(1, len(history) + 1))
    assert len(history) == len(old_acked) + len(new_acked)
    assert max(old_acked) < min(new_acked)
    for one in history:
        if one.seq in old_acked:
            assert (one.epoch, one.data) == (first.epoch, old_acked[one.seq])
        else:
            assert (one.epoch, one.data) == (epoch, new_acked[one.seq])


def test_a_table_locked_too_long_is_store_down_and_then_written(store: TableStore, backing: Backing) -> None:
    store.create("t1", {}, b"first", {})
    epoch = claimed_one(store, "w1", "t1").epoch
    with backing.locking("t1"):
        with pytest.raises(StoreDown):
            store.write("t1", epoch, b"while locked")
        assert store.history("t1") == [FIRST]
    # The store was slow, not gone: the next call is served.
    assert store.write("t1", epoch, b"move 1") == 1
    assert store.history("t1") == [FIRST, *moves(epoch, b"move 1")]


# ---------------------------------------------------------------------- claims
def test_two_claimers_racing_for_one_orphan_exactly_one_wins(store: TableStore, backing: Backing) -> None:
    claimers = {"w1": backing.open(), "w2": backing.open()}
    holding: dict[str, list[str]] = {"w1": [], "w2": []}
    for round_ in range(5):
        table = f"t{round_}"
        store.create(table, {}, b"first", {})
        # Its owner died: both sweepers see each other alive and the dead owner gone.
        claimed_one(store, "dead", table, live=list(claimers))

        def sweep(worker: str) -> Callable[[], list[Claimed]]:
            others = [one for one in claimers if one != worker]
            return lambda: claimers[worker].claim(worker, others, holding[worker], 5)

        results = dict(zip(claimers, raced(*(sweep(worker) for worker in claimers)), strict=True))
        winners = [worker for worker, got in results.items() if got]
        assert len(winners) == 1, results
        (won,) = results[winners[0]]
        assert (won.id, won.epoch) == (table, 2)
        holding[winners[0]].append(table)
        row = store.row(table)
        assert row is not None and (row.owner, row.epoch) == (winners[0], 2)


def test_claimers_racing_for_many_orphans_take_each_once(store: TableStore, backing: Backing) -> None:
    tables = [f"t{n:02}" for n in range(12)]
    for table in tables:
        store.create(table, {}, b"first", {})
    workers = ["w1", "w2", "w3"]
    claimers = [backing.open() for _ in workers]
    results = raced(
        *(
            (lambda store=claimer, worker=worker: store.claim(worker, [w for w in workers if w != worker], [], 12))
            for claimer, worker in zip(claimers, workers, strict=True)
        )
    )
    taken = [one.id for got in results for one in got]
    assert sorted(taken) == tables
    assert {one.epoch for got in results for one in got} == {1}
    owners = {row.id: row.owner for row in store.rows()}
    for worker, got in zip(workers, results, strict=True):
        assert all(owners[one.id] == worker for one in got)


def test_claim_skips_tables_of_live_workers_and_tables_held(store: TableStore) -> None:
    store.create("alive's", {}, b"first", {})
    claimed_one(store, "alive", "alive's")
    store.create("dead's", {}, b"first", {})
    claimed_one(store, "dead", "dead's", live=["alive"])
    store.create("held", {}, b"first", {})
    store.create("free", {}, b"first", {})
    got = store.claim("w", ["alive"], ["held"], 10)
    assert sorted((one.id, one.epoch) for one in got) == [("dead's", 2), ("free", 1)]
    assert store.claim("w", ["alive"], ["held", "dead's", "free"], 10) == []
    # Its own tables that it does not serve now come back to it, at the next epoch.
    assert [(one.id, one.epoch) for one in store.claim("w", ["alive"], ["held", "free"], 10)] == [("dead's", 3)]


def test_claim_takes_at_most_its_limit_the_longest_waiting_first(store: TableStore) -> None:
    for table in ("t1", "t2", "t3", "t4"):
        store.create(table, {}, b"first", {})
    assert [one.id for one in store.claim("w1", [], [], 2)] == ["t1", "t2"]
    assert store.claim("w2", ["w1"], [], 0) == []
    assert [one.id for one in store.claim("w2", ["w1"], [], 5)] == ["t3", "t4"]
    assert store.claim("w3", ["w1", "w2"], [], 5) == []


def test_release_hands_the_table_over(store: TableStore, backing: Backing) -> None:
    store.create("t1", {}, b"first", {})
    first = claimed_one(store, "w1", "t1")
    store.write("t1", first.epoch, b"move 1")
    assert not store.release("t1", first.epoch + 1)
    assert store.release("t1", first.epoch)
    row = store.row("t1")
    assert row is not None and (row.owner, row.epoch) == (None, first.epoch)
    # w1 is alive (leaving, not dead): its released table is claimed all the same.
    second = claimed_one(backing.open(), "w2", "t1", live=["w1"])
    assert (second.epoch, second.seq, second.snapshot) == (first.epoch + 1, 1, b"first")
    assert second.entries == tuple(moves(first.epoch, b"move 1"))
    with pytest.raises(Fenced):
        store.write("t1", first.epoch, b"after the hand-over")
    assert not store.release("t1", first.epoch)
    row = store.row("t1")
    assert row is not None and row.owner == "w2"


def test_end_stops_claims_and_writes(store: TableStore) -> None:
    store.create("t1", {}, b"first", {})
    got = claimed_one(store, "w1", "t1")
    store.write("t1", got.epoch, b"last move")
    with pytest.raises(Fenced):
        store.end("t1", got.epoch - 1)
    store.end("t1", got.epoch)
    store.end("t1", got.epoch)  # ending again changes nothing
    row = store.row("t1")
    assert row is not None and row.phase == ENDED
    assert store.claim("w2", [], [], 5) == []
    assert store.release("t1", got.epoch)
    assert store.claim("w2", [], [], 5) == []
    with pytest.raises(Fenced):
        store.write("t1", got.epoch, b"after the end")
    assert store.history("t1") == [FIRST, *moves(got.epoch, b"last move")]


# ---------------------------------------------------------------------- any sequence, checked on a model
OPS = st.lists(
    st.tuples(st.sampled_from(("write", "snapshot", "claim", "release", "end")), st.sampled_from(("w0", "w1", "w2"))),
    max_size=25,
)


@settings(
    max_examples=50,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(ops=OPS)
def test_any_sequence_of_claims_writes_releases_and_ends_keeps_one_history(
    store: TableStore, ops: list[tuple[str, str]]
) -> None:
    table = uuid.uuid4().hex
    store.create(table, {}, b"first", {})
    epoch, owner, ended = 0, None, False
    believed: dict[str, int] = {}  # the epoch each worker claimed the table with
    written: list[Written] = []
    try:
        for op, worker in ops:
            mine = believed.get(worker)
            if op == "claim":
                holding: list[str] = [table] if owner == worker else []
                got = store.claim(worker, [], holding, 5)
                if ended or owner == worker:
                    assert got == []
                    continue
                epoch, owner = epoch + 1, worker
                assert [(one.id, one.epoch, one.seq) for one in got] == [(table, epoch, len(written))]
                at = max((one.seq for one in written if one.kind == SNAPSHOT), default=0)
                assert got[0].snapshot == (written[at - 1].data if at else b"first")
                assert got[0].entries == tuple(written[at:])
                believed[worker] = epoch
            elif mine is None:
                continue
            elif op in ("write", "snapshot"):
                save = f"{worker} {len(written)}".encode()
                if mine != epoch or ended:
                    with pytest.raises(Fenced):
                        store.write(table, mine, save, snapshot=op == "snapshot")
                    continue
                assert store.write(table, mine, save, snapshot=op == "snapshot") == len(written) + 1
                written.append(Written(len(written) + 1, epoch, SNAPSHOT if op == "snapshot" else MOVE, save))
            elif op == "release":
                assert store.release(table, mine) == (mine == epoch)
                if mine == epoch:
                    owner = None
            elif mine != epoch:
                with pytest.raises(Fenced):
                    store.end(table, mine)
            else:
                store.end(table, mine)
                ended = True
        assert store.history(table) == [Written(0, 0, SNAPSHOT, b"first"), *written]
        row = store.row(table)
        assert row is not None
        assert (row.owner, row.epoch, row.seq, row.phase) == (owner, epoch, len(written), ENDED if ended else PLAYING)
    finally:
        if not ended:
            store.end(table, epoch)  # never claimed by the examples that follow


# ---------------------------------------------------------------------- the schema
def test_init_twice_is_a_no_op(store: TableStore, backing: Backing) -> None:
    store.create("t1", {"n": 1}, b"first", {})
    store.init()
    backing.open().init()
    assert backing.query("SELECT key, value FROM kc_meta") == [("schema", str(SCHEMA_VERSION))]
    assert [one.id for one in store.rows()] == ["t1"]


def test_two_inits_at_once_make_the_schema_once(backing: Backing) -> None:
    first, second = backing.open(), backing.open()
    raced(first.init, second.init)
    assert backing.query("SELECT key, value FROM kc_meta") == [("schema", str(SCHEMA_VERSION))]
    first.create("t1", {}, b"first", {})
    assert [one.id for one in second.rows()] == ["t1"]


def test_a_newer_schema_is_refused_and_left_as_it_is(store: TableStore, backing: Backing) -> None:
    store.create("t1", {}, b"first", {})
    newer = str(SCHEMA_VERSION + 1)
    backing.query(f"UPDATE kc_meta SET value = '{newer}' WHERE key = 'schema'")
    with pytest.raises(StoreError) as refused:
        store.init()
    assert "newer" in str(refused.value) and "\n" not in str(refused.value)
    with pytest.raises(StoreError, match="newer"):
        backing.open().init()
    assert backing.query("SELECT value FROM kc_meta") == [(newer,)]
    assert backing.query("SELECT id FROM kc_tables") == [("t1",)]


def _blob(backing: Backing, data: bytes) -> str:
    """``data`` as a literal of the backing's SQL."""
    return f"X'{data.hex()}'" if backing.kind == "sqlite" else f"'\\x{data.hex()}'::bytea"


def version_1_store(backing: Backing) -> None:
    """A store made with version 1's statements, holding what version 1 wrote (every row a
    whole save; a table's snapshot its round's first position): ``new`` at its first position,
    ``r1`` two positions after it, ``r2`` one position after its round 2's snapshot at seq 2."""
    for statement in (STEPS if backing.kind == "sqlite" else PG_STEPS)[1]:
        backing.query(statement)
    backing.query("INSERT INTO kc_meta (key, value) VALUES ('schema', '1')")
    tables = {"new": (0, 0, b"new first"), "r1": (2, 0, b"r1 first"), "r2": (3, 2, b"r2 round 2")}
    for table, (seq, snapshot_seq, snapshot) in tables.items():
        backing.query(
            "INSERT INTO kc_tables (id, owner, epoch, seq, phase, record, snapshot, snapshot_seq, updated)"
            f" VALUES ('{table}', NULL, 1, {seq}, 'playing', '{{}}', {_blob(backing, snapshot)}, {snapshot_seq}, 1.0)"
        )
    rows = [("r1", 1, b"r1 at 1"), ("r1", 2, b"r1 at 2"), ("r2", 1, b"r2 at 1"), ("r2", 2, b"r2 round 2")]
    for table, seq, save in [*rows, ("r2", 3, b"r2 at 3")]:
        backing.query(
            f"INSERT INTO kc_moves (table_id, seq, epoch, save) VALUES ('{table}', {seq}, 1, {_blob(backing, save)})"
        )


def test_store_init_brings_a_version_1_store_to_version_2_its_rows_snapshots(backing: Backing) -> None:
    version_1_store(backing)
    store = backing.open()
    for call in (lambda: store.claim("w1", [], [], 5), lambda: store.write("r1", 1, b"x"), lambda: store.row("r1")):
        with pytest.raises(StoreError, match="store init") as refused:
            call()
        assert "older" in str(refused.value) and "\n" not in str(refused.value)
    assert backing.query("SELECT value FROM kc_meta") == [("1",)], "left as it is until init"
    store.init()
    assert backing.query("SELECT value FROM kc_meta") == [(str(SCHEMA_VERSION),)]
    assert store.history("new") == [Written(0, 0, SNAPSHOT, b"new first")]
    snapshots = [Written(1, 1, SNAPSHOT, b"r1 at 1"), Written(2, 1, SNAPSHOT, b"r1 at 2")]
    assert store.history("r1") == [Written(0, 0, SNAPSHOT, b"r1 first"), *snapshots]
    assert [(one.seq, one.kind) for one in store.history("r2")] == [(1, SNAPSHOT), (2, SNAPSHOT), (3, SNAPSHOT)]
    # Each table is served from its last row, a snapshot now.
    got = {one.id: one for one in store.claim("w1", [], [], 5)}
    assert {table: (one.seq, one.snapshot, one.entries) for table, one in got.items()} == {
        "new": (0, b"new first", ()),
        "r1": (2, b"r1 at 2", ()),
        "r2": (3, b"r2 at 3", ()),
    }
    assert store.write("r1", got["r1"].epoch, b"move 3") == 3
    [again] = backing.open().claim("w2", [], ["new", "r2"], 5)
    assert (again.snapshot, again.entries) == (b"r1 at 2", tuple(moves(got["r1"].epoch, b"move 3", start=3)))
    store.init()  # again: nothing changes
    assert len(store.history("r1")) == 4


def test_a_call_before_the_schema_is_made_says_to_make_it(backing: Backing) -> None:
    store = backing.open()
    with pytest.raises(StoreError, match="store init") as refused:
        store.row("t1")
    assert not isinstance(refused.value, StoreDown)


def test_open_store_opens_each_kind(tmp_path: Path, pg_url: str) -> None:
    path = tmp_path / "by-url.sqlite3"
    for url in (f"sqlite://{path}", str(tmp_path / "plain.sqlite3")):
        store = open_store(url)
        try:
            assert isinstance(store, SqliteTableStore) and store.kind == "sqlite"
        finally:
            store.close()
    assert path.exists()
    with fresh_database(pg_url) as url:
        store = open_store(url)
        try:
            assert isinstance(store, PgTableStore) and store.kind == "postgresql"
        finally:
            store.close()


# ---------------------------------------------------------------------- SQLite only
def test_a_new_sqlite_store_is_private(tmp_path: Path) -> None:
    path = tmp_path / "new folder" / "tables.sqlite3"
    store = SqliteTableStore.open(str(path))
    try:
        store.init()
        store.create("t1", {}, b"first", {})
        assert path.stat().st_mode & 0o777 == 0o600
        assert Path(f"{path}-wal").stat().st_mode & 0o777 == 0o600
        assert path.parent.stat().st_mode & 0o777 == 0o700
    finally:
        store.close()


def _foreign_sqlite(path: Path) -> None:
    import sqlite3

    db = sqlite3.connect(path)
    db.execute("CREATE TABLE notes (text TEXT)")
    db.execute("INSERT INTO notes VALUES ('mine')")
    db.commit()
    db.close()


FOREIGN: dict[str, Callable[[Path], object]] = {
    "text": lambda path: path.write_bytes(b"a shopping list, not a database\n" * 40),
    "sqlite of something else": _foreign_sqlite,
    "damaged": lambda path: path.write_bytes(SQLITE_MAGIC + bytes(range(256)) * 16),
}


@pytest.mark.parametrize("kind", FOREIGN)
def test_a_file_that_is_not_a_table_store_is_refused_and_left_as_it_is(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "tables.sqlite3"
    FOREIGN[kind](path)
    before = path.read_bytes()
    with pytest.raises(StoreError) as refused:
        SqliteTableStore.open(str(path)).init()
    assert "\n" not in str(refused.value)
    assert path.read_bytes() == before
    assert not Path(f"{path}-wal").exists()


#: A worker in a process of its own: claims the orphans of the file one by one (the other worker
#: alive), writes three moves to each, prints the tables it claimed (JSON).
SWEEPER = """
import json, sys
from kc_tui.net.store.sqlite_store import SqliteTableStore
from kc_tui.net.store.tablestore import StoreDown
store = SqliteTableStore.open(sys.argv[1])
worker, other = sys.argv[2], sys.argv[3]
mine = []
while True:
    try:
        got = store.claim(worker, [other], mine, 1)
    except StoreDown:
        continue
    if not got:
        break
    mine.append(got[0].id)
    for n in range(1, 4):
        while True:
            try:
                store.write(got[0].id, got[0].epoch, f"{worker} {n}".encode())
                break
            except StoreDown:
                continue
print(json.dumps(mine))
"""


def test_processes_sharing_one_file_claim_each_table_once(tmp_path: Path) -> None:
    path = str(tmp_path / "tables.sqlite3")
    store = SqliteTableStore.open(path)
    store.init()
    tables = [f"t{n:02}" for n in range(20)]
    for table in tables:
        store.create(table, {}, b"first", {})
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", SWEEPER, path, name, other],
            stdout=subprocess.PIPE,
            text=True,
            cwd=Path(__file__).resolve().parents[2],
        )
        for name, other in (("w1", "w2"), ("w2", "w1"))
    ]
    claimed = {}
    for name, process in zip(("w1", "w2"), workers, strict=True):
        out, _ = process.communicate(timeout=WAIT)
        assert process.returncode == 0
        claimed[name] = json.loads(out)
    assert sorted(claimed["w1"] + claimed["w2"]) == tables
    for row in store.rows():
        assert (row.epoch, row.seq) == (1, 3)
        assert row.id in claimed[str(row.owner)]
        assert [(one.seq, one.epoch, one.data) for one in store.history(row.id)[1:]] == [
            (n, 1, f"{row.owner} {n}".encode()) for n in (1, 2, 3)
        ]
    store.close()


# ---------------------------------------------------------------------- PostgreSQL only
def test_an_address_that_is_not_postgresql_s_is_a_store_error(pg_url: str) -> None:
    for url in ("postgresql://%zz", "postgresql://127.0.0.1:port/kc"):
        with pytest.raises(StoreError) as refused:
            PgTableStore.open(url)
        assert not isinstance(refused.value, StoreDown)
    with pytest.raises(StoreError, match="refused") as refused:
        PgTableStore.open(pg_url.rsplit("/", 1)[0] + "/no_such_database")
    assert not isinstance(refused.value, StoreDown)


def test_postgresql_not_listening_is_store_down_at_open() -> None:
    with pytest.raises(StoreDown, match="cannot be reached"):
        PgTableStore.open(f"postgresql://postgres@127.0.0.1:{free_port()}/postgres")


def test_store_down_while_postgresql_is_stopped_and_back_by_itself_after(pg_url: str) -> None:
    """On a PostgreSQL of its own (``pg_url``: PostgreSQL is there to run)."""
    server = PgServer()
    store: TableStore | None = None
    try:
        server.start()
        store = PgTableStore.open(server.url)
        store.init()
        store.create("t1", {}, b"first", {})
        epoch = claimed_one(store, "w1", "t1").epoch
        assert store.write("t1", epoch, b"move 1") == 1
        server.stop()
        calls: list[Callable[[TableStore], object]] = [
            lambda s: s.write("t1", epoch, b"move 2 while down"),
            lambda s: s.row("t1"),
            lambda s: s.rows(),
            lambda s: s.history("t1"),
            lambda s: s.token_hashes("t1"),
            lambda s: s.claim("w2", [], [], 5),
            lambda s: s.release("t1", epoch),
            lambda s: s.end("t1", epoch),
            lambda s: s.create("t2", {}, b"first", {}),
            lambda s: s.init(),
        ]
        for call in calls * 2:
            with pytest.raises(StoreDown) as down:
                call(store)
            assert "\n" not in str(down.value)
        server.start()

        def answers() -> bool:
            assert store is not None
            try:
                return store.row("t1") is not None
            except StoreDown:
                return False

        wait_for(answers, what="the store to answer again after PostgreSQL started")
        assert store.write("t1", epoch, b"move 2") == 2
        assert store.history("t1") == [FIRST, *moves(epoch, b"move 1", b"move 2")]
        row = store.row("t1")
        assert row is not None and (row.owner, row.phase) == ("w1", PLAYING)
    finally:
        if store is not None:
            store.close()
        server.remove()


# ---------------------------------------------------------------------- a lobby's tables (both kinds)
class TestLobbyTables:
    """A table kept before its match starts (its record and phase, owned by no one, never
    claimed), started by the process that serves it (owned at once, at epoch + 1), its record
    and seats' token hashes written under its epoch, its history trimmed to its snapshot by an
    owner that keeps no older position, forgotten once it is not playing."""

    def test_a_table_put_before_its_match_is_kept_by_phase_and_never_claimed(self, store: TableStore) -> None:
        store.put("open", {"seats": 2}, "open")
        store.put("open", {"seats": 3}, "open")
        store.put("other", {}, "waiting")
        store.create("t1", {}, b"first", {})
        assert [table.id for table in store.claim("w1", [], [], 10)] == ["t1"]
        assert store.claim("w2", [], ["t1"], 10) == []
        open_rows = store.rows_in(["open"])
        assert [(row.id, row.owner, row.epoch, row.seq, row.record) for row in open_rows] == [
            ("open", None, 0, 0, {"seats": 3})
        ]
        assert {row.id for row in store.rows_in(["open", "waiting"])} == {"open", "other"}
        assert [row.id for row in store.rows_in([PLAYING])] == ["t1"]
        assert store.rows_in([]) == []
        assert store.history("open") == []

    def test_start_makes_the_table_playing_and_its_starters_at_the_next_epoch(
        self, store: TableStore, backing: Backing
    ) -> None:
        store.put("t1", {"seats": 2}, "open")
        epoch = store.start("t1", "hub", {"seats": 2, "phase": "playing"}, b"first")
        assert epoch == 1
        row = store.row("t1")
        assert row is not None and (row.owner, row.epoch, row.seq, row.phase) == ("hub", 1, 0, PLAYING)
        assert row.record == {"seats": 2, "phase": "playing"}
        assert store.write("t1", epoch, b"move 1") == 1
        # Its owner's lease lapsed: another worker claims it at the next epoch.
        taken = claimed_one(backing.open(), "w2", "t1")
        assert (taken.epoch, taken.seq, taken.snapshot) == (2, 1, b"first")
        assert [(row.seq, row.kind, row.data) for row in taken.entries] == [(1, MOVE, b"move 1")]
        with pytest.raises(Fenced):
            store.write("t1", epoch, b"move 2 of the old owner")

    def test_a_playing_or_ended_table_is_neither_put_nor_started_again(self, store: TableStore) -> None:
        epoch = store.start("t1", "hub", {}, b"first")
        with pytest.raises(Fenced):
            store.put("t1", {"again": True}, "open")
        with pytest.raises(Fenced):
            store.start("t1", "other", {}, b"another first")
        store.end("t1", epoch)
        with pytest.raises(Fenced):
            store.put("t1", {"again": True}, "open")
        with pytest.raises(Fenced):
            store.start("t1", "other", {}, b"another first")
        row = store.row("t1")
        assert row is not None and (row.owner, row.epoch, row.phase, row.record) == ("hub", 1, ENDED, {})
        for phase in (PLAYING, ENDED):
            with pytest.raises(ValueError):
                store.put("t2", {}, phase)
        assert store.row("t2") is None

    def test_a_record_and_token_hashes_are_written_under_the_tables_epoch(
        self, store: TableStore, backing: Backing
    ) -> None:
        epoch = store.start("t1", "hub", {"round": 1}, b"first")
        store.set_record("t1", epoch, {"round": 2})
        store.add_hash("t1", epoch, 0, b"a" * 32)
        store.add_hash("t1", epoch, 0, b"b" * 32)
        store.add_hash("t1", epoch, 0, b"b" * 32)
        store.set_hashes("t1", epoch, 1, [b"c" * 32])
        assert store.token_hashes("t1") == {0: [b"a" * 32, b"b" * 32], 1: [b"c" * 32]}
        store.set_hashes("t1", epoch, 0, [b"d" * 32])
        store.set_hashes("t1", epoch, 1, [])
        assert store.token_hashes("t1") == {0: [b"d" * 32]}
        taken = claimed_one(backing.open(), "w2", "t1")
        assert taken.record == {"round": 2} and taken.hashes == {0: [b"d" * 32]}
        late_writes: list[Callable[[], None]] = [
            lambda: store.set_record("t1", epoch, {"round": 3}),
            lambda: store.add_hash("t1", epoch, 0, b"e" * 32),
            lambda: store.set_hashes("t1", epoch, 0, []),
        ]
        for late in late_writes:
            with pytest.raises(Fenced):
                late()
        row = store.row("t1")
        assert row is not None and row.record == {"round": 2}
        assert store.token_hashes("t1") == {0: [b"d" * 32]}
        with pytest.raises(Fenced):
            store.set_record("nowhere", 0, {})

    def test_forget_removes_a_table_not_playing_with_its_history_and_hashes(self, store: TableStore) -> None:
        store.put("open", {}, "open")
        store.forget("open")
        assert store.row("open") is None
        epoch = store.start("t1", "hub", {}, b"first")
        store.write("t1", epoch, b"move 1")
        store.add_hash("t1", epoch, 0, b"a" * 32)
        with pytest.raises(Fenced):
            store.forget("t1")
        assert store.row("t1") is not None and store.history("t1") and store.token_hashes("t1")
        store.end("t1", epoch)
        store.forget("t1")
        store.forget("never there")
        assert store.row("t1") is None and store.history("t1") == [] and store.token_hashes("t1") == {}

    def test_trim_drops_the_history_before_the_snapshot_and_a_claim_still_has_the_last_position(
        self, store: TableStore, backing: Backing
    ) -> None:
        epoch = store.start("t1", "hub", {}, b"first")
        store.trim("t1", epoch)
        for n in (1, 2):
            store.write("t1", epoch, f"move {n}".encode())
        store.write("t1", epoch, b"round 2", snapshot=True)
        store.write("t1", epoch, b"move 4")
        store.trim("t1", epoch)
        assert store.history("t1") == [Written(3, epoch, SNAPSHOT, b"round 2"), Written(4, epoch, MOVE, b"move 4")]
        store.write("t1", epoch, b"round 3", snapshot=True)
        store.trim("t1", epoch)
        taken = claimed_one(backing.open(), "w2", "t1")
        assert (taken.seq, taken.snapshot, taken.entries) == (5, b"round 3", ())
        with pytest.raises(Fenced):
            store.trim("t1", epoch)
        assert store.history("t1") == [Written(5, epoch, SNAPSHOT, b"round 3")]
