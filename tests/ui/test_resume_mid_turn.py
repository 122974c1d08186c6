"""A turn left and taken up again: after a quit and a resume in the middle of a turn, the hint
keeps the plan it gave before (``h`` says the same), every card keeps the key it had, and an undo
after the resume brings back the turn's first plan and the turn's first keys."""

from __future__ import annotations

from typing import Any

from textual.widgets import Static

from ai.advice.hint import Advice
from kc_tui.engine import is_play, play_card, target
from kc_tui.ui.screens.game import GameScreen
from kc_tui.ui.screens.menu import MenuScreen
from kc_tui.ui.widgets import HandView
from kc_tui.ui.widgets.pile import PLACE_KEYS

from .conftest import wait_for
from .fitkit import content, hand_keys
from .gamekit import play_app, settle

#: With this seed and gamekit's two AIs, the hint's first plan is three moves or more, its first
#: step plays a card from the middle of the hand, and a plan made afresh after that step differs
#: from the rest of the first one.
SEED = 11
SIZE = (120, 40)


def keyed(game: GameScreen) -> dict[str, int]:
    """The key on each card of the hand, as the screen shows it: key → card."""
    return hand_keys(game.app, game.query_one(HandView))


def shown(game: GameScreen) -> str:
    return content(game.query_one("#status", Static))


async def hint(pilot: Any, game: GameScreen, advised: list[Advice]) -> tuple[tuple[int, ...], str]:
    """Ask for a hint (``h``): its plan and the words on show; the hint is cleared after."""
    asked = len(advised)
    await pilot.press("h")
    await wait_for(pilot, lambda: game.hint_move is not None and len(advised) > asked)
    said = (advised[-1].plan, shown(game))
    await pilot.press("escape")
    await wait_for(pilot, lambda: game.hint_move is None)
    return said


async def test_the_hint_and_the_keys_hold_through_a_resume_and_an_undo(advised: list[Advice]) -> None:
    app = play_app(SEED)
    async with app.run_test(size=SIZE) as pilot:
        game = await settle(pilot)
        first_keys = keyed(game)
        first, first_words = await hint(pilot, game, advised)
        step = first[0]
        assert is_play(step) and len(first) >= 3, first
        key = next(k for k, card in first_keys.items() if card == play_card(step))
        assert key != list(first_keys)[-1], "the card played is not the hand's last"
        await pilot.press(key, PLACE_KEYS[target(step)])
        await wait_for(pilot, lambda: play_card(step) not in game.query_one(HandView).cards)
        game = await settle(pilot)
        mid_keys = keyed(game)
        rest, rest_words = await hint(pilot, game, advised)
        assert rest == first[1:], "the hint follows its plan"
        await pilot.press("ctrl+q", "y")

    again = play_app(mode="menu")
    async with again.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(again.screen, MenuScreen))
        await pilot.press("c")
        game = await settle(pilot)
        assert keyed(game) == mid_keys, "every card keeps its key after the resume"
        assert await hint(pilot, game, advised) == (rest, rest_words), "the hint keeps its plan after the resume"
        await pilot.press("u")
        await wait_for(pilot, lambda: play_card(step) in game.query_one(HandView).cards)
        game = await settle(pilot)
        assert keyed(game) == first_keys, "after an undo the card comes back with its key"
        assert await hint(pilot, game, advised) == (first, first_words), "after an undo the turn's first plan"
