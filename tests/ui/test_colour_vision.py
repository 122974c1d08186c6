"""The table as a protanope and a deuteranope see it (a line filter on the app's output) and
without colour (``NO_COLOR``): every card's colour is told by its mark (red suits in outline ♡ ♢,
black suits solid ♠ ♣), asserted on the rendered screen; where the colours themselves come close
(the four-colour deck, or no colour at all), the mark is what tells red from black. The picked
card and the places it may go are told by more than colour too."""

from __future__ import annotations

from itertools import product
from typing import Any

import pytest
from textual.filter import Monochrome, NoColor
from textual.pilot import Pilot

from kc_tui.engine import Card, card_symbol, is_red, parse_card
from kc_tui.ui.cards import CardLook
from kc_tui.ui.screens.game import GameScreen
from kc_tui.ui.widgets import HandView
from kc_tui.ui.widgets.pile import PileView

from .conftest import wait_for
from .gamekit import make_config, play_app, settle
from .visionkit import (
    BLACK_MARKS,
    DEUTERANOPIA,
    PROTANOPIA,
    RED_MARKS,
    DrawnLabel,
    Matrix,
    VisionFilter,
    contrast,
    install,
    labels_in,
    refresh_all,
    rgb_of,
    screen_cells,
    seen_as,
)

VISIONS: dict[str, Matrix] = {"protanopia": PROTANOPIA, "deuteranopia": DEUTERANOPIA}
#: Below this two inks are near enough to be taken for one another (WCAG asks 3:1 of a graphic
#: that carries meaning, 4.5:1 of text).
CLOSE = 2.0


def seen_cards(game: GameScreen) -> set[Card]:
    """The cards the viewer may see: the hand and every pile."""
    snap = game.driver.snapshot(0)
    return set(snap.hand or ()) | {c for pile in snap.piles for c in pile}


def table_labels(pilot: Pilot[Any], game: GameScreen) -> list[DrawnLabel]:
    regions = [w.region for w in game.query("HandRow, PileView")]
    return labels_in(screen_cells(pilot.app), regions)


def assert_marks_tell_colours(game: GameScreen, labels: list[DrawnLabel]) -> None:
    """Every card drawn is one the viewer may see, its mark saying its colour; every card of
    the hand is drawn."""
    assert not set(RED_MARKS) & set(BLACK_MARKS)
    seen = seen_cards(game)
    for label in labels:
        card = parse_card(label.rank + label.mark)
        assert card in seen, (label, sorted(seen))
        assert (label.mark in RED_MARKS) == is_red(card), label
        assert label.mark in RED_MARKS + BLACK_MARKS, label
    drawn = {parse_card(label.rank + label.mark) for label in labels}
    hand = set(game.driver.snapshot(0).hand or ())
    assert hand <= drawn, sorted(card_symbol(c) for c in hand - drawn)


async def picked_table(pilot: Pilot[Any]) -> GameScreen:
    game = await settle(pilot)
    await pilot.press("1")
    hand = game.query_one(HandView)
    await wait_for(pilot, lambda: any(c.selected for c in hand.shown()), what="the picked card")
    return game


def picked_is_marked(game: GameScreen, pilot: Pilot[Any]) -> bool:
    """The picked card is marked ▲ along its bottom edge, and only it."""
    cells = screen_cells(pilot.app)
    for shown in game.query_one(HandView).shown():
        bottom = shown.region.bottom - 1
        row = "".join(c.char for c in cells[bottom][shown.region.x : shown.region.right])
        if ("▲" in row) != shown.selected:
            return False
    return True


@pytest.mark.parametrize(("vision", "four_colour"), list(product(VISIONS, (False, True))))
async def test_under_colour_blindness_the_mark_tells_each_cards_colour(vision: str, four_colour: bool) -> None:
    app = play_app(config=make_config(four_colour=four_colour))
    async with app.run_test(size=(80, 24)) as pilot:
        game = await picked_table(pilot)
        matrix = VISIONS[vision]
        install(app, VisionFilter(matrix))
        look = CardLook("symbols", four_colour)
        hearts = seen_as(matrix, rgb_of(look.colour(parse_card("2H"))))

        def simulated() -> list[DrawnLabel] | None:
            labels = table_labels(pilot, game)
            red = [lb for lb in labels if lb.mark == "♡"]
            return labels if red and all(lb.cell.rgb(lb.cell.fg) == hearts for lb in red) else None

        labels = await wait_for(pilot, simulated, what=f"the table as {vision} shows it")
        assert_marks_tell_colours(game, labels)
        inks = {lb.mark: lb.cell.rgb(lb.cell.fg) for lb in labels}
        assert set(inks) == set(RED_MARKS + BLACK_MARKS)
        closest = min(contrast(inks[red], inks[black]) for red in RED_MARKS for black in BLACK_MARKS)
        if four_colour:
            # Four colours: a red suit's ink and a black suit's are hardly apart as this person sees them.
            assert closest < CLOSE, (vision, inks, closest)
        else:
            assert closest >= 1.0
        assert picked_is_marked(game, pilot)


@pytest.mark.parametrize(("theme", "filter_kind"), [("textual-dark", Monochrome), ("ansi-dark", NoColor)])
async def test_without_colour_every_mark_and_the_picked_card_stay_told(
    theme: str, filter_kind: type, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    app = play_app(config=make_config(theme=theme))
    async with app.run_test(size=(80, 24)) as pilot:
        game = await picked_table(pilot)
        assert app.theme == theme
        kinds = [type(f) for f in app._filters if isinstance(f, (Monochrome, NoColor))]
        assert kinds == [filter_kind]
        refresh_all(app)
        labels = await wait_for(pilot, lambda: table_labels(pilot, game) or None, what="the table's cards")
        assert_marks_tell_colours(game, labels)
        if filter_kind is NoColor:
            # No colour at all: red and black are drawn alike, the mark alone tells them.
            assert all(lb.cell.fg is not None and lb.cell.fg.is_default for lb in labels)
        else:
            for lb in labels:
                fg = lb.cell.rgb(lb.cell.fg)
                assert fg[0] == fg[1] == fg[2], lb  # a grey
        assert picked_is_marked(game, pilot)
        # The places the picked card may go have an edge of their own, not only a colour.
        targets = [p for p in game.query(PileView) if p.has_class("-target")]
        assert targets
        cells = screen_cells(app)
        for pile in game.query(PileView):
            corner = cells[pile.region.y][pile.region.x].char
            assert (corner == "┏") == pile.has_class("-target"), (pile.id, corner)


@pytest.mark.parametrize("vision", [*VISIONS, "no-colour"])
def test_snapshot_the_table_as_seen_without_some_colours(
    vision: str, snap_compare: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The four-colour table at 80x24, the first card picked, as a protanope or a deuteranope
    sees it, or with ``NO_COLOR``: the marks on the snapshot tell each card's colour."""
    if vision == "no-colour":
        monkeypatch.setenv("NO_COLOR", "1")

    async def run_before(pilot: Pilot[Any]) -> None:
        game = await picked_table(pilot)
        if vision in VISIONS:
            install(pilot.app, VisionFilter(VISIONS[vision]))
        else:
            refresh_all(pilot.app)
        await wait_for(pilot, lambda: table_labels(pilot, game) or None, what="the table's cards")

    assert snap_compare(play_app(config=make_config(four_colour=True)), terminal_size=(80, 24), run_before=run_before)
