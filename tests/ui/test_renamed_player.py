"""A player who renames themselves in Settings: the Settings screen says that the matches played
under the old name stay under it, and Stats, opened on the new name, counts the match that can
still be resumed as in progress (not as left before the end) and names the old name, which ``p``
picks."""

from __future__ import annotations

from textual.widgets import Static

from kc_tui.engine import Rules
from kc_tui.records.rows import default_history_path
from kc_tui.records.store import History
from kc_tui.ui.app import KingsCornersApp
from kc_tui.ui.dialogs.summary import RoundSummary
from kc_tui.ui.dialogs.whose_stats import PersonPicker
from kc_tui.ui.screens.menu import MenuScreen
from kc_tui.ui.screens.stats import StatsScreen

from .conftest import wait_for
from .fitkit import content
from .gamekit import make_config, new_game, open_settings, play_until, set_input, settle
from .statskit import SIZE, flat, loaded, record_match


async def test_a_renamed_player_is_told_where_the_statistics_are_and_stats_finds_them() -> None:
    history, problem = History.open(default_history_path())
    assert problem is None
    record_match(history, [("Greedy", "greedy")], [(0, [0, 14]), (0, [0, 40])])
    history.close()
    app = KingsCornersApp(make_config(rules=Rules(target=100, hand_size=4)), None, "menu")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, MenuScreen))
        settings = await open_settings(pilot)
        note = settings.query_one("#player-name-stats", Static)
        assert not note.display, "nothing to say before the name changes"
        await set_input(pilot, settings, "player-name", "Ana")
        await wait_for(pilot, lambda: note.display)
        said = " ".join(content(note).split())
        assert "You" in said and "p shows them" in said, said
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, MenuScreen))
        assert app.config.player_name == "Ana"
        # A round played as Ana: the match is in the history, unfinished, and can be resumed.
        await new_game(pilot)
        summary = await play_until(pilot, RoundSummary)
        summary.action_close()
        game = await settle(pilot)
        while isinstance(app.screen, RoundSummary):  # an AI went out before Ana's turn came
            app.screen.action_close()
            game = await settle(pilot)
        assert game.session.names[0] == "Ana" and not game.session.match.over
        await pilot.press("m")
        await wait_for(pilot, lambda: isinstance(app.screen, MenuScreen))
        await pilot.press("t")
        await wait_for(pilot, lambda: isinstance(app.screen, StatsScreen))
        stats = await loaded(pilot)
        assert stats.person == "Ana"
        await wait_for(pilot, lambda: "in progress" in flat(app))
        text = flat(app)
        assert "left before the end" not in text, text
        assert "Also played here: You. p shows their statistics." in text, text
        await pilot.press("p")
        await wait_for(pilot, lambda: isinstance(app.screen, PersonPicker))
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, StatsScreen) and app.screen.person == "You")
        await loaded(pilot)
        assert "won" in flat(app)
