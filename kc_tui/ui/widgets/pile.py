"""One place on the table (a side or a corner) and the stock."""

from __future__ import annotations

from rich.console import RenderableType
from rich.style import Style
from rich.text import Text
from textual import events
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

from kc_tui.engine import PLACES, Card, Rules, empty_place_takes, pile_takes
from kc_tui.ui.cards import FACE_BG, CardLook, label_width, strip
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


def centred(text: Text) -> Text:
    """Every line of ``text`` centred on its longest, so that the block (aligned in its place as a
    whole) keeps a card above the words under it in the middle."""
    lines = text.split("\n")
    wide = max((line.cell_len for line in lines), default=0)
    for line in lines:
        room = wide - line.cell_len
        line.pad_left(room // 2)
        line.pad_right(room - room // 2)
    out = Text("\n", no_wrap=True, overflow="ellipsis").join(lines)
    out.no_wrap, out.overflow = True, "ellipsis"
    return out


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
        n = len(self.pile)
        self.border_subtitle = plain(f"{n} card{'s' if n != 1 else ''}" if n else "")

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

    @property
    def takes(self) -> str:
        """What the place takes next (its top card's need, or an empty place's), in words."""
        return pile_takes(self.place, self.pile, self.rules)

    def render(self) -> RenderableType:
        width = max(1, self.content_size.width)
        height = max(1, self.content_size.height)
        if not self.pile:
            return self._render_empty(width, height)
        # Cards drawn as cards, overlapped, in as many rows of three lines as there is room for;
        # a line left over says what the pile takes next.
        lines = strip(self.look, self.pile, width, height // 3)
        if not lines:
            lines = self._one_line(width, height)
        out = Text(justify="center", no_wrap=True, overflow="ellipsis")
        for i, line in enumerate(lines):
            if i:
                out.append("\n")
            out.append_text(line)
        if height - len(lines) >= 1:
            out.append_text(self._caption(width, f"next: {self.takes}", self.takes))
        return centred(out)

    def _render_empty(self, width: int, height: int) -> Text:
        """An empty place: a dashed outline with what it takes (K for a corner)."""
        out = Text(justify="center", no_wrap=True, overflow="ellipsis")
        inside = "K" if self.place >= 4 else ("A-Q" if "but K" in self.takes else "any")
        if height >= 3 and width >= 5:
            dashed = ("+- -+", "¦", "+- -+") if self.look.ascii else ("╭┄┄┄╮", "┆", "╰┄┄┄╯")
            out.append(dashed[0] + "\n", "dim")
            out.append(dashed[1], "dim")
            out.append(inside.center(3), "bold dim")
            out.append(dashed[1] + "\n", "dim")
            out.append(dashed[2], "dim")
            if height >= 4:
                out.append_text(self._caption(width, f"empty: {self.takes}", self.takes))
        else:
            out.append("empty\n", "dim italic")
            out.append(self.takes, "dim")
        return centred(out)

    @staticmethod
    def _caption(width: int, long: str, short: str) -> Text:
        """The longest of ``long``, ``short`` and ``short`` without its bracket that fits."""
        fits = [t for t in (long, short, short.split(" (")[0]) if len(t) <= width]
        return Text("\n" + (fits[0] if fits else ""), style="dim")

    def _one_line(self, width: int, height: int) -> list[Text]:
        """Cards as chips on one or two lines, for a place too small to draw them as cards."""
        top = self.look.top(self.pile[-1])
        under = self.pile[:-1]
        room = width - top.cell_len - 1
        if not under:
            return [top]
        if label_width(self.look, under) <= room:
            return [Text.assemble(self.look.fan(under), " ", top)]
        return [*compress(self.look, under, width, max(1, height - 1)), top]

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.post_message(self.Clicked(self.place))


class StockView(Widget):
    """The face-down stock with its count, the round, and the pot under chips scoring (in the
    middle of the table)."""

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
    pot: reactive[int | None] = reactive(None)

    def __init__(self, look: CardLook | None = None, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.look = look or CardLook()

    def render(self) -> RenderableType:
        words = [f"stock {self.count}" if self.count else "stock empty"]
        if self.pot is not None:
            words.append(f"pot {self.pot}")
        if self.round_number:
            words.append(f"round {self.round_number}")
        width = self.content_size.width
        out = Text(justify="center", no_wrap=True, overflow="ellipsis")
        side = max(len(w) for w in words)
        if self.content_size.height >= 3 and width >= 6 + side:
            # The back of a card with the words beside it.
            card = self.look.back() if self.count else [Text(" " * 5)] * 3
            for i, line in enumerate(card):
                if i:
                    out.append("\n")
                out.append_text(line)
                word = words[i] if i < len(words) else ""
                out.append(" " + word.ljust(side), "bold" if i == 0 and self.count else "dim")
            return out
        for i, word in enumerate(words):
            out.append(("\n" if i else "") + word, "bold" if i == 0 and self.count else "dim")
        return out
