"""What the tutorial's UI tests share: the app at a lesson, the coach's words as shown, the
places lit, and the keys that make a step's move (as the hand numbers its cards now)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Static

from kc_tui.engine import Move, dump_position, is_pile_move, is_play, play_card, source, target
from kc_tui.learn.coach import position_at, words
from kc_tui.learn.lessons import Lesson, Step
from kc_tui.ui.app import KingsCornersApp
from kc_tui.ui.screens.tutorial import TutorialScreen
from kc_tui.ui.widgets import TableView
from kc_tui.ui.widgets.hand import KEYS
from kc_tui.ui.widgets.pile import PLACE_KEYS

from .conftest import wait_for
from .gamekit import make_config, widget_text


def tutorial_app(mode: str = "tutorial") -> KingsCornersApp:
    """The app started as ``kings-corners tutorial`` (AI pace instant)."""
    return KingsCornersApp(make_config(), None, mode)


def flat(text: str) -> str:
    return " ".join(text.split())


def coach_said(screen: TutorialScreen) -> str:
    """The coach's panel as shown, its lines joined."""
    return flat(widget_text(screen.query_one("#coach", Static)))


def expected_words(screen: TutorialScreen, step: Step) -> str:
    s = screen.session
    return flat(words(step.text, step, s.match.round, s.names, s.fmt))


def lit(screen: TutorialScreen) -> set[int]:
    """The places lit as a hint's are (the coach's places)."""
    table = screen.query_one(TableView)
    return {p for p in range(8) if table.pile_view(p).has_class("-hint")}


def keys_for(screen: TutorialScreen, m: Move) -> list[str]:
    """The keys that make ``m`` on ``screen``: a card's number (as the hand shows it) or a
    pile's key, then the place's key; ``t`` to end the turn."""
    if is_play(m):
        keyed = {card: key for key, card in (screen._keyed or {}).items()}
        return [KEYS[keyed[play_card(m)]], PLACE_KEYS[target(m)]]
    if is_pile_move(m):
        return [PLACE_KEYS[source(m)], PLACE_KEYS[target(m)]]
    return ["t"]


def position(screen: TutorialScreen) -> str:
    return dump_position(screen.session.match.round)


def position_of(lesson: Lesson, step: int) -> str:
    return dump_position(position_at(lesson, step))


async def at_lesson(pilot: Pilot[Any], lesson: Lesson, step: int = 0) -> TutorialScreen:
    """The tutorial screen of ``lesson`` at ``step``, settled (the opponent's turn played)."""
    app = pilot.app
    await wait_for(pilot, lambda: isinstance(app.screen, TutorialScreen), what="a lesson")
    screen = app.screen
    assert isinstance(screen, TutorialScreen)
    if (screen.lesson, screen.step_index) != (lesson, step):
        app.switch_screen(TutorialScreen(lesson, step, screen.config))
        await wait_for(
            pilot,
            lambda: (
                isinstance(app.screen, TutorialScreen) and (app.screen.lesson, app.screen.step_index) == (lesson, step)
            ),
        )
    screen = app.screen
    assert isinstance(screen, TutorialScreen)
    await settled(pilot, screen)
    return screen


async def settled(pilot: Pilot[Any], screen: TutorialScreen) -> None:
    await wait_for(
        pilot, lambda: screen.is_current and not screen.busy and screen.query("#coach"), what="a lesson settled"
    )
    await pilot.pause()


def moved_on(screen: TutorialScreen, index: int) -> Callable[[], bool]:
    """Whether ``screen`` went past step ``index`` (or was left for the next lesson)."""
    return lambda: screen.step_index == index + 1 or not screen.is_current


def left(app: KingsCornersApp, screen: TutorialScreen) -> Callable[[], bool]:
    return lambda: app.screen is not screen
