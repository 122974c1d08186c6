"""The Stats screen against a history that changes under it or holds values it should never hold:
matches recorded by another window while the list pages, rows that cannot be read, rules of the
wrong type, margins and totals far out of range, names of millions of characters."""

from __future__ import annotations

import dataclasses
import sqlite3
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import DataTable, Static

from kc_tui.config import NAME_MAX
from kc_tui.records.bounded import VALUE_MAX, safe_record, safe_summary
from kc_tui.records.rows import MatchRecord, RoundRecord, SeatInfo
from kc_tui.records.stats_shown import opponents, score_series, scoring_text, totals_text
from kc_tui.records.store import History
from kc_tui.records.summaries import MatchPoint, Summary
from kc_tui.ui.dialogs.match_detail import MatchDetail
from kc_tui.ui.screens.stats import PAGE, MatchList, StatsScreen
from tests.timingkit import TIMED, within

from .conftest import wait_for
from .statskit import SIZE, T0, StatsHost, flat, loaded, record_match

pytestmark = pytest.mark.usefixtures("fixed_world")

HUGE = 9 * 10**18
LONG_NAME = "N" * 10_000_000


def one_round(history: History, k: int) -> int:
    """A short finished match against greedy, ``k`` hours after T0 (newer for bigger ``k``)."""
    return record_match(history, [("Greedy", "greedy")], [(0, [0, 5])], start=T0 + timedelta(hours=k))


async def wait_rows(pilot: Any, table: DataTable[Any], at_least: int) -> None:
    await wait_for(pilot, lambda: table.row_count >= at_least, what=f"{at_least} rows listed")
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


# ---------------------------------------------------------------------------- paging
async def test_paging_survives_new_matches_from_another_window_and_an_unreadable_row(tmp_path: Path) -> None:
    """The list pages by rows of the query, not by rows listed: a row skipped as unreadable on
    the first page and matches recorded meanwhile by a second connection (new rows at the top,
    which push every older row down) neither list a match twice nor leave one out."""
    path = tmp_path / "h.sqlite3"
    history, _ = History.open(path)
    n = 2 * PAGE + 20
    ids = [one_round(history, k) for k in range(n)]  # ids[-1] is the newest
    damaged = ids[-5]  # on the first page
    with sqlite3.connect(path) as con:
        con.execute("UPDATE matches SET seed = 'not a seed' WHERE id = ?", (damaged,))
    con.close()
    other, _ = History.open(path)
    app = StatsHost(history)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded(pilot)
        table = screen.query_one(MatchList)
        assert table.row_count == PAGE - 1  # the damaged row is not listed
        await pilot.press("3")
        for k in range(2):
            for j in range(3):  # another window records matches between page loads
                one_round(other, 10_000 + 10 * k + j)
            before = table.row_count
            await pilot.press("end")
            await wait_rows(pilot, table, before + 1)
            assert table.row_count > before, "the next page did not load"
        await pilot.press("end")
        await wait_rows(pilot, table, n - 1)
        listed = [m.id for m in screen.listed]
        assert len(listed) == len(set(listed)), "a match is listed twice"
        old = [i for i in reversed(ids) if i != damaged]
        assert [i for i in listed if i in set(old)] == old  # every readable match, newest first
        assert app.is_running and isinstance(app.screen, StatsScreen)
        assert "newest first" in flat(app) and "more as you scroll" not in flat(app)
    other.close()
    history.close()


async def test_a_page_of_rows_that_cannot_be_read_does_not_stop_the_list(tmp_path: Path) -> None:
    """A whole page of unreadable rows lists nothing: the list goes on to the next page."""
    path = tmp_path / "h.sqlite3"
    history, _ = History.open(path)
    ids = [one_round(history, k) for k in range(2 * PAGE + 5)]
    newest_first = ids[::-1]
    bad = newest_first[PAGE : 2 * PAGE]  # the whole second page
    with sqlite3.connect(path) as con:
        con.executemany("UPDATE matches SET seed = 'x' WHERE id = ?", [(i,) for i in bad])
    con.close()
    app = StatsHost(history)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded(pilot)
        table = screen.query_one(MatchList)
        await pilot.press("3", "end")
        await wait_rows(pilot, table, PAGE + 5)
        assert [m.id for m in screen.listed] == newest_first[:PAGE] + newest_first[2 * PAGE :]
    history.close()


# ---------------------------------------------------------------------------- records built directly
def chips_record(**changes: Any) -> MatchRecord:
    seats = (SeatInfo("You", "human"), SeatInfo("Greedy", "greedy", 200))
    rounds = (
        RoundRecord(1, 0, (0, 1), 0, (0, 3), (3, -3), (53, 47), (), 0, 0, T0 + timedelta(minutes=5)),
        RoundRecord(2, 1, (0, 1), 1, (2, 0), (-2, 2), (HUGE, -HUGE), (), 0, 0, T0 + timedelta(minutes=9)),
    )
    fields: dict[str, Any] = {
        "id": 7,
        "started_at": T0,
        "finished_at": T0 + timedelta(minutes=10),
        "demo": False,
        "seats": seats,
        "rules": {"scoring": "chips", "chips_start": "x", "target": 2.5},
        "seed": 1,
        "first_dealer": 0,
        "winners": (0, 9),
        "totals": (HUGE, -HUGE),
        "rounds": rounds,
    }
    fields.update(changes)
    return MatchRecord(**fields)


