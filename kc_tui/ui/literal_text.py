"""Text from a player or a file, shown literally: the one way the UI turns data into text.

Names, AI kinds, file paths, and messages that quote them are *data*. Textual and Rich parse a
plain ``str`` as markup almost everywhere (``Static``, ``Label``, ``Button``, border titles,
toasts, Rich tables), so a name like ``[/]`` would crash the app and ``[@click=app.quit]x[/]``
would become a clickable action. Every piece of text that is not a literal written in this
package goes through one of these helpers instead:

- :func:`plain`: a whole string shown as it is (a Textual ``Content``, never parsed);
- :func:`fill`: markup written *here*, with ``$name`` slots filled in literally;
- :func:`rich_plain`: the same as :func:`plain` for Rich renderables (``Table`` cells);
- :func:`cut`: the same, cut to a number of cells with "…" (a label of fixed width);
- :func:`rich_fill`: a translated sentence with ``{name}`` slots as a Rich ``Text``, each slot
  filled with a ``Text`` as it is (so a name keeps its own style wherever the language puts it).

Control characters (escape sequences, newlines, bidi overrides) are shown as visible escapes,
so a file cannot move the cursor, recolour the terminal or split a line.
``tests/ui/test_text_is_data.py`` checks that the UI never formats text into markup by hand.

Terminals that cannot show the UI's glyphs (:func:`kc_tui.match.card_format.ascii_only`) get
:class:`AsciiFilter` (:func:`use_ascii` adds it to an app): every line Textual draws, of every
widget, has its box drawing, suits, arrows and blocks turned into ASCII look-alikes of the same
width, and any other character the terminal's encoding cannot hold into ``?``.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import Any

from rich.cells import cell_len
from rich.segment import Segment
from rich.text import Text
from textual.color import Color
from textual.content import Content
from textual.filter import LineFilter

from kc_tui.match.card_format import ascii_only, terminal_encoding

__all__ = ["AsciiFilter", "as_ascii", "cut", "fill", "plain", "rich_fill", "rich_plain", "use_ascii", "visible"]

#: ASCII look-alikes (one cell each, as the glyphs they stand for) of the glyphs the UI and
#: Textual's widgets draw; box drawing is worked out from the characters' names.
LOOK_ALIKES: dict[str, str] = {
    **dict(zip("♠♥♦♣♤♡♢♧", "SHDCSHDC", strict=True)),
    **dict.fromkeys("▶►▸▷❯›→⟶⇒", ">"),
    **dict.fromkeys("◀◄◂◁❮‹←⟵⇐", "<"),
    **dict.fromkeys("▲△↑⬆˄", "^"),
    **dict.fromkeys("▼▽↓⬇˅", "v"),
    **dict.fromkeys("░▒▓█■▪◼", "#"),
    **dict.fromkeys("▔▀", "-"),
    "▁": "_",
    **dict.fromkeys("▂▃▄▅▆▇", " "),
    **dict.fromkeys("▏▎▍▌▋▊▉▐▕‖¦", "|"),
    **dict.fromkeys("·•●◆◇○◉∙⋅", "*"),
    "…": ".",
    **dict.fromkeys("–—‒―−", "-"),
    "±": "+",
    **dict.fromkeys("✓✔", "v"),
    **dict.fromkeys("✗✘×", "x"),
    "⏎": "<",
    "\xa0": " ",
    **{chr(c): "*" for c in range(0x2800, 0x2900)},  # braille: spinners
}


def _box(ch: str) -> str:
    name = unicodedata.name(ch, "")
    if "DIAGONAL" in name:
        return "X" if "CROSS" in name else "/" if "UPPER RIGHT" in name else "\\"
    horizontal = "HORIZONTAL" in name or name.endswith(("LEFT", "RIGHT"))
    vertical = "VERTICAL" in name or name.endswith(("UP", "DOWN"))
    if "AND" in name or "ARC" in name or (horizontal and vertical):
        return "+"
    return "-" if horizontal else "|" if vertical else "+"


_TABLE: dict[int, str] = {
    **{c: _box(chr(c)) for c in range(0x2500, 0x2580)},
    **{ord(k): v for k, v in LOOK_ALIKES.items()},
}


@lru_cache(maxsize=4096)
def as_ascii(text: str, encoding: str = "ascii") -> str:
    """``text`` with every glyph ``encoding`` cannot hold turned into a look-alike of the same
    width (:data:`LOOK_ALIKES`, box drawing) or ``?`` (one a cell)."""
    out = []
    for ch in text:
        if ch.isascii() or _fits(ch, encoding):
            out.append(ch)
            continue
        alike = _TABLE.get(ord(ch))
        out.append(alike if alike is not None else "?" * max(1, cell_len(ch)))
    return "".join(out)


@lru_cache(maxsize=1024)
def _fits(ch: str, encoding: str) -> bool:
    try:
        ch.encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return False
    return True


class AsciiFilter(LineFilter):
    """Draws every line with only what the terminal's ``encoding`` can show (:func:`as_ascii`)."""

    def __init__(self, encoding: str = "ascii", enabled: bool = True) -> None:
        super().__init__(enabled)
        self.encoding = encoding

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        out: list[Segment] = []
        for seg in segments:
            text = seg.text
            if seg.control or text.isascii():
                out.append(seg)
            else:
                out.append(Segment(as_ascii(text, self.encoding), seg.style, seg.control))
        return out


