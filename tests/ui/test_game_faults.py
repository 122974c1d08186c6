"""A faulty AI in a played game falls back as in the tournament, and the screen says so; the demo
and the game show the same target under chips scoring."""

from __future__ import annotations

import pytest

from ai.base import AIPlayer
from kc_tui.config import Config
from kc_tui.engine import Rules
from kc_tui.ui.screens.demo import DemoScreen
from kc_tui.ui.widgets import OpponentPanel
from tests.ai.helpers import FAULTS

from .gamekit import DemoHost, make_config, play_app, screen_text, settle, settled_game

SIZE = (120, 40)


@pytest.mark.real_ai_timeouts
@pytest.mark.parametrize(
    ("faulty", "reason"),
    FAULTS,
)
async def test_a_faulty_ai_falls_back_and_the_screen_says_so(
    registry: dict[str, type[AIPlayer]], faulty: type[AIPlayer], reason: str
) -> None:
    registry["king-aware"] = faulty  # Kingsley, the second opponent
    app = play_app()
    async with settled_game(app, SIZE) as (pilot, game):
        await pilot.press("t")
        game = await settle(pilot)
        s = game.session
        line = f"Kingsley's AI failed ({reason}); a simple fallback played instead"
        assert line in s.log
        # The fallback played on: the line is followed by Kingsley's moves, and it is the human's turn.
        after = s.log[s.log.index(line) + 1]
        assert after.startswith("Kingsley ")
        assert s.human_to_move
        assert "Kingsley's AI failed" in screen_text(app)


async def test_chips_scoring_shows_the_same_target_in_the_game_and_the_demo() -> None:
    rules = Rules(scoring="chips")
    app = play_app(config=make_config(rules=rules))
    async with settled_game(app, SIZE) as (pilot, game):
        assert {p.target for p in game.query(OpponentPanel)} == {0}
        assert "chips" in screen_text(app)
    demo = DemoScreen(["greedy", "greedy"], 1, "slow", Config(rules=rules))
    host = DemoHost(demo)
    async with host.run_test(size=SIZE) as pilot:
        await pilot.press("space")
        await pilot.pause()
        assert {p.target for p in demo.query(OpponentPanel)} == {0}