def test_a_record_with_bad_rules_and_huge_values_is_shown_within_bounds() -> None:
    m = chips_record(seats=(SeatInfo(LONG_NAME, "human"), SeatInfo(LONG_NAME, "x" * 1000)))
    shown = safe_record(m)
    assert "chips_start" not in shown.rules and "target" not in shown.rules
    assert scoring_text(m) == scoring_text(shown) == "chips, 50 each"  # the default start
    assert shown.winners == (0,)
    assert shown.totals == (VALUE_MAX, -VALUE_MAX)
    series = score_series(m)
    assert [line[0] for _, line in series] == [50, 50]
    assert max(abs(v) for _, line in series for v in line) == VALUE_MAX
    assert all(len(name) <= NAME_MAX for name, _ in series)
    assert all(len(s.name) <= NAME_MAX and len(s.kind) <= NAME_MAX for s in shown.seats)
    assert len(opponents(m)) < 60 and len(totals_text(m)) < 60
    ok = chips_record(rules={"scoring": "chips", "chips_start": 40}, totals=(53, 47), winners=(0,))
    ok = dataclasses.replace(ok, rounds=ok.rounds[:1])
    assert safe_record(ok) is ok  # a sound record is shown as it is


def test_a_summary_with_huge_margins_and_long_kinds_is_clamped() -> None:
    point = MatchPoint(1, T0, HUGE, True, HUGE)
    summary = Summary(points=(point, MatchPoint(2, T0, 0, False, -HUGE)), best=point)
    shown = safe_summary(summary)
    assert [p.margin for p in shown.points] == [VALUE_MAX, -VALUE_MAX]
    assert shown.best is not None and shown.best.margin == VALUE_MAX


@pytest.mark.parametrize("timed", TIMED)
async def test_the_screen_shows_records_and_a_summary_built_with_bad_values(tmp_path: Path, timed: bool) -> None:
    """The history's reads replaced by records and a summary built directly: rules of the wrong
    type, totals and margins of 9e18, a name of 10 MB. Every tab draws, the match opens."""
    history, _ = History.open(tmp_path / "h.sqlite3")
    record_match(history, [("Greedy", "greedy")], [(0, [0, 5])])
    m = chips_record(seats=(SeatInfo("You", "human"), SeatInfo(LONG_NAME, "greedy", 200)))
    summary = Summary(
        points=(MatchPoint(7, T0, HUGE, True, HUGE), MatchPoint(7, T0, -HUGE, False, -HUGE)),
        best=MatchPoint(7, T0, HUGE, True, HUGE),
    )
    history.matches = lambda **_: [m]  # type: ignore[method-assign]
    history.match = lambda match_id: m  # type: ignore[method-assign]
    history.summary = lambda *_: summary  # type: ignore[method-assign]
    app = StatsHost(history)
    async with app.run_test(size=SIZE) as pilot:
        with within(10, timed, "the screen's tabs and a match's rounds"):
            screen = await loaded(pilot)
            await pilot.press("2")
            await pilot.pause()
            assert "How matches ended" in flat(app) and "Match #7" in flat(app)
            await pilot.press("3", "enter")
            await pilot.pause()
            assert isinstance(app.screen, MatchDetail)
            text = flat(app)
            assert "chips, 50 each" in text and "NNNNNNNNNNNNNNNNNNNN" not in text
        assert screen.listed[0].seats[1].name == "N" * (NAME_MAX - 3) + "..."


@pytest.mark.parametrize("timed", TIMED)
async def test_the_screen_survives_a_tampered_database(tmp_path: Path, timed: bool) -> None:
    """Values written with sqlite3 directly: chips rules with a starting stack of "x", a kept
    margin of 9e18 (and of -9e18), a seat name of 10 MB. The history leaves the unreadable match
    out (and says so); the screen opens quickly, shows every tab and the sound match in bounds."""
    path = tmp_path / "h.sqlite3"
    history, _ = History.open(path)
    first = record_match(history, [("Greedy", "greedy")], [(0, [0, 5])])
    second = record_match(history, [("Kingsley", "king-aware")], [(1, [7, 0])], start=T0 + timedelta(days=1))
    with sqlite3.connect(path) as con:
        con.execute(
            "UPDATE matches SET rules = ?, player_margin = ?, player_total = ? WHERE id = ?",
            ('{"scoring":"chips","chips_start":"x"}', HUGE, HUGE, second),
        )
        con.execute("UPDATE matches SET player_margin = ? WHERE id = ?", (-HUGE, first))
        con.execute("UPDATE seats SET name = ? WHERE match_id = ? AND position = 1", (LONG_NAME, second))
    con.close()
    history.close()
    history, _ = History.open(path)
    app = StatsHost(history)
    with within(10, timed, "the screen over a tampered database"):
        async with app.run_test(size=SIZE) as pilot:
            screen = await loaded(pilot)
            rating = str(screen.query_one("#rating", Static).render())
            assert rating.startswith("Your rating")
            await pilot.press("2")
            await app.workers.wait_for_complete()
            await pilot.pause()
            text = flat(app)
            assert "How matches ended" in text and f"Match #{second}" not in text
            await pilot.press("3")
            await pilot.pause()
            assert [m.id for m in screen.listed] == [first]
            await pilot.press("enter")
            await pilot.pause()
            dialog = app.screen
            assert isinstance(dialog, MatchDetail) and dialog.record.id == first
    assert any(f"match {second} was skipped" in p for p in history.problems), history.problems
    history.close()
