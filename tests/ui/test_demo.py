"""The AI-vs-AI demo: a whole match at top speed, pause and step, open hands, no stale moves."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import cast

from textual.app import App
from textual.pilot import Pilot
from textual.widgets import Static

from kc_tui.cli import build_parser
from kc_tui.config import Config
from kc_tui.engine import END, Rules
from kc_tui.ui.dialogs.summary import MatchSummary
from kc_tui.ui.screens.demo import DemoScreen
from kc_tui.ui.widgets import OpponentPanel

from .conftest import wait_for
from .gamekit import DemoHost

SIZE = (110, 36)


@asynccontextmanager
async def _shown(demo: DemoScreen) -> AsyncIterator[Pilot[None]]:
    """``demo`` run headless over a bare screen: the pilot."""
    async with DemoHost(demo).run_test(size=SIZE) as pilot:
        yield pilot


def moves_made(demo: DemoScreen) -> tuple[int, int]:
    s = demo.session
    return (len(s.match.results), len(s.match.round.history))


def nothing_pending(demo: DemoScreen) -> bool:
    """Nothing can make the demo's next move: it is paused, has no step timer set and no AI
    thinking, so whatever has not moved by now does not move until a key is pressed."""
    return demo.paused and not demo.stepping and not demo.thinking and demo._timer is None


async def test_a_whole_match_at_top_speed_ends_with_a_winner() -> None:
    demo = DemoScreen(["greedy", "king-aware"], 11, "instant", Config(rules=Rules(target=25)))
    app = DemoHost(demo)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: demo.session.match.over, 60)
        s = demo.session
        assert s.match.winners, "a finished match has a winner"
        assert max(s.match.live_chips()) >= 25
        assert all(s.match.live_chips()[w] == min(s.match.live_chips()) for w in s.match.winners)
        await wait_for(pilot, lambda: isinstance(app.screen, MatchSummary), 5)
        assert "Match over" in str(demo.query_one("#demo-status", Static).render())
        winner_panel = demo.query_one(f"#demo-seat-{s.match.winners[0]}", OpponentPanel)
        assert winner_panel.has_class("-winner")
        await pilot.press("escape")  # the summary's "main menu": leaves the demo
        await pilot.pause()
        assert not isinstance(app.screen, DemoScreen | MatchSummary)


async def test_pause_step_and_resume() -> None:
    demo = DemoScreen(["greedy", "lookahead"], 5, "normal", Config())
    async with _shown(demo) as pilot:
        await pilot.press("space")
        assert demo.paused
        await wait_for(pilot, lambda: not demo.thinking, 10)
        before = moves_made(demo)
        await wait_for(pilot, lambda: nothing_pending(demo), 10)
        assert moves_made(demo) == before, "nothing moves while paused"
        await pilot.press("n")
        await wait_for(pilot, lambda: moves_made(demo) != before, 10)
        await wait_for(pilot, lambda: not demo.thinking, 10)
        after = moves_made(demo)
        assert after == (before[0], before[1] + 1) or after[0] == before[0] + 1, "exactly one step"
        await wait_for(pilot, lambda: nothing_pending(demo), 10)
        assert moves_made(demo) == after and demo.paused, "a step leaves the demo paused"
        await pilot.press("space")
        assert not demo.paused
        await wait_for(pilot, lambda: moves_made(demo) != after, 10)


async def test_step_while_playing_pauses_and_moves_once() -> None:
    demo = DemoScreen(["greedy", "greedy"], 2, "slow", Config())
    async with _shown(demo) as pilot:
        await pilot.press("n")
        assert demo.paused
        await wait_for(pilot, lambda: moves_made(demo) != (0, 0), 10)
        await wait_for(pilot, lambda: not demo.thinking, 10)
        first = moves_made(demo)
        await wait_for(pilot, lambda: nothing_pending(demo), 10)
        assert moves_made(demo) == first


async def test_speed_keys_and_open_hands() -> None:
    demo = DemoScreen(["greedy", "king-aware", "lookahead", "random"], 3, "normal", Config())
    async with _shown(demo) as pilot:
        await pilot.press("space")
        panels = list(demo.query(OpponentPanel))
        assert len(panels) == 4
        assert not any(p.reveal for p in panels), "hands are hidden until asked for"
        await pilot.press("h")
        await pilot.pause()
        for p in panels:
            assert p.reveal
            assert p.hand == demo.session.hand(p.seat)
        await pilot.press("h")
        assert not any(p.reveal for p in panels)
        await pilot.press("plus")
        assert demo.pace == "fast"
        await pilot.press("plus", "plus")
        assert demo.pace == "instant"
        await pilot.press("minus", "minus", "minus", "minus")
        assert demo.pace == "slow"


async def test_a_new_demo_never_applies_a_stale_decision() -> None:
    demo = DemoScreen(["greedy", "greedy"], 9, "slow", Config())
    async with _shown(demo) as pilot:
        await pilot.press("space")
        await wait_for(pilot, lambda: not demo.thinking, 10)
        old_session, stale = demo.session, demo.driver.ai_job()
        turn = stale.turn
        await pilot.press("a", "space")
        await pilot.pause()
        assert demo.session is not old_session and demo.seed != 9
        await wait_for(pilot, lambda: not demo.thinking, 10)
        new_history = len(demo.session.match.round.history)
        demo.post_message(DemoScreen.Decided(stale.decided(END)))
        await pilot.pause()  # every message posted before it handled: the stale decision too
        assert len(demo.session.match.round.history) == new_history
        assert len(old_session.match.round.history) == len(turn.view.history), "the old demo is left alone"


async def test_rules_open_from_the_demo_and_return() -> None:
    from kc_tui.ui.screens.rules import RulesScreen

    demo = DemoScreen(["greedy", "greedy"], 1, "slow", Config(rules=Rules(draw="end")))
    app = DemoHost(demo)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("r")
        await pilot.pause()
        assert isinstance(app.screen, RulesScreen)
        assert app.screen.rules.draw == "end"
        await pilot.press("escape")
        await pilot.pause()
        assert cast(object, app.screen) is demo


async def test_the_demo_command_line_opens_the_demo() -> None:
    from kc_tui.ui.launch import build_app

    args = build_parser().parse_args(["demo", "--seats", "greedy,expert", "--seed", "7", "--pace", "fast"])
    app = build_app("demo", args)
    assert isinstance(app, App)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, DemoScreen)
        assert screen.kinds == ["greedy", "expert"] and screen.seed == 7 and screen.pace == "fast"
        await pilot.press("space")
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, DemoScreen)
