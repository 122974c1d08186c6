"""Nothing lost by accident: keys do nothing while the game is paused behind the
"enlarge the terminal" notice, and a new game never silently replaces a saved match."""

from __future__ import annotations

import json
from typing import Any

from kc_tui.config.store import data_dir
from kc_tui.engine import is_play, play_card, target
from kc_tui.ui.dialogs.confirm import ResumeDialog
from kc_tui.ui.screens.game import GameScreen
from kc_tui.ui.screens.menu import MenuScreen
from kc_tui.ui.widgets import PLACE_KEYS

from .conftest import wait_for
from .gamekit import new_game, new_match_from_the_table, play_app, position, settle

SIZE = (120, 40)


def _save() -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((data_dir() / "current-match.json").read_text(encoding="utf-8"))
    return doc


async def test_keys_do_nothing_while_the_terminal_is_too_small() -> None:
    app = play_app()
    async with app.run_test(size=SIZE) as pilot:
        game = await settle(pilot)
        s = game.session
        m = next(m for m in s.match.round.legal_moves() if is_play(m))
        index = s.hand(0).index(play_card(m))
        await pilot.resize_terminal(60, 20)
        await wait_for(pilot, lambda: game.too_small)
        before = position(s)
        log = list(s.log)
        # End turn, pick a card and play it, undo, hint: all ignored, unseen moves impossible.
        await pilot.press("t", "1234567890"[index], PLACE_KEYS[target(m)], "u", "h", "left", "right")
        await settle(pilot)  # anything the keys had set going (an AI's turn, a hint) is done
        assert position(s) == before and s.log == log
        assert game.selected_card is None and game.hint_move is None
        assert s.human_to_move
        for action in ("end_turn", "card", "pile", "undo", "hint"):
            assert game.check_action(action, ()) is False
        # Back to a usable size: the same keys work again.
        await pilot.resize_terminal(*SIZE)
        game = await settle(pilot)
        await pilot.press("1234567890"[index], PLACE_KEYS[target(m)])
        await pilot.pause()
        assert play_card(m) not in s.hand(0)


async def test_new_game_from_the_menu_asks_before_replacing_a_saved_match() -> None:
    app = play_app()
    async with app.run_test(size=SIZE) as pilot:
        game = await settle(pilot)
        game.action_end_turn()
        await settle(pilot)
        await pilot.press("ctrl+q", "y")
    saved = _save()
    app2 = play_app(mode="menu")
    async with app2.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app2.screen, MenuScreen))
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app2.screen, ResumeDialog))
        dialog = app2.screen
        assert isinstance(dialog, ResumeDialog) and dialog.replacing
        # Escape: nothing happens, the save is untouched.
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app2.screen, MenuScreen))
        assert _save() == saved
        # Resume from the same question carries on with the saved match.
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app2.screen, ResumeDialog))
        await pilot.press("c")
        game = await settle(pilot)
        assert game.session.match.seed == saved["match"]["seed"]
        assert game.session.match.round.history  # the saved moves are there
        # From the game (command palette's New game): asked again; n replaces the match.
        await app2.run_action("new_game")
        await wait_for(pilot, lambda: isinstance(app2.screen, ResumeDialog))
        await pilot.press("c")
        await wait_for(pilot, lambda: isinstance(app2.screen, GameScreen))
        assert app2.game is game
        new = await new_match_from_the_table(pilot)
        assert new is not game and new.session.match.number == 1
        assert len(app2.screen_stack) == 2  # the menu and the new game: no stale game below


async def test_new_game_without_a_save_sets_up_the_match_then_starts_it() -> None:
    app = play_app(mode="menu")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, MenuScreen))
        game = await new_game(pilot)
        assert isinstance(game, GameScreen) and app.screen is game
