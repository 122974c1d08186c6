"""The turn clock at a real table server on loopback (kc_tui.net.clock in the table): a person's
turn told to every client and warned, the AI playing the rest of a turn run out and the person
the next, three turns run out in a row freeing the seat, a turn ended in time resetting the
count, and no clock while the person's client is away. Turns of a second or two; every wait is
for a condition."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from websockets.protocol import State

from kc_tui.engine import Rules
from kc_tui.net import schema as p
from kc_tui.net.client import SeatClock
from kc_tui.net.clock import freed_text, ran_out_text
from kc_tui.net.host_options import HostRequest, options_from
from kc_tui.net.server import seat_path
from kc_tui.net.table_service import ServedTable
from tests.net.clientkit import recorded
from tests.net.serverkit import Client, running, seat, session_for, watch
from tests.waiting import wait_until

SEATS = (("Ana", "human"), ("Greedy", "greedy"))
#: A match of long rounds: Ana has many turns in the first.
LONG = Rules(target=100)


def clocks(client: Client) -> list[p.ClockMsg]:
    return [m for m in client.messages if isinstance(m, p.ClockMsg)]


def first(client: Client, where: Callable[[p.ServerMessage], bool]) -> int:
    """The index of the first message ``client`` received that ``where`` holds for."""
    return next(i for i, m in enumerate(client.messages) if where(m))


def played_for(message: p.ServerMessage, seat: int = 0) -> bool:
    return isinstance(message, p.StateMsg) and message.view.seats[seat].stand_in


def turn(client: Client) -> tuple[int, int]:
    view = client.state.view
    return view.round_number, view.turns_ended


async def test_the_warning_comes_before_the_ai_plays_the_turn_that_ran_out() -> None:
    lines: list[str] = []
    async with running(session_for(SEATS, rules=LONG), turn_seconds=2.5, status=lines.append) as (server, base):
        server.clock.warning = 1.0  # warned with a second left (10 s at a real table)
        spectator = await watch(base)
        await seat(server, base, "Ana")
        await wait_until(lambda: any(played_for(m) for m in spectator.messages))
        started, warned = clocks(spectator)[:2]
        assert (started, warned) == (p.ClockMsg(0, 3, False), p.ClockMsg(0, 1, True))
        assert spectator.messages.index(warned) < first(spectator, played_for)
        assert ran_out_text("Ana") in lines


async def test_the_ai_plays_only_the_turn_that_ran_out_and_the_person_plays_the_next() -> None:
    async with running(session_for(SEATS, rules=LONG), turn_seconds=1.0) as (server, base):
        ana = await seat(server, base, "Ana")
        await wait_until(lambda: any(played_for(m) for m in ana.messages))
        ran_out = first(ana, played_for)
        server.clock.seconds = 600.0  # the next turn is ended well in time

        def ana_on_turn_again() -> bool:
            later = ana.messages[ran_out:]
            return any(isinstance(m, p.ClockMsg) and m.left == 600 for m in later) and bool(ana.state.legal)

        await wait_until(ana_on_turn_again)
        state = ana.state
        assert state.view.to_move == 0 and not state.view.seats[0].stand_in
        assert not server.standing_in and server.clock.covering is None
        await ana.move("end", state.stamp)
        ended = await ana.expect(p.StateMsg, where=lambda m: m.stamp > state.stamp)
        assert not [m for m in ana.messages if isinstance(m, p.ErrorMsg | p.RefusedMsg)]
        assert "Ana ended the turn" in ended.log[-2:], ended.log[-3:]  # (the next turn's draw after it)


async def test_three_turns_run_out_in_a_row_free_the_seat_and_its_ai_plays_on() -> None:
    lines: list[str] = []
    freed: list[tuple[ServedTable, int]] = []
    session = session_for(SEATS, rules=LONG)
    async with running(session, turn_seconds=1.0, status=lines.append) as (server, base):
        server.on_seat_freed = lambda table, seat: freed.append((table, seat))
        spectator = await watch(base)
        ana = await seat(server, base, "Ana")
        await wait_until(lambda: freed)
        assert freed == [(server, 0)]
        assert [line for line in lines if "Ana" in line and "time" in line] == [
            ran_out_text("Ana"),
            ran_out_text("Ana"),
            freed_text("Ana", 3),
        ]
        told = await ana.expect(p.ErrorMsg)
        assert told.code == p.SEAT_FREED and "3" in told.message
        await wait_until(lambda: ana.ws.state is State.CLOSED)
        assert server.clock.timeouts == {} and 0 in server.standing_in
        at = turn(spectator)
        await wait_until(lambda: turn(spectator) >= (at[0], at[1] + 3) or turn(spectator)[0] > at[0])
        assert spectator.state.view.seats[0].stand_in and not spectator.state.view.seats[0].connected
        assert len(clocks(spectator)) == 3  # none since the seat was freed


async def test_a_turn_ended_in_time_sets_the_count_back_to_0() -> None:
    async with running(session_for(SEATS, rules=LONG), turn_seconds=1.0) as (server, base):

        def status(line: str) -> None:
            if line == ran_out_text("Ana"):
                server.clock.seconds = 600.0  # Ana's next turn is ended in time

        server._status = status
        ana = await seat(server, base, "Ana")
        await wait_until(lambda: any(m.left == 600 for m in clocks(ana)) and bool(ana.state.legal))
        assert server.clock.timeouts == {0: 1}
        stamp = ana.state.stamp
        await ana.move("end", stamp)
        await wait_until(lambda: ana.state.stamp > stamp)
        assert server.clock.timeouts == {}


async def test_no_clock_runs_while_the_persons_client_is_away() -> None:
    lines: list[str] = []
    async with running(session_for(SEATS, rules=LONG), turn_seconds=600.0, stand_in=0.0, status=lines.append) as (
        server,
        base,
    ):
        spectator = await watch(base)
        await wait_until(lambda: spectator.state.view.to_move == 0 and spectator.state.view.waiting_for == "Ana")
        assert not server.clock.running and clocks(spectator) == []
        ana = await seat(server, base, "Ana")
        await wait_until(lambda: clocks(spectator))
        assert clocks(spectator) == [p.ClockMsg(0, 600, False)] and server.clock.seat == 0
        await ana.close()
        await wait_until(lambda: not server.clock.running)
        at = turn(spectator)
        assert server.stand_in_now("Ana") == "an AI stands in for Ana"
        await wait_until(lambda: turn(spectator) >= (at[0], at[1] + 3) or turn(spectator)[0] > at[0])
        assert len(clocks(spectator)) == 1 and server.clock.timeouts == {}
        assert not [line for line in lines if "time ran out" in line]


def test_host_takes_the_turn_time_and_has_no_clock_by_default() -> None:
    seats = "human:Ana,greedy"
    assert options_from(HostRequest(seats=seats)).turn_seconds == 0.0
    assert options_from(HostRequest(seats=seats, turn_seconds="45")).turn_seconds == 45.0
    assert options_from(HostRequest(resume=True, turn_seconds="2.5")).turn_seconds == 2.5


async def test_the_clock_stops_while_the_table_holds_and_goes_on_with_the_time_left() -> None:
    problem: list[str] = []
    session = session_for(SEATS, rules=LONG)
    session.save_sink = lambda data: problem[0] if problem else None
    async with running(session, turn_seconds=600.0) as (server, base):
        server.save_retry = 0.05
        ana = await seat(server, base, "Ana")
        await wait_until(lambda: server.clock.seat == 0 and bool(ana.state.legal))
        problem.append("the disk is full")
        await ana.move(ana.state.legal[0], ana.state.stamp)
        await wait_until(lambda: ana.state.save_problem is not None)
        assert not server.clock.running
        told = len(clocks(ana))
        problem.clear()
        await wait_until(lambda: ana.state.save_problem is None and len(clocks(ana)) > told)
        goes_on = clocks(ana)[-1]
        assert goes_on.seat == 0 and goes_on.left <= 600 and not goes_on.warning and server.clock.seat == 0


async def test_the_remote_seat_keeps_the_clock_and_ends_for_good_when_its_seat_is_freed() -> None:
    async with running(session_for(SEATS, rules=LONG), turn_seconds=1.0) as (server, base):
        ana = recorded(base + seat_path(server.tokens[0]))
        kept: list[SeatClock | None] = []

        def told(message: p.ServerMessage) -> None:
            ana.messages.append(message)
            if isinstance(message, p.ClockMsg):
                kept.append(ana.seat.clock)  # the clock as the seat keeps it, once told

        ana.seat.on_message = told
        await wait_until(lambda: kept)
        clock = kept[0]
        assert clock is not None and clock.seat == 0 and clock.warning
        assert clock.left(asyncio.get_running_loop().time()) <= 1
        assert ana.task is not None
        await wait_until(ana.task.done, what="the seat's end once freed")
        assert ana.seat.link.code == p.SEAT_FREED and ana.seat.connections == 1
        assert "3 of your turns in a row ran out of time" in ana.seat.link.reason
        assert 0 in server.standing_in and not server.connected[0]
