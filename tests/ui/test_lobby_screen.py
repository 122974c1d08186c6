"""Play online: the lobby screen against a small fake lobby (tests/net/lobbykit.py): the list of
tables and its live deltas, a new table, quick play's waiting panel, a started table's seat
opening as a remote seat, the rematch, names from the network shown literally, 80x24; the
menu's entry, ``kings-corners online``'s parser, and the server's address in Settings."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable, Input, Select

from kc_tui.cli import main
from kc_tui.config import Config, server_problem
from kc_tui.net import lobby_schema as ls
from kc_tui.ui.app import KingsCornersApp, StartOptions
from kc_tui.ui.dialogs.online import NameDialog, NewTableDialog, QuickPlayDialog, RematchDialog, ServerDialog
from kc_tui.ui.remote.lobby import LobbyScreen
from kc_tui.ui.remote.screen import RemoteScreen, WatchScreen
from kc_tui.ui.screens.menu import MenuScreen
from tests.net.lobbykit import SECRET, FakeLobby, fake_lobby, listing
from tests.ui.conftest import wait_for
from tests.ui.fitkit import assert_whole, content, screen_lines, shows_whole
from tests.ui.gamekit import make_config, set_input

HOSTILE = "[bold red]Eve[/]"


@asynccontextmanager
async def online(
    lobby: FakeLobby,
    *,
    name: str = "Ana",
    address: str | None = None,
    quick: bool = False,
    size: tuple[int, int] = (80, 24),
) -> AsyncIterator[tuple[KingsCornersApp, Pilot[Any], LobbyScreen]]:
    """``kings-corners online`` at the fake lobby, signed in."""
    options = StartOptions(online=address or lobby.base, online_name=name, online_quick=quick)
    app = KingsCornersApp(make_config(), None, "online", options)
    async with app.run_test(size=size) as pilot:
        screen = app.screen
        assert isinstance(screen, LobbyScreen)
        await wait_for(pilot, lambda: screen.client is not None and screen.client.signed_in is not None)
        yield app, pilot, screen


def rows(screen: LobbyScreen) -> list[str]:
    table = screen.query_one("#tables", DataTable)
    return [" | ".join(str(cell) for cell in table.get_row_at(i)) for i in range(table.row_count)]


async def test_the_tables_are_listed_and_the_deltas_update_the_list() -> None:
    tables = (listing("tableONE", names=("Ana", None, None), turn_seconds=60), listing("tableTWO", names=("Ben", "Cy")))
    async with fake_lobby(*tables) as lobby, online(lobby, name="Dee") as (app, pilot, screen):
        await wait_for(pilot, lambda: len(rows(screen)) == 2)
        assert any("Ana, free, free" in row and "60 s" in row for row in rows(screen)), rows(screen)
        await wait_for(pilot, lambda: shows_whole(app, "Signed in as Dee"))
        await lobby.push(ls.TableMsg(listing("tableTHR", names=("Fay", None), kinds=("human", "greedy"))))
        await wait_for(pilot, lambda: len(rows(screen)) == 3)
        await lobby.push(ls.TableMsg(listing("tableONE", names=("Ana", "Gus", None))))
        await wait_for(pilot, lambda: any("Ana, Gus, free" in row for row in rows(screen)))
        await lobby.push(ls.TableGoneMsg("tableTWO", "ended"))
        await wait_for(pilot, lambda: not any("Ben" in row for row in rows(screen)))
        assert len(rows(screen)) == 2


async def test_n_creates_a_table_and_the_creator_gets_its_invite() -> None:
    async with fake_lobby() as lobby, online(lobby) as (app, pilot, screen):
        await pilot.press("n")
        dialog = await wait_for(pilot, lambda: app.screen if isinstance(app.screen, NewTableDialog) else None)
        dialog.query_one("#seat-2", Select).value = "human"
        await set_input(pilot, dialog, "turn", "45")
        await pilot.press("enter")
        await wait_for(pilot, lambda: lobby.of(ls.CreateTable))
        create = lobby.of(ls.CreateTable)[0]
        assert create.seats == ("human", "greedy", "human") and create.turn_seconds == 45
        assert create.target == make_config().rules.target and not create.private
        await wait_for(pilot, lambda: screen.seated is not None and shows_whole(app, "Invite:"))
        assert_whole(app, "Waiting for players: 2 of 3 seats taken.")
        assert_whole(app, f"{lobby.base}/i/newTABLE/{SECRET}")
        await pilot.press("escape")
        await wait_for(pilot, lambda: lobby.of(ls.LeaveTable))
        assert screen.seated is None and app.screen is screen


async def test_quick_play_shows_the_waiting_panel_with_the_ais_countdown() -> None:
    async with fake_lobby() as lobby, online(lobby) as (app, pilot, _screen):
        await pilot.press("q")
        dialog = await wait_for(pilot, lambda: app.screen if isinstance(app.screen, QuickPlayDialog) else None)
        await set_input(pilot, dialog, "fill", "25")
        await pilot.press("enter")
        await wait_for(pilot, lambda: lobby.of(ls.QuickPlay))
        quick = lobby.of(ls.QuickPlay)[0]
        assert (quick.players, quick.fill_after) == (3, 25)
        await wait_for(pilot, lambda: shows_whole(app, "Waiting for players: 1 of 3 seats taken."))
        await wait_for(pilot, lambda: shows_whole(app, "AIs fill the empty seats in"))


async def test_online_quick_asks_for_quick_play_once_signed_in() -> None:
    async with fake_lobby() as lobby, online(lobby, quick=True) as (_app, pilot, _screen):
        await wait_for(pilot, lambda: lobby.of(ls.QuickPlay))
        assert lobby.of(ls.QuickPlay)[0].fill_after == 30


async def test_an_invite_link_takes_its_tables_seat_once_signed_in() -> None:
    async with fake_lobby() as lobby:
        invite = f"{lobby.base}/i/abcdEFGH/{SECRET}"
        async with online(lobby, address=invite) as (app, pilot, screen):
            accepted = await wait_for(pilot, lambda: lobby.of(ls.AcceptInvite))
            assert (accepted[0].table, accepted[0].secret) == ("abcdEFGH", SECRET)
            assert screen.address == lobby.base + "/lobby"
            await wait_for(pilot, lambda: shows_whole(app, "You have a seat at table abcdEFGH"))


async def test_start_opens_the_remote_table_and_the_rematch_is_offered_at_its_end() -> None:
    async with fake_lobby(listing("tableONE", names=("Ben", None))) as lobby, online(lobby) as (app, pilot, screen):
        await wait_for(pilot, lambda: rows(screen))
        await pilot.press("enter")
        await wait_for(pilot, lambda: lobby.of(ls.JoinTable))
        assert lobby.of(ls.JoinTable)[0].table == "tableONE"
        url = f"{lobby.base}/t/tableONE/seat/tokenTOKEN"
        await lobby.push(ls.StartMsg("tableONE", 1, url))
        remote = await wait_for(pilot, lambda: app.screen if isinstance(app.screen, RemoteScreen) else None)
        assert remote.seat.url == url and not remote.watching
        await pilot.press("m")  # left for the lobby mid-match: Enter on its table is the seat again
        await wait_for(pilot, lambda: app.screen is screen)
        await lobby.push(ls.TableMsg(listing("tableONE", names=("Ben", "Ana"), phase=ls.PLAYING)))
        await wait_for(
            pilot, lambda: screen.client is not None and screen.client.listings["tableONE"].phase == ls.PLAYING
        )
        await pilot.press("enter")
        remote = await wait_for(pilot, lambda: app.screen if isinstance(app.screen, RemoteScreen) else None)
        assert remote.seat.url == url and len(lobby.of(ls.JoinTable)) == 1
        await lobby.push(ls.RematchMsg("tableONE", ("Ben", "Ana"), ("Ben",)))
        dialog = await wait_for(pilot, lambda: app.screen if isinstance(app.screen, RematchDialog) else None)
        await wait_for(pilot, lambda: shows_whole(app, "1 of 2 said yes"))
        await pilot.press("r")
        await wait_for(pilot, lambda: lobby.of(ls.Rematch))
        assert lobby.of(ls.Rematch)[0] == ls.Rematch("tableONE", True, lobby.of(ls.Rematch)[0].id)
        await lobby.push(ls.RematchMsg("tableONE", ("Ben", "Ana"), ("Ben", "Ana")))
        await wait_for(pilot, lambda: shows_whole(app, "2 of 2 said yes"))
        assert dialog.is_attached
        again = f"{lobby.base}/t/tableTWO/seat/tokenTWO"
        await lobby.push(ls.StartMsg("tableTWO", 1, again))
        await wait_for(pilot, lambda: isinstance(app.screen, RemoteScreen) and app.screen.seat.url == again)
        assert [type(s) for s in app.screen_stack[-2:]] == [LobbyScreen, RemoteScreen]


async def test_a_declined_rematch_goes_back_to_the_lobby() -> None:
    async with fake_lobby() as lobby, online(lobby) as (app, pilot, screen):
        await lobby.push(ls.StartMsg("tableONE", 0, f"{lobby.base}/t/tableONE/seat/tok"))
        await wait_for(pilot, lambda: isinstance(app.screen, RemoteScreen))
        await lobby.push(ls.RematchMsg("tableONE", ("Ana", "Ben"), ()))
        await wait_for(pilot, lambda: isinstance(app.screen, RematchDialog))
        await lobby.push(ls.RematchMsg("tableONE", ("Ana", "Ben"), (), declined=True))
        await wait_for(pilot, lambda: app.screen is screen)
        await wait_for(pilot, lambda: shows_whole(app, "No rematch: a player left or said no."))


async def test_w_watches_the_table_under_the_cursor() -> None:
    playing = listing("tableONE", names=("Ben", "Cy"), phase=ls.PLAYING)
    async with fake_lobby(playing) as lobby, online(lobby) as (app, pilot, screen):
        await wait_for(pilot, lambda: rows(screen))
        await pilot.press("j")
        await wait_for(pilot, lambda: shows_whole(app, "No free seat at this table: w watches it."))
        await pilot.press("w")
        watch = await wait_for(pilot, lambda: app.screen if isinstance(app.screen, WatchScreen) else None)
        assert watch.seat.url == f"{lobby.base}/t/tableONE/watch"


async def test_names_from_the_network_are_shown_literally() -> None:
    hostile = listing("tableONE", names=(HOSTILE, None), rules={"draw": "[blink]x"})
    async with fake_lobby(hostile) as lobby, online(lobby) as (app, pilot, _screen):
        await wait_for(pilot, lambda: shows_whole(app, HOSTILE))
        await lobby.push(ls.LobbyRefusedMsg(None, ls.LIMIT, "[@click=app.quit]too many[/] tables"))
        await wait_for(pilot, lambda: shows_whole(app, "[@click=app.quit]too many[/] tables"))
        assert app.is_running


async def test_a_name_held_by_another_player_is_asked_again_with_the_suggestion() -> None:
    async with fake_lobby(taken={"Ana": "Ana 2"}) as lobby:
        app = KingsCornersApp(make_config(), None, "online", StartOptions(online=lobby.base, online_name="Ana"))
        async with app.run_test(size=(80, 24)) as pilot:
            dialog = await wait_for(
                pilot, lambda: app.screen if isinstance(app.screen, NameDialog) and app.screen.query("#name") else None
            )
            assert dialog.query_one("#name", Input).value == "Ana 2"
            await wait_for(pilot, lambda: shows_whole(app, "The name Ana is another player's on this server"))
            await pilot.press("enter")
            await wait_for(pilot, lambda: shows_whole(app, "Signed in as Ana 2"))


async def test_the_lobby_is_readable_at_80x24() -> None:
    many = tuple(listing(f"table{i:03d}", names=("Somebody Long Named", None, None, None)) for i in range(30))
    async with fake_lobby(*many) as lobby, online(lobby) as (app, pilot, screen):
        await wait_for(pilot, lambda: len(rows(screen)) == 30)
        await wait_for(pilot, lambda: shows_whole(app, "Signed in as Ana") and shows_whole(app, "Somebody Long Named"))
        for words in ("Rules", "Seats", "Playing", "Clock", "n new table", "Esc back"):
            assert_whole(app, words)
        assert len(screen_lines(app)) == 24


async def test_a_server_that_is_not_there_is_one_line_and_r_tries_again() -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    options = StartOptions(online=f"ws://127.0.0.1:{port}", online_name="Ana")
    app = KingsCornersApp(make_config(), None, "online", options)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: shows_whole(app, "connecting again… (r: now)"))
        await wait_for(pilot, lambda: shows_whole(app, "connection refused"))
        await pilot.press("r")
        assert app.is_running


async def test_play_online_from_the_menu_asks_the_server_once_and_keeps_it(tmp_path: Any) -> None:
    config_file = tmp_path / "settings.toml"
    async with fake_lobby() as lobby:
        app = KingsCornersApp(make_config(player_name="Dee"), config_file, "menu")
        async with app.run_test(size=(80, 24)) as pilot:
            assert isinstance(app.screen, MenuScreen)
            await pilot.press("o")
            dialog = await wait_for(pilot, lambda: app.screen if isinstance(app.screen, ServerDialog) else None)
            await set_input(pilot, dialog, "address", "http://nowhere")
            await pilot.press("enter")
            problem = dialog.query_one("#problem")
            await wait_for(pilot, lambda: "must start with ws:// or wss://" in content(problem))
            await set_input(pilot, dialog, "address", lobby.base)
            await pilot.press("enter")
            lobby_screen = await wait_for(pilot, lambda: app.screen if isinstance(app.screen, LobbyScreen) else None)
            assert app.config.server == lobby.base
            await wait_for(pilot, lambda: shows_whole(app, "Signed in as"))
            await pilot.press("escape")
            await wait_for(pilot, lambda: isinstance(app.screen, MenuScreen))
            assert not lobby_screen.is_attached
    assert f'server = "{lobby.base}"' in config_file.read_text()


def test_the_server_setting_is_checked() -> None:
    assert server_problem("") is None and server_problem("wss://cards.example:443") is None
    assert server_problem("ws://cards.example/lobby") is None
    for bad in ("http://x", "ws://", "ws://h/t/x", "ws://h:port", "ws://u@h", "ws://h x", 7):
        assert server_problem(bad) is not None, bad
    assert Config.from_dict({"server": "ws://h:1"}).server == "ws://h:1"
    with pytest.raises(ValueError, match="ws://"):
        Config.from_dict({"server": "ftp://h"})


async def test_settings_refuse_a_bad_server_address_in_one_line() -> None:
    from kc_tui.ui.screens.settings import SettingsScreen

    app = KingsCornersApp(make_config(), None, "menu")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("s")
        settings = await wait_for(pilot, lambda: app.screen if isinstance(app.screen, SettingsScreen) else None)
        await set_input(pilot, settings, "server", "http://cards")
        await wait_for(pilot, lambda: "server" in settings.problems())
        await wait_for(pilot, lambda: shows_whole(app, "must start with ws:// or wss://"))
        await set_input(pilot, settings, "server", "ws://cards.example:8765")
        await wait_for(pilot, lambda: "server" not in settings.problems())
        assert settings.build_config().server == "ws://cards.example:8765"


def test_the_online_commands_parser(capsys: pytest.CaptureFixture[str]) -> None:
    from kc_tui.cli import build_parser

    args = build_parser().parse_args(["online", "ws://h:1", "--name", "Ana", "--fill-after", "12", "--quick"])
    assert (args.url, args.name, args.fill_after, args.quick) == ("ws://h:1", "Ana", 12, True)
    assert build_parser().parse_args(["online"]).fill_after == 30
    for argv in (["online", "http://h"], ["online", "ws://h:1", "--fill-after", "601"], ["online"]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "Traceback" not in err, err


async def signed_in_again(pilot: Pilot[Any], lobby: FakeLobby, screen: LobbyScreen) -> None:
    """The fake lobby's connections dropped; the client connected and signed in again."""
    client = screen.client
    assert client is not None
    signed = len(lobby.of(ls.SignIn))
    await lobby.drop_all()
    await wait_for(pilot, lambda: len(lobby.of(ls.SignIn)) > signed and client.signed_in is not None)


