"""The table: the four sides in a cross, the corners on the diagonals, the stock in the middle."""

from __future__ import annotations

from collections.abc import Iterable

from textual import events
from textual.app import ComposeResult
from textual.containers import Grid

from kc_tui.engine import PLACES, Card, Rules
from kc_tui.ui.cards import SMALL, CardLook, FaceSize, screen_face

from .pile import PileView, StockView, fitting_face

#: Grid order, row by row: NW N NE / W stock E / SW S SE (None is the stock).
LAYOUT: tuple[int | None, ...] = (7, 0, 4, 3, None, 1, 6, 2, 5)


class TableView(Grid):
    """Eight :class:`PileView` and the :class:`StockView`.

    ``show(piles, stock_size)`` draws a position (from a Round or a PlayerView: both have
    ``piles``); ``highlight(targets, source, hint)`` marks places. Reusable by the demo.

    Every place is drawn with one look, :meth:`face`: the cards the lowest row has room for
    (text in every place when one row is too low for cards), so that no row differs from another."""

    DEFAULT_CSS = """
    TableView {
        grid-size: 3 3;
        grid-columns: 1fr 1fr 1fr;
        grid-rows: 1fr 1fr 1fr;
        grid-gutter: 0 1;
        height: 1fr;
        min-height: 12;
    }
    """

    def __init__(
        self, look: CardLook | None = None, rules: Rules | None = None, *, show_keys: bool = True, id: str | None = None
    ) -> None:
        super().__init__(id=id)
        self.look = look or CardLook()
        self.rules = rules or Rules()
        self.show_keys = show_keys

    def compose(self) -> ComposeResult:
        for place in LAYOUT:
            part: PileView | StockView
            if place is None:
                part = StockView(self.look, id="stock")
            else:
                part = PileView(place, look=self.look, rules=self.rules, show_keys=self.show_keys)
            part.common_face = self.face
            yield part

    def face(self) -> FaceSize | None:
        """The size of card every place draws: the largest the lowest place has room for (at most
        the terminal's, :func:`screen_face`); None when a place is too low for even a small card,
        and every place shows its cards as text."""
        size = screen_face(self)
        # Every place draws asking this: its children as they are, not a query (which parses a selector).
        fits = [fitting_face(size, c.content_size.height) for c in self.children if isinstance(c, PileView)]
        if not fits or None in fits:
            return None
        return min((f for f in fits if f is not None), key=lambda f: f.lines)

    def spare_lines(self) -> int:
        """The lines of the table beyond what its three rows need for the terminal's cards (a
        card high, its border and, for a card larger than small, the line of what it takes): what
        the screen may give a message without the table's look changing (negative: it lacks them)."""
        face = screen_face(self)
        row = face.lines + 2 + (0 if face == SMALL else 1)
        return self.content_size.height - 3 * row

    def on_resize(self, _event: events.Resize) -> None:
        # A row's height changed: every place draws again with the look the table has now.
        for part in self.children:
            part.refresh()

    def pile_view(self, place: int) -> PileView:
        return self.query_one(f"#pile-{PLACES[place].lower()}", PileView)

    def show(
        self,
        piles: Iterable[tuple[Card, ...]],
        stock_size: int,
        *,
        round_number: int = 0,
        pot: int | None = None,
        look: CardLook | None = None,
        rules: Rules | None = None,
    ) -> None:
        if look is not None:
            self.look = look
        if rules is not None:
            self.rules = rules
        for place, cards in enumerate(piles):
            self.pile_view(place).set_pile(tuple(cards), self.look, self.rules)
        stock = self.query_one(StockView)
        stock.look = self.look
        stock.count = stock_size
        stock.round_number = round_number
        stock.pot = pot

    def highlight(self, targets: Iterable[int] = (), source: int | None = None, hint: Iterable[int] = ()) -> None:
        targets, hints = set(targets), set(hint)
        for place in range(8):
            pv = self.pile_view(place)
            pv.set_class(place in targets, "-target")
            pv.set_class(place == source, "-source")
            pv.set_class(place in hints, "-hint")
