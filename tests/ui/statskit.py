"""Helpers for the Stats screen's tests (and the statistics of the command line): a history
recorded as a player's, the screen over a bare app, its statistics waited for (the tests use
the ``fixed_world`` fixture of tests/conftest.py: UTC times, fixed AI ratings)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from rich.style import Style
from rich.text import Text
from textual.app import App

from kc_tui.engine import Rules
from kc_tui.records.rows import SeatInfo
from kc_tui.records.store import History
from kc_tui.screenshots import record_made_match
from kc_tui.ui.screens.stats import StatsScreen

from .gamekit import screen_text

SIZE = (120, 40)
T0 = datetime(2026, 3, 1, 18, 0, tzinfo=UTC)
BOLD = "[b]x[/b]"


def record_match(
    history: History,
    opponents: Sequence[tuple[str, str]],
    rounds: Sequence[tuple[int | None, Sequence[int]]],
    *,
    start: datetime = T0,
    me: str = "You",
    finish: bool = True,
    target: int = 50,
) -> int:
    """Record a match of the player (seat 0) against ``opponents`` ((name, kind)); ``rounds``:
    (who went out, every seat's penalty). The lowest total wins when ``finish``."""
    seats = [SeatInfo(me, "human"), *(SeatInfo(name, kind, 200) for name, kind in opponents)]
    return record_made_match(
        history,
        seats,
        [(winner, penalties, number % 2, 0) for number, (winner, penalties) in enumerate(rounds, 1)],
        rules=Rules(target=target),
        seed=11,
        first_dealer=0,
        started_at=start,
        minutes=5,
        finish=finish,
    )


def full_history(path: Path) -> History:
    """Six matches: won and lost against greedy heads-up, a three-seat table with a king-aware
    opponent named like markup, and one left unfinished."""
    history, message = History.open(path)
    assert message is None
    day = timedelta(days=1)
    record_match(history, [("Greedy", "greedy")], [(0, [0, 14]), (1, [22, 0]), (0, [0, 40])], start=T0)
    record_match(history, [("Greedy", "greedy")], [(1, [31, 0]), (1, [25, 0])], start=T0 + day)
    record_match(
        history,
        [("Greedy", "greedy"), (BOLD, "king-aware")],
        [(0, [0, 12, 9]), (2, [8, 17, 0]), (0, [0, 30, 14])],
        start=T0 + 2 * day,
    )
    record_match(history, [("Kingsley", "king-aware")], [(0, [0, 27]), (0, [0, 26])], start=T0 + 3 * day)
    record_match(history, [("Lucy", "lookahead")], [(1, [18, 0]), (0, [0, 35])], start=T0 + 4 * day)
    record_match(history, [("Lucy", "lookahead")], [(1, [9, 0])], start=T0 + 5 * day, finish=False)
    return history


class StatsHost(App[None]):
    """An app that shows the Stats screen over a blank screen."""

    TITLE = "Host"  # the title in the snapshots

    def __init__(self, history: History | None) -> None:
        super().__init__()
        self.history = history

    def on_mount(self) -> None:
        self.push_screen(StatsScreen(self.history))


async def loaded(pilot: Any) -> StatsScreen:
    """Wait until the screen has worked out its statistics."""
    from .conftest import wait_for

    screen = pilot.app.screen
    assert isinstance(screen, StatsScreen)
    await wait_for(
        pilot,
        lambda: (
            screen.history is None
            or not screen.total
            or (screen.rating is not None and screen.data is not None)
            or screen.problem
        ),
        what="the statistics worked out",
    )
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    assert not screen.problem, screen.problem
    return screen


def flat(app: App[Any]) -> str:
    return " ".join(screen_text(app).split())


def plot_lines(plot: Any) -> list[Text]:
    """The lines a plot (a :class:`~kc_tui.ui.widgets.plot.LegendPlot`) draws at its size."""
    rendered = plot.render()
    assert isinstance(rendered, Text), rendered
    return list(rendered.split("\n"))


def y_ticks(plot: Any) -> list[tuple[int, int]]:
    """The y axis's ticks as drawn: (line, value) of every labelled line, top first."""
    found = []
    for row, line in enumerate(plot_lines(plot)):
        m = re.match(r"\s*(-?\d+)┤", line.plain)
        if m:
            found.append((row, int(m.group(1))))
    return found


def columns_in_colour(plot: Any, ansi: int) -> list[int]:
    """The columns where the plot draws something (not a blank) in the ANSI colour ``ansi``."""
    columns: set[int] = set()
    for line in plot_lines(plot):
        for span in line.spans:
            style = span.style if isinstance(span.style, Style) else Style.parse(str(span.style))
            if style.color is not None and style.color.number == ansi:
                columns.update(i for i in range(span.start, span.end) if not line.plain[i].isspace())
    return sorted(columns)
