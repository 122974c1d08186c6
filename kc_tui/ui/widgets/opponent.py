"""An opponent at the table: name, AI kind, cards in hand (backs, or the hand face up where it
may be seen), score, turn, thinking.

Panels side by side (or one above the other) are fitted as one row: what each shows is decided
from the widest of them, so panels of one size always show the same parts (the kind, the backs)
and a turn passing from one to the next moves nothing but its mark (room for it is kept in
every panel). An open hand has lines of
its own under the panel's line, as many as the longest open hand of the row needs, so no card is
ever left out for want of room beside the name; a panel one line high puts the hand first.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.cells import cell_len
from rich.console import RenderableType
from rich.style import Style
from rich.text import Text
from textual.geometry import Size
from textual.reactive import reactive
from textual.widget import Widget

from kc_tui.engine import Card
from kc_tui.i18n import N_, _, ngettext
from kc_tui.ui.cards import CardLook
from kc_tui.ui.literal_text import plain, visible

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
#: The most card backs drawn (a longer hand ends in "…").
MAX_BACKS = 12
#: The turn marks, longest first: thinking (an AI at work; ``{spinner}`` is a frame of
#: :data:`SPINNER`) and to play.
# Translators: {spinner} is a turning mark drawn before the word.
THINKING = N_("{spinner} thinking…")
TO_PLAY = N_("◀ to play")


def thinking_text(frame: str = SPINNER[0]) -> str:
    """The mark of an AI at work, its spinner at ``frame``."""
    return _(THINKING).format(spinner=frame)


def count_text(cards: int) -> str:
    return ngettext("{n} card", "{n} cards", cards).format(n=cards)


@dataclass(frozen=True, slots=True)
class RowFit:
    """What every panel of a row shows, decided once for the row: the room kept for the turn's
    mark (0: none, 1: the mark alone, else the words), and whether the kind and the backs fit."""

    state: int
    kind: bool
    backs: bool


class OpponentPanel(Widget):
    """``show(...)`` updates it; ``reveal`` shows the hand face up instead of backs (the demo's
    open hands, a replay's hands opened at the round's end)."""

    DEFAULT_CSS = """
    OpponentPanel {
        border: round $panel-lighten-2;
        border-title-style: bold;
        height: 3;
        width: 1fr;
        padding: 0 1;
    }
    OpponentPanel.-open { height: auto; }
    OpponentPanel.-to-move { border: heavy $accent; }
    OpponentPanel.-winner { border: heavy $success; }
    """

    cards: reactive[int] = reactive(0)
    total: reactive[int] = reactive(0)
    thinking: reactive[bool] = reactive(False)
    to_move: reactive[bool] = reactive(False)
    frame: reactive[int] = reactive(0)

    def __init__(self, seat: int, name: str, kind: str, *, reveal: bool = False, id: str | None = None) -> None:
        super().__init__(id=id or f"opponent-{seat}")
        self.seat = seat
        self.player_name = name
        self.kind = kind
        self._reveal = False
        self.hand: list[Card] = []
        self.look = CardLook()
        self.target = 0
        self.dealer = False
        self.score = ""
        self.border_title = plain(name)
        self.reveal = reveal

    @property
    def reveal(self) -> bool:
        """The hand is shown face up (an empty one says so) instead of its backs."""
        return self._reveal

    @reveal.setter
    def reveal(self, value: bool) -> None:
        if value != self._reveal:
            self._reveal = value
            self.set_class(value, "-open")
            self._refresh_row(layout=True)

    def on_mount(self) -> None:
        self.set_interval(0.12, self._spin)

    def _spin(self) -> None:
        if self.thinking:
            self.frame += 1

    def show(
        self,
        *,
        cards: int,
        total: int,
        score: str,
        target: int = 0,
        to_move: bool = False,
        thinking: bool = False,
        dealer: bool = False,
        hand: list[Card] | None = None,
        look: CardLook | None = None,
    ) -> None:
        """``score``: the total as the table's snapshot words it ("12/50 pts", "47 chips");
        ``target``: the points target beside the totals (0 under chips scoring)."""
        look = self.look if look is None else look
        shown = (cards, total, score, target, to_move, thinking, dealer, list(hand or []), look)
        if shown == (
            self.cards,
            self.total,
            self.score,
            self.target,
            self.to_move,
            self.thinking,
            self.dealer,
            self.hand,
            self.look,
        ):
            return
        self.look = look
        before = (self.cards, len(self.hand), self.score)
        self.hand = list(hand or [])
        self.target = target
        self.dealer = dealer
        self.score = score
        self.cards, self.total, self.to_move, self.thinking = cards, total, to_move, thinking
        self.set_class(to_move, "-to-move")
        self.border_title = plain(f"▶ {self.player_name}" if to_move else self.player_name)
        self.border_subtitle = _("dealer") if dealer else ""
        if before != (self.cards, len(self.hand), self.score):
            self._refresh_row(layout=self.reveal)  # the row's fit may change with this panel
        else:
            self.refresh()

    # ------------------------------------------------------------------ the row
    def row(self) -> list[OpponentPanel]:
        """The panels fitted together with this one: its siblings (itself alone when unmounted)."""
        parent = self.parent
        if parent is None:
            return [self]
        return [w for w in parent.children if isinstance(w, OpponentPanel)] or [self]

    def _refresh_row(self, *, layout: bool = False) -> None:
        for panel in self.row():
            panel.refresh(layout=layout)

    def _essential(self) -> Text:
        return Text.assemble(Text(count_text(self.cards), "bold"), " · ", self.score)

    def _backs(self) -> Text:
        back, more = ("#", "+") if self.look.ascii else ("▒", "…")
        return Text(back * min(self.cards, MAX_BACKS) + (more if self.cards > MAX_BACKS else ""), self.look.back_style)

    def row_fit(self, width: int) -> RowFit:
        """What every panel of the row shows at ``width`` columns (the narrowest panel's): the
        count and the score always; then the turn's mark (in words when they fit); then the AI
        kind; then the backs (an open hand has its own lines)."""
        row = self.row()
        essential = max(p._essential().cell_len for p in row)
        state = next((r for r in (cell_len(thinking_text()), 1) if essential + 2 + r <= width), 0)
        room = width - essential - (state + 2 if state else 0)
        kind = max(len(visible(p.kind)) + 1 for p in row)
        closed = [p for p in row if not p.reveal]
        backs = max((p._backs().cell_len + 1 for p in closed), default=0)
        return RowFit(state, kind <= room, bool(backs) and kind + backs <= room)

    def _row_width(self) -> int:
        widths = [p.content_size.width for p in self.row() if p.content_size.width > 0]
        return min(widths) if widths else (self.content_size.width or 80)

    # ------------------------------------------------------------------ drawing
    def _state(self, room: int) -> Text | None:
        frame = SPINNER[self.frame % len(SPINNER)]
        if self.thinking:
            choices = [Text(thinking_text(frame), "bold #e0a030"), Text(frame, "bold #e0a030")]
        elif self.to_move:
            choices = [Text(_(TO_PLAY), "bold"), Text("◀", "bold")]
        else:
            return None
        return next((t for t in choices if t.cell_len <= room), None)

    def _hand_lines(self, width: int) -> list[Text]:
        """The open hand, face up, wrapped between cards to ``width`` columns ("no cards" when
        it is empty)."""
        if not self.hand:
            return [Text(_("no cards"), "dim italic")]
        lines: list[Text] = [Text()]
        for card in self.hand:
            label = Text(self.look.label(card), self.look.style_of(card))
            line = lines[-1]
            if line.cell_len and line.cell_len + 1 + label.cell_len > width:
                lines.append(label)
                continue
            if line.cell_len:
                line.append(" ", Style(bgcolor=self.look.face_bg))
            line.append_text(label)
        return lines

    def _head(self, width: int, fit: RowFit, *, backs: bool) -> Text:
        out = Text(no_wrap=True, overflow="ellipsis")
        if fit.kind:
            out.append(visible(self.kind), "dim")
            out.append(" ")
        if backs and fit.backs:
            out.append_text(self._backs())
            out.append(" ")
        out.append_text(self._essential())
        state = self._state(fit.state)
        if state is not None:
            out.append("  ")
            out.append_text(state)
        return out

    def _one_line_open(self, width: int) -> Text:
        """An open hand in a panel one line high: the count and score, the hand (closer
        together, or cut with "…" only when even that does not fit), then the turn's mark."""
        essential = self._essential()
        room = width - essential.cell_len - 1
        hand = self.look.fan(self.hand) if self.hand else Text(_("no cards"), "dim italic")
        if hand.cell_len > room and self.hand:
            hand = self.look.fan(self.hand, sep="")
        out = Text(no_wrap=True, overflow="ellipsis")
        if hand.cell_len > room:
            hand.truncate(max(0, room - 1))
            hand.append("…")
        out.append_text(hand)
        out.append(" ")
        out.append_text(essential)
        state = self._state(width - out.cell_len - 2)
        if state is not None:
            out.append("  ")
            out.append_text(state)
        return out

    def lines(self, width: int) -> list[Text]:
        """The panel's lines at ``width`` columns (an open hand: its own lines under the first)."""
        fit = self.row_fit(width)
        if not self.reveal:
            return [self._head(width, fit, backs=True)]
        return [self._head(width, fit, backs=False), *self._hand_lines(width)]

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        """An open panel is as high as the row's highest: the row's panels stay one size."""
        if not self.reveal:
            return 1
        return max(len(p.lines(width)) if p.reveal else 1 for p in self.row())

    def render(self) -> RenderableType:
        width = self._row_width()
        height = self.content_size.height or 1
        if self.reveal and height == 1:
            return self._one_line_open(width)
        lines = self.lines(width)[:height]
        out = Text("\n", no_wrap=True, overflow="ellipsis").join(lines)
        out.no_wrap, out.overflow = True, "ellipsis"
        return out
