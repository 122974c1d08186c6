"""Play online against a real ``kings-corners server`` (tests/net/hubkit.py): two apps, each
with its own player key, meet in the lobby: one opens a table, the other sees it listed and
joins, both are taken to the table, the match is played to its end through the table screens,
both accept the rematch and both are seated at a new table; and the lobby after the server
restarts keeps the seat the server names, its invite link too."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from textual.app import App
from textual.pilot import Pilot
from textual.widgets import DataTable

from kc_tui.config import HUMAN, Opponent
from kc_tui.engine.moves import parse_move
from kc_tui.engine.rules import Rules
from kc_tui.ui.app import KingsCornersApp, StartOptions
from kc_tui.ui.dialogs.online import NewTableDialog, RematchDialog
from kc_tui.ui.remote.lobby import LobbyScreen
from kc_tui.ui.remote.screen import RemoteScreen
from tests.net.hubkit import (
    FAST,
    SHORT_RULES,
    SHORT_TARGET,
    player_key,
    server,
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


def remote_at(app: App[Any], table: str) -> RemoteScreen | None:
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


@asynccontextmanager
async def person(url: str, name: str, folder: Path) -> AsyncIterator[tuple[KingsCornersApp, Pilot[Any], LobbyScreen]]:
    """An app of its own (its player key in ``folder``) in the lobby at ``url``, signed in as ``name``."""
    app = KingsCornersApp(short_config(), None, "menu")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = LobbyScreen(url, app.config, name=name, key=player_key(folder))
        app.push_screen(screen)
        await wait_for(pilot, lambda: screen.client is not None and screen.client.signed_in is not None)
        yield app, pilot, screen


def listed(screen: LobbyScreen, table: str) -> bool:
    """Whether ``table`` is a row of the lobby's list."""
    return table in screen.query_one("#tables", DataTable).rows


async def rematch(pilot: Pilot[Any], lobby_screen: LobbyScreen, table: str) -> RemoteScreen:
    """At the match's end at ``table``: ``r`` on the rematch offered; the seat at the new table
    once it is the screen shown."""
    app = pilot.app
    await wait_for(pilot, lambda: isinstance(app.screen, RematchDialog), what="the rematch offered")
    await wait_for(pilot, lambda: shows_whole(app, "Same players, same rules: Ana, Ben."))
    await pilot.press("r")
    new = await wait_for(pilot, lambda: lobby_screen.playing if lobby_screen.playing != table else None)
    return await wait_for(
        pilot, lambda: app.screen if app.screen is remote_at(app, new) else None, what="the seat at the new table"
    )


async def test_two_apps_meet_in_the_lobby_play_a_match_and_its_rematch(isolated_dirs: Path) -> None:
    async with (
        server(isolated_dirs / "srv", *FAST) as srv,
        person(srv.url, "Ana", isolated_dirs / "ana") as (ana, ana_pilot, ana_lobby),
        person(srv.url, "Ben", isolated_dirs / "ben") as (ben, ben_pilot, ben_lobby),
    ):
        await ana_pilot.press("n")
        await wait_for(ana_pilot, lambda: isinstance(ana.screen, NewTableDialog))
        await ana_pilot.press("enter")
        await wait_for(ana_pilot, lambda: ana_lobby.seated is not None and shows_whole(ana, "Invite:"))
        assert ana_lobby.seated is not None
        table = ana_lobby.seated.table
        await wait_for(ana_pilot, lambda: shows_whole(ana, "Waiting for players: 1 of 2 seats taken."))
        await wait_for(ben_pilot, lambda: listed(ben_lobby, table), what="Ana's table listed for Ben")
        await wait_for(ben_pilot, lambda: shows_whole(ben, "Ana, free"))
        rows = ben_lobby.query_one("#tables", DataTable)
        rows.move_cursor(row=rows.get_row_index(table))
        await ben_pilot.press("enter")
        ana_remote = await wait_for(ana_pilot, lambda: remote_at(ana, table), what="Ana at the table")
        ben_remote = await wait_for(ben_pilot, lambda: remote_at(ben, table), what="Ben at the table")
        assert ana_lobby.client is not None and not ana_lobby.client.following, "at a table the listing is not followed"
        await asyncio.gather(play_out(ana_pilot, ana_remote), play_out(ben_pilot, ben_remote))
        again = await asyncio.gather(rematch(ana_pilot, ana_lobby, table), rematch(ben_pilot, ben_lobby, table))
        assert again[0].seat.url.split("/seat/")[0] == again[1].seat.url.split("/seat/")[0]
        assert f"/t/{table}/" not in again[0].seat.url
        assert [type(s) for s in ana.screen_stack[-2:]] == [LobbyScreen, RemoteScreen]
        await wait_for(ana_pilot, lambda: not ana_remote.is_attached and not ben_remote.is_attached)
        ana.pop_screen()
        await wait_for(ana_pilot, lambda: ana.screen is ana_lobby and ana_lobby.client is not None)
        assert ana_lobby.client is not None
        await wait_for(ana_pilot, lambda: ana_lobby.client is not None and ana_lobby.client.following)
    assert "Traceback" not in srv.errors()
