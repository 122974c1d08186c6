"""A new player at a hosted table, in ``App.run_test()`` against a real table server on
loopback: the hint as at home (paged with ``h``, shown at the start of a turn with Hints on), a
joined client that leaves the data folder alone, the host's quit in the player's own words, Ctrl+Q
asking first, and the round's summary opening at its title."""

from __future__ import annotations

from typing import Any

import pytest
from textual.containers import Vertical, VerticalScroll
from textual.pilot import Pilot
from textual.widgets import Static

from kc_tui.engine import Rules
from kc_tui.net.server import WATCH_PATH, TableServer, seat_path
from kc_tui.ui.app import KingsCornersApp, StartOptions
from kc_tui.ui.dialogs.summary import RoundSummary
from kc_tui.ui.remote.dialogs import RemoteQuitDialog
from kc_tui.ui.remote.view import is_my_turn
from kc_tui.ui.screens.menu import MenuScreen
from tests.net.serverkit import WAIT, Client, session_for
from tests.ui.test_remote import BEN, ana_on_turn, ben_moves, join_app, moved_on, remote, status_text, table
from tests.ui.test_save_faults import listen

from .conftest import wait_for
from .gamekit import joined, make_config, screen_text, widget_text

SIZE = (80, 24)


# ---------------------------------------------------------------------- the data folder
async def sits_without_a_word(address: str) -> None:
    """``join`` of ``address`` shows the table, only looks at nothing and says nothing."""
    joined = join_app(address)
    notes = listen(joined)
    async with joined.run_test(size=SIZE) as pilot:
        screen = remote(joined)
        await wait_for(pilot, lambda: screen.state is not None)
        await pilot.pause()
        assert joined.look_only is None and notes == [], notes


async def test_a_joined_client_neither_takes_nor_needs_the_data_folders_lock() -> None:
    async with table() as (server, base, _ben):
        home = KingsCornersApp(make_config(), None, "menu", StartOptions())
        async with home.run_test(size=SIZE) as home_pilot:
            await home_pilot.pause()
            assert home.look_only is None  # this window holds the data folder
            await sits_without_a_word(base + seat_path(server.tokens[0]))
            await sits_without_a_word(base + WATCH_PATH)
        # With no other window, a joined client leaves the folder free for the next one.
        joined = join_app(base + WATCH_PATH)
        async with joined.run_test(size=SIZE) as pilot:
            screen = remote(joined)
            await wait_for(pilot, lambda: screen.state is not None)
            later = KingsCornersApp(make_config(), None, "menu", StartOptions())
            async with later.run_test(size=SIZE) as later_pilot:
                await later_pilot.pause()
                assert later.look_only is None, later.look_only
            # Leaving the table for the menu: there the window saves and records.
            await pilot.press("m")
            await wait_for(pilot, lambda: isinstance(joined.screen, MenuScreen))
            assert joined.look_only is None and joined.recorder is not None and joined.saver is not None


async def test_play_with_the_folder_held_says_the_match_asked_for_was_not_started() -> None:
    first = KingsCornersApp(make_config(), None, "menu", StartOptions())
    async with first.run_test(size=SIZE) as pilot:
        await pilot.pause()
        second = KingsCornersApp(make_config(), None, "play", StartOptions(seed=3))
        notes = listen(second)
        async with second.run_test(size=SIZE) as pilot2:
            await wait_for(pilot2, lambda: any("Another Kings Corners" in n for n in notes), timeout=WAIT)
            assert second.game is None
            (note,) = [n for n in notes if "Another Kings Corners" in n]
            assert note.startswith("The match you asked for was not started:"), note


