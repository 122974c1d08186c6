"""Cards as large as the terminal lets them be: small faces (three lines) up to 120x40, large ones
(seven columns, five lines) at 160x50, larger still (nine by seven) at 200x60, in the piles, the
corners, the stock and the hand. At
every size the cards fit their places with nothing overlapping or cut off; a large card still
shows its suit's colour, the selection and the legal targets, answers a click, and is drawn in
ASCII on a terminal that cannot show the suits."""

from __future__ import annotations

import argparse
from itertools import combinations

import pytest
from rich.style import Style
from rich.text import Span, Text
from textual.app import App, ComposeResult
from textual.geometry import Region
from textual.widget import Widget

from kc_tui.engine import PLACES, is_play, parse_card, play_card, target
from kc_tui.ui.app import KingsCornersApp
from kc_tui.ui.cards import FOUR_COLOUR, HUGE, LARGE, SELECTED_BG, SMALL, TWO_COLOUR, CardLook, face_size
from kc_tui.ui.launch import build_app
from kc_tui.ui.screens.game import GameScreen
from kc_tui.ui.widgets import HandView, OpponentPanel, PileView, ShownCard, StockView

from .conftest import wait_for
from .fitkit import screen_lines
from .gamekit import LONG_HAND, click_card, play_app, settle, stage, table_app, whole_card

LOOK = CardLook()
SIZES = ((80, 24), (100, 30), (120, 40), (160, 50), (200, 60))


def cards_shown(game: GameScreen) -> list[tuple[str, Region]]:
    """Where cards are drawn: the places, the stock and the cards of the hand in sight."""
    places = [*game.query(PileView), game.query_one(StockView)]
    hand = [(f"card {c.index} of the hand", c.region) for c in game.query_one(HandView).in_sight()]
    return [*((repr(w), w.region) for w in places), *hand]


def rendered(widget: Widget) -> list[Text]:
    out = widget.render()
    assert isinstance(out, Text)
    return list(out.split("\n"))


def span_colour(span: Span, bg: bool = False) -> str | None:
    """The name of a span's colour (its background's with ``bg``)."""
    style = span.style if isinstance(span.style, Style) else Style.parse(span.style)
    colour = style.bgcolor if bg else style.color
    return None if colour is None else colour.name


def pile_of(game: GameScreen, place: int) -> PileView:
    return game.query_one(f"#pile-{PLACES[place].lower()}", PileView)


def last_chip(game: GameScreen) -> ShownCard:
    return game.query_one(HandView).shown()[-1]


def card_lines(game: GameScreen, shown: ShownCard) -> list[Text]:
    """The lines card ``shown`` of the hand is drawn with."""
    return game.query_one(HandView).row.card_lines(shown.index)


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
async def test_the_cards_fit_the_table_with_nothing_overlapping_or_cut_off(size: tuple[int, int]) -> None:
    app = table_app(3, "points")
    async with app.run_test(size=size) as pilot:
        game = await stage(pilot)
        screen = Region(0, 0, *size)
        face = face_size(*size)
        shown = cards_shown(game)
        assert len(shown) == 9 + LONG_HAND or game.query_one(HandView).overflowing
        others = [*game.query(OpponentPanel), game.query_one("#status"), game.query_one("#side")]
        drawn = [*shown, *((repr(w), w.region) for w in others)]
        for name, region in drawn:
            assert screen.contains_region(region), f"{name} at {region} is off the screen"
        for (a, at), (b, bt) in combinations(drawn, 2):
            assert not at.overlaps(bt), f"{a} {at} overlaps {b} {bt}"
        for widget in [*game.query(PileView), game.query_one(StockView)]:
            lines = rendered(widget)
            box = widget.content_size
            assert len(lines) <= box.height, f"{widget!r}: {len(lines)} lines in {box.height}"
            assert max(line.cell_len for line in lines) <= box.width, f"{widget!r} is wider than its box"
        for place, pile in enumerate(game.session.match.round.piles):
            if pile:
                top = whole_card(game, pile[-1])
                assert any(top in line.plain for line in rendered(pile_of(game, place))), PLACES[place]
        chip = last_chip(game)
        assert (chip.region.width, chip.region.height) == (face.width, face.lines)
        assert "".join(line.plain for line in card_lines(game, chip)).count(game.look.label(chip.card)) == (
            1 if face is SMALL else 2
        )


def test_cards_are_small_up_to_120x40_and_grow_from_160x50_on() -> None:
    faces = [face_size(*size) for size in SIZES]
    assert faces == [SMALL, SMALL, SMALL, LARGE, HUGE]
    assert [f.lines for f in faces] == [3, 3, 3, 5, 7] and [f.width for f in faces] == [5, 5, 5, 7, 9]


