"""The hand row: every card of the hand drawn in one widget, each card answering the mouse where
it is drawn (a covered card too, by the part of it in sight), the card under the mouse tinted."""

from __future__ import annotations

from rich.style import Style

from kc_tui.ui.cards import FACE_BG
from kc_tui.ui.widgets import HandRow, HandView

from .gamekit import LONG_HAND, click_card, play_app, settle, stage, table_app


def backgrounds(row: HandRow, index: int) -> set[str]:
    """The background colours card ``index`` is drawn with."""
    colours: set[str] = set()
    for line in row.card_lines(index):
        for span in line.spans:
            style = span.style if isinstance(span.style, Style) else Style.parse(span.style)
            if style.bgcolor is not None:
                colours.add(style.bgcolor.name)
        if isinstance(line.style, Style) and line.style.bgcolor is not None:
            colours.add(line.style.bgcolor.name)
    return colours


async def test_the_hand_is_one_widget_showing_every_card_in_order() -> None:
    app = play_app()
    async with app.run_test(size=(120, 40)) as pilot:
        game = await settle(pilot)
        hand = game.query_one(HandView)
        assert list(hand.query("*")) == [hand.row] and not hand.row.children
        assert [c.card for c in hand.shown()] == game.session.hand(0)
        text = "\n".join(line.plain for line in hand.row.render().split("\n"))  # type: ignore[union-attr]
        for card in game.session.hand(0):
            assert game.look.label(card) in text


async def test_a_click_on_the_part_of_a_covered_card_in_sight_picks_that_card() -> None:
    app = table_app(1, "points")
    async with app.run_test(size=(80, 24)) as pilot:
        game = await stage(pilot)
        hand = game.query_one(HandView)
        shown = hand.shown()
        assert len(shown) == LONG_HAND and shown[3].covered
        await click_card(pilot, 3, offset=(3, 1))  # the last column of card 3 in sight
        assert game.selected_card == shown[3].card
        await click_card(pilot, 4, offset=(0, 1))  # the first column of the next card
        assert game.selected_card == shown[4].card


async def test_the_row_is_as_wide_as_its_cards_and_nothing_beside_them_is_a_card() -> None:
    app = play_app()
    async with app.run_test(size=(120, 40)) as pilot:
        game = await settle(pilot)
        row = game.query_one(HandView).row
        assert row.region.width == row.width_needed == 5 * len(row.cards)
        assert row.index_at(row.width_needed) is None and row.index_at(-1) is None
        assert [row.index_at(5 * i + 4) for i in range(len(row.cards))] == list(range(len(row.cards)))


async def test_the_card_under_the_mouse_is_tinted_and_only_it() -> None:
    app = play_app()
    async with app.run_test(size=(120, 40)) as pilot:
        game = await settle(pilot)
        row = game.query_one(HandView).row
        assert all(backgrounds(row, i) == {FACE_BG} for i in range(len(row.cards)))
        await pilot.hover("#hand-row", offset=(row.card_width(0) * 2 + 1, 1))  # card 2
        await pilot.pause()
        assert FACE_BG not in backgrounds(row, 2)
        assert all(backgrounds(row, i) == {FACE_BG} for i in range(len(row.cards)) if i != 2)
        await pilot.hover("#me-label")
        await pilot.pause()
        assert backgrounds(row, 2) == {FACE_BG}
