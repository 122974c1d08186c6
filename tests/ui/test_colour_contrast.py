"""The contrast of the cards as the app draws them, measured on the screen (WCAG 2's ratio), for
every theme the settings offer and every card style: red and black at least 4.5:1 apart, each
suit's ink at least 4.5:1 against the face it is drawn on (3:1 on the picked card's highlight).
Under a theme of the terminal's own colours every colour of a card is one of its named colours."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import pytest
from textual.geometry import Region
from textual.pilot import Pilot

from kc_tui.config import THEMES
from kc_tui.ui.cards import CardLook
from kc_tui.ui.screens.game import GameScreen
from kc_tui.ui.widgets import HandView

from .conftest import wait_for
from .gamekit import make_config, play_app, settle
from .visionkit import Cell, DrawnLabel, contrast, is_named, labels_in, luminance, screen_cells

#: Each card style: 'symbols' or 'ascii', in two colours or four.
LOOKS = (
    CardLook("symbols", False),
    CardLook("symbols", True),
    CardLook("ascii", False),
    CardLook("ascii", True),
)
#: The marks of each suit in each style, red suits first: hearts, diamonds, spades, clubs.
RED = {"♡": "hearts", "♢": "diamonds", "H": "hearts", "D": "diamonds"}
BLACK = {"♠": "spades", "♣": "clubs", "S": "spades", "C": "clubs"}
#: The widgets that draw cards: the hand, the places, the stock, the other seats.
CARD_WIDGETS = "HandRow, PileView, StockView, OpponentPanel"


def card_regions(game: GameScreen) -> list[Region]:
    return [w.region for w in game.query(CARD_WIDGETS)]


async def drawn_as(pilot: Pilot[Any], game: GameScreen, look: CardLook) -> list[DrawnLabel]:
    """The table drawn in ``look``, with the hand's first card picked: every card label on it."""
    game.look = look
    game.refresh_view()
    ascii_labels = look.style == "ascii"

    def drawn() -> list[DrawnLabel] | None:
        labels = labels_in(screen_cells(pilot.app), card_regions(game))
        in_style = all((label.mark in "SHDC") == ascii_labels for label in labels)
        return labels if labels and in_style else None

    return await wait_for(pilot, drawn, what=f"the table drawn in {look}")


def suit_of_mark(mark: str) -> str:
    return RED.get(mark) or BLACK[mark]


async def picked_game(pilot: Pilot[Any]) -> tuple[GameScreen, Region]:
    """The game settled with the first card of the hand picked, and that card's region."""
    game = await settle(pilot)
    await pilot.press("1")
    hand = game.query_one(HandView)
    shown = await wait_for(pilot, lambda: [c for c in hand.shown() if c.selected], what="the picked card")
    return game, shown[0].region


@pytest.mark.parametrize("theme", [t for t in THEMES if not t.startswith("ansi-")])
async def test_red_and_black_and_every_ink_on_its_face_keep_wcag_contrast(theme: str) -> None:
    app = play_app(config=make_config(theme=theme))
    async with app.run_test(size=(80, 24)) as pilot:
        game, picked = await picked_game(pilot)
        assert app.theme == theme
        for look in LOOKS:
            labels = await drawn_as(pilot, game, look)
            inks: dict[str, set[tuple[int, int, int]]] = defaultdict(set)
            for label in labels:
                cell: Cell = label.cell
                ink, face = cell.rgb(cell.fg), cell.rgb(cell.bg)
                least = 3.0 if picked.contains(label.x, label.y) else 4.5
                assert contrast(ink, face) >= least, (theme, look, label, contrast(ink, face))
                inks[suit_of_mark(label.mark)].add(ink)
            assert set(inks) == {"hearts", "diamonds", "spades", "clubs"}, (look, set(inks))
            reds = inks["hearts"] | (set() if look.four_colour else inks["diamonds"])
            blacks = inks["spades"] | (set() if look.four_colour else inks["clubs"])
            for red in reds:
                for black in blacks:
                    assert contrast(red, black) >= 4.5, (theme, look, red, black, contrast(red, black))
            # Four colours: a red suit's ink is lighter than a black suit's, as in two colours.
            lightest_black = max(luminance(c) for c in inks["spades"] | inks["clubs"])
            assert all(luminance(c) > lightest_black for c in inks["hearts"] | inks["diamonds"]), (theme, look)


@pytest.mark.parametrize("theme", [t for t in THEMES if t.startswith("ansi-")])
async def test_under_a_theme_of_the_terminals_colours_cards_use_its_named_colours(theme: str) -> None:
    app = play_app(config=make_config(theme=theme))
    async with app.run_test(size=(80, 24)) as pilot:
        game, _picked = await picked_game(pilot)
        assert app.current_theme.ansi
        for look in LOOKS:
            labels = await drawn_as(pilot, game, look)
            assert {suit_of_mark(label.mark) for label in labels} == {"hearts", "diamonds", "spades", "clubs"}
            cells = screen_cells(app)
            regions = [w.region for w in game.query("HandRow, StockView")] + [
                w.content_region for w in game.query("PileView")
            ]
            drawn = [
                cell
                for y, row in enumerate(cells)
                for x, cell in enumerate(row)
                if any(r.contains(x, y) for r in regions)
            ]
            # A blank shows no ink: only its paper counts.
            strange = {
                (c.char, str(c.fg), str(c.bg))
                for c in drawn
                if not ((c.char == " " or is_named(c.fg)) and is_named(c.bg))
            }
            assert not strange, (theme, look, sorted(strange)[:5])
            for label in labels:
                assert not label.cell.fg.is_default and not label.cell.bg.is_default  # type: ignore[union-attr]
