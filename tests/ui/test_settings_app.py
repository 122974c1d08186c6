"""Settings in the real app: changed on the settings screen, they survive a restart and shape
the next game; a corrupt settings file is reported and never stops the app; the rules screen
opens from the game and returns."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.command import CommandPalette
from textual.widgets import Select
from textual.widgets._toast import Toast

from kc_tui.config import Config
from kc_tui.config.store import config_path, load_config
from kc_tui.ui.screens.game import GameScreen
from kc_tui.ui.screens.menu import MenuScreen
from kc_tui.ui.screens.rules import RulesScreen
from kc_tui.ui.screens.settings import SettingsScreen

from .conftest import wait_for
from .gamekit import highlighted_command, new_app, new_game, open_settings, screen_text, set_input

SIZE = (110, 36)
#: A settings file that does not parse.
CORRUPT = "player_name = [unclosed\n"


async def test_settings_persist_across_a_restart_and_shape_the_next_game() -> None:
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, MenuScreen))
        screen = await open_settings(pilot)
        screen.query_one("#opp-kind-0", Select).value = "lookahead"
        screen.query_one("#opp-kind-1", Select).value = "expert"
        await set_input(pilot, screen, "opp-think-1", "100")
        await set_input(pilot, screen, "target", "25")
        screen.query_one("#draw", Select).value = "end"
        screen.query_one("#card_style", Select).value = "ascii"
        await pilot.pause()
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, MenuScreen))
        assert app.config.target == 25
    assert config_path().is_file()

    # A restart: a new app reads the saved file.
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, MenuScreen))
        cfg = app.config
        assert [o.kind for o in cfg.opponents] == ["lookahead", "expert"]
        assert cfg.opponents[1].think_ms == 100
        assert cfg.target == 25 and cfg.rules.draw == "end" and cfg.card_style == "ascii"
        await new_game(pilot)
        game: GameScreen = app.game
        session = game.session
        assert [s.kind for s in session.seats] == ["human", "lookahead", "expert"]
        assert session.match.rules.target == 25 and session.match.rules.draw == "end"
        assert game.look.style == "ascii"
        assert session.human_seat is not None
        hand = session.hand(session.human_seat)
        assert hand, "the human holds cards"
        from kc_tui.engine import card_str

        # A covered card shows only its left edge, so some labels may be cut: one whole will do.
        await wait_for(
            pilot, lambda: any(card_str(c) in screen_text(app) for c in hand), what="the hand drawn in ASCII"
        )
        text = screen_text(app)
        assert "target 25" in text
        assert not any(sym in text for sym in "♠♡♢♣♥♦"), "no suit symbols in the ASCII style"


def apps_own_file(monkeypatch: Any, tmp_path: Any) -> None:
    """The settings at the app's own path (the default, in ``tmp_path``), not one named by the user."""
    import platformdirs

    monkeypatch.delenv("KINGS_CORNERS_CONFIG", raising=False)
    monkeypatch.setattr(platformdirs, "user_config_dir", lambda *args, **kwargs: str(tmp_path / "config"))


def corrupt_own_file(monkeypatch: Any, tmp_path: Any) -> Path:
    """The app's own settings file (:func:`apps_own_file`) holding TOML that does not parse: its path."""
    apps_own_file(monkeypatch, tmp_path)
    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(CORRUPT, encoding="utf-8")
    return path


async def test_a_corrupt_settings_file_is_reported_and_the_defaults_are_used(monkeypatch: Any, tmp_path: Any) -> None:
    path = corrupt_own_file(monkeypatch, tmp_path)
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, MenuScreen))
        await wait_for(pilot, lambda: any("is invalid" in n.message for n in app._notifications))
        assert app.config == Config()
        warnings = [n.message for n in app._notifications]
        assert any("is invalid" in w and "using defaults" in w and ".bak" in w for w in warnings), warnings
        # The app works: the settings screen opens with the defaults and saves a good file.
        await open_settings(pilot)
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, MenuScreen))
    backup = path.with_name(path.name + ".bak")
    assert backup.read_text(encoding="utf-8") == CORRUPT
    assert load_config() == (Config(), None)


def toast_text(app: Any) -> str:
    """The words of the toasts drawn on the screen (each with a place on it), in one line: a
    toast's lines joined, whatever the screen shows beside them."""
    shown = [str(toast.render()) for toast in app.screen.query(Toast) if toast.region.area]
    return " ".join(" ".join(shown).split())


async def test_the_corrupt_settings_warning_is_on_screen_at_start(monkeypatch: Any, tmp_path: Any) -> None:
    corrupt_own_file(monkeypatch, tmp_path)
    app = new_app()
    # run_test hides toasts unless asked: this test is about what the player sees.
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, MenuScreen))
        # Wait for the toast to be drawn (a loaded machine can take a moment), then read it.
        await wait_for(pilot, lambda: "is invalid" in toast_text(app))
        assert "using defaults" in toast_text(app)


async def test_a_config_option_points_at_another_file(tmp_path: Any) -> None:
    other = tmp_path / "other.toml"
    other.write_text('player_name = "Mo"\n[rules]\ntarget = 30\n', encoding="utf-8")
    app = new_app("--config", str(other))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, MenuScreen))
        assert app.config.player_name == "Mo" and app.config.target == 30
        await open_settings(pilot)
        await set_input(pilot, app.screen, "target", "40")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, MenuScreen))
    assert load_config(other)[0].target == 40
    assert not config_path().exists(), "the default file is left alone"


async def test_the_rules_screen_opens_from_the_game_and_returns() -> None:
    app = new_app("play", "--seed", "3", "--opponents", "greedy")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.game is not None and app.screen is app.game)
        game = app.game
        before = game.session.stamp
        await pilot.press("r")
        await wait_for(pilot, lambda: isinstance(app.screen, RulesScreen))
        assert "✓ active" in app.screen.document
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is game)
        assert game.session.stamp[:2] == before[:2]


async def test_the_command_palette_opens_settings() -> None:
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, MenuScreen))
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.press(*"settings")
        await wait_for(pilot, lambda: "Settings" in highlighted_command(app))
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, SettingsScreen))
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, MenuScreen))


async def test_a_random_opponent_chosen_in_settings_plays_the_next_game() -> None:
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, MenuScreen))
        screen = await open_settings(pilot)
        screen.query_one("#opponent-count", Select).value = 1
        screen.query_one("#opp-kind-0", Select).value = "random"
        screen.query_one("#pace", Select).value = "instant"
        await pilot.pause()
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, MenuScreen))
        assert [(o.name, o.kind) for o in app.config.opponents] == [("Rando", "random")]
        assert load_config()[0] == app.config
        await new_game(pilot)
        game: GameScreen = app.game
        session = game.session
        assert [s.kind for s in session.seats] == ["human", "random"]
        # The human ends a turn: the random opponent takes its turn and it is the human's again.
        await wait_for(pilot, lambda: session.human_to_move and not game.busy)
        before = session.stamp
        logged = len(session.log)
        game.action_end_turn()
        await wait_for(pilot, lambda: session.stamp[1] != before[1] or (session.human_to_move and not game.busy))
        if session.stamp[1] == before[1]:
            assert session.stamp[2] >= before[2] + 2, "the human's end and at least the opponent's end"
        assert any("Rando" in line for line in session.log[logged:]), session.log[logged:]
