"""The footer at 80x24 in every language: the menu's (with a saved match and without), the
table's and the demo's show the keys to quit, to read the rules, to see the keys and to go back
to the menu, each whole; a key is left out only when all of them cannot fit on the line. The
descriptions are short enough that the keys a player looks for there fit too: the table's hint,
the menu's settings beside a saved match, the demo's way back."""

from __future__ import annotations

from typing import Any

import pytest
from textual.app import App

from kc_tui.i18n import _, use
from kc_tui.match.session import MatchSession
from kc_tui.ui.widgets.footer import ESSENTIAL, kept
from tests.i18n.layoutkit import LANGUAGES, SMALL, footer_ready, footer_whole
from tests.ui.fitkit import visible_footer
from tests.ui.gamekit import make_config, menu_app, play_app, settle


def demo_app() -> App[Any]:
    """The app the command line starts for a paused demo (``kings-corners demo``)."""
    from kc_tui.cli import build_parser
    from kc_tui.ui.launch import build_app

    args = build_parser().parse_args(["demo", "--seats", "greedy,king-aware", "--seed", "7", "--pace", "normal"])
    app = build_app("demo", args)
    assert isinstance(app, App)
    return app


#: The keys each screen's footer must show at 80x24 (their actions): the essential ones and those
#: a player looks for there.
MENU = {"app.quit", "app.rules"}
MENU_SAVED = MENU | {"resume", "app.settings"}
TABLE = {"quit", "rules", "help", "menu", "hint"}
DEMO = {"rules", "leave"}


def left_out(app: App[Any]) -> tuple[set[str], set[str], bool]:
    """The footer's keys' actions: those it shows, those it leaves out, and whether all of them
    would have fit on its line."""
    footer = visible_footer(app)
    every = footer.shown_keys()
    shown = {spot.action for spot in footer.spots()}
    margin = footer.get_component_styles("footer-key").margin.right
    room = footer.size.width - sum(spot.region.width + margin for spot in footer.spots() if spot.palette)
    widths = [footer._key_width(key, palette=False) for key in every if key[0].show]
    fits = sum(widths) + margin * (len(widths) - 1) <= room
    return shown, {key[0].action for key in every} - shown, fits


@pytest.mark.parametrize("saved", [False, True], ids=["no save", "a saved match"])
@pytest.mark.parametrize("code", ["en", *LANGUAGES])
async def test_the_menus_footer_shows_quit_and_the_rules_at_80x24(code: str, saved: bool) -> None:
    if saved:
        MatchSession.from_config(make_config(), 5).save()
    use(code)
    app = menu_app()
    async with app.run_test(size=SMALL) as pilot:
        await footer_ready(pilot)
        footer_whole(app)
        shown, out, fits = left_out(app)
        assert shown >= (MENU_SAVED if saved else MENU), (shown, out)
        assert ("resume" in shown) == saved
        assert not out or not fits, out
        descriptions = {spot.description for spot in visible_footer(app).spots()}
        assert {_("Quit"), _("Rules")} <= descriptions, descriptions


@pytest.mark.parametrize("code", ["en", *LANGUAGES])
async def test_the_tables_footer_shows_quit_rules_keys_and_menu_at_80x24(code: str) -> None:
    use(code)
    app = play_app(config=make_config())
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await footer_ready(pilot)
        footer_whole(app)
        shown, out, fits = left_out(app)
        assert shown >= TABLE, (shown, out)
        assert not out or not fits, out
        descriptions = {spot.description for spot in visible_footer(app).spots()}
        assert {_("Quit"), _("Rules"), _("Keys"), _("Menu")} <= descriptions, descriptions


@pytest.mark.parametrize("code", ["en", *LANGUAGES])
async def test_the_demos_footer_shows_the_way_back_at_80x24(code: str) -> None:
    use(code)
    app = demo_app()
    async with app.run_test(size=SMALL) as pilot:
        await footer_ready(pilot)
        footer_whole(app)
        shown, out, _fits = left_out(app)
        assert shown >= DEMO, (shown, out)
        descriptions = {spot.description for spot in visible_footer(app).spots()}
        assert {_("Rules"), _("Back")} <= descriptions, descriptions


def test_the_essential_keys_are_kept_first_and_the_others_in_their_order() -> None:
    # Five keys of 10 cells and one cell between: 54 cells hold all, 40 three.
    assert kept([10] * 5, [False] * 5, 54, 1) == [0, 1, 2, 3, 4]
    assert kept([10] * 5, [False, False, False, True, True], 40, 1) == [0, 3, 4]
    assert kept([10, 30, 5, 10], [False, False, False, True], 28, 1) == [0, 2, 3]
    assert {"quit", "app.quit", "rules", "app.rules"} <= ESSENTIAL
