"""An opponent at the table: name, AI kind, cards in hand (backs only), score, turn, thinking."""

from __future__ import annotations

from rich.console import RenderableType
from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from kc_tui.engine import Card
from kc_tui.ui.cards import BACK_STYLE, CardLook
from kc_tui.ui.text import plain, visible

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"


class OpponentPanel(Widget):
    """``show(...)`` updates it; ``reveal`` (demo only) shows the hand face up instead of backs."""

    DEFAULT_CSS = """
    OpponentPanel {
        border: round $panel-lighten-2;
        border-title-style: bold;
        height: 3;
        width: 1fr;
        padding: 0 1;
    }
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
        self.reveal = reveal
        self.hand: list[Card] = []
        self.look = CardLook()
        self.target = 0
        self.dealer = False
        self.score = ""
        self.border_title = plain(name)

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
        score: str = "",
        target: int = 0,
        to_move: bool = False,
        thinking: bool = False,
        dealer: bool = False,
        hand: list[Card] | None = None,
        look: CardLook | None = None,
    ) -> None:
        """``score``: the total as the table words it ("12/50 pts", "47 chips"); without it the
        total and ``target`` make one."""
        if look is not None:
            self.look = look
        self.hand = list(hand or [])
        self.target = target
        self.dealer = dealer
        self.score = score or (f"{total}/{target} pts" if target else f"{total} pts")
        self.cards, self.total, self.to_move, self.thinking = cards, total, to_move, thinking
        self.set_class(to_move, "-to-move")
        self.border_title = plain(f"▶ {self.player_name}" if to_move else self.player_name)
        self.border_subtitle = "dealer" if dealer else ""
        self.refresh()

    def render(self) -> RenderableType:
        """One line, fitted to the width by what matters most: the count of cards and the score
        always; then whose turn it is; then the AI kind; then the backs (or the open hand)."""
        width = self.content_size.width or 80
        count = Text(f"{self.cards} card{'s' if self.cards != 1 else ''}", "bold")
        essential = Text.assemble(count, " · ", self.score)
        state: list[Text] = []
        if self.thinking:
            state = [
                Text(f"{SPINNER[self.frame % len(SPINNER)]} thinking…", "bold #e0a030"),
                Text(SPINNER[self.frame % len(SPINNER)], "bold #e0a030"),
            ]
        elif self.to_move:
            state = [Text("◀ to play", "bold"), Text("◀", "bold")]
        kind = Text(visible(self.kind), "dim")
        if self.reveal and self.hand:
            cards = self.look.fan(self.hand)
        else:
            back, more = ("#", "+") if self.look.ascii else ("▒", "…")
            cards = Text(back * min(self.cards, 12) + (more if self.cards > 12 else ""), BACK_STYLE)
        optional = [cards, kind]  # dropped in this order when there is no room
        shown_state = next((t for t in state if essential.cell_len + 2 + t.cell_len <= width), None)
        room = width - essential.cell_len - (shown_state.cell_len + 2 if shown_state else 0)
        keep = [t for t in optional if t.cell_len]
        while keep and sum(t.cell_len + 1 for t in keep) > room:
            keep.pop(0)
        out = Text(no_wrap=True, overflow="ellipsis")
        if kind in keep:
            out.append_text(kind)
            out.append(" ")
        if cards in keep:
            out.append_text(cards)
            out.append(" ")
        out.append_text(essential)
        if shown_state is not None:
            out.append("  ")
            out.append_text(shown_state)
        return out
