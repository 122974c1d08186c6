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
        target: int = 0,
        to_move: bool = False,
        thinking: bool = False,
        dealer: bool = False,
        hand: list[Card] | None = None,
        look: CardLook | None = None,
    ) -> None:
        if look is not None:
            self.look = look
        self.hand = list(hand or [])
        self.target = target
        self.dealer = dealer
        self.cards, self.total, self.to_move, self.thinking = cards, total, to_move, thinking
        self.set_class(to_move, "-to-move")
        self.border_title = plain(f"▶ {self.player_name}" if to_move else self.player_name)
        self.border_subtitle = "dealer" if dealer else ""
        self.refresh()

    def render(self) -> RenderableType:
        out = Text(no_wrap=True, overflow="ellipsis")
        out.append(f"{visible(self.kind)} ", "dim")
        if self.reveal and self.hand:
            out.append_text(self.look.fan(self.hand))
        else:
            out.append("▒" * min(self.cards, 12), BACK_STYLE)
            if self.cards > 12:
                out.append("…", BACK_STYLE)
        out.append(f" {self.cards} card{'s' if self.cards != 1 else ''}", "bold")
        score = f" · {self.total}" + (f"/{self.target}" if self.target else "") + " pts"
        out.append(score)
        if self.thinking:
            out.append(f"  {SPINNER[self.frame % len(SPINNER)]} thinking…", "bold #e0a030")
        elif self.to_move:
            out.append("  ◀ to play", "bold")
        return out
