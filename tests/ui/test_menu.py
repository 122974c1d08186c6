"""The main menu shows each button's key, and only the keys that apply."""

from __future__ import annotations

from typing import Any

from kc_tui.match.session import MatchSession
from kc_tui.ui.screens.menu import MenuScreen

from .conftest import wait_for
from .gamekit import make_config, play_app, screen_text


async def footer_drawn(pilot: Any, words: str) -> str:
    """The screen's text once the footer shows ``words`` (a loaded machine draws it late)."""
    await wait_for(pilot, lambda: words in " ".join(screen_text(pilot.app).split()))
    return screen_text(pilot.app)


async def test_menu_buttons_show_their_keys_and_resume_only_with_a_save() -> None:
    app = play_app(mode="menu")
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.pause(0.2)
        assert isinstance(app.screen, MenuScreen)
        text = await footer_drawn(pilot, "n New game")
        for label in (
            "New game  (n)",
            "Watch a demo  (d)",
            "Join a table  (j)",
            "Settings  (s)",
            "Rules  (r)",
            "Quit  (q)",
        ):
            assert label in text
        assert "n New game" in " ".join(text.split()), "the footer shows the menu's keys"
        assert "Resume" not in text, "no save: neither the button nor the footer offers Resume"


async def test_menu_offers_resume_when_a_match_is_saved() -> None:
    MatchSession.from_config(make_config(), 5).save()
    app = play_app(mode="menu")
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.pause(0.2)
        text = await footer_drawn(pilot, "n New game")
        assert "Resume match  (c)" in text
        assert "c Resume" in " ".join(text.split())
