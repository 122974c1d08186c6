"""A hand of cards, drawn as cards: sorted, each card selectable (keys or mouse), its key on its
top edge, the card just drawn marked "new", as large as the terminal's cards (small, or larger on a
large terminal). A hand too wide for the row overlaps its cards (each still readable); one wider
still scrolls, with a scroll bar showing that there is more. The hand is as high as its cards, and
a line more for the scroll bar."""

from __future__ import annotations

from dataclasses import dataclass

from rich.cells import set_cell_size
from rich.console import RenderableType
from rich.style import Style
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.color import Color
from textual.containers import HorizontalScroll
from textual.css.scalar import Scalar
from textual.geometry import Region
from textual.message import Message
from textual.widget import Widget

from kc_tui.engine import Card
from kc_tui.i18n import _
from kc_tui.ui.cards import SMALL, CardLook, FaceSize, screen_face

#: The cells of the mark under the card just drawn ("new"): the bottom edge of a small card.
NEW_MARK_CELLS = SMALL.inner

KEYS = "1234567890"
#: Columns of a card covered by the next one: its left edge and its label.
COVERED = 4


@dataclass(frozen=True, slots=True)
class ShownCard:
    """One card of the hand as the row draws it: its place in the hand, whether the next card
    covers part of it, its marks, and its columns on the screen."""

    card: Card
    index: int
    covered: bool
    new: bool
    selected: bool
    region: Region


class HandRow(Widget):
    """The cards of a hand side by side in one widget, each drawn by :meth:`CardLook.face` with
    its number key on its top edge and its mark (new / selected) on its bottom one. The card
    under the mouse is tinted; a click on one posts :class:`HandView.CardClicked`."""

    DEFAULT_CSS = """
    HandRow {
        width: auto;
        height: 3;
        padding: 0;
    }
    """

    def __init__(self, look: CardLook) -> None:
        super().__init__(id="hand-row")
        self.look = look
        self.cards: list[Card] = []
        self.drawn: Card | None = None
        self.selected: Card | None = None
        #: The key of each card (an index into :data:`KEYS`; None: no key), in the hand's order.
        self.keys: list[int | None] = []
        self.face: FaceSize = SMALL
        #: Whether every card but the last is covered by the next one (only its label in sight).
        self.covered = False
        self._hover: int | None = None

    def set_hand(
        self,
        cards: list[Card],
        look: CardLook,
        *,
        drawn: Card | None,
        selected: Card | None,
        keys: list[int | None] | None = None,
    ) -> None:
        numbered = list(keys) if keys is not None else [i if i < len(KEYS) else None for i in range(len(cards))]
        state = (list(cards), look, drawn if drawn in cards else None, selected, numbered)
        if state == (self.cards, self.look, self.drawn, self.selected, self.keys):
            return
        self.cards, self.look, self.drawn, self.selected, self.keys = state
        self._size_to_cards()
        self.refresh()

    def set_fit(self, face: FaceSize, covered: bool) -> None:
        if (face, covered) == (self.face, self.covered):
            return
        self.face, self.covered = face, covered
        self._size_to_cards()
        self.refresh()

    def card_width(self, index: int) -> int:
        """Columns of card ``index``: a whole card, or the part of it left in sight."""
        return COVERED if self.is_covered(index) else self.face.width

    def is_covered(self, index: int) -> bool:
        return self.covered and index < len(self.cards) - 1

    @property
    def width_needed(self) -> int:
        return sum(self.card_width(i) for i in range(len(self.cards)))

    def _size_to_cards(self) -> None:
        width, height = self.width_needed, self.face.lines
        if (self.styles.width, self.styles.height) != (Scalar.from_number(width), Scalar.from_number(height)):
            self.styles.width, self.styles.height = width, height

    def index_at(self, x: int) -> int | None:
        """The card drawn at column ``x`` of the row, or None."""
        left = 0
        for i in range(len(self.cards)):
            left += self.card_width(i)
            if 0 <= x < left:
                return i
        return None

    def shown(self) -> list[ShownCard]:
        """Each card as drawn, with its region on the screen (out of the hand's sight when the
        row is scrolled past it)."""
        out: list[ShownCard] = []
        x, y = self.region.x, self.region.y
        for i, card in enumerate(self.cards):
            width = self.card_width(i)
            region = Region(x, y, width, self.face.lines)
            out.append(ShownCard(card, i, self.is_covered(i), card == self.drawn, card == self.selected, region))
            x += width
        return out

    def card_lines(self, index: int) -> list[Text]:
        """The lines card ``index`` is drawn with (a covered card's may be narrower than its
        columns: the row pads them with blanks)."""
        card = self.cards[index]
        selected = card == self.selected
        # Translators: the mark under the card just drawn (at most 3 cells are shown).
        new = set_cell_size(_("new"), NEW_MARK_CELLS).rstrip()
        mark = "▲" * self.face.inner if selected else (new if card == self.drawn else "")
        inks = self.look.inks
        bg = inks.selected if selected else inks.face
        if index == self._hover:
            bg = self._tinted(bg)
        lines = self.look.face(
            card,
            whole=not self.is_covered(index),
            bg=bg,
            key=self.key_of(index),
            mark=mark,
            mark_style=Style(color=inks.mark, bold=True, italic=not selected),
            size=self.face,
        )
        return lines

    def key_of(self, index: int) -> str:
        """The key written on card ``index`` ("" for none)."""
        key = self.keys[index] if index < len(self.keys) else None
        return KEYS[key] if key is not None else ""

    def _tinted(self, bg: str) -> str:
        """``bg`` tinted with the theme's accent, as the card under the mouse is (in the
        terminal's named colours: the look's own colour for it)."""
        if self.look.inks.hover is not None:
            return self.look.inks.hover
        accent = self.app.theme_variables.get("accent", "#ffa62b")
        return Color.parse(bg).blend(Color.parse(accent), 0.2).hex

    def render(self) -> RenderableType:
        if not self.cards:
            return ""
        faces = [(self.card_lines(i), self.card_width(i)) for i in range(len(self.cards))]
        out = Text(no_wrap=True, overflow="crop")
        for row in range(self.face.lines):
            if row:
                out.append("\n")
            for lines, width in faces:
                out.append_text(lines[row])
                out.append(" " * (width - lines[row].cell_len))
        return out

    def on_mouse_move(self, event: events.MouseMove) -> None:
        self._set_hover(self.index_at(event.x))

    def on_leave(self, _event: events.Leave) -> None:
        self._set_hover(None)

    def _set_hover(self, index: int | None) -> None:
        if index != self._hover:
            self._hover = index
            self.refresh()

    def on_click(self, event: events.Click) -> None:
        event.stop()
        index = self.index_at(event.x)
        if index is not None:
            self.post_message(HandView.CardClicked(self.cards[index], index))