def use_ascii(app: Any) -> bool:
    """Draw ``app`` in ASCII when the terminal cannot show its glyphs (:func:`ascii_only`): adds
    :class:`AsciiFilter` to the app's line filters, and the class ``-ascii`` to it. Whether it did."""
    if not ascii_only():
        return False
    filters: list[LineFilter] = app._filters
    if not any(isinstance(f, AsciiFilter) for f in filters):
        filters.append(AsciiFilter(terminal_encoding()))
    app.add_class("-ascii")
    return True


def _escape(ch: str) -> str:
    code = ord(ch)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def visible(value: object, *, newlines: bool = False) -> str:
    """``value`` as a string with control and format characters (``\\x1b``, ``\\x00``, ``\\r``,
    U+202E, ...) written as escapes; ``\\n`` is kept only when ``newlines`` is true. U+200B
    ZERO WIDTH SPACE is kept: it marks where Thai may break (:mod:`kc_tui.ui.linebreak`)."""
    text = value if isinstance(value, str) else str(value)
    if text.isprintable():
        return text
    out = []
    for ch in text:
        if ch.isprintable() or (ch == "\n" and newlines) or (ch == " ") or ch == "\u200b":
            out.append(ch)
        elif unicodedata.category(ch) == "Zs":
            out.append(" ")
        else:
            out.append(_escape(ch))
    return "".join(out)


def plain(value: object, style: str = "", *, newlines: bool = False) -> Content:
    """``value`` as literal Textual content (optionally in one ``style``): never markup."""
    content = Content(visible(value, newlines=newlines))
    return content.stylize(style) if style else content


def fill(markup: str, **values: object) -> Content:
    """Markup written in this package with ``$name`` slots; each value is inserted literally.

    ``fill("[b]$name[/b] went out", name=player)`` is bold whatever ``player`` holds.
    """
    return Content.from_markup(markup, **{k: plain(v) for k, v in values.items()})


def rich_plain(value: object, style: str = "") -> Text:
    """``value`` as a literal Rich ``Text`` (for Rich tables and renderables): never markup."""
    return Text(visible(value), style=style)


def cut(value: object, width: int, style: str = "") -> Text:
    """``value`` as a literal Rich ``Text`` (:func:`rich_plain`) of at most ``width`` cells, the
    end of a longer one given up for "…"."""
    text = rich_plain(value, style)
    text.truncate(max(1, width), overflow="ellipsis")
    return text


_SLOT = re.compile(r"\{(\w+)\}")


def rich_fill(template: str, *, lead: str = "", **values: Text) -> Text:
    """``template`` (a sentence with ``{name}`` slots, as a translation gives it) as a Rich
    ``Text``: each slot is its value, inserted as it is; the words before the first slot are in
    style ``lead`` (the sentence's emphasis), the others plain. The words are never markup."""
    out = Text()
    at = 0
    for n, slot in enumerate(_SLOT.finditer(template)):
        out.append(visible(template[at : slot.start()]), lead if n == 0 else "")
        out.append_text(values[slot.group(1)])
        at = slot.end()
    out.append(visible(template[at:]), lead if at == 0 else "")
    return out
