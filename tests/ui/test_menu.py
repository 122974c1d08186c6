"""The main menu shows each button's key, and only the keys that apply."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Button, Static
from textual.widgets._toast import Toast

from kc_tui.match.session import MatchSession
from kc_tui.ui.screens.menu import MenuScreen

from .conftest import wait_for
from .fitkit import on_screen
from .gamekit import demo_under_way, make_config, new_app, play_app, screen_text, settle, watch_a_demo


async def footer_drawn(pilot: Any, words: str) -> str:
    """The screen's text once the footer shows ``words`` (a loaded machine draws it late)."""
    await wait_for(pilot, lambda: words in " ".join(screen_text(pilot.app).split()))
    return screen_text(pilot.app)


async def test_menu_buttons_show_their_keys_and_resume_only_with_a_save() -> None:
    app = play_app(mode="menu")
    async with app.run_test(size=(100, 32)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, MenuScreen))
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
        await wait_for(pilot, lambda: isinstance(app.screen, MenuScreen))
        text = await footer_drawn(pilot, "n New game")
        assert "Resume match  (c)" in text
        assert "c Resume" in " ".join(text.split())


def assert_every_item_on_screen(app: Any) -> None:
    assert isinstance(app.screen, MenuScreen), f"the screen is {app.screen!r}"
    buttons = [b for b in app.screen.query(Button) if b.display]
    assert len(buttons) >= 7, [b.id for b in buttons]
    off = [f"{b.label} at {b.region}" for b in buttons if not on_screen(app, b)]
    assert not off, f"off the {app.size} screen: {off}"


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_every_menu_item_is_on_screen_after_leaving_a_demo(size: tuple[int, int]) -> None:
    app = play_app(mode="menu")
    async with app.run_test(size=size) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, MenuScreen))
        await watch_a_demo(pilot)
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, MenuScreen))
        await pilot.pause()
        assert_every_item_on_screen(app)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_every_menu_item_is_on_screen_after_a_demo_from_the_command_line(size: tuple[int, int]) -> None:
    app = new_app("demo", "--seats", "greedy,expert", "--seed", "7", "--pace", "fast")
    async with app.run_test(size=size) as pilot:
        await demo_under_way(pilot)
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, MenuScreen))
        await pilot.pause()
        assert_every_item_on_screen(app)


async def test_the_readme_lists_every_menu_item_in_order() -> None:
    MatchSession.from_config(make_config(), 5).save()  # Resume is offered too
    readme = " ".join((Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8").split())
    listed = readme[readme.index("opens the main menu (") :].split("(", 1)[1].split(")", 1)[0].split(", ")
    app = play_app(mode="menu")
    async with app.run_test(size=(100, 32)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, MenuScreen))
        await pilot.pause()
        items = [str(b.label).split("  (")[0] for b in app.screen.query(Button) if b.display]
        assert listed == items


async def test_toasts_leave_the_saved_match_in_view_at_80x24() -> None:
    app = play_app()
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        await pilot.press("m")
        await wait_for(pilot, lambda: isinstance(app.screen, MenuScreen))
        saved = app.screen.query_one("#saved", Static)
        await wait_for(pilot, lambda: "Saved match:" in str(saved.render()))
        app.notify("The game history has recorded every round that was waiting.", title="Game history")
        app.notify("The data folder's lock was left by a process that has ended: taken over.", title="Data folder")
        await wait_for(pilot, lambda: len(app.screen.query(Toast)) == 2)
        await pilot.pause()
        for toast in app.screen.query(Toast):
            assert not saved.region.overlaps(toast.region), (saved.region, toast.region)
