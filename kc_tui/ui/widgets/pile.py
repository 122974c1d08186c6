"""One place on the table (a side or a corner) and the stock."""

from __future__ import annotations

from collections.abc import Callable

from rich.cells import cell_len, set_cell_size
from rich.console import RenderableType
from rich.style import Style
from rich.text import Text
from textual import events
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

from kc_tui.engine import PLACES, Card, Rules, empty_place_takes, pile_takes
from kc_tui.i18n import _, ngettext
from kc_tui.ui.cards import (
    SMALL,
    CardLook,
    FaceSize,
    down_from,
    fold_text,
    label_width,
    screen_face,
    strip,
)
from kc_tui.ui.literal_text import plain

#: The cells of the word inside an empty place's outline ("any"): a small card's inside.
EMPTY_MARK_CELLS = SMALL.inner
#: The cells of each of the stock's words ("stock 23", "pot 12", "round 3") at 80x24: the stock
#: has 17 columns there (its blank sides taken), a small card and a blank beside its words.
STOCK_WORDS_CELLS = 17 - SMALL.width - 1

#: The key that picks each place, laid out like the table (q w e / a · d / z x c).
PLACE_KEYS: dict[int, str] = {7: "q", 0: "w", 4: "e", 3: "a", 1: "d", 6: "z", 2: "x", 5: "c"}


def fitting_face(size: FaceSize, height: int) -> FaceSize | None:
    """The largest card, ``size`` or smaller, drawn in a place ``height`` lines high (a card
    larger than small with a line under it for what the place takes next); None when not even a
    small card fits: the place is drawn as text."""
    for face in down_from(size):
        if height >= face.lines + (0 if face == SMALL else 1):
            return face
    return None