async def create_table(app: KingsCornersApp, pilot: Pilot[Any], screen: LobbyScreen) -> None:
    await pilot.press("n")
    await wait_for(pilot, lambda: isinstance(app.screen, NewTableDialog))
    await pilot.press("enter")
    await wait_for(pilot, lambda: screen.seated is not None and shows_whole(app, "Invite:"))


async def test_a_seat_the_server_does_not_name_after_signing_in_again_leaves_the_panel() -> None:
    async with fake_lobby() as lobby, online(lobby) as (app, pilot, screen):
        await create_table(app, pilot, screen)
        await signed_in_again(pilot, lobby, screen)
        await wait_for(pilot, lambda: not screen.query_one("#waiting").display)
        await wait_for(pilot, lambda: not shows_whole(app, "Waiting for players"))
        assert screen.seated is None


async def test_a_seat_named_again_after_signing_in_keeps_its_invite() -> None:
    async with fake_lobby() as lobby, online(lobby) as (app, pilot, screen):
        await create_table(app, pilot, screen)
        lobby.after_sign_in = [ls.JoinedMsg(None, "newTABLE", 0)]
        await signed_in_again(pilot, lobby, screen)
        await wait_for(pilot, lambda: screen.seated is not None and screen.query_one("#waiting").display)
        assert screen.seated is not None and screen.seated.table == "newTABLE"
        assert_whole(app, f"{lobby.base}/i/newTABLE/{SECRET}")


