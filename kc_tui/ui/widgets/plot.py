"""A plot with its title and legend above it, outside the plot's area: plotext draws its own
legend over the plot, where it hides the lines and the ticks it sits on."""

from __future__ import annotations

from collections.abc import Sequence

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

    def set_legend(self, title: str, entries: Sequence[tuple[str, str]]) -> None:
        self.title = title
        self.legend = list(entries)
        self.refresh()

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
            self.plt.title(self.title or None)
            try:
                return super().render()
            finally:
                self.plt.title(None)
        rows = height - len(header)
        self.plt.plotsize(width, rows)
        self.plt._set_size(width, rows)
        self.plt.theme(self._get_plotext_theme_name(self.app.theme))
        return Text("\n").join([*header, Text.from_ansi(self.plt.build())])
