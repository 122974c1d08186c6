"""A hand of cards: sorted, each card selectable (keys or mouse), the card just drawn marked."""

from __future__ import annotations

from rich.console import RenderableType
from rich.text import Text
from textual import events
from textual.containers import HorizontalScroll
from textual.message import Message
from textual.widget import Widget

from kc_tui.engine import Card
from kc_tui.ui.cards import CardLook

KEYS = "1234567890"


class CardChip(Widget):
    """One card of the hand: its number key, its face, and a marker (new / selected)."""

    DEFAULT_CSS = """
    CardChip {
        width: 5;
        height: 3;
        padding: 0;
    }
    CardChip.-selected { background: $accent 40%; }
    CardChip.-legal-none { opacity: 70%; }
    CardChip:hover { background: $boost; }
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

    def render(self) -> RenderableType:
        if self.card is None:
            return ""
        key = KEYS[self.index] if self.index < len(KEYS) else " "
        selected = self.has_class("-selected")
        mark = "▲▲▲" if selected else ("new" if self.new else "")
        return Text.assemble(
            (key, "bold" if selected else "dim"),
            "\n",
            self.look.chip(self.card, width=4),
            "\n",
            (mark, "bold #ffd75f" if selected else "italic #e0a030"),
        )

    def on_click(self, event: events.Click) -> None:
        event.stop()
        if self.card is not None:
            self.post_message(HandView.CardClicked(self.card, self.index))


class HandView(HorizontalScroll):
    """``show(cards, drawn=, selected=)`` draws the hand; clicking a card posts
    :class:`HandView.CardClicked`. Reusable for open hands in the demo."""

    DEFAULT_CSS = """
    HandView {
        height: 4;
        scrollbar-size-horizontal: 1;
    }
    HandView > .empty { color: $text-muted; padding: 1 2; }
    """

    can_focus = False

    class CardClicked(Message):
        def __init__(self, card: Card, index: int) -> None:
            super().__init__()
            self.card = card
            self.index = index

    def __init__(self, look: CardLook | None = None, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.look = look or CardLook()
        self.cards: list[Card] = []
        self._chips: list[CardChip] = []

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
        while len(self._chips) < len(cards):
            chip = CardChip(len(self._chips))
            self._chips.append(chip)
            self.mount(chip)
        for i, chip in enumerate(self._chips):
            if i < len(cards):
                if not chip.display:
                    chip.display = True
                chip.set_card(cards[i], self.look, new=cards[i] == drawn, selected=cards[i] == selected)
            elif chip.display:
                chip.display = False
                chip.card = None

    def chip_for(self, card: Card) -> CardChip | None:
        for chip in self._chips:
            if chip.card == card and chip.display:
                return chip
        return None
