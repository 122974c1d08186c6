"""``server.sqlite3`` holds the tables' store (kc_tables with an owner, an epoch and a seq; the
positions in kc_moves; the token hashes in kc_seat_tokens) beside the accounts' tables. The hub
owns the tables it plays under an epoch of its own, so a process that held the file before is
fenced; a file of store version 1 is migrated in one transaction, nothing lost, or left exactly
as it was."""

from __future__ import annotations

import functools
import hashlib
import json
import sqlite3
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, closing
from dataclasses import dataclass
from pathlib import Path

import pytest

from kc_tui.config import HUMAN
from kc_tui.engine import Rules
from kc_tui.match.roster import Seat
from kc_tui.match.saves import save_bytes
from kc_tui.match.session import MatchSession
from kc_tui.net import lobby_schema as ls
from kc_tui.net import schema
from kc_tui.net import server_store as server_store_module
from kc_tui.net.accounts import Accounts
from kc_tui.net.accounts import Person as Account
from kc_tui.net.hub import FENCED_TEXT, Hub, HubSettings
from kc_tui.net.identity import PlayerKey
from kc_tui.net.lobby import Lobby, LobbyLimits, Person, Seating, shipped_ai_ratings
from kc_tui.net.server_store import STORE_NAME, STORE_VERSION, ServerStore, StoreError
from kc_tui.net.store.tablestore import Fenced
from kc_tui.records.rating import Rating
from tests.faultkit import fill, small_disk
from tests.net.hubkit import FAST, my_turn, play_one, shown, signed_in, sit, start_server
from tests.net.server_store_v1 import StoreV1
from tests.waiting import wait_until

#: Hands of 4 cards to 100 points: a match that outlasts the test.
LONG = ls.CreateTable(("human", "greedy"), 100, {"hand_size": 4})
ANCHORS = {"greedy": Rating("greedy", 1000.0, 0.0)}
#: Ana's and Ben's public keys.
KEYS = (PlayerKey.generate().public_text, PlayerKey.generate().public_text)


@asynccontextmanager
async def hub_on(folder: Path) -> AsyncIterator[Hub]:
    """A hub served by this process on the store in ``folder``, AIs and rounds at once."""
    store = ServerStore.open(folder)
    hub = Hub(store, settings=HubSettings(ai_delay=0.0, round_pause=0.0, stand_in_think_ms=30), per_address=None)
    try:
        await hub.start("127.0.0.1", 0)
        yield hub
    finally:
        await hub.close()
        store.close()


def peek(folder: Path) -> closing[sqlite3.Connection]:
    """The file read by a connection of its own, closed at the block's end."""
    return closing(sqlite3.connect(f"file:{folder / STORE_NAME}?mode=ro", uri=True))


