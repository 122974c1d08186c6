"""Play online against a real ``kings-corners server`` (tests/net/hubkit.py): the app in its
lobby opens a table, another person (a scripted lobby client and seat) sees it listed and
joins, both are taken to the table, the match is played to its end, both accept the rematch
and both are seated at a new table; and the lobby after the server restarts."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import DataTable

from kc_tui.config import HUMAN, Opponent
from kc_tui.engine.moves import parse_move
from kc_tui.engine.rules import Rules
from kc_tui.net import lobby_schema as ls
from kc_tui.ui.app import KingsCornersApp, StartOptions
from kc_tui.ui.dialogs.online import NewTableDialog, RematchDialog
from kc_tui.ui.remote.lobby import LobbyScreen
from kc_tui.ui.remote.screen import RemoteScreen
from tests.net.hubkit import (
    FAST,
    SHORT_RULES,
    SHORT_TARGET,
    LobbyTester,
    play_to_end,
    server,
    signed_in,
    sit,
    start_server,
)
from tests.ui.conftest import wait_for
from tests.ui.fitkit import shows_whole
from tests.ui.gamekit import make_config


def short_config() -> Any:
    """Two seats (the other a person's) and the short match's rules."""
    rules = Rules.from_dict(dict(SHORT_RULES)).with_(target=SHORT_TARGET)
    return make_config(opponents=(Opponent("Ben", HUMAN),), rules=rules)


@asynccontextmanager
async def online(url: str, name: str) -> AsyncIterator[tuple[KingsCornersApp, Pilot[Any], LobbyScreen]]:
    """``kings-corners online URL --name NAME`` (its key in the test's data folder), signed in."""
    app = KingsCornersApp(short_config(), None, "online", StartOptions(online=url, online_name=name))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        assert isinstance(screen, LobbyScreen)
        await wait_for(pilot, lambda: screen.client is not None and screen.client.signed_in is not None)
        yield app, pilot, screen


def remote_at(app: KingsCornersApp, table: str) -> RemoteScreen | None:
    """The remote seat at ``table`` when it is the screen shown, or under the dialogs shown."""
    for screen in reversed(app.screen_stack):
        if isinstance(screen, RemoteScreen) and f"/t/{table}/seat/" in screen.seat.url:
            return screen
    return None


def moved_on(remote: RemoteScreen, stamp: int) -> bool:
    """Whether the seat holds a state newer than the one of ``stamp``, or the match is over."""
    return remote.state is not None and (remote.state.stamp != stamp or remote.state.over)


async def play_out(pilot: Pilot[Any], remote: RemoteScreen) -> None:
    """The app's seat plays its turns (a card when it can, else the end of its turn) through the
    screen's moves until the match is over; the rounds' summaries are closed as they come."""
    app = pilot.app
    while not (remote.state is not None and remote.state.over):
        state = await wait_for(
            pilot,
            lambda: (
                remote.state
                if remote.state is not None and (remote.state.over or (remote.seat.connected and remote.state.legal))
                else None
            ),
            what="the app's turn or the match's end",
        )
        if state.over:
            break
        plays = [m for m in state.legal if m != "end"]
        remote.submit_move(parse_move(plays[0] if plays else "end"))
        await wait_for(pilot, functools.partial(moved_on, remote, state.stamp), what="the state after the app's move")
        if app.screen is not remote and not isinstance(app.screen, RematchDialog):
            await pilot.press("enter")  # a round's summary


async def test_a_table_opened_in_the_app_is_joined_played_and_rematched(isolated_dirs: Path) -> None:
    async with server(isolated_dirs / "srv", *FAST) as srv:
        ben: LobbyTester = await signed_in(srv.lobby, isolated_dirs / "ben", "Ben")
        async with online(srv.url, "Ana") as (app, pilot, lobby_screen):
            await pilot.press("n")
            await wait_for(pilot, lambda: isinstance(app.screen, NewTableDialog))
            await pilot.press("enter")
            await wait_for(pilot, lambda: lobby_screen.seated is not None and shows_whole(app, "Invite:"))
            assert lobby_screen.seated is not None
            table = lobby_screen.seated.table
            await wait_for(pilot, lambda: shows_whole(app, "Waiting for players: 1 of 2 seats taken."))
            listed = await ben.expect(ls.TableMsg, where=lambda m: m.listing.table == table)
            assert [s.name for s in listed.listing.seats] == ["Ana", None]
            joined = await ben.request(ls.JoinTable(table))
            assert isinstance(joined, ls.JoinedMsg) and joined.seat == 1, joined
            start = await ben.expect(ls.StartMsg, where=lambda m: m.table == table)
            remote = await wait_for(pilot, lambda: remote_at(app, table), what="the app's seat at the table")
            assert app.screen is remote and lobby_screen.seated is None
            seat = await sit(start.url)
            ben_plays = asyncio.create_task(play_to_end(seat))
            await play_out(pilot, remote)
            await ben_plays
            await wait_for(pilot, lambda: isinstance(app.screen, RematchDialog), what="the rematch offered")
            await wait_for(pilot, lambda: shows_whole(app, "Same players, same rules: Ana, Ben."))
            await pilot.press("r")
            await wait_for(pilot, lambda: shows_whole(app, "Yes: Ana."))
            await ben.send(ls.Rematch(table, True))
            again = await ben.expect(ls.StartMsg, where=lambda m: m.table != table)
            await wait_for(pilot, lambda: remote_at(app, again.table) is app.screen, what="the app at the new table")
            assert [type(s) for s in app.screen_stack[-2:]] == [LobbyScreen, RemoteScreen]
            second = await sit(again.url)
            assert second.state.round == 1 and not second.state.over
            await wait_for(pilot, lambda: not remote.is_attached, what="the first table's screen closed")
            await second.close()
            await seat.close()
        await ben.close()
        assert srv.stop() == 0
    assert "Traceback" not in srv.errors()


async def test_after_the_server_restarts_the_waiting_panel_shows_the_seat_and_its_invite(isolated_dirs: Path) -> None:
    async with server(isolated_dirs / "srv", *FAST) as srv, online(srv.url, "Ana") as (app, pilot, lobby_screen):
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, NewTableDialog))
        await pilot.press("enter")
        await wait_for(pilot, lambda: shows_whole(app, "Waiting for players: 1 of 2 seats taken."))
        assert lobby_screen.seated is not None
        table = lobby_screen.seated.table
        srv.kill()
        await wait_for(pilot, lambda: shows_whole(app, "connecting again"))
        back = await start_server(srv.data, *FAST, port=srv.port)
        try:
            await wait_for(pilot, lambda: lobby_screen.client is not None and lobby_screen.client.signed_in)
            await wait_for(pilot, lambda: table in lobby_screen.query_one("#tables", DataTable).rows)
            await wait_for(pilot, lambda: shows_whole(app, "Waiting for players: 1 of 2 seats taken."))
            assert lobby_screen.seated is not None and lobby_screen.seated.table == table
            assert shows_whole(app, f"/i/{table}/"), "the invite link of the table is kept"
        finally:
            back.kill()
