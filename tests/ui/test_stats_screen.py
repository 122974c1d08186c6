"""The Stats screen: the empty state, a full history (rating, summary, plots, the list
of matches), a match opened from the list, Escape, names shown literally; snapshots at 120x40."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from textual.app import App
from textual.binding import Binding
from textual.pilot import Pilot
from textual.widgets import Button, DataTable, Static, TabbedContent

from ai import ai_kinds
from kc_tui.config import seat_kind_title
from kc_tui.i18n import LANGUAGES, use
from kc_tui.match.session import MatchSession
from kc_tui.records.rating import player_rating
from kc_tui.records.stats_shown import NO_RATING, REFERENCE_WIDTH, curve, reference_lines
from kc_tui.records.store import History
from kc_tui.ui.commands import MENU_COMMANDS
from kc_tui.ui.dialogs.match_detail import MatchDetail
from kc_tui.ui.dialogs.summary import MatchSummary
from kc_tui.ui.screens.menu import MenuScreen
from kc_tui.ui.screens.stats import PAGE, MatchList, StatsScreen
from kc_tui.ui.widgets.plot import ANSI, Y_TICKS, LegendPlot, exact_ticks
from tests.historykit import ANCHORS

from .conftest import wait_for
from .gamekit import ONE_ROUND, make_config, play_app, play_until, screen_text
from .statskit import (
    BOLD,
    SIZE,
    T0,
    StatsHost,
    columns_in_colour,
    flat,
    full_history,
    loaded,
    plot_lines,
    record_match,
    y_ticks,
)

pytestmark = pytest.mark.usefixtures("fixed_world")


async def _leave_with(pilot: Pilot[Any], key: str) -> None:
    """Press ``key``: the statistics screen is left."""
    await pilot.press(key)
    await pilot.pause()
    assert not isinstance(pilot.app.screen, StatsScreen)


# ---------------------------------------------------------------------------- empty and off
async def test_empty_history_says_so_and_escape_goes_back(tmp_path: Path) -> None:
    history, _ = History.open(tmp_path / "h.sqlite3")
    app = StatsHost(history)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded(pilot)
        text = flat(app)
        assert "No matches yet" in text and NO_RATING in text
        assert "Summary" not in text and "esc Back" in text  # no tabs, nor their keys in the footer
        assert not screen.query(TabbedContent)
        await pilot.press("3")  # no tabs to switch to: nothing happens
        await _leave_with(pilot, "escape")


async def test_no_history_at_all() -> None:
    app = StatsHost(None)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert "history is off or could not be opened" in flat(app)
        await _leave_with(pilot, "q")


# ---------------------------------------------------------------------------- a full history
async def test_full_history_shows_rating_summary_streaks_and_matches(tmp_path: Path) -> None:
    app = StatsHost(full_history(tmp_path / "h.sqlite3"))
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded(pilot)
        rating = str(screen.query_one("#rating", Static).render())
        assert rating.startswith("Your rating ") and "±" in rating
        assert any(w in rating for w in ("between", "above", "below", "level with"))
        text = flat(app)
        # One row per opponent kind and table size, and all of them together.
        summary = screen.data
        assert summary is not None
        groups = {(g.opponent, g.table_size): g for g in summary.summary.groups}
        assert set(groups) == {("greedy", 2), ("greedy", 3), ("king-aware", 2), ("king-aware", 3), ("lookahead", 2)}
        assert groups["greedy", 2].matches == 2 and groups["greedy", 2].matches_won == 1
        for words in ("Greedy", "King-aware", "Lookahead", "Penalty", "Hints", "/round", "Winning streak"):
            assert words in text, words
        assert "1 unfinished match" in text
        assert "Best match: #4" in text  # 0 against 53: the widest margin
        assert "Worst match: #2" in text
        # The rating over time: one point per finished match against rated AIs.
        assert screen.rating is not None
        assert [k for k, _ in screen.rating.series] == [1, 2, 3, 4, 5]
        # The list: every match, newest first.
        await pilot.press("3")
        await pilot.pause()
        assert screen.query_one(TabbedContent).active == "matches"
        table = screen.query_one(MatchList)
        assert table.has_focus and table.row_count == 6
        assert [m.id for m in screen.listed] == [6, 5, 4, 3, 2, 1]
        text = flat(app)
        assert "unfinished" in text and "won" in text and "lost" in text
        assert BOLD + " (King-aware)" in text  # the name is shown as it is, not as bold markup


async def test_enter_opens_a_match_and_escape_closes_it(tmp_path: Path) -> None:
    app = StatsHost(full_history(tmp_path / "h.sqlite3"))
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded(pilot)
        await pilot.press("3", "down", "down", "down")  # match 3: the three-seat one
        await pilot.press("enter")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, MatchDetail) and dialog.record.id == 3
        assert len(dialog.record.rounds) == 3
        text = flat(app)
        assert BOLD in text  # literally, in the table's header and the plot's legend
        assert "You won." in text
        # Round by round: who went out is marked *, the others' penalties; the totals at the foot.
        assert "1 * 12 9" in text and "2 8 17 *" in text and "3 * 30 14" in text
        assert "Total 8 59 23" in text
        assert "Match #3: penalty points after each round" in text
        assert "* went out · the others: penalty points for the cards left in their hands" in text, text
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen
        await _leave_with(pilot, "escape")


async def test_a_click_on_a_row_opens_that_match(tmp_path: Path) -> None:
    app = StatsHost(full_history(tmp_path / "h.sqlite3"))
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded(pilot)
        await pilot.press("3")
        await pilot.pause()
        table = screen.query_one(MatchList)
        await pilot.click(table, offset=(3, 2))  # header, then the first row, then the second
        await pilot.pause()
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, MatchDetail), app.screen
        assert dialog.record.id == 5
        assert "You won." in flat(app)


async def test_the_plots_show_the_rating_and_the_chosen_match(tmp_path: Path) -> None:
    app = StatsHost(full_history(tmp_path / "h.sqlite3"))
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded(pilot)
        assert "Your rating after each match" in flat(app)  # under the summary
        await pilot.press("2")
        await pilot.pause()
        text = flat(app)
        assert "How matches ended: ahead of the best opponent (+) or behind (-)" in text
        assert "Match #6" in text  # the newest, until another is chosen in the list
        await pilot.press("3", "down", "down", "down", "2")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert screen.chosen == 3
        text = flat(app)
        assert "Match #3" in text and BOLD in text


async def test_the_list_loads_more_as_the_cursor_nears_its_end(tmp_path: Path) -> None:
    history, _ = History.open(tmp_path / "h.sqlite3")
    n = PAGE + 15
    for k in range(n):
        record_match(
            history, [("Greedy", "greedy")], [(k % 2, [0, 5] if k % 2 == 0 else [5, 0])], start=T0 + timedelta(hours=k)
        )
    app = StatsHost(history)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded(pilot)
        table = screen.query_one(DataTable)
        assert table.row_count == PAGE
        await pilot.press("3", "end")
        await wait_for(pilot, lambda: table.row_count == n, what="every match listed")
        assert table.row_count == n
        assert [m.id for m in screen.listed] == list(range(n, 0, -1))
        assert f"{n} matches, newest first" in flat(app)


def test_the_rating_curve_is_the_players_rating_after_each_match() -> None:
    """The curve's quick fit (sums per kind) gives what kc_tui.records.rating.player_rating gives over
    the games up to each point; the curve is thinned to at most ``points`` points, the last kept."""
    per_match = [
        [("greedy", 1.0)],
        [("greedy", 0.0), ("expert", 0.5)],
        [("lookahead", 1.0), ("king-aware", 1.0), ("greedy", 1.0)],
        [("expert", 0.0)],
        [("lookahead", 0.0)],
    ]
    values = {k: r.value for k, r in ANCHORS.items()}
    got = curve(per_match, values)
    assert [k for k, _ in got] == [1, 2, 3, 4, 5]
    for k, value in got:
        games = [g for m in per_match[:k] for g in m]
        assert value == pytest.approx(player_rating(games, ANCHORS).value, abs=1e-6)
    assert [k for k, _ in curve(per_match * 20, values, points=7)] == [15, 30, 45, 60, 75, 90, 100]


def test_ai_kinds_rated_within_a_plot_row_are_one_reference_line() -> None:
    """Kinds rated a few points apart would be drawn on the same row of the plot, one hiding the
    other: they are one line named after both, at their mean; kinds out of range are left out."""
    anchors = [("random", 102.0), ("greedy", 1000.0), ("king-aware", 1006.0), ("lookahead", 1045.0), ("expert", 1048.0)]
    assert reference_lines(anchors, 900.0, 1200.0) == [
        ("Greedy/King-aware", 1003.0),
        ("Lookahead/Expert", 1046.5),
    ]
    # A narrower range (a plot row of fewer points) keeps them apart.
    assert reference_lines(anchors, 990.0, 1060.0) == [
        ("Greedy", 1000.0),
        ("King-aware", 1006.0),
        ("Lookahead", 1045.0),
        ("Expert", 1048.0),
    ]
    assert reference_lines(anchors, 0.0, 200.0) == [("Random", 102.0)]
    assert reference_lines(anchors, 1100.0, 1300.0) == []
    # The legend shows any two kinds' joined names whole.
    try:
        for code in LANGUAGES:
            use(code)
            names = [seat_kind_title(k) for k in ai_kinds()]
            assert all(len(f"{a}/{b}") <= REFERENCE_WIDTH for a in names for b in names), (code, names)
    finally:
        use("en")


async def test_a_match_played_on_screen_shows_in_the_stats() -> None:
    """End to end: a short match played through the table, then Statistics from the app."""
    app = play_app(config=make_config(rules=ONE_ROUND))
    async with app.run_test(size=SIZE) as pilot:
        await play_until(pilot, MatchSummary)
        assert app.history is not None
        await app.run_action("stats")
        screen = await loaded(pilot)
        assert screen.total == 1 and len(screen.listed) == 1
        m = screen.listed[0]
        assert [s.kind for s in m.seats] == ["human", "greedy", "king-aware"] and m.finished_at is not None
        await wait_for(pilot, lambda: screen.data is not None)
        data = screen.data
        assert data is not None and data.summary.overall.matches == 1
        assert {(g.opponent, g.table_size) for g in data.summary.groups} == {("greedy", 3), ("king-aware", 3)}
        assert "Your rating " in flat(app)
        await pilot.press("3", "enter")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, MatchDetail) and dialog.record.rounds


# ---------------------------------------------------------------------------- menu and palette
def test_statistics_is_in_the_menu_and_the_palette() -> None:
    assert ("Statistics", "stats") in [(t, a) for t, a, _ in MENU_COMMANDS]
    assert any(b.action == "app.stats" for b in MenuScreen.BINDINGS if isinstance(b, Binding))


async def test_the_menu_button_runs_the_apps_stats_action() -> None:
    class MenuHost(App[None]):
        opened = 0

        def on_mount(self) -> None:
            self.push_screen(MenuScreen())

        def action_stats(self) -> None:
            self.opened += 1

    app = MenuHost()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.click("#stats")
        await pilot.pause()
        await pilot.press("t")
        await pilot.pause()
        assert app.opened == 2
        assert isinstance(app.screen.query_one("#stats"), Button)


@pytest.mark.parametrize("saved", [False, True])
async def test_the_menu_with_statistics_fits_80x24(saved: bool) -> None:
    """Nine buttons (ten with Resume) do not fit 80x24 bordered: they become a line each, every one
    whole on screen; at 100x40 they keep their borders."""
    if saved:
        MatchSession.from_config(make_config(), 5).save()
    for size, compact in (((80, 24), True), ((100, 40), False)):
        app = play_app(mode="menu")
        async with app.run_test(size=size) as pilot:
            await wait_for(pilot, lambda: isinstance(pilot.app.screen, MenuScreen))
            menu = app.screen
            assert isinstance(menu, MenuScreen)
            buttons = [b for b in menu.query(Button) if b.display]
            assert len(buttons) == (10 if saved else 9)
            for b in buttons:
                assert b.compact is compact
                assert menu.region.contains_region(b.region), (size, b.id, b.region)
            assert "Statistics  (t)" in screen_text(app)


# ---------------------------------------------------------------------------- snapshots
def test_snapshot_empty(snap_compare: Any, tmp_path: Path) -> None:
    history, _ = History.open(tmp_path / "h.sqlite3")

    async def run_before(pilot: Any) -> None:
        await loaded(pilot)

    assert snap_compare(StatsHost(history), terminal_size=SIZE, run_before=run_before)


def test_snapshot_full(snap_compare: Any, tmp_path: Path) -> None:
    history = full_history(tmp_path / "h.sqlite3")

    async def run_before(pilot: Any) -> None:
        await loaded(pilot)

    assert snap_compare(StatsHost(history), terminal_size=SIZE, run_before=run_before)


def test_snapshot_match_detail(snap_compare: Any, tmp_path: Path) -> None:
    history = full_history(tmp_path / "h.sqlite3")

    async def run_before(pilot: Any) -> None:
        await loaded(pilot)
        await pilot.press("3", "down", "down", "down", "enter")
        await pilot.pause()

    assert snap_compare(StatsHost(history), terminal_size=SIZE, run_before=run_before)


def assert_ticks_at_their_values(plot: LegendPlot) -> None:
    """The plot's y ticks are labelled at their true rows: as many units a row all the way."""
    ticks = y_ticks(plot)
    assert len(ticks) >= 2, "\n".join(line.plain for line in plot_lines(plot))
    (top_row, top), (bottom_row, bottom) = ticks[0], ticks[-1]
    per_row = (top - bottom) / (bottom_row - top_row)
    drawn = [(row, top - (row - top_row) * per_row) for row, _ in ticks]
    assert [v for _, v in ticks] == pytest.approx([v for _, v in drawn]), ticks


