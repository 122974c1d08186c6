"""The turn clock's rules on their own (kc_tui.net.clock), on a real event loop with short
turns: what it tells and when, a turn run out, the count of turns run out in a row, a clock
stopped and going on. Every wait is for a condition."""

from __future__ import annotations

import asyncio
import functools
from dataclasses import dataclass, field

import pytest

from kc_tui.net.clock import TurnClock, whole_seconds
from kc_tui.net.schema import ClockMsg
from tests.waiting import wait_until

LONG = 600.0


@dataclass
class Table:
    """What the clock told a table: its messages and turns run out, in order."""

    told: list[ClockMsg] = field(default_factory=list)
    ran_out: list[tuple[int, bool]] = field(default_factory=list)
    events: list[object] = field(default_factory=list)

    def clock(self, seconds: float, warning: float = 10.0) -> TurnClock:
        return TurnClock(seconds, tell=self.tell, ran_out=self.out, warning=warning)

    def tell(self, message: ClockMsg) -> None:
        self.told.append(message)
        self.events.append(message)

    def out(self, seat: int, freed: bool) -> None:
        self.ran_out.append((seat, freed))
        self.events.append((seat, freed))


def ran_out(table: Table, count: int) -> bool:
    return len(table.ran_out) == count


def test_seconds_left_are_shown_rounded_up() -> None:
    assert [whole_seconds(x) for x in (0.0, 0.2, 1.0, 2.5, -1.0)] == [0, 1, 1, 3, 0]


async def test_a_turn_starts_with_its_time_and_warns_before_it_runs_out() -> None:
    table = Table()
    clock = table.clock(0.6, warning=0.3)
    clock.update((1, 0), 0)
    assert table.told == [ClockMsg(0, 1, False)] and clock.seat == 0
    await wait_until(lambda: table.ran_out)
    assert table.events == [ClockMsg(0, 1, False), ClockMsg(0, 1, True), (0, False)]
    assert clock.covering == 0 and not clock.running and clock.timeouts == {0: 1}


async def test_a_turn_shorter_than_the_warning_is_warned_at_once_with_its_whole_time() -> None:
    table = Table()
    clock = table.clock(3.0)  # the warning is 10 s left: the turn starts warned
    clock.update((1, 0), 1)
    assert table.told == [ClockMsg(1, 3, True)]
    assert clock.current() == ClockMsg(1, 3, True)
    clock.close()


async def test_the_ai_plays_the_rest_of_the_turn_and_the_person_the_next() -> None:
    table = Table()
    clock = table.clock(0.2)
    clock.update((1, 0), 0)
    await wait_until(lambda: table.ran_out)
    clock.update((1, 0), 0)  # the person still connected: the AI plays on, no clock
    assert clock.covering == 0 and not clock.running and len(table.told) == 1
    clock.update((1, 1), None)  # the turn ended (an AI's turn now)
    assert clock.covering is None and clock.timeouts == {0: 1}
    clock.update((1, 2), 0)  # the person's next turn: theirs again, the whole time
    assert clock.covering is None and clock.running and table.told[-1] == ClockMsg(0, 1, True)
    clock.close()


async def test_three_turns_run_out_in_a_row_free_the_seat_and_its_count_starts_again() -> None:
    table = Table()
    clock = table.clock(0.1)
    for turn in range(3):
        clock.update((1, 2 * turn), 0)
        await wait_until(functools.partial(ran_out, table, turn + 1))
        clock.update((1, 2 * turn + 1), None)
    assert table.ran_out == [(0, False), (0, False), (0, True)]
    assert clock.timeouts == {}


async def test_a_turn_ended_on_the_clock_resets_the_count() -> None:
    table = Table()
    clock = table.clock(0.1)
    clock.update((1, 0), 0)
    await wait_until(lambda: table.ran_out)
    clock.update((1, 1), None)
    clock.seconds = LONG  # this turn is ended by the person, well in time
    clock.update((1, 2), 0)
    assert clock.timeouts == {0: 1}
    clock.update((1, 3), None)
    assert clock.timeouts == {}


async def test_a_turn_the_clock_did_not_run_for_neither_counts_nor_resets() -> None:
    table = Table()
    clock = table.clock(0.1)
    clock.update((1, 0), 0)
    await wait_until(lambda: table.ran_out)
    clock.update((1, 1), None)
    clock.update((1, 2), None)  # the person's turn, their client away: no clock
    assert not clock.running and len(table.told) == 1
    clock.update((1, 3), None)
    assert clock.timeouts == {0: 1}


async def test_a_stopped_clock_goes_on_with_the_time_left_and_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    loop = asyncio.get_running_loop()
    now = [loop.time()]
    monkeypatch.setattr(loop, "time", lambda: now[0])  # the loop's clock, moved by hand
    table = Table()
    clock = table.clock(LONG)
    clock.update((1, 0), 2)
    now[0] += 200
    clock.update((1, 0), None)  # the person left, or the table holds
    assert not clock.running and clock.current() is None
    now[0] += 100
    clock.update((1, 0), 2)
    assert clock.left() == LONG - 200
    assert table.told == [ClockMsg(2, int(LONG), False), ClockMsg(2, int(LONG) - 200, False)]
    clock.update(None, None)  # the round is over: no turn
    assert not clock.running and clock.timeouts == {}
    clock.update((2, 0), 2)  # the next round's turn: the whole time again
    assert table.told[-1] == ClockMsg(2, int(LONG), False)
    clock.close()


async def test_no_clock_at_zero_seconds() -> None:
    table = Table()
    clock = table.clock(0.0)
    clock.update((1, 0), 0)
    assert not clock.on and not clock.running and table.told == []


def test_a_turns_time_is_never_negative() -> None:
    with pytest.raises(ValueError, match="0 or more"):
        TurnClock(-1.0, tell=lambda m: None, ran_out=lambda s, f: None)