async def test_cards_are_larger_at_160x50_than_at_120x40() -> None:
    def measure(game: GameScreen) -> tuple[int, int, int, int]:
        chip = last_chip(game)
        corner = rendered(pile_of(game, 5))  # SE: the king alone
        card = [line for line in corner if line.plain.strip() and not line.plain.strip().startswith("next")]
        return chip.region.width, chip.region.height, len(card), max(len(line.plain.strip()) for line in card)

    app = table_app(1, "points")
    async with app.run_test(size=(120, 40)) as pilot:
        game = await stage(pilot)
        small = measure(game)
        await pilot.resize_terminal(160, 50)
        await wait_for(pilot, lambda: measure(game) == (7, 5, 5, 7), what="the cards drawn large")
        large = measure(game)
    assert small == (5, 3, 3, 5)
    assert all(b > a for a, b in zip(small, large, strict=True)), (small, large)
    assert large == (7, 5, 5, 7)


async def test_the_cards_follow_the_terminal_when_only_its_height_changes() -> None:
    app = play_app()
    async with app.run_test(size=(160, 40)) as pilot:
        game = await settle(pilot)
        hand = game.query_one(HandView)
        assert last_chip(game).region.height == 3 and hand.region.height == 3
        await pilot.resize_terminal(160, 50)
        await wait_for(pilot, lambda: last_chip(game).region.height == 5 and hand.region.height == 5)
        assert last_chip(game).region.height == 5 and hand.region.height == 5
        assert hand.row.face is LARGE and all(c.region.height == 5 for c in hand.shown())
        await pilot.resize_terminal(80, 24)
        await wait_for(pilot, lambda: last_chip(game).region.size == (5, 3) and hand.region.height == 3)
        assert last_chip(game).region.size == (5, 3) and hand.region.height == 3


async def test_a_large_card_is_selected_by_a_click_and_marked_with_its_targets() -> None:
    app = play_app()
    async with app.run_test(size=(160, 50)) as pilot:
        game = await settle(pilot)
        s = game.session
        hand = s.hand(0)
        index = 1
        await click_card(pilot, index, offset=(3, 3))  # the middle of a large card
        await pilot.pause()
        assert game.selected_card == hand[index]
        lines = card_lines(game, game.query_one(HandView).shown()[index])
        assert len(lines) == 5
        assert lines[-1].plain == "└▲▲▲▲▲┘"
        assert all(span_colour(span, bg=True) == SELECTED_BG for span in lines[2].spans)
        targets = {p for p in range(8) if pile_of(game, p).has_class("-target")}
        assert targets == set(game._targets())


async def test_a_click_on_a_large_card_plays_it_on_the_pile_clicked() -> None:
    app = play_app()
    async with app.run_test(size=(160, 50)) as pilot:
        game = await settle(pilot)
        s = game.session
        m = next(m for m in s.match.round.legal_moves() if is_play(m))
        card, dst = play_card(m), target(m)
        index = s.hand(0).index(card)
        await click_card(pilot, index, offset=(5, 4))
        assert game.selected_card == card
        await pilot.click(f"#pile-{PLACES[dst].lower()}")
        await pilot.pause()
        assert card not in s.hand(0)
        assert s.match.round.piles[dst][-1] == card


def test_a_large_face_has_rank_and_suit_in_two_corners_and_the_suit_in_the_middle() -> None:
    ten = parse_card("TH")
    lines = CardLook().face(ten, key="1", mark="new", size=LARGE)
    assert [line.plain for line in lines] == ["┌1────┐", "│10♡  │", "│  ♡  │", "│  10♡│", "└new──┘"]
    red = TWO_COLOUR[2]
    for line in lines[1:4]:
        inked = [span for span in line.spans if span_colour(span) == red]
        assert inked, line.plain
    diamonds = CardLook(four_colour=True).face(parse_card("5D"), size=LARGE)
    assert any(span_colour(span) == FOUR_COLOUR[1] for span in diamonds[2].spans)
    covered = CardLook().face(ten, whole=False, size=LARGE)
    assert [line.plain for line in covered] == ["┌───", "│10♡", "│   ", "│   ", "└───"]


def test_a_small_face_is_three_lines() -> None:
    lines = CardLook().face(parse_card("TH"))
    assert [line.plain for line in lines] == ["┌───┐", "│10♡│", "└───┘"]


def test_a_mark_is_cut_to_the_cells_of_the_edge_its_tone_marks_kept() -> None:
    """Thai's "new" is four characters in three cells: the tone mark on its last letter stays."""
    new = "\u0e43\u0e2b\u0e21\u0e48"
    lines = CardLook().face(parse_card("TH"), mark=new)
    assert lines[-1].plain == f"└{new}┘" and lines[-1].cell_len == 5
    assert CardLook().face(parse_card("TH"), mark="nuovo")[-1].plain == "└nuo┘"


