"""Helpers for the game's Pilot tests."""

from __future__ import annotations

import html
import re
from typing import Any

from textual.pilot import Pilot

from kc_tui.config import Config, Opponent
from kc_tui.engine import END, is_play, play_card, position_dict, source, target
from kc_tui.session import MatchSession
from kc_tui.ui.app import KingsCornersApp, StartOptions
from kc_tui.ui.dialogs.summary import RoundSummary
from kc_tui.ui.screens.game import GameScreen

SEED = 3


def make_config(**changes: Any) -> Config:
    cfg = Config(opponents=(Opponent("Greedy", "greedy"), Opponent("Kingsley", "king-aware")), pace="instant")
    return cfg.with_(**changes) if changes else cfg


def play_app(seed: int = SEED, config: Config | None = None, mode: str = "play") -> KingsCornersApp:
    return KingsCornersApp(config or make_config(), None, mode, StartOptions(seed=seed))


def game_of(app: KingsCornersApp) -> GameScreen:
    game = app.game
    assert game is not None, f"no game screen; the screen is {app.screen!r}"
    return game


async def settle(pilot: Pilot[Any], timeout: float = 20.0) -> GameScreen:
    """Wait until the human is to move (or a summary is up) and nothing is pending."""
    app = pilot.app
    assert isinstance(app, KingsCornersApp)
    waited = 0.0
    while waited < timeout:
        await pilot.pause(0.02)
        waited += 0.02
        game = app.game
        if game is None:
            continue
        if app.screen is not game:
            return game  # a dialog is up
        if not game.busy and not game._hint_busy:
            await pilot.pause()
            return game
    raise AssertionError("the game did not settle")


def position(session: MatchSession) -> dict[str, Any]:
    return position_dict(session.round, session.names)


def screen_text(app: KingsCornersApp) -> str:
    """Everything on screen as plain text (from the SVG screenshot)."""
    svg = app.export_screenshot()
    text = re.sub(r"<[^>]+>", "", svg)
    return html.unescape(text).replace("\xa0", " ")


async def play_until(pilot: Any, dialog: type, limit: int = 600) -> Any:
    """Play the human's turns like a beginner (the first legal move, else end the turn)
    through the screen's key actions, until ``dialog`` shows."""
    app = pilot.app
    for _ in range(limit):
        game = await settle(pilot)
        if isinstance(app.screen, dialog):
            await pilot.pause()
            await pilot.pause()
            return app.screen
        if isinstance(app.screen, RoundSummary):
            await pilot.pause()
            app.screen.action_close()
            continue
        s = game.session
        plays = [m for m in s.legal_moves() if m != END]
        if not plays:
            game.action_end_turn()
        elif is_play(plays[0]):
            game._select_card(play_card(plays[0]))
            game.action_pile(target(plays[0]))
        else:
            game.action_pile(source(plays[0]))
            game.action_pile(target(plays[0]))
    raise AssertionError(f"never reached {dialog.__name__}")
