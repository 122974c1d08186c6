"""A hand of cards, drawn as cards: sorted, each card selectable (keys or mouse), its key on its
top edge, the card just drawn marked "new", as large as the terminal's cards (small, or larger on a
large terminal). A hand too wide for the row overlaps its cards (each still readable); one wider
still scrolls, with a scroll bar showing that there is more. The hand is as high as its cards, and
a line more for the scroll bar."""

from __future__ import annotations

from rich.console import RenderableType
from rich.style import Style
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import HorizontalScroll
from textual.message import Message
from textual.widget import Widget

from kc_tui.engine import Card
from kc_tui.ui.cards import FACE_BG, FACES, SELECTED_BG, SMALL, CardLook, FaceSize, screen_face

KEYS = "1234567890"
#: Columns of a card covered by the next one: its left edge and its label.
COVERED = 4


class CardChip(Widget):
    """One card of the hand: its number key, its face, and a marker (new / selected)."""

    DEFAULT_CSS = """
    CardChip {
        width: 5;
        height: 3;
        padding: 0;
    }
    CardChip.-covered { width: 4; }
    CardChip.-large { width: 7; height: 5; }
    CardChip.-huge { width: 9; height: 7; }
    CardChip.-large.-covered, CardChip.-huge.-covered { width: 4; }
    CardChip:hover { tint: $accent 20%; }
    """

    def __init__(self, index: int) -> None:
        super().__init__(id=f"card-{index}")
        self.index = index
        self.card: Card | None = None
        self.look = CardLook()
        self.new = False

    def set_card(self, card: Card, look: CardLook, *, new: bool, selected: bool) -> None:
        if (self.card, self.look, self.new, self.has_class("-selected")) == (card, look, new, selected):
            return
        self.card, self.look, self.new = card, look, new
        self.set_class(selected, "-selected")
        self.refresh()

    @property
    def face(self) -> FaceSize:
        """The size the card is drawn at: its class (``-large``), else small."""
        return next((f for f in FACES if self.has_class(f"-{f.name}")), SMALL)

    def render(self) -> RenderableType:
        if self.card is None:
            return ""
        key = KEYS[self.index] if self.index < len(KEYS) else ""
        selected = self.has_class("-selected")
        size = self.face
        mark = "▲" * size.inner if selected else ("new" if self.new else "")
        lines = self.look.face(
            self.card,
            whole=not self.has_class("-covered"),
            bg=SELECTED_BG if selected else FACE_BG,
            key=key,
            mark=mark,
            mark_style=Style(color="#8a4b00", bold=True, italic=not selected),
            size=size,
        )
        return Text("\n").join(lines)

    def on_click(self, event: events.Click) -> None:
        event.stop()
        if self.card is not None:
            self.post_message(HandView.CardClicked(self.card, self.index))


class HandView(HorizontalScroll):
    """``show(cards, drawn=, selected=)`` draws the hand; clicking a card posts
    :class:`HandView.CardClicked`. Reusable for open hands in the demo."""

    DEFAULT_CSS = """
    HandView {
        scrollbar-size-horizontal: 1;
    }
    HandView.-fits { scrollbar-size-horizontal: 0; }
    HandView > .empty { color: $text-muted; padding: 1 2; }
    """

    can_focus = False

    class CardClicked(Message):
        def __init__(self, card: Card, index: int) -> None:
            super().__init__()
            self.card = card
            self.index = index

    def __init__(self, look: CardLook | None = None, *, id: str | None = None, room: int = 0) -> None:
        """``room``: how many cards the row is made with (more are mounted when shown), so
        that a hand shown at once is laid out with the screen, not after it."""
        super().__init__(id=id, classes="-fits")  # as it is until it is shown too wide
        self.look = look or CardLook()
        self.cards: list[Card] = []
        self._chips: list[CardChip] = [CardChip(i) for i in range(room)]
        for chip in self._chips:
            chip.display = False

    def compose(self) -> ComposeResult:
        yield from self._chips

    def show(
        self,
        cards: list[Card],
        *,
        drawn: Card | None = None,
        selected: Card | None = None,
        look: CardLook | None = None,
    ) -> None:
        if look is not None:
            self.look = look
        self.cards = list(cards)
        new = [CardChip(i) for i in range(len(self._chips), len(cards))]
        if new:  # mounted at once: the row is laid out again once, not once a card
            self._chips.extend(new)
            self.mount_all(new)
        for i, chip in enumerate(self._chips):
            if i < len(cards):
                if not chip.display:
                    chip.display = True
                chip.set_card(cards[i], self.look, new=cards[i] == drawn, selected=cards[i] == selected)
            elif chip.display:
                chip.display = False
                chip.card = None
        self._fit()

    def on_mount(self) -> None:
        # The terminal's size of card may change when only its height does (the row keeps its width).
        self.screen.screen_layout_refresh_signal.subscribe(self, lambda _screen: self._fit())

    def on_resize(self, event: events.Resize) -> None:
        self._fit()

    @property
    def overflowing(self) -> bool:
        """Whether some cards are out of sight (the row scrolls, and shows its scroll bar)."""
        return self.has_class("-overflow")

    @property
    def face(self) -> FaceSize:
        """The size its cards are drawn at: the terminal's (:func:`screen_face`)."""
        return screen_face(self) if self.is_attached else SMALL

    def _fit(self) -> None:
        """Cards of the terminal's size; overlapped when the whole ones do not fit; scrolled
        (with a bar) when even that does not. The row is as high as they are, and the bar."""
        n = len(self.cards)
        width = self.size.width
        face = self.face
        covered = width > 0 and n * face.width > width
        for i, chip in enumerate(self._chips):
            for f in FACES:
                chip.set_class(f is face and f is not SMALL, f"-{f.name}")
            chip.set_class(covered and i < n - 1, "-covered")
        over = width > 0 and ((n - 1) * COVERED + face.width if covered else n * face.width) > width
        self.set_class(over, "-overflow")
        self.set_class(not over, "-fits")
        height = face.lines + (1 if over else 0)
        inline = self.styles.inline.height
        if inline is None or inline.cells != height:
            self.styles.height = height

    def chip_for(self, card: Card) -> CardChip | None:
        for chip in self._chips:
            if chip.card == card and chip.display:
                return chip
        return None