def centred(text: Text, width: int = 0) -> Text:
    """Every line of ``text`` centred on the place's ``width`` columns (or its longest line, when
    that is wider): a card sits in the middle of its place whatever the width of the words under it."""
    lines = text.split("\n")
    wide = max((line.cell_len for line in lines), default=0)
    wide = max(wide, width)
    for line in lines:
        room = wide - line.cell_len
        line.pad_left(room // 2)
        line.pad_right(room - room // 2)
    out = Text("\n", no_wrap=True, overflow="ellipsis").join(lines)
    out.no_wrap, out.overflow = True, "ellipsis"
    return out


def compress(
    look: CardLook, cards: tuple[Card, ...], width: int, lines: int, last_room: int | None = None
) -> list[Text]:
    """The cards under the top one, overlapped over up to ``lines`` lines of ``width``
    columns, the last line no wider than ``last_room`` (default ``width``: room kept there for
    the top card); a pile too long to fit keeps its bottom card and its newest cards, with
    ``+n`` standing for the ``n`` cards between."""
    if not cards or width <= 0 or lines <= 0:
        return []
    room = width if last_room is None else max(0, min(width, last_room))
    fold = look.fold_style
    rows: list[list[Text]] = []
    for hidden in range(len(cards)):
        if hidden == 0:
            tokens = [look.fan([c]) for c in cards]
        else:
            tokens = [
                look.fan([cards[0]]),
                Text(fold_text(hidden), fold),
                *(look.fan([c]) for c in cards[1 + hidden :]),
            ]
        rows = _rows(tokens, width, room)
        if len(rows) <= lines:
            break
    out: list[Text] = []
    for row in rows[:lines]:
        line = Text()
        for tok in row:
            if line.cell_len:
                line.append(" ", Style(bgcolor=look.face_bg))
            line.append_text(tok)
        out.append(line)
    return out


def _rows(tokens: list[Text], width: int, last_room: int) -> list[list[Text]]:
    """``tokens`` into rows of ``width`` columns (a space between two), the last row no wider
    than ``last_room``: when it would be, its first tokens go on a row of their own above it."""
    rows: list[list[Text]] = [[]]
    used = 0
    for tok in tokens:
        need = tok.cell_len + (1 if rows[-1] else 0)
        if rows[-1] and used + need > width:
            rows.append([])
            used, need = 0, tok.cell_len
        rows[-1].append(tok)
        used += need
    last = rows[-1]
    if _width(last) > last_room and len(last) > 1:
        # The newest tokens that fit beside the top card stay on the last row (at least one),
        # leaving two on the row above when there are enough: no token stands alone there.
        keep = 1
        while keep < len(last) and _width(last[-(keep + 1) :]) <= last_room:
            keep += 1
        if len(last) >= 3:
            keep = min(keep, len(last) - 2)
        rows[-1:] = [last[:-keep], last[-keep:]]
    return rows


def _width(tokens: list[Text]) -> int:
    return sum(t.cell_len for t in tokens) + max(0, len(tokens) - 1)


class PileView(Widget):
    """A place on the table. ``set_pile`` shows its cards, as large as the terminal's cards
    (:func:`screen_face`) when they fit; classes ``-target`` (a legal target of the selection),
    ``-source`` (the pile picked to move) and ``-hint`` highlight it. Clicking it posts
    :class:`PileView.Clicked`."""

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
    /* The terminal's named colours have no shades: its highlight is the edge alone. */
    PileView:ansi.-target, PileView:ansi.-source, PileView:ansi.-hint { background: ansi_default; }
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
        #: The size of card every place of the table draws (set by the table: one look for all
        #: its places); unset, the place draws the largest that fits its own height.
        self.common_face: Callable[[], FaceSize | None] | None = None
        #: What an empty place takes, as its bottom border says it ("": nothing said there).
        self._border_noted = ""
        self._set_titles()

    def _set_titles(self) -> None:
        self._border_noted = ""
        key = f" ({PLACE_KEYS[self.place]})" if self.show_keys else ""
        self.border_title = plain(f"{PLACES[self.place]}{key}")
        n = len(self.pile)
        # Translators: under a place on the table, how many cards its pile holds.
        self.border_subtitle = plain(ngettext("{n} card", "{n} cards", n).format(n=n) if n else "")

    def _note_on_border(self, note: str) -> None:
        """What an empty place takes, on its bottom border ("": none), after this drawing (a
        drawing changes nothing while it draws)."""
        if note != self._border_noted:
            self._border_noted = note
            self.call_later(self._border_note, note)

    def _border_note(self, note: str) -> None:
        if not self.pile and note == self._border_noted:
            self.border_subtitle = plain(note)

    def set_pile(self, cards: tuple[Card, ...], look: CardLook | None = None, rules: Rules | None = None) -> None:
        cards = tuple(cards)
        look = self.look if look is None else look
        rules = self.rules if rules is None else rules
        if cards == self.pile and look == self.look and rules == self.rules:
            return
        self.look, self.rules = look, rules
        self.pile = cards
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

    @property
    def face(self) -> FaceSize | None:
        """The size of card the place draws (None: it draws its cards as text): the table's
        (:attr:`common_face`), else the largest that fits its height."""
        if self.common_face is not None:
            return self.common_face()
        return fitting_face(screen_face(self), self.content_size.height)

    def render(self) -> RenderableType:
        width = max(1, self.content_size.width)
        height = max(1, self.content_size.height)
        size = self.face
        if not self.pile:
            return self._render_empty(width, height, size)
        # Cards drawn as cards, overlapped: the table's size of card (else the largest smaller
        # one) when the whole pile fits with a line left for what it takes next; else small cards
        # in as many rows as there is room for, folded when they must be.
        lines: list[Text] = []
        if size is not None:
            for face in down_from(size)[:-1]:
                lines = strip(self.look, self.pile, width, (height - 1) // face.lines, size=face, fold=False)
                if lines:
                    break
            if not lines:
                lines = strip(self.look, self.pile, width, height // SMALL.lines)
        if not lines:
            lines = self._one_line(width, height)
        out = Text(justify="center", no_wrap=True, overflow="ellipsis")
        for i, line in enumerate(lines):
            if i:
                out.append("\n")
            out.append_text(line)
        if height - len(lines) >= 1:
            # Translators: under a pile, what it takes next ({takes}: e.g. "red 3", in the engine's words).
            out.append_text(self._caption(width, _("next: {takes}").format(takes=self.takes), self.takes))
        return centred(out, width)

    def _render_empty(self, width: int, height: int, face: FaceSize | None = SMALL) -> Text:
        """An empty place: a dashed outline of a card (``face``, when it fits; None: in words)
        with what it takes (K for a corner)."""
        out = Text(justify="center", no_wrap=True, overflow="ellipsis")
        # Translators: inside an empty place's outline of a card (3 columns): it takes any card.
        anything = set_cell_size(_("any"), EMPTY_MARK_CELLS).strip()
        inside = "K" if self.place >= 4 else ("A-Q" if "but K" in self.takes else anything)
        size = next((f for f in down_from(face or SMALL) if f.lines <= height and f.width <= width), SMALL)
        if face is not None and height >= size.lines and width >= size.width:
            corners, dash, side = ("++++", "- ", "¦") if self.look.ascii else ("╭╮╰╯", "┄", "┆")
            edge = (dash * size.inner)[: size.inner]
            out.append(f"{corners[0]}{edge}{corners[1]}\n", "dim")
            for row in range(size.lines - 2):
                out.append(side, "dim")
                out.append(inside.center(size.inner) if row == (size.lines - 3) // 2 else " " * size.inner, "bold dim")
                out.append(side + "\n", "dim")
            out.append(f"{corners[2]}{edge}{corners[3]}", "dim")
            # Translators: under an empty place, what it takes ({takes}: e.g. "K only").
            empty = _("empty: {takes}").format(takes=self.takes)
            if height > size.lines:
                out.append_text(self._caption(width, empty, self.takes))
                self._note_on_border("")
            else:  # no line left under the outline: what it takes goes on the border (less its ends)
                self._note_on_border(self._caption(width - 2, empty, self.takes).plain.strip())
        else:
            self._note_on_border("")
            # Translators: an empty place on the table, too small to draw its outline.
            out.append(_("empty") + "\n", "dim italic")
            out.append(self.takes, "dim")
        return centred(out, width)

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
        # The top card ends the last line beside the newest cards under it: a card alone on a
        # line would read as the caption's label.
        lines = compress(self.look, under, width, height, last_room=room)
        if not lines:
            return [top]
        lines[-1] = Text.assemble(lines[-1], " ", top)
        return lines

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
    StockView.-wide {
        border-left: none;
        border-right: none;
    }
    """

    count: reactive[int] = reactive(0)
    round_number: reactive[int] = reactive(0)
    pot: reactive[int | None] = reactive(None)

    def __init__(self, look: CardLook | None = None, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.look = look or CardLook()
        #: The size of card the table's places draw (see :attr:`PileView.common_face`).
        self.common_face: Callable[[], FaceSize | None] | None = None

    @property
    def face(self) -> FaceSize | None:
        """The size of its card: the table's, else the terminal's (None: the stock in words)."""
        return self.common_face() if self.common_face is not None else screen_face(self)

    def render(self) -> RenderableType:
        # Translators: beside the face-down stock: the cards left in it ({count}), the chips in
        # the pot ({pot}) and the round's number ({number}).
        words = [_("stock {count}").format(count=self.count) if self.count else _("stock empty")]
        if self.pot is not None:
            words.append(_("pot {pot}").format(pot=self.pot))
        if self.round_number:
            words.append(_("round {number}").format(number=self.round_number))
        width = self.content_size.width
        out = Text(justify="center", no_wrap=True, overflow="ellipsis")
        side = max(cell_len(w) for w in words)
        face = self.face
        for size in down_from(face) if face is not None else ():
            if width < size.width + 1 + side <= width + 2 and not self.has_class("-wide"):
                # A language's longer words: the blank columns at the sides make room for them.
                self.call_later(self.add_class, "-wide")
            if self.content_size.height >= size.lines and width >= size.width + 1 + side:
                # The back of a card with the words beside it (beside its middle on a large card).
                card = self.look.back(size) if self.count else [Text(" " * size.width)] * size.lines
                first = (size.lines - len(words)) // 2 if size.lines > 3 else 0
                for i, line in enumerate(card):
                    if i:
                        out.append("\n")
                    out.append_text(line)
                    word = words[i - first] if 0 <= i - first < len(words) else ""
                    pad = " " * (side - cell_len(word))
                    out.append(" " + word + pad, "bold" if i == first and self.count else "dim")
                return out
        for i, word in enumerate(words):
            out.append(("\n" if i else "") + word, "bold" if i == 0 and self.count else "dim")
        return out
