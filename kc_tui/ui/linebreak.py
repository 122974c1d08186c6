"""Where a line may break: Thai (and Lao) text wrapped at its words, never inside a letter.

Rich and Textual wrap a line only at spaces, and fold a longer word cell by cell. Thai writes a
phrase's words without spaces, puts its vowel and tone marks on a consonant (they take no cell
of their own), and writes the vowels เ แ โ ใ ไ (U+0E40–U+0E44) *before* the consonant they
follow in speech; folded cell by cell, a line can end in "เ" and the next begin with "ด็ค".

The Thai catalog marks its words' boundaries with U+200B ZERO WIDTH SPACE
(``tools/thai_breaks.py`` puts them in when the catalog is made), so the app needs no Thai
library. :func:`divide_line` is Rich's ``rich._wrap.divide_line`` (the one function both
Rich's ``Text.wrap`` and Textual's ``Content`` ask for a line's break offsets) taught that:

- a line may break after a space (as before) or after a U+200B;
- a word longer than the width folds between letters (grapheme clusters: a consonant with its
  marks, SARA AM ำ included), never after a leading vowel, never before ๆ or ฯ;
- a line with no Thai, Lao or U+200B in it is wrapped by Rich's own function, unchanged.

:func:`install` puts it in place (in both modules, which import the function by name) once,
and adds :class:`ZeroWidthFilter` to an app: U+200B takes no cell and is never written to the
terminal (a terminal that gives it a cell would shift the rest of the line).
``tests/ui/test_thai_wrap.py`` fails if a Textual or Rich upgrade moves the hooked function.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterator
from functools import lru_cache
from typing import Any

import rich._wrap
import rich.text
import textual.content
from rich.cells import cell_len, get_character_cell_size
from rich.segment import Segment
from textual.color import Color
from textual.filter import LineFilter

__all__ = ["ZWSP", "ZeroWidthFilter", "divide_line", "install", "installed", "rich_divide_line"]

#: The break mark between two words written without a space (Thai).
ZWSP = "\u200b"
#: Rich's own function, kept for the lines that need nothing else.
rich_divide_line: Callable[[str, int, bool], list[int]] = rich._wrap.divide_line
#: The modules that import ``divide_line`` by name and wrap with it.
HOOKED = (rich.text, textual.content)

#: A line that needs this module: Thai, Lao, or a break mark.
_NEEDS = re.compile("[\u0e00-\u0eff\u200b]")
#: Vowels written before the consonant they follow (Thai เ แ โ ใ ไ, Lao ເ ແ ໂ ໃ ໄ): a line
#: never ends with one.
LEADING_VOWELS = frozenset("\u0e40\u0e41\u0e42\u0e43\u0e44\u0ec0\u0ec1\u0ec2\u0ec3\u0ec4")
#: Signs that belong to the word before them (ๆ repeats it, ฯ shortens it): a line never starts
#: with one.
NO_LINE_START = frozenset("\u0e46\u0e2f")
#: Spacing vowels that are part of the letter before them (SARA AM ำ, Lao AM ຳ).
_SPACING_MARKS = frozenset("\u0e33\u0eb3")
_ZWJ = "\u200d"


@lru_cache(maxsize=4096)
def extends(ch: str) -> bool:
    """Whether ``ch`` belongs to the letter before it (a mark, SARA AM, a joiner, a zero-width
    character): no line starts with it."""
    if ch in _SPACING_MARKS or ch in (_ZWJ, ZWSP):
        return True
    if unicodedata.category(ch).startswith("M"):
        return True
    return get_character_cell_size(ch) == 0 and not ch.isspace()


def _letter_boundary(text: str, index: int) -> bool:
    """Whether a folded line may begin at ``index`` (0 < index < len(text)): between grapheme
    clusters, not after a leading vowel or a joiner, not before ๆ or ฯ."""
    ch, before = text[index], text[index - 1]
    return not (extends(ch) or ch in NO_LINE_START or before in LEADING_VOWELS or before == _ZWJ)


def _words(text: str) -> Iterator[tuple[int, int]]:
    """The words of ``text`` as ``(start, end)``: each ends after its spaces or its U+200B."""
    start = 0
    length = len(text)
    index = 0
    # Leading spaces belong to the first word (as in Rich).
    while index < length and text[index].isspace():
        index += 1
    while index < length:
        ch = text[index]
        index += 1
        if ch.isspace():
            while index < length and text[index].isspace():
                index += 1
            if index < length:
                yield start, index
                start = index
        elif ch == ZWSP and index < length and not text[index].isspace() and _letter_boundary(text, index):
            yield start, index
            start = index
    yield start, length


def _clusters(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    """The grapheme clusters of ``text[start:end]`` (a letter and what extends it)."""
    index = start
    while index < end:
        cluster_end = index + 1
        while cluster_end < end and (extends(text[cluster_end]) or text[cluster_end - 1] == _ZWJ):
            cluster_end += 1
        yield index, cluster_end
        index = cluster_end


def _fold(text: str, start: int, end: int, room: int, width: int) -> tuple[list[int], int]:
    """Break ``text[start:end]`` (one word, wider than ``width``) at letter boundaries: the first
    piece fills the ``room`` left on the current line. The break offsets, and the cells used on
    the last line."""
    breaks: list[int] = []
    used = width - room
    index = start
    while index < end:
        # One unbreakable unit: a letter and its marks, a leading vowel and the letter after it.
        unit_end = index + 1
        while unit_end < end and not _letter_boundary(text, unit_end):
            unit_end += 1
        unit = text[index:unit_end]
        cells = cell_len(unit)
        if unit.isspace():
            used += cells  # spaces at a line's end are trimmed: they never start a line
        elif cells > width:
            # Only a line narrower than two cells: the unit is split between its clusters (a
            # cluster wider than the line is kept whole, to be cut at the line's end).
            for cluster_start, cluster_end in _clusters(text, index, unit_end):
                cluster_cells = cell_len(text[cluster_start:cluster_end])
                if used and used + cluster_cells > width:
                    breaks.append(cluster_start)
                    used = 0
                used += cluster_cells
        else:
            if used and used + cells > width:
                breaks.append(index)
                used = 0
            used += cells
        index = unit_end
    return breaks, used


def divide_line(text: str, width: int, fold: bool = True) -> list[int]:
    """The offsets at which to break ``text`` to fit ``width`` cells (``rich._wrap.divide_line``,
    which it replaces): at spaces and U+200B marks, a word wider than a line folded between
    letters (when ``fold``), never after a leading vowel."""
    if width < 1 or not _NEEDS.search(text):
        return rich_divide_line(text, width, fold)
    breaks: list[int] = []
    offset = 0  # cells used on the current line
    for start, end in _words(text):
        word = text[start:end]
        trimmed = cell_len(word.rstrip())
        if width - offset >= trimmed:
            offset += cell_len(word)
        elif trimmed > width:
            if fold:
                folded, offset = _fold(text, start, end, max(0, width - offset), width)
                breaks.extend(folded)
            else:
                if start:
                    breaks.append(start)
                offset = cell_len(word)
        elif offset and start:
            breaks.append(start)
            offset = cell_len(word)
    return sorted({b for b in breaks if 0 < b < len(text)})


class ZeroWidthFilter(LineFilter):
    """Takes U+200B out of every line drawn: it marks where a line may break and shows nothing."""

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        if not any(ZWSP in seg.text for seg in segments):
            return segments
        return [
            Segment(seg.text.replace(ZWSP, ""), seg.style, seg.control) if ZWSP in seg.text else seg for seg in segments
        ]


def installed() -> bool:
    """Whether Rich and Textual wrap with :func:`divide_line`."""
    return all(getattr(module, "divide_line", None) is divide_line for module in HOOKED)


def install(app: Any = None) -> tuple[str, ...]:
    """Make Rich and Textual wrap with :func:`divide_line` (once; again is harmless), and add
    :class:`ZeroWidthFilter` to ``app``'s line filters. The names of the modules hooked: a module
    without ``divide_line`` (a Textual or Rich upgrade moved it) is left alone."""
    hooked = []
    for module in HOOKED:
        current = getattr(module, "divide_line", None)
        if current is rich_divide_line or current is divide_line:
            module.divide_line = divide_line  # type: ignore[attr-defined]
            hooked.append(module.__name__)
    if app is not None:
        filters: list[LineFilter] = app._filters
        if not any(isinstance(f, ZeroWidthFilter) for f in filters):
            filters.append(ZeroWidthFilter())
    return tuple(hooked)
