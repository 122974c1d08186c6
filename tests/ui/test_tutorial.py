"""Learn to play at the table, by keys: every step of every lesson walked, the coach's words, the
place lit and the position after each step; a wrong move at every step corrected and not made;
leaving and coming back at the step; lessons skipped and the tutorial reset; the history and the
saves untouched; the last step's hand-over to a real match's set-up with hints on."""

from __future__ import annotations

import pytest
from textual.containers import VerticalScroll

from kc_tui.config.store import load_config
from kc_tui.engine import END, parse_move
from kc_tui.i18n import LANGUAGES, _, use
from kc_tui.learn.coach import LESSON_DONE, READ_FIRST, READ_ON, words
from kc_tui.learn.lessons import LESSONS, Goal
from kc_tui.learn.progress import DONE, SKIPPED, load_progress
from kc_tui.match.saves import save_exists
from kc_tui.records.rows import default_history_path
from kc_tui.records.store import History
from kc_tui.ui.dialogs.lessons import LessonsDialog
from kc_tui.ui.dialogs.new_game import NewGameDialog
from kc_tui.ui.dialogs.summary import RoundSummary
from kc_tui.ui.screens.menu import MenuScreen
from kc_tui.ui.screens.tutorial import TutorialScreen

from .conftest import wait_for
from .tutorialkit import (
    at_lesson,
    coach_said,
    expected_words,
    flat,
    keys_for,
    left,
    lit,
    moved_on,
    position,
    position_of,
    settled,
    tutorial_app,
)

SIZE = (80, 24)


async def test_every_step_walked_by_keys_then_the_hand_over() -> None:
    app = tutorial_app()
    async with app.run_test(size=SIZE) as pilot:
        for lesson in LESSONS:
            screen = await at_lesson(pilot, lesson)
            for index, step in enumerate(lesson.steps):
                assert screen.step_index == index
                assert position(screen) == position_of(lesson, index)
                assert expected_words(screen, step) in coach_said(screen), f"{lesson.id} step {index + 1}"
                assert lit(screen) == set(step.places())
                m = step.solution_move()
                for key in ["enter"] if m is None else keys_for(screen, m):
                    await pilot.press(key)
                await wait_for(pilot, moved_on(screen, index))
                if index + 1 < len(lesson.steps) or step.goal is not Goal.READ:
                    await settled(pilot, screen)
                    assert position(screen) == position_of(lesson, index + 1), f"{lesson.id} after step {index + 1}"
            if lesson.steps[-1].goal is not Goal.READ:
                assert flat(_(LESSON_DONE)) in coach_said(screen)
                assert load_progress()[0].state(lesson.id) == DONE
                await pilot.press("enter")
            await wait_for(pilot, left(app, screen))
        dialog = app.screen
        assert isinstance(dialog, NewGameDialog), "the last step hands over to a real match's set-up"
        assert dialog.config.auto_hint
        progress = load_progress()[0]
        assert all(progress.state(lesson.id) == DONE for lesson in LESSONS) and progress.lesson == ""
        assert not save_exists(), "a lesson was saved as a match"
        history, problem = History.open(default_history_path())
        assert problem is None
        assert history.count_matches() == 0, "a lesson reached the history"
        history.close()
        await pilot.press("ctrl+s")  # a real match starts, its hint shown at the player's turn
        await wait_for(pilot, lambda: app.game is not None and not isinstance(app.game, TutorialScreen))
        game = app.game
        assert game is not None and game.config.auto_hint and load_config()[0].auto_hint
        # The deal is secret: now and then an AI goes out before the person's first turn, and the
        # hint comes at the person's first turn of a later round.
        for _round in range(5):
            await wait_for(
                pilot,
                lambda: game.hint_move is not None or isinstance(app.screen, RoundSummary),
                what="the real match's first hint, or a round's end before the person's turn",
            )
            if game.hint_move is not None:
                break
            await pilot.press("space")
            await wait_for(pilot, lambda: not isinstance(app.screen, RoundSummary))
        assert game.hint_move is not None, "no hint at the person's turn in five rounds"


