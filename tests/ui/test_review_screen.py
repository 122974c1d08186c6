"""The replay opened from the game's summaries, and the review on the replay: a
review runs in a worker with a progress bar, can be cancelled, marks the player's turns, and
shows the better plan on the table move by move."""

from __future__ import annotations

import threading
from typing import Any

from kc_tui.engine import Rules
from kc_tui.match.replay import RoundReplay
from kc_tui.ui.dialogs.match_detail import MatchDetail
from kc_tui.ui.dialogs.summary import MatchSummary, RoundSummary
from kc_tui.ui.screens.replay import ReplayScreen
from kc_tui.ui.widgets import TableView

from .conftest import wait_for
from .gamekit import ONE_ROUND, make_config, play_app, play_until


async def replay_from_summary(pilot: Any) -> ReplayScreen:
    """Play the round to its summary and open its replay with v."""
    await play_until(pilot, RoundSummary)
    await pilot.press("v")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, ReplayScreen))
    screen = pilot.app.screen
    assert isinstance(screen, ReplayScreen)
    return screen


def shown_piles(screen: ReplayScreen) -> tuple[tuple[int, ...], ...]:
    table = screen.query_one(TableView)
    return tuple(table.pile_view(p).pile for p in range(8))


async def test_the_round_summary_opens_the_replay_and_the_review_marks_every_turn(monkeypatch: Any) -> None:
    seen: list[tuple[int, int, bool]] = []
    shown = ReplayScreen.on_replay_screen_review_progress

    def progress(self: ReplayScreen, message: Any) -> None:
        shown(self, message)
        seen.append((message.done, message.total, bool(self.query_one("#replay-progress").display)))

    monkeypatch.setattr(ReplayScreen, "on_replay_screen_review_progress", progress)
    app = play_app()
    async with app.run_test(size=(120, 40)) as pilot:
        summary = await play_until(pilot, RoundSummary)
        await pilot.press("v")
        await wait_for(pilot, lambda: isinstance(app.screen, ReplayScreen))
        replay = app.screen
        assert isinstance(replay, ReplayScreen)
        assert replay.replay.round_number == summary.result.number
        await pilot.press("v")
        await wait_for(pilot, lambda: not replay.reviewing, 120)
        review = replay.review
        assert review is not None and not review.cancelled and review.turns
        # The progress bar showed every turn done, from the first to the last.
        assert seen[0][0] == 0 and seen[-1][:2] == (len(review.turns), len(review.turns))
        assert all(visible for _d, _t, visible in seen)
        assert not replay.query_one("#replay-progress").display
        # Every turn of the player's is reviewed, keyed where it starts on the replay.
        assert set(replay.reviewed) <= set(replay.replay.turn_starts)
        assert len(replay.reviewed) == len(review.turns)
        # On a reviewed turn the note line says its mark.
        start = next(iter(replay.reviewed))
        replay.replay.seek(start)
        replay.refresh_view()
        await pilot.pause()
        note = str(replay.query_one("#replay-note").render())
        mark = replay.reviewed[start].mark
        assert {"good": "Good", "inaccuracy": "Inaccuracy", "mistake": "Mistake"}[mark] in note
        assert review.summary in str(replay.query_one("#replay-status").render())
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is summary, "leaving the replay goes back to the round summary"


async def test_the_better_plan_is_shown_move_by_move_and_esc_returns() -> None:
    app = play_app()
    async with app.run_test(size=(120, 40)) as pilot:
        replay = await replay_from_summary(pilot)
        # Without a review, b says what to do first.
        await pilot.press("b")
        assert replay._better is None
        await pilot.press("v")
        await wait_for(pilot, lambda: not replay.reviewing, 120)
        marked = [(s, t) for s, t in replay.reviewed.items() if t.better_plan_exists]
        if not marked:  # a round played like the expert: b refuses on every turn
            start = next(iter(replay.reviewed))
            replay.replay.seek(start)
            await pilot.press("b")
            assert replay._better is None
            return
        start, turn = marked[0]
        replay.replay.seek(start)
        replay.refresh_view()
        recorded = shown_piles(replay)
        await pilot.press("b")
        await pilot.pause()
        assert isinstance(replay.replay, RoundReplay)
        expected = replay.replay.plan_rounds(start, turn.best_plan)
        assert shown_piles(replay) == tuple(tuple(p) for p in expected[0].piles)
        await pilot.press("right")
        await pilot.pause()
        assert shown_piles(replay) == tuple(tuple(p) for p in expected[1].piles)
        assert "Better plan, move 1" in str(replay.query_one("#replay-note").render())
        await pilot.press("escape")
        await pilot.pause()
        assert replay._better is None and app.screen is replay
        assert shown_piles(replay) == recorded


async def test_esc_cancels_a_review_in_progress_and_stays(monkeypatch: Any) -> None:
    import ai.advice.review

    reviewed = ai.advice.review.review_turn
    esc_pressed = threading.Event()

    def slowly(*args: Any, **kwargs: Any) -> Any:
        esc_pressed.wait(60)  # a review slower than the keys: esc arrives while it runs
        return reviewed(*args, **kwargs)

    monkeypatch.setattr(ai.advice.review, "review_turn", slowly)
    app = play_app(config=make_config(rules=Rules(hand_size=10)))
    async with app.run_test(size=(120, 40)) as pilot:
        replay = await replay_from_summary(pilot)
        await pilot.press("v", "escape")
        esc_pressed.set()
        await wait_for(pilot, lambda: not replay.reviewing, 120)
        assert app.screen is replay, "esc during a review cancels it, it does not leave"
        review = replay.review
        assert review is not None and review.cancelled and len(review.turns) < review.total
        assert "cancelled" in str(replay.query_one("#replay-status").render()).lower()


async def test_the_match_summary_lists_the_rounds_to_replay() -> None:
    app = play_app(config=make_config(rules=ONE_ROUND))
    async with app.run_test(size=(120, 40)) as pilot:
        await play_until(pilot, MatchSummary)
        await pilot.press("v")
        await wait_for(pilot, lambda: isinstance(app.screen, MatchDetail))
        detail = app.screen
        await pilot.press("enter")  # the first round
        await wait_for(pilot, lambda: isinstance(app.screen, ReplayScreen))
        assert isinstance(app.screen, ReplayScreen) and app.screen.replay.round_number == 1
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is detail
