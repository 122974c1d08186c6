"""The demo set-up dialog and the command palette's menu commands."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Select, Static

from kc_tui.config import Config, Opponent
from kc_tui.ui.commands import MenuCommands
from kc_tui.ui.dialogs.demo_setup import EMPTY, DemoSetupDialog

from .conftest import wait_for
from .gamekit import highlighted_command


class Host(App[None]):
    def __init__(self, config: Config) -> None:
        super().__init__()
        self.config = config
        self.results: list[list[str] | None] = []

    def compose(self) -> ComposeResult:
        yield Static("under")

    def on_mount(self) -> None:
        self.push_screen(DemoSetupDialog(self.config), self.results.append)


async def test_dialog_starts_from_the_users_table_and_returns_the_seats() -> None:
    app = Host(Config(opponents=(Opponent("G", "greedy"),)))
    async with app.run_test(size=(80, 30)) as pilot:
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, DemoSetupDialog)
        assert dialog.seats() == ["greedy", "expert"]
        dialog.query_one("#seat-2", Select).value = "lookahead"
        await pilot.pause()
        await pilot.click("#start")
        await pilot.pause()
    assert app.results == [["greedy", "expert", "lookahead"]]


async def test_dialog_refuses_fewer_than_two_seats_and_cancels() -> None:
    app = Host(Config())
    async with app.run_test(size=(80, 30)) as pilot:
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, DemoSetupDialog)
        # Seats 1 and 2 always hold a player; empty seats 3 and 4 are left out.
        for i in (2, 3):
            dialog.query_one(f"#seat-{i}", Select).value = EMPTY
        assert len(dialog.seats()) == 2
        await pilot.press("escape")
        await pilot.pause()
    assert app.results == [None]


class MenuApp(App[None]):
    COMMANDS = App.COMMANDS | {MenuCommands}

    def __init__(self) -> None:
        super().__init__()
        self.ran: list[str] = []

    def action_new_game(self) -> None:
        self.ran.append("new_game")

    def action_settings(self) -> None:
        self.ran.append("settings")

    def action_rules(self) -> None:
        self.ran.append("rules")

    def action_demo(self) -> None:
        self.ran.append("demo")

    def action_resume(self) -> None:
        self.ran.append("resume")

    def can_resume(self) -> bool:
        return False


async def test_palette_offers_the_menu_actions() -> None:
    app = MenuApp()
    async with app.run_test(size=(80, 30)) as pilot:
        provider = MenuCommands(app.screen)
        titles = [hit.text or str(hit.prompt) async for hit in provider.discover()]
        assert titles == ["New game", "Watch a demo", "Settings", "Rules", "Quit"]  # no save: no Resume
        hits = [hit async for hit in provider.search("sett")]
        assert len(hits) == 1
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"watch a demo")
        await wait_for(pilot, lambda: "Watch a demo" in highlighted_command(app))
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.ran)
        assert app.ran == ["demo"]
