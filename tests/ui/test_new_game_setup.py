"""New game from the menu sets the match up first: the number of opponents, each one's AI kind,
and the target score (or the chips settings under chips scoring). Start plays with those
choices and keeps them in the settings file for the next New game; Esc goes back to the menu
and changes nothing. Command-line starts and Play again go straight to the table."""

from __future__ import annotations

from typing import Any

from textual.widgets import Input, Select, Switch

import ai
from kc_tui.config import HUMAN, Config, Opponent
from kc_tui.config.store import config_path, load_config
from kc_tui.engine import Rules
from kc_tui.ui.app import KingsCornersApp
from kc_tui.ui.dialogs.confirm import ResumeDialog
from kc_tui.ui.dialogs.new_game import KEYS_HELP, NewGameDialog
from kc_tui.ui.dialogs.summary import MatchSummary, RoundSummary
from kc_tui.ui.screens.game import GameScreen
from kc_tui.ui.screens.menu import MenuScreen

from .conftest import wait_for
from .gamekit import ONE_ROUND, make_config, new_app, play_app, play_until, screen_text, settle

SIZE = (120, 40)
SMALL = (80, 24)


def menu_app(config: Config | None = None) -> KingsCornersApp:
    return KingsCornersApp(config or make_config(), None, "menu")


async def open_set_up(pilot: Any) -> NewGameDialog:
    """New game in the menu: its set-up (after saying New to the question about a saved match)."""
    app = pilot.app
    await wait_for(pilot, lambda: isinstance(app.screen, MenuScreen))
    await pilot.press("n")
    await wait_for(pilot, lambda: isinstance(app.screen, NewGameDialog | ResumeDialog))
    if isinstance(app.screen, ResumeDialog):
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, NewGameDialog))
    await pilot.pause()
    dialog = app.screen
    assert isinstance(dialog, NewGameDialog)
    return dialog


async def _set_up(pilot: Any, dialog: NewGameDialog, count: int, kinds: dict[int, str], target: str) -> None:
    """Choose ``count`` opponents, the kinds in ``kinds`` (by the opponent's place) and ``target``."""
    await choose(pilot, dialog, "opponent-count", count)
    for place, kind in kinds.items():
        await choose(pilot, dialog, f"opp-kind-{place}", kind)
    await type_into(pilot, dialog, "target", target)


async def choose(pilot: Any, dialog: NewGameDialog, wid: str, value: object) -> None:
    dialog.query_one(f"#{wid}", Select).value = value
    await pilot.pause()


async def type_into(pilot: Any, dialog: NewGameDialog, wid: str, text: str) -> None:
    field = dialog.query_one(f"#{wid}", Input)
    field.focus()
    await pilot.press("ctrl+a", "ctrl+k", *list(text))
    await pilot.pause()


def shown(dialog: NewGameDialog, selector: str) -> bool:
    """Whether the widget and every container around it are displayed."""
    node: Any = dialog.query_one(selector)
    while node is not None and node is not dialog:
        if not node.display:
            return False
        node = node.parent
    return True


async def test_new_game_opens_the_set_up_with_the_settings_choices() -> None:
    config = make_config(rules=Rules(target=30))
    app = menu_app(config)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await open_set_up(pilot)
        assert app.game is None, "New game started a match before its set-up"
        assert dialog.query_one("#opponent-count", Select).value == 2
        assert [dialog.query_one(f"#opp-kind-{i}", Select).value for i in range(2)] == ["greedy", "king-aware"]
        assert shown(dialog, "#opponent-1") and not shown(dialog, "#opponent-2")
        assert dialog.query_one("#target", Input).value == "30"
        # Every kind an opponent may be, as the AI registry declares them, weakest first, then a person.
        offered = [k.name for k in ai.kinds() if k.offered]
        options = dialog.query_one("#opp-kind-0", Select)._options
        assert [value for _label, value in options] == [*offered, HUMAN]
        text = screen_text(app)
        for words in ("New game", "Opponents", "Target score", "Greedy", "Kingsley", "Start", KEYS_HELP):
            assert words in text, words
        # The first choice has the focus: Enter opens it, and a match never starts unseen.
        assert dialog.focused is not None and dialog.focused.id == "opponent-count"
        await pilot.press("enter")
        await pilot.pause()
        assert app.game is None and app.screen is dialog, app.screen


async def test_the_choices_start_a_match_with_those_opponents_and_that_target() -> None:
    app = menu_app()
    async with app.run_test(size=SIZE) as pilot:
        dialog = await open_set_up(pilot)
        await _set_up(pilot, dialog, 3, {0: "random", 2: "expert"}, "7")
        dialog.query_one("#start").focus()
        await pilot.press("enter")
        game = await settle(pilot)
        session = game.session
        assert [s.kind for s in session.seats] == ["human", "random", "king-aware", "expert"]
        # A kind's own default name comes with it; a name the settings gave is kept otherwise.
        assert session.names[1:] == ["Rando", "Kingsley", "Lena"]
        assert session.match.rules.target == 7
        await wait_for(pilot, lambda: "target 7" in screen_text(app))  # once the table is drawn


