"""A person who plays a whole round by the hint's keys (``h``, then the key it names, or ``t``
when it says to end the turn): the hint keeps one plan through each turn, and the review of that
round on its replay (``v`` on the round's summary, then ``v``) marks none of those turns."""

from __future__ import annotations

from functools import partial

import pytest
from textual.widgets import Static

from ai.advice.hint import Advice
from kc_tui.config import Opponent
from kc_tui.engine import END, PLACES, target
from kc_tui.ui.dialogs.summary import RoundSummary
from kc_tui.ui.screens.game import GameScreen
from kc_tui.ui.screens.replay import ReplayScreen
from kc_tui.ui.widgets.pile import PLACE_KEYS

from .conftest import wait_for
from .gamekit import make_config, play_app, settle


def hinted(game: GameScreen, shown: bool = True) -> bool:
    """Whether a hint is on show (``shown``), or none is."""
    return (game.hint_move is not None) == shown


@pytest.mark.parametrize("seed", [4, 11])
async def test_a_round_played_by_the_hints_keys_is_reviewed_without_a_mark(advised: list[Advice], seed: int) -> None:
    app = play_app(seed, make_config(opponents=(Opponent("Greedy", "greedy"),)))
    turns = 0
    async with app.run_test(size=(120, 40)) as pilot:
        while True:
            game = await settle(pilot)
            if isinstance(app.screen, RoundSummary):
                break
            turns += 1
            first = len(advised)
            while game.session.human_to_move and app.screen is game:
                await pilot.press("h")
                await wait_for(pilot, partial(hinted, game))
                m = game.hint_move
                assert m is not None
                told = advised[-1]
                # One plan a turn: each hint after the first is the first one's next step.
                step = len(advised) - 1 - first
                assert told.plan == advised[first].plan[step:], (told.text, advised[first].text)
                if m == END:
                    await pilot.press("t")
                    break
                key = PLACE_KEYS[target(m)]
                status = str(game.query_one("#status", Static).render())
                assert f"press {key} to play it" in status, (PLACES[target(m)], status)
                await pilot.press(key)
                await wait_for(pilot, partial(hinted, game, False))
            await settle(pilot)
        assert turns >= 2
        summary = app.screen
        await pilot.press("v")
        await wait_for(pilot, lambda: isinstance(app.screen, ReplayScreen))
        replay = app.screen
        assert isinstance(replay, ReplayScreen)
        await pilot.press("v")
        await wait_for(pilot, lambda: not replay.reviewing and replay.review is not None, 120)
        review = replay.review
        assert review is not None and review.turns
        for turn in review.turns:
            assert turn.mark == "good", f"turn {turn.index}: {turn.mark} {turn.loss_text}: {turn.why}"
            assert turn.forced or turn.why.startswith("The hint's plan."), turn.why
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is summary)
