"""Helpers for "every text whole at 80x24 in every language": what the screen shows read as a
player reads it (a Thai word break takes no cell, lines are flat), each text, button, table cell
and plot title compared with it where it is drawn."""

from __future__ import annotations

import io
from collections import Counter
from collections.abc import AsyncIterator
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text
from textual.app import App
from textual.content import Content
from textual.geometry import Region
from textual.widget import Widget
from textual.widgets import Button, Input, Select, Static, Switch

from kc_tui.engine import Rules
from kc_tui.ui.screens.rules import RulesScreen
from kc_tui.ui.widgets.plot import LegendPlot
from tests.ui.conftest import wait_for
from tests.ui.fitkit import footer_keys, on_screen, screen_lines, shown, visible_footer

SMALL = (80, 24)
LANGUAGES = ["sw", "th", "vi", "it"]
ZWSP = "\u200b"


def seen(text: str) -> str:
    """``text`` as the screen shows it: a Thai word break takes no cell, and lines are flat."""
    return " ".join(text.replace(ZWSP, "").split())


def squeezed(text: str) -> str:
    """``text`` without its spaces: what a wrapped Thai line is read against (a line ends at a
    word break where the text has no space)."""
    return "".join(text.replace(ZWSP, "").split())


def reads(text: str, shown: str) -> bool:
    """Whether ``text`` is read whole in ``shown`` (over lines: its characters in order, the
    spaces aside)."""
    return squeezed(text) in squeezed(shown)


def seen_in(app: App[Any], where: Widget | Region | None = None) -> str:
    """What the screen shows (within ``where``), as one line of words."""
    return seen(" ".join(screen_lines(app, where)))


def seen_lines(app: App[Any], where: Widget | Region | None = None) -> list[str]:
    """What the screen shows (within ``where``), each line as words."""
    return [seen(line) for line in screen_lines(app, where)]


def footer_whole(app: App[Any]) -> None:
    """Every key of the footer on screen is inside the screen and read whole on its line."""
    footer = visible_footer(app)
    line = seen_in(app, footer)
    keys = footer.spots()
    assert keys
    for key in keys:
        assert app.screen.region.contains_region(key.region), (key.description, line)
        assert seen(f"{key.key_display} {key.description}") in line, (key.description, line)


def plain_of(renderable: object) -> str:
    """The text of a Static's content or a table's cell ("" for what is not text)."""
    if isinstance(renderable, str):
        return Text.from_markup(renderable).plain
    if isinstance(renderable, Text | Content):
        return renderable.plain
    return ""


def table_cells(table: Table) -> list[str]:
    """Every heading and cell of ``table`` that holds text, each line of a cell apart, and each
    word apart in a column that wraps its cells."""
    out: list[str] = []
    for column in table.columns:
        for cell in (column.header, *column._cells):
            for part in plain_of(cell).split("\n"):
                out += part.split() if not column.no_wrap else [part] if part.strip() else []
    return out


def cut_cells(app: App[Any], table: Table, where: Widget | Region) -> list[str]:
    """The cells of ``table`` (drawn in ``where``) not read whole on one line of the screen (the
    words of a cell that wraps each on one line)."""
    lines = seen_lines(app, where)
    return [cell for cell in table_cells(table) if not any(seen(cell) in line for line in lines)]


def is_control_part(widget: Widget) -> bool:
    """Whether ``widget`` is inside a control (its own texts: the control's to draw)."""
    return any(isinstance(a, Select | Input | Switch | Button) for a in widget.ancestors)


def cut(app: App[Any], widget: Widget) -> str | None:
    """How ``widget`` (a text, a table or a button) is not whole on screen, or None: a text or a
    button read whole in its region, a table each cell on one line, the widget wholly inside the
    screen and any scrolling parent's view."""
    if isinstance(widget, Button):
        label = plain_of(widget.label)
        if not on_screen(app, widget) or not reads(label, seen_in(app, widget)):
            return f"button {label!r} shows as {seen_in(app, widget)!r}"
        return None
    content = widget.content if isinstance(widget, Static) else None
    content = getattr(content, "table", content)  # a table that closes up when it is too wide
    if isinstance(content, Table):
        cells = cut_cells(app, content, widget)
        if cells or not on_screen(app, widget):
            return f"cells {cells} of {widget!r}:\n" + "\n".join(screen_lines(app, widget))
        return None
    text = plain_of(content)
    if seen(text) and (not on_screen(app, widget) or not reads(text, seen_in(app, widget))):
        return f"{seen(text)!r} shows as {seen_in(app, widget)!r}"
    return None


