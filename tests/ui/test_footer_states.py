"""The footer shows the keys that act now, and only those: on the player's turn, an AI's turn,
under the round's and the match's summaries, under the New game dialog, on a paused demo.
Ctrl+Q asks first at the match's summary too (docs/PLAYING.md's promise)."""

from __future__ import annotations

from kc_tui.config import Config
from kc_tui.ui.dialogs.confirm import QuitDialog
from kc_tui.ui.dialogs.new_game import NewGameDialog
from kc_tui.ui.dialogs.summary import MatchSummary, RoundSummary
from kc_tui.ui.screens.demo import DemoScreen

from .conftest import wait_for
from .fitkit import footer_words
from .gamekit import TWO_ROUNDS, DemoHost, make_config, menu_app, play_app, play_until, settle

SIZE = (100, 30)
#: The keys of a player's move: none of them acts while the player may not move.
MOVE_KEYS = {"Card", "Pile", "End turn", "Hint", "Undo"}


async def test_the_players_turn_shows_the_keys_of_a_move_and_no_pause() -> None:
    app = play_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        words = footer_words(app)
        assert {"Card", "Pile", "End turn", "Hint"} <= set(words), words
        assert "Pause" not in words and "Resume" not in words, words


async def test_an_ais_turn_shows_pause_and_no_key_of_a_move() -> None:
    app = play_app(config=make_config(pace="slow"))
    async with app.run_test(size=SIZE) as pilot:
        game = await settle(pilot)
        game.action_end_turn()
        await wait_for(pilot, lambda: game.session.ai_to_move and "Pause" in footer_words(app))
        words = footer_words(app)
        assert not MOVE_KEYS & set(words), words
        await pilot.press("p")
        await wait_for(pilot, lambda: game.paused and "Resume" in footer_words(app))
        assert "Pause" not in footer_words(app)


async def test_the_summaries_show_their_own_keys_only() -> None:
    app = play_app(config=make_config(rules=TWO_ROUNDS))
    async with app.run_test(size=SIZE) as pilot:
        await play_until(pilot, RoundSummary)
        await wait_for(pilot, lambda: "Continue" in footer_words(app))
        assert footer_words(app) == ["Continue", "Replay and review"]
        await play_until(pilot, MatchSummary)
        await wait_for(pilot, lambda: "Play again" in footer_words(app))
        assert footer_words(app) == ["Play again", "Main menu", "Replay a round"]


async def test_ctrl_q_at_the_match_summary_asks_first() -> None:
    app = play_app(config=make_config(rules=TWO_ROUNDS))
    async with app.run_test(size=SIZE) as pilot:
        summary = await play_until(pilot, MatchSummary)
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: isinstance(app.screen, QuitDialog))
        assert app.is_running
        assert "Quit" in footer_words(app) and "Stay" in footer_words(app)
        await pilot.press("n")
        await wait_for(pilot, lambda: app.screen is summary)
        assert app.is_running


async def test_the_new_game_dialog_shows_its_keys_not_the_menus() -> None:
    app = menu_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: "New game" in footer_words(app))
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, NewGameDialog))
        await wait_for(pilot, lambda: "Start" in footer_words(app))
        words = footer_words(app)
        assert not {"New game", "Resume", "Demo", "Stats", "Settings"} & set(words), words
        await pilot.press("escape")
        await wait_for(pilot, lambda: "New game" in footer_words(app))


async def test_a_paused_demo_offers_resume_not_pause() -> None:
    demo = DemoScreen(["greedy", "king-aware"], 3, "slow", Config())
    app = DemoHost(demo)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: demo.is_current and "Pause" in footer_words(app))
        await pilot.press("space")
        await wait_for(pilot, lambda: demo.paused and "Resume" in footer_words(app))
        assert "Pause" not in footer_words(app)
        await pilot.press("space")
        await wait_for(pilot, lambda: not demo.paused and "Pause" in footer_words(app))
