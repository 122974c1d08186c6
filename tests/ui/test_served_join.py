"""Join a table in a served tab, in ``App.run_test()`` with the app started as a tab's launcher
starts it (:func:`tests.web.servekit.served_tab_app`): without a list of tables from the
operator the menu's button, its ``j`` key and the palette's command are not offered and no route
connects; with a list, an address not on it is refused in the dialog (a listener on loopback sees
no connection), one on it is joined. A terminal's app (not served) offers Join as ever."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Button, Input, Static

from kc_tui.net.allowlist import Endpoint
from kc_tui.net.client import AddressError, RemoteSeat
from kc_tui.ui.app import JOIN_OFF, KingsCornersApp, StartOptions
from kc_tui.ui.commands import MenuCommands
from kc_tui.ui.remote.dialogs import JoinDialog
from kc_tui.ui.remote.screen import RemoteScreen
from kc_tui.ui.screens.menu import MenuScreen
from tests.web.servekit import Listener, listening, served_tab_app

from .conftest import wait_for
from .gamekit import make_config

SIZE = (80, 24)


def offers_join(app: KingsCornersApp) -> tuple[bool, bool, bool]:
    """Whether the menu's button is shown, the palette lists the command, and the key is bound."""
    assert isinstance(app.screen, MenuScreen)
    button = app.screen.query_one("#join", Button).display
    command = "Join a table" in [title for title, *_ in MenuCommands(app.screen)._commands()]
    key = any(b.binding.action == "app.join" for b in app.screen.active_bindings.values() if b.enabled)
    return button, command, key


def problem(app: KingsCornersApp) -> str:
    return str(app.screen.query_one("#problem", Static).render())


def says(app: KingsCornersApp, said: str) -> Callable[[], bool]:
    """Whether the dialog's problem line says ``said``."""
    return lambda: said in problem(app)


async def test_a_terminals_app_offers_join() -> None:
    app = KingsCornersApp(make_config(), None, "menu", StartOptions())
    async with app.run_test(size=SIZE):
        assert offers_join(app) == (True, True, True)


async def test_a_served_tab_without_a_list_offers_no_join_and_connects_nowhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with listening() as probed:
        with served_tab_app(tmp_path, monkeypatch) as app:
            async with app.run_test(size=SIZE) as pilot:
                assert offers_join(app) == (False, False, False)
                await pilot.press("j")
                assert not await app.run_action("join")  # what the palette's command would run
                app.action_join()  # called directly, it says why and asks nothing
                await wait_for(pilot, lambda: any(n.message == JOIN_OFF for n in app._notifications))
                assert not any(isinstance(s, JoinDialog) for s in app.screen_stack)
                # The dialog itself, were it reached, and the seat's connection refuse any address.
                app.push_screen(JoinDialog())
                await wait_for(pilot, lambda: isinstance(app.screen, JoinDialog))
                await join(pilot, app, probed.url())
                await wait_for(pilot, lambda: "has allowed none" in problem(app))
                with pytest.raises(AddressError):
                    RemoteSeat(probed.url())
        assert probed.accepted == []


async def join(pilot: Pilot[int], app: KingsCornersApp, url: str) -> None:
    """``url`` in the dialog's field (as pasted), then Enter."""
    await wait_for(pilot, lambda: isinstance(app.screen, JoinDialog) and bool(app.screen.query("#address")))
    app.screen.query_one("#problem", Static).update("")
    app.screen.query_one("#address", Input).value = url
    await pilot.press("enter")


async def test_a_served_tab_refuses_a_table_not_on_its_list_and_joins_one_on_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with listening() as allowed, listening() as probed:
        with served_tab_app(tmp_path, monkeypatch, [Endpoint("127.0.0.1", allowed.port)]) as app:
            async with app.run_test(size=SIZE) as pilot:
                assert offers_join(app) == (True, True, True)
                await pilot.press("j")
                await wait_for(pilot, lambda: isinstance(app.screen, JoinDialog))
                detail = str(app.screen.query_one("#detail", Static).render())
                assert f"This server joins only 127.0.0.1:{allowed.port}." in detail
                for url, said in refused(allowed, probed):
                    await join(pilot, app, url)
                    await wait_for(pilot, says(app, said), what=f"{url}: {said}")
                    assert isinstance(app.screen, JoinDialog)
                assert probed.accepted == [] and allowed.accepted == []
                await join(pilot, app, allowed.url())
                await wait_for(pilot, lambda: isinstance(app.screen, RemoteScreen))
                await wait_for(pilot, lambda: len(allowed.accepted) >= 1)
        assert probed.accepted == []


def refused(allowed: Listener, probed: Listener) -> list[tuple[str, str]]:
    """Addresses of the probed listener (or of the allowed one under another name), and what the
    dialog says of each."""
    not_listed = "is not on this server's list"
    return [
        (probed.url(), f"127.0.0.1:{probed.port} {not_listed}"),
        (f"ws://127.0.0.1:{allowed.port}@127.0.0.1:{probed.port}/watch", "has no '@'"),
        (probed.url(host="localhost"), not_listed),
        (allowed.url(host="localhost"), f"localhost:{allowed.port} {not_listed}"),
        (allowed.url(host="127.1"), not_listed),
        (allowed.url(host="[::ffff:127.0.0.1]"), not_listed),
    ]