async def test_a_table_named_again_after_signing_in_keeps_its_open_seat() -> None:
    async with fake_lobby() as lobby, online(lobby) as (app, pilot, screen):
        await create_table(app, pilot, screen)
        await lobby.push(ls.StartMsg("newTABLE", 0, f"{lobby.base}/t/newTABLE/seat/first"))
        remote = await wait_for(
            pilot, lambda: app.screen if isinstance(app.screen, RemoteScreen) and app.screen.is_mounted else None
        )
        assert screen.seated is None
        again = f"{lobby.base}/t/newTABLE/seat/second"
        lobby.after_sign_in = [ls.StartMsg("newTABLE", 0, again)]
        await signed_in_again(pilot, lobby, screen)
        await wait_for(pilot, lambda: screen.place.seat_urls.get("newTABLE") == again)
        assert app.screen is remote and remote.is_attached


async def test_a_table_started_while_the_lobby_was_away_opens_its_seat() -> None:
    async with fake_lobby() as lobby, online(lobby) as (app, pilot, screen):
        await create_table(app, pilot, screen)
        url = f"{lobby.base}/t/newTABLE/seat/tok"
        lobby.after_sign_in = [ls.StartMsg("newTABLE", 0, url)]
        await signed_in_again(pilot, lobby, screen)
        remote = await wait_for(
            pilot, lambda: app.screen if isinstance(app.screen, RemoteScreen) and app.screen.is_mounted else None
        )
        assert remote.seat.url == url and screen.seated is None


