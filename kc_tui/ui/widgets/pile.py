"""One place on the table (a side or a corner) and the stock."""

from __future__ import annotations

from rich.console import RenderableType
from rich.style import Style
from rich.text import Text
from textual import events
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

from kc_tui.engine import PLACES, Card, Rules, empty_place_takes
from kc_tui.ui.cards import BACK_STYLE, FACE_BG, CardLook, label_width
from kc_tui.ui.text import plain

#: The key that picks each place, laid out like the table (q w e / a · d / z x c).
PLACE_KEYS: dict[int, str] = {7: "q", 0: "w", 4: "e", 3: "a", 1: "d", 6: "z", 2: "x", 5: "c"}
PLACE_NAMES: dict[int, str] = {
    0: "North",
    1: "East",
    2: "South",
    3: "West",
    4: "North-east",
    5: "South-east",
    6: "South-west",
    7: "North-west",
}


def compress(look: CardLook, cards: tuple[Card, ...], width: int, lines: int) -> list[Text]:
    """The cards under the top one, overlapped over up to ``lines`` lines of ``width``
    columns; a pile too long to fit keeps its bottom card and its newest cards, with
    ``…n`` standing for the ``n`` cards between."""
    if not cards or width <= 0 or lines <= 0:
        return []
    out: list[list[Card]] = [[]]
    for c in cards:
        row = out[-1]
        if row and label_width(look, [*row, c]) > width:
            out.append([c])
        else:
            row.append(c)
    if len(out) <= lines:
        return [look.fan(row) for row in out]
    # Too long: bottom card, an ellipsis with the count, then as many newest cards as fit.
    budget = width * lines
    keep_tail: list[Card] = []
    head = [cards[0]]
    for c in reversed(cards[1:]):
        hidden = len(cards) - 1 - len(keep_tail) - 1
        need = label_width(look, [*head, c, *keep_tail]) + len(f" …{hidden}") + 2
        if need > budget - (lines - 1) * 3:
            break
        keep_tail.insert(0, c)
    hidden = len(cards) - 1 - len(keep_tail)
    tokens: list[Text] = [look.fan(head), Text(f"…{hidden}", Style(color="#555555", bgcolor=FACE_BG, italic=True))]
    tokens += [look.fan([c]) for c in keep_tail]
    rows: list[Text] = [Text()]
    for tok in tokens:
        line = rows[-1]
        if line.cell_len and line.cell_len + 1 + tok.cell_len > width:
            rows.append(tok.copy())
        else:
            if line.cell_len:
                line.append(" ", Style(bgcolor=FACE_BG))
            line.append_text(tok)
    return rows[:lines]


def _folded(line: Text) -> bool:
    return "…" in line.plain


class PileView(Widget):
    """A place on the table. ``set_pile`` shows its cards; classes ``-target`` (a legal target
    of the selection), ``-source`` (the pile picked to move) and ``-hint`` highlight it.
    Clicking it posts :class:`PileView.Clicked`."""

    DEFAULT_CSS = """
    PileView {
        border: round $panel-lighten-2;
        border-title-align: left;
        border-subtitle-align: right;
        height: 1fr;
        width: 1fr;
        padding: 0 1;
        content-align: center middle;
    }
    PileView.-target { border: heavy $success; background: $success 15%; }
    PileView.-source { border: double $warning; background: $warning 15%; }
    PileView.-hint { border: heavy $accent; background: $accent 20%; }
    PileView:hover { background: $boost; }
    """

    pile: reactive[tuple[Card, ...]] = reactive((), layout=False)

    class Clicked(Message):
        def __init__(self, place: int) -> None:
            super().__init__()
            self.place = place

    def __init__(
        self,
        place: int,
        *,
        look: CardLook | None = None,
        rules: Rules | None = None,
        show_keys: bool = True,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id or f"pile-{PLACES[place].lower()}")
        self.place = place
        self.look = look or CardLook()
        self.rules = rules or Rules()
        self.show_keys = show_keys
        self._set_titles()

    def _set_titles(self) -> None:
        key = f" ({PLACE_KEYS[self.place]})" if self.show_keys else ""
        self.border_title = plain(f"{PLACES[self.place]}{key}")
        self.border_subtitle = plain(str(len(self.pile)) if len(self.pile) > 1 else "")

    def set_pile(self, cards: tuple[Card, ...], look: CardLook | None = None, rules: Rules | None = None) -> None:
        if look is not None:
            self.look = look
        if rules is not None:
            self.rules = rules
        if tuple(cards) == self.pile and look is None and rules is None:
            return
        self.pile = tuple(cards)
        self._set_titles()
        self.refresh()

    @property
    def accepts(self) -> str:
        """What an empty place takes (R10, R11), as the engine words it."""
        return empty_place_takes(self.place, self.rules)

    def render(self) -> RenderableType:
        width = max(1, self.content_size.width)
        height = max(1, self.content_size.height)
        if not self.pile:
            return Text.assemble(("empty\n", "dim italic"), (self.accepts, "dim"), justify="center")
        top = self.look.top(self.pile[-1])
        under = self.pile[:-1]
        # The pile fanned left to right, the top card last and in full; long piles wrap and,
        # when even that does not fit, the middle is folded into "…n".
        room = width - top.cell_len - 1
        if not under:
            lines = [top]
        elif label_width(self.look, under) <= room:
            lines = [Text.assemble(self.look.fan(under), " ", top)]
        else:
            lines = [*compress(self.look, under, width, max(1, height - 1)), top]
        out = Text(justify="center", no_wrap=True, overflow="ellipsis")
        for i, line in enumerate(lines):
            if i:
                out.append("\n")
            out.append_text(line)
        return out

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.post_message(self.Clicked(self.place))


class StockView(Widget):
    """The face-down stock with its count (in the middle of the table)."""

    DEFAULT_CSS = """
    StockView {
        height: 1fr;
        width: 1fr;
        content-align: center middle;
        border: blank;
    }
    """

    count: reactive[int] = reactive(0)
    round_number: reactive[int] = reactive(0)

    def render(self) -> RenderableType:
        if self.count:
            backs = Text("▒▒▒▒", BACK_STYLE)
            body = Text.assemble(backs, "\n", (f"stock {self.count}", "bold"), justify="center")
        else:
            body = Text.assemble(("    \n", ""), ("stock empty", "dim"), justify="center")
        if self.round_number:
            body.append(f"\nround {self.round_number}", "dim")
        return body
