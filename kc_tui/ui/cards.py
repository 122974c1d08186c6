"""How cards look on screen: suit symbols (``10♡``) or ASCII (``TH``), red suits in red,
optionally four colours (clubs green, diamonds blue). Every widget draws cards through here.

A card's colour never rests on its colour alone: red suits are drawn in outline (♡ ♢) and black
suits solid (♠ ♣), and in ASCII the suit's letter (H D red, S C black) is the mark; the four-colour
deck keeps those marks. The colours are chosen for contrast (WCAG's, for text): red and black
4.5:1 apart, and every suit's ink 4.5:1 against the face it is drawn on (3:1 on the picked card's
highlight). Under a theme of the terminal's own colours (``ansi-dark``, ``ansi-light``) cards are
drawn in the terminal's named colours instead (:data:`ANSI_INKS`), so its own scheme applies.

Cards are drawn as cards where there is room: a bordered face (:meth:`CardLook.face`), three lines
high, or five or seven on a large terminal (:func:`face_size`: rank and suit in two corners, the
suit in the middle), overlapped left to right so each card's rank and suit stay readable and the last card is
whole (:func:`strip`); a card back for the stock. The ASCII card style draws the borders in ASCII
too."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual._context import active_app

from kc_tui.engine import Card, suit_of
from kc_tui.match.card_format import ascii_only, card_formatter

if TYPE_CHECKING:
    from textual.widget import Widget


@dataclass(frozen=True, slots=True)
class CardInks:
    """The colours cards are drawn in: their faces, edges, marks and backs, and each suit's ink
    (clubs, diamonds, hearts, spades) in two colours and in four."""

    face: str
    #: The face of the card picked in the hand.
    selected: str
    #: The face of a hand's card under the mouse (None: the face tinted with the theme's accent).
    hover: str | None
    edge: str
    #: The key written on a hand's card's top edge.
    key: str
    #: The mark under a hand's card ("new", the picked card's ▲).
    mark: str
    #: The count of the cards a long pile folds away ("+6").
    fold: str
    back: Style
    two_colour: tuple[str, str, str, str]
    four_colour: tuple[str, str, str, str]


#: Cards in colours of their own, whatever the theme: a white face, black #000000 and a red of
#: relative luminance 0.178 (#ec0000), the one red 4.5:1 from both; the four-colour green
#: (darker, as black is) and blue (as light as the red).
TRUE_INKS = CardInks(
    face="#ffffff",
    selected="#ffe08a",
    hover=None,
    edge="#8a8578",
    key="#000000",
    mark="#8a4b00",
    fold="#555555",
    back=Style(color="#e8e8ff", bgcolor="#2a4d8f"),
    two_colour=("#000000", "#ec0000", "#ec0000", "#000000"),
    four_colour=("#00662a", "#006cff", "#ec0000", "#000000"),
)
#: Cards in the terminal's named colours (a theme of its own colours: ``ansi-dark``, ``ansi-light``).
ANSI_INKS = CardInks(
    face="bright_white",
    selected="bright_yellow",
    hover="white",
    edge="bright_black",
    key="black",
    mark="black",
    fold="bright_black",
    back=Style(color="bright_white", bgcolor="blue"),
    two_colour=("black", "red", "red", "black"),
    four_colour=("green", "blue", "red", "black"),
)

FACE_BG = TRUE_INKS.face
SELECTED_BG = TRUE_INKS.selected
#: What stands before the count of the cards a long pile folds away ("+6"): never a rank.
FOLD_MARK = "+"


def fold_text(hidden: int) -> str:
    """The mark of ``hidden`` cards folded away in a long pile: "+6" (six cards more)."""
    return f"{FOLD_MARK}{hidden}"


#: Box characters: top-left, horizontal, top-right, vertical, bottom-left, bottom-right.
BOX = "┌─┐│└┘"
ASCII_BOX = "+-+|++"
#: Columns inside a whole card: the widest label ("10♡").
INNER = 3
#: Foreground per suit (clubs, diamonds, hearts, spades).
TWO_COLOUR = TRUE_INKS.two_colour
FOUR_COLOUR = TRUE_INKS.four_colour


@dataclass(frozen=True, slots=True)
class FaceSize:
    """How large cards are drawn: ``inner`` columns between a whole card's edges, ``lines`` high;
    ``name`` is the hand's class for it (``-large``)."""

    name: str
    inner: int
    lines: int

    @property
    def width(self) -> int:
        """Columns of a whole card, its edges included."""
        return self.inner + 2