async def test_the_choices_are_saved_and_offered_at_the_next_new_game() -> None:
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        dialog = await open_set_up(pilot)
        await _set_up(pilot, dialog, 1, {0: "lookahead"}, "40")
        await pilot.press("enter")  # Enter in a field starts too
        await settle(pilot)
        saved = load_config()[0]
        assert saved == app.config
        assert [(o.name, o.kind) for o in saved.opponents] == [("Lookout", "lookahead")]
        assert saved.target == 40
    # A restart reads the file: the set-up opens with the same choices.
    app2 = new_app()
    async with app2.run_test(size=SIZE) as pilot:
        dialog = await open_set_up(pilot)
        assert dialog.query_one("#opponent-count", Select).value == 1
        assert dialog.query_one("#opp-kind-0", Select).value == "lookahead"
        assert dialog.query_one("#target", Input).value == "40"
        assert "Lookout" in screen_text(app2)


async def test_escape_goes_back_to_the_menu_and_changes_no_setting() -> None:
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        before = app.config
        dialog = await open_set_up(pilot)
        await choose(pilot, dialog, "opponent-count", 3)
        await choose(pilot, dialog, "scoring", "chips")
        await type_into(pilot, dialog, "chips_rounds", "3")
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, MenuScreen))
        assert app.game is None and app.config == before
        assert not config_path().exists(), "Esc wrote the settings"
        # The next New game offers the settings as they were.
        dialog = await open_set_up(pilot)
        assert dialog.query_one("#opponent-count", Select).value == len(before.opponents)
        assert dialog.query_one("#scoring", Select).value == "points"


async def test_cancel_with_the_mouse_is_escape() -> None:
    app = new_app()
    async with app.run_test(size=SMALL) as pilot:
        before = app.config
        dialog = await open_set_up(pilot)
        await choose(pilot, dialog, "opp-kind-0", "expert")
        await pilot.click("#cancel")
        await wait_for(pilot, lambda: isinstance(app.screen, MenuScreen))
        assert app.game is None and app.config == before and not config_path().exists()


async def test_escape_leaves_a_settings_file_as_it_was() -> None:
    app = new_app()
    async with app.run_test(size=SIZE) as pilot:
        dialog = await open_set_up(pilot)
        await type_into(pilot, dialog, "target", "90")  # no match ends in one round at 90
        await pilot.press("enter")
        game = await settle(pilot)
        while app.screen is not game:  # the AIs may end a round before the player's first turn
            assert isinstance(app.screen, RoundSummary), app.screen
            await pilot.press("enter")
            game = await settle(pilot)
        await pilot.press("m")
        await wait_for(pilot, lambda: isinstance(app.screen, MenuScreen))
        written = config_path().read_bytes()
        dialog = await open_set_up(pilot)
        assert dialog.query_one("#target", Input).value == "90"
        await type_into(pilot, dialog, "target", "20")
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, MenuScreen))
        assert config_path().read_bytes() == written and app.config.target == 90


async def test_chips_scoring_shows_the_chips_settings_and_not_the_target() -> None:
    app = menu_app()
    async with app.run_test(size=SIZE) as pilot:
        dialog = await open_set_up(pilot)
        assert shown(dialog, "#target") and not shown(dialog, "#chips_rounds")
        await choose(pilot, dialog, "scoring", "chips")
        assert not shown(dialog, "#target") and not shown(dialog, "#target-row")
        for wid in ("#chips_start", "#chips_rounds", "#chips_per_card"):
            assert shown(dialog, wid), wid
        text = screen_text(app)
        assert "Starting chips" in text and "Target score" not in text
        # A bad target does not matter under chips (it is not used), a bad chips field does.
        await type_into(pilot, dialog, "chips_rounds", "0")
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is dialog and app.game is None
        assert "Chips rounds: a whole number from 1" in screen_text(app)
        await type_into(pilot, dialog, "chips_rounds", "4")
        dialog.query_one("#chips_per_card", Switch).value = True
        await pilot.click("#start")
        game = await settle(pilot)
        rules = game.session.match.rules
        assert (rules.scoring, rules.chips_rounds, rules.chips_per_card) == ("chips", 4, True)
        assert rules.target == make_config().target
        assert load_config()[0].rules == rules
    app2 = KingsCornersApp(load_config()[0], None, "menu")
    async with app2.run_test(size=SIZE) as pilot:
        dialog = await open_set_up(pilot)
        assert dialog.query_one("#scoring", Select).value == "chips"
        assert shown(dialog, "#chips_rounds") and not shown(dialog, "#target")
        # Back to points: the target is shown again, the chips settings are not.
        await choose(pilot, dialog, "scoring", "points")
        assert shown(dialog, "#target") and not shown(dialog, "#chips_rounds")


