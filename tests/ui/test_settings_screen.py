"""The settings screen: every setting persists across a restart, bad input is refused on the spot."""

from __future__ import annotations

from pathlib import Path

from textual.app import App, ComposeResult
from textual.widgets import Input, Select, Static, Switch

from kc_tui.config import Config, Opponent, config_path, load_config, save_config
from kc_tui.engine import Rules
from kc_tui.ui.screens.settings import SettingsScreen

SIZE = (100, 40)


class Host(App[None]):
    """A bare app that opens the settings screen and records what it dismisses with."""

    def __init__(self, config: Config, path: Path | None = None) -> None:
        super().__init__()
        self.config = config
        self.path = path
        self.results: list[Config | None] = []

    def compose(self) -> ComposeResult:
        yield Static("host")

    def on_mount(self) -> None:
        self.push_screen(SettingsScreen(self.config, self.path), self.results.append)


async def type_into(pilot, app: App[None], wid: str, text: str) -> None:  # type: ignore[no-untyped-def]
    inp = app.screen.query_one(f"#{wid}", Input)
    inp.focus()
    await pilot.pause()
    inp.value = ""
    await pilot.press(*list(text))
    await pilot.pause()


def error_text(app: App[None]) -> str:
    return str(app.screen.query_one("#error", Static).render())


async def test_every_setting_persists_across_a_restart() -> None:
    app = Host(load_config()[0])
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, SettingsScreen)
        await type_into(pilot, app, "player-name", "Ada")
        screen.query_one("#opponent-count", Select).value = 3
        await pilot.pause()
        assert screen.query_one("#opponent-2").display
        screen.query_one("#opp-kind-0", Select).value = "lookahead"
        screen.query_one("#opp-kind-1", Select).value = "expert"
        screen.query_one("#opp-kind-2", Select).value = "king-aware"
        await type_into(pilot, app, "opp-name-2", "Zoe")
        await type_into(pilot, app, "opp-think-1", "2500")
        await type_into(pilot, app, "target", "25")
        # A rule variant chosen with the keyboard: open the list, go down one, pick.
        screen.query_one("#draw", Select).focus()
        await pilot.press("enter", "down", "enter")
        await pilot.pause()
        assert screen.query_one("#draw", Select).value == "end"
        screen.query_one("#kings_on_sides", Select).value = "forbid"
        screen.query_one("#card_style", Select).value = "ascii"
        screen.query_one("#four_colour", Switch).value = True
        screen.query_one("#pace", Select).value = "fast"
        screen.query_one("#theme", Select).value = "nord"
        await pilot.pause()
        assert "valid" in error_text(app)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert not isinstance(app.screen, SettingsScreen)
    saved = app.results[-1]
    assert saved is not None
    # A restart reads the same file back.
    loaded, warning = load_config()
    assert warning is None
    assert loaded == saved
    assert loaded.player_name == "Ada"
    assert [o.kind for o in loaded.opponents] == ["lookahead", "expert", "king-aware"]
    assert loaded.opponents[2].name == "Zoe"
    assert [o.name for o in loaded.opponents[:2]] == ["Lookout", "Ace"], "default names follow the kind"
    assert loaded.opponents[1].think_ms == 2500
    assert loaded.target == 25
    assert loaded.rules.draw == "end"
    assert loaded.rules.kings_on_sides == "forbid"
    assert loaded.card_style == "ascii"
    assert loaded.four_colour is True
    assert loaded.pace == "fast"
    assert loaded.theme == "nord"


async def test_target_presets_and_fewer_opponents() -> None:
    app = Host(Config())
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await pilot.click("#target-25")
        await pilot.pause()
        assert screen.query_one("#target", Input).value == "25"
        screen.query_one("#opponent-count", Select).value = 1
        await pilot.pause()
        assert not screen.query_one("#opponent-1").display
        await pilot.click("#save")
        await pilot.pause()
    saved = app.results[-1]
    assert saved is not None and saved.target == 25 and len(saved.opponents) == 1
    assert load_config()[0] == saved


async def test_chips_scoring_with_a_stake() -> None:
    app = Host(Config())
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert not screen.query_one("#chips-row").display
        screen.query_one("#scoring", Select).value = "chips"
        await pilot.pause()
        assert screen.query_one("#chips-row").display
        await type_into(pilot, app, "chips_start", "80")
        await pilot.press("ctrl+s")
        await pilot.pause()
    saved = load_config()[0]
    assert saved.rules.scoring == "chips" and saved.rules.chips_start == 80


async def test_bad_input_is_refused_with_a_message_and_never_saved() -> None:
    app = Host(Config())
    path = config_path()
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await type_into(pilot, app, "target", "999")
        assert "from 5 to 500" in error_text(app)
        assert screen.query_one("#target", Input).has_class("-invalid")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, SettingsScreen), "a bad value must not close the screen"
        assert not path.exists(), "a bad value must never be saved"
        assert app.screen.focused is screen.query_one("#target", Input)

        await type_into(pilot, app, "target", "4")
        assert "from 5 to 500" in error_text(app)
        await type_into(pilot, app, "target", "x1")
        assert "whole number" in error_text(app)
        await type_into(pilot, app, "target", "30")
        assert "valid" in error_text(app)

        await type_into(pilot, app, "player-name", "   ")
        assert "your name cannot be empty" in error_text(app).lower()
        await type_into(pilot, app, "player-name", "Greedy")
        assert "share the name" in error_text(app)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert not path.exists()

        await type_into(pilot, app, "player-name", "Bo")
        screen.query_one("#opp-kind-0", Select).value = "expert"  # a kind that takes a think time
        await pilot.pause()
        await type_into(pilot, app, "opp-think-0", "5")
        assert "think time" in error_text(app)
        await type_into(pilot, app, "opp-think-0", "300")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert path.exists()
    assert app.results[-1] is not None and app.results[-1].target == 30


async def test_cancel_keeps_the_old_settings_and_theme() -> None:
    before = Config(player_name="Kim")
    save_config(before)
    app = Host(before)
    async with app.run_test(size=SIZE) as pilot:
        theme = app.theme
        await type_into(pilot, app, "player-name", "Changed")
        app.screen.query_one("#theme", Select).value = "dracula"
        await pilot.pause()
        assert app.theme == "dracula"  # previewed
        await pilot.press("escape")
        await pilot.pause()
        assert app.theme == theme
    assert app.results == [None]
    assert load_config()[0] == before


async def test_defaults_button_resets_the_fields() -> None:
    custom = Config(
        player_name="Lee",
        opponents=(Opponent("Ex", "expert", 3000),),
        rules=Rules(target=100, draw="when_stuck"),
        pace="slow",
    )
    app = Host(custom)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f5")
        await pilot.pause()
        await pilot.press("ctrl+s")
        await pilot.pause()
    assert app.results[-1] == Config()


async def test_a_save_that_fails_is_reported(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    app = Host(Config(), blocker / "settings.toml")  # its folder is a file: cannot write
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, SettingsScreen)
        assert "Could not save" in error_text(app)
    assert app.results == []
