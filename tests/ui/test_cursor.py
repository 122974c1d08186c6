"""The terminal's cursor where a reader looks (``App.cursor_position``, where Textual puts the
cursor at the end of each frame): on the label of the card picked in the hand, on the top card
of the pile picked, else on the first card of the hand in sight; on the focused button of the
menu and of a dialog, in an input at its own cursor. At the game, a remote seat and a lesson."""

from __future__ import annotations

from typing import Any

import pytest
from textual.geometry import Offset
from textual.widgets import Button, Input, OptionList, Select

from kc_tui.learn.lessons import LESSONS
from kc_tui.net.server import seat_path
from kc_tui.ui.dialogs.confirm import QuitDialog
from kc_tui.ui.screens.menu import MenuScreen
from kc_tui.ui.table.picking import HandPicking
from kc_tui.ui.widgets import HandView, PileView
from kc_tui.ui.widgets.pile import PLACE_KEYS

from .conftest import wait_for
from .gamekit import joined, menu_app, open_settings, play_app, settle, stage, table_app
from .test_remote import ana_on_turn, table
from .tutorialkit import at_lesson, tutorial_app

SIZES = [(80, 24), (160, 50)]


def under_cursor(app: Any, length: int) -> tuple[Any, str]:
    """The widget under the app's cursor and the ``length`` letters it shows from there."""
    spot = app.cursor_position
    widget, _region = app.screen.get_widget_at(*spot)
    content = widget.content_region
    line = widget.render_line(spot.y - content.y).text
    return widget, line[spot.x - content.x :][:length]


def label_spot(screen: HandPicking, index: int) -> Offset:
    """Where card ``index`` of the hand shows its label: inside its left edge, on its second line."""
    region = screen.query_one(HandView).shown()[index].region
    return Offset(region.x + 1, region.y + 1)


def on_card(app: Any, screen: HandPicking, index: int) -> None:
    """The cursor stands on the label of card ``index`` of ``screen``'s hand."""
    hand = screen.query_one(HandView)
    card = hand.shown()[index].card
    label = screen.look.label(card)
    assert app.cursor_position == label_spot(screen, index)
    assert under_cursor(app, len(label)) == (hand.row, label)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_the_cursor_stands_on_the_card_picked_by_its_key_or_the_arrows(size: tuple[int, int]) -> None:
    app = play_app()
    async with app.run_test(size=size) as pilot:
        game = await settle(pilot)
        n = len(game.query_one(HandView).cards)
        await pilot.press("2")
        assert game.selected_card == game.query_one(HandView).cards[1]
        on_card(app, game, 1)
        await pilot.press("right")
        on_card(app, game, 2)
        await pilot.press("left", "left", "left")
        on_card(app, game, n - 1)  # round the hand to its last card


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_the_cursor_stands_on_the_top_card_of_the_pile_picked(size: tuple[int, int]) -> None:
    app = play_app()
    async with app.run_test(size=size) as pilot:
        game = await settle(pilot)
        pile = next(p for p in game.query(PileView) if p.pile and game.why_not_pick_up(p.place) is None)
        await pilot.press(PLACE_KEYS[pile.place])
        assert game.source_pile == pile.place
        label = game.look.label(pile.pile[-1])
        assert pile.content_region.contains_point(app.cursor_position)
        assert under_cursor(app, len(label)) == (pile, label)
        await pilot.press("escape")  # let go: back on the hand
        on_card(app, game, 0)


async def test_with_nothing_picked_the_cursor_is_on_the_first_card_and_after_the_turn_passes() -> None:
    app = play_app()
    async with app.run_test(size=(80, 24)) as pilot:
        game = await settle(pilot)
        on_card(app, game, 0)
        hand = list(game.query_one(HandView).cards)
        await pilot.press("3", "escape")
        on_card(app, game, 0)
        told = len(game.session.log)
        await pilot.press("t")  # the turn passes to the AIs and comes back
        await wait_for(pilot, lambda: len(game.session.log) > told, what="the turn passed")
        game = await settle(pilot)
        assert game.query_one(HandView).cards != hand  # a card drawn at the turn's end
        on_card(app, game, 0)
        await pilot.press("1")
        on_card(app, game, 0)


async def test_in_a_hand_of_overlapped_cards_the_cursor_is_on_the_label_in_sight() -> None:
    app = table_app(1, "points")
    async with app.run_test(size=(80, 24)) as pilot:
        game = await stage(pilot)
        hand = game.query_one(HandView)
        assert hand.shown()[4].covered
        await pilot.press("5")
        on_card(app, game, 4)
        await pilot.press("escape", "left")  # the last card, whole
        on_card(app, game, len(hand.cards) - 1)


async def test_at_a_remote_seat_the_cursor_stands_on_the_card_picked() -> None:
    async with table() as (server, base, ben), joined(base + seat_path(server.tokens[0])) as (app, pilot, screen):
        await ana_on_turn(pilot, screen, server, ben)
        await pilot.press("1")
        await wait_for(pilot, lambda: screen.selected_card is not None, what="a card picked")
        on_card(app, screen, 0)
        await pilot.press("right")
        on_card(app, screen, 1)


async def test_in_a_lesson_the_cursor_stands_on_the_card_picked() -> None:
    app = tutorial_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await at_lesson(pilot, LESSONS[0])
        await pilot.press("1")
        on_card(app, screen, 0)


async def test_on_the_menu_the_cursor_stands_on_the_focused_buttons_label() -> None:
    app = menu_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, MenuScreen), what="the menu")
        for _ in range(2):
            button = app.screen.focused
            assert isinstance(button, Button)
            words = str(button.label).strip()
            assert under_cursor(app, len(words)) == (button, words)
            await pilot.press("tab")


async def test_on_a_dialog_over_the_table_the_cursor_stands_on_its_focused_button() -> None:
    app = play_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("1", "ctrl+q")  # a card picked under the dialog
        await wait_for(pilot, lambda: isinstance(app.screen, QuitDialog), what="the quit dialog")
        for _ in range(2):
            button = app.screen.focused
            assert isinstance(button, Button)
            words = str(button.label).strip()
            assert under_cursor(app, len(words)) == (button, words)
            await pilot.press("tab")


async def test_in_an_input_the_cursor_is_the_inputs_own() -> None:
    app = menu_app()
    async with app.run_test(size=(80, 24)) as pilot:
        settings = await open_settings(pilot)
        field = settings.focused
        assert isinstance(field, Input)
        assert app.cursor_position == field.cursor_screen_offset
        await pilot.press("end", "x")
        assert app.cursor_position == field.cursor_screen_offset
        assert under_cursor(app, 1)[0] is field


async def test_in_an_open_list_the_cursor_stands_on_the_highlighted_choice() -> None:
    app = menu_app()
    async with app.run_test(size=(80, 24)) as pilot:
        settings = await open_settings(pilot)
        pace = settings.query_one("#pace", Select)
        pace.focus()
        await pilot.press("enter")
        await wait_for(pilot, lambda: pace.expanded, what="the list open")
        for _ in range(2):
            choices = app.screen.focused
            assert isinstance(choices, OptionList) and choices.highlighted_option is not None
            words = str(choices.highlighted_option.prompt).strip()
            assert under_cursor(app, len(words)) == (choices, words)
            await pilot.press("down")
