"""The Stats screen when several people played (kc_tui/ui/screens/stats.py, kc_tui/ui/dialogs/whose_stats.py): it
opens on the Settings name's statistics, names whose they are, lists only their matches, and ``p``
(in the footer only then) picks another person; names are shown literally."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from rich.color import Color
from textual.app import App
from textual.widgets import OptionList, Static

from kc_tui.config import Config
from kc_tui.records.stats_shown import opponents, people_games, rating_view, result
from kc_tui.records.store import History
from kc_tui.ui.dialogs.match_detail import winners_text
from kc_tui.ui.dialogs.whose_stats import PersonPicker
from kc_tui.ui.screens.stats import StatsScreen
from kc_tui.util.printable import possessive

from .conftest import wait_for
from .fitkit import click_actions, shows_whole, styles_showing
from .statskit import BOLD, SIZE, T0, StatsHost, flat, loaded, record_match

CLICK = "[@click=app.quit]q[/]"

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
    assert opponents(first, BOLD) == "Ana (human), Greedy (Greedy)"
    assert winners_text(first, BOLD).plain == "You lost: Ana won."
    assert winners_text(first, "Ana").plain == "You won."


def _two_people(path: Path, name: str) -> History:
    """``name`` and Ana, each alone against greedy (``name`` twice, Ana once)."""
    history, _ = History.open(path)
    for k in range(2):
        record_match(history, [("Greedy", "greedy")], [(0, [0, 20])], me=name, start=T0 + timedelta(k))
    record_match(history, [("Greedy", "greedy")], [(1, [20, 0])], me="Ana", start=T0 + timedelta(3))
    return history


async def test_a_name_like_markup_is_shown_literally_in_the_summarys_title(tmp_path: Path) -> None:
    name = "[bold red]Zoe[/]"
    app = SettingsHost(_two_people(tmp_path / "h.sqlite3", name), name)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded(pilot)
        assert screen.person == name
        title = f"{name}'s results by opponent and table size"
        await wait_for(pilot, lambda: shows_whole(app, title))
        styles = styles_showing(app, title)
        assert styles, f"{title!r} is not on one line"
        words = styles[len(name) :]
        assert all(s == styles[-1] for s in words), "the title's words are styled alike"
        assert all(s == styles[-1] for s in styles[: len(name)]), "the name is styled as the title's other words"
        assert not styles[0].bold and not (styles[0].color and styles[0].color.triplet == Color.parse("red").triplet)


async def test_a_name_like_a_click_action_fires_nothing_on_the_stats_screen(tmp_path: Path) -> None:
    app = SettingsHost(_two_people(tmp_path / "h.sqlite3", CLICK), CLICK)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded(pilot)
        assert screen.person == CLICK
        await wait_for(pilot, lambda: shows_whole(app, "results by opponent and table size"))
        assert not click_actions(app), click_actions(app)
        for y in range(SIZE[1] // 2):
            for x in (1, 2, 4, 8):
                await pilot.click(offset=(x, y))
        await pilot.pause()
        assert app.is_running and app.return_code is None
        assert shows_whole(app, f"{CLICK}'s results by opponent and table size")


async def test_a_player_named_you_reads_your(tmp_path: Path) -> None:
    app = SettingsHost(_two_people(tmp_path / "h.sqlite3", "You"), "You")
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded(pilot)
        assert screen.several and screen.person == "You"
        await wait_for(pilot, lambda: shows_whole(app, "Your results by opponent and table size"))
        assert str(screen.query_one("#rating", Static).render()).startswith("Your rating ")
        assert "You's" not in flat(app)


def test_the_possessive_of_a_name() -> None:
    assert [possessive(n) for n in ("You", "you ", "Ana", "James", "Youssef")] == [
        "Your",
        "Your",
        "Ana's",
        "James's",
        "Youssef's",
    ]
