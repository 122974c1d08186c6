"""Colour as people see it, for the colour tests: WCAG's contrast, a screen read cell by cell with
the colours it is drawn in, and Textual line filters that show the screen as a protanope or a
deuteranope sees it (Machado, Oliveira and Fernandes 2009, severity 1.0, in linear RGB)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from rich.color import Color as RichColor
from rich.color import ColorType
from rich.color_triplet import ColorTriplet
from rich.segment import Segment
from rich.style import Style
from textual.app import App
from textual.color import Color
from textual.filter import LineFilter
from textual.geometry import Region

Matrix = tuple[tuple[float, float, float], tuple[float, float, float], tuple[float, float, float]]

#: Machado et al. (2009), severity 1.0: linear RGB as a protanope (no long-wave cones) sees it.
PROTANOPIA: Matrix = (
    (0.152286, 1.052583, -0.204868),
    (0.114503, 0.786281, 0.099216),
    (-0.003882, -0.048116, 1.051998),
)
#: Machado et al. (2009), severity 1.0: linear RGB as a deuteranope (no middle-wave cones) sees it.
DEUTERANOPIA: Matrix = (
    (0.367322, 0.860646, -0.227968),
    (0.280085, 0.672501, 0.047413),
    (-0.011820, 0.042940, 0.968881),
)

#: The suit glyphs of the 'symbols' style: red suits in outline, black suits solid.
RED_MARKS = "♡♢"
BLACK_MARKS = "♠♣"
#: A card's label as drawn: its rank and its suit's mark (a glyph, or a letter in ASCII).
LABEL = re.compile(r"(10|[2-9AJQKT])([♠♡♢♣SHDC])")


def to_linear(channel: int) -> float:
    c = channel / 255
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def to_srgb(linear: float) -> int:
    v = min(1.0, max(0.0, linear))
    c = v * 12.92 if v <= 0.0031308 else 1.055 * v ** (1 / 2.4) - 0.055
    return round(c * 255)


def luminance(rgb: tuple[int, int, int]) -> float:
    """WCAG 2's relative luminance of an sRGB colour."""
    r, g, b = (to_linear(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: tuple[int, int, int], b: tuple[int, int, int]) -> float:
    """WCAG 2's contrast ratio of two colours (1 to 21)."""
    light, dark = sorted((luminance(a), luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def rgb_of(colour: str) -> tuple[int, int, int]:
    """``#rrggbb`` as three ints."""
    c = Color.parse(colour)
    return c.r, c.g, c.b


def seen_as(matrix: Matrix, rgb: tuple[int, int, int]) -> tuple[int, int, int]:
    """``rgb`` as a person of the vision ``matrix`` sees it."""
    lin = [to_linear(c) for c in rgb]
    out = [sum(m * c for m, c in zip(row, lin, strict=True)) for row in matrix]
    return to_srgb(out[0]), to_srgb(out[1]), to_srgb(out[2])


@lru_cache(1024)
def _seen_colour(matrix: Matrix, colour: RichColor) -> RichColor:
    triplet = colour.get_truecolor()
    return RichColor.from_triplet(ColorTriplet(*seen_as(matrix, (triplet.red, triplet.green, triplet.blue))))


@lru_cache(1024)
def _seen_style(matrix: Matrix, style: Style) -> Style:
    fg = None if style.color is None or style.color.is_default else _seen_colour(matrix, style.color)
    bg = None if style.bgcolor is None or style.bgcolor.is_default else _seen_colour(matrix, style.bgcolor)
    return style + Style.from_color(fg, bg)


class VisionFilter(LineFilter):
    """Every colour of the screen as a person of the vision ``matrix`` sees it."""

    def __init__(self, matrix: Matrix) -> None:
        super().__init__()
        self.matrix = matrix

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        return [
            Segment(text, None if style is None else _seen_style(self.matrix, style), control)
            for text, style, control in segments
        ]


@dataclass(frozen=True)
class Cell:
    """One cell of the screen: its character and the colours it is drawn in (None: the default)."""

    char: str
    fg: RichColor | None
    bg: RichColor | None

    def rgb(self, colour: RichColor | None) -> tuple[int, int, int]:
        assert colour is not None and not colour.is_default, f"{self.char!r} has no colour of its own"
        t = colour.get_truecolor()
        return t.red, t.green, t.blue


def screen_cells(app: App[Any]) -> list[list[Cell]]:
    """The screen as it is drawn (every line filter applied), a row of cells per line."""
    update: Any = app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)
    rows: list[list[Cell]] = []
    for line in update.strips:
        row: list[Cell] = []
        for strip in line:
            for seg in strip:
                if seg.control:
                    continue
                style = seg.style or Style()
                row.extend(Cell(ch, style.color, style.bgcolor) for ch in seg.text)
        rows.append(row)
    return rows


@dataclass(frozen=True)
class DrawnLabel:
    """A card's label found on the screen: its rank and mark, and the cells of its mark."""

    rank: str
    mark: str
    x: int
    y: int
    cell: Cell


def labels_in(cells: list[list[Cell]], regions: list[Region]) -> list[DrawnLabel]:
    """Every card label drawn inside ``regions`` (the cards' widgets)."""
    found: list[DrawnLabel] = []
    for y, row in enumerate(cells):
        text = "".join(c.char for c in row)
        for m in LABEL.finditer(text):
            x = m.start(2)
            if any(r.contains(x, y) for r in regions):
                found.append(DrawnLabel(m.group(1), m.group(2), x, y, row[x]))
    return found


def is_named(colour: RichColor | None) -> bool:
    """Whether ``colour`` is one of the terminal's named colours (or its default)."""
    return colour is None or colour.is_default or colour.type == ColorType.STANDARD


def install(app: App[Any], filter: LineFilter) -> None:
    """``filter`` on the running ``app``'s output, and every widget drawn again through it."""
    app._filters.append(filter)
    refresh_all(app)


def refresh_all(app: App[Any]) -> None:
    for widget in app.screen.walk_children(with_self=True):
        widget.refresh()
