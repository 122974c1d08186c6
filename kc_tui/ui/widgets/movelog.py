"""Every move by everyone, in plain words."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual import events
from textual.widgets import RichLog

SHOW = 300


class MoveLog(RichLog):
    """``sync(lines)`` shows the session's log: new lines are appended, and a log that was
    cut back (undo) is redrawn."""

    DEFAULT_CSS = """
    MoveLog {
        border: round $panel-lighten-2;
        border-title-align: left;
        height: 1fr;
        scrollbar-size-vertical: 1;
        background: $surface;
    }
    """

    can_focus = False

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(wrap=True, markup=False, highlight=False, auto_scroll=True, min_width=16, id=id)
        self.border_title = "Moves"
        self._shown: list[str] = []
        self._width = 0

    def sync(self, lines: Sequence[str]) -> None:
        n = len(self._shown)
        if len(lines) >= n and list(lines[:n]) == self._shown:
            new = list(lines[n:])
        else:
            self.clear()
            self._shown = []
            new = list(lines[-SHOW:])
        for line in new:
            self.write(self._styled(line))
        self._shown.extend(new)

    def on_resize(self, event: events.Resize) -> None:
        """Lines are wrapped when written: after a change of width, write them again so they
        fill the new width (no cut lines, no sideways scrolling)."""
        first = self._width == 0
        super().on_resize(event)  # the first size known: RichLog writes what waited for it
        if event.size.width == self._width:
            return
        self._width = event.size.width
        if self._shown and not first:
            self.clear()
            for line in self._shown:
                self.write(self._styled(line), scroll_end=True)

    @staticmethod
    def _styled(line: str) -> Text:
        if line.startswith("Round "):
            return Text(line, style="bold underline")
        if "won" in line or "blocked" in line:
            return Text(line, style="bold green")
        if line.endswith("ended the turn"):
            return Text(line, style="dim")
        return Text(line)