async def test_the_new_table_and_quick_play_dialogs_fit_80x24() -> None:
    app = KingsCornersApp(make_config(), None, "menu")
    async with app.run_test(size=(80, 24)) as pilot:
        app.push_screen(NewTableDialog(make_config()))
        dialog = await wait_for(pilot, lambda: app.screen if isinstance(app.screen, NewTableDialog) else None)
        await wait_for(pilot, lambda: shows_whole(app, "Create (Enter)"))
        for words in ("Seats 3", "Seat 2 Greedy", "Seat 3 King-aware", "Target", "Turn time (s) 0", "Private"):
            assert_whole(app, words)
        assert dialog.query_one("#seat-1", Select).region.height == 1
        app.pop_screen()
        app.push_screen(QuickPlayDialog(make_config()))
        await wait_for(pilot, lambda: isinstance(app.screen, QuickPlayDialog))
        await wait_for(pilot, lambda: shows_whole(app, "Play (Enter)") and shows_whole(app, "Players 3"))


async def test_a_table_screen_taken_apart_asks_nothing_of_its_widgets() -> None:
    from kc_tui.ui.table.parts import fit_message
    from kc_tui.ui.widgets import TableView

    async with fake_lobby() as lobby, online(lobby) as (app, pilot, _screen):
        await lobby.push(ls.StartMsg("tableONE", 0, f"{lobby.base}/t/tableONE/seat/tok"))
        remote = await wait_for(
            pilot, lambda: app.screen if isinstance(app.screen, RemoteScreen) and app.screen.is_mounted else None
        )
        await wait_for(pilot, lambda: remote.query(TableView) and remote.query("#message"))
        await remote.query_one(TableView).remove()
        assert remote.query("#message") and fit_message(remote) == 0
