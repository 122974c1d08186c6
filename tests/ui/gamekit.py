"""Helpers for the game's Pilot tests."""

from __future__ import annotations

import html
import re
from typing import Any

from textual.pilot import Pilot

from kc_tui.config import Config, Opponent
from kc_tui.engine import position_dict
from kc_tui.session import MatchSession
from kc_tui.ui.app import KingsCornersApp, StartOptions
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