@pytest.mark.usefixtures("ascii_terminal")
async def test_large_cards_are_drawn_in_ascii_on_a_terminal_without_suits() -> None:
    app = build_app("play", argparse.Namespace(seed=3))
    assert isinstance(app, KingsCornersApp)
    async with app.run_test(size=(160, 50)) as pilot:
        game = await settle(pilot)
        chip = last_chip(game)
        label = game.look.label(chip.card)
        assert label.isascii()
        assert [line.plain for line in card_lines(game, chip)][1:] == [
            f"|{label.ljust(5)}|",
            f"|{label[-1].center(5)}|",
            f"|{label.rjust(5)}|",
            "+new--+" if chip.new else "+-----+",
        ]
        assert "|#####|" in "\n".join(line.plain for line in rendered(game.query_one(StockView)))
        text = "\n".join(screen_lines(app))
        text.encode("ascii")
        for card in game.session.hand(0):
            name = game.look.label(card)
            assert f"|{name.ljust(5)}|" in text and f"|{name.rjust(5)}|" in text, name


class PileApp(App[None]):
    """One place, ``box`` cells inside its border, on a terminal of any size."""

    def __init__(self, pile: tuple[int, ...], box: tuple[int, int]) -> None:
        super().__init__()
        self.pile, self.box = pile, box

    def compose(self) -> ComposeResult:
        view = PileView(1, id="pile")
        view.styles.width = self.box[0] + 4  # border and padding
        view.styles.height = self.box[1] + 2
        yield view

    def on_mount(self) -> None:
        self.query_one(PileView).set_pile(self.pile)


@pytest.mark.parametrize("box", [(13, 4), (13, 6), (23, 6)])
async def test_a_card_is_centred_in_its_place_under_a_caption_of_even_width(box: tuple[int, int]) -> None:
    app = PileApp((parse_card("JS"),), box)
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.pause()
        view = app.query_one(PileView)
        inside = view.content_region
        lines = screen_lines(app, inside)
        assert any(line.strip() == "next: red 10" for line in lines), lines
        edge = next(line for line in lines if "┌" in line)
        left, right = edge.index("┌"), edge.index("┐")
        assert left + right == inside.width - 1, lines  # as many columns on either side


TWELVE = tuple(parse_card(c) for c in ("KH", "QC", "JH", "TS", "9H", "8C", "7H", "6C", "5H", "4S", "3H", "2S"))


@pytest.mark.parametrize(
    ("box", "lines"),
    [((33, 11), LARGE.lines * 2), ((33, 10), SMALL.lines * 2), ((33, 5), SMALL.lines)],
    ids=["two-large-rows", "small-rows-keep-the-caption", "small-and-folded"],
)
async def test_a_long_pile_on_a_large_terminal_is_large_only_where_it_fits_whole(
    box: tuple[int, int], lines: int
) -> None:
    """Large cards only where the whole pile fits with its "next:" line; else small ones, folded
    when even they do not fit."""
    app = PileApp(TWELVE, box)
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.pause()
        drawn = [line.plain for line in rendered(app.query_one(PileView))]
        cards = [line for line in drawn if line.strip() and not line.strip().startswith("next")]
        assert len(cards) == lines, drawn
        assert drawn[-1].strip() == "next: red A", drawn
        text = "\n".join(drawn)
        if lines > SMALL.lines:
            assert all(LOOK.label(c) in text for c in TWELVE) and "+" not in text, text
        else:
            assert "+" in text and LOOK.label(TWELVE[0]) in text and LOOK.label(TWELVE[-1]) in text, text


async def test_a_hint_marks_its_large_card_and_its_place() -> None:
    app = play_app()
    async with app.run_test(size=(160, 50)) as pilot:
        game = await settle(pilot)
        await pilot.press("h")
        game = await settle(pilot)
        m = game.hint_move
        assert m is not None and is_play(m), m
        chip = next(c for c in game.query_one(HandView).shown() if c.card == play_card(m))
        assert chip.selected
        lines = card_lines(game, chip)
        assert len(lines) == LARGE.lines and lines[-1].plain == "└▲▲▲▲▲┘"
        assert pile_of(game, target(m)).has_class("-hint")


async def test_every_empty_place_says_what_it_takes_at_80x24() -> None:
    app = play_app()
    async with app.run_test(size=(80, 24)) as pilot:
        game = await settle(pilot)
        empty = [view for view in game.query(PileView) if not view.pile]
        assert any(view.place >= 4 for view in empty), "a corner is empty"
        await wait_for(pilot, lambda: all(view.takes in "".join(screen_lines(app, view.region)) for view in empty))
