"""The footer: one widget that shows its screen's keys on one line, presses a key clicked, and
follows the keys as they change."""

from __future__ import annotations

import gettext
from typing import Any, ClassVar

import pytest
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.pilot import Pilot
from textual.screen import Screen

from kc_tui import i18n
from kc_tui.ui.screens.menu import MenuScreen
from kc_tui.ui.screens.rules import RulesScreen
from kc_tui.ui.widgets.footer import Footer, FooterSpot

from .conftest import wait_for
from .fitkit import assert_footer_whole, screen_lines
from .gamekit import SettingsHost, make_config, play_app, settle

SIZE = (100, 30)
SMALL = (80, 24)


class KeysScreen(Screen[None]):
    """A screen of a few keys: one with a tooltip, one always disabled, one shown on demand."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "add", "Add", tooltip="Adds one"),
        Binding("b", "blocked", "Blocked"),
        Binding("x", "extra", "Extra", tooltip="Shown on demand"),
        Binding("z", "add", "Add again"),  # a second key of the same action: not shown
    ]

    def __init__(self) -> None:
        super().__init__()
        self.added = 0
        self.blocked = 0
        self.extra = False

    def compose(self) -> ComposeResult:
        yield Footer(compact=True, show_command_palette=False)

    def action_add(self) -> None:
        self.added += 1

    def action_blocked(self) -> None:
        self.blocked += 1

    def action_extra(self) -> None:
        pass

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "blocked":
            return None  # shown, disabled
        if action == "extra":
            return self.extra  # hidden unless asked for
        return True


class KeysApp(App[None]):
    def on_mount(self) -> None:
        self.push_screen(KeysScreen())


def footer_of(app: App[Any]) -> Footer:
    return app.screen.query_one(Footer)


def spot(app: App[Any], description: str) -> FooterSpot:
    return next(k for k in footer_of(app).spots() if k.description == description)


async def click_spot(pilot: Pilot[Any], key: FooterSpot) -> None:
    await pilot.click(offset=(key.region.x + key.region.width // 2, key.region.y))


async def keys_up(pilot: Pilot[Any]) -> KeysScreen:
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, KeysScreen) and bool(footer_of(pilot.app).spots()))
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, KeysScreen)
    return screen


def footer_line(app: App[Any]) -> str:
    return screen_lines(app, footer_of(app))[0]


async def test_the_footer_is_one_widget_with_no_children() -> None:
    app = play_app()
    async with app.run_test(size=SIZE) as pilot:
        game = await settle(pilot)
        footer = game.query_one(Footer)
        assert not footer.children and not list(footer.walk_children())
        keys = footer.spots()
        assert [k.description for k in keys[:3]] == ["Card", "Pile", "End turn"]
        line = footer_line(app)
        for k in keys:
            assert footer.region.contains_region(k.region)
            assert line[k.region.x : k.region.right] == f"{k.key_display} {k.description}"


async def test_clicking_hint_shows_a_hint() -> None:
    app = play_app()
    async with app.run_test(size=SIZE) as pilot:
        game = await settle(pilot)
        assert game.hint_move is None
        await click_spot(pilot, spot(app, "Hint"))
        await wait_for(pilot, lambda: game.hint_move is not None)


async def test_clicking_a_menu_key_runs_its_action() -> None:
    app = play_app(mode="menu")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, MenuScreen) and bool(footer_of(app).spots()))
        await click_spot(pilot, spot(app, "Rules"))
        await wait_for(pilot, lambda: isinstance(app.screen, RulesScreen))


async def test_a_click_presses_the_key_and_a_disabled_key_only_rings(monkeypatch: pytest.MonkeyPatch) -> None:
    app = KeysApp()
    async with app.run_test(size=(60, 10)) as pilot:
        screen = await keys_up(pilot)
        bells: list[None] = []
        monkeypatch.setattr(app, "bell", lambda: bells.append(None))
        assert [(k.description, k.disabled) for k in footer_of(app).spots()] == [("Add", False), ("Blocked", True)]
        await click_spot(pilot, spot(app, "Add"))
        await wait_for(pilot, lambda: screen.added == 1)
        assert not bells
        await click_spot(pilot, spot(app, "Blocked"))
        await pilot.pause()
        await pilot.pause()
        assert screen.blocked == 0 and screen.added == 1
        assert len(bells) == 1
        # A click between the keys presses none.
        add = spot(app, "Add")
        await pilot.click(offset=(add.region.right, add.region.y))
        await pilot.pause()
        assert screen.added == 1 and len(bells) == 1


async def test_the_keys_follow_the_bindings() -> None:
    app = KeysApp()
    async with app.run_test(size=(60, 10)) as pilot:
        screen = await keys_up(pilot)
        assert "Extra" not in footer_line(app)
        screen.extra = True
        screen.refresh_bindings()
        await wait_for(pilot, lambda: "x Extra" in footer_line(app))
        assert [k.description for k in footer_of(app).spots()] == ["Add", "Blocked", "Extra"]
        screen.extra = False
        screen.refresh_bindings()
        await wait_for(pilot, lambda: "Extra" not in footer_line(app))
        assert [k.description for k in footer_of(app).spots()] == ["Add", "Blocked"]


async def test_hovering_a_key_highlights_it_and_shows_its_tooltip() -> None:
    app = KeysApp()
    async with app.run_test(size=(60, 10)) as pilot:
        screen = await keys_up(pilot)
        footer = footer_of(app)

        def background(x: int) -> object:
            strip = app.screen._compositor.render_strips()[footer.region.y]
            style = next(iter(strip.crop(x, x + 1))).style
            return None if style is None else style.bgcolor

        add, blocked = footer.spots()
        plain = background(add.region.x)
        await pilot.hover(offset=(add.region.x, add.region.y))
        await pilot.pause()
        assert background(add.region.x) != plain
        assert background(blocked.region.x) == plain
        assert footer.tooltip == "Adds one"
        await pilot.hover(offset=(blocked.region.x + 1, blocked.region.y))
        await pilot.pause()
        assert background(add.region.x) == plain and background(blocked.region.x) != plain
        assert footer.tooltip is None  # its binding has none
        screen.extra = True
        screen.refresh_bindings()
        await wait_for(pilot, lambda: len(footer.spots()) == 3)
        extra = footer.spots()[2]
        await pilot.hover(offset=(extra.region.x, extra.region.y))
        await pilot.pause()
        assert footer.tooltip == "Shown on demand"


@pytest.mark.parametrize("host", ["menu", "settings"])
async def test_the_palette_key_is_at_the_right_end(host: str) -> None:
    app: App[Any] = play_app(mode="menu") if host == "menu" else SettingsHost(make_config())
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, MenuScreen) or host == "settings")
        await wait_for(pilot, lambda: bool(app.screen.query(Footer)) and bool(footer_of(app).spots()))
        await pilot.pause()
        footer = footer_of(app)
        palette = footer.spots()[-1]
        assert palette.palette and palette.description == "palette"
        margin = 1 if footer.compact else 0  # a compact key has a cell after it
        assert palette.region.right == SIZE[0] - margin
        assert footer_line(app).rstrip().endswith("▏^p palette")
        assert all(k.region.right <= palette.region.x for k in footer.spots()[:-1])


async def test_every_key_is_whole_at_80x24() -> None:
    app = play_app()
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        assert_footer_whole(app, "Card", "Pile", "End turn", "Hint", "Rules", "Keys", "Menu", "Quit")
    app = play_app(mode="menu")
    async with app.run_test(size=SMALL) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, MenuScreen) and bool(footer_of(app).spots()))
        await pilot.pause()
        assert_footer_whole(app, "New game", "Stats", "Settings", "Rules", "Quit", "palette")


async def test_keys_wider_than_the_line_are_left_out_never_cut() -> None:
    app = play_app(mode="menu")
    async with app.run_test(size=(40, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, MenuScreen) and bool(footer_of(app).spots()))
        await pilot.pause()
        keys = footer_of(app).spots()
        assert keys[-1].palette, "the palette's key stays at the right end"
        assert 0 < len(keys) - 1 < len(footer_of(app).shown_keys()) - 1, "some keys are left out"
        assert_footer_whole(app)
        line = footer_line(app)
        for k in keys:
            assert line[k.region.x : k.region.right].endswith(k.description)
        shown = {k.description for k in keys}
        assert not any(word in line for word in ("Settings", "Rules", "Quit") if word not in shown)


class Words(gettext.NullTranslations):
    """A language of a few words, for the footer to speak."""

    WORDS: ClassVar[dict[str, str]] = {"Add": "Aggiungi", "Blocked": "Bloccato"}

    def gettext(self, message: str) -> str:
        return self.WORDS.get(message, message)


async def test_the_keys_are_drawn_in_the_language_in_use(monkeypatch: pytest.MonkeyPatch) -> None:
    app = KeysApp()
    async with app.run_test(size=(60, 10)) as pilot:
        await keys_up(pilot)
        assert [k.description for k in footer_of(app).spots()] == ["Add", "Blocked"]
        monkeypatch.setattr(i18n, "_current", Words())
        monkeypatch.setattr(i18n, "_code", "it")
        footer_of(app).language_changed()
        await wait_for(pilot, lambda: "a Aggiungi" in footer_line(app))
        assert [k.description for k in footer_of(app).spots()] == ["Aggiungi", "Bloccato"]
        assert "b Bloccato" in footer_line(app)