# ---------------------------------------------------------------------- quitting, the summary
@pytest.mark.parametrize("watch", [False, True])
async def test_ctrl_q_at_a_remote_seat_asks_first_and_n_stays_at_the_table(watch: bool) -> None:
    async with (
        table() as (server, base, _ben),
        joined(base + (WATCH_PATH if watch else seat_path(server.tokens[0]))) as (app, pilot, screen),
    ):
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: isinstance(app.screen, RemoteQuitDialog))
        assert app.is_running and "Quit Kings Corners?" in screen_text(app)
        await pilot.press("n")
        await wait_for(pilot, lambda: app.screen is screen)
        assert app.is_running and not screen.seat.ended
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: isinstance(app.screen, RemoteQuitDialog))
        await pilot.press("y")
        await wait_for(pilot, lambda: not app.is_running)


#: Four seats, two of them AIs.
FOUR = (("Ana", "human"), (BEN, "human"), ("Greedy", "greedy"), ("Rando", "random"))


async def first_round_ended(pilot: Pilot[Any], app: KingsCornersApp, server: TableServer, ben: Client) -> RoundSummary:
    """Round 1 played (Ana ends each of her turns by its key, Ben plays his first play) until
    Ana's screen shows its summary."""
    screen = remote(app)
    while server.session.match.number == 1 and not server.session.match.round.over:
        await wait_for(pilot, lambda: server.session.human_to_move or server.session.match.number > 1)
        await wait_for(pilot, lambda: screen.state is not None and screen.state.stamp == server.stamp)
        await wait_for(pilot, lambda: ben.state.stamp == server.stamp)
        stamp = server.stamp
        if is_my_turn(screen.latest):
            await pilot.press("t")
        elif ben.state.legal:
            await ben_moves(ben)
        await wait_for(pilot, moved_on(server, stamp, lambda: server.session.match.number > 1))
    await wait_for(pilot, lambda: isinstance(app.screen, RoundSummary))
    summary = app.screen
    assert isinstance(summary, RoundSummary)
    await pilot.pause()
    return summary


async def test_ctrl_q_over_a_rounds_summary_asks_first_and_the_summary_opens_at_its_title() -> None:
    async with (
        table(session_for(FOUR, rules=Rules(target=100), seed=5)) as (server, base, ben),
        joined(base + seat_path(server.tokens[0])) as (app, pilot, _screen),
    ):
        summary = await first_round_ended(pilot, app, server, ben)
        assert summary.query_one(Vertical).scroll_y == 0, "the summary opened scrolled down"
        title = widget_text(summary.query_one("#title", Static))
        assert title.startswith("Round 1") and title in screen_text(app)
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: isinstance(app.screen, RemoteQuitDialog))
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is summary)
        assert app.is_running


# ---------------------------------------------------------------------- the hint
async def test_a_hint_longer_than_its_area_says_h_more_and_h_pages_it_without_asking_again() -> None:
    async with table() as (server, base, ben), joined(base + seat_path(server.tokens[0])) as (_, pilot, screen):
        await ana_on_turn(pilot, screen, server, ben)
        await pilot.press("h")
        await wait_for(pilot, lambda: status_text(screen).startswith("Hint"))
        await pilot.pause()
        message = screen.query_one("#message", VerticalScroll)
        assert message.max_scroll_y > 0, "the hint fits its area: it shows nothing of this"
        assert "h: more" in status_text(screen) and message.scroll_y == 0
        shown = status_text(screen)
        await pilot.press("h")
        await wait_for(pilot, lambda: message.scroll_y > 0)
        assert screen._hint_asked is None and status_text(screen) == shown, "h asked for another hint"


async def test_with_hints_on_the_hint_shows_at_the_start_of_a_remote_turn_as_at_home() -> None:
    async with (
        table() as (server, base, ben),
        joined(base + seat_path(server.tokens[0]), make_config(auto_hint=True)) as (_, pilot, screen),
    ):
        await ana_on_turn(pilot, screen, server, ben)
        await wait_for(pilot, lambda: status_text(screen).startswith("Hint"), what="the hint at the turn's start")
        assert screen.hint_move is not None
