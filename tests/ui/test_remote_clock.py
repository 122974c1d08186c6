"""The turn clock at a remote seat: ``join`` in ``App.run_test()`` at 80x24 against a real
table server with a turn time, in the same loop: the seat's own turn ("Your turn: 600 s"),
another's ("Ben: 600 s"), the warning of a short turn, and the words once a turn ran out."""

from __future__ import annotations

import re

from textual.widgets import Static

from kc_tui.engine import Rules
from kc_tui.match.view import SeatSnapshot, TableSnapshot
from kc_tui.net.client import SeatClock
from kc_tui.net.server import seat_path
from kc_tui.ui.remote.screen import RemoteScreen
from kc_tui.ui.remote.view import clock_line, is_my_turn
from tests.net.serverkit import seated, session_for

from .conftest import wait_for
from .gamekit import joined, screen_text

SEATS = (("Ana", "human"), ("Ben", "human"))
LONG = Rules(target=100)


def link_text(screen: RemoteScreen) -> str:
    return str(screen.query_one("#link", Static).render())


async def test_the_seat_shows_its_own_turns_clock_and_the_other_persons() -> None:
    async with (
        seated("Ben", session=session_for(SEATS, rules=LONG), turn_seconds=600.0) as (server, base, (ben,)),
        joined(base + seat_path(server.tokens[0])) as (app, pilot, screen),
    ):
        # Whoever is on turn first: Ana's clock on her screen, or Ben's (then Ben ends his turn).
        await wait_for(pilot, lambda: re.search(r"(Your turn|Ben): \d+ s", link_text(screen)))
        if "Ben: " in link_text(screen):
            assert re.match(r"Ben: \d+ s · ", link_text(screen)), link_text(screen)
            await ben.move("end", ben.state.stamp)
        await wait_for(pilot, lambda: is_my_turn(screen.latest) and "Your turn: " in link_text(screen))
        assert re.match(r"Your turn: \d+ s · The table waits for you", link_text(screen)), link_text(screen)
        assert "Your turn: " in screen_text(app)  # on the 80x24 screen, whole
        await pilot.press("t")
        await wait_for(pilot, lambda: "Ben: " in link_text(screen))
        assert re.match(r"Ben: \d+ s · Waiting for Ben", link_text(screen)), link_text(screen)


async def test_a_turn_shorter_than_the_warning_is_shown_warned_at_once() -> None:
    async with (
        seated("Ben", session=session_for(SEATS, rules=LONG), turn_seconds=3.0) as (server, base, (ben,)),
        joined(base + seat_path(server.tokens[0])) as (app, pilot, screen),
    ):
        await wait_for(pilot, lambda: re.search(r"(\d s left|Ben: \d s)", link_text(screen)))
        if "Ben: " in link_text(screen):
            await ben.move("end", ben.state.stamp)
            await wait_for(pilot, lambda: " s left" in link_text(screen))
        assert re.match(r"[0-3] s left: then an AI plays this turn", link_text(screen)), link_text(screen)
        assert "s left: then an AI plays this turn" in screen_text(app)


def _view(*, stand_in: bool, viewer: int) -> TableSnapshot:
    seats = tuple(
        SeatSnapshot(i, name, "human", 7, 0, i == 0, False, False, None, stand_in=stand_in and i == 0)
        for i, name in enumerate(("Ana", "Ben"))
    )
    return TableSnapshot(
        viewer=viewer, piles=((),) * 8, stock=30, round_number=1, to_move=0, target=100, seats=seats, waiting_for="Ana"
    )


def test_the_clocks_words_for_each_viewer_and_once_a_turn_ran_out() -> None:
    clock = SeatClock(0, 100.0, False)
    assert str(clock_line(clock, _view(stand_in=False, viewer=0), 75.0)) == "Your turn: 25 s"
    assert str(clock_line(clock, _view(stand_in=False, viewer=0), 90.5)) == "10 s left: then an AI plays this turn"
    assert str(clock_line(clock, _view(stand_in=False, viewer=1), 75.0)) == "Ana: 25 s"
    assert clock_line(SeatClock(1, 100.0, False), _view(stand_in=False, viewer=0), 75.0) is None  # not Ben's turn
    ran_out = _view(stand_in=True, viewer=0)
    assert str(clock_line(clock, ran_out, 75.0)) == "Your time ran out: an AI plays the rest of this turn"
    assert str(clock_line(None, _view(stand_in=True, viewer=1), 75.0)) == "Ana's time ran out: an AI plays this turn"
    assert clock_line(None, _view(stand_in=False, viewer=0), 75.0) is None
