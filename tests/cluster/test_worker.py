"""The worker (kc_tui.net.cluster.worker) in this process: the store an SQLite file, Redis a
fakeredis server, the seats real websockets clients (tests/net/serverkit.Client)."""

from __future__ import annotations

import contextlib
import json
import os
import random
import re
import secrets
import signal
import sqlite3
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import fakeredis
import pytest
import redis
from websockets.exceptions import ConnectionClosed

from kc_tui.config import HUMAN
from kc_tui.config.args import CliError
from kc_tui.engine import Match, Rules
from kc_tui.match.roster import Seat
from kc_tui.match.saves import SaveError
from kc_tui.match.session import MatchSession
from kc_tui.match.table import TableDriver
from kc_tui.net import schema as p
from kc_tui.net import views
from kc_tui.net.cluster.coord import SELF_FENCE, Coordinator
from kc_tui.net.cluster.lobby_view import listing_of
from kc_tui.net.cluster.opening import open_store
from kc_tui.net.cluster.tables import new_table
from kc_tui.net.cluster.worker import CLOSE_SERVICE_RESTART, STORE_DOWN_TEXT, Worker, serve_worker
from kc_tui.net.hub import HubSettings
from kc_tui.net.lobby_schema import PLAYING, ListedSeat, TableListing
from kc_tui.net.protocol import parse_server, write
from kc_tui.net.store.history import over, saves
from kc_tui.net.store.sqlite_store import STEPS, SqliteTableStore
from kc_tui.net.store.tablestore import (
    ENDED,
    MOVE,
    SNAPSHOT,
    StoreDown,
    StoreError,
    TableStore,
)
from tests.cluster.storekit import fresh_database
from tests.net.serverkit import TWO_ROUNDS, Client, join, make_moves, play_on, settled_turn
from tests.waiting import WAIT, wait_for, wait_until

SEED = 7
#: Two people (no AI moves: the position changes only when a seat moves), no stand-ins.
SEATS = (Seat("Ana", HUMAN), Seat("Ben", HUMAN))
SETTINGS = HubSettings(ai_delay=0.0, round_pause=0.0, stand_in=0.0, stand_in_think_ms=30, ai_think_ms=30)

#: Short rounds, and a match of several.
SHORT_ROUNDS = Rules(target=20, hand_size=3)

Shown = tuple[Any, ...]


@pytest.fixture
def store_file(tmp_path: Path) -> str:
    path = str(tmp_path / "tables.sqlite3")
    store = SqliteTableStore.open(path)
    store.init()
    store.close()
    return path


@pytest.fixture
def store(store_file: str) -> Iterator[SqliteTableStore]:
    store = SqliteTableStore.open(store_file)
    yield store
    store.close()


@pytest.fixture
def server() -> fakeredis.FakeServer:
    return fakeredis.FakeServer()


@asynccontextmanager
async def serving(store: TableStore, server: fakeredis.FakeServer, **options: Any) -> AsyncIterator[Worker]:
    """A started worker (its own client of the fake Redis ``server``), stopped at the end."""
    redis = fakeredis.FakeAsyncRedis(server=server)
    worker = Worker(store, redis, settings=SETTINGS, **options)
    await worker.start()
    try:
        yield worker
    finally:
        await worker.stop(handover=False)
        await redis.aclose()


def seat_url(worker: Worker, table: str, token: str) -> str:
    return f"{worker.address}/t/{table}/seat/{token}"


async def seats(worker: Worker, table: str, tokens: dict[int, str]) -> tuple[Client, Client]:
    """Ana's and Ben's clients, once the worker serves ``table`` and each has its state."""
    await wait_until(lambda: table in worker.tables, what=f"the worker serving {table}")
    return await join(seat_url(worker, table, tokens[0])), await join(seat_url(worker, table, tokens[1]))


def shown(state: p.StateMsg) -> Shown:
    """What a state shows its seat of the position (not its stamp, which every server makes its own)."""
    return state.round, state.piles, state.hand, state.view.to_move, state.stock


def shown_of(save: bytes, seat: int) -> Shown:
    """What ``seat`` is shown of the position in ``save``, built as the server builds a state."""
    session = MatchSession.from_dict(json.loads(save), shared_log=True)
    n = session.match.n
    text = views.state(TableDriver(session, pace="instant"), seat, stamp=0, connected=[True] * n, stand_in=[False] * n)
    state = parse_server(text)
    assert isinstance(state, p.StateMsg)
    return shown(state)


def closed_with(*clients: Client) -> Callable[[], bool]:
    return lambda: all(c.ws.close_code == CLOSE_SERVICE_RESTART for c in clients)