def parts(root: Widget | App[Any]) -> list[Widget]:
    """Every shown text, table and button under ``root`` (not a control's own)."""
    return [w for w in root.query("Static, Button").results(Widget) if shown(w) and not is_control_part(w)]


def cut_texts(app: App[Any], root: Widget | App[Any]) -> list[str]:
    """How each text, table and button under ``root`` is not whole on screen (:func:`cut`)."""
    return [c for c in (cut(app, w) for w in parts(root)) if c is not None]


async def cut_scrolling(pilot: Any, box: Widget) -> list[str]:
    """Scroll ``box`` through (:func:`scrolled`), reading each of its texts, tables and buttons
    where it is wholly in view: how each one never read whole is cut."""
    app = pilot.app
    pending = {id(w): w for w in parts(box)}
    assert pending, f"{box!r} shows nothing"
    last: dict[int, str] = {}
    async for view in scrolled(pilot, box):
        for key, widget in list(pending.items()):
            if view.contains_region(widget.region):
                how = cut(app, widget)
                if how is None:
                    del pending[key]
                else:
                    last[key] = how
    return [last.get(key, f"{w!r} is never wholly in view") for key, w in pending.items()]


def plot_words(plot: LegendPlot) -> list[str]:
    """The words a plot draws beside its data: its title, the name of every line, its x label."""
    return [w for w in (plot.title, *(name for name, _colour in plot.legend), plot.xlabel) if seen(w)]


def cut_plot_words(app: App[Any], plot: LegendPlot) -> list[str]:
    """The words of ``plot`` (:func:`plot_words`) not whole on screen, or all when it is not."""
    words = plot_words(plot)
    if not on_screen(app, plot):
        return words
    lines = seen_lines(app, plot)
    return [w for w in words if not any(seen(w) in line for line in lines)]


async def scrolled(pilot: Any, box: Widget, most: int = 60) -> AsyncIterator[Region]:
    """Scroll ``box`` from its top to its end by half its view at a time (so that anything half
    as tall as the view is wholly in view once): at each stop, once drawn, the part of the screen
    it shows its content in."""
    step = max(1, box.scrollable_content_region.height // 2)
    y = 0
    for _ in range(most):
        box.scroll_to(y=y, animate=False)
        await pilot.pause()
        await pilot.pause()
        yield view_of(box)
        if box.scroll_y >= box.max_scroll_y:
            return
        y = round(box.scroll_y) + step
    raise AssertionError(f"{box!r} did not reach its end")


def view_of(box: Widget) -> Region:
    """The part of the screen a scrolling ``box`` shows its content in."""
    return box.region.intersection(box.scrollable_content_region)


def letters(renderable: object, width: int) -> Counter[str]:
    """The characters ``renderable`` draws at ``width`` columns, box drawing and spaces aside."""
    console = Console(width=width, file=io.StringIO(), record=True, color_system=None)
    console.print(renderable)
    return Counter(c for c in console.export_text() if not c.isspace() and not "\u2500" <= c <= "\u259f" and c != ZWSP)


def cropped(widget: Static) -> Counter[str]:
    """What ``widget``'s content loses at the widget's width against an unbounded one: the
    characters cropped, cut off with "…" or never drawn (nothing when it is drawn whole)."""
    width = widget.content_region.width
    wide = letters(widget.content, 10_000)
    narrow = letters(widget.content, width)
    return wide - narrow


class RulesHost(App[None]):
    """The rules screen (of the usual rules) over a bare screen."""

    def on_mount(self) -> None:
        self.push_screen(RulesScreen(Rules()))


async def footer_ready(pilot: Any) -> None:
    """Until the footer has drawn its keys."""
    await wait_for(pilot, lambda: bool(footer_keys(pilot.app)) and footer_keys(pilot.app)[0].region.width > 0)
    await pilot.pause()


def whole(app: App[Any], root: Widget | App[Any]) -> None:
    """Every text, table and button under ``root`` is whole on screen (:func:`cut_texts`)."""
    cut = cut_texts(app, root)
    assert not cut, "\n".join(cut) + "\n" + "\n".join(screen_lines(app))