#: Cards three lines high: ``┌───┐`` / ``│10♡│`` / ``└───┘``.
SMALL = FaceSize("small", INNER, 3)
#: Cards seven columns wide and five lines high: rank and suit top left and bottom right, the
#: suit in the middle.
LARGE = FaceSize("large", 5, 5)
#: Cards nine columns wide and seven lines high, laid out as :data:`LARGE`.
HUGE = FaceSize("huge", 7, 7)
#: Each size of card, largest first, with the smallest terminal (columns, lines) it is drawn on.
SCREENS: tuple[tuple[FaceSize, int, int], ...] = ((HUGE, 190, 58), (LARGE, 140, 45), (SMALL, 0, 0))
FACES: tuple[FaceSize, ...] = tuple(face for face, _, _ in SCREENS)


def within(text: str, cells: int) -> str:
    """The longest start of ``text`` that takes at most ``cells`` cells: a mark that takes no
    cell (a Thai tone mark) stays with the letter it sits on."""
    out = ""
    for char in text:
        if cell_len(out + char) > cells:
            break
        out += char
    return out


def face_size(columns: int, lines: int) -> FaceSize:
    """The size of the cards on a terminal of ``columns`` × ``lines`` (:data:`SCREENS`)."""
    return next(face for face, least, fewest in SCREENS if columns >= least and lines >= fewest)


def down_from(face: FaceSize) -> tuple[FaceSize, ...]:
    """``face`` and the smaller sizes, largest first: what a place too small for ``face`` falls back to."""
    return FACES[FACES.index(face) :]


def screen_face(widget: Widget) -> FaceSize:
    """The size of the cards on the terminal ``widget`` is drawn on (:func:`face_size`)."""
    columns, lines = widget.app.size
    return face_size(columns, lines)


