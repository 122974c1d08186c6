"""The table at every supported size (issue: the table reads like a card table): long piles, a
large hand, 1 and 3 opponents, points and chips. Each snapshot also checks that what a player
needs is readable on the screen: every opponent's count and score, every pile's top card whole,
the stock, and the footer's Quit."""

from __future__ import annotations

from typing import Any, cast

import pytest
from textual.pilot import Pilot

from kc_tui.engine import PLACES
from kc_tui.match.session import MatchSession
from kc_tui.ui.app import KingsCornersApp
from kc_tui.ui.screens.game import GameScreen
from kc_tui.ui.widgets import HandView, MoveLog, OpponentPanel

from .conftest import wait_for
from .gamekit import LONG_HAND, play_app, screen_text, settle, settled_game, stage, table_app, whole_card

SIZES = ((80, 24), (100, 30), (120, 40), (160, 50))
TABLES = [(size, n, scoring) for size in SIZES for n in (1, 3) for scoring in ("points", "chips")]


def check_readable(app: KingsCornersApp, game: GameScreen) -> None:
    s: MatchSession = game.session
    text = screen_text(app)
    for seat in range(1, s.match.n):
        n = s.hand_size(seat)
        count = f"{n} card{'s' if n != 1 else ''} · {game.driver.score_text(seat)}"
        assert count in text, f"opponent {seat}: {count!r} is not on the screen"
        assert s.names[seat] in text
    for place, pile in enumerate(s.match.round.piles):
        if pile:
            assert whole_card(game, pile[-1]) in text, f"the top card of {PLACES[place]} is not whole"
            n = len(pile)
            assert f"{n} card{'s' if n != 1 else ''}" in text
    assert f"stock {len(s.match.round.stock)}" in text
    assert all(word in text for word in ("Quit", "Menu", "Keys")), "the footer lost Keys, Menu or Quit"
    if s.match.chips_scoring:
        assert "pts" not in text and "target" not in text.lower()
        assert f"pot {game.driver.snapshot(0).pot}" in text
    else:
        assert f"0/{s.match.rules.target} pts" in text
    hand = game.query_one(HandView)
    assert len(hand.in_sight()) == LONG_HAND or hand.overflowing, "cards of the hand are hidden without a sign"


@pytest.mark.parametrize(("size", "n", "scoring"), TABLES, ids=[f"{w}x{h}-{n}opp-{sc}" for (w, h), n, sc in TABLES])
def test_snapshot_table_fits(snap_compare: Any, size: tuple[int, int], n: int, scoring: str) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        game = await stage(pilot)
        check_readable(pilot.app, game)  # type: ignore[arg-type]

    assert snap_compare(table_app(n, scoring), terminal_size=size, run_before=run_before)


async def test_a_hand_wider_than_the_row_overlaps_then_scrolls_with_a_bar() -> None:
    app = table_app(1, "points")
    async with app.run_test(size=(80, 24)) as pilot:
        game = await stage(pilot)
        hand = game.query_one(HandView)
        cards = hand.shown()
        assert len(cards) == LONG_HAND
        assert all(c.covered for c in cards[:-1]) and not cards[-1].covered
        assert not hand.overflowing  # 15 overlapped cards fit in 80 columns
        # Four more cards: they do not fit, and the row says so with its scroll bar.
        s = game.session
        extra = s.match.round.stock[:4]
        s.match.round.stock = s.match.round.stock[4:]
        for c in extra:
            s.match.round.hands[0] |= 1 << c
        game.refresh_view()
        await pilot.pause()
        await pilot.pause()
        assert hand.overflowing
        assert hand.styles.scrollbar_size_horizontal == 1 and hand.max_scroll_x > 0
        # The last card is reached with the keys, and scrolled into sight.
        await pilot.press("left")
        await pilot.pause()
        last = hand.shown()[-1]
        assert game.selected_card == last.card
        assert hand.scrollable_content_region.x <= last.region.x
        assert last.region.right <= hand.region.right