async def test_a_wrong_move_at_every_step_is_corrected_and_not_made() -> None:
    app = tutorial_app()
    async with app.run_test(size=SIZE) as pilot:
        for lesson in LESSONS:
            for index, step in enumerate(lesson.steps):
                screen = await at_lesson(pilot, lesson, index)
                before = position(screen)
                s = screen.session
                if step.goal is Goal.READ:
                    await pilot.press("t")
                    said = _(READ_FIRST) if not s.match.round.over else _(READ_ON)
                else:
                    wrong = next(t for t in step.tries if s.why_illegal(parse_move(t)) is not None)
                    said = s.why_illegal(parse_move(wrong)) or ""
                    for key in keys_for(screen, parse_move(wrong)):
                        await pilot.press(key)
                await pilot.pause()
                shown = (
                    coach_said(screen) if not s.match.round.over else flat(str(screen.query_one("#status").render()))
                )
                assert flat(said) in shown, f"{lesson.id} step {index + 1}: {shown}"
                assert screen.step_index == index and position(screen) == before
                legal = [t for t in step.tries if s.why_illegal(parse_move(t)) is None]
                for text in legal:  # a legal move that is not the step's: its correction, not made
                    for key in keys_for(screen, parse_move(text)):
                        await pilot.press(key)
                    await pilot.pause()
                    assert flat(words(step.wrong, step, s.match.round, s.names, s.fmt)) in coach_said(screen)
                    assert screen.step_index == index and position(screen) == before


async def test_leaving_and_coming_back_resumes_at_the_step() -> None:
    app = tutorial_app()
    async with app.run_test(size=SIZE) as pilot:
        lesson = LESSONS[0]
        screen = await at_lesson(pilot, lesson)
        for key in keys_for(screen, lesson.steps[0].solution_move() or END):
            await pilot.press(key)
        await wait_for(pilot, lambda: screen.step_index == 1)
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, MenuScreen))
        assert (load_progress()[0].lesson, load_progress()[0].step) == (lesson.id, 1)
        await pilot.press("l")
        await wait_for(pilot, lambda: isinstance(app.screen, LessonsDialog))
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, TutorialScreen))
        again = app.screen
        assert isinstance(again, TutorialScreen) and again is not screen
        await settled(pilot, again)
        assert (again.lesson, again.step_index) == (lesson, 1)
        assert position(again) == position_of(lesson, 1)
        assert expected_words(again, lesson.steps[1]) in coach_said(again)


async def test_a_picked_card_is_let_go_by_esc_before_esc_leaves() -> None:
    app = tutorial_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await at_lesson(pilot, LESSONS[0])
        await pilot.press("1")
        assert screen.selected_card is not None
        await pilot.press("escape")
        assert screen.selected_card is None and app.screen is screen
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, MenuScreen))


async def test_lessons_are_skipped_and_the_tutorial_reset_from_the_list() -> None:
    app = tutorial_app("menu")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("l")
        await wait_for(pilot, lambda: isinstance(app.screen, LessonsDialog))
        await pilot.press("s")
        progress = load_progress()[0]
        assert progress.state(LESSONS[0].id) == SKIPPED and progress.lesson == LESSONS[1].id
        await pilot.press("enter")  # the list goes on to the lesson the tutorial comes back to
        await wait_for(pilot, lambda: isinstance(app.screen, TutorialScreen))
        assert isinstance(app.screen, TutorialScreen) and app.screen.lesson == LESSONS[1]
        lesson = app.screen
        await pilot.press("l")
        await wait_for(pilot, lambda: isinstance(app.screen, LessonsDialog))
        await pilot.press("s")  # the lesson being played skipped from its own list, then back to it
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is lesson)
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, MenuScreen))
        progress = load_progress()[0]
        assert progress.state(LESSONS[1].id) == SKIPPED and progress.lesson == LESSONS[1].id, "the skip was lost"
        await pilot.press("l")
        await wait_for(pilot, lambda: isinstance(app.screen, LessonsDialog))
        await pilot.press("r")
        assert load_progress()[0].states == {} and load_progress()[0].lesson == LESSONS[0].id
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, MenuScreen))


@pytest.mark.parametrize("code", LANGUAGES)
async def test_every_step_with_its_correction_fits_the_coach_at_80x24(code: str) -> None:
    use(code)
    app = tutorial_app()
    async with app.run_test(size=SIZE) as pilot:
        for lesson in LESSONS:
            for index, step in enumerate(lesson.steps):
                screen = await at_lesson(pilot, lesson, index)
                tries = [parse_move(t) for t in step.tries] or [END]
                wrong = next((m for m in tries if screen.session.why_illegal(m) is not None), tries[0])
                for key in keys_for(screen, wrong) if step.goal is not Goal.READ else ["t"]:
                    await pilot.press(key)
                await pilot.pause()
                box = screen.query_one("#coach-box", VerticalScroll)
                assert box.max_scroll_y == 0, f"{code}: {lesson.id} step {index + 1} scrolls: {coach_said(screen)}"
