"""The game's keys and words in a lesson, as a new player meets them: ``u`` and ``h`` answered
by the coach, the status line saying the keys the coach says, the opponent's turn told as it is
played, the totals counting the round the lesson scores, the toast said on leaving taken down
on coming back, and the tutorial started again once every lesson is behind the player."""

from __future__ import annotations

import pytest
from rich.text import Text
from textual.widgets import Static

from kc_tui.engine import Move, penalty_of, play_card
from kc_tui.i18n import _
from kc_tui.learn.coach import NEXT_LESSON, OPPONENT_PLAYS, READ_ON
from kc_tui.learn.lessons import BY_ID, LEARNER, LESSONS
from kc_tui.learn.progress import Progress, save_progress
from kc_tui.match.log_lines import DREW_ONE
from kc_tui.ui.dialogs.lessons import ALL_BEHIND, KEPT, LessonsDialog
from kc_tui.ui.dialogs.new_game import NewGameDialog
from kc_tui.ui.screens.game_hint import hint_text
from kc_tui.ui.screens.menu import MenuScreen
from kc_tui.ui.screens.tutorial import NO_UNDO, TutorialScreen
from kc_tui.ui.widgets import OpponentPanel

from .conftest import wait_for
from .gamekit import new_app, widget_text
from .tutorialkit import at_lesson, coach_said, flat, keys_for, position, settled, tutorial_app

SIZE = (80, 24)


def status(screen: TutorialScreen) -> str:
    return flat(widget_text(screen.query_one("#status", Static)))


def solution(screen: TutorialScreen) -> Move:
    step = screen.step
    assert step is not None
    m = step.solution_move()
    assert m is not None
    return m


async def test_u_says_why_no_move_is_taken_back_and_h_shows_the_steps_move() -> None:
    app = tutorial_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await at_lesson(pilot, LESSONS[0])
        before = position(screen)
        await pilot.press("u")
        assert flat(_(NO_UNDO)) in status(screen)
        assert position(screen) == before and screen.step_index == 0
        m = solution(screen)
        await pilot.press("h")
        await wait_for(pilot, lambda: screen.hint_move == m, what="the step's move as a hint")
        assert flat(_("press {key} to play it").format(key=keys_for(screen, m)[-1])) in status(screen)
        assert screen.selected_card == play_card(m), "the hint picks the step's card"
        await pilot.press(keys_for(screen, m)[-1])  # the place's key plays the hint
        await wait_for(pilot, lambda: screen.step_index == 1)
        screen = await at_lesson(pilot, BY_ID["draw"], 1)  # a step to read: h says the keys that go on
        await pilot.press("h")
        assert status(screen) == flat(hint_text([], _(READ_ON)).plain)


async def test_the_status_line_says_the_keys_the_coach_says() -> None:
    app = tutorial_app()
    async with app.run_test(size=SIZE) as pilot:
        lesson = LESSONS[0]
        screen = await at_lesson(pilot, lesson)
        for key in keys_for(screen, solution(screen)):
            await pilot.press(key)
        await wait_for(pilot, lambda: screen.step_index == 1)
        keys = screen.keys_text(lesson.steps[1])
        assert keys in coach_said(screen) and keys in status(screen)
        for key in keys_for(screen, solution(screen)):
            await pilot.press(key)
        await wait_for(pilot, lambda: screen.step is None)
        said = status(screen)
        assert flat(_(NEXT_LESSON)) in said and flat(_(NEXT_LESSON)) in coach_said(screen)
        assert "t to end your turn" not in said
        screen = await at_lesson(pilot, BY_ID["draw"], 1)
        assert flat(_(READ_ON)) in status(screen) and flat(_(READ_ON)) in coach_said(screen)


