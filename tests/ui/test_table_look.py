"""One look for the whole table at 80x24: the piles stay drawn as cards (and the stock as a
face-down card) while the message area grows with a hint, and in a replay every row of the
table is drawn alike, whatever the status and the note under it take."""

from __future__ import annotations

import pytest

from kc_tui.records.rows import MatchRecord
from kc_tui.ui.screens.replay import ReplayScreen
from kc_tui.ui.widgets import TableView
from tests.match.kit import play_match

from .conftest import wait_for
from .fitkit import place_looks, stock_drawn
from .gamekit import menu_app, opened, play_app, settle, stage_long_piles

SMALL = (80, 24)


@pytest.mark.parametrize("long_piles", [False, True], ids=["dealt table", "long piles"])
async def test_a_hint_leaves_the_table_drawn_as_cards_at_80x24(long_piles: bool) -> None:
    app = play_app()
    async with app.run_test(size=SMALL) as pilot:
        game = await settle(pilot)
        if long_piles:
            stage_long_piles(game.session)
            game.refresh_view()
        await pilot.pause()
        table = game.query_one(TableView)
        before = place_looks(app, table)
        assert set(before.values()) == {"cards"}, before
        assert stock_drawn(app, table)
        await pilot.press("h")
        await wait_for(pilot, lambda: game.hint_move is not None and "Hint" in str(game.query_one("#status").render()))
        await pilot.pause()
        await pilot.pause()
        assert game.query_one("#message").region.height >= 2, "the hint takes more than a line"
        assert place_looks(app, table) == before
        assert stock_drawn(app, table), "the stock stays on the table"


@pytest.fixture(scope="module")
def match() -> MatchRecord:
    """The match ``recorded`` records: its round 2's review has lines longer than the screen."""
    return play_match(["random", "king-aware", "greedy"], 11)


async def test_every_row_of_a_replayed_table_has_one_look_at_80x24(recorded: int) -> None:
    app = menu_app()
    async with app.run_test(size=SMALL) as pilot:
        replay = await opened(pilot, recorded, 2)
        await pilot.press("v")
        await wait_for(pilot, lambda: replay.review is not None and not replay.reviewing, 120)
        table = replay.query_one(TableView)
        seen: set[str] = set()
        for _ in range(len(replay.replay.turn_starts)):
            await pilot.pause()
            looks = place_looks(app, table)
            assert len(set(looks.values())) == 1, (replay.replay.position, looks)
            seen |= set(looks.values())
            await pilot.press("right_square_bracket")
        assert isinstance(app.screen, ReplayScreen)
        assert seen, "the table was read"


async def test_a_review_leaves_a_replayed_table_drawn_as_cards_at_80x24(recorded: int) -> None:
    app = menu_app()
    async with app.run_test(size=SMALL) as pilot:
        replay = await opened(pilot, recorded, 2)
        await pilot.pause()
        table = replay.query_one(TableView)
        assert set(place_looks(app, table).values()) == {"cards"}
        await pilot.press("v")
        await wait_for(pilot, lambda: replay.review is not None and not replay.reviewing, 120)
        for _ in range(len(replay.replay.turn_starts)):
            await pilot.pause()
            await pilot.pause()
            assert set(place_looks(app, table).values()) == {"cards"}, replay.replay.position
            assert stock_drawn(app, table), replay.replay.position
            await pilot.press("right_square_bracket")
