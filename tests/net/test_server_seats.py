"""A seat's client comes and goes: reconnection mid-turn, the newer connection taking the seat,
and an AI standing in for an away person until they are back."""

from __future__ import annotations

import asyncio
import logging

import pytest

from kc_tui.net import schema as p
from kc_tui.net.protocol import write
from kc_tui.net.server import seat_path
from tests.net.serverkit import join, on_turn, position, running, seat, seated


async def test_a_client_that_reconnects_mid_turn_finds_the_same_position() -> None:
    async with seated("Ana", "Ben", stand_in=0) as (server, base, (ana, ben)):
        mover = await on_turn(server, ana, ben)
        plays = [m for m in mover.state.legal if m != "end"]
        if plays:
            first = mover.state.stamp
            await mover.move(plays[0])
            await mover.expect(p.StateMsg, where=lambda m: m.stamp > first)
        before, seen = position(server), mover.state
        name = server.session.names[seen.seat or 0]
        await mover.close()
        other = ben if mover is ana else ana
        await other.expect(p.StateMsg, where=lambda m: not m.seats[seen.seat or 0].connected)
        assert position(server) == before  # the table waits for the person on turn

        back = await seat(server, base, name)
        again = back.state
        assert position(server) == before
        assert (again.stamp, again.hand, again.piles, again.legal, again.can_undo) == (
            seen.stamp,
            seen.hand,
            seen.piles,
            seen.legal,
            seen.can_undo,
        )
        await other.expect(p.StateMsg, where=lambda m: m.seats[seen.seat or 0].connected)
        await back.move(again.legal[0])
        await back.expect(p.StateMsg, where=lambda m: m.stamp > again.stamp)
        for c in (back, other):
            assert c.leaks == []
            await c.close()


async def test_a_newer_connection_takes_the_seat_and_the_older_is_told_and_closed() -> None:
    async with running(stand_in=0) as (server, base):
        first = await seat(server, base, "Ana")
        second = await seat(server, base, "Ana")
        error = await first.expect(p.ErrorMsg)
        assert error.code == p.SEAT_TAKEN
        assert first.reader is not None
        await asyncio.wait_for(first.reader, 5)
        assert server.connected[0]
        await second.send(write(p.Ping(4)))
        assert (await second.expect(p.PongMsg)).id == 4
        await second.close()


async def test_an_ai_stands_in_for_an_away_person_and_they_take_the_seat_back() -> None:
    async with seated("Ana", stand_in=0.2) as (server, base, (ana,)):
        # Ben never came: after the wait an AI plays his seat, and Ana sees it.
        await ana.expect(p.StateMsg, where=lambda m: m.seats[1].stand_in and not m.seats[1].connected)
        ben_moved = [line for line in server.session.log if line.startswith("Ben ")]
        while not ben_moved:
            st = ana.state
            if st.legal:
                await ana.move(st.legal[0])
            await ana.expect(p.StateMsg)
            ben_moved = [line for line in server.session.log if line.startswith("Ben ") and "dealt" not in line]
            assert not server.session.match.over
        assert server.standing_in == {1}

        ben = await seat(server, base, "Ben")
        assert not ben.state.seats[1].stand_in and ben.state.seats[1].connected
        assert server.standing_in == set()
        # From now on the table waits for Ben's own moves on his turn.
        async with asyncio.timeout(10):
            while not (ben.state.legal or server.session.match.round.over):
                st = ana.state
                if st.legal:
                    await ana.move(st.legal[0])
                await ana.expect(p.StateMsg)
        if ben.state.legal:
            before = position(server)
            # Nothing can play for Ben: no stand-in, no away timer; a ping answered shows the
            # server has handled everything before it.
            assert server.standing_in == set() and 1 not in server._away_timers
            await ben.send(write(p.Ping(7)))
            assert (await ben.expect(p.PongMsg)).id == 7
            assert position(server) == before
        for c in (ana, ben):
            assert c.leaks == []
            await c.close()


async def test_the_hosts_ai_command_stands_in_at_once_and_only_for_an_away_person() -> None:
    lines: list[str] = []
    async with seated("Ana", stand_in=0, status=lines.append) as (server, base, (ana,)):
        assert server.stand_in_now("ana") == "Ana is connected: their seat stays theirs"
        assert server.stand_in_now("Greedy") == "Greedy is an AI already"
        assert "no seat is named 'Zed'" in server.stand_in_now("Zed")
        assert server.stand_in_now("Ben") == "an AI stands in for Ben"
        await ana.expect(p.StateMsg, where=lambda m: m.seats[1].stand_in)
        assert any("Ben is away" in line for line in lines)
        watcher = await join(base + "/watch")
        assert watcher.state.seats[1].stand_in
        for c in (ana, watcher):
            await c.close()


async def test_no_seat_token_reaches_the_log_even_at_debug(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    async with seated("Ana", stand_in=0) as (server, base, (ana,)):
        await ana.close()
        ana = await seat(server, base, "Ana")
        wrong = await join(base + seat_path("W" * 43), wait_state=False)
        await wrong.expect(p.ErrorMsg)
        await ana.close()
    server_log = "\n".join(r.getMessage() for r in caplog.records if r.name.startswith("kc_tui"))
    assert "/seat/<token>" in server_log
    for token in [*server.tokens.values(), "W" * 43]:
        assert token not in server_log
