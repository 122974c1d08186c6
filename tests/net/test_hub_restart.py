"""``kings-corners server`` killed with SIGKILL mid-match and started again on its data folder:
every unfinished table comes back at the same position under the same id, every seat's client
connects again by itself with the address it had, and a person signing in again is sent their
seat again. SIGTERM closes it cleanly; a store it cannot use is one line, exit 2, left as it is."""

from __future__ import annotations

import asyncio
import functools
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from kc_tui.net import lobby_schema as ls
from kc_tui.net.accounts import Accounts
from kc_tui.net.server_store import STORE_NAME, ServerStore
from kc_tui.records.rating import Rating
from tests.net.hubkit import (
    FAST,
    Seated,
    ServerProcess,
    lobby,
    my_turn,
    play_one,
    play_to_end,
    player_key,
    shown,
    signed_in,
    sit,
    start_server,
)
from tests.waiting import wait_until

#: Hands of 4 cards to 100 points: a match that outlasts the test.
LONG = ls.CreateTable(("human", "greedy"), 100, {"hand_size": 4})


def of_table(table: str, message: ls.StartMsg) -> bool:
    return message.table == table


def reconnected(seat: Seated, connections: int, states: int) -> bool:
    """Whether ``seat`` opened a connection since it had ``connections``, is seated again, and
    was sent a state since it had ``states``."""
    return seat.seat.connections > connections and seat.seat.connected and len(seat.states) > states


async def seated_tables(srv: ServerProcess, home: Path, count: int) -> tuple[list[Seated], list[str]]:
    """``count`` tables of one person and an AI each, a different person at each, each seat's
    client connected (retrying fast)."""
    seats: list[Seated] = []
    tables: list[str] = []
    for i in range(count):
        person = await signed_in(srv.lobby, home / f"p{i}", f"P{i}")
        joined = await person.request(LONG)
        assert isinstance(joined, ls.JoinedMsg), joined
        start = await person.expect(ls.StartMsg, where=functools.partial(of_table, joined.table))
        seats.append(await sit(start.url))
        tables.append(joined.table)
        await person.close()
    return seats, tables


async def kill_and_restart(srv: ServerProcess, seats: list[Seated], log_level: str = "warning") -> ServerProcess:
    """Each seat's turn, its position noted; ``kill -9``; the server again on the same port and
    folder; each seat connected again by itself, showing the position it had."""
    before = []
    for seat in seats:
        await play_one(seat)
        before.append(shown(await my_turn(seat)))
    connections = [seat.seat.connections for seat in seats]
    states = [len(seat.states) for seat in seats]
    srv.kill()
    again = await start_server(srv.data, *FAST, port=srv.port, log_level=log_level)
    for seat, made, heard, position in zip(seats, connections, states, before, strict=True):
        await wait_until(
            functools.partial(reconnected, seat, made, heard),
            what="the seat connected again by itself, and sent the table's state",
            showing=functools.partial(getattr, seat.seat, "link"),
        )
        after = seat.states[-1]
        assert after.stamp != seat.states[heard - 1].stamp, "the state after the restart is a new one"
        assert shown(after) == position
    return again


async def test_a_killed_server_serves_every_table_again_at_the_same_position(isolated_dirs: Path) -> None:
    srv = await start_server(isolated_dirs / "srv", *FAST, log_level="debug")
    try:
        seats, tables = await seated_tables(srv, isolated_dirs, 5)
        for _kill in range(2):
            srv = await kill_and_restart(srv, seats, log_level="debug")
        person = await signed_in(srv.lobby, isolated_dirs / "p0", "P0")
        start = await person.expect(ls.StartMsg, where=lambda m: m.table == tables[0])
        assert start.seat == 0 and start.url.startswith(f"{srv.url}/t/{tables[0]}/seat/")
        listed = {t.table: t for t in person.of(ls.LobbyMsg)[-1].tables}
        assert set(tables) <= set(listed) and all(listed[t].phase == ls.PLAYING for t in tables)
        for seat in seats:
            await seat.close()
        assert srv.stop() == 0
    finally:
        if srv.proc.poll() is None:
            srv.kill()
    assert "Traceback" not in srv.errors()
    log = srv.log()
    assert f"table {tables[0]} is served again" in log
    for url in [seat.seat.url for seat in seats] + [start.url]:
        assert url.rsplit("/", 1)[1] not in log, "a seat's token in the log"