async def a_play(mover: Client) -> int:
    """``mover`` plays a card when it can, else ends its turn; the request's id."""
    plays = [m for m in mover.state.legal if m != "end"]
    return await mover.move(plays[0] if plays else "end")


async def test_a_new_table_is_claimed_and_every_move_written_before_any_seat_is_shown_it(
    store: SqliteTableStore, server: fakeredis.FakeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    table, tokens = new_table(store, SEATS, TWO_ROUNDS, seed=SEED)
    first = store.token_hashes(table)
    assert sorted(first) == [0, 1]
    workers: list[Worker] = []
    #: Each position written, and the stamp of the newest state its table had sent when it was.
    written: list[tuple[Shown, Shown, int]] = []
    real = store.write

    def write(name: str, epoch: int, data: bytes, *, snapshot: bool = False) -> int:
        seq = real(name, epoch, data, snapshot=snapshot)
        save = saves(store.history(name))[seq]
        written.append((shown_of(save, 0), shown_of(save, 1), workers[0].tables[name].served.stamp))
        return seq

    monkeypatch.setattr(store, "write", write)
    async with serving(store, server) as worker:
        workers.append(worker)
        ana, ben = await seats(worker, table, tokens)
        await make_moves(6, ana, ben)
        await settled_turn(ana, ben)
        history = store.history(table)[1:]
        positions = saves(store.history(table))
        row = store.row(table)
        assert row is not None and row.owner == worker.id and row.epoch == worker.tables[table].epoch == 1
        assert [w.seq for w in history] == [1, 2, 3, 4, 5, 6], "one row per move"
        assert {w.epoch for w in history} == {1}
        assert all(w.kind == MOVE and len(w.data) < 200 for w in history), "a move row holds no position"
        assert all(len(positions[w.seq]) > 1000 for w in history)
        assert [(a, b) for a, b, _stamp in written] == [
            (shown_of(positions[w.seq], 0), shown_of(positions[w.seq], 1)) for w in history
        ]
        # A state of a position is sent only after its row was written: each is newer than every
        # state sent before that write.
        for seat, client in enumerate((ana, ben)):
            for position in written:
                sent = [s.stamp for s in client.states() if shown(s) == position[seat]]
                assert sent and min(sent) > position[2], f"seat {seat} was shown a position before it was written"
        kept = {shown_of(positions[w.seq], 0) for w in history}
        assert len({shown(s) for s in ana.states()} - kept) == 1, "the table's first position, and those written"
        watcher = await join(f"{worker.address}/t/{table}/watch")
        assert watcher.state.seat is None and watcher.state.hand is None
        await watcher.close()
        for path, status in (("/", 200), ("/lobby", 404), (f"/t/{table}/seat/not-a-token", None)):
            answer = worker.route(path)
            assert (answer[0] if isinstance(answer, tuple) else None) == status, path
        assert shown(ana.state) == shown_of(positions[6], 0)
        assert shown(ben.state) == shown_of(positions[6], 1)
        for client in (ana, ben):
            await client.close()


async def test_every_round_starts_with_a_snapshot_and_a_match_over_is_ended_in_the_store(
    store: SqliteTableStore, server: fakeredis.FakeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    table, tokens = new_table(store, (Seat("Ana", HUMAN), Seat("Greedy", "greedy", 50)), SHORT_ROUNDS, seed=SEED)
    snapshots: list[tuple[int, int]] = []
    real = store.write

    def write(name: str, epoch: int, data: bytes, *, snapshot: bool = False) -> int:
        if snapshot and not over(data):
            session = MatchSession.from_dict(json.loads(data), shared_log=True)
            snapshots.append((session.match.number, session.stamp[2]))
        return real(name, epoch, data, snapshot=snapshot)

    monkeypatch.setattr(store, "write", write)
    async with serving(store, server) as worker:
        await wait_until(lambda: table in worker.tables, what=f"the worker serving {table}")
        ana = await join(seat_url(worker, table, tokens[0]))
        await play_on(ana, random.Random(SEED), lambda: False)
        assert ana.state.over
        await wait_until(lambda: (r := store.row(table)) is not None and r.phase == ENDED, what="the table ended")
        row = store.row(table)
        assert row is not None
        rounds = max(m.number for m in ana.messages if isinstance(m, p.RoundMsg))
        assert rounds >= 2, "the match lasts more than a round"
        # Every round after the first starts with a snapshot: its first position, before any move.
        assert snapshots == [(n, 0) for n in range(2, rounds + 1)]
        assert row.epoch == 1
        # The match's last position (scored, over) is written like every other before it is shown.
        final = store.history(table)[-1]
        assert final.kind == SNAPSHOT
        last = Match.from_dict(json.loads(final.data)["match"])
        assert last.over
        assert list(last.totals) == [seat.total for seat in ana.state.view.seats]
        await ana.close()
    claimer = SqliteTableStore.open(str(store.path))
    try:
        assert claimer.claim("another", [], [], 10) == [], "an ended table is never claimed again"
    finally:
        claimer.close()


async def test_a_public_tables_listing_is_in_redis_while_its_worker_serves_it(
    store: SqliteTableStore, server: fakeredis.FakeServer
) -> None:
    public, tokens = new_table(store, SEATS, SHORT_ROUNDS, seed=SEED)
    private, _private_tokens = new_table(store, SEATS, SHORT_ROUNDS, seed=SEED, record={"private": True})
    async with serving(store, server) as worker:
        reader = Coordinator(fakeredis.FakeAsyncRedis(server=server), "reader", "ws://reader:1")
        await seats(worker, public, tokens)
        await wait_until(lambda: private in worker.tables, what="the private table served")

        async def shown() -> dict[str, Any] | None:
            found = (await reader.listings()).get(public)
            if found is None or [seat["connected"] for seat in found["seats"]] != [True, True]:
                return None
            return found

        listed = await wait_until(shown, what="the public table listed with both seats connected")
        assert listing_of(public, listed) == TableListing(
            table=public,
            phase=PLAYING,
            rules=SHORT_ROUNDS.to_dict(),
            target=20,
            seats=(ListedSeat("human", "Ana", True), ListedSeat("human", "Ben", True)),
            spectators=0,
            quick=False,
            turn_seconds=0,
            round=1,
        )
        assert private not in await reader.listings(), "a private table is listed nowhere"
        await worker.stop(handover=True)  # handed over: not this worker's to list
        assert public not in await reader.listings()


async def hand_over(stores: Sequence[TableStore], server: fakeredis.FakeServer) -> None:
    """A table served by one worker (on ``stores[0]``) and handed over to another (``stores[1]``):
    served at the next epoch from the same position, its seats back with their tokens."""
    table, tokens = new_table(stores[0], SEATS, TWO_ROUNDS, seed=SEED)
    async with serving(stores[0], server, worker_id="w-one") as one:
        ana, ben = await seats(one, table, tokens)
        epoch = one.tables[table].epoch
        async with serving(stores[1], server, worker_id="w-two") as two:
            await make_moves(3, ana, ben)
            await settled_turn(ana, ben)
            before = (shown(ana.state), shown(ben.state))
            told = (len(ana.raw), len(ben.raw))
            await one.stop(handover=True)
            await wait_until(closed_with(ana, ben), what="both seats closed with 1012")
            assert (len(ana.raw), len(ben.raw)) == told, "nothing but the close"
            await wait_until(lambda: table in two.tables, what="the other worker serving the table")
            assert two.tables[table].epoch == epoch + 1
            again = await join(seat_url(two, table, tokens[0]))
            assert shown(again.state) == before[0]
            ben_again = await join(seat_url(two, table, tokens[1]))
            assert shown(ben_again.state) == before[1]
            await make_moves(1, again, ben_again)
            history = stores[1].history(table)
            assert [w.epoch for w in history] == [0] + [epoch] * 3 + [epoch + 1]
            assert [w.seq for w in history] == [0, 1, 2, 3, 4]
            # Served again from the round's first position with the three moves replayed.
            assert [w.kind for w in history] == [SNAPSHOT] + [MOVE] * 4
            for client in (again, ben_again):
                await client.close()


async def test_a_handed_over_table_is_served_by_another_worker_at_the_next_epoch(
    store_file: str, server: fakeredis.FakeServer
) -> None:
    stores = [SqliteTableStore.open(store_file), SqliteTableStore.open(store_file)]
    try:
        await hand_over(stores, server)
    finally:
        for s in stores:
            s.close()


async def test_on_postgresql_a_handed_over_table_is_served_by_another_worker(
    pg_url: str, server: fakeredis.FakeServer
) -> None:
    with fresh_database(pg_url) as url:
        stores = [open_store(url), open_store(url)]
        try:
            stores[0].init()
            await hand_over(stores, server)
        finally:
            for s in stores:
                s.close()


async def test_a_table_claimed_behind_its_workers_back_gets_only_a_close(
    store_file: str, store: SqliteTableStore, server: fakeredis.FakeServer
) -> None:
    table, tokens = new_table(store, SEATS, TWO_ROUNDS, seed=SEED)
    async with serving(store, server) as worker:
        ana, ben = await seats(worker, table, tokens)
        await make_moves(2, ana, ben)
        mover = await settled_turn(ana, ben)
        rows = len(store.history(table))
        # Another worker, holding a lease, claims the table (its epoch + 1) while this one serves it.
        await fakeredis.FakeAsyncRedis(server=server).set("kc:w:other", "ws://elsewhere", px=60_000)
        other = SqliteTableStore.open(store_file)
        try:
            [claimed] = other.claim("other", [], [], 10)
        finally:
            other.close()
        assert claimed.id == table and claimed.epoch == worker.tables[table].epoch + 1
        told = (len(ana.raw), len(ben.raw))
        await a_play(mover)
        await wait_until(closed_with(ana, ben), what="both seats closed with 1012")
        assert (len(ana.raw), len(ben.raw)) == told, "nothing but the close"
        assert len(store.history(table)) == rows
        assert table not in worker.tables
        answer = worker.route(f"/t/{table}/seat/{tokens[0]}")
        assert isinstance(answer, tuple) and answer[0] == 404


async def test_a_worker_not_renewed_in_time_sends_nothing_and_drops_its_tables(
    store: SqliteTableStore, server: fakeredis.FakeServer
) -> None:
    now = [1000.0]
    table, tokens = new_table(store, SEATS, TWO_ROUNDS, seed=SEED)
    # Renewed only when it asks itself to: the clock jumps as a process stopped and woken sees it.
    async with serving(store, server, clock=lambda: now[0], renew_every=3600.0) as worker:
        ana, ben = await seats(worker, table, tokens)
        await make_moves(1, ana, ben)
        mover = await settled_turn(ana, ben)
        epoch = worker.tables[table].epoch
        rows = len(store.history(table))
        told = (len(ana.raw), len(ben.raw))
        now[0] += SELF_FENCE + 1
        with contextlib.suppress(ConnectionClosed):
            await mover.send(write(p.Ping(1)))
            await a_play(mover)
        await wait_until(closed_with(ana, ben), what="both seats closed with 1012")
        assert (len(ana.raw), len(ben.raw)) == told, "not a pong, not a state: only the close"
        assert len(store.history(table)) == rows
        # It takes a lease again and sweeps: its table comes back to it at the next epoch.
        await wait_until(lambda: table in worker.tables and worker.tables[table].epoch == epoch + 1)
        again = await join(seat_url(worker, table, tokens[1 if mover is ben else 0]))
        assert shown(again.state) == shown(mover.state)
        await again.close()


@pytest.mark.parametrize(
    ("problem", "told"),
    [
        (StoreDown("the store cannot be reached (a test)"), STORE_DOWN_TEXT),
        (StoreError("tables.sqlite3 cannot be used: database or disk is full"), "database or disk is full"),
    ],
    ids=["cannot be reached", "its disk full"],
)
async def test_a_store_that_cannot_be_written_holds_the_table_and_play_goes_on_after(
    problem: StoreError,
    told: str,
    store: SqliteTableStore,
    server: fakeredis.FakeServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    table, tokens = new_table(store, SEATS, TWO_ROUNDS, seed=SEED)
    down = [False]
    real = store.write

    def write(name: str, epoch: int, data: bytes, *, snapshot: bool = False) -> int:
        if down[0]:
            raise problem
        return real(name, epoch, data, snapshot=snapshot)

    monkeypatch.setattr(store, "write", write)
    async with serving(store, server) as worker:
        ana, ben = await seats(worker, table, tokens)
        await make_moves(1, ana, ben)
        mover = await settled_turn(ana, ben)
        rows = len(store.history(table))
        held = shown(mover.state)
        down[0] = True
        rid = await a_play(mover)
        refused = await mover.expect(p.RefusedMsg, where=lambda m: m.id == rid)
        assert told in refused.reason
        assert len(store.history(table)) == rows
        assert all(shown(s) == held for s in mover.states()[-1:])
        down[0] = False
        await make_moves(2, ana, ben)
        history = store.history(table)
        assert len(history) > rows
        assert history[rows].kind == SNAPSHOT, "the write after a failed one: a snapshot"
        assert shown(mover.state) == shown_of(saves(history)[history[-1].seq], mover.state.seat or 0)
        for client in (ana, ben):
            await client.close()


def damage_digest(store: SqliteTableStore, table: str, seq: int) -> bytes:
    """The move row at ``seq`` with the digest of the row before it: a position that differs."""
    history = store.history(table)
    entry = json.loads(history[seq].data)
    entry["digest"] = json.loads(history[seq - 1].data)["digest"]
    return json.dumps(entry).encode()


@pytest.mark.parametrize(
    "damage",
    [damage_digest, lambda _store, _table, _seq: b'{"play": "play 7'],
    ids=["a digest that differs", "a damaged entry"],
)
async def test_a_history_that_does_not_replay_is_not_served_and_is_released_as_it_is(
    damage: Callable[[SqliteTableStore, str, int], bytes],
    store_file: str,
    store: SqliteTableStore,
    server: fakeredis.FakeServer,
    caplog: pytest.LogCaptureFixture,
) -> None:
    table, tokens = new_table(store, SEATS, TWO_ROUNDS, seed=SEED)
    async with serving(store, server, worker_id="w-one") as one:
        ana, ben = await seats(one, table, tokens)
        await make_moves(3, ana, ben)
        await settled_turn(ana, ben)
        await one.stop(handover=True)
    damaged = damage(store, table, 3)
    db = sqlite3.connect(store_file)
    with db:
        db.execute("UPDATE kc_moves SET data = ? WHERE table_id = ? AND seq = 3", (damaged, table))
    db.close()
    before = store.history(table)
    async with serving(store, server, worker_id="w-two") as two:
        await wait_until(lambda: table in two.set_aside, what="the table set aside")
        row = store.row(table)
        assert row is not None and (row.owner, row.epoch, row.seq) == (None, 2, 3), "released, nothing written"
        assert store.history(table) == before
        assert table not in two.tables
        answer = two.route(f"/t/{table}/seat/{tokens[0]}")
        assert isinstance(answer, tuple) and answer[0] == 404, "no position is shown"
        await two._sweep()
        assert (r := store.row(table)) is not None and (r.owner, r.epoch) == (None, 2), "not claimed again here"
    errors = [r.getMessage() for r in caplog.records if r.levelname == "ERROR" and table in r.getMessage()]
    assert len(errors) == 1 and "seq 3" in errors[0]
    moves = [json.loads(w.data).get("play") for w in before[1:3]]
    assert not any(m in errors[0] for m in moves if m), "no card in the log"
    for client in (ana, ben):
        await client.close()


def test_a_worker_on_a_store_of_version_1_says_to_run_store_init(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    db = sqlite3.connect(path)
    for statement in STEPS[1]:
        db.execute(statement)
    db.execute("INSERT INTO kc_meta (key, value) VALUES ('schema', '1')")
    db.commit()
    db.close()
    with pytest.raises(CliError, match="store init") as refused:
        serve_worker(
            str(path), "redis://127.0.0.1:1", bind="127.0.0.1", port=0, worker_id=None, advertise=None, status=print
        )
    assert "older" in str(refused.value) and "\n" not in str(refused.value)


def test_a_table_no_worker_could_serve_is_refused_and_not_stored(store: SqliteTableStore) -> None:
    with pytest.raises(SaveError):
        new_table(store, (Seat("Ana", HUMAN), Seat("Greedy", "greedy", 5)), TWO_ROUNDS)
    assert store.rows() == []


def test_the_worker_command_says_it_serves_and_hands_its_tables_over_on_sigterm(
    store_file: str, store: SqliteTableStore, redis_url: str
) -> None:
    table, _tokens = new_table(store, SEATS, TWO_ROUNDS, seed=SEED)
    name = f"w-process-{secrets.token_hex(4)}"
    argv = ["worker", "--store", store_file, "--redis", redis_url, "--id", name]
    proc = subprocess.Popen(
        [sys.executable, "-m", "kc_tui", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=os.environ | {"PYTHONUNBUFFERED": "1"},
    )
    out: list[str] = []
    stdout = proc.stdout
    assert stdout is not None
    threading.Thread(target=lambda: out.extend(iter(stdout.readline, "")), daemon=True).start()
    try:
        first = wait_for(lambda: out[:1], what="the worker's first line", showing=lambda: out)
        assert re.fullmatch(rf"worker {name} serving at ws://127\.0\.0\.1:\d+\n", first[0])
        wait_for(lambda: (row := store.row(table)) is not None and row.owner == name, what="the table claimed")
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(WAIT) == 0
        assert proc.stderr is not None and proc.stderr.read() == ""
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(WAIT)
    row = store.row(table)
    assert row is not None and (row.owner, row.epoch) == (None, 1), "handed over: claimed by the next sweep"
    assert redis.Redis.from_url(redis_url).exists(f"kc:w:{name}") == 0, "its lease released"