@dataclass(frozen=True, slots=True)
class CardLook:
    """The card style setting: ``style`` is 'symbols' or 'ascii'. ``ansi``: cards in the
    terminal's named colours (:data:`ANSI_INKS`) or in their own (:data:`TRUE_INKS`); None: as
    the running app's theme is, when they are drawn (so a change of theme reaches every card)."""

    style: str = "symbols"
    four_colour: bool = False
    ansi: bool | None = None

    @classmethod
    def of(cls, config: object) -> CardLook:
        return cls(getattr(config, "card_style", "symbols"), bool(getattr(config, "four_colour", False)))

    @property
    def inks(self) -> CardInks:
        ansi = theme_is_ansi() if self.ansi is None else self.ansi
        return ANSI_INKS if ansi else TRUE_INKS

    @property
    def face_bg(self) -> str:
        return self.inks.face

    @property
    def back_style(self) -> Style:
        return self.inks.back

    @property
    def fold_style(self) -> Style:
        return Style(color=self.inks.fold, bgcolor=self.inks.face, italic=True)

    @property
    def ascii(self) -> bool:
        """Cards in ASCII: the 'ascii' style, or a terminal that cannot show suits."""
        return self.style == "ascii" or ascii_only()

    def label(self, card: Card) -> str:
        return card_formatter(self.style)(card)

    def colour(self, card: Card) -> str:
        inks = self.inks
        palette = inks.four_colour if self.four_colour else inks.two_colour
        return palette[suit_of(card)]

    def style_of(self, card: Card, *, bold: bool = False) -> Style:
        return Style(color=self.colour(card), bgcolor=self.face_bg, bold=bold)

    def top(self, card: Card) -> Text:
        """The top card of a pile, in full: a bold face."""
        return Text(f" {self.label(card)} ", style=self.style_of(card, bold=True))

    def chip(self, card: Card, *, bold: bool = True, width: int = 0) -> Text:
        """One card face: `` 10♡ `` on a light face, padded to ``width`` when given."""
        label = self.label(card)
        body = f" {label} " if not width else f" {label}".ljust(width)
        return Text(body, style=self.style_of(card, bold=bold))

    def fan(self, cards: list[Card] | tuple[Card, ...], *, sep: str = " ") -> Text:
        """Cards overlapped left to right on one strip (each still readable)."""
        out = Text()
        for i, c in enumerate(cards):
            if i:
                out.append(sep, Style(bgcolor=self.face_bg))
            out.append(self.label(c), self.style_of(c))
        return out

    @property
    def box(self) -> tuple[str, str, str, str, str, str]:
        """Top-left, horizontal, top-right, vertical, bottom-left and bottom-right edges."""
        b = ASCII_BOX if self.ascii else BOX
        return (b[0], b[1], b[2], b[3], b[4], b[5])

    def face(
        self,
        card: Card,
        *,
        whole: bool = True,
        bg: str | None = None,
        key: str = "",
        mark: str = "",
        mark_style: Style | None = None,
        size: FaceSize = SMALL,
    ) -> list[Text]:
        """A card ``size.lines`` high: ``┌───┐`` / ``│10♡│`` / ``└───┘``; a taller card also has its
        label in the bottom right corner and its suit in the middle. ``whole=False`` draws only its
        left part, as a card half covered by the next (the label still whole); ``key`` is written
        into the top edge and ``mark`` into the bottom one; ``bg`` (None: the face's) is its face."""
        tl, h, tr, v, bl, br = self.box
        bg = bg or self.face_bg
        label = self.label(card)
        inner = max(size.inner, len(label)) if whole else len(label)
        edge = Style(color=self.inks.edge, bgcolor=bg)
        ink = Style(color=self.colour(card), bgcolor=bg, bold=True)
        key = within(key, inner)
        mark = within(mark, inner)
        top = Text(tl, edge)
        top.append(key, Style(color=self.inks.key, bgcolor=bg, bold=True))
        top.append(h * (inner - cell_len(key)) + (tr if whole else ""), edge)
        body = [label.ljust(inner)] + [" " * inner] * (size.lines - 3)
        if whole and size.lines >= 5:
            body[-1] = label.rjust(inner)
            body[(len(body) - 1) // 2] = label[-1].center(inner)
        rows = []
        for words in body:
            row = Text(v, edge)
            row.append(words, ink)
            if whole:
                row.append(v, edge)
            rows.append(row)
        bottom = Text(bl, edge)
        bottom.append(mark, (mark_style or Style()) + Style(bgcolor=bg))
        bottom.append(h * (inner - cell_len(mark)) + (br if whole else ""), edge)
        return [top, *rows, bottom]

    def back(self, size: FaceSize = SMALL) -> list[Text]:
        """A face-down card, ``size.lines`` high."""
        tl, h, tr, v, bl, br = self.box
        fill = "#" if self.ascii else "▒"
        edges = [(tl, h, tr), *[(v, fill, v)] * (size.lines - 2), (bl, h, br)]
        return [Text(a + b * size.inner + c, self.back_style) for a, b, c in edges]

    def fold(self, hidden: int, size: FaceSize = SMALL) -> list[Text]:
        """The edge of ``hidden`` cards covered in the middle of a long pile: ``+5``, ``size.lines`` high."""
        tl, h, _tr, v, bl, _br = self.box
        text = fold_text(hidden)
        edge = Style(color=self.inks.edge, bgcolor=self.face_bg)
        blank = Text.assemble((v, edge), (" " * len(text), edge))
        return [
            Text(tl + h * len(text), edge),
            Text.assemble((v, edge), (text, self.fold_style)),
            *[blank.copy() for _ in range(size.lines - 3)],
            Text(bl + h * len(text), edge),
        ]


def theme_is_ansi() -> bool:
    """Whether the running app's theme draws in the terminal's own colours (``ansi-dark``,
    ``ansi-light``); False outside an app."""
    try:
        app = active_app.get()
    except LookupError:
        return False
    return app.current_theme.ansi


def label_width(look: CardLook, cards: list[Card] | tuple[Card, ...], sep: int = 1) -> int:
    return sum(len(look.label(c)) for c in cards) + sep * max(0, len(cards) - 1)


def _part_width(look: CardLook, part: Card | str) -> int:
    """Columns of one part of a strip: a covered card, or a fold ("+n")."""
    if isinstance(part, str):
        return 1 + len(part)
    return 1 + len(look.label(part))


def strip(
    look: CardLook,
    cards: tuple[Card, ...],
    width: int,
    rows: int,
    *,
    top_bg: str | None = None,
    size: FaceSize = SMALL,
    fold: bool = True,
) -> list[Text]:
    """A pile drawn as overlapped cards in at most ``rows`` rows of ``size.lines`` lines, ``width``
    columns each: oldest card first, each covered card showing its left edge and label, the
    newest (top) card whole. A pile too long to fit keeps its bottom card and its newest cards;
    the ones between are folded into ``+n`` (unless ``fold`` is false: then it is not drawn). Lines
    of one row are padded to one width. Returns [] when not even the top card fits."""
    if not cards or rows <= 0:
        return []
    top = cards[-1]
    whole_width = 2 + max(size.inner, len(look.label(top)))
    if width < whole_width:
        return []
    under = cards[:-1]
    for hidden in range(len(under) + 1):
        parts: list[Card | str]
        if hidden == 0:
            parts = list(under)
        elif hidden == len(under):
            parts = [fold_text(hidden)]
        else:
            parts = [under[0], fold_text(hidden), *under[1 + hidden :]]
        laid = _wrap(look, parts, width - whole_width, width)
        if len(laid) <= rows:
            break
        if not fold:
            return []
    # Rows of even length: the narrowest width that needs no more rows (so the top card never
    # stands alone on a last row).
    narrow = width
    while narrow > whole_width and len(_wrap(look, parts, narrow - 1 - whole_width, narrow - 1)) == len(laid):
        narrow -= 1
    laid = _wrap(look, parts, narrow - whole_width, narrow)
    out: list[Text] = []
    for i, row in enumerate(laid):
        lines = [Text() for _ in range(size.lines)]
        for part in row:
            if isinstance(part, str):
                drawn = look.fold(int(part[1:]), size)
            else:
                drawn = look.face(part, whole=False, size=size)
            for line, piece in zip(lines, drawn, strict=True):
                line.append_text(piece)
        if i == len(laid) - 1:
            for line, piece in zip(lines, look.face(top, bg=top_bg, size=size), strict=True):
                line.append_text(piece)
        out.extend(lines)
    wide = max(t.cell_len for t in out)
    for t in out:
        t.pad_right(wide - t.cell_len)
    return out


def _wrap(look: CardLook, parts: list[Card | str], last_room: int, width: int) -> list[list[Card | str]]:
    """Parts into rows of ``width`` columns, the last row keeping ``last_room`` for the top card."""
    rows: list[list[Card | str]] = [[]]
    used = 0
    for part in parts:
        w = _part_width(look, part)
        if used + w > width:
            rows.append([])
            used = 0
        rows[-1].append(part)
        used += w
    if used > last_room:
        rows.append([])
    return rows
