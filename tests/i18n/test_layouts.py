"""Every language the game speaks at 80x24: the table drawn as cards with the stock beside its
words, "your turn" beside the hand, every key of the footer whole, the menu's every item on
screen, and the look kept when a hint takes its lines."""

from __future__ import annotations

from typing import Any

import pytest
from textual.widgets import Button, Static

from kc_tui.i18n import _, use
from kc_tui.match import log_lines
from kc_tui.ui.widgets import MoveLog, StockView, TableView
from tests.i18n.layoutkit import LANGUAGES, SMALL, footer_whole, seen
from tests.ui.conftest import wait_for
from tests.ui.fitkit import on_screen, place_looks, screen_lines, shown
from tests.ui.gamekit import menu_app, play_app, settled_game


def stock_shown(app: Any, table: TableView) -> bool:
    stock = table.query_one(StockView)
    cells = seen(" ".join(screen_lines(app, stock)))
    return on_screen(app, stock) and "▒" in cells and seen(_("stock {count}").format(count=stock.count)) in cells


@pytest.mark.parametrize("code", LANGUAGES)
async def test_the_table_is_whole_at_80x24(code: str) -> None:
    use(code)
    app = play_app()
    async with settled_game(app, SMALL) as (pilot, game):
        table = game.query_one(TableView)
        label = game.query_one("#me-label", Static)
        turn = seen(_("your turn"))
        await wait_for(pilot, lambda: turn in seen(" ".join(screen_lines(app, label))))
        assert set(place_looks(app, table).values()) == {"cards"}
        assert stock_shown(app, table)
        footer_whole(app)
        # The move log (kept in English) is shown in the language.
        log = seen(" ".join(screen_lines(app, game.query_one(MoveLog))))
        assert game.session.log and " drew " not in log and " ended the turn" not in log, log
        assert seen(log_lines.shown(game.session.log[-1]))[:12] in log, log
        before = place_looks(app, table)
        await pilot.press("h")
        await wait_for(pilot, lambda: game.hint_move is not None)
        await pilot.pause()
        await pilot.pause()
        assert place_looks(app, table) == before
        assert stock_shown(app, table)


@pytest.mark.parametrize("code", LANGUAGES)
async def test_every_menu_item_is_on_screen_at_80x24(code: str) -> None:
    use(code)
    app = menu_app()
    async with app.run_test(size=SMALL) as pilot:
        await pilot.pause()
        buttons = [b for b in app.screen.query(Button).results(Button) if shown(b)]
        assert buttons
        for button in buttons:
            assert on_screen(app, button), button.label
            label = seen(str(button.label))
            assert label in seen(" ".join(screen_lines(app, button))), label
        footer_whole(app)
