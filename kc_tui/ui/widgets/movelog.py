"""Every move by everyone, in plain words."""

from __future__ import annotations

from collections.abc import Sequence

from rich.segment import Segment
from rich.text import Text
from textual import events
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from kc_tui.i18n import _
from kc_tui.match import log_lines

SHOW = 300


class MoveLog(ScrollView):
    """``sync(lines)`` shows the session's log, its last line in view. The lines are wrapped to
    the log's width when drawn (again after a change of width: no cut lines, no sideways
    scrolling); until its width is known the log counts a row a line, so showing it first does
    not lay the screen out twice."""

    DEFAULT_CSS = """
    MoveLog {
        border: round $panel-lighten-2;
        border-title-align: left;
        height: 1fr;
        scrollbar-size-vertical: 1;
        background: $surface;
        color: $foreground;
        overflow-y: scroll;
    }
    """

    can_focus = False

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.border_title = _("Moves")
        #: The narrowest a line is wrapped to.
        self.min_width = 16
        self._shown: list[str] = []
        self._lines: list[Strip] = []
        self._wrapped = 0  # how many of _shown are in _lines
        self._width = 0  # the width _lines are wrapped to (0: not known yet)
        self._drawn: dict[tuple[int, int, int], Strip] = {}  # (row or -1 for blank, scroll x, width)

    @property
    def shown(self) -> tuple[str, ...]:
        """The lines the log shows, as given (before they are wrapped)."""
        return tuple(self._shown)

    @property
    def lines(self) -> list[Strip]:
        """The rows drawn: every line shown, wrapped to the log's width."""
        self._wrap()
        return self._lines

    def sync(self, lines: Sequence[str]) -> None:
        n = len(self._shown)
        if len(lines) >= n and list(lines[:n]) == self._shown:
            new = list(lines[n:])
            if not new:
                return
        else:
            self._shown, self._lines, self._wrapped = [], [], 0
            self._drawn.clear()
            new = list(lines[-SHOW:])
        self._shown.extend(new)
        self.refresh()
        self._show_end()

    def on_resize(self, event: events.Resize) -> None:
        if event.size.width:
            self._show_end()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._drawn.clear()

    def _content_width(self) -> int:
        width = self.scrollable_content_region.width if self.size.width else 0
        return max(width, self.min_width) if width else 0

    def _wrap(self) -> None:
        """Wrap what is not wrapped yet (everything when the width changed)."""
        width = self._content_width()
        if not width:
            return
        if width != self._width:
            self._width, self._lines, self._wrapped = width, [], 0
            self._drawn.clear()
        if self._wrapped == len(self._shown):
            return
        console = self.app.console
        options = console.options
        for line in self._shown[self._wrapped :]:
            text = self._styled(line)
            render_width = max(min(text.cell_len, width), self.min_width)
            segments = console.render(text, options.update_width(render_width))
            strips = Strip.from_lines(list(Segment.split_lines(segments))) or [Strip.blank(render_width)]
            for strip in strips:
                strip.adjust_cell_length(render_width)
            self._lines.extend(strips)
        self._wrapped = len(self._shown)

    def _show_end(self) -> None:
        """The size of what is shown, and its end in view."""
        self._wrap()
        # No width of its own: the lines are wrapped to the log's (it never scrolls sideways).
        # A row a line until that width is known.
        size = Size(0, len(self._lines) if self._width else len(self._shown))
        if self.virtual_size != size:
            self.virtual_size = size
        if self._width and (size.height > self.scrollable_content_region.height or self.scroll_y):
            # Now, at the log's size as laid out, and again once a layout this change asks for is done.
            self.scroll_end(animate=False, immediate=True, x_axis=False)
            self.scroll_end(animate=False, immediate=False, x_axis=False)

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        width = self.scrollable_content_region.width
        lines = self.lines
        row = scroll_y + y
        key = (row if row < len(lines) else -1, scroll_x, width)
        strip = self._drawn.get(key)
        if strip is None:
            style = self.rich_style
            if row < len(lines):
                strip = lines[row].crop_extend(scroll_x, scroll_x + width, style).apply_style(style)
            else:
                strip = Strip.blank(width, style)
            self._drawn[key] = strip
        return strip

    @staticmethod
    def _styled(line: str) -> Text:
        """A line of the log (kept in English) in the language in use, styled by what it says."""
        found = log_lines.read(line)
        template = found[0] if found is not None else ""
        text = log_lines.shown(line)
        if template == log_lines.DEALT:
            return Text(text, style="bold underline")
        if template in (log_lines.WENT_OUT, log_lines.MATCH_OVER, log_lines.BLOCKED):
            return Text(text, style="bold green")
        if template == log_lines.ENDED:
            return Text(text, style="dim")
        return Text(text)