async def test_a_match_that_ended_is_neither_served_again_nor_counted_twice(isolated_dirs: Path) -> None:
    srv = await start_server(isolated_dirs / "srv", *FAST)
    try:
        ana = await signed_in(srv.lobby, isolated_dirs / "ana", "Ana")
        joined = await ana.request(ls.CreateTable(("human", "greedy"), 5, {"hand_size": 4}))
        start = await ana.expect(ls.StartMsg, where=functools.partial(of_table, joined.table))
        seat = await sit(start.url)
        await play_to_end(seat)
        await ana.expect(ls.RematchMsg, where=lambda m: m.table == joined.table)
        await seat.close()
        srv.kill()
        srv = await start_server(srv.data, *FAST)
        again = await lobby(srv.lobby)
        answer = await again.sign_in(player_key(isolated_dirs / "ana"), "Ana")
        assert isinstance(answer, ls.SignedIn) and answer.games == 1, answer
        assert joined.table not in [t.table for t in again.of(ls.LobbyMsg)[-1].tables]
        watched = await again.request(ls.WatchTable(joined.table))
        assert isinstance(watched, ls.LobbyRefusedMsg) and watched.code == ls.NO_TABLE
        assert not again.of(ls.StartMsg)
        assert srv.stop() == 0
    finally:
        if srv.proc.poll() is None:
            srv.kill()
    assert "Traceback" not in srv.errors()


async def test_twenty_tables_survive_ten_kills(isolated_dirs: Path) -> None:
    srv = await start_server(isolated_dirs / "srv", *FAST, "--sockets-per-address", "200")
    try:
        seats, _tables = await seated_tables(srv, isolated_dirs, 20)
        for _kill in range(10):
            srv = await kill_and_restart(srv, seats)
        for seat in seats:
            await seat.close()
    finally:
        if srv.proc.poll() is None:
            srv.kill()
    assert "Traceback" not in srv.errors()


async def test_sigterm_tells_the_seats_and_keeps_the_tables(isolated_dirs: Path) -> None:
    srv = await start_server(isolated_dirs / "srv", *FAST)
    try:
        seats, _tables = await seated_tables(srv, isolated_dirs, 1)
        position = shown(await my_turn(seats[0]))
        assert srv.stop() == 0
        await wait_until(lambda: seats[0].seat.host_away, what="the seat told the server stopped")
        assert "reconnected" in seats[0].seat.link.reason
        made, heard = seats[0].seat.connections, len(seats[0].states)
        srv = await start_server(srv.data, *FAST, port=srv.port)
        await wait_until(functools.partial(reconnected, seats[0], made, heard), what="the seat back by itself")
        assert not seats[0].seat.host_away
        assert shown(seats[0].states[-1]) == position
        await seats[0].close()
    finally:
        if srv.proc.poll() is None:
            srv.kill()
    assert "Traceback" not in srv.errors()


def run_server(data: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kc_tui", "server", "--port", "0", "--data", str(data), *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize(
    ("content", "words"),
    [(b"not a database at all" * 50, "not the server's store"), (b"SQLite format 3\x00" + b"\xff" * 4000, "")],
)
def test_a_store_it_cannot_use_is_one_line_and_left_as_it_is(isolated_dirs: Path, content: bytes, words: str) -> None:
    data = isolated_dirs / "srv"
    data.mkdir()
    (data / STORE_NAME).write_bytes(content)
    done = run_server(data)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("kings-corners: "), done.stderr
    assert words in done.stderr
    assert (data / STORE_NAME).read_bytes() == content


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("--max-tables", "0"), "--max-tables"),
        (("--sockets-per-address", "x"), "--sockets-per-address"),
        (("--ai-delay", "-1"), "--ai-delay"),
        (("--turn-seconds", "99999"), "--turn-seconds"),
        (("--cert", "c.pem"), "--cert and --key"),
    ],
)
def test_a_bad_option_is_one_line(isolated_dirs: Path, args: tuple[str, ...], words: str) -> None:
    done = run_server(isolated_dirs / "srv", *args)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and words in done.stderr, done.stderr


async def test_two_servers_do_not_share_a_data_folder(isolated_dirs: Path) -> None:
    srv = await start_server(isolated_dirs / "srv")
    try:
        done = await asyncio.to_thread(run_server, isolated_dirs / "srv")
        assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
        assert "using" in done.stderr
    finally:
        srv.kill()


def test_a_store_whose_people_are_of_another_version_is_one_line(isolated_dirs: Path) -> None:
    data = isolated_dirs / "srv"
    store = ServerStore.open(data)
    Accounts(store.db, anchors={"greedy": Rating("greedy", 1000.0, 0.0)})
    store.db.execute("UPDATE accounts_meta SET value = '99' WHERE name = 'schema'")
    store.close()
    before = (data / STORE_NAME).read_bytes()
    done = run_server(data)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "99" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
    assert (data / STORE_NAME).read_bytes() == before


def test_a_store_another_program_holds_locked_is_one_line(isolated_dirs: Path) -> None:
    data = isolated_dirs / "srv"
    ServerStore.open(data).close()
    holder = sqlite3.connect(data / STORE_NAME, isolation_level=None)
    try:
        holder.execute("BEGIN EXCLUSIVE")
        done = run_server(data)
    finally:
        holder.close()
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "locked by another program" in done.stderr, done.stderr
    assert "stopped" not in done.stderr