async def test_a_bad_target_keeps_the_set_up_open_and_says_why() -> None:
    app = menu_app()
    async with app.run_test(size=SIZE) as pilot:
        dialog = await open_set_up(pilot)
        await type_into(pilot, dialog, "target", "1000")
        await pilot.click("#start")
        await pilot.pause()
        assert app.screen is dialog and app.game is None
        assert "Target score: a whole number from 5 to 500" in screen_text(app)
        assert dialog.focused is dialog.query_one("#target")
        assert not config_path().exists()


async def test_tab_moves_through_every_choice_and_the_buttons() -> None:
    app = menu_app(make_config(opponents=(Opponent("A", "greedy"), Opponent("B", "greedy"), Opponent("C", "random"))))
    async with app.run_test(size=SMALL) as pilot:
        dialog = await open_set_up(pilot)
        seen: list[str] = []
        for _ in range(12):
            await pilot.press("tab")
            focused = dialog.focused
            assert focused is not None
            seen.append(focused.id or "")
        for wid in ("cancel", "opponent-count", "opp-kind-0", "opp-kind-1", "opp-kind-2", "target", "scoring", "start"):
            assert wid in seen, (wid, seen)


async def test_the_set_up_is_readable_at_80x24() -> None:
    three = (Opponent("Greedy", "greedy"), Opponent("Kingsley", "king-aware"), Opponent("Lena", "lookahead"))
    for rules in (Rules(), Rules(scoring="chips")):
        app = menu_app(make_config(opponents=three, rules=rules))
        async with app.run_test(size=SMALL) as pilot:
            dialog = await open_set_up(pilot)
            text = screen_text(app)
            assert "New game" in text and "Lena" in text and "Start" in text and "Cancel" in text
            assert KEYS_HELP in text
            assert ("per card left" in text) if rules.scoring == "chips" else ("any whole number 5-500" in text)
            body = dialog.query_one("#new-game-body")
            assert body.max_scroll_y == 0, "a part of the set-up is scrolled out of sight"
            for widget in dialog.query("#new-game *"):
                if widget.display and widget.region.area:
                    r = widget.region
                    assert r.right <= SMALL[0] and r.bottom <= SMALL[1], (widget, r)


async def test_names_are_shown_as_they_are_typed() -> None:
    names = ("[b]x[/b]", "[@click=app.quit]q[/]")
    app = menu_app(make_config(opponents=tuple(Opponent(n, "greedy") for n in names)))
    async with app.run_test(size=SIZE) as pilot:
        await open_set_up(pilot)
        text = screen_text(app)
        assert all(n in text for n in names)


async def test_a_settings_file_that_cannot_be_written_still_starts_the_match_and_says_so() -> None:
    app = new_app()
    notes: list[str] = []
    async with app.run_test(size=SIZE) as pilot:
        dialog = await open_set_up(pilot)
        folder = config_path().parent
        folder.parent.mkdir(parents=True, exist_ok=True)
        folder.write_text("a file where the settings' folder goes")
        app.notify = lambda message, **_: notes.append(message)
        await type_into(pilot, dialog, "target", "12")
        await pilot.click("#start")
        game = await settle(pilot)
        assert game.session.match.rules.target == 12
        assert any("not kept for the next" in n and "is a file, not a folder" in n for n in notes), notes


async def test_a_command_line_start_goes_straight_to_the_table() -> None:
    app = play_app()
    async with app.run_test(size=SIZE) as pilot:
        game = await settle(pilot)
        assert app.screen is game
        assert not any(isinstance(s, NewGameDialog) for s in app.screen_stack)


async def test_play_again_starts_at_once_with_the_same_choices() -> None:
    app = play_app(config=make_config(rules=ONE_ROUND))
    async with app.run_test(size=SIZE) as pilot:
        first = await settle(pilot)
        await play_until(pilot, MatchSummary)
        await pilot.press("a")
        await wait_for(pilot, lambda: app.game is not None and app.game is not first)
        again = await settle(pilot)
        assert isinstance(again, GameScreen) and again.session.match.rules.target == 5
        assert not any(isinstance(s, NewGameDialog) for s in app.screen_stack)


async def test_a_person_in_the_settings_is_a_person_in_the_set_up_and_the_match() -> None:
    config = make_config(player_name="Ana", opponents=(Opponent("Ben", HUMAN), Opponent("Greedy", "greedy")))
    app = menu_app(config)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await open_set_up(pilot)
        assert [dialog.query_one(f"#opp-kind-{i}", Select).value for i in range(2)] == [HUMAN, "greedy"]
        assert "Ben" in screen_text(app)
        dialog.action_start()
        await wait_for(pilot, lambda: app.game is not None, what="the match to start")
        game = app.game
        assert game is not None
        assert [(s.name, s.is_human) for s in game.session.seats] == [("Ana", True), ("Ben", True), ("Greedy", False)]
