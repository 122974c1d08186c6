"""A plot with its title and legend above it, outside the plot's area: plotext draws its own
legend over the plot, where it hides the lines and the ticks it sits on.

The plot is drawn afresh at its size each time: the y axis's ticks are each on a row of their
own at their true value (:func:`exact_ticks`), and reference lines (flat, e.g. an AI kind's
rating) are dashed over the other lines, so that both show where they meet.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual.app import RenderResult
from textual_plotext import PlotextPlot

#: The ANSI colour of each plotext colour name (what plotext itself draws the lines in).
ANSI: dict[str, int] = {
    "black": 0,
    "red": 1,
    "green": 2,
    "orange": 3,
    "blue": 4,
    "magenta": 5,
    "cyan": 6,
    "gray": 8,
    "yellow": 11,
}
#: The mark beside each name in the legend.
SWATCH = "━━"
#: Rows of the plot that are not its area: the frame's two edges, the x ticks and label.
FRAME_ROWS = 4
#: Columns of the plot that are not its area besides the y ticks' labels: the frame's edges
#: and the ticks' marks.
FRAME_COLUMNS = 3
#: The round steps the ticks take, smallest first.
STEPS: tuple[int, ...] = (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000, 10_000, 100_000)
#: The most y ticks, less one.
Y_TICKS = 6


def round_ticks(lo: float, hi: float, most: int = 8) -> list[int]:
    """At most ``most`` + 1 whole-number ticks from ``lo`` to ``hi``, on a round step."""
    span = max(1.0, hi - lo)
    step = next((s for s in STEPS if span / s <= most), STEPS[-1])
    first = -(-math.ceil(lo) // step) * step
    ticks = list(range(first, math.floor(hi) + 1, step))
    return ticks or [round(lo)]


def exact_ticks(lo: float, hi: float, rows: int, most: int = Y_TICKS) -> tuple[list[int], tuple[float, float]]:
    """Whole-number ticks for a plot area ``rows`` high that shows ``lo`` to ``hi``, and the
    axis's limits that put each tick on a row at its true value (never "30, 10, 0" on evenly
    spaced rows): the rows are equally many units apart and a tick is every so many rows, on a
    round step. Of the steps that give 2 to ``most`` + 1 ticks, the one that wastes the fewest
    rows, or one with 3 ticks or more that wastes at most half as much again; when none fits
    (a plot of 2 rows), the whole numbers around ``lo`` and ``hi``, on the first and last rows."""
    if hi - lo < 1:
        lo, hi = (lo + hi) / 2 - 0.5, (lo + hi) / 2 + 0.5
    fallback = [math.floor(lo), math.ceil(hi)]
    if rows < 2:
        return fallback, (fallback[0], fallback[1])
    found: list[tuple[float, int, list[int], tuple[float, float]]] = []
    for step in STEPS:
        # Rows per step: the most that still show lo to hi from a row's value at the bottom.
        for per in range(rows - 1, 0, -1):
            unit = step / per
            bottom = math.floor(lo / unit + 1e-9) * unit
            top = bottom + (rows - 1) * unit
            if top >= hi - 1e-9:
                break
        else:
            continue
        ticks = list(range(math.ceil(bottom / step - 1e-9) * step, math.floor(top + 1e-9) + 1, step))
        if 2 <= len(ticks) <= most + 1:
            found.append((top - bottom, -len(ticks), ticks, (bottom, top)))
    if not found:
        return fallback, (fallback[0], fallback[1])
    least = min(f[0] for f in found)
    richer = [f for f in found if -f[1] >= 3 and f[0] <= 1.5 * least]
    _, _, ticks, limits = min(richer or found, key=lambda f: (f[0], f[1]))
    return ticks, limits


@dataclass(frozen=True, slots=True)
class Line:
    """A line of the plot: its points and its plotext colour."""

    xs: tuple[float, ...]
    ys: tuple[float, ...]
    color: str


@dataclass(frozen=True, slots=True)
class Reference:
    """A flat line across the whole plot at ``value`` (dashed, over the lines)."""

    value: float
    color: str


def legend_lines(entries: Sequence[tuple[str, str]], width: int) -> list[Text]:
    """The legend: a coloured swatch and the name of each line, as many as fit on a line."""
    lines: list[Text] = []
    line = Text()
    for name, colour in entries:
        code = ANSI.get(colour)
        item = Text.assemble((SWATCH, f"color({code})" if code is not None else colour), " ", name)
        if line.cell_len and line.cell_len + 3 + item.cell_len > width:
            lines.append(line)
            line = Text()
        if line.cell_len:
            line.append("   ")
        line.append_text(item)
    if line.cell_len:
        lines.append(line)
    return lines


class LegendPlot(PlotextPlot):
    """A :class:`PlotextPlot` whose title and legend (``legend``: name and plotext colour of
    each line) take lines of their own above the plot, so they cover no data and no tick."""

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.title = ""
        self.legend: list[tuple[str, str]] = []
        self.lines: list[Line] = []
        self.references: list[Reference] = []
        self.xlabel = ""

    def set_legend(self, title: str, entries: Sequence[tuple[str, str]]) -> None:
        self.title = title
        self.legend = list(entries)
        self.refresh()

    def show(
        self,
        title: str,
        legend: Sequence[tuple[str, str]],
        lines: Sequence[Line],
        *,
        xlabel: str,
        references: Sequence[Reference] = (),
    ) -> None:
        """Plot ``lines`` and ``references`` (in place of what the plot showed), under ``title``
        and ``legend`` (each line's name and colour)."""
        self.lines = list(lines)
        self.references = list(references)
        self.xlabel = xlabel
        self.set_legend(title, legend)

    def _draw(self, width: int, rows: int) -> None:
        """Give plotext the lines, dashed references and ticks for a plot area ``rows`` high in
        a widget ``width`` wide."""
        plt: Any = self.plt
        plt.clear_data()
        plt.clear_figure()
        plt.xlabel(self.xlabel)
        xs = [x for line in self.lines for x in line.xs]
        ys = [y for line in self.lines for y in line.ys] + [r.value for r in self.references]
        if not xs or not ys:
            return
        for line in self.lines:
            plt.plot(list(line.xs), list(line.ys), marker="hd", color=line.color)
        yt, (bottom, top) = exact_ticks(min(ys), max(ys), rows)
        labels = [str(t) for t in yt]
        x0, x1 = min(xs), max(xs)
        columns = max(2, width - max(map(len, labels)) - FRAME_COLUMNS)
        if x1 > x0:
            # A dash every other column, from the first match to the last.
            dashes = [x0 + (x1 - x0) * c / (columns - 1) for c in range(0, columns, 2)]
            for ref in self.references:
                plt.scatter(dashes, [ref.value] * len(dashes), marker="hd", color=ref.color)
        xt = round_ticks(x0, x1, 10)
        plt.xticks(xt, [str(t) for t in xt])
        plt.ylim(bottom, top)
        plt.yticks(yt, labels)

    def header(self, width: int) -> list[Text]:
        """The lines above the plot: the title, then the legend, each centred."""
        lines = [Text(self.title, "bold")] if self.title else []
        lines += legend_lines(self.legend, width)
        for line in lines:
            line.pad_left(max(0, (width - line.cell_len) // 2))
        return lines

    def data_rows(self) -> int:
        """Rows of the plot's area at the widget's size (0 before it has one)."""
        if not self.size.height:
            return 0
        return max(1, self.size.height - FRAME_ROWS - len(self.header(self.size.width)))

    def render(self) -> RenderResult:
        width, height = self.size.width, self.size.height
        header = self.header(width) if width else []
        while header and height <= len(header) + FRAME_ROWS:
            header.pop()  # a short plot keeps its title before its legend
        if not header:
            # Too short for lines of its own: the title goes back into the plot (the legend goes).
            self._draw(width, height - FRAME_ROWS - (1 if self.title else 0))
            self.plt.title(self.title or None)
            try:
                return super().render()
            finally:
                self.plt.title(None)
        rows = height - len(header)
        self._draw(width, rows - FRAME_ROWS)
        self.plt.plotsize(width, rows)
        self.plt._set_size(width, rows)
        self.plt.theme(self._get_plotext_theme_name(self.app.theme))
        return Text("\n").join([*header, Text.from_ansi(self.plt.build())])
