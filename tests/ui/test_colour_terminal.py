"""The terminal's own palette: the themes ``ansi-dark`` and ``ansi-light`` offered in the settings
and the command palette, a change of theme reaching the cards at once, and animations off with
``TEXTUAL_ANIMATIONS=none`` (Textual's reading of it kept)."""

from __future__ import annotations

import pytest
import textual.constants
from textual.widgets import Select

from kc_tui.config import THEMES, Config
from kc_tui.ui.widgets import HandView

from .conftest import wait_for
from .gamekit import SettingsHost, play_app, settle
from .visionkit import is_named, labels_in, screen_cells

ANSI_THEMES = ("ansi-dark", "ansi-light")


async def test_the_terminals_themes_are_offered_in_the_settings_and_the_palette() -> None:
    assert set(ANSI_THEMES) <= set(THEMES)
    app = SettingsHost(Config())
    async with app.run_test(size=(100, 40)) as pilot:
        select = await wait_for(pilot, lambda: next(iter(app.screen.query("#theme").results(Select)), None))
        offered = {value for _label, value in select._options}
        assert set(ANSI_THEMES) <= offered
        assert set(ANSI_THEMES) <= set(app.available_themes)  # the command palette's list of themes
        assert all(app.get_theme(name).ansi for name in ANSI_THEMES)  # type: ignore[union-attr]


async def test_a_change_to_the_terminals_colours_reaches_the_cards_at_once() -> None:
    app = play_app()
    async with app.run_test(size=(80, 24)) as pilot:
        game = await settle(pilot)
        hand = game.query_one(HandView)

        def hand_inks_named() -> bool:
            labels = labels_in(screen_cells(app), [hand.region])
            return bool(labels) and all(is_named(lb.cell.fg) and is_named(lb.cell.bg) for lb in labels)

        assert not hand_inks_named()
        app.theme = "ansi-light"
        await wait_for(pilot, hand_inks_named, what="the hand in the terminal's named colours")
        app.theme = "textual-dark"
        await wait_for(pilot, lambda: not hand_inks_named(), what="the hand in its own colours again")


async def test_textual_animations_none_turns_the_apps_animations_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(textual.constants, "TEXTUAL_ANIMATIONS", "none")
    app = play_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.animation_level == "none"