def table_names(folder: Path) -> set[str]:
    with peek(folder) as db:
        return {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def file_state(folder: Path) -> tuple[bytes, list[str]]:
    """The file's bytes' digest and its whole content as SQL (the file closed by every reader)."""
    with peek(folder) as db:
        dump = list(db.iterdump())
    return hashlib.sha256((folder / STORE_NAME).read_bytes()).digest(), dump


async def playing_table(hub: Hub, home: Path) -> tuple[str, str]:
    """A table of one person and an AI started at ``hub``; its id and its seat's address."""
    person = await signed_in(f"{hub.base}/lobby", home, "Ana")
    joined = await person.request(LONG)
    assert isinstance(joined, ls.JoinedMsg), joined
    start = await person.expect(ls.StartMsg, where=lambda m: m.table == joined.table)
    await person.close()
    return joined.table, start.url


def row_kinds(folder: Path, table: str) -> list[tuple[str, int]]:
    """Each row of ``table``'s history: its kind and its size in bytes."""
    with peek(folder) as db:
        found = db.execute("SELECT kind, length(data) FROM kc_moves WHERE table_id = ? ORDER BY seq", (table,))
        return [(str(kind), int(size)) for kind, size in found.fetchall()]


async def test_the_hubs_tables_are_rows_of_the_table_store_with_the_hubs_epoch(tmp_path: Path) -> None:
    folder = tmp_path / "srv"
    async with hub_on(folder) as hub:
        table, url = await playing_table(hub, tmp_path / "ana")
        seat = await sit(url)
        for _ in range(20):  # a move that ends a round starts the next with a snapshot
            await play_one(seat)
            if any(kind == "move" for kind, _size in row_kinds(folder, table)):
                break
        await seat.close()
        owner = hub.store.owner
    assert {"kc_meta", "kc_tables", "kc_moves", "kc_seat_tokens", "people"} <= table_names(folder)
    assert not {"hub_tables", "hub_seat_tokens"} & table_names(folder)
    with peek(folder) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == STORE_VERSION == 2
        row = db.execute("SELECT owner, epoch, seq, phase FROM kc_tables WHERE id = ?", (table,)).fetchone()
        moves = db.execute("SELECT seq, epoch FROM kc_moves WHERE table_id = ? ORDER BY seq", (table,)).fetchall()
        hashes = db.execute("SELECT count(*) FROM kc_seat_tokens WHERE table_id = ?", (table,)).fetchone()[0]
    kinds = row_kinds(folder, table)
    assert kinds[0][0] == "snapshot" and any(kind == "move" for kind, _size in kinds), kinds
    assert all(size < 200 for kind, size in kinds if kind == "move"), "a move row holds no position"
    assert row[0] == owner and row[1] == 1 and row[3] == ls.PLAYING
    seqs = [seq for seq, _epoch in moves]
    assert seqs == list(range(seqs[0], row[2] + 1)), "every seq from the round's snapshot on"
    assert {epoch for _seq, epoch in moves} == {1}
    assert hashes == 1


async def test_a_hub_started_again_claims_its_tables_at_the_next_epoch(tmp_path: Path) -> None:
    folder = tmp_path / "srv"
    async with hub_on(folder) as hub:
        table, url = await playing_table(hub, tmp_path / "ana")
        seat = await sit(url)
        await play_one(seat)
        position = shown(await my_turn(seat))
        await seat.close()
    async with hub_on(folder) as hub:
        assert hub.store.epochs == {table: 2}
        seat = await sit(f"{hub.base}/t/{table}/seat/{url.rsplit('/', 1)[1]}")
        assert shown(await my_turn(seat)) == position
        await play_one(seat)
        await seat.close()
    with peek(folder) as db:
        epochs = [
            epoch for (epoch,) in db.execute("SELECT epoch FROM kc_moves WHERE table_id = ? ORDER BY seq", (table,))
        ]
    assert epochs == sorted(epochs) and epochs[-1] == 2


async def test_a_hub_whose_table_another_process_claimed_is_fenced_and_stops_serving_it(tmp_path: Path) -> None:
    folder = tmp_path / "srv"
    async with hub_on(folder) as hub:
        table, url = await playing_table(hub, tmp_path / "ana")
        seat = await sit(url)
        await play_one(seat)
        before = await my_turn(seat)
        with peek(folder) as db:
            written = db.execute("SELECT seq FROM kc_tables WHERE id = ?", (table,)).fetchone()[0]
        other = ServerStore.open(folder)
        try:
            assert [claimed.id for claimed in other.claim_all()] == [table] and other.epochs == {table: 2}
            with pytest.raises(Fenced):
                hub.store.save(table, b"a position under the old epoch")
            plays = [m for m in before.legal if m != "end"]
            seat.seat.move(plays[0] if plays else "end")
            await wait_until(
                lambda: any(
                    isinstance(m, schema.ErrorMsg) and m.code == schema.CLOSED and m.message == FENCED_TEXT
                    for m in seat.messages
                ),
                what="the seat told its table is served by another process",
            )
            assert table not in hub.tables
            assert shown(seat.states[-1]) == shown(before), "no state of a position that was not written"
            other.save(table, b"the new owner writes")
        finally:
            other.close()
            await seat.close()
    with peek(folder) as db:
        moves = db.execute("SELECT seq, epoch FROM kc_moves WHERE table_id = ? ORDER BY seq", (table,)).fetchall()
    assert moves[-1] == (written + 1, 2), "the new owner's write follows the last one of the old"
    assert all(epoch == 1 for seq, epoch in moves if seq <= written)


# ---------------------------------------------------------------------- version 1's files
@dataclass(frozen=True)
class V1File:
    """What a file of store version 1 holds: its playing and its open table, the playing one's
    save, the people."""

    playing: str
    waiting: str
    save: bytes
    people: dict[str, Account | None]


def v1_file(folder: Path) -> V1File:
    """A real file of store version 1: Ana's table being played (her seat's token kept as its
    hash, its save at the first position), Ben's open table, and their ratings after a match
    between them. What it holds, to compare with."""
    lobby = Lobby(LobbyLimits(), shipped_ai_ratings())
    old = StoreV1(folder)
    accounts = Accounts(old.db, anchors=ANCHORS)
    ana = accounts.sign_in(KEYS[0], "Ana")
    ben = accounts.sign_in(KEYS[1], "Ben")
    assert isinstance(ana, Account) and isinstance(ben, Account)
    accounts.record_match(list(KEYS), [10.0, 30.0], True, [None, None])
    playing = lobby.create(Person(ana.key, ana.name, ana.rating), LONG, 1.0)
    waiting = lobby.create(Person(ben.key, ben.name, ben.rating), ls.CreateTable(("human", "human"), 25, {}), 2.0)
    assert isinstance(playing, Seating) and isinstance(waiting, Seating)
    assert lobby.phase(playing.table) == ls.PLAYING and lobby.phase(waiting.table) == ls.OPEN
    session = MatchSession.hosted(
        [Seat("Ana", HUMAN), Seat("Greedy", "greedy")], Rules.from_dict(dict(LONG.rules)).with_(target=100)
    )
    save = save_bytes(session.to_dict(), compact=True)
    for table in (playing.table, waiting.table):
        record = lobby.record(table)
        assert record is not None
        old.put_table(table, record, str(record["phase"]))
    old.save(playing.table, save)
    old.add_token(playing.table, 0, "ana-seat-token")
    people = {key: accounts.person(key) for key in KEYS}
    old.close()
    return V1File(playing.table, waiting.table, save, people)


async def test_a_version_1_file_is_migrated_and_keeps_every_table_and_person(tmp_path: Path) -> None:
    folder = tmp_path / "srv"
    kept = v1_file(folder)
    store = ServerStore.open(folder)
    try:
        assert not {"hub_tables", "hub_seat_tokens"} & table_names(folder)
        rows = {row.id: row for row in store.rows()}
        assert rows[kept.playing].phase == ls.PLAYING and rows[kept.waiting].phase == ls.OPEN
        assert all(row.epoch == 0 and row.owner is None for row in rows.values())
        (claimed,) = store.claim_all()
        assert (claimed.snapshot, claimed.entries, claimed.epoch) == (kept.save, (), 1)
    finally:
        store.close()
    async with hub_on(folder) as hub:
        playing, waiting = kept.playing, kept.waiting
        assert hub.lobby.phase(waiting) == ls.OPEN and hub.lobby.phase(playing) == ls.PLAYING
        saved = json.loads(kept.save)
        assert hub.tables[playing].served.session.record.uid == saved["record"]["uid"]
        assert hub.store.epochs == {playing: 2}
        seat = await sit(f"{hub.base}/t/{playing}/seat/ana-seat-token")
        await play_one(seat)
        await seat.close()
        accounts = Accounts(hub.store.db, anchors=ANCHORS)
        assert {key: accounts.person(key) for key in KEYS} == kept.people
        ana = await signed_in(f"{hub.base}/lobby", tmp_path / "someone", "Someone")
        listed = {t.table for t in ana.of(ls.LobbyMsg)[-1].tables}
        assert {playing, waiting} <= listed
        await ana.close()
    with peek(folder) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == STORE_VERSION


async def test_kings_corners_server_serves_a_version_1_files_table_to_its_old_seat_address(tmp_path: Path) -> None:
    folder = tmp_path / "srv"
    kept = v1_file(folder)
    srv = await start_server(folder, *FAST)
    try:
        seat = await sit(f"{srv.url}/t/{kept.playing}/seat/ana-seat-token")
        await play_one(seat)
        await seat.close()
        assert srv.stop() == 0
    finally:
        if srv.proc.poll() is None:
            srv.kill()
    assert "Traceback" not in srv.errors()
    with peek(folder) as db:
        assert db.execute("SELECT epoch FROM kc_tables WHERE id = ?", (kept.playing,)).fetchone()[0] == 1
        assert db.execute("SELECT count(*) FROM people").fetchone()[0] == 2


def test_a_migration_that_fails_midway_leaves_the_file_exactly_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "srv"
    kept = v1_file(folder)
    before = file_state(folder)
    failing = (*server_store_module.FROM_V1, "INSERT INTO no_such_table VALUES (1)")
    monkeypatch.setattr(server_store_module, "FROM_V1", failing)
    with pytest.raises(StoreError) as refused:
        ServerStore.open(folder)
    assert "\n" not in str(refused.value) and "left as it is" in str(refused.value)
    assert file_state(folder) == before
    monkeypatch.undo()
    store = ServerStore.open(folder)
    try:
        assert {row.id for row in store.rows()} == {kept.playing, kept.waiting}
        assert store.token_hashes(kept.playing) == {0: [server_store_module.token_hash("ana-seat-token")]}
    finally:
        store.close()


def test_a_file_of_a_newer_store_or_tables_schema_is_refused_and_left_as_it_is(tmp_path: Path) -> None:
    newer, schema_newer = tmp_path / "newer", tmp_path / "schema"
    for folder in (newer, schema_newer):
        ServerStore.open(folder).close()
    with closing(sqlite3.connect(newer / STORE_NAME, isolation_level=None)) as db:
        db.execute(f"PRAGMA user_version = {STORE_VERSION + 1}")
    with closing(sqlite3.connect(schema_newer / STORE_NAME, isolation_level=None)) as db:
        db.execute("UPDATE kc_meta SET value = '99' WHERE key = 'schema'")
    for folder, words in ((newer, "newer"), (schema_newer, "newer")):
        before = file_state(folder)
        with pytest.raises(StoreError, match=words) as refused:
            ServerStore.open(folder)
        assert "\n" not in str(refused.value)
        assert file_state(folder) == before


def test_a_table_not_playing_is_never_claimed(tmp_path: Path) -> None:
    store = ServerStore.open(tmp_path)
    try:
        store.put_table("waiting", {"phase": ls.OPEN}, ls.OPEN)
        assert store.claim_all() == [] and store.epochs == {}
        store.start("started", {"phase": ls.PLAYING}, b"first")
        assert store.epochs == {"started": 1}
        store.put_table("started", {"phase": ls.PLAYING, "round": 2}, ls.PLAYING)
        assert {row.id: row.record for row in store.rows(ls.PLAYING)} == {"started": {"phase": ls.PLAYING, "round": 2}}
        assert [row.id for row in store.rows(ls.OPEN)] == ["waiting"]
    finally:
        store.close()


def test_the_save_in_the_file_is_the_last_position_written(tmp_path: Path) -> None:
    store = ServerStore.open(tmp_path)
    try:
        store.start("t", {}, b"first")
        store.save("t", json.dumps({"n": 1}).encode())
        store.set_token("t", 0, "tok")
        other = ServerStore.open(tmp_path)
        try:
            (claimed,) = other.claim_all()
        finally:
            other.close()
        assert claimed.snapshot == b"first" and claimed.epoch == 2
        assert [row.data for row in claimed.entries] == [b'{"n": 1}'], "the row written last follows its snapshot"
        assert claimed.hashes == {0: [server_store_module.token_hash("tok")]}
        for write in (
            functools.partial(store.save, "t", b"late"),
            functools.partial(store.add_token, "t", 0, "late"),
            functools.partial(store.clear_tokens, "t", 0),
            functools.partial(store.put_table, "t", {}, ls.PLAYING),
            functools.partial(store.end, "t"),
        ):
            with pytest.raises(Fenced):
                write()
    finally:
        store.close()


def test_a_rounds_first_position_drops_the_positions_before_it(tmp_path: Path) -> None:
    store = ServerStore.open(tmp_path)
    try:
        store.start("t", {}, b"first")
        for n in range(1, 4):
            store.save("t", f"move {n}".encode())
        store.save("t", b"round 2", snapshot=True)
        store.save("t", b"move 5")
        assert [(row.seq, row.data) for row in store.tables_store.history("t")] == [(4, b"round 2"), (5, b"move 5")]
    finally:
        store.close()


async def test_a_full_disk_holds_the_servers_table_with_one_line_and_loses_nothing_shown(tmp_path: Path) -> None:
    with small_disk("2m") as disk:
        folder = disk / "srv"
        async with hub_on(folder) as hub:
            table, url = await playing_table(hub, tmp_path / "ana")
            seat = await sit(url)
            await play_one(seat)
            state = await my_turn(seat)
            filler = fill(disk)
            plays = [m for m in state.legal if m != "end"]
            seat.seat.move(plays[0] if plays else "end")
            held = await wait_until(
                lambda: seat.seat.state if seat.seat.state and seat.seat.state.save_problem else None,
                what="the seat told the table holds",
            )
            problem = held.save_problem or ""
            assert "\n" not in problem and "Traceback" not in problem, problem
            assert shown(held) == shown(state), "no state of a position that was not written"
            filler.unlink()
            await wait_until(
                lambda: seat.seat.state is not None and seat.seat.state.save_problem is None,
                what="the table going on by itself once the disk has room",
            )
            await play_one(seat)
            last = shown(await my_turn(seat))
            token = url.rsplit("/", 1)[1]
            await seat.close()
        async with hub_on(folder) as hub:
            again = await sit(f"{hub.base}/t/{table}/seat/{token}")
            assert shown(await my_turn(again)) == last, "served again at the last position shown"
            await again.close()
