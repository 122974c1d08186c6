"""Where Learn to play starts: ``kings-corners tutorial`` where the player left it, the menu's
line at a first start, a bad progress file said in one line; and the setting Hints on the
tutorial hands over with: a hint at the start of each of the person's turns."""

from __future__ import annotations

from textual.widgets import Static

from kc_tui.config.store import config_path, save_config
from kc_tui.learn.lessons import BY_ID, LESSONS
from kc_tui.learn.progress import Progress, progress_path, save_progress
from kc_tui.ui.dialogs.lessons import LessonsDialog
from kc_tui.ui.screens.menu import MenuScreen
from kc_tui.ui.screens.tutorial import TutorialScreen

from .conftest import wait_for
from .gamekit import game_of, make_config, new_app, play_app, settle, widget_text
from .tutorialkit import position, position_of, settled

SIZE = (80, 24)
OFFER = "New to the game? Learn to play (l) teaches it in a few minutes."


async def test_the_tutorial_command_opens_where_the_player_left_it() -> None:
    assert save_progress(Progress().at("corner", 0).learnt("build").at("move", 1)) is None
    app = new_app("tutorial")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TutorialScreen))
        screen = app.screen
        assert isinstance(screen, TutorialScreen)
        await settled(pilot, screen)
        assert (screen.lesson, screen.step_index) == (BY_ID["move"], 1)
        assert position(screen) == position_of(BY_ID["move"], 1)
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, MenuScreen))


async def test_a_first_start_offers_learn_to_play_until_it_is_started() -> None:
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, MenuScreen))
        menu = app.screen
        await wait_for(pilot, lambda: widget_text(menu.query_one("#saved", Static)) == OFFER)
        await pilot.press("l")
        await wait_for(pilot, lambda: isinstance(app.screen, LessonsDialog))
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, TutorialScreen))
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is menu)
        await pilot.pause()
        assert progress_path().exists()
        assert widget_text(menu.query_one("#saved", Static)) == "", "offered again once the tutorial was started"


async def test_a_start_with_settings_offers_no_line() -> None:
    save_config(make_config())
    assert config_path().exists()
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, MenuScreen))
        await pilot.pause()
        assert widget_text(app.screen.query_one("#saved", Static)) == ""


async def test_a_bad_progress_file_is_one_line_and_the_tutorial_starts_again() -> None:
    path = progress_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('{"format": "kings-corners/tutorial/1", "lesson": "nope"}', encoding="utf-8")
    app = new_app("tutorial")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TutorialScreen))
        screen = app.screen
        assert isinstance(screen, TutorialScreen) and screen.lesson == LESSONS[0] and screen.step_index == 0
        told = [n.message for n in app._notifications if "tutorial" in n.message]
        assert len(told) == 1 and "\n" not in told[0] and "starts again" in told[0]


async def test_hints_on_shows_a_hint_at_the_start_of_each_turn() -> None:
    app = play_app(config=make_config(auto_hint=True))
    async with app.run_test(size=(120, 40)) as pilot:
        game = await settle(pilot)
        await wait_for(pilot, lambda: game.hint_move is not None, what="the hint at the turn's start")
        assert game.driver.hints_this_round == 1
        await pilot.press("escape")
        await pilot.press("t")  # the person's next turn shows its hint again
        await wait_for(pilot, lambda: game.driver.hints_this_round == 2 and game.hint_move is not None)


async def test_hints_off_shows_none_unasked() -> None:
    app = play_app(config=make_config(auto_hint=False))
    async with app.run_test(size=(120, 40)) as pilot:
        game = await settle(pilot)
        # The hint is asked for as the turn is first drawn: with the setting off nothing is on its way.
        assert game_of(app) is game and not game._hint_busy and game.hint_move is None
        assert game.driver.hints_this_round == 0