async def test_the_move_log_rewraps_after_a_resize() -> None:
    app = table_app(1, "points")
    async with settled_game(app, (80, 24)) as (pilot, game):
        for _ in range(3):
            game.action_end_turn()
            game = await settle(pilot)
        log = game.query_one(MoveLog)
        narrow_lines = len(log.lines)
        narrow = log.scrollable_content_region.width
        await pilot.resize_terminal(160, 50)
        await wait_for(pilot, lambda: len(log.lines) < narrow_lines, what="the log re-wrapped wider")
        assert log.max_scroll_x == 0
        assert len(log.lines) < narrow_lines, "growing the window did not re-wrap the log wider"
        assert max(line.cell_length for line in log.lines) > narrow
        await pilot.resize_terminal(80, 24)
        await wait_for(pilot, lambda: len(log.lines) == narrow_lines, what="the log re-wrapped narrow again")
        assert log.max_scroll_x == 0, "after shrinking, lines are cut or scroll sideways"
        assert len(log.lines) == narrow_lines


async def test_t_with_a_card_picked_asks_before_ending_the_turn() -> None:
    app = play_app()
    async with settled_game(app, (120, 40)) as (pilot, game):
        s = game.session
        turn = s.match.round.hist
        await pilot.press("1")
        assert game.selected_card is not None
        await pilot.press("t")
        await pilot.pause()
        assert s.human_to_move and s.match.round.hist is turn, "t ended the turn with a card picked"
        assert "Press t again" in str(game.query_one("#status").render())
        await pilot.press("t")
        await settle(pilot)
        assert s.match.round.hist is not turn
        assert any(line.startswith("You ended the turn") or "ended the turn" in line for line in s.log)


async def test_t_asks_again_after_the_selection_changes() -> None:
    app = play_app()
    async with settled_game(app, (120, 40)) as (pilot, game):
        s = game.session
        turn = s.match.round.hist
        await pilot.press("1", "t", "escape", "2", "t")
        await pilot.pause()
        assert s.human_to_move and s.match.round.hist is turn, "the question was not asked afresh for a new card"


async def test_m_goes_back_to_the_menu_and_the_match_resumes() -> None:
    from kc_tui.ui.screens.menu import MenuScreen

    app = play_app()
    async with settled_game(app, (120, 40)) as (pilot, game):
        hand = list(game.session.hand(0))
        await pilot.press("m")
        await pilot.pause()
        assert isinstance(app.screen, MenuScreen)
        assert app.game is None
        app.action_resume()
        game = await settle(pilot)
        assert list(game.session.hand(0)) == hand, "the resumed match is not the one left"


async def test_m_asks_first_when_the_game_is_not_saved() -> None:
    from kc_tui.ui.dialogs.confirm import MenuDialog
    from kc_tui.ui.screens.menu import MenuScreen

    app = play_app()
    async with settled_game(app, (120, 40)) as (pilot, game):
        game.session.save_path = None
        await pilot.press("m")
        await pilot.pause()
        assert isinstance(app.screen, MenuDialog)
        await pilot.press("n")
        await pilot.pause()
        assert cast(object, app.screen) is game
        await pilot.press("m", "y")
        await pilot.pause()
        assert isinstance(app.screen, MenuScreen)


async def test_the_keys_page_explains_the_marks_on_the_table() -> None:
    from kc_tui.ui.dialogs.help import HelpDialog

    app = play_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpDialog)
        text = screen_text(app)
        for mark, meaning in (("+9", "folded away"), ("11 cards", "how many cards"), ("next: red 7", "takes next")):
            assert mark in text and meaning in text, mark
        assert "m" in text and "main menu" in text


async def test_the_palette_offers_quit_once() -> None:
    from kc_tui.ui.commands import MenuCommands

    app = play_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        system = [c.title for c in app.get_system_commands(app.screen)]
        menu = [title for title, *_ in MenuCommands(app.screen)._commands()]
        assert (system + menu).count("Quit") == 1


@pytest.mark.parametrize("width", [22, 30, 40, 60])
async def test_an_opponent_panel_keeps_count_score_and_turn_by_priority(width: int) -> None:
    app = table_app(3, "points")
    async with settled_game(app, (160, 50)) as (pilot, game):
        panel = game.query_one(OpponentPanel)
        panel.styles.width = width + 4  # border and padding
        panel.show(cards=13, total=48, score="48/50 pts", to_move=True)
        await pilot.pause()
        line = panel.render().plain  # type: ignore[union-attr]
        assert "13 cards · 48/50 pts" in line
        assert len(line) <= width
        if width >= len("13 cards · 48/50 pts  ◀ to play"):
            assert "◀ to play" in line
        elif width >= len("13 cards · 48/50 pts  ◀"):
            assert line.endswith("◀")
        else:
            assert line == "13 cards · 48/50 pts", "the turn mark may go (the border says ▶), nothing else"
        if width >= 60:
            assert "king-aware" in line or "greedy" in line