async def test_the_opponents_turn_and_the_draw_are_told(monkeypatch: pytest.MonkeyPatch) -> None:
    app = tutorial_app()
    async with app.run_test(size=SIZE) as pilot:
        lesson = BY_ID["draw"]
        screen = await at_lesson(pilot, lesson)
        name = screen.session.names[1 - LEARNER]
        told: list[str] = []
        said = screen.coach_text

        def coach_text() -> Text:  # every text the coach's panel shows, as it is shown
            text = said()
            told.append(flat(text.plain))
            return text

        monkeypatch.setattr(screen, "coach_text", coach_text)
        await pilot.press("t")
        await wait_for(pilot, lambda: screen.step_index == 1)
        await settled(pilot, screen)
        during = [text for text in told if flat(_(OPPONENT_PLAYS).format(name=name)) in text]
        assert any(flat(_(DREW_ONE).format(who=name)) in text for text in during), told
        r = screen.session.match.round
        drawn = screen.session.fmt(r.last_drawn[1 - LEARNER])
        assert not any(drawn in text for text in during), "the opponent's drawn card was named"
        now = coach_said(screen)
        assert name in now and screen.session.fmt(r.last_drawn[LEARNER]) in now


async def test_the_totals_count_the_round_the_lesson_scores() -> None:
    app = tutorial_app()
    async with app.run_test(size=SIZE) as pilot:
        lesson = BY_ID["out"]
        screen = await at_lesson(pilot, lesson)
        for key in keys_for(screen, solution(screen)):
            await pilot.press(key)
        await wait_for(pilot, lambda: screen.step_index == 1)
        await settled(pilot, screen)
        r = screen.session.match.round
        points = penalty_of(r.hands[1 - LEARNER])
        assert f"{points} " in coach_said(screen)
        panel = screen.query_one(OpponentPanel)
        await wait_for(pilot, lambda: f"{points}/{r.rules.target}" in widget_text(panel, 80), what="the total")
        screen = await at_lesson(pilot, lesson, 2)  # and where a lesson comes back to after the round
        panel = screen.query_one(OpponentPanel)
        await wait_for(pilot, lambda: f"{points}/{r.rules.target}" in widget_text(panel, 80), what="the total")


async def test_the_toast_said_on_leaving_goes_on_coming_back() -> None:
    app = tutorial_app()
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await at_lesson(pilot, LESSONS[0])
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, MenuScreen))
        kept = _(KEPT)
        await wait_for(pilot, lambda: any(n.message == kept for n in app._notifications), what="the toast")
        await pilot.press("l")
        await wait_for(pilot, lambda: isinstance(app.screen, LessonsDialog))
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, TutorialScreen))
        await pilot.pause()
        assert not any(n.message == kept for n in app._notifications)


async def test_after_every_lesson_the_tutorial_says_so_and_offers_a_game() -> None:
    progress = Progress()
    for lesson in LESSONS:
        progress = progress.learnt(lesson.id)
    assert progress.lesson == "" and save_progress(progress) is None
    app = new_app("tutorial")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, LessonsDialog))
        assert not isinstance(app.screen_stack[-2], TutorialScreen)
        behind = app.screen.query_one("#behind", Static)
        assert behind.display and flat(widget_text(behind)) == flat(_(ALL_BEHIND))
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, NewGameDialog))
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, MenuScreen))
        await pilot.press("l")  # a lesson chosen from the list plays again
        await wait_for(pilot, lambda: isinstance(app.screen, LessonsDialog))
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, TutorialScreen))
        assert isinstance(app.screen, TutorialScreen) and app.screen.lesson == LESSONS[1]
        await settled(pilot, app.screen)
        await pilot.press("l")  # the list in a lesson offers a game too: the lesson is left for it
        await wait_for(pilot, lambda: isinstance(app.screen, LessonsDialog))
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, NewGameDialog))
        assert not any(isinstance(s, TutorialScreen) for s in app.screen_stack)


async def test_enter_at_a_step_that_asks_for_a_move_says_where_its_keys_are() -> None:
    app = tutorial_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await at_lesson(pilot, LESSONS[0])
        before = position(screen)
        await pilot.press("enter")
        assert flat(_("This step asks for a move: the keys are under its words.")) in coach_said(screen)
        assert position(screen) == before and screen.step_index == 0
