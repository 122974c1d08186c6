"""A new player at a hosted table, in ``App.run_test()`` against a real table server on
loopback: the hint as at home (paged with ``h``, shown at the start of a turn with Hints on), a
joined client that leaves the data folder alone, the host's quit in the player's own words, Ctrl+Q
asking first, and the round's summary opening at its title."""

from __future__ import annotations

from kc_tui.net.server import WATCH_PATH, seat_path
from kc_tui.ui.app import KingsCornersApp, StartOptions
from kc_tui.ui.screens.menu import MenuScreen
from tests.net.serverkit import WAIT
from tests.ui.test_remote import join_app, remote, table
from tests.ui.test_save_faults import listen

from .conftest import wait_for
from .gamekit import make_config

SIZE = (80, 24)


# ---------------------------------------------------------------------- the data folder
async def test_a_joined_client_neither_takes_nor_needs_the_data_folders_lock() -> None:
    async with table() as (server, base, _ben):
        home = KingsCornersApp(make_config(), None, "menu", StartOptions())
        async with home.run_test(size=SIZE) as home_pilot:
            await home_pilot.pause()
            assert home.look_only is None  # this window holds the data folder
            for address in (base + seat_path(server.tokens[0]), base + WATCH_PATH):
                joined = join_app(address)
                notes = listen(joined)
                async with joined.run_test(size=SIZE) as pilot:
                    screen = remote(joined)
                    await wait_for(pilot, lambda: screen.state is not None)
                    await pilot.pause()
                    assert joined.look_only is None and notes == [], notes
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