def drawn_plot(screen: StatsScreen, wid: str) -> LegendPlot | None:
    """The plot ``#wid`` once it has been built and draws its ticks, else None."""
    plots = screen.query(f"#{wid}").results(LegendPlot)
    plot = next(iter(plots), None)
    return plot if plot is not None and y_ticks(plot) else None


@pytest.mark.parametrize("size", [(80, 24), SIZE], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_the_plots_ticks_are_at_their_true_values(tmp_path: Path, size: tuple[int, int]) -> None:
    app = StatsHost(full_history(tmp_path / "h.sqlite3"))
    async with app.run_test(size=size) as pilot:
        screen = await loaded(pilot)
        for tab, wid in (("1", "rating-plot"), ("2", "margin-plot"), ("2", "match-plot")):
            await pilot.press(tab)
            await wait_for(pilot, lambda wid=wid: drawn_plot(screen, wid) is not None)  # type: ignore[misc]
            plot = drawn_plot(screen, wid)
            assert plot is not None
            assert_ticks_at_their_values(plot)


async def test_an_ai_reference_line_spans_the_whole_rating_plot(tmp_path: Path) -> None:
    """Won and lost in turn against greedy, the player's rating comes to greedy's: the
    player's line runs along greedy's reference line, which still shows from end to end."""
    history, _ = History.open(tmp_path / "h.sqlite3")
    for k in range(10):
        won = k % 2 == 0
        record_match(history, [("Greedy", "greedy")], [(0, [0, 60]) if won else (1, [60, 0])], start=T0 + timedelta(k))
    app = StatsHost(history)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded(pilot)
        plot = screen.query_one("#rating-plot", LegendPlot)
        await wait_for(pilot, lambda: bool(y_ticks(plot)))
        await pilot.pause()
        assert plot.legend[0][0].startswith("Greedy") and plot.legend[0][1] == "cyan", plot.legend
        lines = [line.plain for line in plot_lines(plot)]
        frame = next(line for line in lines if "┤" in line)
        left, right = frame.index("┤"), frame.rindex("│")
        cyan = columns_in_colour(plot, ANSI["cyan"])
        assert cyan and cyan[0] <= left + 3 and cyan[-1] >= right - 3, (left, right, cyan, "\n".join(lines))


@pytest.mark.parametrize("rows", [2, 3, 4, 5, 7, 9, 12, 20])
@pytest.mark.parametrize(("lo", "hi"), [(0, 9), (-40, 20), (620, 1080), (0, 0), (995, 1005), (-3, 47), (0, 300)])
def test_every_tick_is_on_a_row_at_its_value(lo: float, hi: float, rows: int) -> None:
    ticks, (bottom, top) = exact_ticks(lo, hi, rows)
    assert bottom <= lo and top >= hi and 2 <= len(ticks) <= Y_TICKS + 1
    unit = (top - bottom) / (rows - 1)
    for t in ticks:
        assert bottom - 1e-6 <= t <= top + 1e-6
        assert (t - bottom) / unit == pytest.approx(round((t - bottom) / unit)), (ticks, bottom, top)
