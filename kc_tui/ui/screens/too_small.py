"""The notice of a terminal too small for the table, shown in the table's place: the game
screen's and the remote seat's (their CSS hides their ``.table-part`` widgets and shows it)."""

from __future__ import annotations

from typing import Any

from textual.screen import Screen
from textual.widgets import Static

from kc_tui.ui.screens.game_text import MIN_HEIGHT, MIN_WIDTH, too_small_text


def show_too_small(screen: Screen[Any], width: int, height: int) -> bool:
    """Whether a terminal of ``width`` × ``height`` is too small for the table. When it is, the
    screen shows the notice (made the first time it is needed) in place of the table."""
    small = width < MIN_WIDTH or height < MIN_HEIGHT
    if small:
        text = too_small_text(width, height)
        found = screen.query("#too-small")
        if found:
            found.first(Static).update(text)
        else:
            screen.mount(Static(text, id="too-small"))
    screen.set_class(small, "-too-small")
    return small
