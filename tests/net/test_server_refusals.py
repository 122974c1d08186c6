"""What the table server refuses, with real clients on loopback: a wrong token, malformed and
oversized messages, moves out of turn, floods. Each is answered as PROTOCOL.md says, nothing at
the table changes, and the other clients go on playing."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from kc_tui.net import schema as p
from kc_tui.net.protocol import write
from kc_tui.net.server import WATCH_PATH, TableServer, seat_path
from tests.net.serverkit import Client, join, on_turn, position, running, seat, seated, watch
from tests.waiting import wait_until


@asynccontextmanager
async def table(**options: Any) -> AsyncIterator[tuple[TableServer, str, Client, Client]]:
    """Ana and Ben seated (no stand-ins), the greedy AI having moved if it is first."""
    options.setdefault("stand_in", 0)
    async with seated("Ana", "Ben", **options) as (server, base, (ana, ben)):
        await on_turn(server, ana, ben)
        yield server, base, ana, ben


async def still_plays(server: TableServer, *clients: Client) -> None:
    """The seat on turn makes a move and every client gets the new state."""
    mover = await on_turn(server, *clients)
    before = server.stamp
    await mover.move(next((m for m in mover.state.legal if m != "end"), "end"))
    for c in clients:
        await c.expect(p.StateMsg, where=lambda m: m.stamp > before)


async def closed(client: Client) -> int | None:
    """Wait for the server to close ``client``; the close code."""
    assert client.reader is not None
    await asyncio.wait_for(client.reader, 20)
    return client.ws.close_code


async def test_a_wrong_token_is_refused_after_hello_the_same_for_any_and_nothing_changes() -> None:
    async with table() as (server, base, ana, ben):
        before = position(server)
        good = server.tokens[0]
        for token in ("x" * 43, good[:-1] + ("A" if good[-1] != "A" else "B"), "short", good + "x"):
            intruder = await join(base + seat_path(token), wait_state=False)
            error = await intruder.expect(p.ErrorMsg)
            assert (error.code, error.message) == (p.BAD_TOKEN, "no seat at this table has this token")
            assert await closed(intruder) == 1008
            assert not any(isinstance(m, p.StateMsg | p.WelcomeMsg) for m in intruder.messages)
        assert position(server) == before
        assert server.connected[:2] == [True, True]
        await still_plays(server, ana, ben)


async def test_a_path_that_is_not_a_seat_or_watch_is_refused_before_the_websocket_opens() -> None:
    async with running() as (_server, base):
        for path in ("/", "/seat/", "/seat/a/b", "/watch/x", "/admin"):
            with pytest.raises(InvalidStatus) as info:
                await connect(base + path)
            assert info.value.response.status_code == 404


async def test_malformed_messages_are_refused_one_by_one_and_the_table_goes_on() -> None:
    async with table() as (server, _base, ana, ben):
        mover = await on_turn(server, ana, ben)
        stamp = mover.state.stamp
        before = position(server)
        bad = [
            "not json",
            "[1, 2]",
            '{"v": 3, "type": "move", "move": "end", "stamp": NaN}',
            '{"v": 3, "type": "move", "move": "end", "stamp": Infinity}',
            json.dumps({"v": 3, "type": "move", "move": "end", "stamp": float(stamp)}),
            json.dumps({"v": 3, "type": "move", "move": "end", "stamp": True}),
            json.dumps({"v": 3, "type": "move", "move": "end", "stamp": stamp, "extra": 1}),
            json.dumps({"v": 3, "type": "move", "move": "fly away", "stamp": stamp}),
            json.dumps({"v": 3, "type": "move", "move": "x" * 300, "stamp": stamp}),
            json.dumps({"v": 3, "type": "teleport"}),
            json.dumps({"v": 3, "type": "ping", "id": -1}),
            json.dumps({"v": True, "type": "ping"}),
            '{"v": 3, "v": 3, "type": "ping"}',
            '{"v": 3, "type": "ping", "x": ' + "[" * 9 + "]" * 9 + "}",
        ]
        for text in bad:
            await mover.send(text)
            error = await mover.expect(p.ErrorMsg)
            assert error.code == p.MALFORMED, text
            assert "\n" not in error.message and "Traceback" not in error.message
        await mover.ws.send(b"\x00\x01binary")
        assert (await mover.expect(p.ErrorMsg)).code == p.MALFORMED
        assert position(server) == before
        await still_plays(server, ana, ben)


async def test_twenty_malformed_messages_in_a_row_close_the_connection() -> None:
    async with table() as (server, base, ana, ben):
        spectator = await watch(base)
        for _ in range(p.MALFORMED_CLOSE):
            await spectator.send("{")
        assert await closed(spectator) == 1008
        await still_plays(server, ana, ben)


async def test_another_protocol_version_is_told_which_the_server_speaks_and_closed() -> None:
    async with table() as (server, base, ana, ben):
        before = position(server)
        other = await join(base + seat_path(server.tokens[0]), hello=False)
        await other.send(json.dumps({"v": 4, "type": "hello", "client": "from the future"}))
        error = await other.expect(p.ErrorMsg)
        assert error.code == p.UPGRADE and "version 3" in error.message
        await closed(other)
        assert position(server) == before and server.connected[0]
        await still_plays(server, ana, ben)


async def test_an_oversized_message_closes_that_connection_only() -> None:
    async with table() as (server, _base, ana, ben):
        mover = await on_turn(server, ana, ben)
        other = ben if mover is ana else ana
        before = position(server)
        huge = json.dumps({"v": 3, "type": "hello", "client": "x" * (p.MAX_MESSAGE + 10)})
        with pytest.raises(ConnectionClosed):
            await other.ws.send(huge)
            await asyncio.wait_for(other.ws.wait_closed(), 5)
            await other.ws.send(write(p.Ping()))
        assert other.ws.close_code == 1009
        assert position(server) == before
        await mover.move(next((m for m in mover.state.legal if m != "end"), "end"))
        await mover.expect(p.StateMsg, where=lambda m: m.stamp > before[0])


async def test_moves_out_of_turn_from_a_spectator_or_an_old_state_are_refused() -> None:
    async with table() as (server, base, ana, ben):
        mover = await on_turn(server, ana, ben)
        waiting = ben if mover is ana else ana
        spectator = await watch(base)
        before = position(server)
        await waiting.move("end", waiting.state.stamp)
        error = await waiting.expect(p.ErrorMsg)
        assert error.code == p.NOT_YOUR_TURN and error.id == 1
        await spectator.move("end", spectator.state.stamp)
        assert (await spectator.expect(p.ErrorMsg)).code == p.NOT_YOUR_TURN
        await mover.move(mover.state.legal[0], mover.state.stamp - 1)
        stale = await mover.expect(p.RefusedMsg)
        assert "moved on" in stale.reason
        await mover.send(write(p.UndoRequest(mover.state.stamp, 7)))
        assert (await mover.expect(p.RefusedMsg)).id == 7
        await mover.send(write(p.Hello("again", 8)))
        assert (await mover.expect(p.ErrorMsg)).code == p.HELLO_FIRST
        await mover.send(write(p.Ping(9)))
        assert (await mover.expect(p.PongMsg)).id == 9
        assert position(server) == before
        await still_plays(server, ana, ben, spectator)


async def test_an_illegal_move_is_refused_with_the_rule_and_nothing_changes() -> None:
    async with table() as (server, _base, ana, ben):
        mover = await on_turn(server, ana, ben)
        st = mover.state
        before = position(server)
        hand = [c for c in st.hand or ()]
        from kc_tui.engine import card_str, move_str, parse_move

        illegal = next(
            t
            for c in hand
            for t in (f"play {card_str(c)} {place}" for place in ("N", "E", "S", "W", "NE", "SE", "SW", "NW"))
            if move_str(parse_move(t)) not in st.legal
        )
        await mover.move(illegal)
        refused = await mover.expect(p.RefusedMsg)
        assert refused.reason and "\n" not in refused.reason
        assert position(server) == before
        assert mover.leaks == []


async def test_a_request_before_hello_is_answered_hello_first_and_a_silent_client_is_closed() -> None:
    async with running(hello_timeout=0.3) as (_server, base):
        early = await join(base + "/watch", hello=False)
        await early.send(write(p.Ping(3)))
        error = await early.expect(p.ErrorMsg)
        assert (error.code, error.id) == (p.HELLO_FIRST, 3)
        assert await closed(early) == 1008


async def test_a_flood_is_slowed_then_closed_and_the_others_play_on() -> None:
    async with table() as (server, base, ana, ben):
        before = position(server)
        flooder = await watch(base)
        for _ in range(p.RATE_BURST + p.SLOW_DOWN_CLOSE + 100):
            try:
                await flooder.ws.send(write(p.Ping()))
            except ConnectionClosed:
                break
        assert await closed(flooder) == 1008
        pongs = sum(isinstance(m, p.PongMsg) for m in flooder.messages)
        slowed = sum(isinstance(m, p.ErrorMsg) and m.code == p.SLOW_DOWN for m in flooder.messages)
        assert p.RATE_BURST - 1 <= pongs < p.RATE_BURST + 60  # the burst, and what trickled in since
        assert slowed == p.SLOW_DOWN_CLOSE
        assert position(server) == before
        await still_plays(server, ana, ben)


async def test_a_full_table_refuses_spectators_and_wrong_tokens_but_lets_a_person_back() -> None:
    async with table(max_connections=3) as (server, base, ana, ben):
        spectator = await watch(base)  # the third connection: the table is full now
        for path in (WATCH_PATH, seat_path("x" * 43)):
            with pytest.raises(InvalidStatus) as info:
                await connect(base + path)
            assert info.value.response.status_code == 503
        await ben.close()
        await wait_until(  # the server has seen Ben go: his place is free
            lambda: not server.connected[1] and server._server is not None and len(server._server.connections) < 3,
            what="Ben's place free",
        )
        late = await watch(base)  # Ben's place went to another spectator: full again
        back = await seat(server, base, "Ben")  # yet Ben comes back to his seat
        assert back.state.seat == 1 and server.connected[1]
        await still_plays(server, ana, back)
        for c in (spectator, late, back):
            await c.close()
