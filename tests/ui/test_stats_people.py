"""The Stats screen when several people played (kc_tui/ui/screens/stats.py, stats_people.py): it
opens on the Settings name's statistics, names whose they are, lists only their matches, and ``p``
(in the footer only then) picks another person; names are shown literally."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from textual.app import App
from textual.widgets import OptionList, Static

from kc_tui.config import Config
from kc_tui.records.store import History
from kc_tui.ui.dialogs.match_detail import winners_text
from kc_tui.ui.screens.stats import StatsScreen
from kc_tui.ui.screens.stats_people import PersonPicker
from kc_tui.ui.stats_data import opponents, people_games, rating_view, result

from .statskit import BOLD, SIZE, T0, StatsHost, flat, loaded, record_match

pytestmark = pytest.mark.usefixtures("fixed_world")


def _family(path: Path) -> History:
    """Ana and the player named like markup at one table with a greedy AI (Ana wins both), and
    the other alone against greedy twice."""
    history, _ = History.open(path)
    for k in range(2):
        record_match(
            history, [(BOLD, "human"), ("Greedy", "greedy")], [(0, [0, 20, 30])], me="Ana", start=T0 + timedelta(k)
        )
    for k in range(2, 4):
        record_match(history, [("Greedy", "greedy")], [(0, [0, 20])], me=BOLD, start=T0 + timedelta(k))
    return history


class SettingsHost(StatsHost):
    """The Stats screen over an app whose Settings name is ``name``."""

    def __init__(self, history: History | None, name: str) -> None:
        super().__init__(history)
        self.config = Config(player_name=name)


def _title(app: App[None]) -> str:
    return str(app.screen.query_one("#stats-title", Static).render())


async def test_the_screen_opens_on_the_settings_name_and_p_picks_another(tmp_path: Path) -> None:
    app = SettingsHost(_family(tmp_path / "h.sqlite3"), "Ana")
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded(pilot)
        assert screen.people == [BOLD, "Ana"] and screen.person == "Ana"
        assert _title(app) == "Statistics of Ana"
        assert str(screen.query_one("#rating", Static).render()).startswith("Ana's rating ")
        assert screen.total == 2 and [m.id for m in screen.listed] == [2, 1]
        assert screen.data is not None and screen.data.summary.overall.matches_won == 2
        assert "p Player" in flat(app)
        await pilot.press("p")
        await pilot.pause()
        assert isinstance(app.screen, PersonPicker)
        names = app.screen.query_one(OptionList)
        assert [str(names.get_option_at_index(i).prompt) for i in range(names.option_count)] == [BOLD, "Ana"]
        await pilot.press("up", "enter")
        await pilot.pause()
        screen = await loaded(pilot)
        assert isinstance(screen, StatsScreen) and screen.person == BOLD
        assert _title(app) == f"Statistics of {BOLD}"  # literally: the name is not markup
        assert screen.total == 4 and screen.data is not None and screen.data.summary.overall.matches_won == 2
        assert str(screen.query_one("#rating", Static).render()).startswith(f"{BOLD}'s rating ")
        await pilot.press("p", "escape")  # Escape keeps the one shown
        await pilot.pause()
        assert pilot.app.screen is screen


async def test_a_settings_name_that_never_played_shows_who_played_most(tmp_path: Path) -> None:
    app = SettingsHost(_family(tmp_path / "h.sqlite3"), "Nobody")
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded(pilot)
        assert screen.person == BOLD and screen.total == 4


async def test_one_player_has_no_pick_and_the_screen_reads_as_ever(tmp_path: Path) -> None:
    history, _ = History.open(tmp_path / "h.sqlite3")
    record_match(history, [("Greedy", "greedy")], [(0, [0, 20])], me="Ana")
    app = SettingsHost(history, "Someone else")
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded(pilot)
        assert screen.people == ["Ana"] and not screen.several
        assert _title(app) == "Statistics"
        assert str(screen.query_one("#rating", Static).render()).startswith("Your rating ")
        assert "p Player" not in flat(app)
        await pilot.press("p")
        await pilot.pause()
        assert app.screen is screen


def test_the_people_are_rated_together_and_a_match_reads_from_the_persons_seat(tmp_path: Path) -> None:
    history = _family(tmp_path / "h.sqlite3")
    every = sorted(history.matches(), key=lambda m: m.id)
    history.close()
    first = every[0]
    assert people_games(first) == ([("Ana", "greedy", 1.0), (BOLD, "greedy", 1.0)], [("Ana", BOLD, 1.0)])
    ana, other = rating_view(every, person="Ana", who="Ana"), rating_view(every, person=BOLD)
    assert ana.value is not None and other.value is not None
    assert [k for k, _ in ana.series] == [1, 2] and [k for k, _ in other.series] == [1, 2, 3, 4]
    assert ana.line.startswith("Ana's rating ") and other.line.startswith("Your rating ")
    # Ana beat the other player twice and greedy twice; the other beat greedy four times.
    alone = rating_view(every[2:], person=BOLD)
    assert alone.value is not None and other.value < alone.value < ana.value
    assert result(first, "Ana") == "won" and result(first, BOLD) == "lost"
    assert opponents(first, BOLD) == "Ana (human), Greedy (greedy)"
    assert winners_text(first, BOLD).plain == "You lost: Ana won."
    assert winners_text(first, "Ana").plain == "You won."