class HandView(HorizontalScroll):
    """``show(cards, drawn=, selected=)`` draws the hand (in one :class:`HandRow`); clicking a
    card posts :class:`HandView.CardClicked`. Reusable for open hands in the demo."""

    DEFAULT_CSS = """
    HandView {
        scrollbar-size-horizontal: 1;
        height: 3;
    }
    HandView.-fits { scrollbar-size-horizontal: 0; }
    """

    can_focus = False

    class CardClicked(Message):
        def __init__(self, card: Card, index: int) -> None:
            super().__init__()
            self.card = card
            self.index = index

    def __init__(self, look: CardLook | None = None, *, id: str | None = None) -> None:
        super().__init__(id=id, classes="-fits")  # as it is until it is shown too wide
        self.look = look or CardLook()
        self.row = HandRow(self.look)

    def compose(self) -> ComposeResult:
        yield self.row

    def show(
        self,
        cards: list[Card],
        *,
        drawn: Card | None = None,
        selected: Card | None = None,
        look: CardLook | None = None,
        keys: list[int | None] | None = None,
    ) -> None:
        """``keys``: each card's key (an index into :data:`KEYS`, None for none); by default the
        cards are numbered in their order."""
        if look is not None:
            self.look = look
        self.row.set_hand(list(cards), self.look, drawn=drawn, selected=selected, keys=keys)
        self._fit()

    def on_mount(self) -> None:
        # The terminal's size of card may change when only its height does (the row keeps its width).
        self.screen.screen_layout_refresh_signal.subscribe(self, lambda _screen: self._fit())

    def on_resize(self, event: events.Resize) -> None:
        self._fit()

    @property
    def cards(self) -> list[Card]:
        """The cards shown, in their order."""
        return self.row.cards

    @property
    def overflowing(self) -> bool:
        """Whether some cards are out of sight (the row scrolls, and shows its scroll bar)."""
        return self.has_class("-overflow")

    @property
    def face(self) -> FaceSize:
        """The size its cards are drawn at: the terminal's (:func:`screen_face`)."""
        return screen_face(self) if self.is_attached else SMALL

    def shown(self) -> list[ShownCard]:
        """The cards of the hand as drawn, each with its region on the screen."""
        return self.row.shown()

    def in_sight(self) -> list[ShownCard]:
        """The cards of the hand wholly in sight (not scrolled away)."""
        return [c for c in self.shown() if self.region.contains_region(c.region)]

    def scroll_to_card(self, card: Card) -> None:
        """Scroll the row so that ``card`` is in sight."""
        for shown in self.row.shown():
            if shown.card == card:
                left = shown.region.x - self.row.region.x
                self.scroll_to_region(Region(left, 0, shown.region.width, shown.region.height), animate=False)
                return

    def _fit(self) -> None:
        """Cards of the terminal's size; overlapped when the whole ones do not fit; scrolled
        (with a bar) when even that does not. The row is as high as they are, and the bar."""
        n = len(self.cards)
        width = self.size.width
        face = self.face
        covered = width > 0 and n * face.width > width
        self.row.set_fit(face, covered)
        over = width > 0 and self.row.width_needed > width
        self.set_class(over, "-overflow")
        self.set_class(not over, "-fits")
        height = face.lines + (1 if over else 0)
        inline = self.styles.inline.height
        if inline is None or inline.cells != height:
            self.styles.height = height
