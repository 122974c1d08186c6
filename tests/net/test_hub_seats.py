"""``kings-corners server`` as a real process: who may open which address of a table (a private
table is watched by no one and not told to exist), the name shown at a seat another person took,
and the seats a person signing in again is told of."""

from __future__ import annotations

import asyncio
import functools
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from kc_tui.net import lobby_schema as ls
from kc_tui.net import schema as p
from tests.net.hubkit import FAST, Seated, lobby, server, signed_in, sit, start_server
from tests.waiting import wait_until

#: Hands of 4 cards to 100 points: a match that outlasts the test.
LONG_RULES = {"hand_size": 4}
LONG_TARGET = 100


def http_get(url: str) -> tuple[int, str]:
    """The status and text a plain HTTP GET of ``url`` is answered with."""
    try:
        with urllib.request.urlopen(url, timeout=30) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


async def ws_refusal(url: str) -> tuple[int, str]:
    """The HTTP status and text a WebSocket opening ``url`` is refused with."""
    with pytest.raises(InvalidStatus) as refused:
        async with connect(url, open_timeout=30):
            pass
    response = refused.value.response
    return response.status_code, bytes(response.body or b"").decode()


async def test_a_private_table_is_watched_by_no_one_and_its_seats_still_open(isolated_dirs: Path) -> None:
    async with server(isolated_dirs / "srv", *FAST) as srv:
        ana = await signed_in(srv.lobby, isolated_dirs / "ana", "Ana")
        eve = await signed_in(srv.lobby, isolated_dirs / "eve", "Eve")
        joined = await ana.request(ls.CreateTable(("human", "greedy"), LONG_TARGET, LONG_RULES, True))
        assert isinstance(joined, ls.JoinedMsg), joined
        table = joined.table
        start = await ana.expect(ls.StartMsg, where=lambda m: m.table == table)
        seat = await sit(start.url)
        unknown = "zzzzZZZZ"
        assert unknown != table
        http = srv.url.replace("ws://", "http://")
        for rest in ("watch", "seat/not-a-token", "nothing"):
            asked = await asyncio.to_thread(http_get, f"{http}/t/{table}/{rest}")
            assert asked == await asyncio.to_thread(http_get, f"{http}/t/{unknown}/{rest}"), rest
            assert asked[0] == 404
            opened = await ws_refusal(f"{srv.url}/t/{table}/{rest}")
            assert opened == await ws_refusal(f"{srv.url}/t/{unknown}/{rest}"), rest
        refused = await eve.request(ls.WatchTable(table))
        nothing = await eve.request(ls.WatchTable(unknown))
        assert isinstance(refused, ls.LobbyRefusedMsg) and refused.code == ls.NO_TABLE, refused
        assert (refused.code, refused.reason) == (nothing.code, nothing.reason)
        again = await sit(start.url)
        assert again.state.seat == 0 and seat.state.seat == 0
        for s in (seat, again):
            await s.close()
        assert srv.stop() == 0
    assert "Traceback" not in srv.errors()


def reconnected(seat: Seated, connections: int, states: int) -> bool:
    return seat.seat.connections > connections and seat.seat.connected and len(seat.states) > states


def seat_name(seat: Seated, index: int) -> str | None:
    state = seat.seat.state
    return None if state is None else state.seats[index].name


async def test_a_seat_taken_mid_match_shows_the_new_persons_name_also_after_a_restart(isolated_dirs: Path) -> None:
    srv = await start_server(isolated_dirs / "srv", *FAST, log_level="info")
    try:
        ana = await signed_in(srv.lobby, isolated_dirs / "ana", "Ana")
        ben = await signed_in(srv.lobby, isolated_dirs / "ben", "Ben")
        cy = await signed_in(srv.lobby, isolated_dirs / "cy", "Cy")
        joined = await ana.request(ls.CreateTable(("human", "human"), LONG_TARGET, LONG_RULES))
        table = joined.table
        await ben.request(ls.JoinTable(table))
        anas = await sit((await ana.expect(ls.StartMsg, where=lambda m: m.table == table)).url)
        await wait_until(lambda: seat_name(anas, 1) == "Ben", what="Ben shown at his seat")
        await ben.send(ls.LeaveTable(table))

        def free_again() -> bool:
            listed = [m.listing for m in cy.of(ls.TableMsg) if m.listing.table == table]
            return bool(listed) and listed[-1].seats[1].name is None

        await wait_until(free_again, what="Ben's seat listed free")
        taken = await cy.request(ls.JoinTable(table))
        assert isinstance(taken, ls.JoinedMsg) and taken.seat == 1, taken
        cys = await sit((await cy.expect(ls.StartMsg, where=lambda m: m.table == table)).url)
        welcome = next(m for m in cys.messages if isinstance(m, p.WelcomeMsg))
        assert welcome.name == "Cy" and [s.name for s in welcome.seats] == ["Ana", "Cy"]
        assert seat_name(cys, 1) == "Cy"
        await wait_until(lambda: seat_name(anas, 1) == "Cy", what="Cy shown at the seat she took, to Ana")
        listed = [m.listing for m in ana.of(ls.TableMsg) if m.listing.table == table]
        assert listed[-1].seats[1].name == "Cy"
        await wait_until(lambda: "Cy took Ben's seat" in srv.log(), what="the server's log says who took the seat")
        connections, states = anas.seat.connections, len(anas.states)
        srv.kill()
        srv = await start_server(srv.data, *FAST, port=srv.port, log_level="info")
        await wait_until(
            functools.partial(reconnected, anas, connections, states), what="Ana's seat back after the restart"
        )
        assert seat_name(anas, 1) == "Cy"
        for s in (anas, cys):
            await s.close()
        assert srv.stop() == 0
    finally:
        if srv.proc.poll() is None:
            srv.kill()
    assert "Traceback" not in srv.errors()


async def test_signing_in_again_tells_every_seat_held_also_after_a_restart(isolated_dirs: Path) -> None:
    srv = await start_server(isolated_dirs / "srv", *FAST)
    try:
        ana = await signed_in(srv.lobby, isolated_dirs / "ana", "Ana")
        waiting = await ana.request(ls.CreateTable(("human", "human"), LONG_TARGET, LONG_RULES))
        playing = await ana.request(ls.CreateTable(("human", "greedy"), LONG_TARGET, LONG_RULES))
        first = await ana.expect(ls.StartMsg, where=lambda m: m.table == playing.table)
        assert not [m for m in ana.of(ls.StartMsg) if m.table == waiting.table]
        for _restart in range(2):
            again = await signed_in(srv.lobby, isolated_dirs / "ana", "Ana")
            told = await again.expect(ls.JoinedMsg, where=lambda m: m.table == waiting.table)
            assert (told.id, told.seat) == (None, 0)
            start = await again.expect(ls.StartMsg, where=lambda m: m.table == playing.table)
            assert start.seat == first.seat
            seat = await sit(start.url)
            assert seat.state.seat == 0 and not seat.state.over
            assert not [m for m in again.of(ls.StartMsg) if m.table == waiting.table]
            await seat.close()
            await again.close()
            srv.kill()
            srv = await start_server(srv.data, *FAST, port=srv.port)
        watcher = await lobby(srv.lobby)
        assert {waiting.table, playing.table} <= {t.table for t in watcher.of(ls.LobbyMsg)[-1].tables}
        assert srv.stop() == 0
    finally:
        if srv.proc.poll() is None:
            srv.kill()
    assert "Traceback" not in srv.errors()
